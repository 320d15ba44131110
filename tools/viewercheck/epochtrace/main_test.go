package main

import (
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/events"
)

// TestEpochTrace: the trace holds POLLS poll slices of 500..1 099 ns on two
// workers, at Unix-epoch ns times.
func TestEpochTrace(t *testing.T) {
	p := filepath.Join(t.TempDir(), "e.bin")
	if err := run([]string{p, "30"}); err != nil {
		t.Fatal(err)
	}
	r, err := events.Open(p, events.WithPairing(0))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		ev := r.Event()
		if ev.Kind() != events.KindComplete || ev.Name() != "poll" || ev.Duration() < 500 || ev.Duration() > 1099 || ev.Time() < 1_774_658_386_068_912_347 {
			t.Fatalf("event %d: %v %s at %d for %d ns", n, ev.Kind(), ev.Name(), ev.Time(), ev.Duration())
		}
		n++
	}
	if r.Err() != nil || n != 30 {
		t.Errorf("%d polls, %v", n, r.Err())
	}
	for _, bad := range [][]string{nil, {p, "0"}, {p, "x"}, {p, "1", "2"}} {
		if run(bad) == nil {
			t.Errorf("run(%q) accepted", bad)
		}
	}
}
