package dial9

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Value is an owned field value for tools: the generic form of WriteEvent
// and what View.Value returns. Type is the base field type; Type 0 is an
// absent optional value.
type Value struct {
	Type  FieldType
	U     uint64   // Varint, U8, U16, U32, Bool (0/1), I64 (two's complement), pool ids
	F     float64  // F64
	S     string   // String
	B     []byte   // Bytes
	Stack []uint64 // StackFrames
	Pairs []KV     // StringMap
	Elems []Value  // DynamicList elements; DynamicMap alternating keys and values
}

// Varint is a Varint value.
func Varint(v uint64) Value { return Value{Type: TypeVarint, U: v} }

// U8 is a U8 value.
func U8(v uint8) Value { return Value{Type: TypeU8, U: uint64(v)} }

// U16 is a U16 value.
func U16(v uint16) Value { return Value{Type: TypeU16, U: uint64(v)} }

// U32 is a U32 value.
func U32(v uint32) Value { return Value{Type: TypeU32, U: uint64(v)} }

// I64 is an I64 value.
func I64(v int64) Value { return Value{Type: TypeI64, U: uint64(v)} }

// F64 is an F64 value.
func F64(v float64) Value { return Value{Type: TypeF64, F: v} }

// String is a String value.
func String(s string) Value { return Value{Type: TypeString, S: s} }

// Bytes is a Bytes value.
func Bytes(b []byte) Value { return Value{Type: TypeBytes, B: b} }

// PooledString is a PooledString value (a string-pool id).
func PooledString(id uint32) Value { return Value{Type: TypePooledString, U: uint64(id)} }

// PooledStack is a PooledStackFrames value (a stack-pool id).
func PooledStack(id uint32) Value { return Value{Type: TypePooledStackFrames, U: uint64(id)} }

// StackFrames is a StackFrames value.
func StackFrames(frames ...uint64) Value { return Value{Type: TypeStackFrames, Stack: frames} }

// StringMap is a StringMap value; order and duplicate keys are kept.
func StringMap(pairs ...KV) Value { return Value{Type: TypeStringMap, Pairs: pairs} }

// List is a DynamicList value.
func List(elems ...Value) Value { return Value{Type: TypeDynamicList, Elems: elems} }

// Map is a DynamicMap value from alternating keys and values.
func Map(keysAndValues ...Value) Value { return Value{Type: TypeDynamicMap, Elems: keysAndValues} }

// Bool is a Bool value.
func Bool(v bool) Value {
	if v {
		return Value{Type: TypeBool, U: 1}
	}
	return Value{Type: TypeBool}
}

// Absent is an absent optional value.
func Absent() Value { return Value{} }

// appendElems writes container elements with their type tags.
func appendElems(dst []byte, elems []Value, per, depth int) ([]byte, error) {
	if depth > 64 {
		return dst, fmt.Errorf("%w: dynamic containers nested deeper than 64", ErrEncode)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(elems)/per))
	for _, v := range elems {
		var err error
		if dst, err = appendTagged(dst, v, depth); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func appendTagged(dst []byte, v Value, depth int) ([]byte, error) {
	if !v.Type.Valid() || v.Type.IsOptional() {
		return dst, fmt.Errorf("%w: dynamic container element with type %#02x", ErrEncode, uint8(v.Type))
	}
	dst = append(dst, byte(v.Type))
	switch v.Type {
	case TypeI64:
		dst = binary.LittleEndian.AppendUint64(dst, v.U)
	case TypeF64:
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.F))
	case TypeBool:
		if v.U != 0 {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case TypeString:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v.S)))
		dst = append(dst, v.S...)
	case TypeBytes:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v.B)))
		dst = append(dst, v.B...)
	case TypePooledString, TypePooledStackFrames:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(v.U))
	case TypeStackFrames:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v.Stack)))
		for _, f := range v.Stack {
			dst = binary.LittleEndian.AppendUint64(dst, f)
		}
	case TypeVarint:
		dst = binary.AppendUvarint(dst, v.U)
	case TypeStringMap:
		dst = appendStringMap(dst, v.Pairs)
	case TypeU8:
		dst = append(dst, byte(v.U))
	case TypeU16:
		dst = binary.LittleEndian.AppendUint16(dst, uint16(v.U))
	case TypeU32:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(v.U))
	case TypeDynamicList:
		return appendElems(dst, v.Elems, 1, depth+1)
	case TypeDynamicMap:
		if len(v.Elems)%2 != 0 {
			return dst, fmt.Errorf("%w: DynamicMap needs an even number of keys and values", ErrEncode)
		}
		return appendElems(dst, v.Elems, 2, depth+1)
	}
	return dst, nil
}

// Value converts the view to an owned Value (it allocates for strings,
// bytes, stacks and containers). An absent optional field is Value{}.
func (v View) Value() Value {
	if v.absent {
		return Value{}
	}
	t := v.typ.Base()
	out := Value{Type: t}
	switch t {
	case TypeF64:
		out.F = v.Float()
	case TypeString:
		out.S = string(v.Bytes())
	case TypeBytes:
		out.B = append([]byte{}, v.Bytes()...)
	case TypeStackFrames:
		out.Stack = v.Stack().AppendTo([]uint64{})
	case TypeStringMap:
		out.Pairs = []KV{}
		for k, val := range v.Pairs() {
			out.Pairs = append(out.Pairs, KV{string(k), string(val)})
		}
	case TypeDynamicList:
		out.Elems = []Value{}
		for el := range v.Elems() {
			out.Elems = append(out.Elems, el.Value())
		}
	case TypeDynamicMap:
		out.Elems = []Value{}
		for k, val := range v.Entries() {
			out.Elems = append(out.Elems, k.Value(), val.Value())
		}
	default:
		out.U = v.Uint()
	}
	return out
}
