package schema7_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
)

// Write a trace of typed rows, then read one tick back through the footer
// index.
func Example() {
	var buf bytes.Buffer
	meta := schema7.NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, 99, 100)
	w, err := schema7.NewWriter(&buf, &meta)
	if err != nil {
		log.Fatal(err)
	}
	for t := range int64(100) {
		rec := row(t)
		if err := w.Append(&rec); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := cdt.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	row, ok, err := r.Tick(57)
	if err != nil || !ok {
		log.Fatal(err)
	}
	var rec schema7.TickRecord
	if err := rec.Decode(row.Raw); err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Footer().TickCount, rec.Channels.Checkpoint.ScoreXP)
	// Output: 100 171
}

// row returns a small schema-v7 row for tick t: one player, a score.
func row(t int64) schema7.TickRecord {
	return schema7.TickRecord{
		TickIndex: schema7.Int(t), ElapsedMs: schema7.Int(t * 50 / 3), DtMsI32: 16, ModeID: 1,
		Channels: schema7.ReplayTickChannels{
			Checkpoint: schema7.ReplayCheckpoint{TickIndex: schema7.Int(t), ScoreXP: schema7.Int(t * 3)},
			SimState: schema7.SimStateSnapshot{Players: []schema7.SnapshotPlayer{
				{Pos: schema7.SnapshotVec2{X: 400, Y: 300}, Health: 100},
			}},
		},
	}
}

// writeRun writes 100 demo ticks; from tick perturbAt on, the player moves.
func writeRun(perturbAt int64) *cdt.File {
	var buf bytes.Buffer
	meta := schema7.NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, 99, 100)
	w, _ := schema7.NewWriter(&buf, &meta)
	for t := range int64(100) {
		rec := row(t)
		if t >= perturbAt {
			rec.Channels.SimState.Players[0].Pos.X += 0.5
		}
		w.Append(&rec)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	r, err := cdt.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	return r
}

// Find the first divergent tick between two runs.
func ExampleDiff() {
	golden, candidate := writeRun(1000), writeRun(60)
	rep, err := schema7.Diff(golden, candidate, schema7.DiffOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Status, rep.Mismatch.TickIndex, rep.CheckedCount)
	for _, c := range rep.Mismatch.Channels {
		fmt.Println(c.Channel, c.Kind, c.Paths)
	}
	// Output:
	// diverged 60 61
	// sim_state sim_state_mismatch [sim_state.players[0].pos.x]
}

// Render a payload value as the reference's JSON.
func ExampleAppendJSON() {
	row := schema7.RngStreamRow{TickCallIndex: 1, Value15: 28052, StateBeforeU32: 2427270273,
		StateAfterU32: 3985917248, CallerStatic: schema7.NullString{V: "0x004281a2", Valid: true}}
	fmt.Println(string(schema7.AppendJSON(nil, &row)))
	// Output: {"tick_call_index":1,"value_15":28052,"state_before_u32":2427270273,"state_after_u32":3985917248,"caller_static":"0x004281a2","branch_id":null}
}

// Quick start: write typed rows, then iterate over a tick range.
func Example_quickStart() {
	var buf bytes.Buffer
	meta := schema7.NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, 9, 10)
	w, _ := schema7.NewWriter(&buf, &meta) // or schema7.Create("run.cdt", &meta)
	for t := range int64(10) {
		rec := row(t)
		w.Append(&rec)
	}
	w.Close()

	f, _ := cdt.OpenBytes(buf.Bytes())               // or cdt.OpenFile("run.cdt"); a *cdt.File
	for rec, err := range schema7.Records(f, 3, 5) { // ticks 3..5, both included; AllRecords(f) for all
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec.TickIndex, rec.Channels.Checkpoint.ScoreXP)
	}
	// Output:
	// 3 9
	// 4 12
	// 5 15
}
