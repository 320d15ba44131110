package dial9

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

var goldenCache = map[string][]byte{}

// goldenPlain returns the decompressed 0.4-era golden trace.
func goldenPlain(tb testing.TB) []byte {
	const name = "demo-trace@6342350.bin.gz"
	if b, ok := goldenCache[name]; ok {
		return b
	}
	gz := vectortest.Read(tb, "dial9", "golden", name)
	plain, err := gunzip(gz)
	must2(tb, err)
	goldenCache[name] = plain
	return plain
}

func TestAllocsEncode(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	e := mustWriter(io.Discard)
	var w workload
	w.register(e)
	str := []byte("spawn-location")
	ts := uint64(1_000_000_000)
	i := 0
	allocs := testing.AllocsPerRun(10000, func() {
		ts += 1000 + uint64(i%7)*300
		if err := w.writeEvent(e, i, ts); err != nil {
			t.Fatal(err)
		}
		// interning hits
		e.InternString("spawn-location")
		e.InternStringBytes(str)
		e.InternStack(w.stack[:])
		i++
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per event", allocs)
	}
}

func TestAllocsDecode(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	data := workloadBytes()
	d, err := NewBytesReader(data)
	must(t, err)
	for range 100 { // warm-up: schemas
		d.Next()
	}
	allocs := testing.AllocsPerRun(10000, func() {
		if !d.Next() {
			t.Fatal(d.Err())
		}
		consume(d.Event())
		d.Event().FieldByName("worker_id")
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per event", allocs)
	}
	// Streaming decoder, and real telemetry events with pooled values.
	r, err := NewReader(bytes.NewReader(data))
	must(t, err)
	for range 100 {
		r.Next()
	}
	allocs = testing.AllocsPerRun(10000, func() {
		if !r.Next() {
			t.Fatal(r.Err())
		}
		consume(r.Event())
	})
	if allocs != 0 {
		t.Fatalf("streaming: %.1f allocations per event", allocs)
	}
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// mustWriter is NewWriter for tests (it fails only on a nil io.Writer).
func mustWriter(w io.Writer) *Writer {
	e, err := NewWriter(w)
	if err != nil {
		panic(err)
	}
	return e
}
