// Package pyjson holds a JSON value tree with ordered maps and Python type
// names, and an encoder that writes what Python's json.dumps writes (float
// repr, ensure_ascii escapes, indent and sort_keys), so reports and dumps match
// the reference tools byte for byte.
package pyjson

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tinylib/msgp/msgp"
)

// Kind is the JSON kind of a Value.
type Kind uint8

// Value kinds.
const (
	Null Kind = iota
	Bool
	Int   // Int holds the value; Uint when Unsigned
	Float // Float
	String
	List
	Map
)

// Value is one JSON value. Maps keep key order. Type is the Python type name
// of the value the reference would hold ("int", "float", "str", "bool",
// "NoneType", "list", "dict" or a struct class name); empty means the kind's
// builtin name.
type Value struct {
	Kind     Kind
	B        bool
	I        int64
	U        uint64
	Unsigned bool // an int above MaxInt64, held in U
	F        float64
	S        string
	Items    []Value // List
	Keys     []string
	Vals     []Value // Map, parallel to Keys
	Type     string
}

// Constructors.
func NullValue() Value           { return Value{Kind: Null} }
func BoolValue(b bool) Value     { return Value{Kind: Bool, B: b} }
func IntValue(i int64) Value     { return Value{Kind: Int, I: i} }
func FloatValue(f float64) Value { return Value{Kind: Float, F: f} }
func StringValue(s string) Value { return Value{Kind: String, S: s} }
func ListValue(v ...Value) Value { return Value{Kind: List, Items: v} }
func UintValue(u uint64) Value {
	if u <= math.MaxInt64 {
		return IntValue(int64(u))
	}
	return Value{Kind: Int, U: u, Unsigned: true}
}

// NewMap returns an empty map value.
func NewMap() Value { return Value{Kind: Map} }

// Set appends key (it does not replace an existing key).
func (v *Value) Set(key string, val Value) {
	v.Keys = append(v.Keys, key)
	v.Vals = append(v.Vals, val)
}

// Get returns the value of key.
func (v Value) Get(key string) (Value, bool) {
	for i, k := range v.Keys {
		if k == key {
			return v.Vals[i], true
		}
	}
	return Value{}, false
}

// TypeName returns the Python type name of v.
func (v Value) TypeName() string {
	if v.Type != "" {
		return v.Type
	}
	switch v.Kind {
	case Null:
		return "NoneType"
	case Bool:
		return "bool"
	case Int:
		return "int"
	case Float:
		return "float"
	case String:
		return "str"
	case List:
		return "list"
	}
	return "dict"
}

// Builtins returns v with struct type names dropped (msgspec.to_builtins).
func (v Value) Builtins() Value {
	v.Type = ""
	if v.Kind == List {
		items := make([]Value, len(v.Items))
		for i, it := range v.Items {
			items[i] = it.Builtins()
		}
		v.Items = items
	}
	if v.Kind == Map {
		vals := make([]Value, len(v.Vals))
		for i, it := range v.Vals {
			vals[i] = it.Builtins()
		}
		v.Vals = vals
	}
	return v
}

// Equal reports Python == between two builtin values of the same type
// (floats by value, so NaN != NaN and 0.0 == -0.0).
func Equal(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.B == b.B
	case Int:
		return a.I == b.I && a.U == b.U && a.Unsigned == b.Unsigned
	case Float:
		return a.F == b.F
	case String:
		return a.S == b.S
	case List:
		return slices.EqualFunc(a.Items, b.Items, Equal)
	}
	if len(a.Keys) != len(b.Keys) {
		return false
	}
	for i, k := range a.Keys {
		bv, ok := b.Get(k)
		if !ok || !Equal(a.Vals[i], bv) {
			return false
		}
	}
	return true
}

// Style selects the separators and layout of Encode.
type Style struct {
	Indent   int  // > 0: json.dumps(indent=Indent); 0: one line
	Compact  bool // one line with "," and ":" (separators=(",", ":")); else ", " and ": "
	SortKeys bool
}

// Encode appends the JSON text of v to dst as json.dumps would write it.
func Encode(dst []byte, v Value, st Style) []byte {
	return encode(dst, v, st, 0)
}

func (st Style) newline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth * st.Indent {
		dst = append(dst, ' ')
	}
	return dst
}

func encode(dst []byte, v Value, st Style, depth int) []byte {
	itemSep, keySep := ", ", ": "
	if st.Compact {
		itemSep, keySep = ",", ":"
	}
	if st.Indent > 0 {
		itemSep = ","
	}
	switch v.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.B {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Int:
		if v.Unsigned {
			return strconv.AppendUint(dst, v.U, 10)
		}
		return strconv.AppendInt(dst, v.I, 10)
	case Float:
		return AppendFloat(dst, v.F)
	case String:
		return AppendString(dst, v.S)
	case List:
		if len(v.Items) == 0 {
			return append(dst, "[]"...)
		}
		dst = append(dst, '[')
		for i, it := range v.Items {
			if i > 0 {
				dst = append(dst, itemSep...)
			}
			if st.Indent > 0 {
				dst = st.newline(dst, depth+1)
			}
			dst = encode(dst, it, st, depth+1)
		}
		if st.Indent > 0 {
			dst = st.newline(dst, depth)
		}
		return append(dst, ']')
	}
	if len(v.Keys) == 0 {
		return append(dst, "{}"...)
	}
	order := make([]int, len(v.Keys))
	for i := range order {
		order[i] = i
	}
	if st.SortKeys {
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case v.Keys[a] < v.Keys[b]:
				return -1
			case v.Keys[a] > v.Keys[b]:
				return 1
			}
			return 0
		})
	}
	dst = append(dst, '{')
	for n, i := range order {
		if n > 0 {
			dst = append(dst, itemSep...)
		}
		if st.Indent > 0 {
			dst = st.newline(dst, depth+1)
		}
		dst = AppendString(dst, v.Keys[i])
		dst = append(dst, keySep...)
		dst = encode(dst, v.Vals[i], st, depth+1)
	}
	if st.Indent > 0 {
		dst = st.newline(dst, depth)
	}
	return append(dst, '}')
}

// AppendFloat appends f as Python's float repr (as json.dumps writes floats):
// shortest round-trip digits, ".0" for integral values, exponent form below
// 1e-4 and from 1e16, NaN/Infinity/-Infinity.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // [-]d[.ddd]e±XX
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	mant, exp := e, 0
	for i, c := range e {
		if c == 'e' {
			mant = e[:i]
			x, _ := strconv.Atoi(string(e[i+1:]))
			exp = x
			break
		}
	}
	digits := make([]byte, 0, 20)
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	if neg {
		dst = append(dst, '-')
	}
	if exp < -4 || exp >= 16 {
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	if exp < 0 {
		dst = append(dst, "0."...)
		for range -exp - 1 {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	if len(digits) <= exp+1 {
		dst = append(dst, digits...)
		for range exp + 1 - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, ".0"...)
	}
	dst = append(dst, digits[:exp+1]...)
	dst = append(dst, '.')
	return append(dst, digits[exp+1:]...)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string with json.dumps' default
// ensure_ascii escaping.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				if c < 0x20 {
					dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
				} else {
					dst = append(dst, c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			dst = appendU(dst, r1)
			dst = appendU(dst, r2)
		} else {
			dst = appendU(dst, r)
		}
	}
	return append(dst, '"')
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}

// ErrUnsupported is returned by FromMsgpack for bin and ext values, which
// have no JSON form.
var ErrUnsupported = errors.New("pyjson: msgpack bin/ext value has no JSON form")

// ErrBudget is returned by FromMsgpack when the value would take more Go
// memory than its budget.
var ErrBudget = errors.New("pyjson: msgpack value needs more memory than its budget")

// valueSize is the Go memory of one Value; every decoded element costs at
// least this much (about 150 bytes, against one input byte for a nil).
const valueSize = int64(unsafe.Sizeof(Value{}))

// MaxBudget is the largest budget Budget returns (4 MiB).
const MaxBudget = 4 << 20

// Budget returns the memory budget FromMsgpack gives n bytes of msgpack:
// 256 KiB plus 160 bytes per input byte (what the most expensive element, a
// one-byte nil, takes), at most MaxBudget. Values of that size
// take far less (a short string or a number costs about 170 bytes of Go
// memory, a nil 150 for its one input byte).
func Budget(n int) int64 { return min(256<<10+160*int64(n), MaxBudget) }

// FromMsgpack converts one msgpack value to a Value (maps keep order; map keys
// must be strings) and returns the rest of b. The Go memory of the result is
// bounded by Budget(len(b)) (ErrBudget beyond).
func FromMsgpack(b []byte) (Value, []byte, error) {
	budget := Budget(len(b))
	return FromMsgpackBudget(b, &budget)
}

// FromMsgpackBudget is FromMsgpack charging the Go memory of every decoded
// element (declared array and map capacities before they are allocated,
// string bytes, one Value each) to *budget, which several calls may share.
// It fails with ErrBudget, having allocated at most what was charged, when
// *budget would go negative.
func FromMsgpackBudget(b []byte, budget *int64) (Value, []byte, error) {
	if err := charge(budget, valueSize); err != nil {
		return Value{}, b, err
	}
	return fromMsgpack(b, 0, budget)
}

func charge(budget *int64, n int64) error {
	if n > *budget {
		*budget = -1
		return ErrBudget
	}
	*budget -= n
	return nil
}

func fromMsgpack(b []byte, depth int, budget *int64) (Value, []byte, error) {
	if depth > 100 {
		return Value{}, b, msgp.ErrRecursion
	}
	// The Value itself was charged by the caller (the root by
	// FromMsgpackBudget, elements with their array or map).
	t := msgp.NextType(b)
	switch t {
	case msgp.NilType:
		_, err := msgp.ReadNilBytes(b)
		return NullValue(), b[min(1, len(b)):], err
	case msgp.BoolType:
		x, o, err := msgp.ReadBoolBytes(b)
		return BoolValue(x), o, err
	case msgp.IntType:
		x, o, err := msgp.ReadInt64Bytes(b)
		return IntValue(x), o, err
	case msgp.UintType:
		x, o, err := msgp.ReadUint64Bytes(b)
		return UintValue(x), o, err
	case msgp.Float32Type, msgp.Float64Type:
		x, o, err := msgp.ReadFloat64Bytes(b)
		return FloatValue(x), o, err
	case msgp.StrType:
		x, o, err := msgp.ReadStringZC(b)
		if err != nil {
			return Value{}, b, err
		}
		if err := charge(budget, int64(len(x))); err != nil {
			return Value{}, b, err
		}
		return StringValue(string(x)), o, nil
	case msgp.ArrayType:
		n, o, err := msgp.ReadArrayHeaderBytes(b)
		if err != nil {
			return Value{}, b, err
		}
		if uint64(n) > uint64(len(o)) {
			return Value{}, b, msgp.ErrShortBytes
		}
		if err := charge(budget, int64(n)*valueSize); err != nil {
			return Value{}, b, err
		}
		v := Value{Kind: List, Items: make([]Value, 0, n)}
		for range n {
			var it Value
			if it, o, err = fromMsgpack(o, depth+1, budget); err != nil {
				return Value{}, b, err
			}
			v.Items = append(v.Items, it)
		}
		return v, o, nil
	case msgp.MapType:
		n, o, err := msgp.ReadMapHeaderBytes(b)
		if err != nil {
			return Value{}, b, err
		}
		if uint64(n) > uint64(len(o))/2 {
			return Value{}, b, msgp.ErrShortBytes
		}
		if err := charge(budget, int64(n)*(valueSize+16)); err != nil {
			return Value{}, b, err
		}
		v := Value{Kind: Map, Keys: make([]string, 0, n), Vals: make([]Value, 0, n)}
		for range n {
			var k []byte
			if k, o, err = msgp.ReadStringZC(o); err != nil {
				return Value{}, b, err
			}
			if err := charge(budget, int64(len(k))); err != nil {
				return Value{}, b, err
			}
			var it Value
			if it, o, err = fromMsgpack(o, depth+1, budget); err != nil {
				return Value{}, b, err
			}
			v.Set(string(k), it)
		}
		return v, o, nil
	case msgp.InvalidType:
		return Value{}, b, msgp.ErrShortBytes
	}
	return Value{}, b, ErrUnsupported
}
