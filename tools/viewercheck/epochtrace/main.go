// Command epochtrace writes a small dial9 trace shaped like the traces that
// showed the Chrome export's lost resolution: Unix-epoch nanosecond times
// (1.7·10¹⁸ ns, where a µs float64 keeps only a quarter of a µs) and polls of
// 500 to 1 099 ns, each of its own task. tools/viewercheck opens its Chrome
// export in speedscope.
//
// usage: go run ./tools/viewercheck/epochtrace OUT [POLLS]
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/tracecodec/tracecodec/dial9"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "epochtrace:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("usage: epochtrace OUT [POLLS]")
	}
	polls := 200
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return fmt.Errorf("POLLS: want a positive number, not %q", args[1])
		}
		polls = n
	}
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	w, err := dial9.NewWriter(f)
	if err != nil {
		f.Close()
		return err
	}
	start, _ := w.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "task_id", Type: dial9.TypeVarint}})
	end, _ := w.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	ts := uint64(1_774_658_386_068_912_347) // 2026-03-28, in ns since 1970
	for i := range polls {
		worker := uint64(i % 2)
		d := uint64(500 + (i*37)%600)
		if err := w.WriteUints(start, ts, worker, 1000+uint64(i%50)); err != nil {
			return err
		}
		if err := w.WriteUints(end, ts+d, worker); err != nil {
			return err
		}
		ts += d + 13
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
