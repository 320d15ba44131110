package dial9

import (
	"encoding/binary"
	"fmt"
	"math"
)

// EventWriter writes one event's fields in schema order. Get it from
// Writer.Begin, call one typed method per field, then End. Each method
// checks the value against the field's declared type; the first mismatch is
// kept and returned by End, which then discards the partial event (and any
// reset frame it needed) so the stream stays valid. An optional field takes
// the same methods (written with a presence byte) or Absent.
//
// The EventWriter belongs to its Writer and is reused by the next Begin.
// Interning, registering or writing pool frames between Begin and End puts
// those frames before the event. An event not finished with End is
// discarded by the next Begin, WriteEvent, WriteUints, WriteTimestampReset,
// Flush, Close or Reset, so an unfinished event never reaches the stream.
type EventWriter struct {
	e    *Writer
	t    *encType
	i    int
	mark int
	base uint64
	err  error
	open bool // between Begin and End
	// anchor is the Writer's anchor flag at Begin (restored with base when
	// the event is discarded).
	anchor bool
}

// abandon discards an event begun and not ended.
func (e *Writer) abandon() {
	if w := &e.ew; w.open {
		e.buf = e.buf[:w.mark]
		e.restoreBase(w)
		w.open = false
	}
}

// restoreBase undoes what a discarded event did to the timestamp state.
func (e *Writer) restoreBase(w *EventWriter) {
	e.tsBase, e.anchor = w.base, w.anchor
	if e.anchor {
		e.tsBase = anchorBase
	}
}

// Begin starts an event of type h at timestamp ts (ns; ignored for a schema
// without timestamps). It writes the reset frame when the reference rule
// needs one and the event header.
func (e *Writer) Begin(h Handle, ts uint64) *EventWriter {
	e.abandon()
	w := &e.ew
	w.i, w.mark, w.base, w.err, w.open, w.anchor = 0, len(e.buf), e.tsBase, e.err, true, e.anchor
	if w.err != nil { // a failed writer: write nothing more
		w.t = nil
		return w
	}
	if int(h.idx) >= len(e.types) || e.types[h.idx].schema.ID != h.id {
		if !e.syncTypes(h) {
			w.t = nil
			w.err = fmt.Errorf("%w: handle for type %d is not registered in this stream", ErrEncode, h.id)
			return w
		}
	}
	t := &e.types[h.idx]
	w.t = t
	if t.schema.HasTimestamp {
		if ts < e.tsBase || ts-e.tsBase > 0xFFFFFF {
			if e.anchor {
				// A ThreadWriter's first timestamped event of a batch: its
				// delta is set when the batch joins the stream.
				e.anchor, e.anchorAt, e.anchorTS = false, len(e.buf), ts
			} else {
				e.buf = append(e.buf, tagReset)
				e.buf = binary.LittleEndian.AppendUint64(e.buf, ts)
			}
			e.tsBase = ts
		}
		d := ts - e.tsBase
		e.buf = append(e.buf, tagEvent, byte(h.id), byte(h.id>>8), byte(d), byte(d>>8), byte(d>>16))
		e.tsBase = ts
	} else {
		e.buf = append(e.buf, tagEvent, byte(h.id), byte(h.id>>8))
	}
	return w
}

// End finishes the event. It returns the first error of the event (and
// removes the partial event from the stream) or a write error.
func (w *EventWriter) End() error {
	e := w.e
	if !w.open {
		return fmt.Errorf("%w: End without Begin", ErrEncode)
	}
	w.open = false
	if w.err == nil && w.i != len(w.t.types) {
		w.err = fmt.Errorf("%w: %s: %d of %d fields written", ErrEncode, w.t.schema.Name, w.i, len(w.t.types))
	}
	if w.err != nil {
		e.buf = e.buf[:w.mark]
		e.restoreBase(w)
		return w.err
	}
	if len(e.buf) >= e.flushAt {
		return e.flushFull()
	}
	return e.err
}

// field checks that the next field accepts a value of base type want and
// writes its presence byte when optional. It reports whether to write.
func (w *EventWriter) field(want FieldType) bool {
	if w.err != nil {
		return false
	}
	if w.i >= len(w.t.types) {
		w.err = fmt.Errorf("%w: %s has only %d fields", ErrEncode, w.t.schema.Name, len(w.t.types))
		return false
	}
	t := w.t.types[w.i]
	if t.Base() != want {
		w.mismatch(want.String())
		return false
	}
	if t&Optional != 0 {
		w.e.buf = append(w.e.buf, 1)
	}
	w.i++
	return true
}

func (w *EventWriter) mismatch(got string) {
	f := w.t.schema.Fields[w.i]
	w.err = fmt.Errorf("%w: %s field %d (%s) is %s, got a %s value", ErrEncode, w.t.schema.Name, w.i, f.Name, f.Type, got)
}

// Absent writes an absent optional field.
func (w *EventWriter) Absent() *EventWriter {
	if w.err != nil {
		return w
	}
	if w.i >= len(w.t.types) {
		w.err = fmt.Errorf("%w: %s has only %d fields", ErrEncode, w.t.schema.Name, len(w.t.types))
		return w
	}
	if !w.t.types[w.i].IsOptional() {
		w.mismatch("absent")
		return w
	}
	w.e.buf = append(w.e.buf, 0)
	w.i++
	return w
}

// Varint writes a Varint field.
func (w *EventWriter) Varint(v uint64) *EventWriter {
	// Inlinable fast path for a required Varint field.
	if w.err == nil && w.i < len(w.t.types) && w.t.types[w.i] == TypeVarint {
		w.i++
		if v < 0x80 {
			w.e.buf = append(w.e.buf, byte(v))
		} else {
			w.e.buf = binary.AppendUvarint(w.e.buf, v)
		}
		return w
	}
	if w.field(TypeVarint) {
		w.e.buf = binary.AppendUvarint(w.e.buf, v)
	}
	return w
}

// Uint writes an unsigned value into a Varint, U8, U16 or U32 field,
// refusing values that do not fit the field's width.
func (w *EventWriter) Uint(v uint64) *EventWriter {
	if w.err != nil || w.i >= len(w.t.types) {
		return w.Varint(v) // reports the error
	}
	switch w.t.types[w.i].Base() {
	case TypeU8:
		if v > math.MaxUint8 {
			w.rangeErr(v)
			return w
		}
		return w.U8(uint8(v))
	case TypeU16:
		if v > math.MaxUint16 {
			w.rangeErr(v)
			return w
		}
		return w.U16(uint16(v))
	case TypeU32:
		if v > math.MaxUint32 {
			w.rangeErr(v)
			return w
		}
		return w.U32(uint32(v))
	}
	return w.Varint(v)
}

func (w *EventWriter) rangeErr(v uint64) {
	f := w.t.schema.Fields[w.i]
	w.err = fmt.Errorf("%w: %s field %d (%s): %d does not fit in %s", ErrEncode, w.t.schema.Name, w.i, f.Name, v, f.Type)
}

// U8 writes a U8 field.
func (w *EventWriter) U8(v uint8) *EventWriter {
	if w.field(TypeU8) {
		w.e.buf = append(w.e.buf, v)
	}
	return w
}

// U16 writes a U16 field.
func (w *EventWriter) U16(v uint16) *EventWriter {
	if w.field(TypeU16) {
		w.e.buf = binary.LittleEndian.AppendUint16(w.e.buf, v)
	}
	return w
}

// U32 writes a U32 field.
func (w *EventWriter) U32(v uint32) *EventWriter {
	if w.field(TypeU32) {
		w.e.buf = binary.LittleEndian.AppendUint32(w.e.buf, v)
	}
	return w
}

// I64 writes an I64 field.
func (w *EventWriter) I64(v int64) *EventWriter {
	if w.field(TypeI64) {
		w.e.buf = binary.LittleEndian.AppendUint64(w.e.buf, uint64(v))
	}
	return w
}

// F64 writes an F64 field.
func (w *EventWriter) F64(v float64) *EventWriter {
	if w.field(TypeF64) {
		w.e.buf = binary.LittleEndian.AppendUint64(w.e.buf, math.Float64bits(v))
	}
	return w
}

// Bool writes a Bool field (0 or 1).
func (w *EventWriter) Bool(v bool) *EventWriter {
	if w.field(TypeBool) {
		b := byte(0)
		if v {
			b = 1
		}
		w.e.buf = append(w.e.buf, b)
	}
	return w
}

// String writes a String field.
func (w *EventWriter) String(s string) *EventWriter {
	if w.lenOK(len(s)) && w.field(TypeString) {
		w.e.buf = binary.LittleEndian.AppendUint32(w.e.buf, uint32(len(s)))
		w.e.buf = append(w.e.buf, s...)
	}
	return w
}

// StringBytes writes a String field from bytes.
func (w *EventWriter) StringBytes(b []byte) *EventWriter {
	if w.lenOK(len(b)) && w.field(TypeString) {
		w.e.buf = binary.LittleEndian.AppendUint32(w.e.buf, uint32(len(b)))
		w.e.buf = append(w.e.buf, b...)
	}
	return w
}

// Bytes writes a Bytes field.
func (w *EventWriter) Bytes(b []byte) *EventWriter {
	if w.lenOK(len(b)) && w.field(TypeBytes) {
		w.e.buf = binary.LittleEndian.AppendUint32(w.e.buf, uint32(len(b)))
		w.e.buf = append(w.e.buf, b...)
	}
	return w
}

func (w *EventWriter) lenOK(n int) bool {
	if uint64(n) > math.MaxUint32 && w.err == nil {
		w.err = fmt.Errorf("%w: value of %d bytes is over the u32 length limit", ErrLimit, n)
	}
	return w.err == nil
}

// PooledString writes a PooledString field (an id from InternString).
func (w *EventWriter) PooledString(id uint32) *EventWriter {
	if w.field(TypePooledString) {
		w.e.buf = binary.LittleEndian.AppendUint32(w.e.buf, id)
	}
	return w
}

// PooledStack writes a PooledStackFrames field (an id from InternStack).
func (w *EventWriter) PooledStack(id uint32) *EventWriter {
	if w.field(TypePooledStackFrames) {
		w.e.buf = binary.LittleEndian.AppendUint32(w.e.buf, id)
	}
	return w
}

// Stack writes a StackFrames field.
func (w *EventWriter) Stack(frames []uint64) *EventWriter {
	if w.lenOK(len(frames)) && w.field(TypeStackFrames) {
		w.e.buf = binary.LittleEndian.AppendUint32(w.e.buf, uint32(len(frames)))
		w.e.buf = appendAddresses(w.e.buf, frames)
	}
	return w
}

// KV is one StringMap pair.
type KV struct{ Key, Value string }

// StringMap writes a StringMap field; order and duplicate keys are kept.
func (w *EventWriter) StringMap(pairs []KV) *EventWriter {
	if w.lenOK(len(pairs)) && w.field(TypeStringMap) {
		w.e.buf = appendStringMap(w.e.buf, pairs)
	}
	return w
}

func appendStringMap(dst []byte, pairs []KV) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(pairs)))
	for _, p := range pairs {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(p.Key)))
		dst = append(dst, p.Key...)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(p.Value)))
		dst = append(dst, p.Value...)
	}
	return dst
}

// List writes a DynamicList field; each element is written with its own
// type tag. Absent elements are refused (upstream writes tag 0 for them,
// which no decoder reads).
func (w *EventWriter) List(elems []Value) *EventWriter {
	if w.lenOK(len(elems)) && w.field(TypeDynamicList) {
		w.e.buf, w.err = appendElems(w.e.buf, elems, 1, 0)
	}
	return w
}

// Map writes a DynamicMap field from alternating keys and values.
func (w *EventWriter) Map(keysAndValues []Value) *EventWriter {
	if w.err == nil && len(keysAndValues)%2 != 0 {
		w.err = fmt.Errorf("%w: DynamicMap needs an even number of keys and values", ErrEncode)
	}
	if w.lenOK(len(keysAndValues)/2) && w.field(TypeDynamicMap) {
		w.e.buf, w.err = appendElems(w.e.buf, keysAndValues, 2, 0)
	}
	return w
}

// Value writes any field from a generic Value (see WriteEvent).
func (w *EventWriter) Value(v Value) *EventWriter {
	if w.err != nil {
		return w
	}
	if v.Type == 0 {
		return w.Absent()
	}
	switch v.Type {
	case TypeI64:
		return w.I64(int64(v.U))
	case TypeF64:
		return w.F64(v.F)
	case TypeBool:
		return w.Bool(v.U != 0)
	case TypeString:
		return w.String(v.S)
	case TypeBytes:
		return w.Bytes(v.B)
	case TypePooledString:
		return w.PooledString(uint32(v.U))
	case TypePooledStackFrames:
		return w.PooledStack(uint32(v.U))
	case TypeStackFrames:
		return w.Stack(v.Stack)
	case TypeVarint:
		return w.Varint(v.U)
	case TypeStringMap:
		return w.StringMap(v.Pairs)
	case TypeU8, TypeU16, TypeU32:
		if w.i < len(w.t.types) && w.t.types[w.i].Base() != v.Type {
			w.mismatch(v.Type.String())
			return w
		}
		return w.Uint(v.U)
	case TypeDynamicList:
		return w.List(v.Elems)
	case TypeDynamicMap:
		return w.Map(v.Elems)
	}
	w.err = fmt.Errorf("%w: value with unknown type %#02x", ErrEncode, uint8(v.Type))
	return w
}

// WriteEvent writes one event from generic values, one per field in schema
// order (Value{} for an absent optional field). The value types must match
// the field types exactly.
func (e *Writer) WriteEvent(h Handle, ts uint64, values []Value) error {
	w := e.Begin(h, ts)
	for _, v := range values {
		w.Value(v)
	}
	return w.End()
}

// WriteUints writes an event whose fields are all Varint, U8, U16 or U32
// (range-checked), without allocating.
func (e *Writer) WriteUints(h Handle, ts uint64, values ...uint64) error {
	e.abandon()
	if e.err == nil && int(h.idx) < len(e.types) {
		t := &e.types[h.idx]
		if t.schema.ID == h.id && t.schema.HasTimestamp && len(values) == len(t.types) {
			if e.writeUintsFast(t, h.id, ts, values) {
				if len(e.buf) >= e.flushAt {
					return e.flushFull()
				}
				return nil
			}
		}
	}
	// The checked path reports what is wrong.
	w := e.Begin(h, ts)
	for _, v := range values {
		w.Uint(v)
	}
	return w.End()
}

// writeUintsFast writes a timestamped all-integer event in one pass; it
// leaves the stream untouched and returns false if any value does not fit
// or the event is a ThreadWriter's anchor.
func (e *Writer) writeUintsFast(t *encType, id uint16, ts uint64, values []uint64) bool {
	buf := e.buf
	mark := len(buf)
	base := e.tsBase
	if ts < base || ts-base > 0xFFFFFF {
		if e.anchor {
			return false // a ThreadWriter's anchor: Begin records it
		}
		buf = append(buf, tagReset)
		buf = binary.LittleEndian.AppendUint64(buf, ts)
		base = ts
	}
	d := ts - base
	buf = append(buf, tagEvent, byte(id), byte(id>>8), byte(d), byte(d>>8), byte(d>>16))
	types := t.types[:len(values)]
	for i, v := range values {
		switch types[i] {
		case TypeVarint:
			for v >= 0x80 {
				buf = append(buf, byte(v)|0x80)
				v >>= 7
			}
			buf = append(buf, byte(v))
			continue
		case TypeU8:
			if v <= math.MaxUint8 {
				buf = append(buf, byte(v))
				continue
			}
		case TypeU32:
			if v <= math.MaxUint32 {
				buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
				continue
			}
		case TypeU16:
			if v <= math.MaxUint16 {
				buf = binary.LittleEndian.AppendUint16(buf, uint16(v))
				continue
			}
		}
		e.buf = buf[:mark]
		return false
	}
	e.buf = buf
	e.tsBase = ts
	return true
}
