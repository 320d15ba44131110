// Command cdt-diverge records two runs of a (synthetic) simulation as CDT
// traces and finds the first tick where they diverge, as `crimson dbg diff`
// does.
//
//	go run ./examples/cdt-diverge [-ticks 600] [-diverge 237] [-dir DIR]
//
// The candidate run draws one extra random number from tick -diverge on.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
)

func main() {
	ticks := flag.Int64("ticks", 600, "ticks per run")
	diverge := flag.Int64("diverge", 237, "first tick where the candidate run differs (-1: never)")
	dir := flag.String("dir", "", "where to write the traces (default: a temporary folder, removed after)")
	flag.Parse()
	if err := run(os.Stdout, *dir, *ticks, *diverge); err != nil {
		log.Fatal(err)
	}
}

// record writes one run of n ticks to path; from tick divergeAt on, the
// simulation draws one extra random number (a typical determinism bug).
func record(path string, n, divergeAt int64) error {
	meta := schema7.NewTraceMeta("2026-01-01T00:00:00+00:00",
		schema7.AnyMap{schema7.AnyString("impl", "go"), schema7.AnyString("impl_version", "example")},
		schema7.AnyMap{schema7.AnyString("kind", "example"), schema7.AnyInt("seed", 305441741)},
		schema7.AnyMap{}, 0, n-1, n)
	w, err := schema7.Create(path, &meta)
	if err != nil {
		return err
	}
	state := uint32(305441741)
	for t := range n {
		rec := schema7.TickRecord{TickIndex: schema7.Int(t), ElapsedMs: schema7.Int(t * 50 / 3), DtMsI32: 16, ModeID: 1}
		// Two MSVC-CRT rand() draws per tick; the buggy run draws a third.
		draws := 2
		if divergeAt >= 0 && t >= divergeAt {
			draws = 3
		}
		for i := range draws {
			before := state
			state = state*214013 + 2531011
			rec.Channels.RngStream = append(rec.Channels.RngStream, schema7.RngStreamRow{
				TickCallIndex: schema7.Int(i + 1), Value15: schema7.Int(state >> 16 & 0x7fff),
				StateBeforeU32: schema7.Int(before), StateAfterU32: schema7.Int(state),
			})
		}
		rec.Channels.Checkpoint = schema7.ReplayCheckpoint{
			TickIndex: rec.TickIndex, ElapsedMs: rec.ElapsedMs, RngState: schema7.Int(state), ScoreXP: schema7.Int(t * 3),
		}
		if err := w.Append(&rec); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

func run(out io.Writer, dir string, n, divergeAt int64) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "cdt-diverge-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	golden, candidate := filepath.Join(dir, "golden.cdt"), filepath.Join(dir, "candidate.cdt")
	if err := record(golden, n, -1); err != nil {
		return err
	}
	if err := record(candidate, n, divergeAt); err != nil {
		return err
	}
	a, err := cdt.OpenFile(golden)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := cdt.OpenFile(candidate)
	if err != nil {
		return err
	}
	defer b.Close()

	rep, err := schema7.Bisect(a, b, schema7.BisectOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "compared %d ticks: %s\n", rep.CheckedCount, rep.Status)
	if rep.Mismatch == nil {
		return nil
	}
	fmt.Fprintf(out, "first divergent tick: %d (look at ticks %d..%d)\n", *rep.FirstBadTick, *rep.WindowStart, *rep.WindowEnd)
	for _, c := range rep.Mismatch.Channels {
		fmt.Fprintf(out, "  %-15s %s %v\n", c.Channel, c.Kind, c.Paths)
	}
	return nil
}
