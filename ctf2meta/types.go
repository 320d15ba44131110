package ctf2meta

import (
	"math"
	"strconv"
)

// Integer is an integer value of the metadata (range bounds, environment
// values): any value in [-2^63, 2^64-1], the union of what signed and
// unsigned 64-bit field values can hold.
type Integer struct {
	neg bool   // negative
	abs uint64 // magnitude
}

// Int returns the Integer v.
func Int(v int64) Integer {
	if v < 0 {
		return Integer{neg: true, abs: uint64(-(v + 1)) + 1}
	}
	return Integer{abs: uint64(v)}
}

// Uint returns the Integer v.
func Uint(v uint64) Integer { return Integer{abs: v} }

// Int64 returns the value and whether it fits an int64.
func (i Integer) Int64() (int64, bool) {
	if i.neg {
		if i.abs > 1<<63 {
			return 0, false
		}
		return int64(-i.abs), true // wraps correctly for -2^63
	}
	if i.abs > math.MaxInt64 {
		return 0, false
	}
	return int64(i.abs), true
}

// Uint64 returns the value and whether it is ≥ 0.
func (i Integer) Uint64() (uint64, bool) { return i.abs, !i.neg }

// Negative reports whether the value is < 0.
func (i Integer) Negative() bool { return i.neg }

// Cmp returns -1, 0 or +1 as i <, ==, > j.
func (i Integer) Cmp(j Integer) int {
	switch {
	case i.neg && !j.neg:
		return -1
	case !i.neg && j.neg:
		return 1
	case i.abs == j.abs:
		return 0
	case (i.abs < j.abs) != i.neg:
		return -1
	}
	return 1
}

// String returns the integer in decimal.
func (i Integer) String() string {
	s := strconv.FormatUint(i.abs, 10)
	if i.neg {
		return "-" + s
	}
	return s
}

// MarshalJSON writes the integer as a JSON number.
func (i Integer) MarshalJSON() ([]byte, error) { return []byte(i.String()), nil }

// parseInteger parses a JSON number that must be an integer: an optional
// '-' and decimal digits (what strconv.ParseUint accepts in base 10), in
// [-2^63, 2^64-1].
func parseInteger[T string | []byte](s T) (Integer, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 {
		return Integer{}, false
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		c := uint64(s[i]) - '0'
		if c > 9 || u > (math.MaxUint64-c)/10 {
			return Integer{}, false
		}
		u = u*10 + c
	}
	if neg {
		if u > 1<<63 {
			return Integer{}, false
		}
		return Integer{neg: u != 0, abs: u}, true
	}
	return Integer{abs: u}, true
}

// Range is an inclusive integer range [Lower, Upper].
type Range struct{ Lower, Upper Integer }

// RangeSet is a non-empty set of integer ranges.
type RangeSet []Range

// Contains reports whether v is in one of the ranges.
func (s RangeSet) Contains(v Integer) bool {
	for _, r := range s {
		if v.Cmp(r.Lower) >= 0 && v.Cmp(r.Upper) <= 0 {
			return true
		}
	}
	return false
}

// Intersects reports whether a value belongs to both sets.
func (s RangeSet) Intersects(t RangeSet) bool {
	for _, a := range s {
		for _, b := range t {
			if a.Lower.Cmp(b.Upper) <= 0 && b.Lower.Cmp(a.Upper) <= 0 {
				return true
			}
		}
	}
	return false
}

// Attributes and extensions are free-form JSON objects; values are
// decoded as by encoding/json with UseNumber (json.Number for numbers).
type (
	Attributes = map[string]any
	Extensions = map[string]any
)

// Common is what every fragment, field class, structure member and variant
// option may carry.
type Common struct {
	Attributes Attributes // nil when absent or empty
	Extensions Extensions // nil when absent or empty

	// present lists the properties the decoded JSON object had, so that
	// encoding writes back the ones given explicitly with their default
	// value (LTTng writes "preferred-display-base": 10, "name": "", …).
	present []string
}

func (c *Common) common() *Common { return c }

// Fragment is one of *Preamble, *FieldClassAlias, *TraceClass, *ClockClass,
// *DataStreamClass, *EventRecordClass.
type Fragment interface {
	FragmentType() string // the JSON "type" value
	common() *Common
}

// Fragment type names.
const (
	TypePreamble         = "preamble"
	TypeFieldClassAlias  = "field-class-alias"
	TypeTraceClass       = "trace-class"
	TypeClockClass       = "clock-class"
	TypeDataStreamClass  = "data-stream-class"
	TypeEventRecordClass = "event-record-class"
)

// Preamble is the first fragment. Its Extensions are declarations: a
// consumer must refuse metadata declaring an extension it does not support.
type Preamble struct {
	Common
	Version int   // always 2
	UUID    *UUID // metadata stream UUID, nil when absent
}

// FieldClassAlias names a field class for later fragments.
type FieldClassAlias struct {
	Common
	Name       string
	FieldClass FieldClass
}

// TraceClass describes the trace.
type TraceClass struct {
	Common
	Namespace, Name, UID string // "" when absent
	// NameSet says the fragment has a name, possibly "" (LTTng 2.15 writes
	// "name": "" beside its UID): babeltrace2 2.1 reads traces whose trace
	// classes have a name and a UID, equal, as one trace (ctf.Session).
	// Decoding sets it; encoding writes the name when it is set or not "".
	NameSet bool
	// Environment values are string or Integer; nil when absent or empty.
	Environment            map[string]any
	PacketHeaderFieldClass FieldClass // nil when absent
}

// ClockOrigin is a clock class origin: the Unix epoch or a named origin.
type ClockOrigin struct {
	UnixEpoch            bool // the string "unix-epoch"
	Namespace, Name, UID string
}

// ClockOffset is a clock class offset from its origin.
type ClockOffset struct {
	Seconds int64
	Cycles  uint64 // < the clock's frequency
}

// ClockClass describes a clock.
type ClockClass struct {
	Common
	ID                   string
	Namespace, Name, UID string
	Frequency            uint64       // Hz, > 0
	Origin               *ClockOrigin // nil: unknown origin
	OffsetFromOrigin     ClockOffset
	Precision            *uint64 // nil: unknown
	Accuracy             *uint64 // nil: unknown
	Description          string
}

// DataStreamClass describes a class of data streams.
type DataStreamClass struct {
	Common
	ID                                 uint64
	Namespace, Name, UID               string
	DefaultClockClassID                string     // "" when none
	PacketContextFieldClass            FieldClass // nil when absent
	EventRecordHeaderFieldClass        FieldClass
	EventRecordCommonContextFieldClass FieldClass
}

// EventRecordClass describes a class of event records.
type EventRecordClass struct {
	Common
	ID                        uint64
	DataStreamClassID         uint64
	Namespace, Name, UID      string
	SpecificContextFieldClass FieldClass // nil when absent
	PayloadFieldClass         FieldClass
}

// FragmentType returns TypePreamble.
func (*Preamble) FragmentType() string { return TypePreamble }

// FragmentType returns TypeFieldClassAlias.
func (*FieldClassAlias) FragmentType() string { return TypeFieldClassAlias }

// FragmentType returns TypeTraceClass.
func (*TraceClass) FragmentType() string { return TypeTraceClass }

// FragmentType returns TypeClockClass.
func (*ClockClass) FragmentType() string { return TypeClockClass }

// FragmentType returns TypeDataStreamClass.
func (*DataStreamClass) FragmentType() string { return TypeDataStreamClass }

// FragmentType returns TypeEventRecordClass.
func (*EventRecordClass) FragmentType() string { return TypeEventRecordClass }

// FieldClass is a field class: one of the *Xxx types below, or an AliasRef
// naming a field-class-alias fragment.
type FieldClass interface {
	// Type returns the JSON "type" value ("" for an AliasRef).
	Type() string
	common() *Common
}

// AliasRef refers to a field class by its alias name.
type AliasRef string

// Type returns "": an AliasRef is not a field class itself; Metadata.Resolve
// gives the field class it names.
func (AliasRef) Type() string    { return "" }
func (AliasRef) common() *Common { return nil }

// BitArray holds the properties shared by every fixed-length field class.
type BitArray struct {
	Length    uint64 // bits, > 0
	ByteOrder string // "big-endian" or "little-endian"
	// BitOrder is "first-to-last" or "last-to-first"; the default is
	// first-to-last for little-endian and last-to-first for big-endian.
	BitOrder  string
	Alignment uint64 // power of two; default 1
}

// IntegerProps holds the properties shared by integer field classes.
type IntegerProps struct {
	PreferredDisplayBase int                 // 2, 8, 10 (default) or 16
	Mappings             map[string]RangeSet // nil when absent or empty
	// MappingOrder lists the names of Mappings in the order the metadata
	// gives them (JSON object member order, TSDL enumerator order) when
	// there are two or more; nil otherwise, and in a model built in code
	// (name order is assumed). babeltrace2 lists the labels of a value in
	// an order derived from it (BabeltraceMappingOrder); MarshalFragment
	// and AppendTSDL keep it.
	MappingOrder []string
}

// Field class type names.
const (
	TypeFixedLengthBitArray            = "fixed-length-bit-array"
	TypeFixedLengthBitMap              = "fixed-length-bit-map"
	TypeFixedLengthBoolean             = "fixed-length-boolean"
	TypeFixedLengthUnsignedInteger     = "fixed-length-unsigned-integer"
	TypeFixedLengthSignedInteger       = "fixed-length-signed-integer"
	TypeFixedLengthFloatingPointNumber = "fixed-length-floating-point-number"
	TypeVariableLengthUnsignedInteger  = "variable-length-unsigned-integer"
	TypeVariableLengthSignedInteger    = "variable-length-signed-integer"
	TypeNullTerminatedString           = "null-terminated-string"
	TypeStaticLengthString             = "static-length-string"
	TypeDynamicLengthString            = "dynamic-length-string"
	TypeStaticLengthBlob               = "static-length-blob"
	TypeDynamicLengthBlob              = "dynamic-length-blob"
	TypeStructure                      = "structure"
	TypeStaticLengthArray              = "static-length-array"
	TypeDynamicLengthArray             = "dynamic-length-array"
	TypeOptional                       = "optional"
	TypeVariant                        = "variant"
)

// FixedLengthBitArray is a fixed-length bit array field class.
type FixedLengthBitArray struct {
	Common
	BitArray
}

// FixedLengthBitMap is a fixed-length bit map: named sets of bit indexes.
type FixedLengthBitMap struct {
	Common
	BitArray
	Flags map[string]RangeSet // at least one flag
}

// FixedLengthBoolean is a fixed-length boolean field class.
type FixedLengthBoolean struct {
	Common
	BitArray
}

// FixedLengthUnsignedInteger is a fixed-length unsigned integer field class.
type FixedLengthUnsignedInteger struct {
	Common
	BitArray
	IntegerProps
	Roles []string // nil when absent or empty
}

// FixedLengthSignedInteger is a fixed-length signed integer field class.
type FixedLengthSignedInteger struct {
	Common
	BitArray
	IntegerProps
}

// FixedLengthFloatingPointNumber is an IEEE 754-2008 binaryK field class,
// K = Length ∈ {16, 32, 64, 128} or K > 128 with K % 32 == 0.
type FixedLengthFloatingPointNumber struct {
	Common
	BitArray
}

// VariableLengthUnsignedInteger is a LEB128 unsigned integer field class.
type VariableLengthUnsignedInteger struct {
	Common
	IntegerProps
	Roles []string
}

// VariableLengthSignedInteger is a signed LEB128 integer field class.
type VariableLengthSignedInteger struct {
	Common
	IntegerProps
}

// NullTerminatedString is a null-terminated string field class.
type NullTerminatedString struct {
	Common
	Encoding string // utf-8 (default), utf-16be, utf-16le, utf-32be, utf-32le
}

// StaticLengthString is a string of a fixed number of bytes.
type StaticLengthString struct {
	Common
	Length   uint64 // bytes
	Encoding string
}

// DynamicLengthString is a string whose byte length is another field.
type DynamicLengthString struct {
	Common
	LengthFieldLocation FieldLocation
	Encoding            string
}

// StaticLengthBlob is a BLOB of a fixed number of bytes.
type StaticLengthBlob struct {
	Common
	Length    uint64 // bytes
	MediaType string // default application/octet-stream
	Roles     []string
}

// DynamicLengthBlob is a BLOB whose byte length is another field.
type DynamicLengthBlob struct {
	Common
	LengthFieldLocation FieldLocation
	MediaType           string
}

// StructureMember is one member of a structure field class.
type StructureMember struct {
	Common
	Name       string
	FieldClass FieldClass
}

// Structure is a structure field class.
type Structure struct {
	Common
	MemberClasses    []StructureMember
	MinimumAlignment uint64 // power of two; default 1
}

// StaticLengthArray is an array of a fixed number of elements.
type StaticLengthArray struct {
	Common
	ElementFieldClass FieldClass
	Length            uint64
	MinimumAlignment  uint64
}

// DynamicLengthArray is an array whose length is another field.
type DynamicLengthArray struct {
	Common
	ElementFieldClass   FieldClass
	LengthFieldLocation FieldLocation
	MinimumAlignment    uint64
}

// Optional is a field present or not depending on a selector field.
type Optional struct {
	Common
	FieldClass            FieldClass
	SelectorFieldLocation FieldLocation
	SelectorFieldRanges   RangeSet // nil for a boolean selector
}

// VariantOption is one option of a variant field class.
type VariantOption struct {
	Common
	Name                string // "" when absent
	FieldClass          FieldClass
	SelectorFieldRanges RangeSet
}

// Variant is a field of one of several classes chosen by a selector field.
type Variant struct {
	Common
	Options               []VariantOption // at least one; ranges do not intersect
	SelectorFieldLocation FieldLocation
}

// Field location origins.
const (
	OriginPacketHeader               = "packet-header"
	OriginPacketContext              = "packet-context"
	OriginEventRecordHeader          = "event-record-header"
	OriginEventRecordCommonContext   = "event-record-common-context"
	OriginEventRecordSpecificContext = "event-record-specific-context"
	OriginEventRecordPayload         = "event-record-payload"
)

// FieldLocation locates a field: from a scope's root when Origin is set,
// else relative to the structure containing the dependent field.
type FieldLocation struct {
	Origin string
	Path   []PathElement // non-empty; the last element is not Parent
}

// PathElement is a member name, or (Parent) JSON null: the parent structure.
type PathElement struct {
	Name   string
	Parent bool
}

// Type returns TypeFixedLengthBitArray.
func (*FixedLengthBitArray) Type() string { return TypeFixedLengthBitArray }

// Type returns TypeFixedLengthBitMap.
func (*FixedLengthBitMap) Type() string { return TypeFixedLengthBitMap }

// Type returns TypeFixedLengthBoolean.
func (*FixedLengthBoolean) Type() string { return TypeFixedLengthBoolean }

// Type returns TypeFixedLengthUnsignedInteger.
func (*FixedLengthUnsignedInteger) Type() string { return TypeFixedLengthUnsignedInteger }

// Type returns TypeFixedLengthSignedInteger.
func (*FixedLengthSignedInteger) Type() string { return TypeFixedLengthSignedInteger }

// Type returns TypeFixedLengthFloatingPointNumber.
func (*FixedLengthFloatingPointNumber) Type() string { return TypeFixedLengthFloatingPointNumber }

// Type returns TypeVariableLengthUnsignedInteger.
func (*VariableLengthUnsignedInteger) Type() string { return TypeVariableLengthUnsignedInteger }

// Type returns TypeVariableLengthSignedInteger.
func (*VariableLengthSignedInteger) Type() string { return TypeVariableLengthSignedInteger }

// Type returns TypeNullTerminatedString.
func (*NullTerminatedString) Type() string { return TypeNullTerminatedString }

// Type returns TypeStaticLengthString.
func (*StaticLengthString) Type() string { return TypeStaticLengthString }

// Type returns TypeDynamicLengthString.
func (*DynamicLengthString) Type() string { return TypeDynamicLengthString }

// Type returns TypeStaticLengthBlob.
func (*StaticLengthBlob) Type() string { return TypeStaticLengthBlob }

// Type returns TypeDynamicLengthBlob.
func (*DynamicLengthBlob) Type() string { return TypeDynamicLengthBlob }

// Type returns TypeStructure.
func (*Structure) Type() string { return TypeStructure }

// Type returns TypeStaticLengthArray.
func (*StaticLengthArray) Type() string { return TypeStaticLengthArray }

// Type returns TypeDynamicLengthArray.
func (*DynamicLengthArray) Type() string { return TypeDynamicLengthArray }

// Type returns TypeOptional.
func (*Optional) Type() string { return TypeOptional }

// Type returns TypeVariant.
func (*Variant) Type() string { return TypeVariant }

// Role names (CTF2-SPEC-2.0).
const (
	RoleDataStreamClassID                   = "data-stream-class-id"
	RoleDataStreamID                        = "data-stream-id"
	RoleMetadataStreamUUID                  = "metadata-stream-uuid"
	RolePacketMagicNumber                   = "packet-magic-number"
	RoleDefaultClockTimestamp               = "default-clock-timestamp"
	RoleDiscardedEventRecordCounterSnapshot = "discarded-event-record-counter-snapshot"
	RolePacketContentLength                 = "packet-content-length"
	RolePacketEndDefaultClockTimestamp      = "packet-end-default-clock-timestamp"
	RolePacketSequenceNumber                = "packet-sequence-number"
	RolePacketTotalLength                   = "packet-total-length"
	RoleEventRecordClassID                  = "event-record-class-id"
)
