package ctf2meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// syntheticMetadata returns n bytes of TSDL-like text.
func syntheticMetadata(n int) []byte {
	line := []byte("event {\n\tname = \"anchors_many:event_000\";\n\tid = 0;\n\tstream_id = 0;\n\tloglevel = 13;\n};\n\n")
	b := make([]byte, 0, n+len(line))
	for len(b) < n {
		b = append(b, line...)
	}
	return b[:n]
}

func packetized(tb testing.TB, plain []byte, opts ...WriterOption) []byte {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(plain)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func TestAllocsPerPacket(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	plain := syntheticMetadata(256 << 10)
	for _, l := range []Layout{LayoutPMETA, LayoutCTF18} {
		raw := packetized(t, plain, WithLayout(l), WithPacketSize(4096))
		w, _ := NewWriter(io.Discard, WithLayout(l), WithPacketSize(4096))
		if a := testing.AllocsPerRun(20, func() {
			w.Reset(io.Discard)
			w.Write(plain)
			w.Close()
		}); a != 0 {
			t.Errorf("%v: packetize: %v allocs per stream of %d packets", l, a, len(raw)/4096)
		}
		dst := make([]byte, 0, len(plain))
		if a := testing.AllocsPerRun(20, func() {
			var err error
			if dst, _, err = Depacketize(dst[:0], raw); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%v: Depacketize: %v allocs", l, a)
		}
		src := bytes.NewReader(raw)
		r, _ := NewReader(src)
		for r.Next() {
		}
		if a := testing.AllocsPerRun(20, func() {
			src.Reset(raw)
			r.Reset(src)
			n := 0
			for r.Next() {
				n++
			}
			if r.Err() != nil || n != r.Info().Packets {
				t.Fatal(r.Err())
			}
		}); a != 0 {
			t.Errorf("%v: Reader: %v allocs", l, a)
		}
	}
	// The JSON-sequence framing.
	seq := bytes.Repeat([]byte("\x1e{\"type\": \"data-stream-class\"}\n"), 1000)
	src := bytes.NewReader(seq)
	s, _ := NewSeqReader(src)
	for s.Next() {
	}
	if a := testing.AllocsPerRun(20, func() {
		src.Reset(seq)
		s.Reset(src)
		for s.Next() {
		}
		if s.Err() != nil || s.Index() != 1000 {
			t.Fatal(s.Err())
		}
	}); a != 0 {
		t.Errorf("SeqReader: %v allocs", a)
	}
}

const benchBytes = 4 << 20

func BenchmarkPacketize4K(b *testing.B) {
	plain := syntheticMetadata(benchBytes)
	w, _ := NewWriter(io.Discard, WithPacketSize(4096))
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset(io.Discard)
		w.Write(plain)
		w.Close()
	}
	b.ReportMetric(float64(w.Packets())*float64(b.N)/b.Elapsed().Seconds(), "packets/s")
}

func BenchmarkDepacketize4K(b *testing.B) {
	plain := syntheticMetadata(benchBytes)
	raw := packetized(b, plain, WithPacketSize(4096))
	dst := make([]byte, 0, len(plain))
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, _, err = Depacketize(dst[:0], raw); err != nil || len(dst) != len(plain) {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(raw)/4096)*float64(b.N)/b.Elapsed().Seconds(), "packets/s")
}

func BenchmarkReader4K(b *testing.B) {
	plain := syntheticMetadata(benchBytes)
	raw := packetized(b, plain, WithPacketSize(4096))
	src := bytes.NewReader(raw)
	r, _ := NewReader(src)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(raw)
		r.Reset(src)
		if n, err := r.Content().(io.WriterTo).WriteTo(io.Discard); err != nil || n != int64(len(plain)) {
			b.Fatalf("%d bytes, %v", n, err)
		}
	}
}

func BenchmarkDecodeLTTngMetadata(b *testing.B) {
	raw := vectortest.Read(b, "ctf", "lttng-2.15.1-ust-ctf2-json/trace/metadata")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(44*float64(b.N)/b.Elapsed().Seconds(), "fragments/s")
}

func BenchmarkSeqReaderLTTngMetadata(b *testing.B) {
	raw := vectortest.Read(b, "ctf", "lttng-2.15.1-ust-ctf2-json/trace/metadata")
	src := bytes.NewReader(raw)
	s, _ := NewSeqReader(src)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(raw)
		s.Reset(src)
		for s.Next() {
		}
	}
}

// BenchmarkMemcpy4K is the baseline: copying the same bytes in 4 KiB pieces
// into a buffer as large as the input (as Depacketize does; the streaming
// Reader copies into a 64 KiB buffer that stays in cache, so it can beat
// this).
func BenchmarkMemcpy4K(b *testing.B) {
	src := syntheticMetadata(benchBytes)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		for i := 0; i < len(src); i += 4096 {
			copy(dst[i:], src[i:min(i+4096, len(src))])
		}
	}
}

// bigLTTngMetadata is the LTTng 2.15.1 CTF 2 metadata vector with its
// event-record classes repeated under new ids until the text is at least n
// bytes: the shape of ../shared/bench/refs/ctf's 10.5 MB input (bench.sh
// case E, where tracecat validate is timed beside babeltrace2).
func bigLTTngMetadata(tb testing.TB, n int) []byte {
	raw := vectortest.Read(tb, "ctf", "lttng-2.15.1-ust-ctf2-json/trace/metadata")
	var head []byte
	var ercs []map[string]any
	for _, frag := range bytes.Split(raw, []byte{RS})[1:] {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(frag))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			tb.Fatal(err)
		}
		if m["type"] == "event-record-class" {
			ercs = append(ercs, m)
			continue
		}
		head = append(append(head, RS), frag...)
	}
	out := head
	for id := 0; len(out) < n; id++ {
		m := ercs[id%len(ercs)]
		m["id"] = id
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			tb.Fatal(err)
		}
		out = append(append(append(out, RS), b...), '\n')
	}
	return out
}

// BenchmarkFragmentReaderBig decodes a 10.5 MB CTF 2 metadata stream
// (bigLTTngMetadata) with a FragmentReader, as tracecat validate does.
func BenchmarkFragmentReaderBig(b *testing.B) {
	raw := bigLTTngMetadata(b, 10_500_000)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var frags int
	for b.Loop() {
		d, _ := NewFragmentReader(bytes.NewReader(raw))
		for d.Next() {
		}
		if d.Err() != nil {
			b.Fatal(d.Err())
		}
		frags = len(d.Metadata().Fragments)
	}
	b.ReportMetric(float64(frags)*float64(b.N)/b.Elapsed().Seconds(), "fragments/s")
}

// unknownKeysFragment is an event record class of 200 members whose
// objects (member, field class) carry 8 unknown properties each, as a
// producer's own annotations would.
func unknownKeysFragment() []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"event-record-class","id":1,"name":"annotated","payload-field-class":{"type":"structure","member-classes":[`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"m%d","x-note":"n","x-unit":"ns","x-src":"a.c","x-line":%d,"x-col":4,"x-tag":"t","x-ver":2,"x-opt":true,"field-class":{"type":"fixed-length-unsigned-integer","length":32,"byte-order":"little-endian","x-note":"n","x-unit":"ns","x-src":"a.c","x-line":%d,"x-col":4,"x-tag":"t","x-ver":2,"x-opt":false}}`, i, i, i)
	}
	b.WriteString(`]}}`)
	return b.Bytes()
}

// BenchmarkDecodeUnknownKeys decodes unknownKeysFragment with unknown
// properties allowed (the direct decoder keeps each object's unknown keys
// in a set, to refuse a repeated one as the generic path does).
func BenchmarkDecodeUnknownKeys(b *testing.B) {
	text := unknownKeysFragment()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeFragment(text, WithUnknownProperties(true)); err != nil {
			b.Fatal(err)
		}
	}
}
