package cdt

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// TestConcurrentTick reads random ticks from several goroutines through one
// File with a small cache (run with -race).
func TestConcurrentTick(t *testing.T) {
	data := vectortest.Read(t, "cdt", "v7_diverge_A.cdt")
	r := openBytes(t, data, WithCacheBlocks(1))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				tick := int64((i*37 + g*101) % 400)
				row, ok, err := r.Tick(tick)
				if err != nil || !ok || row.Tick != tick {
					t.Errorf("Tick(%d) = %d %v %v", tick, row.Tick, ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestParallelIterationError checks that a corrupt chunk met by a prefetching
// goroutine surfaces as the iterator's error.
func TestParallelIterationError(t *testing.T) {
	data := vectortest.Read(t, "cdt", "errors", "tick_chunk_payload_bitflip.cdt")
	r, err := Open(bytes.NewReader(data), int64(len(data)), WithConcurrency(3))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Validate(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Validate: %v", err)
	}
	// Stopping early releases the prefetchers.
	good := vectortest.Read(t, "cdt", "v7_diverge_A.cdt")
	r2 := openBytes(t, good, WithConcurrency(2))
	for range 3 {
		n := 0
		for range r2.Range(0, 399) {
			n++
			if n == 10 {
				break
			}
		}
	}
}
