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

// inspectGolden reads a golden object of cdt/schema7/testdata/inspect (derived
// from the vectors' decoded JSON by the script there).
func inspectGolden(t *testing.T, name string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "cdt", "schema7", "testdata", "inspect", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, b)
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// TestInspectJSON: --json prints the reference's object (one line, sorted
// keys, as its CLI prints it) equal to the golden objects.
func TestInspectJSON(t *testing.T) {
	small := vectortest.Path(t, "cdt", "v7_small_300ticks.cdt")
	a := vectortest.Path(t, "cdt", "v7_diverge_A.cdt")
	b := vectortest.Path(t, "cdt", "v7_diverge_B.cdt")
	cases := []struct {
		golden string
		code   int
		args   []string
	}{
		{"tick_small_299", 0, []string{"tick", "--json", small, "299"}},
		{"tick_B_237", 0, []string{"tick", b, "237", "--json"}},
		{"entity_small_3_100..110", 0, []string{"entity", "--json", "--ticks", "100..110", small, "3"}},
		{"entity_small_21_..4", 0, []string{"entity", "--json", "--ticks", "..4", small, "21"}},
		{"query_small_00", 0, []string{"query", "--json", "--limit", "3", small, "ticks where checkpoint.kills > prev(checkpoint.kills)"}},
		{"query_small_10", 0, []string{"query", "--json", "--limit=3", small, "entities where hp < 14.5"}},
		{"focus_A_B_237", 1, []string{"focus", "--json", "--tick", "237", a, b}},
		{"focus_A_B_100", 0, []string{"focus", "--json", "--tick", "100", a, b}},
	}
	for _, c := range cases {
		code, out, errOut := run(t, nil, c.args...)
		if code != c.code || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q", c.args[:2], code, errOut)
			continue
		}
		if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, `{"`) {
			t.Errorf("%v: not one JSON line: %.80s", c.args[:2], out)
		}
		if !reflect.DeepEqual(decodeJSON(t, []byte(out)), inspectGolden(t, c.golden)) {
			t.Errorf("%v: differs from %s:\n%.400s", c.args[:2], c.golden, out)
		}
	}
	// Sorted keys, json.dumps(sort_keys=True) separators.
	_, out, _ := run(t, nil, "tick", "--json", small, "0")
	if !strings.HasPrefix(out, `{"checkpoint": {"bonus_timers": {"11": 0, "2": 0, "4": 5000,`) {
		t.Errorf("tick --json layout: %.80s", out)
	}
}

func TestInspectText(t *testing.T) {
	small := vectortest.Path(t, "cdt", "v7_small_300ticks.cdt")
	a := vectortest.Path(t, "cdt", "v7_diverge_A.cdt")
	b := vectortest.Path(t, "cdt", "v7_diverge_B.cdt")
	cases := []struct {
		code  int
		args  []string
		wants []string
	}{
		{0, []string{"tick", b, "237"}, []string{
			"tick 237  elapsed_ms=3950 dt_ms_i32=16 mode_id=1 phase_markers=[]\n",
			"rng_state=1195886757", "entity_counts  creatures=3 projectiles=1 secondary_projectiles=0 bonuses=0\n",
			"rows  rng_stream=3 timing_samples=1\n", "events  total=2  hit_count:1 sfx_count:1 pickup_count:0\n"}},
		{0, []string{"entity", "--ticks", "100..101", small, "3"}, []string{
			"uid 3  pool_kind=bonus spawn_tick=100 despawn_tick=101 samples=2\n",
			"tick 101  bonus index=3 generation=2 bonus_id=4 picked=false"}},
		{0, []string{"query", small, "ticks where checkpoint.kills > prev(checkpoint.kills)"}, []string{
			"ticks where checkpoint.kills > prev(checkpoint.kills): 7 matches\n",
			"tick 41  checkpoint.kills=1 > prev(checkpoint.kills)=0\n", "tick 287  "}},
		{0, []string{"query", "--limit", "1", small, "entities where hp < 14.5"}, []string{
			"entities where hp < 14.5: 54 matches (first 1 shown)\n", "tick 18  creature uid=1  hp=13.0 < 14.5\n"}},
		{0, []string{"query", small, "ticks where tick_index == 1000"}, []string{"ticks where tick_index == 1000: 0 matches\n"}},
		{1, []string{"focus", "--tick", "237", a, b}, []string{
			"tick 237: diverged\n",
			"checkpoint      differs (3 field differences): events.hit_head[0].origin.x, players[0].pos.x, rng_state\n",
			"rng_stream      differs: prefix_match_len=2 expected_calls=2 actual_calls=3 missing_tail=0 extra_tail=1\n",
			"timing_samples  differs (1 vs 1 rows): timing_samples[0].frame_dt_ms_f32\n",
			"creatures              uids 3 vs 3\n"}},
		{0, []string{"focus", "--tick", "236", a, b}, []string{"tick 236: ok, every channel agrees\n", "sim_state       ok\n"}},
	}
	for _, c := range cases {
		code, out, errOut := run(t, nil, c.args...)
		if code != c.code || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
		}
		for _, w := range c.wants {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

// TestInspectExitCodes: not found and unreadable traces exit 1 with the
// reference's message, usage and parse errors exit 2.
func TestInspectExitCodes(t *testing.T) {
	small := vectortest.Path(t, "cdt", "v7_small_300ticks.cdt")
	tiny := vectortest.Path(t, "cdt", "v7_tiny_3ticks_chunk2.cdt")
	bad := vectortest.Path(t, "cdt", "errors", "bad_magic.cdt")
	cases := []struct {
		code int
		args []string
		want string
	}{
		{1, []string{"tick", small, "300"}, "schema7: tick 300 not found"},
		{1, []string{"entity", "--ticks", "0..50", small, "999"}, "schema7: entity uid 999 not found in requested range"},
		{1, []string{"focus", "--tick", "5", small, tiny}, "schema7: tick 5 missing in one of the traces"},
		{1, []string{"tick", bad, "0"}, "bad_magic.cdt"},
		{1, []string{"query", bad, "ticks where a == 1"}, "bad_magic.cdt"},
		{2, []string{"query", small, "ticks where kills 5"}, "position 13: expression condition must use one of: == != >= <= > <\n  ticks where kills 5\n              ^\n"},
		{2, []string{"query", small, "tics where a == 1"}, "position 1: expression must start with"},
		{2, []string{"query", small, "ticks where prev() == 1"}, "position 13: empty prev(...) field path"},
		{2, []string{"query", "--limit", "0", small, "ticks where a == 1"}, "--limit must be at least 1"},
		{2, []string{"query", small}, "usage: tracecat query"},
		{2, []string{"entity", "--ticks", "5..3", small, "1"}, "invalid tick range '5..3': start > end"},
		{2, []string{"entity", small, "x"}, "UID: not an integer"},
		{2, []string{"tick", small, "1.5"}, "TICK: not an integer"},
		{2, []string{"focus", small, small}, "--tick is required"},
		{2, []string{"focus", "--tick", "x", small, small}, "--tick"},
	}
	for _, c := range cases {
		code, out, errOut := run(t, nil, c.args...)
		if code != c.code || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errOut, c.code, c.want)
		}
	}
	if code, out, _ := run(t, nil, "focus", "--tick", "2", tiny, tiny); code != 0 || !strings.Contains(out, "ok") {
		t.Errorf("focus of a trace with itself: exit %d %q", code, out)
	}
}

// TestInspectStdin: the trace may come from standard input.
func TestInspectStdin(t *testing.T) {
	data := vectortest.Read(t, "cdt", "v7_tiny_3ticks_chunk2.cdt")
	code, out, errOut := run(t, data, "tick", "-", "2")
	if code != 0 || !strings.HasPrefix(out, "tick 2  elapsed_ms=33 ") {
		t.Errorf("tick from stdin: exit %d %q %q", code, out, errOut)
	}
}
