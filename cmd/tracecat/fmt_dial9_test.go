package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// dial9Failures are the vectors a correct decoder must reject, with the
// offset tracecat reports (where the upstream Rust decoder stops).
var dial9Failures = map[string]string{
	"hm01_bad_magic.bin":                        "unrecognised format",
	"08_schema_conflict_NEGATIVE.bin":           "offset 31:",
	"hm03_unknown_frame_tag_0x07.bin":           "offset 25:",
	"hm05_event_unknown_type_id.bin":            "offset 25:",
	"hm06_truncated_event.bin":                  "offset 25:",
	"hm09_leb128_noncanonical_and_overflow.bin": "offset 43:",
	"hm12_invalid_utf8_schema_name.bin":         "offset 5:",
	"hm15_trailing_zero_byte.bin":               "offset 25:",
	"hm18_pool_count_huge_truncated.bin":        "offset 5:",
}

func dial9Vectors(t *testing.T) []string {
	dir := vectortest.Dir(t, "dial9")
	var files []string
	for _, sub := range []string{"v0.2.0", "v0.4.0", "handmade"} {
		f, _ := filepath.Glob(filepath.Join(dir, sub, "*.bin"))
		files = append(files, f...)
	}
	if len(files) < 30 {
		t.Fatalf("only %d dial9 vectors", len(files))
	}
	return files
}

// rustEvents counts the events (per schema) the upstream dump lists.
func rustEvents(t *testing.T, bin string) (int, map[string]int) {
	dump := strings.TrimSuffix(bin, ".bin") + ".rust.json"
	if strings.Contains(bin, "handmade") {
		dump = filepath.Join(filepath.Dir(bin), "decoded", strings.TrimSuffix(filepath.Base(bin), ".bin")+".rust-v0.4.0.json")
	}
	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Frames []struct{ Kind, Name string } `json:"frames"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	by := map[string]int{}
	n := 0
	for _, f := range d.Frames {
		if f.Kind == "event" {
			n++
			by[f.Name]++
		}
	}
	return n, by
}

func TestDial9ValidateStatsDump(t *testing.T) {
	for _, p := range dial9Vectors(t) {
		name := filepath.Base(p)
		code, out, errOut := run(t, nil, "validate", p)
		if want, bad := dial9Failures[name]; bad {
			if code != exitInvalid || !strings.Contains(errOut, want) {
				t.Errorf("%s: validate exit %d, stderr %q; want failure %q", name, code, errOut, want)
			}
			continue
		}
		if code != exitOK || !strings.HasPrefix(out, "ok") {
			t.Errorf("%s: validate exit %d: %s%s", name, code, out, errOut)
			continue
		}
		events, by := rustEvents(t, p)
		code, out, errOut = run(t, nil, "stats", "--json", p)
		if code != exitOK {
			t.Fatalf("%s: stats: %s", name, errOut)
		}
		var st struct {
			Format       string         `json:"format"`
			Events       int            `json:"events"`
			Schemas      int            `json:"schemas"`
			EventsByType map[string]int `json:"events_by_type"`
			FirstNs      *uint64        `json:"first_ns"`
			LastNs       *uint64        `json:"last_ns"`
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("%s: stats JSON: %v", name, err)
		}
		if st.Format != "dial9" || st.Events != events {
			t.Errorf("%s: stats %+v, want %d events", name, st, events)
		}
		for k, v := range by {
			if st.EventsByType[k] != v {
				t.Errorf("%s: events_by_type[%s] = %d, want %d", name, k, st.EventsByType[k], v)
			}
		}
		code, out, errOut = run(t, nil, "dump", "--json", p)
		if code != exitOK {
			t.Fatalf("%s: dump: %s", name, errOut)
		}
		lines := 0
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("%s: dump line %q: %v", name, sc.Text(), err)
			}
			lines++
		}
		if lines != events {
			t.Errorf("%s: dump printed %d events, want %d", name, lines, events)
		}
		code, out, errOut = run(t, nil, "convert", "--to", "chrome", p, "-")
		var trace struct {
			TraceEvents []map[string]any `json:"traceEvents"`
		}
		if code != exitOK || json.Unmarshal([]byte(out), &trace) != nil || len(trace.TraceEvents) < events {
			t.Errorf("%s: convert: exit %d, %d trace events for %d events: %s", name, code, len(trace.TraceEvents), events, errOut)
		}
	}
}

func TestDial9DumpGolden(t *testing.T) {
	p := vectortest.Path(t, "dial9", "v0.2.0", "06_multi_schema.bin")
	code, out, _ := run(t, nil, "dump", p)
	want := `100 instant SchemaA ["events without a worker"] offset=24 type_id=0 type="SchemaA" | a=1
200 instant SchemaB ["events without a worker"] offset=54 type_id=1 type="SchemaB" | b="x" c=true
300 instant SchemaA ["events without a worker"] offset=66 type_id=0 type="SchemaA" | a=2
400 instant Empty ["events without a worker"] offset=104 type_id=3 type="Empty" |
500 instant SchemaB ["events without a worker"] offset=110 type_id=1 type="SchemaB" | b="y" c=false
600 instant VarintEdge ["events without a worker"] offset=144 type_id=4 type="VarintEdge" | v=9
`
	if code != exitOK || out != want {
		t.Errorf("dump:\n%s\nwant:\n%s", out, want)
	}
	code, out, _ = run(t, nil, "dump", "--json", "--type", "SchemaB", "--from", "300", p)
	want = `{"format":"dial9","record":{"offset":110,"type_id":1,"type":"SchemaB"},"kind":"instant","name":"SchemaB","ts_ns":500,"dur_ns":null,"track_kind":"trace","track":1048576,"track_name":"events without a worker","args":{"b":"y","c":false}}` + "\n"
	if code != exitOK || out != want {
		t.Errorf("dump --json --type --from:\n%s\nwant:\n%s", out, want)
	}
	code, out, _ = run(t, nil, "dump", "--to", "200", p)
	if code != exitOK || strings.Count(out, "\n") != 2 {
		t.Errorf("dump --to 200: %q", out)
	}
	// Every value kind, optional and pooled.
	p = vectortest.Path(t, "dial9", "v0.2.0", "02_all_field_types.bin")
	_, out, _ = run(t, nil, "dump", "--json", p)
	first := strings.SplitN(out, "\n", 2)[0]
	want = `{"format":"dial9","record":{"offset":155,"type_id":0,"type":"AllTypes"},"kind":"instant","name":"AllTypes","ts_ns":1000,"dur_ns":null,"track_kind":"trace","track":1048576,"track_name":"events without a worker","args":{"f_i64":-42,"f_f64":3.5,"f_bool":true,"f_string":"hello","f_bytes":"deadbeef","f_pooled":"pooled-value","f_stack":["0x1000","0x7fff00001234","0xffffffffffffffff"],"f_varint":300,"f_map":[["k1","v1"],["k2",""]],"f_u8":7,"f_u16":4660,"f_u32":3735928559}}`
	if first != want {
		t.Errorf("dump --json 02:\n%s\nwant\n%s", first, want)
	}
}

func TestDial9GoldenStats(t *testing.T) {
	for _, tc := range []struct {
		file          string
		events, heads int
		min, max      uint64 // the extremes
		first, last   uint64 // in stream order
		schemas       int
		cpuSamples    int
	}{
		{"demo-trace@6050208.bin.gz", 142601, 9, 0, 1774658386068912479, 1774658386068912479, 0, 11, 15191},
		{"demo-trace@6342350.bin.gz", 210639, 14, 0, 503230842286478, 503226032430072, 0, 24, 6949},
	} {
		p := vectortest.Path(t, "dial9", "golden", tc.file)
		code, out, errOut := run(t, nil, "stats", "--json", p)
		if code != exitOK {
			t.Fatalf("%s: %s", tc.file, errOut)
		}
		var st struct {
			Events       int            `json:"events"`
			Schemas      int            `json:"schemas"`
			EventsByType map[string]int `json:"events_by_type"`
			FirstNs      uint64         `json:"first_ns"`
			LastNs       uint64         `json:"last_ns"`
			MinNs        uint64         `json:"min_ns"`
			MaxNs        uint64         `json:"max_ns"`
			Streams      int            `json:"streams"`
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatal(err)
		}
		if st.Events != tc.events || st.Streams != tc.heads || st.FirstNs != tc.first || st.LastNs != tc.last ||
			st.MinNs != tc.min || st.MaxNs != tc.max ||
			st.Schemas != tc.schemas || st.EventsByType["CpuSampleEvent"] != tc.cpuSamples {
			t.Errorf("%s: %s", tc.file, out)
		}
	}
}

func TestDial9Sample(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sample.bin")
	if code, _, errOut := run(t, nil, "sample", "dial9", p); code != exitOK {
		t.Fatal(errOut)
	}
	code, out, _ := run(t, nil, "detect", p)
	if code != exitOK || !strings.HasSuffix(strings.TrimSpace(out), ": dial9") {
		t.Errorf("detect: %q", out)
	}
	code, out, errOut := run(t, nil, "validate", p)
	if code != exitOK {
		t.Fatalf("validate sample: %s", errOut)
	}
	if !strings.Contains(out, "27 events") {
		t.Errorf("validate: %q", out)
	}
	code, out, _ = run(t, nil, "convert", "--to", "chrome", p, "-")
	var trace struct {
		TraceEvents []struct {
			Ph  string `json:"ph"`
			Tid int    `json:"tid"`
		} `json:"traceEvents"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &trace) != nil {
		t.Fatalf("convert: %d %q", code, out)
	}
	b, e := 0, 0
	for _, ev := range trace.TraceEvents {
		switch ev.Ph {
		case "B":
			b++
		case "E":
			e++
		}
	}
	if b != 8 || e != 8 {
		t.Errorf("poll slices: %d B, %d E", b, e)
	}
	if code, _, _ := run(t, nil, "convert", "--to", "json", p, "-"); code == exitOK {
		t.Error("convert --to json should fail for dial9")
	}
}

func TestDial9StdinAndPartialDump(t *testing.T) {
	data, err := os.ReadFile(vectortest.Path(t, "dial9", "v0.2.0", "09_concatenated_streams.bin"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, data, "stats", "--json", "-")
	if code != exitOK || !strings.Contains(out, `"events":7`) || !strings.Contains(out, `"streams":4`) {
		t.Errorf("stats from stdin: %d %s", code, out)
	}
	// A damaged file: the events before the damage are printed, exit 0,
	// and the recovery line says what was lost, where and why.
	p := vectortest.Path(t, "dial9", "handmade", "hm05_event_unknown_type_id.bin")
	code, out, errOut := run(t, nil, "dump", p)
	if code != exitOK || strings.Count(out, "\n") != 1 || !strings.Contains(errOut, p+": recovery: read 1 event in 25 bytes; lost 14 bytes and an unknown number of events from offset 25: dial9: offset 25: event with type id 7, which has no schema") {
		t.Errorf("dump of a damaged file: exit %d\n%s\n%s", code, out, errOut)
	}
	// The gzip golden trace dumps through the streaming decoder.
	p = vectortest.Path(t, "dial9", "golden", "demo-trace@6050208.bin.gz")
	code, out, _ = run(t, nil, "dump", "--json", "--type", "SegmentMetadataEvent", p)
	if code != exitOK || !strings.Contains(out, `["service","metrics-service"]`) || strings.Count(out, "\n") != 1 {
		t.Errorf("golden dump: %d %s", code, out)
	}
}

// TestDial9TruncatedSaysWhatWasRead: a stream cut inside a frame fails
// validate at the frame's offset and says how much was read before it and
// what is lost; stats reads the events before it and prints the recovery
// line.
func TestDial9TruncatedSaysWhatWasRead(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.dial9")
	if code, _, errb := run(t, nil, "sample", "dial9", full); code != exitOK {
		t.Fatal(errb)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.dial9")
	if err := os.WriteFile(cut, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run(t, nil, "validate", cut)
	if code != exitInvalid {
		t.Fatalf("validate: exit %d, want %d", code, exitInvalid)
	}
	msg := out + errb
	if !strings.Contains(msg, "offset ") || !strings.Contains(msg, "read before it: ") || !strings.Contains(msg, " events in ") || !strings.Contains(msg, "lost: everything from offset") ||
		!strings.Contains(msg, cut+": recovery: read ") {
		t.Errorf("validate: %q does not say what was read and lost", msg)
	}
	code, out, errb = run(t, nil, "stats", cut)
	if code != exitOK || !strings.Contains(errb, cut+": recovery: read ") || !strings.Contains(errb, "lost 12 bytes and 1 event from offset") ||
		!strings.Contains(out, "recovery: read ") {
		t.Errorf("stats: exit %d\n%s\n%s", code, out, errb)
	}
}
