// Command dial9-roundtrip writes a small dial9 trace shaped like tokio
// telemetry (gzip-compressed, two concatenated streams), reads it back with
// the streaming decoder and prints per-event-type counts and a few events.
//
//	go run ./examples/dial9-roundtrip [OUT.bin.gz]
//
// Without OUT the trace is written to a temporary folder that is removed at
// the end.
package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sort"

	"github.com/tracecodec/tracecodec/dial9"
)

func main() {
	if err := runArgs(os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// runArgs writes to the path given, or into a temporary folder it removes.
func runArgs(args []string, stdout io.Writer) error {
	if len(args) > 1 {
		return fmt.Errorf("usage: dial9-roundtrip [OUT.bin.gz]")
	}
	if len(args) == 1 {
		return run(args[0], stdout)
	}
	dir, err := os.MkdirTemp("", "dial9-roundtrip-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return run(filepath.Join(dir, "trace.bin.gz"), stdout)
}

func run(path string, stdout io.Writer) error {
	if err := write(path); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return read(path, stdout)
}

// write records 2 batches of polls on 4 workers, gzip-compressed.
func write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := gzip.NewWriter(f)
	enc, err := dial9.NewWriter(zw)
	if err != nil {
		return err
	}
	ts := uint64(1_000_000_000)
	for batch := 0; batch < 2; batch++ {
		if batch > 0 {
			// A new complete stream: schemas, pools and the timestamp base restart.
			if err := enc.Reset(zw); err != nil {
				return err
			}
		}
		start, err := enc.Register("PollStartEvent", []dial9.FieldDef{
			{Name: "worker_id", Type: dial9.TypeVarint},
			{Name: "task_id", Type: dial9.TypeVarint},
			{Name: "spawn_loc", Type: dial9.TypePooledString},
		})
		if err != nil {
			return err
		}
		end, err := enc.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
		if err != nil {
			return err
		}
		for i := uint64(0); i < 1000; i++ {
			loc := enc.InternString(fmt.Sprintf("src/task%d.rs:1:1", i%3))
			ts += 1200
			if err := enc.Begin(start, ts).Varint(i % 4).Varint(i).PooledString(loc).End(); err != nil {
				return err
			}
			ts += 800
			if err := enc.WriteUints(end, ts, i%4); err != nil {
				return err
			}
		}
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func read(path string, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec, err := dial9.NewReader(f) // gzip is detected by its magic
	if err != nil {
		return err
	}
	counts := map[string]int{}
	printed := 0
	for dec.Next() {
		ev := dec.Event()
		counts[ev.Name()]++
		if printed < 3 && ev.Name() == "PollStartEvent" {
			loc, _ := dec.LookupString(ev.Field(2).PoolID())
			fmt.Fprintf(stdout, "%d %s worker=%d task=%d spawn_loc=%s\n",
				ev.Timestamp(), ev.Name(), ev.Field(0).Uint(), ev.Field(1).Uint(), loc)
			printed++
		}
	}
	if err := dec.Err(); err != nil {
		return err
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(stdout, "%s: %d events\n", n, counts[n])
	}
	fmt.Fprintf(stdout, "%d streams\n", dec.Headers())
	return nil
}
