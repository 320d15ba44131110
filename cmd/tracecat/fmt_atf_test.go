package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

const (
	atfNormal = "normal/session_20250101_120000"
	atfCrash  = "crash_flushed/session_20250101_120500"
)

func atfStatsJSON(t *testing.T, p string) map[string]any {
	t.Helper()
	code, out, errOut := run(t, nil, "stats", "--json", p)
	if code != exitOK {
		t.Fatalf("stats %s: exit %d: %s", p, code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("stats output %q: %v", out, err)
	}
	return m
}

func TestATFStats(t *testing.T) {
	cases := []struct {
		rel  string
		want map[string]any
	}{
		{atfNormal, map[string]any{"format": "atf", "threads": 4.0, "events": 22.0, "detail_events": 8.0, "first_ns": 1000000001000.0, "last_ns": 1000000002000.0, "recovered": false}},
		{atfNormal + "/pid_12345/thread_2", map[string]any{"threads": 1.0, "events": 8.0, "detail_events": 4.0, "first_ns": 1000000001010.0, "last_ns": 1000000001260.0, "recovered": false}},
		{atfNormal + "/pid_12345/thread_1/index.atf", map[string]any{"threads": 1.0, "events": 8.0, "detail_events": 4.0, "recovered": false}},
		{atfNormal + "/pid_12345/thread_0/index.atf", map[string]any{"threads": 1.0, "events": 6.0, "detail_events": 0.0, "recovered": false}},
		{atfCrash + "/pid_23456/thread_1/index.atf", map[string]any{"events": 3.0, "detail_events": 2.0, "recovered": true}},
		{atfNormal + "/pid_12345/thread_3/index.atf", map[string]any{"events": 0.0, "first_ns": nil, "last_ns": nil}},
		{atfCrash, map[string]any{"threads": 2.0, "events": 8.0, "detail_events": 2.0, "first_ns": 1000000001000.0, "last_ns": 1000000001400.0, "recovered": true}},
		{"malformed/idx_unfinalized_torn.atf", map[string]any{"events": 4.0, "recovered": true, "discarded_bytes": 22.0}},
		{"malformed/det_footer_stripped.atf", map[string]any{"events": 0.0, "detail_events": 4.0, "recovered": true}},
	}
	for _, c := range cases {
		got := atfStatsJSON(t, vectortest.Path(t, "atf", c.rel))
		for k, v := range c.want {
			if gv, ok := got[k]; !ok || gv != v {
				t.Errorf("%s: %s = %v, want %v", c.rel, k, gv, v)
			}
		}
	}
}

func TestATFValidate(t *testing.T) {
	for _, rel := range []string{atfNormal, atfNormal + "/pid_12345/thread_1", atfNormal + "/pid_12345/thread_2/detail.atf"} {
		if code, out, errOut := run(t, nil, "validate", vectortest.Path(t, "atf", rel)); code != exitOK || !strings.HasPrefix(out, "ok") {
			t.Errorf("%s: exit %d %q %q", rel, code, out, errOut)
		}
	}
	// What a crashed writer left fails validate, as in every format, with
	// what was recovered and the recovery line.
	for _, rel := range []string{atfCrash, "malformed/idx_unfinalized_torn.atf", "malformed/det_footer_stripped.atf"} {
		p := vectortest.Path(t, "atf", rel)
		if code, out, errOut := run(t, nil, "validate", p); code != exitInvalid || out != "" || !strings.Contains(errOut, "no valid footer") ||
			!strings.Contains(errOut, "lost without a trace") || !strings.Contains(errOut, p+": recovery: ") {
			t.Errorf("%s: exit %d %q %q", rel, code, out, errOut)
		}
	}
	bad := map[string]string{
		"idx_bad_magic.atf":      "offset 0: magic",
		"idx_bad_version.atf":    "offset 5: version 2",
		"idx_bad_endian.atf":     "offset 4: endian",
		"idx_bad_event_size.atf": "offset 24: event_size 64",
		"idx_too_small.atf":      "offset 63: file too small",
		"idx_empty.atf":          "offset 0: file too small",
		"det_bad_magic.atf":      `offset 0: magic "XXXX", want "ATD2"`,
		"det_too_small.atf":      "offset 40: file too small",
	}
	for name, want := range bad {
		p := vectortest.Path(t, "atf", "malformed", name)
		code, _, errOut := run(t, nil, "validate", p)
		if code != exitInvalid || !strings.HasPrefix(errOut, p+": "+want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", name, code, errOut, want)
		}
	}
}

func TestATFValidateFindsBrokenLinks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "thread_0")
	tw, err := atf.CreateThread(dir, 0, atf.WithChecksum(false))
	if err != nil {
		t.Fatal(err)
	}
	tw.Write(10, 1, atf.KindCall, 1, []byte("payload"))
	tw.Write(20, 1, atf.KindReturn, 1, nil)
	tw.Close()
	if code, _, errOut := run(t, nil, "validate", dir); code != exitOK {
		t.Fatalf("fresh thread: %s", errOut)
	}
	// Point the second event at detail 0 too: the back link disagrees.
	p := filepath.Join(dir, "index.atf")
	b, _ := os.ReadFile(p)
	copy(b[64+32+28:], []byte{0, 0, 0, 0})
	copy(b[64+28:], []byte{0xff, 0xff, 0xff, 0xff})
	os.WriteFile(p, b, 0o644)
	code, _, errOut := run(t, nil, "validate", dir)
	if code != exitInvalid || !strings.Contains(errOut, "(broken-link)") {
		t.Errorf("broken link: exit %d %q", code, errOut)
	}
	// A flipped event byte fails the footer checksum our writer stores by default.
	tw, err = atf.CreateThread(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	tw.Write(10, 1, atf.KindCall, 1, nil)
	tw.Close()
	b, _ = os.ReadFile(p)
	b[70] ^= 1
	os.WriteFile(p, b, 0o644)
	if code, _, errOut := run(t, nil, "validate", p); code != exitInvalid || !strings.Contains(errOut, "checksum") {
		t.Errorf("checksum: exit %d %q", code, errOut)
	}
}

type atfRefMerged struct {
	Session struct {
		MergedIter []struct {
			ThreadIdx   int    `json:"thread_idx"`
			TimestampNs uint64 `json:"timestamp_ns"`
			FunctionID  string `json:"function_id"`
		} `json:"merged_iter"`
	} `json:"session"`
}

func TestATFMergeMatchesReference(t *testing.T) {
	var ref atfRefMerged
	if err := json.Unmarshal(vectortest.Read(t, "atf", "normal", "reference_reader.json"), &ref); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, nil, "merge", "--json", vectortest.Path(t, "atf", atfNormal))
	if code != exitOK {
		t.Fatal(errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(ref.Session.MergedIter) || len(lines) != 22 {
		t.Fatalf("%d lines, want %d", len(lines), len(ref.Session.MergedIter))
	}
	for i, l := range lines {
		var e struct { // the event layer's JSON Lines schema
			Record struct {
				Thread int `json:"thread"`
			} `json:"record"`
			TS   uint64 `json:"ts_ns"`
			Args struct {
				FunctionID uint64 `json:"function_id"`
			} `json:"args"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		w := ref.Session.MergedIter[i]
		if fn := fmt.Sprintf("0x%016x", e.Args.FunctionID); e.Record.Thread != w.ThreadIdx || e.TS != w.TimestampNs || fn != w.FunctionID {
			t.Errorf("line %d: %+v, want %+v", i, e, w)
		}
	}
	// Text form and filters.
	_, out, _ = run(t, nil, "merge", "--thread", "1", "--type", "call", vectortest.Path(t, "atf", atfNormal))
	if n := strings.Count(out, "\n"); n != 4 || strings.Contains(out, "thread_id=0") || strings.Contains(out, "RETURN") {
		t.Errorf("filtered merge (%d lines):\n%s", n, out)
	}
	// Works on the crashed session the reference cannot open.
	if code, out, _ := run(t, nil, "merge", vectortest.Path(t, "atf", atfCrash)); code != exitOK || strings.Count(out, "\n") != 8 {
		t.Errorf("crash merge: exit %d\n%s", code, out)
	}
}

func TestATFDump(t *testing.T) {
	p := vectortest.Path(t, "atf", atfNormal)
	_, out, _ := run(t, nil, "dump", p)
	if strings.Count(out, "\n") != 22 || !strings.Contains(out, "1000000001050 begin worker_loop [thread_1] thread=1 seq=0 kind=\"CALL\"") {
		t.Errorf("dump:\n%s", out)
	}
	_, out, _ = run(t, nil, "dump", "--json", "--from", "1000000001200", "--to", "1000000001300", p)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// thread_0: 1300; thread_1: 1200; thread_2 (unsorted, filtered): 1210, 1260, 1210, 1260.
	if len(lines) != 6 {
		t.Errorf("range dump: %d lines\n%s", len(lines), out)
	}
	for _, l := range lines {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
	}
	_, out, _ = run(t, nil, "dump", "--type", "exception", p)
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, `kind="EXCEPTION"`) {
		t.Errorf("type dump:\n%s", out)
	}
	_, out, _ = run(t, nil, "dump", "--json", vectortest.Path(t, "atf", atfNormal, "pid_12345", "thread_2", "detail.atf"))
	if strings.Count(out, "\n") != 4 || !strings.Contains(out, `"total_length":540`) {
		t.Errorf("detail dump:\n%s", out)
	}
	if code, _, _ := run(t, nil, "dump", "--type", "bogus", p); code != exitUsage {
		t.Errorf("bad --type: exit %d", code)
	}
}

func TestATFConvertChrome(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace.json")
	if code, _, errOut := run(t, nil, "convert", "--to", "chrome", vectortest.Path(t, "atf", atfNormal), out); code != exitOK {
		t.Fatal(errOut)
	}
	b, _ := os.ReadFile(out)
	var doc struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			TS   float64 `json:"ts"`
			Pid  int     `json:"pid"`
			Tid  int     `json:"tid"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("chrome JSON: %v\n%s", err, b)
	}
	phases := map[string]int{}
	for _, e := range doc.TraceEvents {
		phases[e.Ph]++
		if e.Pid != 12345 {
			t.Errorf("pid %d", e.Pid)
		}
	}
	// The call left open by the session is closed at the end: B/E balance.
	if phases["B"] != 11 || phases["E"] != 11 || phases["i"] != 1 || phases["M"] != 3 {
		t.Errorf("phases %v", phases)
	}
	first := doc.TraceEvents[0]
	for _, e := range doc.TraceEvents {
		if e.Ph != "M" {
			first = e
			break
		}
	}
	// Times are relative to the first event (1 000 000 001 µs in the trace).
	if first.Name != "main" || first.TS != 0 || first.Tid != 0 {
		t.Errorf("first event %+v", first)
	}
	if code, _, _ := run(t, nil, "convert", "--to", "wtf", vectortest.Path(t, "atf", atfNormal), "-"); code != exitUsage {
		t.Error("convert to an unsupported target succeeded")
	}
}

func TestATFSample(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sample.atf")
	if code, _, errOut := run(t, nil, "sample", "atf", p); code != exitOK {
		t.Fatal(errOut)
	}
	if _, out, _ := run(t, nil, "detect", p); out != p+": atf (index)\n" {
		t.Errorf("detect: %q", out)
	}
	if code, out, _ := run(t, nil, "validate", p); code != exitOK || out != "ok (1 threads, 7 events, 0 detail events); a crash could lose without a trace: "+inspect.CrashLoss(events.FormatATF)+"\n" {
		t.Errorf("validate: %q", out)
	}
	st := atfStatsJSON(t, p)
	if st["events"] != 7.0 || st["recovered"] != false {
		t.Errorf("stats %v", st)
	}
	b, _ := os.ReadFile(p)
	r, err := atf.OpenIndexBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if checked, err := r.VerifyChecksum(); !checked || err != nil {
		t.Errorf("sample checksum %v %v", checked, err)
	}
	// Standard input works too.
	if code, _, _ := run(t, b, "validate", "-"); code != exitOK {
		t.Error("validate - failed")
	}
}

func TestATFDamagedFilesByName(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "index.atf")
	os.WriteFile(empty, nil, 0o644)
	if _, out, _ := run(t, nil, "detect", empty); out != empty+": atf (empty file)\n" {
		t.Errorf("detect: %q", out)
	}
	if code, _, errOut := run(t, nil, "validate", empty); code != exitInvalid || !strings.Contains(errOut, "file too small") {
		t.Errorf("validate empty: %d %q", code, errOut)
	}
	// A folder holding it is an empty, recovered thread.
	tdir := filepath.Join(dir, "thread_7")
	os.MkdirAll(tdir, 0o755)
	os.WriteFile(filepath.Join(tdir, "index.atf"), nil, 0o644)
	st := atfStatsJSON(t, tdir)
	if st["events"] != 0.0 || st["recovered"] != true {
		t.Errorf("empty thread stats %v", st)
	}
	garbage := filepath.Join(dir, "detail.atf")
	os.WriteFile(garbage, []byte("garbage that is long enough to hold a whole header of sixty-four bytes"), 0o644)
	if code, _, errOut := run(t, nil, "validate", garbage); code != exitInvalid || !strings.Contains(errOut, `want "ATD2"`) {
		t.Errorf("validate garbage detail: %d %q", code, errOut)
	}
}

func TestATFJSONOutputsWithOddNames(t *testing.T) {
	root := t.TempDir()
	sw, err := atf.CreateSessionDir(filepath.Join(root, "pid_7"))
	if err != nil {
		t.Fatal(err)
	}
	sw.SetSymbols(nil, []atf.Symbol{{FunctionID: 5, Name: "we\"ird\x01\\name\xff"}})
	tw, _ := sw.Thread(0)
	tw.Write(1500, 5, atf.KindCall, 1, nil)
	tw.Write(2500, 5, atf.KindReturn, 1, nil)
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	_, out, _ := run(t, nil, "merge", "--json", root)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil || !strings.HasPrefix(e["name"].(string), "we\"ird\x01\\name") {
			t.Errorf("merge line %q: %v", l, err)
		}
	}
	_, out, _ = run(t, nil, "convert", "--to", "chrome", root, "-")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Errorf("chrome JSON: %v\n%s", err, out)
	}
	if !strings.Contains(out, `"ts":1.000`) || !strings.Contains(out, `"pid":7`) {
		t.Errorf("chrome output:\n%s", out)
	}
}

// TestATFLoneIndexOpensSiblingDetail: an index.atf given alone brings the
// detail.atf beside it (existence decides, as in the reference), so
// validate follows the links, stats counts detail events and dump shows the
// linked records.
func TestATFLoneIndexOpensSiblingDetail(t *testing.T) {
	p := vectortest.Path(t, "atf", atfNormal, "pid_12345", "thread_1", "index.atf")
	if code, out, errOut := run(t, nil, "validate", p); code != exitOK || out != "ok (1 threads, 8 events, 4 detail events); a crash could lose without a trace: "+inspect.CrashLoss(events.FormatATF)+"\n" {
		t.Errorf("validate: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut := run(t, nil, "dump", "--json", p)
	if code != exitOK {
		t.Fatal(errOut)
	}
	// README table: seq → detail (type, total_length); index_seq is the seq.
	want := map[uint64]struct {
		typ string
		n   uint64
	}{1: {"FUNCTION_CALL", 140}, 2: {"FUNCTION_RETURN", 124}, 4: {"FUNCTION_CALL", 131}, 6: {"FUNCTION_CALL", 156}}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 8 {
		t.Fatalf("dump: %d lines\n%s", len(lines), out)
	}
	for _, l := range lines {
		var e struct {
			Seq    uint64 `json:"seq"`
			Detail *struct {
				Type         string `json:"type"`
				IndexSeq     uint64 `json:"index_seq"`
				TotalLength  uint64 `json:"total_length"`
				PayloadBytes uint64 `json:"payload_bytes"`
			} `json:"detail"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		w, linked := want[e.Seq]
		if (e.Detail != nil) != linked {
			t.Errorf("seq %d: detail %+v, want linked=%v", e.Seq, e.Detail, linked)
			continue
		}
		if linked && (e.Detail.Type != w.typ || e.Detail.TotalLength != w.n || e.Detail.IndexSeq != e.Seq || e.Detail.PayloadBytes != w.n-24) {
			t.Errorf("seq %d: detail %+v, want %s %d", e.Seq, *e.Detail, w.typ, w.n)
		}
	}
	_, out, _ = run(t, nil, "dump", p)
	if !strings.Contains(out, `1000000001550 instant 0x52dc64e800000004 [thread_1] thread=1 seq=4 kind="EXCEPTION" thread_id=1 detail_seq=2 | function_id=5970758153581625348 depth=2 detail_type="FUNCTION_CALL" detail=`) {
		t.Errorf("text dump:\n%s", out)
	}
	// The crashed thread's index.atf finds its footerless detail.atf too.
	cp := vectortest.Path(t, "atf", atfCrash, "pid_23456", "thread_1", "index.atf")
	if code, out, errOut := run(t, nil, "validate", cp); code != exitInvalid || out != "" || !strings.Contains(errOut, "recoverable: 1 threads, 3 events, 2 detail events; recovered") ||
		!strings.Contains(errOut, "; 2 problems") || !strings.Contains(errOut, "thread_1/detail.atf: offset 336: no valid footer") {
		t.Errorf("crash validate: exit %d %q %q", code, out, errOut)
	}
	if _, out, _ := run(t, nil, "dump", cp); strings.Count(out, "detail_type=") != 2 {
		t.Errorf("crash dump:\n%s", out)
	}

	// Copied alone, the index's links cannot be followed: not an error, but
	// said so.
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "thread_1")
	os.MkdirAll(dir, 0o755)
	lone := filepath.Join(dir, "index.atf")
	os.WriteFile(lone, b, 0o644)
	if code, out, _ := run(t, nil, "validate", lone); code != exitOK || !strings.Contains(out, "0 detail events; 4 detail links not followed") {
		t.Errorf("lone index: exit %d %q", code, out)
	}
	if st := atfStatsJSON(t, lone); st["detail_events"] != 0.0 {
		t.Errorf("lone index stats %v", st)
	}
	// A damaged detail.atf beside it is reported under its own name.
	os.WriteFile(filepath.Join(dir, "detail.atf"), []byte(strings.Repeat("x", 100)), 0o644)
	if code, _, errOut := run(t, nil, "validate", lone); code != exitInvalid || !strings.Contains(errOut, filepath.Join(dir, "detail.atf")+`: offset 0: magic "xxxx"`) {
		t.Errorf("damaged detail: exit %d %q", code, errOut)
	}
	// A detail.atf whose back link disagrees fails validate through the index.
	d, err := os.ReadFile(vectortest.Path(t, "atf", atfNormal, "pid_12345", "thread_1", "detail.atf"))
	if err != nil {
		t.Fatal(err)
	}
	d[64+8]++ // first record's index_seq: 1 → 2
	os.WriteFile(filepath.Join(dir, "detail.atf"), d, 0o644)
	if code, _, errOut := run(t, nil, "validate", lone); code != exitInvalid || !strings.Contains(errOut, "(broken-link)") {
		t.Errorf("broken back link: exit %d %q", code, errOut)
	}
}

// TestATFValidateReportsLies: a lying footer_offset and a full disk's
// dangling links are warnings with offsets, never a silent ok; a clean
// session has none.
func TestATFValidateReportsLies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pid_1")
	sw, err := atf.CreateSessionDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tw, _ := sw.Thread(0)
	for i := range 10 {
		var p []byte
		if i%2 == 0 {
			p = []byte("args")
		}
		tw.Write(uint64(100+i), 1, atf.KindCall, 1, p)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, nil, "validate", dir); code != exitOK || errOut != "" || strings.Contains(out, "problems") {
		t.Fatalf("clean session: %d %q %q", code, out, errOut)
	}
	ip := filepath.Join(dir, "thread_0", "index.atf")
	b, _ := os.ReadFile(ip)
	binary.LittleEndian.PutUint64(b[40:], 1<<62) // footer_offset
	os.WriteFile(ip, b, 0o644)
	// The detail file lost its last two records (and footer): a full disk.
	dp := filepath.Join(dir, "thread_0", "detail.atf")
	d, _ := os.ReadFile(dp)
	os.WriteFile(dp, d[:atf.HeaderSize+3*(atf.DetailEventHeaderSize+4)], 0o644)
	code, _, errOut := run(t, nil, "validate", dir) // a full disk: the writer did not finish
	if code != exitInvalid || !strings.Contains(errOut, "recoverable: 1 threads, 10 events, 3 detail events") {
		t.Errorf("validate: %d %q", code, errOut)
	}
	for _, want := range []string{
		"thread_0/index.atf: offset 40: footer_offset 4611686018427387904 is past the end of the 448-byte file; the footer is at 384 (header-mismatch)",
		"thread_0/detail.atf: offset 28: the header counts 5 records (140 bytes), the file holds 3 and no valid footer: 2 lost (header-mismatch)",
		"thread_0/index.atf: offset 284: 2 index events link to detail records that do not exist: detail.atf holds 3 records (its writer did not finish: the tail was lost) (dangling-link)",
		"thread_0/detail.atf: offset 148: no valid footer",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("warnings %q lack %q", errOut, want)
		}
	}
	// stats counts what opening found (the links are walked by validate).
	if _, out, _ := run(t, nil, "stats", "--json", dir); !strings.Contains(out, `"problems":3`) {
		t.Errorf("stats: %s", out)
	}
}
