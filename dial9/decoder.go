package dial9

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"

	"github.com/klauspost/compress/gzip"
)

// FrameKind is the kind of frame a Decoder returns. Timestamp-reset frames
// and stream headers are consumed silently (counted by Resets and Headers).
type FrameKind uint8

// Frame kinds; the values are the wire tags.
const (
	FrameSchema      FrameKind = 0x01
	FrameEvent       FrameKind = 0x02
	FrameStringPool  FrameKind = 0x03
	FrameStackPool   FrameKind = 0x04
	FrameAnnotations FrameKind = 0x06
)

func (k FrameKind) String() string {
	switch k {
	case FrameSchema:
		return "schema"
	case FrameEvent:
		return "event"
	case FrameStringPool:
		return "string_pool"
	case FrameStackPool:
		return "stack_pool"
	case FrameAnnotations:
		return "schema_annotations"
	}
	return fmt.Sprintf("FrameKind(%d)", uint8(k))
}

const (
	tagSchema      = 0x01
	tagEvent       = 0x02
	tagStringPool  = 0x03
	tagStackPool   = 0x04
	tagReset       = 0x05
	tagAnnotations = 0x06
)

// Magic is the 4-byte start of every stream header; the version byte follows.
const Magic = "TRC\x00"

// Version is the only header version byte this package writes and, unless
// WithAnyVersion is given, reads.
const Version = 1

// StringPoolEntry is one entry of a string-pool frame (a view into the
// input, valid until the next call).
type StringPoolEntry struct {
	ID   uint32
	Data []byte
	// ValidUTF8 is false for entries that upstream does not insert in its
	// pool; such an id stays unresolved (or keeps its earlier definition).
	ValidUTF8 bool
}

// StackPoolEntry is one entry of a stack-pool frame.
type StackPoolEntry struct {
	ID     uint32
	Frames Stack
}

type options struct {
	limits     Limits
	anyVersion bool
	bufSize    int
}

// Option configures a Decoder.
type Option func(*options) error

// WithLimits sets the decoding limits (zero fields keep their defaults).
func WithLimits(l Limits) Option {
	return func(o *options) error { o.limits = l; return nil }
}

// WithAnyVersion accepts any header version byte, as the upstream decoders
// do (they never check it). By default a version other than 1 is
// ErrUnsupportedVersion, the spec's rule.
func WithAnyVersion() Option {
	return func(o *options) error { o.anyVersion = true; return nil }
}

// WithBufferSize sets the initial buffer of a streaming Decoder (default
// 64 KiB; it grows up to Limits.MaxFrameSize for larger frames).
func WithBufferSize(n int) Option {
	return func(o *options) error {
		if n < 16 {
			return fmt.Errorf("dial9: buffer size %d too small", n)
		}
		o.bufSize = n
		return nil
	}
}

// typeInfo is the decoder's per-type-id entry.
type typeInfo struct {
	schema *Schema
	types  []FieldType
	hasTS  bool
}

// Decoder reads a dial9 stream frame by frame. Build one with NewDecoder
// (a byte slice: events are zero-copy views into it) or NewReader (an
// io.Reader, read through a bounded buffer). Gzip input is recognised by its
// magic and decompressed on the fly; offsets are then offsets in the
// decompressed stream.
//
// Next/Event iterate over events; NextFrame/Kind also return schema, pool and
// annotation frames. After warm-up (schemas and pools seen) decoding an event
// does not allocate. A Decoder is not safe for concurrent use.
type Decoder struct {
	buf   []byte
	pos   int
	base  int64 // absolute offset of buf[0]
	r     io.Reader
	eof   bool
	owned bool // buf is the decoder's (streaming): pool contents must be copied
	gzip  bool // r decompresses gzip
	opts  options
	lim   Limits
	sc    scanner

	err     error
	version byte
	headers int
	resets  int

	types     []*typeInfo
	typeIDs   []uint16 // ids registered in the current stream, for a cheap reset
	strPool   map[uint32][]byte
	stackPool map[uint32]Stack
	tsBase    uint64
	poolBytes int64
	arena     []byte

	kind       FrameKind
	frameStart int // current frame: buf[frameStart:pos]
	cur        *typeInfo
	ev         Event
	offs       []int32
	vals       []uint64
	strEntries []StringPoolEntry
	stkEntries []StackPoolEntry
	annID      uint16
	annEntries []Annotation
}

func buildOptions(opts []Option) (options, error) {
	o := options{bufSize: 64 << 10}
	for _, f := range opts {
		if err := f(&o); err != nil {
			return o, err
		}
	}
	o.limits = o.limits.withDefaults()
	return o, nil
}

// NewDecoder returns a Decoder over data, which must start with a stream
// header (or be a gzip stream of one). Events, strings and stacks returned
// are views into data (unless data is gzip-compressed).
func NewDecoder(data []byte, opts ...Option) (*Decoder, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return newStreaming(bytes.NewReader(data), o)
	}
	d := &Decoder{opts: o}
	d.init()
	d.buf = data
	if err := d.readFirstHeader(); err != nil {
		return nil, err
	}
	return d, nil
}

// NewReader returns a streaming Decoder reading from r (plain or gzip).
// Memory is bounded by the largest frame (Limits.MaxFrameSize) plus the
// pool contents of the current stream (Limits.MaxPoolBytes; a stream header
// starts a new count).
func NewReader(r io.Reader, opts ...Option) (*Decoder, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return newStreaming(r, o)
}

func newStreaming(r io.Reader, o options) (*Decoder, error) {
	d := &Decoder{opts: o, r: r, owned: true}
	d.init()
	d.buf = make([]byte, 0, o.bufSize)
	for len(d.buf) < 2 && d.fill() {
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.buf) >= 2 && d.buf[0] == 0x1f && d.buf[1] == 0x8b {
		zr, err := gzip.NewReader(io.MultiReader(bytes.NewReader(bytes.Clone(d.buf)), r))
		if err != nil {
			return nil, newErr(0, ErrCorrupt, "gzip: %v", err)
		}
		d.r = zr
		d.gzip = true
		d.buf = d.buf[:0]
		d.eof = false
	}
	if err := d.readFirstHeader(); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Decoder) init() {
	d.lim = d.opts.limits
	d.sc = scanner{lim: &d.lim, streaming: d.owned}
	d.strPool = map[uint32][]byte{}
	d.stackPool = map[uint32]Stack{}
	d.ev.d = d
}

// ResetBytes makes d decode data from the start, keeping its options and
// allocated memory. data must not be gzip-compressed.
func (d *Decoder) ResetBytes(data []byte) error {
	d.resetStream()
	d.buf, d.pos, d.base, d.r, d.eof, d.owned, d.gzip = data, 0, 0, nil, false, false, false
	d.sc.streaming = false
	d.err, d.headers, d.resets, d.kind = nil, 0, 0, 0
	return d.readFirstHeader()
}

func (d *Decoder) readFirstHeader() error {
	if d.owned {
		for len(d.buf)-d.pos < 5 && d.fill() {
		}
		if d.err != nil {
			return d.err
		}
	}
	b := d.buf[d.pos:]
	n := min(len(b), 4)
	if !bytes.Equal(b[:n], []byte(Magic)[:n]) || len(b) == 0 {
		d.err = newErr(0, ErrBadMagic, "stream does not start with TRC\\x00")
		return d.err
	}
	if len(b) < 5 {
		d.err = newErr(0, ErrTruncated, "stream header cut short (%d of 5 bytes)", len(b))
		return d.err
	}
	if err := d.header(d.pos); err != nil {
		d.err = err
		return err
	}
	return nil
}

// header consumes a 5-byte header at buf[p] and resets the stream state.
func (d *Decoder) header(p int) error {
	v := d.buf[p+4]
	if v != Version && !d.opts.anyVersion {
		return newErr(d.abs(p+4), ErrUnsupportedVersion, "header version %d (only %d is supported; see WithAnyVersion)", v, Version)
	}
	if d.headers == 0 {
		d.version = v
	}
	d.headers++
	d.resetStream()
	d.pos = p + 5
	return nil
}

// resetStream clears schemas, pools and the timestamp base (a new stream).
func (d *Decoder) resetStream() {
	for _, id := range d.typeIDs {
		d.types[id] = nil
	}
	d.typeIDs = d.typeIDs[:0]
	clear(d.strPool)
	clear(d.stackPool)
	d.tsBase = 0
	// Pool copies of the previous stream become garbage: count afresh.
	d.poolBytes = 0
	d.arena = nil
}

func (d *Decoder) abs(p int) int64 { return d.base + int64(p) }

// fill reads more input into the buffer, compacting consumed bytes first.
// It returns false at the end of input or on an error (then d.err is set).
func (d *Decoder) fill() bool {
	if d.r == nil || d.eof {
		return false
	}
	if d.pos > 0 {
		n := copy(d.buf, d.buf[d.pos:])
		d.buf = d.buf[:n]
		d.base += int64(d.pos)
		d.pos = 0
	}
	if len(d.buf) == cap(d.buf) {
		if int64(cap(d.buf)) >= d.lim.MaxFrameSize+16 {
			d.err = newErr(d.abs(0), ErrLimit, "frame larger than the limit of %d bytes", d.lim.MaxFrameSize)
			return false
		}
		nc := min(int64(2*cap(d.buf)), d.lim.MaxFrameSize+16)
		nb := make([]byte, len(d.buf), nc)
		copy(nb, d.buf)
		d.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		if err == io.EOF {
			d.eof = true
			return n > 0
		}
		if err != nil {
			switch {
			case errors.Is(err, io.ErrUnexpectedEOF):
				d.err = newErr(d.abs(len(d.buf)), ErrTruncated, "input cut short: %v", err)
			case d.gzip:
				d.err = newErr(d.abs(len(d.buf)), ErrCorrupt, "%v", err) // "gzip: …"
			default: // an I/O error, not a format error
				d.err = fmt.Errorf("dial9: read at offset %d: %w", d.abs(len(d.buf)), err)
			}
			return false
		}
		if n > 0 {
			return true
		}
	}
	d.err = newErr(d.abs(len(d.buf)), ErrTruncated, "read: %v", io.ErrNoProgress)
	return false
}

// Err returns the error that stopped decoding, nil at a clean end of input.
func (d *Decoder) Err() error { return d.err }

// Version is the version byte of the first header.
func (d *Decoder) Version() byte { return d.version }

// Headers is the number of stream headers read so far (1 + concatenated streams).
func (d *Decoder) Headers() int { return d.headers }

// Resets is the number of timestamp-reset frames read so far.
func (d *Decoder) Resets() int { return d.resets }

// Offset is the absolute offset just past the last frame returned.
func (d *Decoder) Offset() int64 { return d.abs(d.pos) }

// Kind is the kind of the current frame.
func (d *Decoder) Kind() FrameKind { return d.kind }

// FrameOffset and FrameEnd delimit the current frame: [FrameOffset, FrameEnd).
func (d *Decoder) FrameOffset() int64 { return d.abs(d.frameStart) }

// FrameEnd is the offset just past the current frame.
func (d *Decoder) FrameEnd() int64 { return d.abs(d.pos) }

// Schema is the current frame's schema: the one a schema frame registered
// (the stored one for an identical re-registration), an event's, or the one
// an annotations frame annotates (nil if its type id is unknown).
func (d *Decoder) Schema() *Schema {
	if d.cur == nil {
		return nil
	}
	return d.cur.schema
}

// SchemaByID returns the schema registered for id in the current stream.
func (d *Decoder) SchemaByID(id uint16) *Schema {
	if int(id) < len(d.types) && d.types[id] != nil {
		return d.types[id].schema
	}
	return nil
}

// StringPoolEntries returns the entries of the current string-pool frame.
func (d *Decoder) StringPoolEntries() []StringPoolEntry { return d.strEntries }

// StackPoolEntries returns the entries of the current stack-pool frame.
func (d *Decoder) StackPoolEntries() []StackPoolEntry { return d.stkEntries }

// Annotations returns the type id and entries of the current annotations frame.
func (d *Decoder) Annotations() (typeID uint16, entries []Annotation) {
	return d.annID, d.annEntries
}

// LookupString resolves a string-pool id against the pool as it stands now.
func (d *Decoder) LookupString(id uint32) ([]byte, bool) {
	s, ok := d.strPool[id]
	return s, ok
}

// LookupStack resolves a stack-pool id against the pool as it stands now.
func (d *Decoder) LookupStack(id uint32) (Stack, bool) {
	s, ok := d.stackPool[id]
	return s, ok
}

// Event returns the current event (after Next, or NextFrame with
// Kind() == FrameEvent). It is valid until the next call on d.
func (d *Decoder) Event() *Event { return &d.ev }

// Next advances to the next event, skipping other frames. It returns false
// at the end of input or on an error (see Err).
func (d *Decoder) Next() bool {
	// Fast path: an event frame that fits in the buffer.
	if d.err == nil && d.pos < len(d.buf) && d.buf[d.pos] == tagEvent {
		p := d.pos
		if end, err := d.event(p); err == nil {
			d.frameStart = p
			d.pos = end
			return true
		}
		// Anything else (more input needed, an error) takes the general path.
	}
	for d.NextFrame() {
		if d.kind == FrameEvent {
			return true
		}
	}
	return false
}

// All iterates over the remaining events; a decoding error is yielded last
// with a nil event.
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

// NextFrame advances to the next schema, event, pool or annotations frame.
// It returns false at the end of input or on an error (see Err): an unknown
// tag, unknown type id, truncated frame or timestamp overflow is an error,
// never a clean end.
func (d *Decoder) NextFrame() bool {
	if d.err != nil {
		return false
	}
	for {
		if d.pos >= len(d.buf) && !d.fill() {
			d.kind = 0
			return false
		}
		p := d.pos
		var end int
		var err error
		switch d.buf[p] {
		case tagEvent:
			end, err = d.event(p)
		case tagReset:
			if len(d.buf)-p < 9 {
				err = errShort
				break
			}
			d.tsBase = binary.LittleEndian.Uint64(d.buf[p+1:])
			d.resets++
			d.pos = p + 9
			continue
		case tagSchema:
			end, err = d.schemaFrame(p)
		case tagStringPool:
			end, err = d.stringPool(p)
		case tagStackPool:
			end, err = d.stackPoolFrame(p)
		case tagAnnotations:
			end, err = d.annotations(p)
		case 'T':
			if len(d.buf)-p < 5 {
				err = errShort
				break
			}
			if string(d.buf[p:p+4]) != Magic {
				err = newErr(d.abs(p), ErrUnknownFrame, "unknown frame tag 0x54")
				break
			}
			if err = d.header(p); err == nil {
				continue
			}
		default:
			err = newErr(d.abs(p), ErrUnknownFrame, "unknown frame tag %#02x", d.buf[p])
		}
		if err == nil {
			d.frameStart = p
			d.pos = end
			return true
		}
		if err == errShort {
			if d.fill() {
				continue
			}
			if d.err == nil {
				d.err = d.truncated(d.pos)
			}
			d.kind = 0
			return false
		}
		d.err = atFrame(err, d.abs(p), d.buf[p])
		d.kind = 0
		return false
	}
}

// atFrame reports an error found inside a frame at the frame's start (where
// the upstream decoder stops), keeping the exact offset in the message.
func atFrame(err error, start int64, tag byte) error {
	fe, ok := err.(*FormatError)
	if !ok || fe.Offset == start {
		return err
	}
	kind := frameName(tag)
	msg := fe.Msg
	if msg == "" {
		msg = fe.Err.Error()
	}
	return newErr(start, fe.Err, "%s: %s (at offset %d)", kind, msg, fe.Offset)
}

// count checks a declared count of items of at least minSize bytes at
// buf[p:] (the count field at buf[at]). A byte-slice Decoder reports a count
// the rest of the input cannot hold as truncation first; a streaming one
// checks the limit first and then waits for the bytes.
func (d *Decoder) count(at int, what string, n, limit int64, p, minSize int) error {
	short := minSize > 0 && int64(len(d.buf)-p)/int64(minSize) < n
	if short && !d.owned {
		return errShort
	}
	if n > limit {
		return newErr(d.abs(at), ErrLimit, "%s %d exceeds the limit of %d", what, n, limit)
	}
	if short {
		return errShort
	}
	return nil
}

func (d *Decoder) truncated(p int) error {
	return newErr(d.abs(p), ErrTruncated, "%s cut short: the input ends %d bytes after its start", frameName(d.buf[p]), len(d.buf)-p)
}

func frameName(tag byte) string {
	what := "frame"
	switch tag {
	case tagEvent:
		what = "event frame"
	case tagSchema:
		what = "schema frame"
	case tagStringPool:
		what = "string pool frame"
	case tagStackPool:
		what = "stack pool frame"
	case tagReset:
		what = "timestamp reset frame"
	case tagAnnotations:
		what = "schema annotations frame"
	case 'T':
		what = "stream header"
	}
	return what
}

// event parses an event frame at buf[p]; it is the hot path.
func (d *Decoder) event(p int) (int, error) {
	b := d.buf
	if len(b)-p < 3 {
		return 0, errShort
	}
	id := uint16(b[p+1]) | uint16(b[p+2])<<8
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
		delta := uint64(b[q]) | uint64(b[q+1])<<8 | uint64(b[q+2])<<16
		ts += delta
		if ts < delta {
			return 0, newErr(d.abs(p), ErrTimestampOverflow, "timestamp base %d + delta %d overflows 64 bits", d.tsBase, delta)
		}
		q += 3
	}
	start := q
	n := len(ti.types)
	if cap(d.offs) < n+1 {
		d.offs = make([]int32, n+1)
		d.vals = make([]uint64, n+1)
		d.ev.offs, d.ev.vals = d.offs, d.vals
	}
	offs := d.offs[:n+1]
	vals := d.vals[:n]
	d.sc.base = d.base
	for i, t := range ti.types {
		offs[i] = int32(q - start)
		// Scalars are decoded while scanning (Event.Uint reads them back).
		switch t {
		case TypeVarint:
			if q < len(b) && b[q] < 0x80 {
				vals[i] = uint64(b[q])
				q++
				continue
			}
			if len(b)-q >= 2 && b[q+1] < 0x80 {
				vals[i] = uint64(b[q]&0x7f) | uint64(b[q+1])<<7
				q += 2
				continue
			}
			v, k := uvarint(b[q:])
			if k > 0 {
				vals[i] = v
				q += k
				continue
			}
		case TypeU8:
			if q < len(b) {
				vals[i] = uint64(b[q])
				q++
				continue
			}
		case TypeU32, TypePooledString, TypePooledStackFrames:
			if len(b)-q >= 4 {
				vals[i] = uint64(binary.LittleEndian.Uint32(b[q:]))
				q += 4
				continue
			}
		case TypeU16:
			if len(b)-q >= 2 {
				vals[i] = uint64(binary.LittleEndian.Uint16(b[q:]))
				q += 2
				continue
			}
		case TypeBool:
			if q < len(b) {
				vals[i] = 0
				if b[q] != 0 {
					vals[i] = 1
				}
				q++
				continue
			}
		case TypeI64, TypeF64:
			if len(b)-q >= 8 {
				vals[i] = binary.LittleEndian.Uint64(b[q:])
				q += 8
				continue
			}
		case TypeStackFrames:
			if len(b)-q >= 4 {
				c := int64(binary.LittleEndian.Uint32(b[q:]))
				if c <= d.lim.MaxStackFrames && int64(len(b)-q-4) >= 8*c {
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
	ev.ti, ev.ts, ev.start, ev.end = ti, ts, start, q
	return q, nil
}

// schemaFrame parses and registers a schema frame at buf[p].
func (d *Decoder) schemaFrame(p int) (int, error) {
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
	s := &Schema{ID: id, Name: string(name), HasTimestamp: hasTS, Fields: make([]FieldDef, nf)}
	ti := &typeInfo{schema: s, types: make([]FieldType, nf), hasTS: hasTS}
	for i := 0; i < nf; i++ {
		fl := int(binary.LittleEndian.Uint16(b[q:]))
		s.Fields[i] = FieldDef{Name: string(b[q+2 : q+2+fl]), Type: FieldType(b[q+2+fl])}
		ti.types[i] = s.Fields[i].Type
		q += 3 + fl
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

func (d *Decoder) sameSchema(s *Schema, name []byte, hasTS bool, fields []byte, nf int) bool {
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
// Decoder, a copy for a streaming one.
func (d *Decoder) keep(b []byte) ([]byte, error) {
	if !d.owned {
		return b, nil
	}
	d.poolBytes += int64(len(b))
	if d.poolBytes > d.lim.MaxPoolBytes {
		return nil, newErr(d.abs(d.frameStart), ErrLimit, "pool contents exceed the limit of %d bytes", d.lim.MaxPoolBytes)
	}
	if len(b) > 4096 {
		return bytes.Clone(b), nil
	}
	if cap(d.arena)-len(d.arena) < len(b) {
		d.arena = make([]byte, 0, 64<<10)
	}
	n := len(d.arena)
	d.arena = append(d.arena, b...)
	return d.arena[n:len(d.arena):len(d.arena)], nil
}

func (d *Decoder) stringPool(p int) (int, error) {
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
		k, err := d.keep(e.Data)
		if err != nil {
			return 0, err
		}
		d.strPool[e.ID] = k
	}
	d.kind = FrameStringPool
	d.cur = nil
	return q, nil
}

func (d *Decoder) stackPoolFrame(p int) (int, error) {
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
		ents = append(ents, StackPoolEntry{ID: id, Frames: Stack{b[q+8 : q+8+8*int(c)]}})
		q += 8 + 8*int(c)
	}
	d.stkEntries = ents
	d.frameStart = p
	for _, e := range ents {
		k, err := d.keep(e.Frames.b)
		if err != nil {
			return 0, err
		}
		d.stackPool[e.ID] = Stack{k}
	}
	d.kind = FrameStackPool
	d.cur = nil
	return q, nil
}

func (d *Decoder) annotations(p int) (int, error) {
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
