package schema7

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/tracecodec/tracecodec/cdt"
)

// demoTrace writes n DemoTick rows with the project's writer (default
// 256-tick chunks, zstd) and returns the file's bytes.
func demoTrace(tb testing.TB, n int64) []byte {
	tb.Helper()
	meta := NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, n-1, n)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &meta)
	if err != nil {
		tb.Fatal(err)
	}
	for t := range n {
		rec := DemoTick(t, 0x1234abcd)
		if err := w.Append(&rec); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

var benchQueries = []struct{ name, expr string }{
	{"ticks-prev", "ticks where checkpoint.kills > prev(checkpoint.kills)"}, // 1 match in 40
	{"ticks-map", "ticks where checkpoint.bonus_timers.4 != 0"},             // none
	{"entities", "entities where hp < 17"},                                  // most creatures
}

// BenchmarkQuery runs queries over 20 000 DemoTick rows (≈2.5 kB of msgpack
// each, 79 chunks) on one goroutine, reading, checksumming, decompressing
// and decoding every row. cpu-ticks/s is ticks per second of process CPU
// time (GC included), steady on a shared machine. B/op is mostly the kept
// rows (at most DefaultQueryLimit tick summaries): it does not follow the
// number of ticks (compare the 2 000-tick variant; TestQueryMemoryFlat pins
// it).
func BenchmarkQuery(b *testing.B) {
	for _, n := range []int64{2000, 20000} {
		data := demoTrace(b, n)
		for _, q := range benchQueries {
			b.Run(fmt.Sprintf("%s/ticks=%d", q.name, n), func(b *testing.B) {
				r, err := cdt.Open(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				e, err := ParseQuery(q.expr)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				cpu := startCPU()
				var res *QueryResult
				for b.Loop() {
					if res, err = e.Run(r, DefaultQueryLimit); err != nil {
						b.Fatal(err)
					}
				}
				cpu.report(b, int(n))
				b.ReportMetric(float64(res.MatchCount), "matches")
			})
		}
	}
}

// TestQueryMemoryFlat checks that a query's allocations do not grow with the
// number of ticks: ten times the rows may cost a little per chunk, nothing
// per row.
func TestQueryMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 22 000 rows")
	}
	if raceEnabled {
		// The race detector makes sync.Pool drop a share of its Puts at
		// random, so the reader's pooled buffers are allocated again and the
		// count grows with the trace for reasons of the detector's own.
		t.Skip("allocation counts are not meaningful under -race (sync.Pool drops items)")
	}
	measure := func(n int64) uint64 {
		data := demoTrace(t, n)
		r, err := cdt.Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		e, err := ParseQuery("ticks where checkpoint.kills > prev(checkpoint.kills)")
		if err != nil {
			t.Fatal(err)
		}
		// With the collector off and one P, the reader's sync.Pool buffers
		// are found again by every run (a Get on another P misses what a Put
		// left in the first P's private slot): what is measured is the
		// run's own allocation.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		e.Run(r, 4) // warm up pools and caches
		return allocatedBytes(func() {
			if _, err := e.Run(r, 4); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := measure(2000), measure(20000)
	perTick := float64(int64(large)-int64(small)) / 18000
	t.Logf("allocated %d bytes for 2 000 ticks, %d for 20 000 (%.1f bytes per extra tick)", small, large, perTick)
	if perTick > 64 {
		t.Errorf("query memory grows with the trace: %.1f bytes per tick", perTick)
	}
}
