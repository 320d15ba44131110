package parquetexport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/tracecodec/tracecodec/testgen/tracegen"
)

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchInputs writes 8 dial9 streams of 25 000 polls (100 000 events each)
// or an 8-thread ATF session of 25 000 outer calls per thread (100 000
// events each).
func benchInputs(b *testing.B, format string) (paths []string, events int64) {
	dir := b.TempDir()
	switch format {
	case "dial9":
		for k := range 8 {
			p := filepath.Join(dir, fmt.Sprintf("seg-%d.bin", k))
			f, err := os.Create(p)
			if err != nil {
				b.Fatal(err)
			}
			if err := tracegen.Dial9(f, uint64(k)<<32, 25_000); err != nil {
				b.Fatal(err)
			}
			f.Close()
			paths = append(paths, p)
		}
		return paths, 8 * 25_000 * tracegen.Dial9EventsPerPoll
	default:
		p, err := tracegen.ATFSession(dir, 8, 25_000)
		if err != nil {
			b.Fatal(err)
		}
		return []string{p}, 8 * 25_000 * 4
	}
}

// BenchmarkExport measures export throughput on one core (jobs=1) and on
// every core (jobs=GOMAXPROCS): input bytes per second (SetBytes), events
// per wall-clock second and events per second of process CPU time (the
// figure to trust on a shared machine). An ATF session is one input, read
// by one worker whatever the jobs.
func BenchmarkExport(b *testing.B) {
	for _, format := range []string{"dial9", "atf"} {
		for _, jobs := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/jobs=%d", format, jobs), func(b *testing.B) {
				paths, n := benchInputs(b, format)
				ins, err := ExpandInputs(paths...)
				if err != nil {
					b.Fatal(err)
				}
				var size int64
				for _, in := range ins {
					size += in.Size
				}
				b.SetBytes(size)
				b.ReportAllocs()
				dir := b.TempDir()
				cpu0 := cpuTime()
				b.ResetTimer()
				for i := range b.N {
					out := filepath.Join(dir, fmt.Sprint(i))
					if _, err := Export(context.Background(), out, paths, WithConcurrency(jobs)); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					os.RemoveAll(out)
					b.StartTimer()
				}
				b.StopTimer()
				cpu := cpuTime() - cpu0
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
				b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "events/cpu-s")
			})
		}
	}
}

// BenchmarkExportBig exports the inputs TestGenerateBigInputs wrote under
// TRACECODEC_BIG_DIR (skipped when unset) on one core: the steady-state
// throughput, where the batches' buffers are warm after the first row group.
func BenchmarkExportBig(b *testing.B) {
	dir := os.Getenv("TRACECODEC_BIG_DIR")
	if dir == "" {
		b.Skip("TRACECODEC_BIG_DIR not set")
	}
	for _, format := range []string{"dial9", "atf"} {
		b.Run(format, func(b *testing.B) {
			paths := []string{filepath.Join(dir, format)}
			out := b.TempDir()
			cpu0 := cpuTime()
			var n int64
			for i := range b.N {
				res, err := Export(context.Background(), filepath.Join(out, fmt.Sprint(i)), paths, WithConcurrency(1))
				if err != nil {
					b.Fatal(err)
				}
				n += res.Events
				b.SetBytes(res.InputBytes)
				os.RemoveAll(filepath.Join(out, fmt.Sprint(i)))
			}
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(n)/cpu.Seconds(), "events/cpu-s")
		})
	}
}
