package dial9

import (
	"encoding/binary"
	"iter"
	"math"
	"unsafe"
)

// Stack is a zero-copy view of stack-frame addresses stored as little-endian
// u64 values (a StackFrames value or a stack-pool entry), leaf first as
// written by tokio telemetry.
type Stack struct {
	a [][8]byte // one element per address: At's index is its bounds check
}

// stackOf is the Stack of the encoded addresses b (len(b) a multiple of 8).
// The view is an array of 8-byte groups, so that At(i) checks only
// i < Len(), which a loop over the stack proves (no per-address check).
//
// The view's slice is built from its three words (stackHeader), not by
// unsafe.Slice, whose checks of the length's product and the end address
// (a multiplication whose overflow flag is tested, and the registers it
// takes) cost 7 instructions per event reading every field of the
// codec_iai stream, one stack in five events. Both are known to hold: the
// view covers b's own bytes. TestStackOfMatchesUnsafeSlice pins the
// layout.
func stackOf(b []byte) Stack {
	n := len(b) >> 3
	if n == 0 {
		return Stack{}
	}
	h := stackHeader{(*[8]byte)(unsafe.Pointer(unsafe.SliceData(b))), n, n}
	return Stack{*(*[][8]byte)(unsafe.Pointer(&h))}
}

// stackHeader has a slice's layout (data, length, capacity): a [][8]byte
// read through it is the slice of those words.
type stackHeader struct {
	data     *[8]byte
	len, cap int
}

// Len is the number of addresses.
func (s Stack) Len() int { return len(s.a) }

// At returns address i (0 ≤ i < Len()).
func (s Stack) At(i int) uint64 { return binary.LittleEndian.Uint64(s.a[i][:]) }

// AppendTo appends the addresses to dst.
func (s Stack) AppendTo(dst []uint64) []uint64 {
	for i := range s.a {
		dst = append(dst, binary.LittleEndian.Uint64(s.a[i][:]))
	}
	return dst
}

// Raw returns the encoded addresses (8 bytes each, little-endian).
func (s Stack) Raw() []byte {
	if len(s.a) == 0 {
		return nil
	}
	return unsafe.Slice(&s.a[0][0], 8*len(s.a))
}

// View is a zero-copy view of one decoded field value, valid as long as the
// Event it came from. Accessors that do not match the field's type return the
// zero value.
//
// The slice comes first: 24 + 1 + 1 bytes pad to 32, the size up to which
// the compiler keeps a View in registers (typ first padded it to 40).
type View struct {
	raw    []byte    // the inner encoding (after any presence byte)
	typ    FieldType // declared type, possibly with the Optional bit
	absent bool
}

// Type is the field's declared type (with the Optional bit if optional).
func (v View) Type() FieldType { return v.typ }

// Present is false for an absent optional field.
func (v View) Present() bool { return !v.absent }

// Raw is the value's encoding (without the presence byte), nil when absent.
func (v View) Raw() []byte { return v.raw }

// Uint returns a Varint, U8, U16, U32 or Bool (0/1) value, the bits of an
// I64 or F64, or a pool id.
func (v View) Uint() uint64 {
	if v.absent {
		return 0
	}
	switch v.typ.Base() {
	case TypeVarint:
		x, _ := uvarint(v.raw)
		return x
	case TypeU8:
		return uint64(v.raw[0])
	case TypeBool:
		if v.raw[0] != 0 {
			return 1
		}
		return 0
	case TypeU16:
		return uint64(binary.LittleEndian.Uint16(v.raw))
	case TypeU32, TypePooledString, TypePooledStackFrames:
		return uint64(binary.LittleEndian.Uint32(v.raw))
	case TypeI64, TypeF64:
		return binary.LittleEndian.Uint64(v.raw)
	}
	return 0
}

// Int returns an I64 value, or an unsigned value converted to int64.
func (v View) Int() int64 { return int64(v.Uint()) }

// Float returns an F64 value.
func (v View) Float() float64 {
	if v.absent || v.typ.Base() != TypeF64 {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(v.raw))
}

// Bool returns a Bool value (any non-zero byte is true, as upstream decodes).
func (v View) Bool() bool {
	return !v.absent && v.typ.Base() == TypeBool && v.raw[0] != 0
}

// Bytes returns the content of a String or Bytes value without copying.
// String contents are not checked for UTF-8.
func (v View) Bytes() []byte {
	if v.absent {
		return nil
	}
	switch v.typ.Base() {
	case TypeString, TypeBytes:
		return v.raw[4:]
	}
	return nil
}

// Str returns a String value as a Go string (a copy; it allocates).
func (v View) Str() string { return string(v.Bytes()) }

// PoolID returns the id of a PooledString or PooledStackFrames value.
func (v View) PoolID() uint32 {
	if v.absent {
		return 0
	}
	switch v.typ.Base() {
	case TypePooledString, TypePooledStackFrames:
		return binary.LittleEndian.Uint32(v.raw)
	}
	return 0
}

// Stack returns a StackFrames value.
func (v View) Stack() Stack {
	if v.absent || v.typ.Base() != TypeStackFrames {
		return Stack{}
	}
	return stackOf(v.raw[4:])
}

// Len is the number of pairs of a StringMap or elements of a DynamicList or
// DynamicMap.
func (v View) Len() int {
	if v.absent {
		return 0
	}
	switch v.typ.Base() {
	case TypeStringMap, TypeDynamicList, TypeDynamicMap:
		return int(binary.LittleEndian.Uint32(v.raw))
	}
	return 0
}

// Pairs iterates over a StringMap's key/value pairs in stream order
// (duplicate keys are kept).
func (v View) Pairs() iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		if v.absent || v.typ.Base() != TypeStringMap {
			return
		}
		b := v.raw
		n := binary.LittleEndian.Uint32(b)
		p := 4
		for range n {
			kl := int(binary.LittleEndian.Uint32(b[p:]))
			k := b[p+4 : p+4+kl]
			p += 4 + kl
			vl := int(binary.LittleEndian.Uint32(b[p:]))
			val := b[p+4 : p+4+vl]
			p += 4 + vl
			if !yield(k, val) {
				return
			}
		}
	}
}

// Elems iterates over a DynamicList's elements. Each element carries its own
// type tag.
func (v View) Elems() iter.Seq[View] {
	return func(yield func(View) bool) {
		if v.absent || v.typ.Base() != TypeDynamicList {
			return
		}
		b := v.raw
		n := binary.LittleEndian.Uint32(b)
		p := 4
		for range n {
			el, next := v.elem(b, p)
			p = next
			if !yield(el) {
				return
			}
		}
	}
}

// Entries iterates over a DynamicMap's key/value entries in stream order.
func (v View) Entries() iter.Seq2[View, View] {
	return func(yield func(View, View) bool) {
		if v.absent || v.typ.Base() != TypeDynamicMap {
			return
		}
		b := v.raw
		n := binary.LittleEndian.Uint32(b)
		p := 4
		for range n {
			k, next := v.elem(b, p)
			val, next2 := v.elem(b, next)
			p = next2
			if !yield(k, val) {
				return
			}
		}
	}
}

// elem decodes one tagged container element at b[p:], already validated.
func (v View) elem(b []byte, p int) (View, int) {
	t := FieldType(b[p]).Base() // upstream reads an element's optional bit as no presence byte
	// The container was validated when its event was decoded.
	sc := scanner{lim: &noLimits}
	end, err := sc.skip(b, p+1, t, 1)
	if err != nil { // cannot happen on validated input; stay safe
		return View{typ: t, absent: true}, len(b)
	}
	return View{typ: t, raw: b[p+1 : end]}, end
}
