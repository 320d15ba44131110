package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

func TestCDTDiffJSON(t *testing.T) {
	a := vectortest.Path(t, "cdt", "v7_diverge_A.cdt")
	b := vectortest.Path(t, "cdt", "v7_diverge_B.cdt")
	cases := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"diff", "--json", a, b}, "diff_A_vs_B.json", 1},
		{[]string{"diff", "--json", a, a}, "diff_A_vs_A.json", 0},
		{[]string{"diff", "--json", "--tick-start", "0", "--tick-end", "200", a, b}, "diff_A_vs_B_window_0_200.json", 0},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			code, out, errOut := run(t, nil, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, c.code, errOut)
			}
			if want := vectortest.Read(t, "cdt", c.want); out != string(want) {
				t.Fatalf("output differs from %s:\n%s", c.want, out)
			}
		})
	}
	code, out, _ := run(t, nil, "diff", a, b)
	if code != 1 || !strings.Contains(out, "diverged at tick 237") || !strings.Contains(out, "rng_stream: rng_stream_mismatch") {
		t.Fatalf("text diff: exit %d\n%s", code, out)
	}
}

func TestCDTStatsJSON(t *testing.T) {
	path := vectortest.Path(t, "cdt", "v7_small_300ticks.cdt")
	code, out, errOut := run(t, nil, "stats", "--json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"ticks": 300, "first_tick": 0, "last_tick": 299, "tick_chunks": 2, "schema_version": 7}
	for k, v := range want {
		if st[k] != v {
			t.Errorf("%s = %v, want %v", k, st[k], v)
		}
	}
	if st["format"] != "cdt" {
		t.Errorf("format = %v", st["format"])
	}
}

func TestCDTValidate(t *testing.T) {
	for _, name := range []string{"v7_tiny_3ticks_chunk2.cdt", "v7_tiny_3ticks_chunk2_uncompressed_flags2.cdt", "v7_small_300ticks.cdt"} {
		code, out, errOut := run(t, nil, "validate", vectortest.Path(t, "cdt", name))
		if code != 0 || !strings.HasPrefix(out, "ok") {
			t.Fatalf("%s: exit %d %q %q", name, code, out, errOut)
		}
	}
	errs := map[string]string{
		"bad_magic.cdt":                  "offset 0: unsupported trace magic",
		"format_version_2.cdt":           "offset 23: unsupported trace format version: 2",
		"header_only.cdt":                "invalid trace size",
		"bad_trailer_magic.cdt":          "offset 2522: missing trace trailer",
		"meta_checksum_flipped.cdt":      "offset 51: chunk checksum mismatch",
		"meta_flags_no_msgpack.cdt":      "offset 39: unsupported chunk payload encoding",
		"tick_chunk_payload_bitflip.cdt": "zstd decompression error",
		"schema_version_99.cdt":          "unsupported trace schema version: 99",
	}
	for name, msg := range errs {
		path := vectortest.Path(t, "cdt", "errors", name)
		code, _, errOut := run(t, nil, "validate", path)
		if code != 1 || !strings.HasPrefix(errOut, path+": ") || !strings.Contains(errOut, msg) {
			t.Errorf("%s: exit %d, stderr %q, want %q", name, code, errOut, msg)
		}
	}
}

func TestCDTDump(t *testing.T) {
	path := vectortest.Path(t, "cdt", "v7_small_300ticks.cdt")
	code, out, _ := run(t, nil, "dump", "--from", "tick:10", "--to", "tick:12", path)
	if code != 0 || strings.Count(out, "\n") != 3 || !strings.Contains(out, " counter tick [ticks] tick_index=10 | tick_index=10 ") {
		t.Fatalf("text dump: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, nil, "dump", "--json", "--to", "tick:2", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 {
		t.Fatalf("json dump: exit %d, %d lines", code, len(lines))
	}
	// Each JSON line's args are the tick as the reference's decoded.json
	// holds it (the same values; JSON number spelling may differ).
	var decoded struct {
		Ticks []json.RawMessage `json:"ticks"`
	}
	if err := json.Unmarshal(vectortest.Read(t, "cdt", "v7_small_300ticks.decoded.json"), &decoded); err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		var got struct {
			Record struct {
				TickIndex int `json:"tick_index"`
			} `json:"record"`
			Args map[string]any `json:"args"`
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(decoded.Ticks[i], &want); err != nil {
			t.Fatal(err)
		}
		if got.Record.TickIndex != i || !reflect.DeepEqual(got.Args, want) {
			t.Fatalf("line %d differs from decoded.json", i)
		}
	}
	code, out, _ = run(t, nil, "dump", "--json", "--type", "checkpoint", "--from", "tick:299", path)
	if code != 0 || !strings.HasPrefix(out, `{"tick_index":299,"checkpoint":{"tick_index":299,"rng_state":1462685722`) {
		t.Fatalf("channel dump: exit %d %s", code, out)
	}
	code, out, _ = run(t, nil, "dump", "--type", "chunks", path)
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Fatalf("chunk dump: exit %d %s", code, out)
	}
	// meta and footer print exactly what the reference decodes.
	var whole struct {
		Meta, Footer json.RawMessage
	}
	if err := json.Unmarshal(vectortest.Read(t, "cdt", "v7_small_300ticks.decoded.json"), &whole); err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string]json.RawMessage{"meta": whole.Meta, "footer": whole.Footer} {
		code, out, _ = run(t, nil, "dump", "--type", typ, path)
		if code != 0 || out != string(want)+"\n" {
			t.Fatalf("dump --type %s: exit %d\n%s", typ, code, out)
		}
	}
	for _, bad := range [][]string{{"--type", "nope"}, {"--thread", "1"}, {"--type", "chunks", "--from", "5ms"}} {
		if code, _, errOut := run(t, nil, append(append([]string{"dump"}, bad...), path)...); code != exitUsage {
			t.Errorf("dump %v: exit %d (%s), want 2", bad, code, errOut)
		}
	}
}

func TestCDTConvertChrome(t *testing.T) {
	path := vectortest.Path(t, "cdt", "v7_small_300ticks.cdt")
	out := filepath.Join(t.TempDir(), "trace.json")
	code, _, errOut := run(t, nil, "convert", "--to", "chrome", "--fields", "checkpoint.score_xp,sim_state.players[0].health", path, out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	var score, health int
	last := tr.TraceEvents[0] // the last counter event
	for _, e := range tr.TraceEvents {
		if e.Ph == "C" {
			last = e
		}
		switch e.Name {
		case "checkpoint.score_xp":
			score++
		case "sim_state.players[0].health":
			health++
		}
	}
	if score != 300 || health != 300 || last.Ph != "C" || last.Ts != 4983*1000 {
		t.Fatalf("score %d health %d last %+v", score, health, last)
	}
	if last.Name == "checkpoint.score_xp" && last.Args["value"] != 897.0 {
		t.Fatalf("last score %v", last.Args)
	}
}

func TestCDTSample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.cdt")
	if code, _, errOut := run(t, nil, "sample", "cdt", out); code != 0 {
		t.Fatalf("sample: %s", errOut)
	}
	code, det, _ := run(t, nil, "detect", out)
	if code != 0 || !strings.Contains(det, ": cdt") {
		t.Fatalf("detect: %q", det)
	}
	code, val, _ := run(t, nil, "validate", out)
	if code != 0 || !strings.HasPrefix(val, "ok") {
		t.Fatalf("validate: %q", val)
	}
	data, _ := os.ReadFile(out)
	code, st, _ := run(t, data, "stats", "--json", "-")
	if code != 0 || !strings.Contains(st, `"ticks":40`) {
		t.Fatalf("stats from stdin: %q", st)
	}
	if code, _, _ := run(t, nil, "diff", out, out); code != 0 {
		t.Fatalf("self diff exit %d", code)
	}
	if !bytes.HasPrefix(data, []byte("crimson_debug_trace_v1\n")) {
		t.Fatal("sample lacks the magic")
	}
}

func TestCDTValidateTruncated(t *testing.T) {
	data := vectortest.Read(t, "cdt", "v7_small_300ticks.cdt")
	path := filepath.Join(t.TempDir(), "cut.cdt")
	if err := os.WriteFile(path, data[:54104], 0o644); err != nil { // cut at the FOTR chunk
		t.Fatal(err)
	}
	code, _, errOut := run(t, nil, "validate", path)
	if code != 1 || !strings.Contains(errOut, "missing trace trailer") || !strings.Contains(errOut, "recovers 300 ticks in 2 complete chunks") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut := run(t, nil, "stats", "--json", path)
	if code != 0 || !strings.Contains(out, `"ticks":300,"first_tick":0,"last_tick":299,"tick_chunks":2,"schema_version":7`) ||
		!strings.Contains(out, `"recovered":true`) {
		t.Fatalf("stats of a cut trace: exit %d %s %s", code, out, errOut)
	}
}
