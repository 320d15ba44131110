package dial9

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf8"
)

// errShort means the frame continues past the bytes available: a streaming
// Reader reads more and retries; at the end of the input it becomes an
// ErrTruncated FormatError for the frame.
var errShort = errors.New("short buffer")

// noLimits re-walks values that were validated already.
var noLimits = Limits{MaxStringLen: 1 << 62, MaxStackFrames: 1 << 62, MaxMapEntries: 1 << 62, MaxPoolEntries: 1 << 62,
	MaxDepth: 1 << 30, MaxFrameSize: 1 << 62, MaxPoolBytes: 1 << 62}

// uvarint decodes unsigned LEB128 as the upstream decoder does: overlong
// encodings are accepted, bits beyond 64 in the 10th byte are dropped, and
// an encoding that needs an 11th byte is invalid. n is the length, 0 when b
// ends inside the value, -1 when it is longer than 10 bytes.
func uvarint(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	var shift uint
	for i := 0; i < len(b); i++ {
		if i == 10 {
			return 0, -1
		}
		c := b[i]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i + 1
		}
		shift += 7
	}
	if len(b) >= 10 {
		return 0, -1
	}
	return 0, 0
}

// varint8 decodes a varint from the first bytes of x, 8 input bytes read
// little-endian: the value and its length in bytes, or k == 0 if none of
// the 8 bytes ends it (a longer varint, left to the caller).
func varint8(x uint64) (v uint64, k int) {
	stop := ^x & 0x8080808080808080 // the high bit of each byte that ends a varint
	if stop == 0 {
		return 0, 0
	}
	x &= stop ^ (stop - 1) // the bytes up to the first end
	// Drop the continuation bits, joining 7-bit groups into 14, 28 and 56.
	x = x&0x007f007f007f007f | (x&0x7f007f007f007f00)>>1
	x = x&0x00003fff00003fff | (x&0x3fff00003fff0000)>>2
	x = x&0x000000000fffffff | (x&0x0fffffff00000000)>>4
	return x, bits.TrailingZeros64(stop)>>3 + 1
}

// uvarintLong is uvarint for a value whose first byte is not known to be
// below 0x80; with 10 bytes available it decodes without per-byte checks.
func uvarintLong(b []byte) (v uint64, n int) {
	if len(b) < 10 {
		return uvarint(b)
	}
	s := b[:10]
	for i, c := range s {
		v |= uint64(c&0x7f) << (7 * uint(i))
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, -1
}

// scanner validates and skips field values; base is the absolute offset of
// the buffer's first byte (for error offsets).
type scanner struct {
	lim       *Limits
	base      int64
	streaming bool // check limits before waiting for more bytes
}

// check validates a declared count n (at b[at]) of items of minSize bytes
// starting at b[p]: over the limit is ErrLimit, more than the buffer holds
// is errShort. A byte-slice input reports truncation first.
func (s *scanner) check(b []byte, at, p int, n, limit, minSize int64, what string) error {
	short := int64(len(b)-p) < n*minSize
	if short && !s.streaming {
		return errShort
	}
	if n > limit {
		return newErr(s.off(at), ErrLimit, "%s %d exceeds the limit of %d", what, n, limit)
	}
	if short {
		return errShort
	}
	return nil
}

func (s *scanner) off(p int) int64 { return s.base + int64(p) }

// skip validates the value of type t (no Optional bit handling for
// container elements; see skipField) starting at b[p:] and returns the
// offset just past it.
func (s *scanner) skip(b []byte, p int, t FieldType, depth int) (int, error) {
	switch t {
	case TypeVarint:
		for i := 0; ; i++ {
			if p+i >= len(b) {
				return 0, errShort
			}
			if i == 10 {
				return 0, newErr(s.off(p), ErrCorrupt, "varint longer than 10 bytes")
			}
			if b[p+i] < 0x80 {
				return p + i + 1, nil
			}
		}
	case TypeU8, TypeBool:
		if p >= len(b) {
			return 0, errShort
		}
		return p + 1, nil
	case TypeU16:
		if len(b)-p < 2 {
			return 0, errShort
		}
		return p + 2, nil
	case TypeU32, TypePooledString, TypePooledStackFrames:
		if len(b)-p < 4 {
			return 0, errShort
		}
		return p + 4, nil
	case TypeI64, TypeF64:
		if len(b)-p < 8 {
			return 0, errShort
		}
		return p + 8, nil
	case TypeString, TypeBytes:
		return s.skipLen(b, p, "string length")
	case TypeStackFrames:
		if len(b)-p < 4 {
			return 0, errShort
		}
		n := int64(binary.LittleEndian.Uint32(b[p:]))
		if err := s.check(b, p, p+4, n, s.lim.MaxStackFrames, 8, "stack frame count"); err != nil {
			return 0, err
		}
		return p + 4 + int(8*n), nil
	case TypeStringMap:
		if len(b)-p < 4 {
			return 0, errShort
		}
		n := int64(binary.LittleEndian.Uint32(b[p:]))
		if err := s.check(b, p, p+4, n, s.lim.MaxMapEntries, 8, "string map entry count"); err != nil {
			return 0, err
		}
		p += 4
		var err error
		for range n {
			if p, err = s.skipLen(b, p, "map key length"); err != nil {
				return 0, err
			}
			if p, err = s.skipLen(b, p, "map value length"); err != nil {
				return 0, err
			}
		}
		return p, nil
	case TypeDynamicList, TypeDynamicMap:
		if depth >= s.lim.MaxDepth {
			return 0, newErr(s.off(p), ErrLimit, "dynamic containers nested deeper than %d", s.lim.MaxDepth)
		}
		if len(b)-p < 4 {
			return 0, errShort
		}
		n := int64(binary.LittleEndian.Uint32(b[p:]))
		per := int64(1)
		if t == TypeDynamicMap {
			per = 2
		}
		// every element is a tag and at least one byte
		if err := s.check(b, p, p+4, n, s.lim.MaxMapEntries, 2*per, "dynamic container element count"); err != nil {
			return 0, err
		}
		p += 4
		var err error
		for range n * per {
			if p >= len(b) {
				return 0, errShort
			}
			et := FieldType(b[p])
			if !et.Valid() {
				return 0, newErr(s.off(p), ErrUnknownFieldType, "unknown element type tag %#02x in a dynamic container", uint8(et))
			}
			// Upstream decodes an element tag with the optional bit as its
			// inner type without a presence byte.
			if p, err = s.skip(b, p+1, et.Base(), depth+1); err != nil {
				return 0, err
			}
		}
		return p, nil
	}
	return 0, newErr(s.off(p), ErrUnknownFieldType, "unknown field type %#02x", uint8(t))
}

func (s *scanner) skipLen(b []byte, p int, what string) (int, error) {
	if len(b)-p < 4 {
		return 0, errShort
	}
	n := int64(binary.LittleEndian.Uint32(b[p:]))
	if err := s.check(b, p, p+4, n, s.lim.MaxStringLen, 1, what); err != nil {
		return 0, err
	}
	return p + 4 + int(n), nil
}

// skipField skips one schema field, handling the Optional presence byte.
// absent reports an absent optional value; start is where the inner
// encoding begins.
func (s *scanner) skipField(b []byte, p int, t FieldType) (start, end int, absent bool, err error) {
	if t&Optional != 0 {
		if p >= len(b) {
			return 0, 0, false, errShort
		}
		if b[p] == 0 {
			return p + 1, p + 1, true, nil
		}
		p++
		t = t.Base()
	}
	end, err = s.skip(b, p, t, 0)
	return p, end, false, err
}

func validName(b []byte) bool { return utf8.Valid(b) }
