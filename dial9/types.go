package dial9

import "strconv"

// FieldType is a field-type tag of a schema field (the byte after the field
// name in a schema frame). The high bit (Optional) marks an optional field;
// Base strips it.
type FieldType uint8

// Field types. 1–5 and 7–13 are those of the version-1 text; 6, 14 and 15
// and the Optional bit were added by dial9-trace-format 0.3/0.4.
const (
	TypeI64               FieldType = 1  // 8 bytes little-endian two's complement
	TypeF64               FieldType = 2  // 8 bytes IEEE 754 little-endian
	TypeBool              FieldType = 3  // 1 byte, non-zero is true
	TypeString            FieldType = 4  // u32 length + bytes (UTF-8 expected)
	TypeBytes             FieldType = 5  // u32 length + bytes
	TypePooledStackFrames FieldType = 6  // u32 stack-pool id
	TypePooledString      FieldType = 7  // u32 string-pool id
	TypeStackFrames       FieldType = 8  // u32 count + count × u64
	TypeVarint            FieldType = 9  // unsigned LEB128
	TypeStringMap         FieldType = 10 // u32 count + count × (u32 len, key, u32 len, value)
	TypeU8                FieldType = 11 // 1 byte
	TypeU16               FieldType = 12 // 2 bytes little-endian
	TypeU32               FieldType = 13 // 4 bytes little-endian
	TypeDynamicList       FieldType = 14 // u32 count + count × (u8 tag + value)
	TypeDynamicMap        FieldType = 15 // u32 count + count × (u8 tag + key, u8 tag + value)

	// Optional is the modifier bit: the value is preceded by a presence byte.
	Optional FieldType = 0x80
)

var typeNames = [...]string{
	1: "I64", 2: "F64", 3: "Bool", 4: "String", 5: "Bytes", 6: "PooledStackFrames",
	7: "PooledString", 8: "StackFrames", 9: "Varint", 10: "StringMap", 11: "U8",
	12: "U16", 13: "U32", 14: "DynamicList", 15: "DynamicMap",
}

// Base is the type without the Optional bit.
func (t FieldType) Base() FieldType { return t &^ Optional }

// IsOptional reports whether the Optional bit is set.
func (t FieldType) IsOptional() bool { return t&Optional != 0 }

// Valid reports whether t (with or without the Optional bit) is a known type.
func (t FieldType) Valid() bool {
	b := t.Base()
	return b >= TypeI64 && b <= TypeDynamicMap
}

// String is the upstream name: "Varint", "OptionalPooledString", or
// "FieldType(0x..)" for an unknown tag.
func (t FieldType) String() string {
	if !t.Valid() {
		return "FieldType(0x" + strconv.FormatUint(uint64(t), 16) + ")"
	}
	if t.IsOptional() {
		return "Optional" + typeNames[t.Base()]
	}
	return typeNames[t]
}

// FieldDef is one field of a schema.
type FieldDef struct {
	Name string
	Type FieldType
}

// Annotation is one entry of a schema annotations frame (0x06): a key/value
// pair attached to a field, for example "metrique.unit" = "microseconds".
type Annotation struct {
	Field uint16 // index into the schema's fields
	Key   string
	Value string
}

// Schema is an event type: a type id, a name and the payload fields. A schema
// returned by a Reader must not be modified.
type Schema struct {
	ID           uint16
	Name         string
	HasTimestamp bool
	Fields       []FieldDef
	// Annotations accumulated from annotation frames (Reader) or given at
	// registration (Writer.Register).
	Annotations []Annotation
}

// FieldIndex returns the index of the first field called name, or -1.
func (s *Schema) FieldIndex(name string) int {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// sameLayout reports whether two schemas describe the same wire layout (name,
// timestamp flag and fields); ids and annotations are not compared.
func (s *Schema) sameLayout(o *Schema) bool {
	if s.Name != o.Name || s.HasTimestamp != o.HasTimestamp || len(s.Fields) != len(o.Fields) {
		return false
	}
	for i := range s.Fields {
		if s.Fields[i] != o.Fields[i] {
			return false
		}
	}
	return true
}
