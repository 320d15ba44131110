package schema7

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// The scalar and map types below carry the msgspec wire rules that msgp's own
// encoders do not follow: non-negative ints in unsigned forms, floats always
// as float64 but decoded from float32 or any int too, None as nil, and dicts
// in insertion order.

// Int is a Python int field: encoded in the smallest msgpack form, unsigned
// for non-negative values; decoded from any msgpack integer that fits int64
// (floats and bools are rejected, as msgspec does).
type Int int64

// MarshalMsg implements msgp.Marshaler.
func (z Int) MarshalMsg(b []byte) ([]byte, error) { return appendInt(b, int64(z)), nil }

// UnmarshalMsg implements msgp.Unmarshaler.
// The fixint forms (positive and negative, one byte) are read inline: as an
// int8 they are exactly the values ≥ −32. UnmarshalMsg is small enough to be
// inlined into the generated decoders.
func (z *Int) UnmarshalMsg(b []byte) ([]byte, error) {
	if len(b) != 0 && int8(b[0]) >= -32 {
		*z = Int(int8(b[0]))
		return b[1:], nil
	}
	return z.unmarshalSlow(b)
}

// unmarshalSlow decodes the other integer forms, the unsigned ones msgspec
// writes for non-negative values first.
func (z *Int) unmarshalSlow(b []byte) ([]byte, error) {
	if len(b) > 0 {
		switch c := b[0]; {
		case c >= 0xe0: // negative fixint
			*z = Int(int8(c))
			return b[1:], nil
		case c == 0xcc && len(b) >= 2:
			*z = Int(b[1])
			return b[2:], nil
		case c == 0xcd && len(b) >= 3:
			*z = Int(binary.BigEndian.Uint16(b[1:]))
			return b[3:], nil
		case c == 0xce && len(b) >= 5:
			*z = Int(binary.BigEndian.Uint32(b[1:]))
			return b[5:], nil
		}
	}
	v, o, err := msgp.ReadInt64Bytes(b)
	if err != nil {
		return b, err
	}
	*z = Int(v)
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (z Int) Msgsize() int { return msgp.Int64Size }

func appendInt(b []byte, v int64) []byte {
	if uint64(v) <= 0x7f { // positive fixint, the common case
		return append(b, byte(v))
	}
	if v >= 0 {
		return msgp.AppendUint64(b, uint64(v))
	}
	return msgp.AppendInt64(b, v)
}

// appendInts appends the elements of v as Int.MarshalMsg does, the
// positive fixints (nearly every element of a trace's []Int fields: counts,
// ids) in one tight loop. The generated encoders of []Int fields call it
// (internal/strictgen -inline).
func appendInts(b []byte, v []Int) []byte {
	n := len(b)
	b = slices.Grow(b, len(v))[:n+len(v)]
	dst := b[n:][:len(v)]
	for i, x := range v {
		if uint64(x) > 0x7f {
			b = b[:n+i]
			for _, y := range v[i:] {
				b = appendInt(b, int64(y))
			}
			return b
		}
		dst[i] = byte(x)
	}
	return b
}

// Uint is a Python int field that holds a u64 (checksums).
type Uint uint64

// MarshalMsg implements msgp.Marshaler.
func (z Uint) MarshalMsg(b []byte) ([]byte, error) { return msgp.AppendUint64(b, uint64(z)), nil }

// UnmarshalMsg implements msgp.Unmarshaler.
func (z *Uint) UnmarshalMsg(b []byte) ([]byte, error) {
	v, o, err := msgp.ReadUint64Bytes(b)
	if err != nil {
		return b, err
	}
	*z = Uint(v)
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (z Uint) Msgsize() int { return msgp.Uint64Size }

// Float is a Python float field: always encoded as float64; decoded from
// float64, float32 or any integer, as msgspec accepts.
type Float float64

// MarshalMsg implements msgp.Marshaler.
func (z Float) MarshalMsg(b []byte) ([]byte, error) {
	return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(float64(z))), nil
}

// UnmarshalMsg implements msgp.Unmarshaler.
// A float64 (what msgspec writes) is read inline: UnmarshalMsg is small
// enough to be inlined into the generated decoders.
func (z *Float) UnmarshalMsg(b []byte) ([]byte, error) {
	if len(b) >= 9 && b[0] == 0xcb {
		*z = float64At(b)
		return b[9:], nil
	}
	return z.unmarshalSlow(b)
}

// intsPrefix decodes into dst the leading elements of b that are fixints or
// uint8/16/32 (what msgspec writes for ints in 0..2³²−1 and −32..−1), up to
// len(dst), and returns how many it decoded and the bytes after them. The
// generated decoders of []Int fields call it first and decode the elements
// from the first other form on one by one (internal/strictgen -inline).
func intsPrefix(dst []Int, b []byte) (int, []byte) {
	// An index into b instead of reslicing it per element: one addition
	// per element instead of a new slice header.
	p := 0
	for i := range dst {
		if p >= len(b) {
			return i, b[p:]
		}
		switch c := b[p]; {
		case int8(c) >= -32:
			dst[i] = Int(int8(c))
			p++
		case c == 0xcc && len(b)-p >= 2:
			dst[i] = Int(b[p+1])
			p += 2
		case c == 0xcd && len(b)-p >= 3:
			dst[i] = Int(binary.BigEndian.Uint16(b[p+1 : p+3]))
			p += 3
		case c == 0xce && len(b)-p >= 5:
			dst[i] = Int(binary.BigEndian.Uint32(b[p+1 : p+5]))
			p += 5
		default:
			return i, b[p:]
		}
	}
	return len(dst), b[p:]
}

// uint16At and uint32At return the big-endian unsigned integer after the
// marker byte b[0]; the generated decoders use them inline.
func uint16At(b []byte) uint16 { return binary.BigEndian.Uint16(b[1:3]) }
func uint32At(b []byte) uint32 { return binary.BigEndian.Uint32(b[1:5]) }

// float64At returns the float64 whose big-endian bits are b[1:9] (b[0] is
// its 0xcb marker); the generated decoders use it inline.
func float64At(b []byte) Float {
	return Float(math.Float64frombits(binary.BigEndian.Uint64(b[1:9])))
}

// unmarshalSlow decodes a float32 or an integer into z.
func (z *Float) unmarshalSlow(b []byte) ([]byte, error) {
	v, o, err := readFloat(b)
	if err != nil {
		return b, err
	}
	*z = Float(v)
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (z Float) Msgsize() int { return msgp.Float64Size }

func readFloat(b []byte) (float64, []byte, error) {
	if len(b) > 0 {
		switch t := b[0]; {
		case t == 0xcb || t == 0xca:
			return msgp.ReadFloat64Bytes(b)
		case t <= 0x7f || t >= 0xe0 || (t >= 0xcc && t <= 0xd3):
			if t == 0xcf {
				u, o, err := msgp.ReadUint64Bytes(b)
				return float64(u), o, err
			}
			i, o, err := msgp.ReadInt64Bytes(b)
			return float64(i), o, err
		}
	}
	return msgp.ReadFloat64Bytes(b)
}

// NullInt is an "int | None" field; Valid is false for None (nil).
type NullInt struct {
	V     int64
	Valid bool
}

// MarshalMsg implements msgp.Marshaler.
func (z NullInt) MarshalMsg(b []byte) ([]byte, error) {
	if !z.Valid {
		return msgp.AppendNil(b), nil
	}
	return appendInt(b, z.V), nil
}

// UnmarshalMsg implements msgp.Unmarshaler.
func (z *NullInt) UnmarshalMsg(b []byte) ([]byte, error) {
	if msgp.IsNil(b) {
		*z = NullInt{}
		return b[1:], nil
	}
	v, o, err := msgp.ReadInt64Bytes(b)
	if err != nil {
		return b, err
	}
	*z = NullInt{v, true}
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (z NullInt) Msgsize() int { return msgp.Int64Size }

// NullFloat is a "float | None" field.
type NullFloat struct {
	V     float64
	Valid bool
}

// MarshalMsg implements msgp.Marshaler.
func (z NullFloat) MarshalMsg(b []byte) ([]byte, error) {
	if !z.Valid {
		return msgp.AppendNil(b), nil
	}
	return msgp.AppendFloat64(b, z.V), nil
}

// UnmarshalMsg implements msgp.Unmarshaler.
func (z *NullFloat) UnmarshalMsg(b []byte) ([]byte, error) {
	if msgp.IsNil(b) {
		*z = NullFloat{}
		return b[1:], nil
	}
	v, o, err := readFloat(b)
	if err != nil {
		return b, err
	}
	*z = NullFloat{v, true}
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (z NullFloat) Msgsize() int { return msgp.Float64Size }

// NullBool is a "bool | None" field.
type NullBool struct {
	V     bool
	Valid bool
}

// MarshalMsg implements msgp.Marshaler.
func (z NullBool) MarshalMsg(b []byte) ([]byte, error) {
	if !z.Valid {
		return msgp.AppendNil(b), nil
	}
	return msgp.AppendBool(b, z.V), nil
}

// UnmarshalMsg implements msgp.Unmarshaler.
func (z *NullBool) UnmarshalMsg(b []byte) ([]byte, error) {
	if msgp.IsNil(b) {
		*z = NullBool{}
		return b[1:], nil
	}
	v, o, err := msgp.ReadBoolBytes(b)
	if err != nil {
		return b, err
	}
	*z = NullBool{v, true}
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (z NullBool) Msgsize() int { return msgp.BoolSize }

// NullString is a "str | None" field.
type NullString struct {
	V     string
	Valid bool
}

// MarshalMsg implements msgp.Marshaler.
func (z NullString) MarshalMsg(b []byte) ([]byte, error) {
	if !z.Valid {
		return msgp.AppendNil(b), nil
	}
	return msgp.AppendString(b, z.V), nil
}

// UnmarshalMsg implements msgp.Unmarshaler.
func (z *NullString) UnmarshalMsg(b []byte) ([]byte, error) {
	if msgp.IsNil(b) {
		*z = NullString{}
		return b[1:], nil
	}
	v, o, err := readString(b)
	if err != nil {
		return b, err
	}
	*z = NullString{v, true}
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (z NullString) Msgsize() int { return msgp.StringPrefixSize + len(z.V) }

// IntEntry is one key of an IntMap.
type IntEntry struct {
	Key   string
	Value int64
}

// IntMap is a "dict[str, int]" field kept in wire (insertion) order.
type IntMap []IntEntry

// Get returns the value of key and whether it is present.
func (m IntMap) Get(key string) (int64, bool) {
	for _, e := range m {
		if e.Key == key {
			return e.Value, true
		}
	}
	return 0, false
}

// MarshalMsg implements msgp.Marshaler.
func (m IntMap) MarshalMsg(b []byte) ([]byte, error) {
	b = msgp.AppendMapHeader(b, uint32(len(m)))
	for _, e := range m {
		b = msgp.AppendString(b, e.Key)
		b = appendInt(b, e.Value)
	}
	return b, nil
}

// UnmarshalMsg implements msgp.Unmarshaler.
func (m *IntMap) UnmarshalMsg(b []byte) ([]byte, error) {
	n, o, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return b, err
	}
	if n > mapLimit {
		return b, msgp.ErrLimitExceeded
	}
	if uint64(n) > uint64(len(o))/2 {
		return b, msgp.ErrShortBytes
	}
	out := (*m)[:0]
	if cap(out) < int(n) {
		out = make(IntMap, 0, n)
	}
	for range n {
		var e IntEntry
		if e.Key, o, err = readString(o); err != nil {
			return b, err
		}
		if e.Value, o, err = msgp.ReadInt64Bytes(o); err != nil {
			return b, err
		}
		out = append(out, e)
	}
	*m = out
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (m IntMap) Msgsize() int {
	s := msgp.MapHeaderSize
	for _, e := range m {
		s += msgp.StringPrefixSize + len(e.Key) + msgp.Int64Size
	}
	return s
}

// AnyEntry is one key of an AnyMap; Value is the raw msgpack value.
type AnyEntry struct {
	Key   string
	Value msgp.Raw
}

// AnyMap is a free-form "dict[str, Any]" field (TraceMeta producer, source,
// config) kept in wire order with raw msgpack values, so it re-encodes to the
// same bytes.
type AnyMap []AnyEntry

// Get returns the raw value of key.
func (m AnyMap) Get(key string) (msgp.Raw, bool) {
	for _, e := range m {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// MarshalMsg implements msgp.Marshaler.
func (m AnyMap) MarshalMsg(b []byte) ([]byte, error) {
	b = msgp.AppendMapHeader(b, uint32(len(m)))
	for _, e := range m {
		b = msgp.AppendString(b, e.Key)
		if len(e.Value) == 0 {
			b = msgp.AppendNil(b)
			continue
		}
		b = append(b, e.Value...)
	}
	return b, nil
}

// UnmarshalMsg implements msgp.Unmarshaler.
func (m *AnyMap) UnmarshalMsg(b []byte) ([]byte, error) {
	n, o, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return b, err
	}
	if n > mapLimit {
		return b, msgp.ErrLimitExceeded
	}
	if uint64(n) > uint64(len(o))/2 {
		return b, msgp.ErrShortBytes
	}
	out := (*m)[:0]
	if cap(out) < int(n) {
		out = make(AnyMap, 0, n)
	}
	for range n {
		var e AnyEntry
		if e.Key, o, err = readString(o); err != nil {
			return b, err
		}
		rest, err := msgp.Skip(o)
		if err != nil {
			return b, err
		}
		e.Value = append(msgp.Raw(nil), o[:len(o)-len(rest)]...)
		o = rest
		out = append(out, e)
	}
	*m = out
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (m AnyMap) Msgsize() int {
	s := msgp.MapHeaderSize
	for _, e := range m {
		s += msgp.StringPrefixSize + len(e.Key) + max(len(e.Value), 1)
	}
	return s
}

// mapLimit matches the //msgp:limit maps value of the generated code.
const mapLimit = 4096

// ErrUnknownField is wrapped by the error for a key that a canonical channel
// struct does not declare (the reference's forbid_unknown_fields).
var ErrUnknownField = errors.New("schema7: object contains unknown field")

// unknownFieldError names the rejected key.
type unknownFieldError struct{ field string }

func (e *unknownFieldError) Error() string { return "object contains unknown field `" + e.field + "`" }
func (e *unknownFieldError) Unwrap() error { return ErrUnknownField }

// detailError is a cause inside a DecodeError: its text says what is wrong
// without the package prefix (the DecodeError carries it); errors.Is matches
// its sentinel.
type detailError struct {
	sentinel error
	msg      string
}

func (e *detailError) Error() string { return e.msg }
func (e *detailError) Unwrap() error { return e.sentinel }

// unknownField is called by the generated canonical decoders (see strictgen).
func unknownField(field []byte) error { return &unknownFieldError{string(field)} }

// WeaponID is ReplayPlayerCheckpoint.weapon_id, a WeaponId enum value: like
// the reference, decoding rejects values outside 0..MaxWeaponID.
type WeaponID int64

// MaxWeaponID is the largest WeaponId value of the reference.
const MaxWeaponID = 53

// ErrWeaponID is wrapped by the error for an unknown weapon_id.
var ErrWeaponID = errors.New("schema7: invalid WeaponId value")

// MarshalMsg implements msgp.Marshaler.
func (z WeaponID) MarshalMsg(b []byte) ([]byte, error) { return appendInt(b, int64(z)), nil }

// UnmarshalMsg implements msgp.Unmarshaler.
func (z *WeaponID) UnmarshalMsg(b []byte) ([]byte, error) {
	v, o, err := msgp.ReadInt64Bytes(b)
	if err != nil {
		return b, err
	}
	if v < 0 || v > MaxWeaponID {
		return b, &detailError{ErrWeaponID, fmt.Sprintf("invalid WeaponId value %d", v)}
	}
	*z = WeaponID(v)
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (z WeaponID) Msgsize() int { return msgp.Int64Size }

func (z WeaponID) pyValue() pyjson.Value { return pyjson.IntValue(int64(z)) }
