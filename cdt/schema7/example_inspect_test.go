package schema7_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
)

// inspectRow is row(t) with one kill every 40 ticks and bonus uid 2 on the
// ground.
func inspectRow(t int64) schema7.TickRecord {
	rec := row(t)
	rec.Channels.Checkpoint.Kills = schema7.Int(t / 40)
	rec.Channels.EntitySamples.Bonuses = []schema7.BonusEntitySample{
		{UID: 2, Generation: 1, PoolKind: "bonus", Index: 2, Active: true, BonusID: 9, TimeLeft: 10, TimeMax: 10},
	}
	return rec
}

// demoFile writes ticks 0..n-1 of inspectRow, with edit applied to each row,
// and opens the trace.
func demoFile(n int64, edit func(*schema7.TickRecord)) *cdt.File {
	var buf bytes.Buffer
	meta := schema7.NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, n-1, n)
	w, err := schema7.NewWriter(&buf, &meta)
	if err != nil {
		log.Fatal(err)
	}
	for t := range n {
		rec := inspectRow(t)
		if edit != nil {
			edit(&rec)
		}
		if err := w.Append(&rec); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	r, err := cdt.OpenBytes(buf.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	return r
}

// Find the ticks where a counter went up, then summarise one of them.
func ExampleQuery() {
	r := demoFile(200, nil)
	defer r.Close()
	res, err := schema7.Query(r, "ticks where checkpoint.kills > prev(checkpoint.kills)", 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.MatchCount, "matches, truncated:", res.Truncated)
	for _, row := range res.Rows {
		fmt.Printf("tick %d: kills %s, was %s\n", row.TickIndex, row.Left, row.Right)
	}
	s, err := schema7.Tick(r, res.Rows[0].TickIndex)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.EntityCounts.Creatures, "creatures,", s.TopEventTypes)
	// Output:
	// 4 matches, truncated: true
	// tick 40: kills 1, was 0
	// tick 80: kills 2, was 1
	// tick 120: kills 3, was 2
	// 0 creatures, [hit_count:0 pickup_count:0 sfx_count:0]
}

// Compare one tick of two runs channel by channel.
func ExampleFocus() {
	golden := demoFile(10, nil)
	defer golden.Close()
	candidate := demoFile(10, func(rec *schema7.TickRecord) {
		if rec.TickIndex == 7 {
			rec.Channels.EntitySamples.Bonuses = nil
			rec.Channels.Checkpoint.ScoreXP++
		}
	})
	defer candidate.Close()
	rep, err := schema7.Focus(golden, candidate, 7)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("diverged:", rep.Diverged)
	for _, m := range rep.Mismatches {
		fmt.Println(m.Channel, m.Paths)
	}
	b := rep.EntityPresence[3]
	fmt.Println(b.Pool, "missing", b.MissingUIDs)
	// Output:
	// diverged: true
	// checkpoint [score_xp]
	// entity_samples []
	// bonuses missing [2]
}
