// Package wire holds the bounds-checked byte cursor and the append helpers that
// the format packages use to read and write fixed-width integers and floats.
//
// A Cursor never panics and never reads past its input: a read that does not fit
// marks the cursor failed, returns zero, and every later read also returns zero.
// Callers read a whole record and check Failed once, which keeps the hot path free
// of per-field error plumbing. All methods are allocation-free.
package wire

import (
	"encoding/binary"
	"math"

	"github.com/tracecodec/tracecodec/internal/leb128"
)

// Cursor reads little-endian (or, with NewBigEndianCursor, big-endian) values from
// a byte slice. Its zero value is an empty little-endian cursor.
type Cursor struct {
	buf    []byte
	pos    int
	base   int64 // absolute offset of buf[0] in the whole input
	big    bool
	failed bool
	failAt int64
}

// NewCursor returns a little-endian cursor over buf whose offsets start at base.
func NewCursor(buf []byte, base int64) Cursor {
	return Cursor{buf: buf, base: base}
}

// NewBigEndianCursor returns a big-endian cursor over buf whose offsets start at base.
func NewBigEndianCursor(buf []byte, base int64) Cursor {
	return Cursor{buf: buf, base: base, big: true}
}

// Reset points the cursor at a new buffer, keeping its byte order.
func (c *Cursor) Reset(buf []byte, base int64) {
	*c = Cursor{buf: buf, base: base, big: c.big}
}

// SetBigEndian switches the byte order used by later reads.
func (c *Cursor) SetBigEndian(big bool) { c.big = big }

// BigEndian reports whether the cursor reads big-endian values.
func (c *Cursor) BigEndian() bool { return c.big }

// Offset is the absolute offset of the next byte to be read.
func (c *Cursor) Offset() int64 { return c.base + int64(c.pos) }

// Pos is the position of the next byte relative to the start of the buffer.
func (c *Cursor) Pos() int { return c.pos }

// Len is the number of unread bytes.
func (c *Cursor) Len() int { return len(c.buf) - c.pos }

// Failed reports whether any read ran past the end of the input.
func (c *Cursor) Failed() bool { return c.failed }

// FailOffset is the absolute offset of the first read that did not fit.
func (c *Cursor) FailOffset() int64 { return c.failAt }

// Rest returns the unread bytes without consuming them.
func (c *Cursor) Rest() []byte { return c.buf[c.pos:] }

// take returns the next n bytes, or nil and marks the cursor failed.
func (c *Cursor) take(n int) []byte {
	if c.failed || n < 0 || n > len(c.buf)-c.pos {
		c.fail()
		return nil
	}
	b := c.buf[c.pos : c.pos+n : c.pos+n]
	c.pos += n
	return b
}

// fail records the first failure and exhausts the cursor, so that every later
// fixed-size read fails its length check without testing c.failed.
func (c *Cursor) fail() {
	if !c.failed {
		c.failed = true
		c.failAt = c.base + int64(c.pos)
	}
	c.pos = len(c.buf)
}

// Has reports whether at least n unread bytes remain (false for negative n).
func (c *Cursor) Has(n int) bool { return !c.failed && n >= 0 && n <= len(c.buf)-c.pos }

// Skip advances past n bytes.
func (c *Cursor) Skip(n int) { c.take(n) }

// Bytes returns the next n bytes as a view into the input (no copy). n is checked
// against the remaining input before anything else happens; a negative or too
// large n fails the cursor and returns nil.
func (c *Cursor) Bytes(n int) []byte { return c.take(n) }

// BytesU64 is Bytes for a length read from the input as an unsigned 64-bit value.
func (c *Cursor) BytesU64(n uint64) []byte {
	if n > uint64(len(c.buf)-c.pos) {
		c.fail()
		return nil
	}
	return c.take(int(n))
}

// U8 reads one byte.
func (c *Cursor) U8() uint8 {
	if c.pos >= len(c.buf) {
		c.fail()
		return 0
	}
	v := c.buf[c.pos]
	c.pos++
	return v
}

// U16 reads a 16-bit unsigned integer.
func (c *Cursor) U16() uint16 {
	if len(c.buf)-c.pos < 2 {
		c.fail()
		return 0
	}
	b := c.buf[c.pos : c.pos+2]
	c.pos += 2
	if c.big {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

// U24 reads a 24-bit unsigned integer.
func (c *Cursor) U24() uint32 {
	b := c.take(3)
	if b == nil {
		return 0
	}
	if c.big {
		return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
}

// U32 reads a 32-bit unsigned integer.
func (c *Cursor) U32() uint32 {
	if len(c.buf)-c.pos < 4 {
		c.fail()
		return 0
	}
	b := c.buf[c.pos : c.pos+4]
	c.pos += 4
	if c.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// U64 reads a 64-bit unsigned integer.
func (c *Cursor) U64() uint64 {
	if len(c.buf)-c.pos < 8 {
		c.fail()
		return 0
	}
	b := c.buf[c.pos : c.pos+8]
	c.pos += 8
	if c.big {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// I16 reads a 16-bit two's-complement integer.
func (c *Cursor) I16() int16 { return int16(c.U16()) }

// I32 reads a 32-bit two's-complement integer.
func (c *Cursor) I32() int32 { return int32(c.U32()) }

// I64 reads a 64-bit two's-complement integer.
func (c *Cursor) I64() int64 { return int64(c.U64()) }

// F32 reads an IEEE-754 single.
func (c *Cursor) F32() float32 { return math.Float32frombits(c.U32()) }

// F64 reads an IEEE-754 double.
func (c *Cursor) F64() float64 { return math.Float64frombits(c.U64()) }

// Uvarint reads an unsigned LEB128 value (at most 10 bytes, no overflow of the
// 10th). A malformed or truncated value fails the cursor.
func (c *Cursor) Uvarint() uint64 {
	if c.failed {
		return 0
	}
	if c.pos < len(c.buf) && c.buf[c.pos] < 0x80 {
		v := c.buf[c.pos]
		c.pos++
		return uint64(v)
	}
	if c.pos+1 < len(c.buf) && c.buf[c.pos+1] < 0x80 {
		v := uint64(c.buf[c.pos]&0x7f) | uint64(c.buf[c.pos+1])<<7
		c.pos += 2
		return v
	}
	v, n := leb128.Decode(c.buf[c.pos:])
	if n <= 0 {
		c.fail()
		return 0
	}
	c.pos += n
	return v
}
