package parquetexport

import (
	"fmt"
	"testing"

	"github.com/tracecodec/tracecodec/events"
)

// BenchmarkEventLayer reads the inputs of BenchmarkExport through package
// events only (every event, its track and its arguments), the ceiling the
// exporter's throughput is bound by.
func BenchmarkEventLayer(b *testing.B) {
	for _, format := range []string{"dial9", "atf"} {
		b.Run(format, func(b *testing.B) {
			paths, n := benchInputs(b, format)
			var sink uint64
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				for _, p := range paths {
					r, err := events.Open(p, events.WithScopeData())
					if err != nil {
						b.Fatal(err)
					}
					for r.Next() {
						e := r.Event()
						sink += e.Track().ID + uint64(e.Time()) + uint64(len(e.Name()))
						for i := range e.NumArgs() {
							_, v := e.Arg(i)
							sink += v.Uint()
						}
					}
					if err := r.Err(); err != nil {
						b.Fatal(err)
					}
					r.Close()
				}
			}
			b.StopTimer()
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "events/cpu-s")
			_ = fmt.Sprint(sink)
		})
	}
}
