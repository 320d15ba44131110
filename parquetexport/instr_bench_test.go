package parquetexport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/tracegen"
)

// BenchmarkExportDial9Steady measures the dial9 export path on one core in
// its steady state: 4 generated streams of 50 000 polls (800 000 events,
// 600 000 rows) read by one worker into 8 MiB row groups, so that most of the
// work is converting into warm batches and writing full row groups, as in
// ExportBig/dial9, on an input small enough for callgrind. Count the whole
// process (../shared/bench/instr.sh ./parquetexport ExportDial9Steady 800000
// '*'; it includes generating the input): the export runs on goroutines, and
// callgrind's per-function toggles (a pattern such as
// '*parquetexport.export*') then miss most of the work. Whole-process counts
// vary by about 1–5 % between runs of the same build.
func BenchmarkExportDial9Steady(b *testing.B) {
	dir := b.TempDir()
	var paths []string
	for k := range 4 {
		p := filepath.Join(dir, fmt.Sprintf("seg-%d.bin", k))
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := tracegen.Dial9(f, uint64(k)<<32, 50_000); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	n := int64(4 * 50_000 * tracegen.Dial9EventsPerPoll)
	out := b.TempDir()
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		dst := filepath.Join(out, fmt.Sprint(i))
		if _, err := Export(context.Background(), dst, paths, WithConcurrency(1), WithRowGroupBytes(8<<20)); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dst)
		b.StartTimer()
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "events/cpu-s")
}
