package wtfcff

import (
	"bytes"
	"testing"

	"github.com/tracecodec/tracecodec/internal/lincost"
)

// linearEvents is the base size of the linearity inputs, in events.
const linearEvents = 20000

// tinyTrace is the densest binary input per byte: records of one argument-
// less type (8 bytes each: wire id and time), so the per-record work weighs
// most against the bytes; chunks of the default size.
func tinyTrace(tb testing.TB, scale int) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out)
	if err != nil {
		tb.Fatal(err)
	}
	et, _ := w.Define(0, "lin#tick()", ClassInstance, 0)
	for i := range linearEvents * scale {
		if err := w.Begin(et, uint32(i)).End(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

// mixedTrace is the api_public-like workload (strings, arrays, scopes).
func mixedTrace(tb testing.TB, scale int) []byte {
	var out bytes.Buffer
	bw := newBenchWorkload(tb, &out, 64<<10)
	for range linearEvents * scale / benchGroupEvents {
		if err := bw.group(); err != nil {
			tb.Fatal(err)
		}
	}
	bw.w.Close()
	return out.Bytes()
}

func toJSON(tb testing.TB, bin []byte) []byte {
	var out bytes.Buffer
	if err := BinaryToJSON(&out, bytes.NewReader(bin), JSONComplete); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

// decodeWTF reads every chunk and decodes every event, whatever the
// container (over memory; streamed with stream).
func decodeWTF(stream bool) lincost.Decode {
	return func(in []byte) (int, error) {
		var r *Reader
		var err error
		if stream {
			r, err = NewReader(bytes.NewReader(in))
		} else {
			r, err = NewBytesReader(in)
		}
		if err != nil {
			return 0, err
		}
		n := 0
		for _, err := range Events(r) {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
}

// linearLegacy is a legacy file of linearEvents×scale records.
func linearLegacy(scale int) []byte {
	b, _ := legacyTrace(linearEvents * scale)
	return b
}

func linearCases() []lincost.Case {
	return []lincost.Case{
		{Name: "binary-tiny", Gen: tinyTrace, Decode: decodeWTF(false)},
		{Name: "binary-tiny-stream", Gen: tinyTrace, Decode: decodeWTF(true)},
		{Name: "binary-mixed", Gen: mixedTrace, Decode: decodeWTF(false)},
		{Name: "json-tiny", Gen: func(tb testing.TB, s int) []byte { return toJSON(tb, tinyTrace(tb, s)) }, Decode: decodeWTF(false)},
		{Name: "json-tiny-stream", Gen: func(tb testing.TB, s int) []byte { return toJSON(tb, tinyTrace(tb, s)) }, Decode: decodeWTF(true)},
		{Name: "json-mixed", Gen: func(tb testing.TB, s int) []byte { return toJSON(tb, mixedTrace(tb, s)) }, Decode: decodeWTF(false)},
		{Name: "legacy", Gen: func(_ testing.TB, s int) []byte { return linearLegacy(s) }, Decode: decodeWTF(false)},
	}
}

// BenchmarkLinear decodes each container's worst-case shape at 1×, 4× and
// 16× the base size (see lincost): the cpu-ns/B column is the constant of
// the package doc's time budget, and must not grow with the size.
func BenchmarkLinear(b *testing.B) {
	lincost.BenchCases(b, linearCases())
}

// TestLinearAllocs: allocation per input byte does not grow with the input,
// for every container.
func TestLinearAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("decodes tens of megabytes")
	}
	lincost.CheckAllocsCases(t, linearCases())
}
