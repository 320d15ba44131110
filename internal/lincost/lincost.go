// Package lincost measures what a decoder costs per input byte and per
// decoded element, at several input sizes, so that the constant can be
// written down and its linearity seen: a decoder linear in its input spends
// the same CPU time per byte at 1×, 4× and 16× the base size.
//
// Bench runs the sizes as sub-benchmarks ("1x", "4x", "16x") and reports
// process CPU time (user + system, steadier than wall clock on a shared
// machine) per input byte ("cpu-ns/B") and per element ("cpu-ns/elem"),
// plus the bytes allocated per input byte ("alloc-B/B"). CheckAllocs is the
// robust part of the linearity check for a test: the bytes and objects
// allocated per added input byte must not grow with the input (allocation
// counts do not depend on the machine's load; CPU time does).
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

// Case is one input shape of a decoder: Gen builds the input at a scale (a
// multiple of the base size), Decode decodes it.
type Case struct {
	Name   string
	Gen    func(tb testing.TB, scale int) []byte
	Decode Decode
}

// BenchCases runs Bench for each case, as a sub-benchmark named after it.
func BenchCases(b *testing.B, cases []Case) {
	for _, c := range cases {
		b.Run(c.Name, func(b *testing.B) {
			Bench(b, func(s int) []byte { return c.Gen(b, s) }, c.Decode)
		})
	}
}

// CheckAllocsCases runs CheckAllocs for each case.
func CheckAllocsCases(t testing.TB, cases []Case) {
	t.Helper()
	for _, c := range cases {
		CheckAllocs(t, c.Name, func(s int) []byte { return c.Gen(t, s) }, c.Decode)
	}
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

// CheckAllocs decodes gen(1), gen(3) and gen(9) and fails t when the
// allocation grows faster than the input: the bytes (and objects) allocated
// per added input byte from 3× to 9× must stay under 2.2 times those from
// 1× to 3× (plus 1 byte and 1 object per KiB). Each size is decoded three
// times and the least allocation counts, so that other goroutines'
// allocations do not make a linear decoder look otherwise. A decoder quadratic in its
// input triples that marginal cost ((9+3)/(3+1)); slices grown by doubling
// can double it at most. A fixed cost (buffers, tables) does not count
// against a decoder, only a marginal cost that rises with the size. It also fails when the element
// count does not grow with the input.
func CheckAllocs(t testing.TB, name string, gen func(scale int) []byte, decode Decode) {
	t.Helper()
	if testing.CoverMode() != "" {
		t.Skip("allocation counts are not meaningful under -cover")
	}
	var m [3]Allocs
	var bytes, objects [3]float64
	for i, s := range []int{1, 3, 9} {
		in := gen(s)
		// The counters are the process's: anything else that allocates
		// meanwhile (the test runner, another test) adds to one run, never
		// takes away, so the least of three runs is the decoder's own.
		var a Allocs
		for run := range 3 {
			r, err := measure(in, decode)
			if err != nil {
				t.Fatalf("%s %dx: %v", name, s, err)
			}
			if run == 0 {
				a = r
				continue
			}
			a.BytesPerByte = min(a.BytesPerByte, r.BytesPerByte)
			a.ObjectsPerKiB = min(a.ObjectsPerKiB, r.ObjectsPerKiB)
		}
		m[i] = a
		bytes[i] = a.BytesPerByte * float64(a.Size)
		objects[i] = a.ObjectsPerKiB * float64(a.Size) / 1024
	}
	if m[2].Elems < 4*m[0].Elems {
		t.Errorf("%s: %d elements at 9x, %d at 1x: the generator does not scale", name, m[2].Elems, m[0].Elems)
	}
	d1, d2 := float64(m[1].Size-m[0].Size), float64(m[2].Size-m[1].Size)
	b1, b2 := (bytes[1]-bytes[0])/d1, (bytes[2]-bytes[1])/d2
	o1, o2 := (objects[1]-objects[0])/d1*1024, (objects[2]-objects[1])/d2*1024
	if b2 > 2.2*max(b1, 0)+1 || o2 > 2.2*max(o1, 0)+1 {
		t.Errorf("%s: allocation grows faster than the input: per added input byte from 1x (%d B) to 3x %.2f B and %.2f objects/KiB, from 3x to 9x (%d B) %.2f B and %.2f objects/KiB",
			name, m[0].Size, b1, o1, m[2].Size, b2, o2)
	}
}
