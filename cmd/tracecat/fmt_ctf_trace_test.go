package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// dump of a CTF trace folder prints its event records as babeltrace2 does;
// validate decodes them; stats counts them; convert --to chrome draws them.
func TestCTFTraceFolder(t *testing.T) {
	dir := vectortest.Path(t, "ctf", "lttng-2.13.9-ust-ctf1.8-packetized-1pkt")
	want, err := os.ReadFile(filepath.Join(dir, "babeltrace2-2.0.4.txt"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errb := run(t, nil, "dump", filepath.Join(dir, "trace"))
	if code != exitOK || out != string(want) {
		t.Errorf("dump: exit %d %s\n%.300s", code, errb, out)
	}
	code, out, _ = run(t, nil, "validate", filepath.Join(dir, "trace"))
	if code != exitOK || !strings.Contains(out, "40 event records in 2 data streams") {
		t.Errorf("validate: exit %d %s", code, out)
	}
	code, out, _ = run(t, nil, "stats", "--json", filepath.Join(dir, "trace"))
	for _, w := range []string{`"events":40,"first_ns":1795288969134156212,"last_ns":1795288969134163288`, `"data_streams":2,"data_packets":2,"events_by_stream":{"ch0_0":40,"ch0_1":0}`,
		`"events_by_name":{"anchors:my_event":20,"anchors:seq_event":20},"events_discarded":0,"packets_lost":0,"recovery":null`} {
		if code != exitOK || !strings.Contains(out, w) {
			t.Errorf("stats --json: exit %d, lacks %s: %s", code, w, out)
		}
	}
	code, out, _ = run(t, nil, "convert", "--to", "chrome", filepath.Join(dir, "trace"), "-")
	if code != exitOK || strings.Count(out, `"name":"anchors:`) != 40 {
		t.Errorf("convert --to chrome: exit %d %.300s", code, out)
	}
}

// --to plain puts the "/* CTF 1.8 */" line before TSDL that lacks it (LTTng
// kernel metadata), as babeltrace2 -o ctf-metadata does; signed TSDL and
// CTF 2 are written unchanged.
func TestCTFPlainAddsSignature(t *testing.T) {
	for _, c := range []struct {
		path   string
		prefix string
	}{
		{"third-party/babeltrace-2.1.2-tests-data/1/succeed/multi-domains/kernel/metadata", "/* CTF 1.8 */\n\ntypealias integer"},
		{"lttng-2.13.9-ust-ctf1.8-packetized-1pkt/trace/metadata", "/* CTF 1.8 */\n\ntypealias integer { size = 8;"},
		{"lttng-2.15.1-ust-ctf2-json/trace/metadata", "\x1e{"},
	} {
		code, out, errb := run(t, nil, "convert", "--to", "plain", vectortest.Path(t, "ctf", c.path), "-")
		if code != exitOK || !strings.HasPrefix(out, c.prefix) || strings.Count(out, "/* CTF 1.8") > 1 {
			t.Errorf("%s: exit %d %s: %.60q", c.path, code, errb, out)
		}
	}
}

// convert --to tsdl writes CTF 2 metadata as TSDL that ParseTSDL reads back
// with the same event record classes, LTTng's log level attributes as
// loglevel, warning about what it left out (the trace namespace); a bit map
// has no TSDL form and is refused, saying where.
func TestCTFConvertToTSDL(t *testing.T) {
	dir := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace")
	out := filepath.Join(t.TempDir(), "metadata.tsdl")
	code, _, errb := run(t, nil, "convert", "--to", "tsdl", dir, out)
	if code != exitOK || strings.Contains(errb, "attributes left out") || !strings.Contains(errb, "warning: TSDL: trace class namespace left out (1)") {
		t.Fatalf("exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ctf2meta.ParseTSDL(b)
	if err != nil || len(m.EventRecordClasses) != 40 || !strings.HasPrefix(string(b), "/* CTF 1.8 */") || strings.Count(string(b), "\tloglevel = 13;\n") != 40 {
		t.Fatalf("%v, %d event record classes:\n%.300s", err, len(m.EventRecordClasses), b)
	}
	for _, e := range m.EventRecordClasses {
		if l, ok := ctf2meta.EventLogLevel(e); !ok || l != 13 {
			t.Fatalf("%s: log level %d %v, want 13 (debug:line)", e.Name, l, ok)
		}
	}
	code, _, errb = run(t, nil, "convert", "--to", "tsdl", vectortest.Path(t, "ctf", "third-party", "babeltrace-2.1.2-tests-data", "2", "succeed", "fl-bm", "metadata"), "-")
	if code == exitOK || !strings.Contains(errb, "field lol: a bit map") {
		t.Errorf("fl-bm: exit %d: %s", code, errb)
	}
}

// A trace whose packets carry a UUID other than the metadata's is read as
// babeltrace2 reads it: validate passes it with a warning; --strict fails,
// saying which stream and packet (as it fails on a cut packet, and as
// ctf.WithStrictUUID refuses it). The losses the tracer reported are
// notes: --strict passes them (events/inspect TestValidateCTFProblemsNotes).
func TestCTFValidateStrictUUID(t *testing.T) {
	src := filepath.Join(vectortest.Path(t, "ctf", "lttng-2.13.9-ust-ctf1.8-packetized-1pkt"), "trace")
	dir := filepath.Join(t.TempDir(), "trace")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if code, out, errb := run(t, nil, "validate", "--strict", dir); code != exitOK || errb != "" || !strings.HasPrefix(out, "ok (") {
		t.Fatalf("the clean copy: exit %d %q %q", code, out, errb)
	}
	p := filepath.Join(dir, "ch0_0")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[4] ^= 0xff // the first byte of packet 0's UUID, after the magic
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const note = "ch0_0: 1 packet headers hold a UUID other than the metadata's"
	code, out, errb := run(t, nil, "validate", dir)
	if code != exitOK || !strings.HasPrefix(out, "ok (") || !strings.Contains(errb, dir+": warning: "+note) {
		t.Errorf("validate: exit %d %q %q", code, out, errb)
	}
	code, out, errb = run(t, nil, "validate", "--strict", dir)
	if code != exitInvalid || out != "" || !strings.Contains(errb, dir+": strict: "+note) || !strings.Contains(errb, "(the first: packet 0, 2228fbede949") {
		t.Errorf("validate --strict: exit %d %q %q", code, out, errb)
	}
	// Many inputs: the same verdict on one line per input.
	code, out, _ = run(t, nil, "validate", "--strict", dir, src)
	if code != exitInvalid || !strings.Contains(out, dir+": strict: "+note) || !strings.Contains(out, src+": ok (") || !strings.Contains(out, "1 ok, 1 invalid") {
		t.Errorf("validate --strict, two inputs: exit %d %q", code, out)
	}
}

// TSDL in metadata packets needs no "/* CTF 1.8" signature (lttng-modules
// never writes one there, babeltrace2 reads it without a word): validate
// --strict passes such a trace and no recovery line is printed. Plain TSDL
// text without it keeps its note (babeltrace2 2.0 warns about it).
func TestCTFUnsignedPacketizedTSDLStrict(t *testing.T) {
	src := vectortest.Path(t, "ctf", "third-party", "babeltrace-2.1.2-tests-data", "1", "succeed", "multi-domains", "kernel")
	code, out, errb := run(t, nil, "validate", "--strict", src)
	if code != exitOK || errb != "" || !strings.HasPrefix(out, "ok (") || strings.Contains(out, "signature") {
		t.Fatalf("validate --strict of packetized TSDL without the signature: exit %d %q %q", code, out, errb)
	}
	if code, _, errb := run(t, nil, "stats", src); code != exitOK || errb != "" {
		t.Fatalf("stats: exit %d %q", code, errb)
	}
	// The same TSDL as a plain file: the note, and --strict fails.
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace"), "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte("/* CTF 1.8 */"), nil, 1)
	if err := os.WriteFile(filepath.Join(dir, "metadata"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb = run(t, nil, "validate", dir)
	if code != exitOK || !strings.Contains(out, `warning: TSDL text without the "/* CTF 1.8" signature`) || !strings.Contains(errb, "note: TSDL text without") {
		t.Errorf("validate of plain TSDL without the signature: exit %d %q %q", code, out, errb)
	}
	if code, _, _ := run(t, nil, "validate", "--strict", dir); code != exitInvalid {
		t.Errorf("validate --strict of plain TSDL without the signature: exit %d", code)
	}
}

// dump --thread selects a CTF trace's track (a CPU, or a stream file without
// cpu_id), in text and --json alike, as it selects a dial9 worker or a WTF
// zone; it was refused ("a CTF trace's event records has no threads").
func TestCTFDumpThread(t *testing.T) {
	dir := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace")
	code, all, errb := run(t, nil, "dump", dir)
	if code != exitOK || errb != "" || strings.Count(all, "\n") != 80 {
		t.Fatalf("dump: exit %d, %d lines, %q", code, strings.Count(all, "\n"), errb)
	}
	for _, sel := range []string{"1", "cpu 1"} {
		if code, out, errb := run(t, nil, "dump", "--thread", sel, dir); code != exitOK || out != all {
			t.Errorf("dump --thread %q: exit %d %q, %d lines", sel, code, errb, strings.Count(out, "\n"))
		}
		code, out, errb := run(t, nil, "dump", "--json", "--thread", sel, dir)
		if code != exitOK || strings.Count(out, "\n") != 80 || strings.Count(out, `"track_name":"cpu 1"`) != 80 {
			t.Errorf("dump --json --thread %q: exit %d %q, %d lines", sel, code, errb, strings.Count(out, "\n"))
		}
	}
	// the track id is the CPU number in --json; the Chrome tid of the
	// CPU's row (named "cpu 1") is one no OS thread has, from 2³⁰
	if _, out, _ := run(t, nil, "dump", "--json", dir); strings.Count(out, `"track":1,"track_name":"cpu 1"`) != 80 {
		t.Errorf("dump --json: not 80 events on track 1 (cpu 1): %.300s", out)
	}
	if _, out, _ := run(t, nil, "convert", "--to", "chrome", dir, "-"); strings.Count(out, `"tid":1073741824,`) < 81 ||
		!strings.Contains(out, `"tid":1073741824,"args":{"name":"cpu 1"`) || strings.Count(out, `"thread_name"`) != 1 {
		t.Errorf("convert --to chrome: tids %.300s", out)
	}
	for _, sel := range []string{"0", "cpu 0", "channel0_1", "4294967296"} {
		for _, args := range [][]string{{"dump", "--thread", sel, dir}, {"dump", "--json", "--thread", sel, dir}} {
			if code, out, errb := run(t, nil, args...); code != exitOK || out != "" {
				t.Errorf("%q: exit %d %q %q", args, code, out, errb)
			}
		}
	}
}

// dump's filters select the same CTF event records in text as in --json: an
// event record without a clock has no time, so --from/--to drop it (the
// text form printed it, comparing the clock value 0).
func TestCTFDumpFiltersTextAsJSON(t *testing.T) {
	dir := t.TempDir()
	meta := "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; };\n" +
		"event { name = \"e\"; fields := struct { integer { size = 8; align = 8; } v; }; };\n"
	if err := os.WriteFile(filepath.Join(dir, "metadata"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s0"), []byte{1, 2, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errb := run(t, nil, "dump", dir); code != exitOK || out != "e: { v = 1 }\ne: { v = 2 }\ne: { v = 3 }\n" {
		t.Fatalf("dump: exit %d %q %q", code, out, errb)
	}
	for _, f := range [][]string{{"--from", "0"}, {"--to", "10"}, {"--type", "x"}, {"--thread", "s1"}} {
		for _, json := range []bool{false, true} {
			args := append([]string{"dump"}, f...)
			if json {
				args = append(args, "--json")
			}
			if code, out, errb := run(t, nil, append(args, dir)...); code != exitOK || out != "" {
				t.Errorf("%q: exit %d %q %q", args, code, out, errb)
			}
		}
	}
	if code, _, errb := run(t, nil, "dump", "--from", "index:0", dir); code != exitUsage || !strings.Contains(errb, "--from index:0: a CTF trace folder is selected by time in ns") {
		t.Errorf("dump --from index:0: exit %d %q", code, errb)
	}
	// a stream without cpu_id: track 2^32 + its position, named by its file
	if _, js, _ := run(t, nil, "dump", "--json", dir); strings.Count(js, `"track":4294967296,"track_name":"s0"`) != 3 {
		t.Errorf("dump --json: tracks %q", js)
	}
	for _, f := range [][]string{{"--type", "e"}, {"--thread", "s0"}, {"--thread", "4294967296"}} {
		code, text, _ := run(t, nil, append(append([]string{"dump"}, f...), dir)...)
		_, js, _ := run(t, nil, append(append([]string{"dump", "--json"}, f...), dir)...)
		if code != exitOK || strings.Count(text, "\n") != 3 || strings.Count(js, "\n") != 3 {
			t.Errorf("%q: exit %d, text %q, json %q", f, code, text, js)
		}
	}
}

// A CTF trace folder's error names the data stream file the offset is in,
// in every command (they printed "PATH: offset 0: …", with PATH the folder).
func TestCTFErrorNamesStream(t *testing.T) {
	dir := damagedCTFTrace(t, 20, 5) // packet 0's stream_id: no such data stream class
	want := dir + ": channel0_1: offset 0: packet 0: unknown data stream class 5\n"
	for _, args := range [][]string{{"validate", dir}, {"stats", dir}, {"dump", dir}, {"dump", "--json", dir}, {"dump", "--type", "x", dir}, {"convert", "--to", "chrome", dir, filepath.Join(t.TempDir(), "out.json")}} {
		if code, _, errb := run(t, nil, args...); code != exitInvalid || errb != want {
			t.Errorf("%q: exit %d %q, want %q", args, code, errb, want)
		}
	}
}

// A data stream file whose packet magic number is wrong is read, as
// babeltrace2 2.1.2 reads it (it never checks the magic number: the same 80
// events as the undamaged trace, exit 0): dump prints its events, validate
// warns and --strict fails. It was left out of the trace ("0 event records
// in 1 data streams"). A stray file that is no data stream fails the trace,
// as in babeltrace2 (exit 1, "no data stream class exists with ID …").
func TestCTFValidateMagicRead(t *testing.T) {
	dir := damagedCTFTrace(t, 0, 0) // packet 0's magic
	const note = "channel0_1: 1 packet headers hold a magic number other than 0xc1fc1fc1 (the first: packet 0, 0xc1fc1f00); read as babeltrace2 2.1 does"
	if code, out, errb := run(t, nil, "validate", dir); code != exitOK || !strings.HasPrefix(out, "ok (") || !strings.Contains(out, "80 event records in 2 data streams") || !strings.Contains(errb, dir+": warning: "+note) {
		t.Errorf("validate: exit %d %q %q", code, out, errb)
	}
	if code, _, errb := run(t, nil, "validate", "--strict", dir); code != exitInvalid || !strings.Contains(errb, dir+": strict: "+note) {
		t.Errorf("validate --strict: exit %d %q", code, errb)
	}
	orig := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace")
	_, want, _ := run(t, nil, "dump", orig)
	if code, got, errb := run(t, nil, "dump", dir); code != exitOK || got != want || strings.Count(got, "\n") != 80 {
		t.Errorf("dump: exit %d, %d lines (want the undamaged trace's %d) %q", code, strings.Count(got, "\n"), strings.Count(want, "\n"), errb)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("not a data stream, but no sidecar extension\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errb := run(t, nil, "validate", dir); code != exitInvalid || !strings.HasPrefix(errb, dir+": README: offset 0: ") {
		t.Errorf("stray file: exit %d %q", code, errb)
	}
}

// damagedCTFTrace copies the LTTng 2.15 CTF 1.8 vector trace (without its
// index) with byte off of channel0_1, the stream of its events, set to v.
func damagedCTFTrace(t *testing.T, off int, v byte) string {
	t.Helper()
	src := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace")
	dir := filepath.Join(t.TempDir(), "trace")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "channel0_1")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[off] = v
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// validate says that CTF 2 metadata in packets is refused by babeltrace2
// 2.1 (issue 22: "validate calls them ok"); --strict still passes it (the
// CTF2-PMETA-1.0 document allows it), and plain CTF 2 gets no warning.
func TestCTFValidatePacketizedCTF2Warns(t *testing.T) {
	const warn = "warning: CTF 2 metadata in packets, which babeltrace2 2.1 refuses"
	pm := vectortest.Path(t, "ctf", "constructed-from-bt2.1-json", "pmeta-le-single", "trace")
	if code, out, errb := run(t, nil, "validate", "--strict", pm); code != exitOK || !strings.Contains(out, warn) {
		t.Errorf("packetized CTF 2: exit %d %q %q", code, out, errb)
	}
	plain := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace")
	if code, out, errb := run(t, nil, "validate", plain); code != exitOK || strings.Contains(out, "warning") {
		t.Errorf("plain CTF 2: exit %d %q %q", code, out, errb)
	}
}

// TestCTFStatsParsesTSDL: stats parses TSDL metadata as validate and dump
// do: metadata that does not parse fails all three with the same error and
// exit code (stats said ok, counting `event {` in the text), and
// event_classes is the parsed model's count (an `event {` in a comment or a
// string is none).
func TestCTFStatsParsesTSDL(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	good := filepath.Join(dir, "good")
	for _, d := range []string{bad, good} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	meta := "/* CTF 1.8 */\n/* event { name = \"commented\"; }; */\n" +
		"trace { major = 1; minor = 8; byte_order = le; };\n" +
		"env { note = \"event { name = x; };\"; };\n" +
		"event { name = \"e\"; fields := struct { integer { size = 8; align = 8; } v; }; };\n"
	if err := os.WriteFile(filepath.Join(good, "metadata"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	// A major version babeltrace2 refuses too (its 1/fail/fail2).
	broken := strings.Replace(meta, "major = 1", "major = 0", 1)
	if err := os.WriteFile(filepath.Join(bad, "metadata"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, want := run(t, nil, "validate", bad)
	// the folder's error names its metadata file
	if !strings.Contains(want, "major version 0") || !strings.HasPrefix(want, bad+": metadata: offset ") {
		t.Fatalf("validate: %q", want)
	}
	want = want[len(bad+": metadata: "):]
	for _, c := range []string{"validate", "dump", "stats"} {
		// dump of a metadata file listed it undecoded, and exited 0
		for _, path := range []string{bad, filepath.Join(bad, "metadata")} {
			if code, out, errb := run(t, nil, c, path); code != exitInvalid || !strings.HasSuffix(errb, "metadata: "+want) {
				t.Errorf("%s %s: exit %d %q %q, want %d and %q", c, path, code, out, errb, exitInvalid, want)
			}
		}
	}
	code, out, errb := run(t, nil, "stats", "--json", good)
	var st map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("stats: exit %d %q %q", code, out, errb)
	}
	if st["event_classes"] != float64(1) {
		t.Errorf("event_classes %v, want 1 (the parsed model's): %s", st["event_classes"], out)
	}
	// dump lists the metadata as the CTF 2 fragments it translates to, as
	// it lists CTF 2 metadata (without byte offsets), text and JSON alike.
	const wantDump = "tsdl: 222 bytes, signature true, 1 data stream classes, 1 event record classes\n" +
		"fragment #1: preamble\n" +
		"fragment #2: trace-class\n" +
		"fragment #3: data-stream-class id=0\n" +
		"fragment #4: event-record-class data_stream_class_id=0 id=0 name=e\n"
	if code, out, errb := run(t, nil, "dump", filepath.Join(good, "metadata")); code != exitOK || out != wantDump {
		t.Errorf("dump: exit %d %q %q, want %q", code, out, errb, wantDump)
	}
	code, out, _ = run(t, nil, "dump", "--json", "--type", "event-record-class", filepath.Join(good, "metadata"))
	if want := `{"data_stream_class_id":0,"id":0,"index":4,"name":"e","record":"fragment","type":"event-record-class"}` + "\n"; code != exitOK || out != want {
		t.Errorf("dump --json: exit %d %q, want %q", code, out, want)
	}
}

// TestCTFTraceWithoutStreamsIsEmpty: a CTF trace folder whose metadata
// declares no data stream file beside it (babeltrace2's 1/succeed/succeed4,
// 1/intersection/nostream: it prints nothing and exits 0) is a trace
// without events, as an empty dial9 stream is: convert --to chrome writes
// an empty trace and export writes no rows, both exiting 0 (they refused
// it, exit 2 and 1). A metadata file alone stays refused.
func TestCTFTraceWithoutStreamsIsEmpty(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace")
	if err := os.Mkdir(trace, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; };\n" +
		"event { name = \"e\"; fields := struct { integer { size = 8; align = 8; } v; }; };\n"
	if err := os.WriteFile(filepath.Join(trace, "metadata"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	var d9 bytes.Buffer
	w, err := dial9.NewWriter(&d9)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.d9")
	if err := os.WriteFile(empty, d9.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{empty, trace} {
		js := filepath.Join(dir, filepath.Base(in)+".json")
		code, _, errb := run(t, nil, "convert", "--to", "chrome", in, js)
		b, _ := os.ReadFile(js)
		var doc struct {
			TraceEvents []any `json:"traceEvents"`
		}
		if code != exitOK || json.Unmarshal(b, &doc) != nil || doc.TraceEvents == nil || len(doc.TraceEvents) != 0 {
			t.Errorf("convert --to chrome %s: exit %d %q %q", in, code, errb, b)
		}
		code, out, errb := run(t, nil, "export", "--to", "parquet", in, filepath.Join(dir, filepath.Base(in)+".pq"))
		if code != exitOK || !strings.Contains(out, "0 rows from 0 events of 1 inputs") {
			t.Errorf("export %s: exit %d %q %q", in, code, out, errb)
		}
	}
	md := filepath.Join(trace, "metadata")
	if code, _, errb := run(t, nil, "convert", "--to", "chrome", md, filepath.Join(dir, "m.json")); code != exitUsage || !strings.Contains(errb, "no Chrome trace form") {
		t.Errorf("convert --to chrome of the metadata file: exit %d %q", code, errb)
	}
	if code, _, errb := run(t, nil, "export", "--to", "parquet", md, filepath.Join(dir, "m.pq")); code != exitInvalid || !strings.Contains(errb, "no events") {
		t.Errorf("export of the metadata file: exit %d %q", code, errb)
	}
}

// A cut packet fails validate wherever it is, as in babeltrace2 2.1.2
// (exit 1, "Invalid packet size reported in file" for both traces below):
// inside a data stream — the rotated file (LTTng CHANNEL_CPU_N)
// channel0_0_0 ends inside packet 3 while the stream goes on in
// channel0_0_1 — or at its end (channel0_0_1 cut: what a tracer killed
// while writing leaves). dump reads what they hold and says so on its
// recovery line. validate said ok for both, with a warning.
func TestCTFCutPacketInsideStream(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	if err := ctfgen.Write(src, 2000, 1, 10, 4096); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(src, "channel0_0"))
	if err != nil || len(b) < 8*4096 {
		t.Fatal(len(b), err)
	}
	meta, err := os.ReadFile(filepath.Join(src, "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	const p = 4096
	trace := func(name string, first, second []byte) string {
		dir := filepath.Join(t.TempDir(), name)
		for n, data := range map[string][]byte{"metadata": meta, "channel0_0_0": first, "channel0_0_1": second} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	inside := trace("inside", b[:3*p+1500], b[4*p:])
	last := trace("last", b[:4*p], b[4*p:len(b)-p/2])
	for _, c := range []struct{ dir, want string }{
		{inside, ": channel0_0_0: offset 12288: packet 3 is cut: the file ends 2596 bytes before its declared size of 4096 bytes (babeltrace2 refuses the trace; "},
		{last, ": channel0_0_1: offset 24576: packet 6 is cut: the file ends 2048 bytes before its declared size of 4096 bytes (babeltrace2 refuses the trace; "},
	} {
		if code, out, errb := run(t, nil, "validate", c.dir); code != exitInvalid || !strings.HasPrefix(errb, c.dir+c.want) || !strings.Contains(errb, c.dir+": recovery: read ") {
			t.Errorf("validate: exit %d %q %q, want %q…", code, out, errb, c.want)
		}
		if code, out, errb := run(t, nil, "dump", c.dir); code != exitOK || strings.Count(out, "\n") < 1800 || !strings.Contains(errb, c.dir+": recovery: read ") {
			t.Errorf("dump: exit %d, %d lines, %q", code, strings.Count(out, "\n"), errb)
		}
	}
}

// A damaged LTTng index (index/NAME.idx, a sidecar) is a warning naming
// the index file and what is wrong, --strict fails it, and stats and dump
// read the trace, as babeltrace2 2.1 reads it (it warns and indexes the
// stream itself): every command failed on it ("offset 16: index: …", no
// file named). An index that disagrees with its stream — it lists packets
// the file lost — still fails validate, with a message naming the index
// file and what differs (it said "index of channel0_1: 4 entries for 0
// packets"); stats and dump read the stream.
func TestCTFDamagedIndex(t *testing.T) {
	for _, c := range []struct {
		name, msg string
		damage    func(dir string) error
		code      int
	}{
		{"cut index", ": warning: channel0_1: index/channel0_1.idx cannot be used (ctf: offset 16: index: 4 bytes of entries is not a multiple of the entry length 72): the stream is read without it",
			func(dir string) error { return os.Truncate(filepath.Join(dir, "index", "channel0_1.idx"), 20) }, exitOK},
		{"emptied stream", ": offset 16: index/channel0_1.idx lists 4 packets, channel0_1 holds 0: entry 0 (packet at offset 0) has no packet in the data stream file",
			func(dir string) error { return os.Truncate(filepath.Join(dir, "channel0_1"), 0) }, exitInvalid},
		{"stream cut at a packet boundary", ": offset 160: index/channel0_1.idx lists 4 packets, channel0_1 holds 2: entry 2 (packet at offset 2048) has no packet in the data stream file\n" +
			"%s: recovery: read 242 events in 6144 bytes; lost 2048 bytes and an unknown number of events; note: channel0_1: index/channel0_1.idx lists 2 packets past the end of the file, which ends at byte 2048 (the first: entry 2, packet at offset 2048): 2048 bytes lost",
			func(dir string) error { return os.Truncate(filepath.Join(dir, "channel0_1"), 2048) }, exitInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "trace")
			if err := ctfgen.Write(dir, 300, 2, 4, 1024); err != nil {
				t.Fatal(err)
			}
			if err := c.damage(dir); err != nil {
				t.Fatal(err)
			}
			code, out, errb := run(t, nil, "validate", dir)
			msg := c.msg
			if strings.Contains(msg, "%s") {
				msg = fmt.Sprintf(msg, dir)
			}
			if code != c.code || !strings.Contains(errb, dir+msg) || c.code == exitOK && !strings.Contains(out, "300 event records") {
				t.Errorf("validate: exit %d %q %q", code, out, errb)
			}
			if c.code == exitOK {
				if code, _, errb := run(t, nil, "validate", "--strict", dir); code != exitInvalid || !strings.Contains(errb, dir+": strict: channel0_1: index/channel0_1.idx cannot be used") {
					t.Errorf("validate --strict: exit %d %q", code, errb)
				}
			}
			// the packets the index lists past the end of the file are lost,
			// and every command's recovery line says so
			lost := "bytes lost"
			if c.code == exitOK {
				lost = dir + ": recovery: read 300 events in "
			} else if !strings.Contains(errb, dir+": recovery: read ") || !strings.Contains(errb, lost) {
				t.Errorf("validate: no recovery line %q", errb)
			}
			for _, cmd := range []string{"stats", "dump"} {
				if code, _, errb := run(t, nil, cmd, dir); code != exitOK || !strings.Contains(errb, dir+": recovery: read ") || !strings.Contains(errb, lost) {
					t.Errorf("%s: exit %d %q", cmd, code, errb)
				}
			}
		})
	}
}

// A trace folder whose metadata file is empty (or holds TSDL without a
// trace block) describes no trace: babeltrace2 2.1 refuses it, and so do
// validate, stats and dump of the folder and of a data stream file in it.
// validate called every data stream "ok" (an empty TSDL text read as an
// implicit trace), with all the trace's events unreadable.
func TestCTFEmptyMetadataRefused(t *testing.T) {
	for _, meta := range []string{"", "/* CTF 1.8 */\n"} {
		dir := filepath.Join(t.TempDir(), "trace")
		if err := ctfgen.Write(dir, 300, 2, 4, 1024); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "metadata"), []byte(meta), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, errb := run(t, nil, "validate", dir); code != exitInvalid || strings.Contains(out, "channel0_0: ok") || !strings.Contains(out+errb, "no trace block") {
			t.Errorf("%q: validate: exit %d %q %q", meta, code, out, errb)
		}
		for _, cmd := range []string{"validate", "stats", "dump"} {
			if code, _, errb := run(t, nil, cmd, filepath.Join(dir, "channel0_0")); code != exitInvalid || !strings.Contains(errb, "no trace block") {
				t.Errorf("%q: %s channel0_0: exit %d %q", meta, cmd, code, errb)
			}
		}
	}
}

// With many inputs, validate and stats name the file inside a trace folder
// that an error is about — its metadata, a data stream — as they do for
// one input: the many-input lines dropped it ("trace: offset 0: packet 2
// is cut", no file named).
func TestCTFManyInputsErrorsNameFile(t *testing.T) {
	root := t.TempDir()
	badMeta, cut := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{badMeta, cut} {
		if err := ctfgen.Write(d, 300, 2, 4, 1024); err != nil {
			t.Fatal(err)
		}
	}
	mp := filepath.Join(badMeta, "metadata")
	b, err := os.ReadFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mp, bytes.Replace(b, []byte("major = 1;"), []byte("major = 0;"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(cut, "channel0_1"), 1500); err != nil {
		t.Fatal(err)
	}
	// without its index, which would fail first (it lists the lost packets)
	if err := os.RemoveAll(filepath.Join(cut, "index")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"validate"}, {"stats"}, {"stats", "--json"}} {
		for _, in := range [][]string{{badMeta}, {badMeta, cut}} {
			_, out, errb := run(t, nil, append(args, in...)...)
			for _, w := range []string{"metadata: offset ", "trace: major version 0"} {
				if !strings.Contains(out+errb, w) {
					t.Errorf("%s %d inputs: lacks %q: %q %q", args, len(in), w, out, errb)
				}
			}
			if len(in) == 2 && args[0] == "validate" && !strings.Contains(out+errb, cut+": channel0_1: offset 1024: packet 1 is cut") {
				t.Errorf("%s: lacks the cut stream's name: %q %q", args, out, errb)
			}
		}
	}
}

// writeSession writes an LTTng-shaped session folder: kernel/ and
// ust/uid/1000/64-bit/, each a CTF trace of n events (ctfgen), of two
// UUIDs, as LTTng's (traces sharing one are one trace, their equal
// packets read once).
func writeSession(t *testing.T, n int) string {
	root := t.TempDir()
	for i, d := range []string{"kernel", "ust/uid/1000/64-bit"} {
		uuid := []string{ctfgen.UUID, "5fce9cb8-7b77-4e3b-a0f4-55d4d1e7b0a2"}[i]
		if err := ctfgen.WriteUUID(filepath.Join(root, d), uuid, n, 2, 6, 4096); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// dump, dump --json, stats and convert --to chrome read a folder of CTF trace
// folders (an LTTng session folder) as one trace: every event of both
// traces, merged by time (babeltrace2's text: the lines of both dumps, in
// time order); its metadata records and metadata conversions are refused,
// naming the trace folders.
func TestCTFSessionDump(t *testing.T) {
	root := writeSession(t, 300)
	code, out, errb := run(t, nil, "dump", root)
	if code != exitOK || errb != "" {
		t.Fatalf("dump: exit %d %q", code, errb)
	}
	var want []string
	for _, d := range []string{"kernel", "ust/uid/1000/64-bit"} {
		_, o, _ := run(t, nil, "dump", filepath.Join(root, d))
		want = append(want, strings.Split(strings.TrimSuffix(o, "\n"), "\n")...)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != 600 || len(want) != 600 {
		t.Fatalf("dump: %d lines, the traces %d (600)", len(got), len(want))
	}
	// the session's lines are the traces' lines, in time order (each
	// starts with its time)
	for i := 1; i < len(got); i++ {
		if got[i][:20] < got[i-1][:20] {
			t.Fatalf("line %d before line %d in time:\n%s\n%s", i, i-1, got[i-1], got[i])
		}
	}
	// the same lines but for the time since the previous line printed
	delta := regexp.MustCompile(`^(\[[^]]*\]) \(\+[^)]*\)`)
	count := map[string]int{}
	for _, l := range want {
		count[delta.ReplaceAllString(l, "$1")]++
	}
	for _, l := range got {
		count[delta.ReplaceAllString(l, "$1")]--
	}
	for l, n := range count {
		if n != 0 {
			t.Fatalf("line %q: %+d in the traces' dumps against the session's", l, n)
		}
	}
	code, out, errb = run(t, nil, "dump", "--json", root)
	if code != exitOK || strings.Count(out, "\n") != 600 || strings.Count(out, `"stream":"ust/uid/1000/64-bit/channel0_`) != 300 {
		t.Errorf("dump --json: exit %d %q, %d lines", code, errb, strings.Count(out, "\n"))
	}
	code, out, errb = run(t, nil, "stats", "--json", root)
	for _, w := range []string{`"format":"ctf","traces":["kernel","ust/uid/1000/64-bit"],"packets":0,"metadata_bytes":6154,"metadata_sha256":null,"byte_order":null,"version":"1.8","events":600,`, `"data_streams":4,`, `"ust/uid/1000/64-bit/channel0_1":150`} {
		if code != exitOK || !strings.Contains(out, w) {
			t.Errorf("stats --json: exit %d %q, lacks %s: %s", code, errb, w, out)
		}
	}
	code, out, errb = run(t, nil, "convert", "--to", "chrome", root, "-")
	if code != exitOK || !json.Valid([]byte(out)) {
		t.Errorf("convert --to chrome: exit %d %q %.200s", code, errb, out)
	}
	if code, _, errb := run(t, nil, "dump", "--type", "tsdl", root); code != exitUsage || !strings.Contains(errb, "give one of the trace folders") {
		t.Errorf("dump --type tsdl: exit %d %q", code, errb)
	}
	if code, _, errb := run(t, nil, "convert", "--to", "plain", root, filepath.Join(t.TempDir(), "m")); code != exitUsage || !strings.Contains(errb, "converts to chrome") {
		t.Errorf("convert --to plain: exit %d %q", code, errb)
	}
}

// TestCTFSessionBabeltrace: dump of babeltrace's session test folders
// (multi-domains: kernel/ beside ust/; session-rotation: the chunks of two
// user-space traces) prints what babeltrace2 prints, byte for byte, when
// CTF_BT_TRACES and CTF_BT_REFS name them (tools/ctfbt/gen.sh).
func TestCTFSessionBabeltrace(t *testing.T) {
	root, refs := os.Getenv("CTF_BT_TRACES"), os.Getenv("CTF_BT_REFS")
	if root == "" || refs == "" {
		t.Skip("CTF_BT_TRACES or CTF_BT_REFS not set")
	}
	n := 0
	for _, rel := range []string{"1/succeed/multi-domains", "1/succeed/session-rotation", "2/succeed/multi-domains", "2/succeed/session-rotation"} {
		want, err := os.ReadFile(filepath.Join(refs, strings.ReplaceAll(rel, "/", "_")+".txt"))
		if err != nil {
			continue
		}
		n++
		code, out, errb := run(t, nil, "dump", filepath.Join(root, rel))
		if code != exitOK || out != string(want) {
			t.Errorf("%s: exit %d %q; %d bytes, babeltrace2 %d", rel, code, errb, len(out), len(want))
		}
	}
	if n == 0 {
		t.Skip("no session reference (tools/ctfbt/gen.sh writes them)")
	}
}

// TestCTFStatsPastDamagedPacket: an event record of an unknown class in
// the middle of a packet (record 100 of channel0_0's first packet of 197)
// stops dump and validate at that record with its offset, as babeltrace2
// 2.1 stops; stats counts the records before it and the other packets'
// (303 of 400), exit 0, its recovery saying that packet's rest was skipped.
func TestCTFStatsPastDamagedPacket(t *testing.T) {
	p := filepath.Join(t.TempDir(), "trace")
	if code, _, errb := run(t, nil, "sample", "ctf", p); code != exitOK {
		t.Fatal(errb)
	}
	code, out, errb := run(t, nil, "dump", "--json", "--thread", "0", p)
	if code != exitOK {
		t.Fatal(errb)
	}
	var off int64 = -1
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Record struct {
				Packet int   `json:"packet"`
				Offset int64 `json:"offset"`
			} `json:"record"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Record.Packet != 0 && i < 197 {
			t.Fatalf("line %d: %v %s", i, err, line)
		}
		if i == 100 {
			off = ev.Record.Offset
		}
	}
	f := filepath.Join(p, "channel0_0")
	b, err := os.ReadFile(f)
	if err != nil || off < 0 {
		t.Fatal(err, off)
	}
	b[off] = b[off]&^0x1f | 30 // the compact header's class id: 30 of 6
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("channel0_0: offset %d: packet 0: no event record class 30", off)
	if code, _, errb := run(t, nil, "dump", p); code != exitInvalid || !strings.Contains(errb, want) {
		t.Errorf("dump: exit %d %q, want %q", code, errb, want)
	}
	if code, _, errb := run(t, nil, "validate", p); code != exitInvalid || !strings.Contains(errb, want) {
		t.Errorf("validate: exit %d %q, want %q", code, errb, want)
	}
	code, out, errb = run(t, nil, "stats", "--json", p)
	var st struct {
		Events   int            `json:"events"`
		ByStream map[string]int `json:"events_by_stream"`
		Recovery *struct {
			Notes []string `json:"notes"`
		} `json:"recovery"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &st) != nil || st.Events != 303 || st.ByStream["channel0_0"] != 103 || st.ByStream["channel0_1"] != 200 ||
		st.Recovery == nil || !strings.Contains(strings.Join(st.Recovery.Notes, ";"), "channel0_0: 1 damaged packet read up to its first undecodable event record, its rest") {
		t.Errorf("stats: exit %d %s %s", code, out, errb)
	}
}

// TestCTFChromeWarnsSpeedscope: convert --to chrome of a CTF trace folder
// writes its event records as instants, which speedscope (it reads only
// slices) does not draw; convert says so, naming the viewers that do.
func TestCTFChromeWarnsSpeedscope(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "trace")
	if code, _, errb := run(t, nil, "sample", "ctf", p); code != exitOK {
		t.Fatal(errb)
	}
	code, _, errb := run(t, nil, "convert", "--to", "chrome", p, filepath.Join(dir, "out.json"))
	want := p + ": warning: the 400 event records are instants (a CTF event record has no duration; only LTTng's function and system call entries and exits on a known thread make slices): Perfetto UI and chrome://tracing show them; speedscope, which reads only slices, shows nothing\n"
	if code != exitOK || errb != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errb, want)
	}
}

// A session folder given to validate, stats (with other inputs too) and
// export: validate checks each trace, then says the folder is one trace
// (naming the traces that share a UUID: one trace, equal packets read
// once) or why it cannot be (clock classes babeltrace2 cannot correlate:
// exit 1); stats is one input, the session's counts (a copy of a trace
// adds no event), the metadata keys of every CTF input (summed, or the
// traces' common value, else null) and by trace its own (as stats of the
// trace folder alone gives them); export writes the session's events once.
func TestCTFSessionValidateStats(t *testing.T) {
	root := writeSession(t, 300)
	if err := os.CopyFS(filepath.Join(root, "kernel-copy"), os.DirFS(filepath.Join(root, "kernel"))); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run(t, nil, "validate", root)
	for _, w := range []string{
		root + "/kernel: ok (", root + "/kernel-copy: ok (", root + "/ust/uid/1000/64-bit: ok (",
		root + ": session: ok (3 CTF traces, read as one by dump, stats and export: kernel, kernel-copy, ust/uid/1000/64-bit; kernel and kernel-copy share their trace's UUID: one trace, equal packets read once)",
		"3 inputs: 3 ok, 0 invalid (ctf 3)\n",
	} {
		if code != exitOK || !strings.Contains(out, w) {
			t.Errorf("validate: exit %d %q %q, lacks %q", code, out, errb, w)
		}
	}
	code, out, errb = run(t, nil, "stats", "--json", root)
	var st map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("stats --json: exit %d %q %q", code, out, errb)
	}
	byTrace, _ := st["by_trace"].(map[string]any)
	if st["events"] != 600.0 || st["packets"] != 0.0 || st["metadata_bytes"] != 3*3077.0 || st["metadata_sha256"] != nil || st["version"] != "1.8" || len(byTrace) != 3 {
		t.Errorf("stats --json: %s", out)
	}
	for _, d := range []string{"kernel", "kernel-copy", "ust/uid/1000/64-bit"} {
		_, o, _ := run(t, nil, "stats", "--json", filepath.Join(root, d))
		var alone map[string]any
		if err := json.Unmarshal([]byte(o), &alone); err != nil {
			t.Fatal(err)
		}
		tr, _ := byTrace[d].(map[string]any)
		for _, k := range []string{"packets", "metadata_bytes", "metadata_sha256", "byte_order", "version", "event_classes"} {
			if tr[k] != alone[k] {
				t.Errorf("by_trace %s %s: %v, the trace alone %v", d, k, tr[k], alone[k])
			}
		}
		if want := map[string]any{"kernel": 300.0, "kernel-copy": 0.0, "ust/uid/1000/64-bit": 300.0}[d]; tr["events"] != want {
			t.Errorf("by_trace %s events: %v, want %v", d, tr["events"], want)
		}
	}
	if tr, _ := byTrace["kernel-copy"].(map[string]any); tr["same_trace_as"] != "kernel" {
		t.Errorf("by_trace kernel-copy: %v, want same_trace_as kernel", tr)
	}
	// with another input: the session is one input still
	other := filepath.Join(t.TempDir(), "other")
	if err := ctfgen.Write(other, 30, 1, 2, 4096); err != nil {
		t.Fatal(err)
	}
	code, out, errb = run(t, nil, "stats", "--json", root, other)
	if code != exitOK || strings.Count(out, "\n") != 3 || !strings.Contains(out, `{"path":"`+root+`","format":"ctf","traces":["kernel","kernel-copy","ust/uid/1000/64-bit"],`) ||
		!strings.Contains(out, `"inputs":2,"ok":2`) {
		t.Errorf("stats --json SESSION OTHER: exit %d %q %q", code, out, errb)
	}
	code, out, errb = run(t, nil, "export", "--to", "parquet", root, filepath.Join(t.TempDir(), "out"))
	if code != exitOK || !strings.Contains(out+errb, "600 rows from 600 events of 1 inputs") {
		t.Errorf("export: exit %d %q %q", code, out, errb)
	}
	// clock classes babeltrace2 cannot correlate: the session cannot be
	// read as one; each trace is valid alone
	bad := t.TempDir()
	if err := ctfgen.WriteUncorrelated(bad, 60); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, nil, "validate", bad)
	if code != exitInvalid || !strings.Contains(out, bad+"/x: ok (") || !strings.Contains(out, bad+": session: ctf: clock classes cannot be correlated: x/channel0_0") ||
		!strings.Contains(out, "1 session folders cannot be read as one trace (exit 1)") {
		t.Errorf("validate of clocks that do not correlate: exit %d %q", code, out)
	}
	for _, cmd := range [][]string{{"stats"}, {"dump"}, {"export", "--to", "parquet"}} {
		args := append(cmd, bad)
		if cmd[0] == "export" {
			args = append(args, filepath.Join(t.TempDir(), "o"))
		}
		if code, _, errb := run(t, nil, args...); code == exitOK || !strings.Contains(errb, "clock classes cannot be correlated") {
			t.Errorf("%s: exit %d %q", cmd[0], code, errb)
		}
	}
}

// A trace folder whose data streams' clock classes babeltrace2 cannot
// correlate (a stream class without a clock beside one with) cannot be
// merged: validate fails saying so (each stream alone reads), dump and
// stats refuse it, as babeltrace2 2.1 refuses it (checked with
// BABELTRACE2 set).
func TestCTFTraceClocksNotCorrelated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	if err := ctfgen.WriteMixedClocks(dir); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "dump", "stats"} {
		code, _, errb := run(t, nil, cmd, dir)
		if code != exitInvalid || !strings.Contains(errb, "clock classes cannot be correlated: with_clock (data stream class 0) has clock class \"c\"") ||
			!strings.Contains(errb, "without_clock (data stream class 1) has no clock class") {
			t.Errorf("%s: exit %d %q", cmd, code, errb)
		}
	}
	if bt := os.Getenv("BABELTRACE2"); bt != "" {
		c := exec.Command(bt, dir)
		c.Env = append(os.Environ(), "TZ=UTC")
		if out, err := c.CombinedOutput(); err == nil || !strings.Contains(string(out), "Expecting a clock class, got none") {
			t.Errorf("babeltrace2 reads it: %v\n%.300s", err, out)
		}
	}
}

// dump of a CTF trace whose tracer discarded event records and lost
// packets prints the events as babeltrace2 does and, on standard error,
// one warning with the totals (babeltrace2 prints one per gap: with
// BABELTRACE2 set, its warnings are counted and summed beside ours); a
// trace without gaps gets none.
func TestCTFDumpWarnsTracerLosses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	if err := ctfgen.Write(dir, 300, 1, 4, 1024); err != nil {
		t.Fatal(err)
	}
	clean := filepath.Join(t.TempDir(), "clean")
	if err := ctfgen.Write(clean, 300, 1, 4, 1024); err != nil {
		t.Fatal(err)
	}
	// events_discarded (a running counter) gaps: 5 records before packet 1,
	// 7 before packet 3; packet_seq_num: 3 packets lost before packet 4
	// (its seq 4+3)
	_, err := ctfgen.EditPackets(dir, "channel0_0", 1024, 6, func(i int, b []byte) {
		var disc, seq uint64 = 0, uint64(i)
		switch {
		case i >= 3:
			disc = 12
		case i >= 1:
			disc = 5
		}
		if i >= 4 {
			seq += 3
		}
		binary.LittleEndian.PutUint64(b[ctfgen.OffSeq:], seq)
		binary.LittleEndian.PutUint64(b[ctfgen.OffDiscarded:], disc)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := dir + ": warning: the tracer discarded 12 event records (2 gaps) and lost 3 packets (1 gap) in 1 data stream: the events printed have holes there (validate lists each gap, stats counts them)\n"
	_, cleanOut, _ := run(t, nil, "dump", clean)
	for _, args := range [][]string{{"dump", dir}, {"dump", "--json", dir}, {"dump", "--type", "anchors:my_event", dir}} {
		code, out, errb := run(t, nil, args...)
		if code != exitOK || errb != want {
			t.Errorf("%v: exit %d, stderr %q, want %q", args[:len(args)-1], code, errb, want)
		}
		if len(args) == 2 && out != cleanOut {
			t.Errorf("dump: the events differ from the unpatched trace's")
		}
	}
	if code, _, errb := run(t, nil, "dump", clean); code != exitOK || errb != "" {
		t.Errorf("clean trace: exit %d, stderr %q", code, errb)
	}
	bt := os.Getenv("BABELTRACE2")
	if bt == "" {
		return
	}
	c := exec.Command(bt, dir)
	c.Env = append(os.Environ(), "TZ=UTC")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("babeltrace2: %v\n%.300s", err, stderr.String())
	}
	if stdout.String() != cleanOut {
		t.Errorf("babeltrace2 prints other events than dump")
	}
	var events, gaps, lost, lostGaps int
	for _, m := range regexp.MustCompile(`Tracer discarded (\d+) events`).FindAllStringSubmatch(stderr.String(), -1) {
		n, _ := strconv.Atoi(m[1])
		events, gaps = events+n, gaps+1
	}
	for _, m := range regexp.MustCompile(`Tracer discarded (\d+) packets`).FindAllStringSubmatch(stderr.String(), -1) {
		n, _ := strconv.Atoi(m[1])
		lost, lostGaps = lost+n, lostGaps+1
	}
	if events != 12 || gaps != 2 || lost != 3 || lostGaps != 1 {
		t.Errorf("babeltrace2 warns of %d records in %d gaps, %d packets in %d gaps; want 12, 2, 3, 1:\n%s", events, gaps, lost, lostGaps, stderr.String())
	}
}
