package schema7

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/cdt"
)

// traceOf writes ticks [from, to] of DemoTick(seed 5), each passed through
// edit, and opens the result. channels, when non-nil, replaces meta.channels.
func traceOf(t *testing.T, from, to int64, channels []string, edit func(*TickRecord)) *cdt.File {
	t.Helper()
	meta := NewTraceMeta("x", nil, nil, nil, from, to, to-from+1)
	if channels != nil {
		meta.Channels = channels
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &meta, cdt.WithChunkTicks(7))
	if err != nil {
		t.Fatal(err)
	}
	for tick := from; tick <= to; tick++ {
		rec := DemoTick(tick, 5)
		if edit != nil {
			edit(&rec)
		}
		if err := w.Append(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := cdt.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func detailOf(t *testing.T, c ChannelMismatch) map[string]any {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal(c.DetailJSON(), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDiffMissingTick(t *testing.T) {
	a := traceOf(t, 0, 20, nil, nil)
	b := traceOf(t, 0, 15, nil, nil)
	rep, err := Diff(a, b, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatch == nil || rep.Mismatch.Kind != "missing_tick" || rep.Mismatch.TickIndex != 16 || rep.CheckedCount != 17 {
		t.Fatalf("shorter actual: %s", rep.JSON())
	}
	if !strings.Contains(string(rep.JSON()), `"detail": null`) {
		t.Fatalf("missing_tick detail must be null: %s", rep.JSON())
	}
	// Symmetric: the later-starting trace diverges at the other's first tick.
	c := traceOf(t, 3, 20, nil, nil)
	rep, _ = Diff(c, a, DiffOptions{})
	if rep.Mismatch.Kind != "missing_tick" || rep.Mismatch.TickIndex != 0 || rep.CheckedCount != 1 {
		t.Fatalf("later start: %s", rep.JSON())
	}
	// The window excludes the missing ticks.
	rep, _ = Diff(a, b, DiffOptions{TickEnd: i64(15)})
	if rep.Diverged() || rep.CheckedCount != 16 {
		t.Fatalf("window: %s", rep.JSON())
	}
}

func TestDiffMissingChannel(t *testing.T) {
	a := traceOf(t, 0, 3, nil, nil)
	b := traceOf(t, 0, 3, []string{"checkpoint", "sim_state", "entity_samples", "timing_samples"}, nil)
	rep, err := Diff(a, b, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"missing_channel","tick_index":-1,"detail":{"channel":"rng_stream","expected_has":true,"actual_has":false}}`
	got, _ := rep.MarshalJSON()
	if rep.CheckedCount != 0 || !strings.Contains(string(got), want) {
		t.Fatalf("got %s", got)
	}
}

func TestDiffEntities(t *testing.T) {
	a := traceOf(t, 0, 9, nil, nil)
	b := traceOf(t, 0, 9, nil, func(r *TickRecord) {
		if r.TickIndex == 4 { // creatures 0..3 → drop uid 1, add uid 7, duplicate uid 3
			cs := r.Channels.EntitySamples.Creatures
			extra := cs[0]
			extra.UID = 7
			dup := cs[3]
			dup.HP = 1
			r.Channels.EntitySamples.Creatures = []CreatureEntitySample{cs[0], cs[2], cs[3], extra, dup}
		}
	})
	rep, err := Diff(a, b, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatch == nil || rep.Mismatch.TickIndex != 4 || len(rep.Mismatch.Channels) != 1 {
		t.Fatalf("%s", rep.JSON())
	}
	d := detailOf(t, rep.Mismatch.Channels[0])
	want := map[string]string{
		"creatures_count":          `{"actual":5,"expected":4}`,
		"creatures_duplicate_uids": `{"actual":[3],"expected":[]}`,
		"creatures_uids":           `{"extra":[7],"missing":[1]}`,
	}
	for k, v := range want {
		got, _ := json.Marshal(d[k])
		if string(got) != v {
			t.Errorf("%s = %s, want %s", k, got, v)
		}
	}
	// uid 3 keeps its last row (hp 1) and is reported under row_diffs.
	rows, _ := d["row_diffs"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["path"] != "entity_samples.creatures[uid=3]" {
		t.Fatalf("row_diffs %v", d["row_diffs"])
	}
}

func TestDiffStrictKinds(t *testing.T) {
	a := traceOf(t, 0, 5, nil, nil)
	b := traceOf(t, 0, 5, nil, func(r *TickRecord) {
		if r.TickIndex != 2 {
			return
		}
		c := &r.Channels
		c.TimingSamples = append(c.TimingSamples, NewTimingSampleRow())
		c.TimingSamples[0].FrameDtMsF32 = NullFloat{}
		c.Checkpoint.BonusTimers = c.Checkpoint.BonusTimers[:4]
		c.Checkpoint.BonusTimers[0].Value = 9
		c.SimState.Players = nil
	})
	rep, err := Diff(a, b, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Mismatch
	if m == nil || m.TickIndex != 2 {
		t.Fatalf("%s", rep.JSON())
	}
	var chans []string
	for _, c := range m.Channels {
		chans = append(chans, c.Channel)
	}
	if !slices.Equal(chans, []string{"checkpoint", "sim_state", "timing_samples"}) {
		t.Fatalf("channels %v", chans)
	}
	cp := detailOf(t, m.Channels[0])
	mm := cp["payload"].(map[string]any)["mismatches"].([]any)
	got := func(i int) string { b, _ := json.Marshal(mm[i]); return string(b) }
	if len(mm) != 2 || got(0) != `{"actual":null,"expected":0,"kind":"missing_actual","path":"bonus_timers[\"11\"]"}` ||
		got(1) != `{"actual":9,"expected":0,"kind":"value_mismatch","path":"bonus_timers[\"4\"]"}` {
		t.Fatalf("checkpoint mismatches %v", mm)
	}
	ss := detailOf(t, m.Channels[1])["mismatches"].([]any)
	if b, _ := json.Marshal(ss[0]); !strings.Contains(string(b), `"kind":"length_mismatch","path":"sim_state.players"`) || len(ss) != 2 ||
		ss[1].(map[string]any)["kind"] != "missing_actual" {
		t.Fatalf("sim_state %v", ss)
	}
	ts := detailOf(t, m.Channels[2])["mismatches"].([]any)
	kinds := []string{}
	for _, x := range ts {
		kinds = append(kinds, x.(map[string]any)["kind"].(string)+" "+x.(map[string]any)["path"].(string))
	}
	want := []string{"length_mismatch timing_samples", "type_mismatch timing_samples[0].frame_dt_ms_f32", "missing_expected timing_samples[1]"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("timing %v", kinds)
	}
	if tm := ts[1].(map[string]any); tm["expected"] != "float" || tm["actual"] != "NoneType" {
		t.Fatalf("type_mismatch values %v", tm)
	}
}

var tenth = 0.1

func TestPrettyFloatRepr(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{{75, "75.0"}, {442.9349, "442.9349"}, {1e16, "1e+16"}, {1.5e-5, "1.5e-05"}, {0.0001, "0.0001"}, {math.Copysign(0, -1), "-0.0"},
		{123456789012345678, "1.2345678901234568e+17"}, {9007199254740993, "9007199254740992.0"}, {tenth + 0.2, "0.30000000000000004"}, {math.NaN(), "NaN"}} {
		if got := string(AppendJSON(nil, Float(c.f))); got != c.want {
			t.Errorf("%v → %s, want %s", c.f, got, c.want)
		}
	}
}
