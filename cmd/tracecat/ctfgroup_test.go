package main

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// writeSplitGapTrace writes to dir a trace of one data stream (ctfgen, 6
// packets of 1024 bytes or more) split into two files, channel0_0 (its
// first 3 packets) and channel0_0_1 (the rest): one stream to babeltrace2.
// The tracer discarded 5 event records before packet 1 and 7 before packet
// 3 — the second file's first packet — and lost 3 packets there too (its
// packet_seq_num 3+3): two of the gaps lie across the files.
func writeSplitGapTrace(t *testing.T, dir string) (packets int) {
	t.Helper()
	if err := ctfgen.Write(dir, 300, 1, 4, 1024); err != nil {
		t.Fatal(err)
	}
	data, err := ctfgen.EditPackets(dir, "channel0_0", 1024, 6, func(i int, b []byte) {
		var disc, seq uint64 = 0, uint64(i)
		switch {
		case i >= 3:
			disc, seq = 12, seq+3
		case i >= 1:
			disc = 5
		}
		binary.LittleEndian.PutUint64(b[ctfgen.OffSeq:], seq)
		binary.LittleEndian.PutUint64(b[ctfgen.OffDiscarded:], disc)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "channel0_0"), data[:3*1024], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "channel0_0_1"), data[3*1024:], 0o644); err != nil {
		t.Fatal(err)
	}
	return len(data) / 1024
}

// validate reads the files of one data stream as one, as babeltrace2 and
// dump do: a tracer's gap across two files (the discarded event record
// counter's growth, a packet_seq_num jump from the first file's last
// packet to the second file's first) is a warning line of its own, and
// validate's lines add up to dump's warning and stats' counts. With
// BABELTRACE2 set, its warnings are counted too.
func TestCTFValidateGapsAcrossFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	packets := writeSplitGapTrace(t, dir)
	code, out, errb := run(t, nil, "validate", dir)
	out += errb
	wantLines := []string{
		"warning: channel0_0: packet 1: the tracer discarded 5 event records",
		"warning: channel0_0_1: packet 0: the tracer discarded 7 event records",
		"warning: channel0_0_1: packet 0: 3 packets lost (sequence number gap)",
	}
	for _, w := range wantLines {
		if !strings.Contains(out, w) {
			t.Errorf("validate lacks %q: exit %d\n%s", w, code, out)
		}
	}
	if code != exitOK || strings.Count(out, "warning: ") != len(wantLines) || !strings.Contains(out, "300 event records in 2 data streams") {
		t.Errorf("validate: exit %d\n%s", code, out)
	}
	if code, out, _ := run(t, nil, "validate", "--strict", dir); code != exitOK {
		t.Errorf("validate --strict: exit %d (the tracer's gaps pass)\n%s", code, out)
	}
	_, _, dumpErr := run(t, nil, "dump", dir)
	if want := "the tracer discarded 12 event records (2 gaps) and lost 3 packets (1 gap) in"; !strings.Contains(dumpErr, want) {
		t.Errorf("dump: %q, want %q", dumpErr, want)
	}
	_, st, _ := run(t, nil, "stats", "--json", dir)
	for _, w := range []string{`"data_packets":` + strconv.Itoa(packets) + `,`, `"events_discarded":12`, `"packets_lost":3`} {
		if !strings.Contains(st, w) {
			t.Errorf("stats lacks %s: %s", w, st)
		}
	}
	if events, gaps, lost, lostGaps, ok := babeltrace2Losses(t, dir); ok && (events != 12 || gaps != 2 || lost != 3 || lostGaps != 1) {
		t.Errorf("babeltrace2 warns of %d records in %d gaps, %d packets in %d gaps; validate lists 12 in 2, 3 in 1", events, gaps, lost, lostGaps)
	}
}

// stats counts each packet of a data stream once where two files of a
// trace folder hold overlapping parts of it (packets [0, n-1) and [1, n),
// read as one stream, equal packets once): data_packets n (it counted
// each file up to the last packet read from it: 2n-2), the events those
// of the whole stream.
func TestCTFStatsGroupPacketsOnce(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	if err := ctfgen.Write(src, 500, 1, 4, 1024); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(src, "channel0_0"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(data) / 1024
	if err := os.RemoveAll(filepath.Join(src, "index")); err != nil {
		t.Fatal(err)
	}
	_, whole, _ := run(t, nil, "stats", "--json", src)
	if err := os.WriteFile(filepath.Join(src, "channel0_0"), data[:(n-1)*1024], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "channel0_0_1"), data[1024:], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run(t, nil, "stats", "--json", src)
	for _, w := range []string{`"events":500,`, `"data_packets":` + strconv.Itoa(n) + `,`, `"recovery":null`} {
		if code != exitOK || !strings.Contains(out, w) || !strings.Contains(whole, w) {
			t.Errorf("stats: exit %d, lacks %s: %s%s\n(whole stream: %s)", code, w, out, errb, whole)
		}
	}
}

// validate of a session folder whose two trace folders are rotation
// chunks of one trace (same UUID: one data stream, its first 3 packets in
// chunk-1, the rest in chunk-2): each folder's line lists its own gaps
// (5 records before packet 1, in chunk-1), the session's lists those
// across the folders (7 records and 3 packets before chunk-2's first
// packet, counted from chunk-1's last), as babeltrace2 reads the session
// as one trace; they add up to dump's warning.
func TestCTFValidateSessionGapsAcrossChunks(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writeSplitGapTrace(t, src)
	root := t.TempDir()
	meta, err := os.ReadFile(filepath.Join(src, "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	for chunk, f := range map[string]string{"chunk-1": "channel0_0", "chunk-2": "channel0_0_1"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		d := filepath.Join(root, chunk)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "metadata"), meta, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "channel0_0"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errb := run(t, nil, "validate", root)
	want := []string{
		root + "/chunk-1: warning: channel0_0: packet 1: the tracer discarded 5 event records",
		root + ": session: warning: chunk-2/channel0_0: packet 0: the tracer discarded 7 event records (counted from the packet before it, in chunk-1/channel0_0)",
		root + ": session: warning: chunk-2/channel0_0: packet 0: 3 packets lost (sequence number gap from the packet before it, in chunk-1/channel0_0)",
		"2 inputs: 2 ok, 0 invalid",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("validate lacks %q: exit %d\n%s%s", w, code, out, errb)
		}
	}
	if code != exitOK || strings.Count(out, "warning: ") != 3 {
		t.Errorf("validate: exit %d, %d warnings, want 3\n%s%s", code, strings.Count(out, "warning: "), out, errb)
	}
	_, _, dumpErr := run(t, nil, "dump", root)
	if w := "the tracer discarded 12 event records (2 gaps) and lost 3 packets (1 gap) in"; !strings.Contains(dumpErr, w) {
		t.Errorf("dump: %q, want %q", dumpErr, w)
	}
	if events, gaps, lost, lostGaps, ok := babeltrace2Losses(t, root); ok && (events != 12 || gaps != 2 || lost != 3 || lostGaps != 1) {
		t.Errorf("babeltrace2 warns of %d records in %d gaps, %d packets in %d gaps; validate lists 12 in 2, 3 in 1", events, gaps, lost, lostGaps)
	}
}

// babeltrace2Losses runs BABELTRACE2 (when set: ok) on path and sums the
// tracer losses it warns of: discarded event records and their gaps, lost
// packets and their gaps.
func babeltrace2Losses(t *testing.T, path string) (events, gaps, lost, lostGaps int, ok bool) {
	t.Helper()
	bt := os.Getenv("BABELTRACE2")
	if bt == "" {
		return 0, 0, 0, 0, false
	}
	c := exec.Command(bt, path)
	c.Env = append(os.Environ(), "TZ=UTC")
	b, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("babeltrace2: %v", err)
	}
	for _, m := range regexp.MustCompile(`Tracer discarded (\d+) events`).FindAllStringSubmatch(string(b), -1) {
		n, _ := strconv.Atoi(m[1])
		events, gaps = events+n, gaps+1
	}
	for _, m := range regexp.MustCompile(`Tracer discarded (\d+) packets`).FindAllStringSubmatch(string(b), -1) {
		n, _ := strconv.Atoi(m[1])
		lost, lostGaps = lost+n, lostGaps+1
	}
	return events, gaps, lost, lostGaps, true
}

// A packet whose context is damaged (content size beyond the total size)
// in a stream with its LTTng index: stats skips it whole and reads every
// other packet (its recovery says so), dump and validate stop at it with
// its error, as babeltrace2 does.
func TestCTFStatsSkipsDamagedHeaderWithIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	if err := ctfgen.Write(dir, 600, 1, 4, 1024); err != nil {
		t.Fatal(err)
	}
	_, clean, _ := run(t, nil, "stats", "--json", dir)
	p := filepath.Join(dir, "channel0_0")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 5*1024 {
		t.Fatalf("%d bytes: too few packets", len(b))
	}
	binary.LittleEndian.PutUint64(b[2*1024+48:], 1024*8+64) // packet 2's content_size
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run(t, nil, "stats", "--json", dir)
	events := regexp.MustCompile(`"events":(\d+),`)
	n, _ := strconv.Atoi(events.FindStringSubmatch(out + `"events":0,`)[1])
	all, _ := strconv.Atoi(events.FindStringSubmatch(clean + `"events":0,`)[1])
	if code != exitOK || all != 600 || n <= 400 || n >= all || !strings.Contains(out, "1 packet whose header or context cannot be decoded skipped whole, the next packet's place taken from index/channel0_0.idx (1024 bytes in all") ||
		!strings.Contains(out, "exceeds the total size") {
		t.Errorf("stats: exit %d, %d of %d events\n%s%s", code, n, all, out, errb)
	}
	for _, cmd := range []string{"validate", "dump"} {
		code, out, errb := run(t, nil, cmd, dir)
		if code == exitOK || !strings.Contains(errb, "offset 2048") || !strings.Contains(errb, "exceeds the total size") {
			t.Errorf("%s: exit %d, want the packet's error\n%.300s\n%s", cmd, code, out, errb)
		}
	}
	if bt := os.Getenv("BABELTRACE2"); bt != "" {
		if out, err := exec.Command(bt, dir).CombinedOutput(); err == nil {
			t.Errorf("babeltrace2 reads it:\n%.300s", out)
		}
	}
}

// validate fails a trace folder where the second file of a data stream
// split in two holds a packet whose context is damaged, naming the file
// and the offset, as it did checking each file alone (and as babeltrace2
// fails indexing the file): reading the files as one loses no error.
func TestCTFValidateGroupDamagedFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	writeSplitGapTrace(t, dir)
	p := filepath.Join(dir, "channel0_0_1")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[1024+48:], 1024*8+64) // packet 1: content > total
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run(t, nil, "validate", dir)
	if code == exitOK || !strings.Contains(errb, "channel0_0_1: offset 1024: packet 1: content size") {
		t.Errorf("validate: exit %d\n%s%s", code, out, errb)
	}
	if code, _, errb := run(t, nil, "dump", dir); code == exitOK || !strings.Contains(errb, "channel0_0_1: offset 1024: packet 1: content size") {
		t.Errorf("dump: exit %d\n%s", code, errb)
	}
	if bt := os.Getenv("BABELTRACE2"); bt != "" {
		if out, err := exec.Command(bt, dir).CombinedOutput(); err == nil {
			t.Errorf("babeltrace2 reads it:\n%.300s", out)
		}
	}
}
