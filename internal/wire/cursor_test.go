package wire

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestCursorLittleEndian(t *testing.T) {
	var b []byte
	b = AppendU8(b, 0xAB)
	b = AppendU16(b, 0x1234)
	b = AppendU24(b, 0x56789A)
	b = AppendU32(b, 0xDEADBEEF)
	b = AppendU64(b, 0x0102030405060708)
	b = AppendI32(b, -5)
	b = AppendI64(b, -6)
	b = AppendF32(b, 1.5)
	b = AppendF64(b, math.Pi)
	b = AppendUvarint(b, 300)
	b = append(b, "tail"...)
	c := NewCursor(b, 100)
	if c.U8() != 0xAB || c.U16() != 0x1234 || c.U24() != 0x56789A || c.U32() != 0xDEADBEEF ||
		c.U64() != 0x0102030405060708 || c.I32() != -5 || c.I64() != -6 || c.F32() != 1.5 ||
		c.F64() != math.Pi || c.Uvarint() != 300 {
		t.Fatal("value mismatch")
	}
	if c.Offset() != 100+int64(len(b))-4 {
		t.Fatalf("offset %d", c.Offset())
	}
	tail := c.Bytes(4)
	if string(tail) != "tail" || c.Failed() || c.Len() != 0 {
		t.Fatal("tail")
	}
	tail[0] = 'T' // zero-copy view
	if b[len(b)-4] != 'T' {
		t.Fatal("Bytes copied")
	}
}

func TestCursorBigEndian(t *testing.T) {
	var b []byte
	b = AppendU16BE(b, 0x1234)
	b = AppendU24BE(b, 0x56789A)
	b = AppendU32BE(b, 0x75d11d57)
	b = AppendU64BE(b, 0x0102030405060708)
	c := NewBigEndianCursor(b, 0)
	if !c.BigEndian() || c.U16() != 0x1234 || c.U24() != 0x56789A || c.U32() != 0x75d11d57 || c.U64() != 0x0102030405060708 {
		t.Fatal("big-endian mismatch")
	}
	c.Reset(b[:4], 0)
	c.SetBigEndian(false)
	if c.U32() != 0x78563412 {
		t.Fatal("switch order")
	}
}

func TestCursorFailureIsSticky(t *testing.T) {
	c := NewCursor([]byte{1, 2, 3}, 10)
	if c.U16() != 0x0201 {
		t.Fatal("u16")
	}
	if c.U32() != 0 || !c.Failed() || c.FailOffset() != 12 {
		t.Fatalf("expected failure at 12, got failed=%v at %d", c.Failed(), c.FailOffset())
	}
	if c.U8() != 0 || c.FailOffset() != 12 {
		t.Fatal("not sticky")
	}
	for _, n := range []int{-1, 4, math.MaxInt} {
		c := NewCursor([]byte{1, 2, 3}, 0)
		if c.Bytes(n) != nil || !c.Failed() {
			t.Fatalf("Bytes(%d) accepted", n)
		}
	}
	c = NewCursor([]byte{1, 2, 3}, 0)
	if c.BytesU64(math.MaxUint64) != nil || !c.Failed() {
		t.Fatal("BytesU64 accepted huge length")
	}
	c = NewCursor([]byte{0x80, 0x80}, 0)
	if c.Uvarint(); !c.Failed() {
		t.Fatal("truncated uvarint accepted")
	}
	c = NewCursor(nil, 0)
	if c.U8(); !c.Failed() || c.Has(0) {
		t.Fatal("empty")
	}
	c = NewCursor([]byte{1}, 0)
	if !c.Has(1) || c.Has(2) || c.Has(-1) {
		t.Fatal("Has")
	}
}

func TestAllocs(t *testing.T) {
	b := make([]byte, 0, 64)
	if a := testing.AllocsPerRun(100, func() {
		b = AppendU32(b[:0], 7)
		b = AppendU64(b, 8)
		b = AppendUvarint(b, 1<<20)
		b = AppendU32BE(b, 9)
		c := NewCursor(b, 0)
		_ = c.U32() + uint32(c.U64()) + uint32(c.Uvarint())
		_ = c.Bytes(4)
	}); a != 0 {
		t.Fatalf("allocs = %v", a)
	}
}

var sink uint64

func BenchmarkCursorU32(b *testing.B) {
	buf := make([]byte, 4096)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		c := NewCursor(buf, 0)
		for c.Len() >= 4 {
			sink += uint64(c.U32())
		}
	}
}

// BenchmarkBinaryU32 is the floor: encoding/binary on a pre-checked slice.
func BenchmarkBinaryU32(b *testing.B) {
	buf := make([]byte, 4096)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		for i := 0; i+4 <= len(buf); i += 4 {
			sink += uint64(binary.LittleEndian.Uint32(buf[i:]))
		}
	}
}

func TestUvarintTwoByteFastPath(t *testing.T) {
	for _, v := range []uint64{0x80, 300, 0x3fff} {
		c := NewCursor(AppendUvarint(nil, v), 0)
		if got := c.Uvarint(); got != v || c.Len() != 0 {
			t.Fatalf("%d: got %d, %d left", v, got, c.Len())
		}
	}
}

func BenchmarkCursorMixed(b *testing.B) {
	var rec []byte
	rec = AppendU8(rec, 1)
	rec = AppendU16(rec, 2)
	rec = AppendU32(rec, 3)
	rec = AppendU64(rec, 4)
	rec = AppendUvarint(rec, 300)
	buf := make([]byte, 0, 4096)
	for len(buf)+len(rec) <= cap(buf) {
		buf = append(buf, rec...)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		c := NewCursor(buf, 0)
		for c.Len() >= len(rec) {
			sink += uint64(c.U8()) + uint64(c.U16()) + uint64(c.U32()) + c.U64() + c.Uvarint()
		}
	}
}

func BenchmarkAppendMixed(b *testing.B) {
	buf := make([]byte, 0, 4096)
	b.SetBytes(16 * 17)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for range 16 {
			buf = AppendU8(buf, 1)
			buf = AppendU16(buf, 2)
			buf = AppendU32(buf, 3)
			buf = AppendU64(buf, 4)
			buf = AppendUvarint(buf, 300)
		}
	}
}
