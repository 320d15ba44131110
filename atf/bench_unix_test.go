//go:build unix

package atf

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkThreadWriteFile writes index-only events through a ThreadWriter
// into a real file, with the default flush bound (128 events: one write
// system call per 4 KiB) and without one (one per 64 KiB buffer), reporting
// the process CPU time per event (steadier than wall-clock on a shared
// machine): the price of the crash bound. mmap writes through
// WithMmapOutput (on Linux; every event on file when it returns, no
// system call but a few per growth step).
func BenchmarkThreadWriteFile(b *testing.B) {
	for _, every := range []uint64{DefaultFlushEvery, 0, 1 << 63} {
		name, opts := fmt.Sprintf("flush=%d", every), []WriterOption{WithFlushEvery(every)}
		if every == 1<<63 {
			name, opts = "mmap", []WriterOption{WithMmapOutput(true)}
		}
		b.Run(name, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "index.atf"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			tw, err := NewThreadWriter(f, nil, 1, opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(IndexEventSize)
			b.ReportAllocs()
			cpu0 := processCPU()
			var ts uint64
			for b.Loop() {
				ts++
				if _, err := tw.Write(ts, 42, KindCall, 3, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/event")
			reportEvents(b, 1)
		})
	}
}

// processCPU is the user plus system CPU time of the process so far, in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
