package events

import (
	"encoding/hex"
	"math"
	"strconv"
	"unicode/utf8"
)

// ValueKind is the type of an argument value.
type ValueKind uint8

// Value kinds.
const (
	// ValueNull is an absent optional field or a null string.
	ValueNull ValueKind = iota
	// ValueInt is a signed integer (Int).
	ValueInt
	// ValueUint is an unsigned integer (Uint).
	ValueUint
	// ValueFloat is a floating-point number (Float).
	ValueFloat
	// ValueBool is a boolean (Bool).
	ValueBool
	// ValueString is text (Bytes; String copies it).
	ValueString
	// ValueBytes is opaque bytes (Bytes), written as hexadecimal in JSON.
	ValueBytes
	// ValueComposite is a list, map, stack or array: AppendJSON renders it.
	ValueComposite
)

var valueKindNames = [...]string{"null", "int", "uint", "float", "bool", "string", "bytes", "composite"}

// String is the kind's name ("null", "int", "uint", "float", "bool",
// "string", "bytes", "composite").
func (k ValueKind) String() string {
	if int(k) < len(valueKindNames) {
		return valueKindNames[k]
	}
	return "ValueKind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one typed argument: a view valid until the next event. Accessors
// for another kind return zero values (Int and Uint convert between each
// other and Bool).
type Value struct {
	kind ValueKind
	bits uint64 // Int, Uint, Float (IEEE bits), Bool (0/1)
	b    []byte // String, Bytes
	src  argSource
	idx  int // argument index, for composites
}

func intValue(v int64) Value     { return Value{kind: ValueInt, bits: uint64(v)} }
func uintValue(v uint64) Value   { return Value{kind: ValueUint, bits: v} }
func floatValue(f float64) Value { return Value{kind: ValueFloat, bits: math.Float64bits(f)} }
func stringValue(b []byte) Value { return Value{kind: ValueString, b: b} }
func bytesValue(b []byte) Value  { return Value{kind: ValueBytes, b: b} }
func boolValue(v bool) Value {
	if v {
		return Value{kind: ValueBool, bits: 1}
	}
	return Value{kind: ValueBool}
}
func compositeValue(src argSource, i int) Value {
	return Value{kind: ValueComposite, src: src, idx: i}
}

// Kind is the value's type.
func (v Value) Kind() ValueKind { return v.kind }

// Int returns a signed or unsigned integer or a bool as int64.
func (v Value) Int() int64 {
	switch v.kind {
	case ValueInt, ValueUint, ValueBool:
		return int64(v.bits)
	case ValueFloat:
		return int64(math.Float64frombits(v.bits))
	}
	return 0
}

// Uint returns an integer or a bool as uint64.
func (v Value) Uint() uint64 {
	switch v.kind {
	case ValueInt, ValueUint, ValueBool:
		return v.bits
	case ValueFloat:
		return uint64(math.Float64frombits(v.bits))
	}
	return 0
}

// Float returns a number as float64.
func (v Value) Float() float64 {
	switch v.kind {
	case ValueFloat:
		return math.Float64frombits(v.bits)
	case ValueInt, ValueBool:
		return float64(int64(v.bits))
	case ValueUint:
		return float64(v.bits)
	}
	return 0
}

// Number reports whether the value is an integer or a float.
func (v Value) Number() bool {
	return v.kind == ValueInt || v.kind == ValueUint || v.kind == ValueFloat
}

// Bool returns a bool value.
func (v Value) Bool() bool { return v.kind == ValueBool && v.bits != 0 }

// Bytes returns a string's or a bytes value's bytes (a view).
func (v Value) Bytes() []byte { return v.b }

// String returns a string value as a Go string (it copies), or any other
// value in its JSON form.
func (v Value) String() string {
	if v.kind == ValueString {
		return string(v.b)
	}
	return string(v.AppendJSON(nil))
}

// AppendJSON appends the value as JSON: numbers (NaN and ±Inf as the strings
// "NaN", "+Inf", "-Inf"), true/false, strings (invalid UTF-8 replaced by
// U+FFFD), bytes as a string of hex digits, null, and composites in their
// format's JSON shape (dial9 lists, maps and string maps as arrays of [key,
// value] pairs, stacks as arrays of "0x…" strings; WTF arrays as arrays).
func (v Value) AppendJSON(b []byte) []byte {
	switch v.kind {
	case ValueInt:
		return strconv.AppendInt(b, int64(v.bits), 10)
	case ValueUint:
		return strconv.AppendUint(b, v.bits, 10)
	case ValueFloat:
		return appendJSONFloat(b, math.Float64frombits(v.bits))
	case ValueBool:
		return strconv.AppendBool(b, v.bits != 0)
	case ValueString:
		return AppendJSONBytes(b, v.b)
	case ValueBytes:
		b = append(b, '"')
		b = hex.AppendEncode(b, v.b)
		return append(b, '"')
	case ValueComposite:
		return v.src.appendArgJSON(b, v.idx)
	}
	return append(b, "null"...)
}

func appendJSONFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// AppendJSONString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD. It does not allocate.
func AppendJSONString(b []byte, s string) []byte {
	return appendJSONText(b, s, utf8.DecodeRuneInString)
}

// AppendJSONBytes is AppendJSONString for text held in a byte slice.
func AppendJSONBytes(b []byte, s []byte) []byte {
	return appendJSONText(b, s, utf8.DecodeRune)
}

// jsonPlain marks the bytes appendJSONText copies as they are: ASCII but
// control characters, '"' and '\\'.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func appendJSONText[S ~string | ~[]byte](b []byte, s S, decode func(S) (rune, int)) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		// a run of plain bytes at once
		k := i
		for k < len(s) && jsonPlain[s[k]] {
			k++
		}
		if k > i {
			b = append(b, s[i:k]...)
			if i = k; i == len(s) {
				break
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := decode(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
