package leb128

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	values := []uint64{0, 1, 0x7f, 0x80, 0xff, 0x3fff, 0x4000, 1<<21 - 1, 1 << 21, 1<<35 + 5, 1<<56 - 1, 1 << 63, math.MaxUint64}
	for _, v := range values {
		b := Append(nil, v)
		if len(b) != Size(v) {
			t.Errorf("Size(%d) = %d, Append wrote %d", v, Size(v), len(b))
		}
		if want := binary.AppendUvarint(nil, v); string(want) != string(b) {
			t.Errorf("Append(%d) = %x, want %x", v, b, want)
		}
		got, n := Decode(append(b, 0xAA))
		if got != v || n != len(b) {
			t.Errorf("Decode(%x) = %d,%d want %d,%d", b, got, n, v, len(b))
		}
		for i := 0; i < len(b); i++ {
			if _, n := Decode(b[:i]); n != Truncated {
				t.Errorf("Decode(prefix %x) n=%d, want Truncated", b[:i], n)
			}
		}
	}
}

func TestRejects(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want int
	}{
		{"eleven bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, Overflow},
		{"tenth byte 0x02", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, Overflow},
		{"tenth byte continues", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81}, Overflow},
		{"empty", nil, Truncated},
		{"dangling continuation", []byte{0x80}, Truncated},
	}
	for _, c := range cases {
		if _, n := Decode(c.in); n != c.want {
			t.Errorf("%s: n=%d want %d", c.name, n, c.want)
		}
		// Must agree with encoding/binary on what is rejected.
		if _, bn := binary.Uvarint(c.in); (bn > 0) != (c.want > 0) {
			t.Errorf("%s: disagrees with encoding/binary (n=%d)", c.name, bn)
		}
	}
	max := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	if v, n := Decode(max); v != math.MaxUint64 || n != 10 {
		t.Errorf("max: %d,%d", v, n)
	}
}

func TestAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	enc := Append(nil, 1<<40)
	if a := testing.AllocsPerRun(100, func() {
		buf = Append(buf[:0], 300)
		_, _ = Decode(enc)
	}); a != 0 {
		t.Fatalf("allocs = %v", a)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{0x80, 0x01})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n := Decode(b)
		bv, bn := binary.Uvarint(b)
		if n > 0 != (bn > 0) || (n > 0 && (v != bv || n != bn)) {
			t.Fatalf("Decode(%x)=%d,%d binary=%d,%d", b, v, n, bv, bn)
		}
		if n > 0 && n == Size(v) {
			if got := Append(nil, v); string(got) != string(b[:n]) {
				t.Fatalf("re-encode %x != %x", got, b[:n])
			}
		}
	})
}

var sink uint64

func TestNaiveAgrees(t *testing.T) {
	for _, in := range [][]byte{{0}, {0x80, 1}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, {0x80}} {
		v1, n1 := Decode(in)
		v2, n2 := naiveDecode(in)
		if v1 != v2 || n1 != n2 {
			t.Errorf("%x: Decode %d,%d naive %d,%d", in, v1, n1, v2, n2)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, v := range []uint64{5, 300, 70000, 1 << 40} {
		in := Append(nil, v)
		name := fmt.Sprintf("%dB", len(in))
		b.Run("binary/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				v, _ := Decode(in)
				sink += v
			}
		})
		b.Run("naive/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				v, _ := naiveDecode(in)
				sink += v
			}
		})
	}
}

func BenchmarkAppend(b *testing.B) {
	buf := make([]byte, 0, 16)
	for _, v := range []uint64{5, 300, 1 << 40} {
		b.Run(fmt.Sprintf("%dB", Size(v)), func(b *testing.B) {
			b.SetBytes(int64(Size(v)))
			b.ReportAllocs()
			for b.Loop() {
				buf = Append(buf[:0], v)
			}
		})
	}
}
