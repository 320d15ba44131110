package wtfcff

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf16"
)

// Value is one decoded event argument: a view into the event buffer and the
// chunk's string table, valid as long as the event is. Accessors convert
// where it makes sense (Int on a uint8, Float on an int32) and return zero
// values for null or mismatched kinds; nothing allocates except String.
type Value struct {
	Type ArgType
	null bool
	big  bool   // array elements are big-endian (legacy format)
	word uint32 // scalar slot value, already in host order
	data []byte // string bytes, or packed array elements (Len of them)
}

// IsNull reports a null string, any or array.
func (v Value) IsNull() bool { return v.null }

// Bool returns a bool argument (any non-zero byte is true).
func (v Value) Bool() bool { return v.word&0xFF != 0 }

// Int returns an integer argument, sign-extended for the signed types; for
// char and wchar the character code, for float32 the truncated value.
func (v Value) Int() int64 {
	switch v.Type {
	case ArgBool:
		if v.Bool() {
			return 1
		}
		return 0
	case ArgInt8:
		return int64(int8(v.word))
	case ArgInt16:
		return int64(int16(v.word))
	case ArgInt32:
		return int64(int32(v.word))
	case ArgUint8, ArgChar:
		return int64(uint8(v.word))
	case ArgUint16, ArgWChar:
		return int64(uint16(v.word))
	case ArgUint32, ArgFlowID, ArgTime32:
		return int64(v.word)
	case ArgFloat32:
		return int64(math.Float32frombits(v.word))
	}
	return 0
}

// Uint returns Int as an unsigned value.
func (v Value) Uint() uint64 { return uint64(v.Int()) }

// Float returns a float32 argument widened to float64, or an integer argument
// converted.
func (v Value) Float() float64 {
	// The two commonest types inline; floatOther converts the others.
	switch v.Type {
	case ArgUint32:
		return float64(v.word)
	case ArgFloat32:
		return float64(math.Float32frombits(v.word))
	}
	return v.floatOther()
}

func (v Value) floatOther() float64 {
	switch v.Type {
	case ArgFlowID, ArgTime32:
		return float64(v.word)
	case ArgInt32:
		return float64(int32(v.word))
	}
	return float64(v.Int())
}

// Float32 returns a float32 argument.
func (v Value) Float32() float32 { return math.Float32frombits(v.word) }

// Bytes returns the UTF-8 bytes of an ascii, utf8 or any argument (for any,
// the JSON text), the Latin-1 bytes of a char[] or the raw element bytes of
// another array; nil when null.
func (v Value) Bytes() []byte { return v.data }

// Len returns the element count of an array argument (0 when null).
func (v Value) Len() int {
	// elemSize is 1, 2 or 4 for an array (0 otherwise, with data nil or a
	// string's bytes): shift by 0, 1 or 2.
	if es := v.Type.elemSize(); es != 0 {
		return len(v.data) >> (es >> 1)
	}
	return 0
}

// IntAt returns element i of an integer array (sign-extended for signed
// types); for float32[] the truncated value. It panics if i is out of range,
// like a slice index.
func (v Value) IntAt(i int) int64 {
	switch v.Type {
	case ArgInt8Array:
		return int64(int8(v.data[i]))
	case ArgUint8Array, ArgCharArray:
		return int64(v.data[i])
	case ArgInt16Array:
		return int64(int16(v.u16(i)))
	case ArgUint16Array, ArgWCharArray:
		return int64(v.u16(i))
	case ArgInt32Array:
		return int64(int32(v.u32(i)))
	case ArgUint32Array:
		return int64(v.u32(i))
	case ArgFloat32Array:
		return int64(v.FloatAt(i))
	}
	panic("wtfcff: IntAt on a " + v.Type.String() + " argument")
}

// FloatAt returns element i of an array as float64.
func (v Value) FloatAt(i int) float64 {
	if v.Type == ArgFloat32Array {
		u := v.u32(i)
		if v.big {
			// The legacy writer stored float32 elements in host (little-endian) order.
			u = binary.LittleEndian.Uint32(v.data[4*i:])
		}
		return float64(math.Float32frombits(u))
	}
	return float64(v.IntAt(i))
}

func (v Value) u16(i int) uint16 {
	if v.big {
		return binary.BigEndian.Uint16(v.data[2*i:])
	}
	return binary.LittleEndian.Uint16(v.data[2*i:])
}

func (v Value) u32(i int) uint32 {
	if v.big {
		return binary.BigEndian.Uint32(v.data[4*i:])
	}
	return binary.LittleEndian.Uint32(v.data[4*i:])
}

// String returns the argument as a Go string (allocates): the text of a
// string, the JSON text of an any, the character of a char or wchar (Latin-1
// / UTF-16), the text of a char[] or wchar[], and the JSON rendering of other
// values. Null gives "".
func (v Value) String() string {
	switch v.Type {
	case ArgASCII, ArgUTF8, ArgAny:
		return string(v.data)
	case ArgChar:
		return string(rune(uint8(v.word)))
	case ArgWChar:
		return string(utf16.Decode([]uint16{uint16(v.word)}))
	case ArgCharArray:
		r := make([]rune, len(v.data))
		for i, c := range v.data {
			r[i] = rune(c)
		}
		return string(r)
	case ArgWCharArray:
		u := make([]uint16, v.Len())
		for i := range u {
			u[i] = v.u16(i)
		}
		return string(utf16.Decode(u))
	}
	if v.null {
		return ""
	}
	return string(v.AppendJSON(nil))
}

// AppendJSON appends the argument as JSON, the value shape of the package's
// JSON event encoding: numbers for the integer types, flowId and time32 (µs);
// the shortest float32 digits (non-finite values as the strings "NaN",
// "Infinity", "-Infinity"); strings for ascii, utf8, char, wchar, char[] and
// wchar[]; the stored JSON text itself for any (or {"$raw": text} when that
// text is not valid JSON); arrays of numbers; null for null.
func (v Value) AppendJSON(b []byte) []byte {
	if v.null {
		return append(b, "null"...)
	}
	switch v.Type {
	case ArgBool:
		return strconv.AppendBool(b, v.Bool())
	case ArgInt8, ArgInt16, ArgInt32, ArgUint8, ArgUint16, ArgUint32, ArgFlowID, ArgTime32:
		return strconv.AppendInt(b, v.Int(), 10)
	case ArgFloat32:
		return appendFloat32(b, v.Float32())
	case ArgASCII, ArgUTF8:
		return appendJSONBytes(b, v.data)
	case ArgAny:
		if validJSON(v.data) {
			return append(b, v.data...)
		}
		b = append(b, `{"$raw":`...)
		b = appendJSONBytes(b, v.data)
		return append(b, '}')
	case ArgChar:
		return appendJSONLatin1(b, []byte{byte(v.word)})
	case ArgWChar:
		return appendJSONUTF16(b, []byte{byte(v.word), byte(v.word >> 8)}, false)
	case ArgCharArray:
		return appendJSONLatin1(b, v.data)
	case ArgWCharArray:
		return appendJSONUTF16(b, v.data, v.big)
	case ArgFloat32Array:
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFloat32(b, float32(v.FloatAt(i)))
		}
		return append(b, ']')
	}
	if v.Type.IsArray() {
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, v.IntAt(i), 10)
		}
		return append(b, ']')
	}
	return append(b, "null"...)
}

func appendFloat32(b []byte, f float32) []byte {
	switch {
	case f != f:
		return append(b, `"NaN"`...)
	case math.IsInf(float64(f), 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(float64(f), -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, float64(f), 'g', -1, 32)
}
