package schema7

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestParseTickRange(t *testing.T) {
	const lo, hi = math.MinInt64, math.MaxInt64
	ok := map[string][2]int64{
		"":                        {lo, hi},
		"  ":                      {lo, hi},
		"5":                       {5, 5},
		" 7 ":                     {7, 7},
		"1_000":                   {1000, 1000},
		"+3":                      {3, 3},
		"-2..4":                   {-2, 4},
		"3..":                     {3, hi},
		"..9":                     {lo, 9},
		"..":                      {lo, hi},
		" 1 .. 2 ":                {1, 2},
		"4..4":                    {4, 4},
		"007..":                   {7, hi},
		"..999999999999999999999": {lo, hi}, // beyond int64: clamped
	}
	for s, want := range ok {
		from, to, err := ParseTickRange(s)
		if err != nil || from != want[0] || to != want[1] {
			t.Errorf("ParseTickRange(%q) = %d, %d, %v; want %v", s, from, to, err, want)
		}
	}
	bad := map[string]string{
		"5..3":    "schema7: invalid tick range '5..3': start > end",
		"x":       "schema7: invalid literal for int() with base 10: 'x'",
		"1..2..3": "schema7: invalid literal for int() with base 10: '2..3'",
		"1_":      "schema7: invalid literal for int() with base 10: '1_'",
		"--1":     "schema7: invalid literal for int() with base 10: '--1'",
		"0x10":    "schema7: invalid literal for int() with base 10: '0x10'",
	}
	for s, want := range bad {
		_, _, err := ParseTickRange(s)
		if err == nil || err.Error() != want || !errors.Is(err, ErrTickRange) {
			t.Errorf("ParseTickRange(%q) error %v, want %q", s, err, want)
		}
	}
}

func TestInspectNotFound(t *testing.T) {
	r := traceOf(t, 3, 9, nil, nil)
	if _, err := Tick(r, 10); !errors.Is(err, ErrNotFound) || err.Error() != "schema7: tick 10 not found" {
		t.Errorf("Tick: %v", err)
	}
	if _, err := Entity(r, 11, 20, 30); !errors.Is(err, ErrNotFound) || err.Error() != "schema7: entity uid 11 not found in requested range" {
		t.Errorf("Entity: %v", err)
	}
	if _, err := Entity(r, 77, math.MinInt64, math.MaxInt64); !errors.Is(err, ErrNotFound) {
		t.Errorf("Entity of an absent uid: %v", err)
	}
	other := traceOf(t, 0, 5, nil, nil)
	if _, err := Focus(r, other, 7); !errors.Is(err, ErrNotFound) || err.Error() != "schema7: tick 7 missing in one of the traces" {
		t.Errorf("Focus: %v", err)
	}
	if _, err := Focus(other, r, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("Focus, golden side: %v", err)
	}
}

func TestEntityAcrossPools(t *testing.T) {
	// uid 2 is the bonus on every tick and creature 2 on ticks with t%5 ≥ 3.
	r := traceOf(t, 0, 9, nil, nil)
	h, err := Entity(r, 2, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var ticks []int64
	for _, s := range h.Samples {
		kinds = append(kinds, s.PoolKind())
		ticks = append(ticks, s.TickIndex)
	}
	wantTicks := []int64{2, 3, 3, 4, 4, 5, 6, 7, 8, 8}
	if h.PoolKind != "bonus" || h.SpawnTick != 2 || h.DespawnTick != 8 || len(ticks) != len(wantTicks) {
		t.Fatalf("history %s %d..%d, ticks %v kinds %v", h.PoolKind, h.SpawnTick, h.DespawnTick, ticks, kinds)
	}
	for i := range wantTicks {
		if ticks[i] != wantTicks[i] {
			t.Fatalf("ticks %v, want %v", ticks, wantTicks)
		}
	}
	if kinds[1] != "creature" || kinds[2] != "bonus" {
		t.Errorf("pools in a tick are in creatures…bonuses order: %v", kinds)
	}
	var obj struct {
		Samples []map[string]any `json:"samples"`
	}
	if err := json.Unmarshal(h.JSON(), &obj); err != nil {
		t.Fatal(err)
	}
	if obj.Samples[1]["hp"] == nil || obj.Samples[1]["tick_index"].(float64) != 3 {
		t.Errorf("creature sample %v", obj.Samples[1])
	}
	// Samples are copies: they do not change when later rows are decoded.
	if h.Samples[0].Bonus == nil || h.Samples[0].Bonus.TimeLeft != 8 {
		t.Errorf("first sample %+v", h.Samples[0].Bonus)
	}
}

// TestFocusPresence checks the uid presence of each pool, the cap of 32
// uids per list and the ok flags of equal channels.
func TestFocusPresence(t *testing.T) {
	a := traceOf(t, 0, 4, nil, nil)
	b := traceOf(t, 0, 4, nil, func(rec *TickRecord) {
		if rec.TickIndex != 3 {
			return
		}
		s := &rec.Channels.EntitySamples
		proto := s.Creatures[0]
		for u := range 40 { // uids 100..139 are extra
			c := proto
			c.UID = Int(100 + u)
			s.Creatures = append(s.Creatures, c)
		}
		s.Projectiles = nil                         // uid 11 is missing
		s.Bonuses = append(s.Bonuses, s.Bonuses[0]) // a duplicate: the uid set is unchanged
	})
	rep, err := Focus(a, b, 3)
	if err != nil {
		t.Fatal(err)
	}
	c, p, bo := rep.EntityPresence[0], rep.EntityPresence[1], rep.EntityPresence[3]
	if !rep.Diverged || c.ExpectedCount != 3 || c.CandidateCount != 43 || len(c.ExtraUIDs) != 32 || c.ExtraUIDs[0] != 100 || c.ExtraUIDs[31] != 131 || len(c.MissingUIDs) != 0 {
		t.Errorf("creatures %+v", c)
	}
	if p.ExpectedCount != 1 || p.CandidateCount != 0 || len(p.MissingUIDs) != 1 || p.MissingUIDs[0] != 11 || !p.Diverged {
		t.Errorf("projectiles %+v", p)
	}
	if bo.ExpectedCount != 1 || bo.CandidateCount != 1 || bo.Diverged {
		t.Errorf("bonuses %+v", bo)
	}
	if !rep.RngOK || !rep.SimStateOK || !rep.TimingSamplesOK || rep.EntitySamplesOK || rep.CheckpointDiffCount != 0 {
		t.Errorf("flags %+v", rep)
	}
	var obj map[string]any
	if err := json.Unmarshal(rep.JSON(), &obj); err != nil {
		t.Fatal(err)
	}
	if obj["checkpoint_diff"] != nil || obj["rng_stream"].(map[string]any)["ok"] != true ||
		obj["sim_state"].(map[string]any)["detail"] != nil || obj["entity_samples"].(map[string]any)["detail"] == nil {
		t.Errorf("report %s", rep.JSON())
	}
	same, err := Focus(a, a, 2)
	if err != nil {
		t.Fatal(err)
	}
	if same.Diverged || len(same.Mismatches) != 0 {
		t.Errorf("a trace against itself diverges: %s", same.JSON())
	}
}

func TestTickSummaryTopEvents(t *testing.T) {
	rec := DemoTick(3, 1)
	rec.Channels.Checkpoint.Events = ReplayEventSummary{HitCount: 2, PickupCount: 5, SfxCount: 2}
	s := Summarize(&rec)
	want := []string{"pickup_count:5", "hit_count:2", "sfx_count:2"}
	for i := range want {
		if s.TopEventTypes[i] != want[i] {
			t.Fatalf("top_event_types %v, want %v", s.TopEventTypes, want)
		}
	}
	if s.EventCountTotal != 9 || s.EntityCounts.Creatures != 3 || s.RngStreamCount != 2 || s.TimingSamplesCount != 1 {
		t.Errorf("summary %+v", s)
	}
	if got := string(s.SortedJSON()); got[:40] != `{"checkpoint": {"bonus_timers": {"11": 0` {
		t.Errorf("sorted JSON %s", got[:60])
	}
}
