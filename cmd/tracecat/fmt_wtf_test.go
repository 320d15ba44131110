package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

func TestWTFValidateVectors(t *testing.T) {
	dir := vectortest.Dir(t, "wtf")
	cases := map[string]string{
		"api_public.wtf-trace":                 "ok (3 chunks, 65 events)",
		"api_public_json.wtf-json":             "ok (3 chunks, 65 events)",
		"det_resources.wtf-trace":              "ok (2 chunks, 39 events)",
		"mutated/unknown_chunk_type.wtf-trace": "ok (3 chunks, 39 events; skipped 1 chunks and 0 parts of unknown types)",
		"mutated/legacy_v3_handmade.wtf-trace": "ok (2 chunks, 2 events)",
		"mutated/header_only.wtf-trace":        "ok (0 chunks, 0 events)",
		"mutated/bad_magic.wtf-trace":          "offset 0: file magic bytes mismatch",
		"mutated/truncated_chunk.wtf-trace":    "offset 444: the file is torn; 1 chunks, 0 events recoverable: chunk 101 at offset 444 is torn: 64 of its 2452 bytes present",
		"mutated/undefined_wire_id.wtf-trace":  "offset 2416: undefined event type 999",
	}
	for rel, want := range cases {
		p := filepath.Join(dir, rel)
		code, out, errOut := run(t, nil, "validate", p)
		if strings.HasPrefix(want, "ok") {
			if code != exitOK || strings.TrimSpace(out) != want+"; a crash could lose without a trace: "+inspect.CrashLoss(events.FormatWTF) {
				t.Errorf("%s: exit %d out %q err %q", rel, code, out, errOut)
			}
		} else if code != exitInvalid || !strings.HasPrefix(errOut, p+": "+want) {
			t.Errorf("%s: exit %d err %q, want %q", rel, code, errOut, want)
		}
	}
}

func wtfStatsJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	code, out, errOut := run(t, nil, "stats", "--json", path)
	if code != exitOK {
		t.Fatalf("stats %s: exit %d: %s", path, code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return m
}

func TestWTFStatsVectors(t *testing.T) {
	dir := vectortest.Dir(t, "wtf")
	apiByName := map[string]float64{"wtf.event#define": 28, "wtf.zone#create": 3, "wtf.zone#set": 3, "vec.test#allScalars": 6,
		"vec.test#allArrays": 4, "vec.test#aliases": 1, "vec.test#noArgs": 2, "vec.test#myScope": 1, "wtf.scope#enter": 2,
		"wtf.scope#appendData": 4, "wtf.scope#leave": 3, "wtf.trace#mark": 1, "wtf.trace#timeStamp": 1, "wtf.timeRange#begin": 1,
		"wtf.timeRange#end": 1, "wtf.flow#branch": 1, "wtf.flow#extend": 1, "wtf.flow#appendData": 1, "wtf.flow#terminate": 1}
	detByName := map[string]float64{"wtf.event#define": 22, "wtf.zone#create": 1, "wtf.zone#set": 1, "det#scalars": 2, "det#arrays": 2,
		"det#scope": 1, "wtf.scope#enter": 1, "wtf.scope#appendData": 1, "wtf.scope#leave": 2, "wtf.trace#mark": 1,
		"wtf.trace#timeStamp": 1, "wtf.timeRange#begin": 1, "wtf.timeRange#end": 1, "det#resourceRef": 2}
	cases := []struct {
		rel                   string
		chunks, events, zones float64
		byName                map[string]float64
	}{
		{"api_public.wtf-trace", 3, 65, 2, apiByName},
		{"api_public_json.wtf-json", 3, 65, 2, apiByName},
		{"det_resources.wtf-trace", 2, 39, 1, detByName},
		{"mutated/unknown_chunk_type.wtf-trace", 3, 39, 1, detByName},
		{"mutated/legacy_v3_handmade.wtf-trace", 2, 2, 1, map[string]float64{"wtf.event#define": 1, "legacy#ev": 1}},
		{"mutated/header_only.wtf-trace", 0, 0, 0, map[string]float64{}},
	}
	for _, c := range cases {
		m := wtfStatsJSON(t, filepath.Join(dir, c.rel))
		if m["format"] != "wtf" || m["chunks"] != c.chunks || m["events"] != c.events || m["zones"] != c.zones {
			t.Errorf("%s: %v", c.rel, m)
		}
		got := map[string]float64{}
		for k, v := range m["events_by_name"].(map[string]any) {
			got[k] = v.(float64)
		}
		if len(got) != len(c.byName) {
			t.Errorf("%s: events_by_name %v", c.rel, got)
		}
		for k, v := range c.byName {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", c.rel, k, got[k], v)
			}
		}
	}
}

func TestWTFDumpFilters(t *testing.T) {
	p := vectortest.Path(t, "wtf", "det_resources.wtf-trace")
	code, out, _ := run(t, nil, "dump", "--json", "--name", "det#scalars", p)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 2 {
		t.Fatalf("exit %d: %q", code, out)
	}
	var ev struct {
		Record    struct{ Chunk int } `json:"record"`
		TrackName string              `json:"track_name"`
		Name      string              `json:"name"`
		TsNs      int                 `json:"ts_ns"`
		Args      map[string]any      `json:"args"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Record.Chunk != 101 || ev.TrackName != "Script" || ev.TsNs != 1500_000 || ev.Args["a"] != "ascii str" || ev.Args["u32"] != 4276993775.0 {
		t.Errorf("%+v", ev)
	}
	api := vectortest.Path(t, "wtf", "api_public.wtf-trace")
	if code, out, _ := run(t, nil, "dump", "--thread", "Worker Zone", api); code != exitOK || strings.Count(out, "\n") != 3 {
		// zone#set(2) (a set belongs to the zone it selects), scope enter, leave
		t.Errorf("--thread: %q", out)
	}
	// --from/--to are ns, as ts_ns prints them (the file counts µs).
	code, out, _ = run(t, nil, "dump", "--from", "6ms", "--to", "7_500_000", p)
	if n := strings.Count(out, "\n"); code != exitOK || n != 4 { // mark, timeStamp, timeRange begin/end
		t.Errorf("exit %d, %d lines: %s", code, n, out)
	}
	if !strings.Contains(out, `6000000 instant wtf.trace#mark [Script] chunk=101 offset=2768 wire_id=14 type="wtf.trace#mark" | name="a mark" value={"m":true}`) {
		t.Errorf("text dump: %s", out)
	}
	if _, out, _ = run(t, nil, "dump", "--from", "6000", "--to", "7500", p); out != "" {
		t.Errorf("µs values taken as ns must select nothing here: %s", out)
	}
}

func TestWTFConvertRoundTrips(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"api_public.wtf-trace", "det_resources.wtf-trace"} {
		p := vectortest.Path(t, "wtf", rel)
		orig, _ := os.ReadFile(p)
		js := filepath.Join(dir, rel+".wtf-json")
		bin := filepath.Join(dir, rel+".back.wtf-trace")
		if code, _, e := run(t, nil, "convert", "--to", "json", p, js); code != exitOK {
			t.Fatal(e)
		}
		if code, out, _ := run(t, nil, "detect", js); code != exitOK || !strings.HasSuffix(out, ": wtf (json)\n") {
			t.Errorf("detect %s", out)
		}
		if code, _, e := run(t, nil, "convert", "--to", "binary", js, bin); code != exitOK {
			t.Fatal(e)
		}
		back, _ := os.ReadFile(bin)
		if !bytes.Equal(back, orig) {
			t.Errorf("%s: binary → json → binary is not byte-identical", rel)
		}
		// JSON event encoding and back.
		ev := filepath.Join(dir, rel+".events.wtf-json")
		bin2 := filepath.Join(dir, rel+".events.wtf-trace")
		if code, _, e := run(t, nil, "convert", "--to", "json-events", p, ev); code != exitOK {
			t.Fatal(e)
		}
		if b, _ := os.ReadFile(ev); !bytes.Contains(b, []byte(`"json_event_buffer","events":[`)) {
			t.Errorf("no JSON events")
		}
		// The JSON events are decoded directly too.
		if m1, m2 := wtfStatsJSON(t, p), wtfStatsJSON(t, ev); m1["events"] != m2["events"] || m1["scopes"] != m2["scopes"] || m2["events"] == 0.0 {
			t.Errorf("stats of the JSON-events file: %v vs %v", m2, m1)
		}
		if code, _, e := run(t, nil, "convert", "--to", "binary", ev, bin2); code != exitOK {
			t.Fatal(e)
		}
		_, d1, _ := run(t, nil, "dump", "--json", p)
		_, d2, _ := run(t, nil, "dump", "--json", bin2)
		strip := func(s string) string { // offsets differ: strings are de-duplicated
			var b strings.Builder
			for _, l := range strings.Split(s, "\n") {
				if i := strings.Index(l, `,"kind"`); i >= 0 {
					l = l[i:] // after the record object
				}
				b.WriteString(l + "\n")
			}
			return b.String()
		}
		if strip(d1) != strip(d2) || d1 == "" {
			t.Errorf("%s: events differ after json-events → binary", rel)
		}
	}
	// Legacy input converts to a binary CFF file with the same events.
	leg := vectortest.Path(t, "wtf", "mutated/legacy_v3_handmade.wtf-trace")
	out := filepath.Join(dir, "legacy.wtf-trace")
	if code, _, e := run(t, nil, "convert", "--to", "binary", leg, out); code != exitOK {
		t.Fatal(e)
	}
	m := wtfStatsJSON(t, out)
	if m["container"] != "binary" || m["events"] != 2.0 || m["first_us"] != 1500.0 {
		t.Errorf("legacy → binary: %v", m)
	}
	if code, _, _ := run(t, nil, "convert", "--to", "plain", leg, out); code != exitUsage {
		t.Errorf("unknown target accepted")
	}
}

func TestWTFConvertChrome(t *testing.T) {
	p := vectortest.Path(t, "wtf", "api_public.wtf-trace")
	code, out, e := run(t, nil, "convert", "--to", "chrome", p, "-")
	if code != exitOK {
		t.Fatal(e)
	}
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Tid  int            `json:"tid"`
			Ts   float64        `json:"ts"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	depth := map[int]int{}
	threads := map[string]bool{}
	var ranges, myScope []string
	for _, ev := range doc.TraceEvents {
		switch ev.Ph {
		case "B":
			depth[ev.Tid]++
		case "E":
			depth[ev.Tid]--
			if depth[ev.Tid] < 0 {
				t.Fatalf("unbalanced E at %v", ev.Ts)
			}
		case "M":
			threads[ev.Args["name"].(string)] = true
		}
		if ev.Ph == "E" && ev.Ts == 26000-2250 && (ev.Args["n"] != 123.0 || ev.Args["s"] != "text") {
			t.Errorf("appended scope data not on the E event: %+v", ev)
		}
		if ev.Name == "wtf.scope#appendData" {
			t.Errorf("scope data emitted as an instant")
		}
		if ev.Ph == "b" || ev.Ph == "e" {
			ranges = append(ranges, ev.Ph+ev.Name)
		}
		if ev.Name == "vec.test#myScope" {
			// The E is named as its B (speedscope needs it to close the slice).
			myScope = append(myScope, fmt.Sprintf("%s@%v", ev.Ph, ev.Ts))
		}
	}
	for tid, d := range depth {
		if d != 0 {
			t.Errorf("tid %d: %d scopes left open", tid, d)
		}
	}
	if strings.Join(myScope, ",") != "B@16250,E@25000" {
		t.Errorf("myScope: %v", myScope)
	}
	if strings.Join(ranges, ",") != "brange,erange" {
		t.Errorf("time ranges %v", ranges)
	}
	if !threads["Script"] || !threads["Worker Zone"] {
		t.Errorf("threads %v", threads)
	}
}

func TestWTFSampleAndDamaged(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.wtf-trace")
	if code, _, e := run(t, nil, "sample", "wtf", p); code != exitOK {
		t.Fatal(e)
	}
	if code, out, _ := run(t, nil, "validate", p); code != exitOK || !strings.HasPrefix(out, "ok (2 chunks") {
		t.Errorf("validate sample: %q", out)
	}
	if m := wtfStatsJSON(t, p); m["zones"] != 2.0 || m["scopes"] != 40.0 {
		t.Errorf("sample stats %v", m)
	}
	bad := filepath.Join(dir, "bad.wtf-trace")
	os.WriteFile(bad, []byte("not a trace at all, but named like one"), 0o644)
	if _, out, _ := run(t, nil, "detect", bad); out != bad+": wtf (magic not recognised)\n" {
		t.Errorf("detect %q", out)
	}
	if code, _, e := run(t, nil, "validate", bad); code != exitInvalid || !strings.Contains(e, "offset 0: file magic bytes mismatch") {
		t.Errorf("validate damaged: %d %q", code, e)
	}
	// Standard input works too.
	data, _ := os.ReadFile(p)
	if code, out, _ := run(t, data, "stats", "--json", "-"); code != exitOK || !strings.Contains(out, `"chunks":2`) {
		t.Errorf("stdin: %q", out)
	}
}

// TestWTFTornFile: a trace whose last chunk is cut inside its event buffer
// (a writer killed mid-write). validate fails and says what is recoverable;
// stats, dump and convert read it and say what was lost.
func TestWTFTornFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.wtf-trace")
	if code, _, e := run(t, nil, "sample", "wtf", p); code != exitOK {
		t.Fatal(e)
	}
	data, _ := os.ReadFile(p)
	whole := wtfStatsJSON(t, p)
	torn := filepath.Join(dir, "torn.wtf-trace")
	os.WriteFile(torn, data[:len(data)-101], 0o644)
	code, _, errOut := run(t, nil, "validate", torn)
	if code != exitInvalid || !strings.Contains(errOut, "the file is torn; 2 chunks,") || !strings.Contains(errOut, "events recoverable: chunk 2 at offset") ||
		!strings.Contains(errOut, "salvaged 2 parts and") {
		t.Errorf("validate: %d %q", code, errOut)
	}
	m := wtfStatsJSON(t, torn)
	events := m["events"].(float64)
	if m["recovered"] != true || events <= 0 || events >= whole["events"].(float64) || m["lost_bytes"].(float64) < 101 ||
		!strings.Contains(fmt.Sprint(m["recovery"].(map[string]any)["reason"]), "the event buffer is cut") || whole["recovered"] != false {
		t.Errorf("stats: %v", m)
	}
	code, out, warn := run(t, nil, "dump", torn)
	if lines := strings.Count(out, "\n"); code != exitOK || float64(lines) != events || !strings.Contains(warn, torn+": recovery: read ") {
		t.Errorf("dump: %d, %d lines for %v events, warning %q", code, lines, events, warn)
	}
	for _, to := range []string{"binary", "json", "json-events", "chrome"} {
		conv := filepath.Join(dir, "conv."+to)
		code, _, e := run(t, nil, "convert", "--to", to, torn, conv)
		if code != exitOK || !strings.Contains(e, torn+": recovery: read ") || !strings.Contains(e, "lost") {
			t.Fatalf("convert %s: %d %q", to, code, e)
		}
		if to == "chrome" {
			continue
		}
		if m := wtfStatsJSON(t, conv); m["events"] != events || m["recovered"] != false {
			t.Errorf("convert %s: the result has %v events, want %v (%v)", to, m["events"], events, m)
		}
	}
}
