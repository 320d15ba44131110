package dial9

import "unsafe"

// Event is a zero-copy view of one decoded event, valid until the next call
// on the Reader that returned it. Field values are decoded on access.
type Event struct {
	d     *Reader
	ti    *typeInfo
	types []FieldType // ti.types
	ts    uint64
	start int      // payload = d.buf[start : start+offs[len(types)]]
	offs  []int32  // start of each field in payload, then the end
	vals  []uint64 // scalar values decoded while scanning
}

// frameStart is the buffer offset of the event's frame: its payload start
// less the tag, the type id and any timestamp delta.
func (e *Event) frameStart() int {
	if e.ti.hasTS {
		return e.start - 6
	}
	return e.start - 3
}

// Schema is the event's schema.
func (e *Event) Schema() *Schema { return e.ti.schema }

// TypeID is the event's wire type id.
func (e *Event) TypeID() uint16 { return e.ti.schema.ID }

// Name is the schema name.
func (e *Event) Name() string { return e.ti.schema.Name }

// HasTimestamp reports whether the event carried a timestamp delta (its
// schema's has_timestamp flag).
func (e *Event) HasTimestamp() bool { return e.ti.schema.HasTimestamp }

// Timestamp is the absolute timestamp in ns: base + delta. For a schema
// without timestamps it is the current base (the newest upstream's rule;
// 0.2/0.4 report no timestamp, see HasTimestamp).
func (e *Event) Timestamp() uint64 { return e.ts }

// NumFields is the number of fields.
func (e *Event) NumFields() int { return len(e.types) }

// FieldType is the declared type of field i.
func (e *Event) FieldType(i int) FieldType { return e.types[i] }

// Payload is the encoded field values (the frame after its header).
func (e *Event) Payload() []byte { return e.d.buf[e.start : e.start+int(e.offs[len(e.types)])] }

// Field returns field i (0 ≤ i < NumFields()).
func (e *Event) Field(i int) View {
	t := e.types[i]
	// e.offs holds at least NumFields()+1 entries (growFields): the check
	// of i against NumFields, which a loop over NumFields proves, covers
	// the field's start and end.
	o := (*[2]int32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(e.offs)), 4*i))
	raw := e.d.buf[e.start+int(o[0]) : e.start+int(o[1])]
	if t&Optional != 0 {
		if raw[0] == 0 {
			return View{typ: t, absent: true}
		}
		raw = raw[1:]
	}
	return View{typ: t, raw: raw}
}

// Uint returns field i as an unsigned integer without building a View,
// exactly as Field(i).Uint(): a Varint, U8, U16, U32 or Bool (0/1) value,
// I64/F64 bits or a pool id; 0 for other types and absent values.
//
// Its one check is i < NumFields() (e.vals holds at least NumFields()+1
// entries, see growFields), which a loop over NumFields proves: reading a
// field costs one load.
func (e *Event) Uint(i int) uint64 {
	_ = e.types[i]
	return *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(e.vals)), 8*i))
}

// FieldByName returns the first field called name.
func (e *Event) FieldByName(name string) (View, bool) {
	for i := range e.ti.schema.Fields {
		if e.ti.schema.Fields[i].Name == name {
			return e.Field(i), true
		}
	}
	return View{}, false
}

// String resolves a pooled string against the Reader's pool as it stands
// at this event; ok is false for an undefined id.
func (e *Event) String(id uint32) ([]byte, bool) { return e.d.LookupString(id) }

// Stack resolves a pooled stack against the Reader's pool as it stands at
// this event; ok is false for an undefined id.
func (e *Event) Stack(id uint32) (Stack, bool) { return e.d.LookupStack(id) }
