// Package lincost measures what a decoder costs per input byte and per
// decoded element, at several input sizes, so that the constant can be
// written down and its linearity seen: a decoder linear in its input spends
// the same CPU time per byte at 1×, 4× and 16× the base size.
//
// Bench runs the sizes as sub-benchmarks ("1x", "4x", "16x") and reports
// process CPU time (user + system, steadier than wall clock on a shared
// machine) per input byte ("cpu-ns/B") and per element ("cpu-ns/elem"),
// plus the bytes allocated per input byte ("alloc-B/B"). CheckAllocs is the
// robust part of the linearity check for a test: bytes and objects
// allocated per input byte must not grow with the input (allocation counts
// do not depend on the machine's load; CPU time does).
package lincost

import (
	"fmt"
	"runtime"
	"testing"
)

// Scales are the input sizes, in multiples of the base size.
var Scales = []int{1, 4, 16}

// Decode decodes in whole and returns the elements it decoded (events,
// frames, rows…).
type Decode func(in []byte) (elems int, err error)

// Bench runs decode over gen(s) for every s in Scales as sub-benchmarks.
// Inputs are built before the timer starts.
func Bench(b *testing.B, gen func(scale int) []byte, decode Decode) {
	run(b, func(s int) ([]byte, int64) {
		in := gen(s)
		return in, int64(len(in))
	}, decode)
}

// BenchPath is Bench for decoders of files on disk: gen(s) makes the input
// (a file or folder) and returns its path and its size in bytes, decode
// reads it.
func BenchPath(b *testing.B, gen func(scale int) (path string, size int64), decode func(path string) (int, error)) {
	run(b, gen, decode)
}

func run[T any](b *testing.B, gen func(scale int) (T, int64), decode func(T) (int, error)) {
	for _, s := range Scales {
		in, size := gen(s)
		b.Run(fmt.Sprintf("%dx", s), func(b *testing.B) {
			elems, err := decode(in) // warm-up, and the element count
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			cpu0 := ProcessCPU()
			b.ResetTimer()
			for range b.N {
				if _, err := decode(in); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cpu := float64(ProcessCPU()-cpu0) / float64(b.N)
			runtime.ReadMemStats(&m1)
			b.ReportMetric(cpu/float64(size), "cpu-ns/B")
			if elems > 0 {
				b.ReportMetric(cpu/float64(elems), "cpu-ns/elem")
			}
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(size), "alloc-B/B")
		})
	}
}

// Allocs is what one decode of an input allocated, per input byte.
type Allocs struct {
	Size          int
	Elems         int
	BytesPerByte  float64
	ObjectsPerKiB float64
}

func measure(in []byte, decode Decode) (Allocs, error) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	elems, err := decode(in)
	runtime.ReadMemStats(&m1)
	n := float64(len(in))
	return Allocs{Size: len(in), Elems: elems,
		BytesPerByte:  float64(m1.TotalAlloc-m0.TotalAlloc) / n,
		ObjectsPerKiB: float64(m1.Mallocs-m0.Mallocs) / n * 1024}, err
}

// CheckAllocs decodes gen(1) and gen(16) and fails t when the larger input
// costs more allocated bytes or objects per input byte than the smaller one
// (with 25% and a small constant of slack for fixed-size buffers rounding
// differently), or when the element count does not grow with the input.
func CheckAllocs(t testing.TB, name string, gen func(scale int) []byte, decode Decode) {
	t.Helper()
	if testing.CoverMode() != "" {
		t.Skip("allocation counts are not meaningful under -cover")
	}
	small, err := measure(gen(1), decode)
	if err != nil {
		t.Fatalf("%s 1x: %v", name, err)
	}
	large, err := measure(gen(16), decode)
	if err != nil {
		t.Fatalf("%s 16x: %v", name, err)
	}
	if large.Elems < 8*small.Elems {
		t.Errorf("%s: %d elements at 16x, %d at 1x: the generator does not scale", name, large.Elems, small.Elems)
	}
	if large.BytesPerByte > 1.25*small.BytesPerByte+0.5 || large.ObjectsPerKiB > 1.25*small.ObjectsPerKiB+0.5 {
		t.Errorf("%s: allocation per input byte grows with the input: 1x (%d B) %.2f B/B %.2f objects/KiB, 16x (%d B) %.2f B/B %.2f objects/KiB",
			name, small.Size, small.BytesPerByte, small.ObjectsPerKiB, large.Size, large.BytesPerByte, large.ObjectsPerKiB)
	}
}
