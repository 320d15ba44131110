package dial9

import (
	"bytes"
	"encoding/binary"
	"math"
)

// simpleType reports whether Next's fast path decodes fields of type t.
func simpleType(t FieldType) bool {
	switch t {
	case TypeVarint, TypeU8, TypeU16, TypeU32, TypePooledString, TypePooledStackFrames,
		TypeBool, TypeI64, TypeF64, TypeStackFrames:
		return true
	}
	return false
}

// fastPath is the typeInfo.path of a schema with these field types.
func fastPath(types []FieldType) uint8 {
	path := uint8(pathVarints)
	for _, t := range types {
		switch {
		case !simpleType(t):
			return pathGeneral
		case t != TypeVarint:
			path = pathSimple
		}
	}
	return path
}

// fixedMax is the sum of the widest reads simpleEvent makes for these
// fields: 8 bytes for a Varint (read as a word), a stack's 4-byte count,
// each fixed-size field's size; 0 for a schema off the fast paths.
func fixedMax(types []FieldType) int {
	n := 0
	for _, t := range types {
		switch t {
		case TypeVarint, TypeI64, TypeF64:
			n += 8
		case TypeU32, TypePooledString, TypePooledStackFrames, TypeStackFrames:
			n += 4
		case TypeU16:
			n += 2
		case TypeU8, TypeBool:
			n++
		}
	}
	return n
}

// event parses any event frame at buf[p] (Next decodes the common ones
// itself) and reports every error.
func (d *Reader) event(p int) (int, error) {
	b := d.buf
	if p < 0 || len(b)-p < 3 {
		return 0, errShort
	}
	h := b[p : p+3]
	id := uint16(h[1]) | uint16(h[2])<<8
	var ti *typeInfo
	if int(id) < len(d.types) {
		ti = d.types[id]
	}
	if ti == nil {
		return 0, newErr(d.abs(p), ErrUnknownType, "event with type id %d, which has no schema", id)
	}
	q := p + 3
	ts := d.tsBase
	if ti.hasTS {
		if len(b)-q < 3 {
			return 0, errShort
		}
		t := b[q : q+3]
		delta := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16
		ts += delta
		if ts < delta {
			return 0, newErr(d.abs(p), ErrTimestampOverflow, "timestamp base %d + delta %d overflows 64 bits", d.tsBase, delta)
		}
		q += 3
	}
	start := q
	types := ti.types
	n := len(types)
	if err := d.growFields(n, p); err != nil {
		return 0, err
	}
	offs := d.offs[:n+1]
	vals := d.vals[:n]
	d.sc.base = d.base
	for i, t := range types {
		offs[i] = int32(q - start)
		s := b[q:]
		// Scalars are decoded while scanning (Event.Uint reads them back).
		switch t {
		case TypeVarint:
			if len(s) > 0 && s[0] < 0x80 {
				vals[i] = uint64(s[0])
				q++
				continue
			}
			v, k := uvarintLong(s)
			if k > 0 {
				vals[i] = v
				q += k
				continue
			}
		case TypeU8:
			if len(s) > 0 {
				vals[i] = uint64(s[0])
				q++
				continue
			}
		case TypeU32, TypePooledString, TypePooledStackFrames:
			if len(s) >= 4 {
				vals[i] = uint64(binary.LittleEndian.Uint32(s))
				q += 4
				continue
			}
		case TypeU16:
			if len(s) >= 2 {
				vals[i] = uint64(binary.LittleEndian.Uint16(s))
				q += 2
				continue
			}
		case TypeBool:
			if len(s) > 0 {
				vals[i] = 0
				if s[0] != 0 {
					vals[i] = 1
				}
				q++
				continue
			}
		case TypeI64, TypeF64:
			if len(s) >= 8 {
				vals[i] = binary.LittleEndian.Uint64(s)
				q += 8
				continue
			}
		case TypeStackFrames:
			if len(s) >= 4 {
				c := int64(binary.LittleEndian.Uint32(s))
				if c <= d.lim.MaxStackFrames && int64(len(s)-4) >= 8*c {
					vals[i] = 0
					q += 4 + 8*int(c)
					continue
				}
			}
		}
		vals[i] = 0
		var err error
		if t&Optional != 0 {
			var vs int
			var absent bool
			vs, q, absent, err = d.sc.skipField(b, q, t)
			if err == nil && !absent {
				vals[i] = View{typ: t, raw: b[vs:q]}.Uint()
			}
		} else {
			q, err = d.sc.skip(b, q, t, 0)
		}
		if err != nil {
			return 0, err
		}
	}
	if q-start > math.MaxInt32 {
		return 0, newErr(d.abs(p), ErrLimit, "event payload of %d bytes is over 2 GiB", q-start)
	}
	offs[n] = int32(q - start)
	if ti.hasTS {
		d.tsBase = ts
	}
	d.kind = FrameEvent
	d.cur = ti
	ev := &d.ev
	ev.ti, ev.types, ev.ts, ev.start = ti, types, ts, start
	return q, nil
}

// growFields makes d.offs and d.vals hold n+1 entries (the frame at p is
// charged for them). They only grow: once a schema of n fields is
// registered, they hold n+1 entries for the rest of the Reader's life,
// which Next's all-Varint path relies on.
func (d *Reader) growFields(n, p int) error {
	if len(d.offs) >= n+1 && len(d.vals) >= n+1 {
		return nil
	}
	if err := d.charge(int64(n+1)*12, p); err != nil {
		return err
	}
	d.offs = make([]int32, n+1)
	d.vals = make([]uint64, n+1)
	d.ev.offs, d.ev.vals = d.offs, d.vals
	return nil
}

// schemaFrame parses and registers a schema frame at buf[p].
func (d *Reader) schemaFrame(p int) (int, error) {
	b := d.buf
	q := p + 1
	if len(b)-q < 4 {
		return 0, errShort
	}
	id := binary.LittleEndian.Uint16(b[q:])
	nl := int(binary.LittleEndian.Uint16(b[q+2:]))
	q += 4
	if len(b)-q < nl+3 {
		return 0, errShort
	}
	name := b[q : q+nl]
	if !validName(name) {
		return 0, newErr(d.abs(q), ErrCorrupt, "schema name is not valid UTF-8")
	}
	q += nl
	hasTS := b[q] != 0
	nf := int(binary.LittleEndian.Uint16(b[q+1:]))
	q += 3
	if len(b)-q < 3*nf {
		return 0, errShort
	}
	// Validate everything before allocating the schema.
	fq := q
	for i := 0; i < nf; i++ {
		if len(b)-fq < 2 {
			return 0, errShort
		}
		fl := int(binary.LittleEndian.Uint16(b[fq:]))
		if len(b)-fq-2 < fl+1 {
			return 0, errShort
		}
		if !validName(b[fq+2 : fq+2+fl]) {
			return 0, newErr(d.abs(fq+2), ErrCorrupt, "name of field %d is not valid UTF-8", i)
		}
		if t := FieldType(b[fq+2+fl]); !t.Valid() {
			return 0, newErr(d.abs(fq+2+fl), ErrUnknownFieldType, "field %d has unknown type %#02x", i, uint8(t))
		}
		fq += 3 + fl
	}
	if int(id) < len(d.types) && d.types[id] != nil {
		old := d.types[id]
		if !d.sameSchema(old.schema, name, hasTS, b[q:fq], nf) {
			return 0, newErr(d.abs(p), ErrSchemaConflict, "type id %d (%q) registered again as %q with a different layout", id, old.schema.Name, name)
		}
		d.cur = old
		d.kind = FrameSchema
		return fq, nil
	}
	if err := d.charge(schemaBytes+int64(nf)*fieldBytes+int64(fq-q)+int64(nl), p); err != nil {
		return 0, err
	}
	if int(id) >= len(d.types) {
		if err := d.charge(8*int64(max(int(id)+1, 2*len(d.types))), p); err != nil {
			return 0, err
		}
	}
	s := &Schema{ID: id, Name: string(name), HasTimestamp: hasTS, Fields: make([]FieldDef, nf)}
	ti := &typeInfo{schema: s, types: make([]FieldType, nf), hasTS: hasTS}
	for i := 0; i < nf; i++ {
		fl := int(binary.LittleEndian.Uint16(b[q:]))
		s.Fields[i] = FieldDef{Name: string(b[q+2 : q+2+fl]), Type: FieldType(b[q+2+fl])}
		ti.types[i] = s.Fields[i].Type
		q += 3 + fl
	}
	ti.path = fastPath(ti.types)
	ti.fixedMax = fixedMax(ti.types)
	if err := d.growFields(nf, p); err != nil {
		return 0, err
	}
	if int(id) >= len(d.types) {
		nt := make([]*typeInfo, int(id)+1, max(int(id)+1, 2*len(d.types)))
		copy(nt, d.types)
		d.types = nt[:cap(nt)]
	}
	d.types[id] = ti
	d.typeIDs = append(d.typeIDs, id)
	d.cur = ti
	d.kind = FrameSchema
	return q, nil
}

func (d *Reader) sameSchema(s *Schema, name []byte, hasTS bool, fields []byte, nf int) bool {
	if s.Name != string(name) || s.HasTimestamp != hasTS || len(s.Fields) != nf {
		return false
	}
	q := 0
	for i := range s.Fields {
		fl := int(binary.LittleEndian.Uint16(fields[q:]))
		if s.Fields[i].Name != string(fields[q+2:q+2+fl]) || s.Fields[i].Type != FieldType(fields[q+2+fl]) {
			return false
		}
		q += 3 + fl
	}
	return true
}

// keep returns b as pool storage: the input itself for a byte-slice
// Reader, a copy for a streaming one.
func (d *Reader) keep(b []byte) ([]byte, error) {
	if !d.owned {
		return b, nil
	}
	if len(b) == 0 {
		return emptyContent, nil
	}
	d.poolBytes += int64(len(b))
	if d.poolBytes > d.lim.MaxPoolBytes {
		return nil, newErr(d.abs(d.frameStart), ErrLimit, "pool contents exceed the limit of %d bytes", d.lim.MaxPoolBytes)
	}
	if len(b) > 4096 {
		if err := d.charge(int64(len(b)), d.frameStart); err != nil {
			return nil, err
		}
		return bytes.Clone(b), nil
	}
	if cap(d.arena)-len(d.arena) < len(b) {
		if err := d.charge(64<<10, d.frameStart); err != nil {
			return nil, err
		}
		d.arena = make([]byte, 0, 64<<10)
	}
	n := len(d.arena)
	d.arena = append(d.arena, b...)
	return d.arena[n:len(d.arena):len(d.arena)], nil
}

func (d *Reader) stringPool(p int) (int, error) {
	b := d.buf
	q := p + 1
	if len(b)-q < 4 {
		return 0, errShort
	}
	n := int64(binary.LittleEndian.Uint32(b[q:]))
	if err := d.count(q, "string pool entry count", n, d.lim.MaxPoolEntries, q+4, 8); err != nil {
		return 0, err
	}
	q += 4
	if int64(cap(d.strEntries)) < n {
		if err := d.charge(n*40, p); err != nil {
			return 0, err
		}
		d.strEntries = make([]StringPoolEntry, 0, n)
	}
	ents := d.strEntries[:0]
	for range n {
		if len(b)-q < 8 {
			d.strEntries = ents
			return 0, errShort
		}
		id := binary.LittleEndian.Uint32(b[q:])
		l := int64(binary.LittleEndian.Uint32(b[q+4:]))
		if err := d.count(q+4, "pool string length", l, d.lim.MaxStringLen, q+8, 1); err != nil {
			d.strEntries = ents
			return 0, err
		}
		data := b[q+8 : q+8+int(l)]
		ents = append(ents, StringPoolEntry{ID: id, Data: data, ValidUTF8: validName(data)})
		q += 8 + int(l)
	}
	d.strEntries = ents
	d.frameStart = p
	for _, e := range ents {
		if !e.ValidUTF8 {
			continue // upstream does not insert entries that are not UTF-8
		}
		if err := d.charge(d.strs.cost(e.ID), p); err != nil {
			return 0, err
		}
		k, err := d.keep(e.Data)
		if err != nil {
			return 0, err
		}
		d.strs.set(e.ID, k)
	}
	d.kind = FrameStringPool
	d.cur = nil
	return q, nil
}

func (d *Reader) stackPoolFrame(p int) (int, error) {
	b := d.buf
	q := p + 1
	if len(b)-q < 4 {
		return 0, errShort
	}
	n := int64(binary.LittleEndian.Uint32(b[q:]))
	if err := d.count(q, "stack pool entry count", n, d.lim.MaxPoolEntries, q+4, 8); err != nil {
		return 0, err
	}
	q += 4
	if int64(cap(d.stkEntries)) < n {
		if err := d.charge(n*32, p); err != nil {
			return 0, err
		}
		d.stkEntries = make([]StackPoolEntry, 0, n)
	}
	ents := d.stkEntries[:0]
	for range n {
		if len(b)-q < 8 {
			d.stkEntries = ents
			return 0, errShort
		}
		id := binary.LittleEndian.Uint32(b[q:])
		c := int64(binary.LittleEndian.Uint32(b[q+4:]))
		if err := d.count(q+4, "stack pool frame count", c, d.lim.MaxStackFrames, q+8, 8); err != nil {
			d.stkEntries = ents
			return 0, err
		}
		ents = append(ents, StackPoolEntry{ID: id, Frames: stackOf(b[q+8 : q+8+8*int(c)])})
		q += 8 + 8*int(c)
	}
	d.stkEntries = ents
	d.frameStart = p
	for _, e := range ents {
		if err := d.charge(d.stacks.cost(e.ID), p); err != nil {
			return 0, err
		}
		k, err := d.keep(e.Frames.Raw())
		if err != nil {
			return 0, err
		}
		d.stacks.set(e.ID, k)
	}
	d.kind = FrameStackPool
	d.cur = nil
	return q, nil
}

func (d *Reader) annotations(p int) (int, error) {
	b := d.buf
	q := p + 1
	v, n := uvarint(b[q:])
	if n == 0 {
		return 0, errShort
	}
	if n < 0 {
		return 0, newErr(d.abs(q), ErrCorrupt, "annotations type id: varint longer than 10 bytes")
	}
	q += n
	id := uint16(v) // upstream truncates the LEB128 type id to u16
	if len(b)-q < 2 {
		return 0, errShort
	}
	cnt := int(binary.LittleEndian.Uint16(b[q:]))
	q += 2
	if len(b)-q < 8*cnt {
		return 0, errShort
	}
	fq := q
	for i := 0; i < cnt; i++ {
		if len(b)-fq < 4 {
			return 0, errShort
		}
		kl := int(binary.LittleEndian.Uint16(b[fq+2:]))
		if len(b)-fq-4 < kl+4 {
			return 0, errShort
		}
		if !validName(b[fq+4 : fq+4+kl]) {
			return 0, newErr(d.abs(fq+4), ErrCorrupt, "annotation key is not valid UTF-8")
		}
		vq := fq + 4 + kl
		vl := int64(binary.LittleEndian.Uint32(b[vq:]))
		if err := d.count(vq, "annotation value length", vl, d.lim.MaxStringLen, vq+4, 1); err != nil {
			return 0, err
		}
		if !validName(b[vq+4 : vq+4+int(vl)]) {
			return 0, newErr(d.abs(vq+4), ErrCorrupt, "annotation value is not valid UTF-8")
		}
		fq = vq + 4 + int(vl)
	}
	if err := d.charge(int64(cnt)*annotationBytes+int64(fq-q), p); err != nil {
		return 0, err
	}
	ents := d.annEntries[:0]
	for i := 0; i < cnt; i++ {
		fi := binary.LittleEndian.Uint16(b[q:])
		kl := int(binary.LittleEndian.Uint16(b[q+2:]))
		key := string(b[q+4 : q+4+kl])
		vq := q + 4 + kl
		vl := int(binary.LittleEndian.Uint32(b[vq:]))
		ents = append(ents, Annotation{Field: fi, Key: key, Value: string(b[vq+4 : vq+4+vl])})
		q = vq + 4 + vl
	}
	d.annEntries = ents
	d.annID = id
	d.cur = nil
	if int(id) < len(d.types) && d.types[id] != nil {
		d.cur = d.types[id]
		s := d.cur.schema
		s.Annotations = append(s.Annotations, ents...)
	}
	d.kind = FrameAnnotations
	return q, nil
}
