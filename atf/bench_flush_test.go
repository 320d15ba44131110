package atf

import (
	"testing"
	"time"
)

// benchThreadWrite100k writes 100,000 index-only events per op through a
// ThreadWriter into a discarding sink (default flush bound plus opts): the
// per-event CPU price of the crash bounds, for instr.sh
// (../shared/bench/instr.sh ./atf ThreadWrite100k 100000).
func benchThreadWrite100k(b *testing.B, opts ...WriterOption) {
	var sink discardSeeker
	b.SetBytes(100000 * IndexEventSize)
	b.ReportAllocs()
	for b.Loop() {
		tw, err := NewThreadWriter(&sink, nil, 1, opts...)
		if err != nil {
			b.Fatal(err)
		}
		for i := range uint64(100000) {
			if _, err := tw.Write(1000+i*50, 42, KindCall, 3, nil); err != nil {
				b.Fatal(err)
			}
		}
		tw.Close()
	}
	reportEvents(b, 100000)
}

// BenchmarkThreadWrite100k: the default bound (a flush every 128 events).
func BenchmarkThreadWrite100k(b *testing.B) { benchThreadWrite100k(b) }

// BenchmarkThreadWrite100kInterval adds WithFlushInterval(1 ms): with
// events 50 ns apart the count still flushes first; what is measured is the
// timestamp check on every event.
func BenchmarkThreadWrite100kInterval(b *testing.B) {
	benchThreadWrite100k(b, WithFlushInterval(time.Millisecond))
}

// BenchmarkThreadWrite100kIntervalOnly: WithFlushInterval(5 µs) alone
// (WithFlushEvery(0)): a flush every 100 events, by time.
func BenchmarkThreadWrite100kIntervalOnly(b *testing.B) {
	benchThreadWrite100k(b, WithFlushEvery(0), WithFlushInterval(5*time.Microsecond))
}

// BenchmarkThreadWrite100kBackground adds WithBackgroundFlush (period an
// hour, so it never fires here): what is measured is the mutex every Write
// then takes.
func BenchmarkThreadWrite100kBackground(b *testing.B) {
	benchThreadWrite100k(b, WithBackgroundFlush(time.Hour))
}
