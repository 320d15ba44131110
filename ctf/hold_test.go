package ctf

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// openDirT opens trace folder dir, closed when the test ends.
func openDirT(tb testing.TB, dir string) *Trace {
	tb.Helper()
	tr, err := OpenDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { tr.Close() })
	return tr
}

// splitStream writes data, a data stream of trace folder dir, as two
// files of one stream: channel0_0 its first n bytes, channel0_0_1 the rest.
func splitStream(tb testing.TB, dir string, data []byte, n int) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, "channel0_0"), data[:n], 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "channel0_0_1"), data[n:], 0o644); err != nil {
		tb.Fatal(err)
	}
}

// splitTrace writes a ctfgen trace of n events over cpus streams (4
// classes, packets of 1 KiB) to a folder "trace" of a new temporary
// folder, edits each packet of its stream channel0_0 (which must hold at
// least min) with edit, and splits that stream into two files of one
// stream after its first split packets (splitStream). It returns the
// folder.
func splitTrace(tb testing.TB, n, cpus, min, split int, edit func(i int, pkt []byte)) string {
	tb.Helper()
	const pkt = 1024
	dir := filepath.Join(tb.TempDir(), "trace")
	if err := ctfgen.Write(dir, n, cpus, 4, pkt); err != nil {
		tb.Fatal(err)
	}
	data, err := ctfgen.EditPackets(dir, "channel0_0", pkt, min, edit)
	if err != nil {
		tb.Fatal(err)
	}
	splitStream(tb, dir, data, split*pkt)
	return dir
}

// TestReaderHoldsAfterPacketBoundary: babeltrace2's muxer merges a
// packet's end and the next packet's beginning as messages of their own,
// at their times, and the stream's next event record waits behind them.
// A packet whose end is later than the next packet's first records (as
// some LTTng 2.3 traces hold: Trace Compass's exp) puts those records
// after every other stream's record before that end — their time going
// back in the text — and the Reader does the same, for a trace and for
// the files of one stream read as a group. With BABELTRACE2 set, its text
// is compared too.
func TestReaderHoldsAfterPacketBoundary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	if err := ctfgen.Write(dir, 400, 2, 4, 1024); err != nil {
		t.Fatal(err)
	}
	// packet 1's timestamp_end moved past packet 2's beginning, by 20 µs
	// (ctfgen's clock counts ns)
	const pkt = 1024
	var hold uint64
	data, err := ctfgen.EditPackets(dir, "channel0_0", pkt, 4, func(i int, b []byte) {
		if i == 1 {
			hold = binary.LittleEndian.Uint64(b[ctfgen.OffEnd:]) + 20000
			binary.LittleEndian.PutUint64(b[ctfgen.OffEnd:], hold)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := openDirT(t, dir)
	holdNS := tr.Streams[0].t.dscs[0].NS(hold)
	// the records of channel0_1 before the hold, read alone
	other := 0
	s1 := tr.Streams[1]
	for s1.Reset(); s1.Next(); {
		if s1.ev.NS() < holdNS {
			other++
		}
	}
	if other == 0 {
		t.Fatal("no record of channel0_1 before the hold: the test shows nothing")
	}
	r := tr.NewReader()
	seen, back := 0, false
	var last int64
	for n := 0; r.Next(); n++ {
		e := r.Event()
		ns := e.NS()
		if e.Stream == s1 {
			seen++
		} else if e.Stream.pkt.Index == 2 && !back {
			back = true
			if seen != other {
				t.Errorf("packet 2's first record after %d of channel0_1's records, want the %d before the hold", seen, other)
			}
			if ns >= last {
				t.Errorf("packet 2's first record at %d, after %d: its time should go back", ns, last)
			}
		}
		last = ns
	}
	if err := r.Err(); err != nil || !back {
		t.Fatalf("%v; packet 2 reached: %v", err, back)
	}
	lines, err := prettyReader(tr.NewReader())
	if err != nil {
		t.Fatal(err)
	}
	if bt, ok, ran := babeltrace2Text(t, dir); ran && (!ok || !slices.Equal(bt, lines)) {
		t.Errorf("babeltrace2 (ok %v) prints other lines: %d vs our %d", ok, len(bt), len(lines))
	}
	// the same stream split into two files of one group (a copy of the
	// trace with channel0_0 cut after packet 1 and its rest in a file of
	// its own, same stream instance): the hold goes on across the files
	split := filepath.Join(t.TempDir(), "split")
	if err := os.CopyFS(split, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	splitStream(t, split, data, 2*pkt)
	got, err := prettyReader(openDirT(t, split).NewReader())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, lines) {
		t.Errorf("split stream: its %d lines differ from the whole stream's %d", len(got), len(lines))
	}
	if bt, ok, ran := babeltrace2Text(t, split); ran && (!ok || !slices.Equal(bt, got)) {
		t.Errorf("split stream: babeltrace2 (ok %v) prints other lines", ok)
	}
}

// TestSessionCTF2Copies: two copies of LTTng 2.15's CTF 2 trace (trace
// class name "" and a UID: one identity) in a folder are one trace, as
// babeltrace2 2.1 reads them — its equal packets read once — not two
// traces of twice the events (a name "" was taken for an absent one).
func TestSessionCTF2Copies(t *testing.T) {
	src := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json/trace")
	root := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.CopyFS(filepath.Join(root, d), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	want, err := prettyReader(openDirT(t, src).NewReader())
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenSession(root, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Group(1) != s.Group(0) {
		t.Errorf("groups %d, %d: want one trace", s.Group(0), s.Group(1))
	}
	got, err := prettyReader(s.NewReader())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%d lines, want the %d of one copy", len(got), len(want))
	}
	if bt, ok, ran := babeltrace2Text(t, root); ran && (!ok || !slices.Equal(bt, got)) {
		t.Errorf("babeltrace2 (ok %v) prints other lines: %d vs our %d", ok, len(bt), len(got))
	}
}

// TestGroupLossesAcrossFiles: a data stream whose packets lie in two files
// (one group) is one stream to babeltrace2: the tracer's discarded-event
// counter of the second file's first packet counts from the first file's
// last packet (12 records in 2 gaps, as babeltrace2 warns), not afresh.
func TestGroupLossesAcrossFiles(t *testing.T) {
	dir := splitTrace(t, 300, 1, 6, 3, func(i int, b []byte) {
		var disc uint64 // gaps: 5 records before packet 1, 7 before packet 3
		switch {
		case i >= 3:
			disc = 12
		case i >= 1:
			disc = 5
		}
		binary.LittleEndian.PutUint64(b[ctfgen.OffDiscarded:], disc)
	})
	r := openDirT(t, dir).NewReader()
	for r.Next() {
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if got := r.Losses(); got.Events != 12 || got.EventGaps != 2 {
		t.Errorf("Losses %+v, want 12 event records in 2 gaps", got)
	}
	bt := os.Getenv("BABELTRACE2")
	if bt == "" {
		return
	}
	cmd := exec.Command(bt, dir)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("babeltrace2: %v", err)
	}
	n, gaps := 0, 0
	for _, m := range regexp.MustCompile(`Tracer discarded (\d+) events`).FindAllStringSubmatch(string(out), -1) {
		k, _ := strconv.Atoi(m[1])
		n, gaps = n+k, gaps+1
	}
	if n != 12 || gaps != 2 {
		t.Errorf("babeltrace2 warns of %d records in %d gaps, want 12 in 2", n, gaps)
	}
}
