package schema7

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/fuzz"
	"github.com/tracecodec/tracecodec/internal/hugebuf"
)

// payloadKinds are the decoders FuzzPayload drives, chosen by the first byte.
var payloadKinds = []func() interface {
	Decode([]byte) error
	MarshalMsg([]byte) ([]byte, error)
}{
	func() interface {
		Decode([]byte) error
		MarshalMsg([]byte) ([]byte, error)
	} {
		return new(TickRecord)
	},
	func() interface {
		Decode([]byte) error
		MarshalMsg([]byte) ([]byte, error)
	} {
		return new(TraceMeta)
	},
	func() interface {
		Decode([]byte) error
		MarshalMsg([]byte) ([]byte, error)
	} {
		return new(TraceFooter)
	},
	func() interface {
		Decode([]byte) error
		MarshalMsg([]byte) ([]byte, error)
	} {
		return new(TickBlock)
	},
}

// seedPayloads returns real payloads: META, the first rows and the footer of
// the small vector.
func seedPayloads(t testing.TB) [][]byte {
	r, _ := openVector(t, "v7_small_300ticks")
	out := [][]byte{append([]byte{1}, r.MetaPayload()...)}
	_, fp, err := r.ReadChunk(r.FooterOffset())
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, append([]byte{2}, fp...))
	rows, err := r.Block(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[:4] {
		out = append(out, append([]byte{0}, row.Raw...))
	}
	return out
}

// FuzzPayload decodes each payload type; whatever decodes must re-encode to
// bytes that decode and re-encode to the same bytes.
func FuzzPayload(f *testing.F) {
	for _, p := range seedPayloads(f) {
		f.Add(p)
	}
	f.Add([]byte{0, 0x81, 0xaa, 't', 'i', 'c', 'k', '_', 'i', 'n', 'd', 'e', 'x', 0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		v := payloadKinds[int(data[0])%len(payloadKinds)]()
		if err := v.Decode(data[1:]); err != nil {
			if !errors.Is(err, cdt.ErrCorrupt) {
				t.Fatalf("error does not wrap cdt.ErrCorrupt: %v", err)
			}
			return
		}
		b1, err := v.MarshalMsg(nil)
		if err != nil {
			t.Fatal(err)
		}
		w := payloadKinds[int(data[0])%len(payloadKinds)]()
		if err := w.Decode(b1); err != nil {
			t.Fatalf("re-encoded payload does not decode: %v", err)
		}
		b2, _ := w.MarshalMsg(nil)
		if !bytes.Equal(b1, b2) {
			t.Fatalf("round trip not stable:\n%x\n%x", b1, b2)
		}
	})
}

// TestSweepPayloads runs the typed decoders over truncated and corrupted real
// payloads under the sweep's time and memory bounds.
func TestSweepPayloads(t *testing.T) {
	for _, p := range seedPayloads(t) {
		kind := p[0]
		fuzz.Sweep(t, p[1:], func(b []byte) error {
			return payloadKinds[kind]().Decode(b)
		}, fuzz.Options{MaxCases: 512, RandomEdits: 32})
	}
}

// TestHostileArrayHeaders puts an array32 header of 2^32-1 elements at every
// array field of a row: decoding must fail with msgp.ErrLimitExceeded (or a
// short-input error) without allocating for the declared count.
func TestHostileArrayHeaders(t *testing.T) {
	rec := DemoTick(5, 1)
	raw, _ := rec.MarshalMsg(nil)
	limitHits := 0
	for i := range raw {
		if raw[i]&0xf0 != 0x90 { // fixarray headers
			continue
		}
		bad := append(bytes.Clone(raw[:i]), 0xdd, 0xff, 0xff, 0xff, 0xff)
		bad = append(bad, raw[i+1:]...)
		var got TickRecord
		var err error
		n := allocatedBytes(func() { err = got.Decode(bad) })
		if err == nil {
			continue // the byte was inside a string or a float, not a header
		}
		if errors.Is(err, msgp.ErrLimitExceeded) {
			limitHits++
		}
		if n > 1<<20 {
			t.Fatalf("offset %d: %d bytes allocated", i, n)
		}
	}
	if limitHits < 10 {
		t.Fatalf("only %d headers hit the limit", limitHits)
	}
	// A bare hostile header for each top-level type.
	// A bare hostile header of 2^31 rows in a TickBlock.
	var blk TickBlock
	var err error
	n := allocatedBytes(func() { err = blk.Decode([]byte{0x81, 0xa5, 't', 'i', 'c', 'k', 's', 0xdd, 0x7f, 0xff, 0xff, 0xff}) })
	if !errors.Is(err, msgp.ErrLimitExceeded) || n > 4096 {
		t.Fatalf("TickBlock hostile header: %v (%d bytes allocated)", err, n)
	}
}

func allocatedBytes(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	off := hugebuf.OffHeapBytes()
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc + hugebuf.OffHeapBytes() - off // cdt's batch arenas are mapped outside the heap
}
