package wtfcff

import (
	"encoding/binary"
	"errors"
	"iter"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Zone is a zone of execution created by wtf.zone#create. A stream starts
// in a default zone with empty name, type and location; as in the
// reference's database, the first wtf.zone#create renames it in place, so
// events read before the first create end up in the first created zone.
type Zone struct {
	ID       uint16 // the id of the create record that made it (first one)
	Name     string
	Type     string // "script", "native_script", …
	Location string
}

// Event is one event record decoded from an event buffer: a view valid until
// the decoder's next call to Next (or until the chunk's memory is reused).
type Event struct {
	Type   *EventType
	WireID uint16
	// Time is the record's time word: microseconds since the file header's
	// timebase (int32 µs as written, read unsigned as the reference does).
	Time uint32
	// Zone is the zone current when the record was read: the default zone
	// until a wtf.zone#set, nil after a set to an id no wtf.zone#create gave
	// (the reference fails on the next event there).
	Zone *Zone
	// Chunk is the id of the chunk holding the record.
	Chunk uint32
	// Offset is the absolute file offset of the record; BufferOffset its
	// offset inside the event-buffer part.
	Offset       int64
	BufferOffset int
	Size         int // record length in bytes

	d   *Decoder
	rec []byte // the binary record (nil for legacy records)
}

// Name is the event type's name.
func (e *Event) Name() string { return e.Type.Name }

// TimeMs is the time in milliseconds, as the reference's database reports it.
func (e *Event) TimeMs() float64 { return float64(e.Time) / 1000 }

// NumArgs is the number of arguments.
func (e *Event) NumArgs() int { return len(e.Type.Args) }

// Arg returns argument i (0 ≤ i < NumArgs).
func (e *Event) Arg(i int) Value {
	// Inlined fast path: a non-string slot at a fixed offset of a binary record.
	// (off is past every record for the other arguments, and rec is nil
	// for legacy records.)
	if a := e.Type.direct[i]; int(a.off) < len(e.rec) {
		return Value{Type: a.typ, word: binary.LittleEndian.Uint32(e.rec[a.off:])}
	}
	return e.d.value(i)
}

// ArgByName returns the argument called name.
func (e *Event) ArgByName(name string) (Value, bool) {
	i := e.Type.ArgIndex(name)
	if i < 0 {
		return Value{}, false
	}
	return e.d.value(i), true
}

// Raw returns the record's bytes (a view into the event buffer).
func (e *Event) Raw() []byte { return e.d.buf[e.BufferOffset : e.BufferOffset+e.Size] }

// IsInternal reports whether the record is a definition or zone record, the
// ones the reference's database does not list as events.
func (e *Event) IsInternal() bool {
	switch e.Type.builtin {
	case builtinDefine, builtinZoneCreate, builtinZoneDelete, builtinZoneSet:
		return true
	}
	return false
}

// IsScopeEnter reports whether the event opens a scope (class 1).
func (e *Event) IsScopeEnter() bool { return e.Type.Class == ClassScope }

// IsScopeLeave reports whether the event is wtf.scope#leave.
func (e *Event) IsScopeLeave() bool { return e.Type.builtin == builtinScopeLeave }

// AppendArgsJSON appends the arguments as a JSON object {"name": value, …}
// (see Value.AppendJSON); "{}" when there are none.
func (e *Event) AppendArgsJSON(b []byte) []byte {
	b = append(b, '{')
	for i, a := range e.Type.Args {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, a.Name)
		b = append(b, ':')
		b = e.Arg(i).AppendJSON(b)
	}
	return append(b, '}')
}

type argSpan struct {
	off  uint32 // offset of the slot (scalars) or first element (arrays) in buf
	n    uint32 // array count
	null bool
	// legacy strings: the inline bytes are buf[off:off+n]
}

// Decoder decodes binary event buffers (part 0x20002) and legacy event
// buffers, keeping the stream's state across chunks: the wire-id table built
// from wtf.event#define records (wire 1 is the only fixed id; duplicate
// definitions by name keep the first type, as the reference does), the zones
// and the current zone.
//
// Next yields every record, definitions and zone records included (see
// Event.IsInternal). Events are views: after warm-up, decoding does not
// allocate, except for each new definition or zone (their names are copied).
// A Decoder is not safe for concurrent use.
type Decoder struct {
	lim    Limits
	wire   []*EventType
	byName map[string]*EventType
	types  []*EventType
	zoneID map[uint16]*Zone
	// zoneLow mirrors zoneID for ids below 256, which wtf.zone#set records
	// name at every zone switch: a look-up without hashing.
	zoneLow [256]*Zone
	zoneBy  map[uint64][]*Zone // by digest of name, type and location
	zones   []*Zone
	zone    *Zone
	// dflt is the stream's default zone; dfltListed whether Zones holds it.
	dflt       *Zone
	dfltListed bool
	created    bool

	buf    []byte
	base   int64
	pos    int
	chunk  uint32
	strs   StringTable
	legacy bool
	spans  []argSpan
	enc    *EventEncoder         // for json_event_buffer parts
	torn   *Recovery             // the report of a torn chunk being decoded
	sigs   map[string]*EventType // parsed signatures, by text
	strs0  map[string]string     // strings of definitions and zones, interned
	ords   map[uint32]*strEntry  // by string-table ordinal; valid when gen matches
	gen    uint32                // counts event buffers
	ev     Event
	err    error
	// seen is the bytes of the event buffers and string tables set so
	// far, refs the bytes of the table strings their records named (each
	// reference charged), over the ErrLimit error once refs passed the
	// budget (see chargeStrings).
	seen, refs int64
	over       error
	odd        Oddities
}

// NewDecoder returns a decoder with only wtf.event#define (wire 1) known.
func NewDecoder(opts ...ReaderOption) *Decoder {
	o, _ := applyReaderOptions(opts)
	d := &Decoder{lim: o.limits}
	d.Reset()
	return d
}

// Reset forgets every definition and zone (a new stream).
func (d *Decoder) Reset() {
	def := defineType()
	d.wire = make([]*EventType, 2, 64)
	d.wire[1] = def
	d.byName = map[string]*EventType{def.Name: def}
	d.types = []*EventType{def}
	d.zoneID = map[uint16]*Zone{}
	d.zoneLow = [256]*Zone{}
	d.sigs = map[string]*EventType{}
	d.ords = map[uint32]*strEntry{}
	d.strs0 = map[string]string{}
	d.zoneBy = map[uint64][]*Zone{}
	d.zones = nil
	d.dflt = &Zone{}
	d.zone, d.dfltListed, d.created = d.dflt, false, false
	d.buf, d.pos, d.err = nil, 0, nil
	d.enc = nil
	d.seen, d.refs, d.over = 0, 0, nil
	d.odd = Oddities{FirstPastTable: -1, FirstRebind: -1}
}

// Oddities counts what the decoder read as the reference does, though no
// writer of the format produces it, so that a tool can report it:
// string-table ordinals past their chunk's table (read as null, as the
// reference's table look-up gives) and wire ids bound again to another
// event type (the later definition wins, as in the reference). Offsets are
// of the first record, -1 when there is none.
type Oddities struct {
	PastTable      int64 // string arguments whose ordinal is past the table
	FirstPastTable int64
	Rebinds        int64 // wtf.event#define records rebinding a bound wire id to another type
	FirstRebind    int64
}

// Oddities reports what was read so far (see Oddities); Reset clears it.
func (d *Decoder) Oddities() Oddities { return d.odd }

// SetBuffer starts decoding buf, a binary event buffer at absolute file
// offset base, with strings from the string table part strings, in the chunk
// with id chunk. Definitions and zones persist. A previous error is cleared.
func (d *Decoder) SetBuffer(buf, strings []byte, base int64, chunk uint32) {
	d.buf, d.base, d.pos, d.chunk, d.legacy, d.err, d.torn = buf, base, 0, chunk, false, d.over, nil
	d.seen += int64(len(buf) + len(strings))
	d.gen++
	d.strs.Reset(strings)
}

// SetChunk starts decoding an event_data chunk's event buffer (binary,
// legacy, or this package's JSON event encoding). It returns false for chunks without one (file headers, unknown
// chunk types), which the caller skips.
func (d *Decoder) SetChunk(c *Chunk) bool {
	if c.Type != ChunkEventData {
		return false
	}
	var buf Part
	found := false
	for _, p := range c.Parts {
		if p.Type == PartBinaryEventBuffer || p.Type == PartLegacyEventBuffer {
			buf, found = p, true
		}
	}
	if !found {
		jp, ok := c.Part(PartJSONEventBuffer)
		if !ok {
			return false
		}
		// JSON events are encoded to a binary buffer first (offsets of the
		// events are then offsets in that buffer, based at the part).
		if d.enc == nil {
			d.enc = NewEventEncoder()
		}
		buf, strs, err := d.enc.Encode(jp.Data, jp.Offset)
		d.SetBuffer(buf, strs, jp.Offset, c.ID)
		d.err = err
		return true
	}
	st, _ := c.Part(PartStringTable)
	d.SetBuffer(buf.Data, st.Data, buf.Offset, c.ID)
	d.legacy = buf.Type == PartLegacyEventBuffer
	if c.Torn || c.rec != nil {
		d.torn = c.rec // a torn chunk, or a legacy one read WithRecovery
	}
	return true
}

// Err returns the error that stopped Next, or nil.
func (d *Decoder) Err() error { return d.err }

// All iterates over the remaining records of the current buffer (see
// Next); the *Event is valid until the next iteration. On failure it yields
// a last (nil, err) pair and stops.
func (d *Decoder) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for d.Next() {
			if !yield(&d.ev, nil) {
				return
			}
		}
		if d.err != nil {
			yield(nil, d.err)
		}
	}
}

// Event returns the record read by the last successful Next.
func (d *Decoder) Event() *Event { return &d.ev }

// Types returns the distinct event types defined so far, in definition order
// (index 0 is wtf.event#define).
func (d *Decoder) Types() []*EventType { return d.types }

// TypeByWireID returns the type currently bound to a wire id.
func (d *Decoder) TypeByWireID(id uint16) *EventType {
	if int(id) < len(d.wire) {
		return d.wire[id]
	}
	return nil
}

// Zones returns the zones events were attributed to or created so far: the
// default zone (renamed by the first create) and the distinct zones created
// (zones are keyed by name,
// type and location, as in the reference's database), in creation order.
func (d *Decoder) Zones() []*Zone { return d.zones }

// Strings returns the current chunk's string table.
func (d *Decoder) Strings() *StringTable { return &d.strs }

// Next decodes the next record of the buffer. It returns false at the end of
// the buffer or on an error (Err); errors stop the buffer but are cleared by
// the next SetBuffer/SetChunk.
func (d *Decoder) Next() bool {
	if d.err != nil || d.pos >= len(d.buf) {
		return false
	}
	var ok bool
	if d.legacy {
		ok = d.nextLegacy()
	} else {
		ok = d.nextBinary()
	}
	if !ok {
		if d.torn != nil && errors.Is(d.err, ErrTruncated) {
			// The input was cut inside this record: the records before it
			// are what the torn chunk salvages.
			if d.torn.Kind == KindLegacy {
				d.torn.legacyCut(d.buf, d.pos, d.base)
			}
			d.torn.DroppedRecordBytes = int64(len(d.buf) - d.pos)
			d.torn.cut = d.pos
			d.err, d.pos = nil, len(d.buf)
		}
		return false
	}
	if d.torn != nil {
		d.torn.SalvagedEvents++
	}
	if len(d.ev.Type.strArgs) > 0 && !d.ev.Type.internal && !d.legacy && !d.chargeStrings() {
		return false
	}
	if !d.dfltListed && d.zone == d.dflt && !d.ev.Type.internal {
		d.dfltListed = true
		d.zones = append(d.zones, d.dflt)
	}
	switch d.ev.Type.builtin {
	case builtinDefine:
		return d.define()
	case builtinZoneCreate:
		return d.zoneCreate()
	case builtinZoneSet:
		id := uint16(d.value(0).Uint())
		z := d.zoneLow[id&255]
		if id >= 256 {
			z = d.zoneID[id]
		}
		d.zone = z
		d.ev.Zone = z
	}
	return true
}

// chargeStrings charges the table strings the current record names: each
// reference costs the string's length, as rendering the record does, however
// often one string is named. A stream whose references together pass the
// package's budget (budgetRatio bytes per byte of event buffers and string
// tables read, plus budgetBase) stops with ErrLimit: 20 000 appendData
// records naming one 1 MiB string (1.4 MB of input) would otherwise render
// as 20 GB. The error stays, across buffers, until Reset. Definition and
// zone records are not charged: the decoder interns their strings once per
// chunk and no event carries them.
func (d *Decoder) chargeStrings() bool {
	t := d.ev.Type
	rec := d.ev.rec
	for _, a := range t.strArgs {
		// The ordinal, where value reads it (binary records only).
		var w uint32
		if a.off >= 0 {
			w = binary.LittleEndian.Uint32(rec[a.off:])
		} else {
			w = binary.LittleEndian.Uint32(d.buf[d.spans[a.arg].off:])
		}
		n, in := d.strs.entryLen(w)
		d.refs += int64(n)
		if !in && w != NullString && w != EmptyString {
			if d.odd.PastTable++; d.odd.FirstPastTable < 0 {
				d.odd.FirstPastTable = d.ev.Offset
			}
		}
	}
	if d.refs <= budgetRatio*d.seen+budgetBase {
		return true
	}
	d.over = newErr(d.ev.Offset, ErrLimit, "the records so far name %d bytes of table strings (each reference counted) for %d bytes of event buffers and string tables: over the budget (%d × input + %d MiB)",
		d.refs, d.seen, budgetRatio, budgetBase>>20)
	d.err = d.over
	return false
}

func (d *Decoder) nextBinary() bool {
	start := d.pos
	b := d.buf
	if len(b)-start < 8 {
		d.err = newErr(d.base+int64(start), ErrTruncated, "event header needs 8 bytes, only %d left in the event buffer", len(b)-start)
		return false
	}
	wire := uint16(binary.LittleEndian.Uint32(b[start:]))
	t := d.TypeByWireID(wire)
	if t == nil {
		d.err = newErr(d.base+int64(start), ErrUndefinedEvent, "undefined event type %d (chunk %d, event buffer offset %d)", wire, d.chunk, start)
		return false
	}
	if t.unsupported != "" {
		d.err = newErr(d.base+int64(start), ErrUnsupportedType, "event %s has argument type %q without a wire encoding", t.Name, t.unsupported)
		return false
	}
	pos := start + 8
	if t.scalarOnly {
		// Fast path: one slot per argument, offsets computed in value.
		n := 4 * len(t.Args)
		if len(b)-pos < n {
			d.err = newErr(d.base+int64(pos), ErrTruncated, "event %s needs %d argument bytes, only %d left in the event buffer", t.Name, n, len(b)-pos)
			return false
		}
		pos += n
		d.setEvent(t, wire, binary.LittleEndian.Uint32(b[start+4:]), start, pos)
		return true
	}
	if cap(d.spans) < len(t.Args) {
		d.spans = make([]argSpan, len(t.Args), max(len(t.Args), 16))
	}
	d.spans = d.spans[:len(t.Args)]
	// The leading one-slot arguments sit at offsets fixed by the layout
	// (value reads them from there); spans are needed from the first array.
	first := t.fixedArgs
	if left := len(b) - pos; left < 4*first {
		i := left / 4
		d.err = newErr(d.base+int64(pos+4*i), ErrTruncated, "event %s argument %s runs past the end of the event buffer", t.Name, t.Args[i].Name)
		return false
	}
	pos += 4 * first
	for i := first; i < len(t.Args); i++ {
		a := t.Args[i].Type
		if len(b)-pos < 4 {
			d.err = newErr(d.base+int64(pos), ErrTruncated, "event %s argument %s runs past the end of the event buffer", t.Name, t.Args[i].Name)
			return false
		}
		if !a.IsArray() {
			d.spans[i] = argSpan{off: uint32(pos)}
			pos += 4
			continue
		}
		n := binary.LittleEndian.Uint32(b[pos:])
		pos += 4
		if n == 0xFFFFFFFF {
			d.spans[i] = argSpan{off: uint32(pos), null: true}
			continue
		}
		size := uint64(n) * uint64(a.elemSize())
		if size > uint64(len(b)-pos) {
			d.err = newErr(d.base+int64(pos-4), ErrTruncated, "event %s argument %s: %d elements need %d bytes, only %d left", t.Name, t.Args[i].Name, n, size, len(b)-pos)
			return false
		}
		d.spans[i] = argSpan{off: uint32(pos), n: n}
		pos += pad4(int(size))
		if pos > len(b) {
			// Padding of the last array may be missing at the very end.
			pos = len(b)
		}
	}
	d.setEvent(t, wire, binary.LittleEndian.Uint32(b[start+4:]), start, pos)
	return true
}

// setEvent makes d.ev the binary record buf[start:end], field by field
// (cheaper than assigning a whole Event per record).
func (d *Decoder) setEvent(t *EventType, wire uint16, time uint32, start, end int) {
	e := &d.ev
	e.Type, e.WireID, e.Time = t, wire, time
	if e.Zone != d.zone {
		e.Zone = d.zone
	}
	if e.d != d {
		e.d = d
	}
	e.Chunk, e.Offset, e.BufferOffset, e.Size = d.chunk, d.base+int64(start), start, end-start
	e.rec = d.buf[start:end]
	d.pos = end
}

// value builds argument i of the current event.
func (d *Decoder) value(i int) Value {
	t := d.ev.Type
	if !d.legacy {
		if l := &t.layout[i]; l.off >= 0 {
			// A slot at a fixed offset: read straight from the record.
			w := binary.LittleEndian.Uint32(d.buf[d.ev.BufferOffset+int(l.off):])
			if !l.str {
				return Value{Type: l.typ, word: w}
			}
			str, ok := d.strs.Lookup(w)
			return Value{Type: l.typ, word: w, data: str, null: !ok}
		}
	}
	a := t.Args[i].Type
	s := d.spans[i]
	if d.legacy {
		return d.legacyValue(a, s)
	}
	v := Value{Type: a}
	if a.IsArray() {
		if s.null {
			v.null = true
			return v
		}
		v.data = d.buf[s.off : s.off+s.n*uint32(a.elemSize())]
		return v
	}
	v.word = binary.LittleEndian.Uint32(d.buf[s.off:])
	if a.IsString() {
		str, ok := d.strs.Lookup(v.word)
		v.data, v.null = str, !ok
	}
	return v
}

func (d *Decoder) define() bool {
	ev := &d.ev
	wire := uint16(d.value(0).Uint())
	class := uint16(d.value(1).Uint())
	flags := uint32(d.value(2).Uint())
	ne := d.strEntry(3)
	if ne.named == nil {
		ne.named = d.byName[ne.s]
	}
	if ne.named != nil {
		// The reference keeps the first definition of a name and maps the
		// new wire id to it.
		d.bind(wire, ne.named)
		return true
	}
	if int64(len(d.types)) >= d.lim.MaxEventTypes {
		d.err = newErr(ev.Offset, ErrLimit, "more than %d event types defined", d.lim.MaxEventTypes)
		return false
	}
	name := ne.s
	if !validEventName(name) {
		d.err = newErr(ev.Offset, ErrCorrupt, "wtf.event#define for wire id %d has a bad event name %q", wire, name)
		return false
	}
	// Definitions that share a signature share its parsed arguments: a
	// stream repeating one long signature for many names costs memory per
	// name, not per name and argument.
	se := d.strEntry(4)
	if se.tmpl == nil {
		se.tmpl = d.sigs[se.s]
	}
	if se.tmpl == nil {
		tmpl, err := newEventType(0, 0, 0, "", se.s)
		if err != nil {
			d.err = newErr(ev.Offset, ErrCorrupt, "wtf.event#define %s: %v", name, err)
			return false
		}
		d.sigs[se.s], se.tmpl = tmpl, tmpl
	}
	t := se.tmpl.withName(wire, class, flags, name)
	ne.named = t
	d.byName[name] = t
	d.types = append(d.types, t)
	d.bind(wire, t)
	return true
}

// strEntry is a string argument of the current record, interned, with its
// digest and what the decoder found for it. Strings of a chunk's table are
// looked up once per chunk, so records repeating a long string cost time per
// record, not per byte of the string.
type strEntry struct {
	s     string
	h     uint64
	gen   uint32
	named *EventType // the type defined with this name
	tmpl  *EventType // the parsed signature with this text
}

// strEntry returns string argument i of the current record.
func (d *Decoder) strEntry(i int) *strEntry {
	v := d.value(i)
	b := v.Bytes()
	if d.legacy || !v.Type.IsString() {
		return &strEntry{s: d.intern(b), h: xxhash.Sum64(b), gen: d.gen}
	}
	e := d.ords[v.word]
	if e != nil && e.gen == d.gen {
		return e
	}
	if e == nil { // entries of earlier chunks are reused: no allocation in steady state
		e = &strEntry{}
		d.ords[v.word] = e
	}
	*e = strEntry{s: d.intern(b), h: xxhash.Sum64(b), gen: d.gen}
	return e
}

func (d *Decoder) bind(wire uint16, t *EventType) {
	if wire <= 1 {
		return // 0 is reserved, 1 is always wtf.event#define
	}
	for int(wire) >= len(d.wire) {
		d.wire = append(d.wire, nil)
	}
	if old := d.wire[wire]; old != nil && old != t {
		if d.odd.Rebinds++; d.odd.FirstRebind < 0 {
			d.odd.FirstRebind = d.ev.Offset
		}
	}
	d.wire[wire] = t
}

func (d *Decoder) zoneCreate() bool {
	id := uint16(d.value(0).Uint())
	name, typ, loc := d.strEntry(1), d.strEntry(2), d.strEntry(3)
	key := name.h ^ bits.RotateLeft64(typ.h, 21) ^ bits.RotateLeft64(loc.h, 42)
	var z *Zone
	for _, old := range d.zoneBy[key] { // a digest key: no quadratic scan; interned strings compare by pointer
		if old.Name == name.s && old.Type == typ.s && old.Location == loc.s {
			z = old
			break
		}
	}
	if z == nil && !d.created {
		// The first create renames the default zone in place.
		z = d.dflt
		z.ID, z.Name, z.Type, z.Location = id, name.s, typ.s, loc.s
		d.zoneBy[key] = append(d.zoneBy[key], z)
		if !d.dfltListed {
			d.dfltListed = true
			d.zones = append(d.zones, z)
		}
	}
	d.created = true
	if z == nil {
		if int64(len(d.zones)) >= d.lim.MaxZones {
			d.err = newErr(d.ev.Offset, ErrLimit, "more than %d zones created", d.lim.MaxZones)
			return false
		}
		z = &Zone{ID: id, Name: name.s, Type: typ.s, Location: loc.s}
		d.zones = append(d.zones, z)
		d.zoneBy[key] = append(d.zoneBy[key], z)
	}
	d.zoneID[id] = z
	if id < 256 {
		d.zoneLow[id] = z
	}
	return true
}

// intern returns b as a string, one copy per distinct text: zones repeating
// a long type or location string cost memory once.
func (d *Decoder) intern(b []byte) string {
	if s, ok := d.strs0[string(b)]; ok {
		return s
	}
	s := string(b)
	d.strs0[s] = s
	return s
}

// ZoneByID returns the zone a wtf.zone#create gave the id.
func (d *Decoder) ZoneByID(id uint16) *Zone { return d.zoneID[id] }
