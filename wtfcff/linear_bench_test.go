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

type linearCase struct {
	name   string
	gen    func(tb testing.TB, scale int) []byte
	decode lincost.Decode
}

func linearCases() []linearCase {
	return []linearCase{
		{"binary-tiny", tinyTrace, decodeWTF(false)},
		{"binary-tiny-stream", tinyTrace, decodeWTF(true)},
		{"binary-mixed", mixedTrace, decodeWTF(false)},
		{"json-tiny", func(tb testing.TB, s int) []byte { return toJSON(tb, tinyTrace(tb, s)) }, decodeWTF(false)},
		{"json-tiny-stream", func(tb testing.TB, s int) []byte { return toJSON(tb, tinyTrace(tb, s)) }, decodeWTF(true)},
		{"json-mixed", func(tb testing.TB, s int) []byte { return toJSON(tb, mixedTrace(tb, s)) }, decodeWTF(false)},
		{"legacy", func(_ testing.TB, s int) []byte { return linearLegacy(s) }, decodeWTF(false)},
	}
}

// BenchmarkLinear decodes each container's worst-case shape at 1×, 4× and
// 16× the base size (see lincost): the cpu-ns/B column is the constant of
// the package doc's time budget, and must not grow with the size.
func BenchmarkLinear(b *testing.B) {
	for _, c := range linearCases() {
		b.Run(c.name, func(b *testing.B) {
			lincost.Bench(b, func(s int) []byte { return c.gen(b, s) }, c.decode)
		})
	}
}

// TestLinearAllocs: allocation per input byte does not grow with the input,
// for every container.
func TestLinearAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("decodes tens of megabytes")
	}
	for _, c := range linearCases() {
		lincost.CheckAllocs(t, c.name, func(s int) []byte { return c.gen(t, s) }, c.decode)
	}
}
