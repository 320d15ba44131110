package dial9

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/tracecodec/tracecodec/internal/lincost"
)

// linearN is the base size of the linearity inputs, in frames.
const linearN = 50000

// denseEvents is a plain stream of n events of one schema with one varint
// field: the most event frames per byte (values scrambled so that gzip
// stays under the 100:1 ratio limit at every size).
func denseEvents(tb testing.TB, n int) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out)
	if err != nil {
		tb.Fatal(err)
	}
	h, err := w.Register("Tick", []FieldDef{{Name: "v", Type: TypeVarint}})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		if err := w.WriteUints(h, uint64(1000+i), uint64(uint32(i)*2654435761)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// linearFrames reads every frame of in: streamed (NewReader, which inflates
// a .bin.gz), or over memory (NewBytesReader, plain streams only).
func linearFrames(overMemory bool) lincost.Decode {
	return func(in []byte) (int, error) {
		var r *Reader
		var err error
		if overMemory {
			r, err = NewBytesReader(in)
		} else {
			r, err = NewReader(bytes.NewReader(in))
		}
		if err != nil {
			return 0, err
		}
		n := 0
		for r.NextFrame() {
			n++
		}
		return n, r.Err()
	}
}

func linearCases() []lincost.Case {
	sparse := func(_ testing.TB, s int) []byte {
		return poolBomb(linearN*s, func(i int) uint32 { return uint32(i) * 2654435761 }, "ab")
	}
	seq := func(_ testing.TB, s int) []byte {
		return poolBomb(linearN*s, func(i int) uint32 { return uint32(i) }, "ab")
	}
	plain := func(gen func(testing.TB, int) []byte) func(testing.TB, int) []byte {
		return func(tb testing.TB, s int) []byte {
			b, err := gunzip(gen(tb, s))
			if err != nil {
				tb.Fatal(err)
			}
			return b
		}
	}
	events := func(tb testing.TB, s int) []byte { return denseEvents(tb, linearN*s) }
	// Schemas allocate more than 64 bytes per compressed byte: beyond
	// 1000×16 the memory budget stops them (ErrLimit, TestHostilePoolBombs).
	schemas := func(_ testing.TB, s int) []byte { return schemaBomb(1000 * s) }
	stacks := func(_ testing.TB, s int) []byte { return stackBomb(4000 * s) }
	return []lincost.Case{
		{Name: "stream-events", Gen: events, Decode: linearFrames(false)},
		{Name: "bytes-events", Gen: events, Decode: linearFrames(true)},
		{Name: "stream-pool-sparse", Gen: plain(sparse), Decode: linearFrames(false)},
		{Name: "bytes-pool-sparse", Gen: plain(sparse), Decode: linearFrames(true)},
		{Name: "stream-schemas", Gen: plain(schemas), Decode: linearFrames(false)},
		{Name: "stream-stacks", Gen: plain(stacks), Decode: linearFrames(false)},
		{Name: "gz-events", Gen: func(tb testing.TB, s int) []byte { return gzipBytes(events(tb, s)) }, Decode: linearFrames(false)},
		{Name: "gz-pool-sparse", Gen: sparse, Decode: linearFrames(false)},
		{Name: "gz-pool-sequential", Gen: seq, Decode: linearFrames(false)},
		{Name: "gz-schemas", Gen: schemas, Decode: linearFrames(false)},
		{Name: "gz-stacks", Gen: stacks, Decode: linearFrames(false)},
	}
}

// BenchmarkLinear decodes the worst-case shapes (hostile_test.go's pool,
// schema and stack bombs within the limits, and the densest event stream)
// at 1×, 4× and 16× the base size, plain and gzip-compressed: the cpu-ns/B
// column is the constant of the package doc's time budget (per compressed
// byte for .bin.gz), and must not grow with the size.
func BenchmarkLinear(b *testing.B) {
	lincost.BenchCases(b, linearCases())
}

// TestLinearAllocs: allocation per input byte does not grow with the input.
func TestLinearAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("decodes tens of megabytes")
	}
	lincost.CheckAllocsCases(t, linearCases())
}
