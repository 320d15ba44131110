package dial9

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"math"
	"unsafe"

	"github.com/tracecodec/tracecodec/internal/wire"
)

// FrameKind is the kind of frame a Reader returns. Timestamp-reset frames
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

// String is the frame kind's upstream name ("schema", "event",
// "string_pool", "stack_pool", "schema_annotations").
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
	recovery   bool
	bufSize    int
	readerOnly string // the name of a reader-only option given, for writers to refuse
}

// Option configures a Reader, a Writer or a SharedWriter. Each option's
// doc says which it applies to; a writer given a reader-only option
// returns an error.
type Option func(*options) error

// WithLimits sets the decoding limits (zero fields keep their defaults, see
// DefaultLimits). Reader option.
func WithLimits(l Limits) Option {
	return func(o *options) error {
		if l.MaxDecompressionRatio < 0 || l.MaxMemory < 0 {
			return fmt.Errorf("dial9: Limits.MaxDecompressionRatio (%d) and MaxMemory (%d) must not be negative", l.MaxDecompressionRatio, l.MaxMemory)
		}
		o.limits = l
		o.readerOnly = "WithLimits"
		return nil
	}
}

// WithAnyVersion accepts any header version byte, as the upstream decoders
// do (they never check it). By default a version other than 1 is
// ErrUnsupportedVersion, the spec's rule. Reader option.
func WithAnyVersion() Option {
	return func(o *options) error { o.anyVersion = true; o.readerOnly = "WithAnyVersion"; return nil }
}

// WithBufferSize sets a buffer size in bytes (default 64 KiB, at least 16).
// For a streaming Reader it is the initial read buffer, which grows up to
// Limits.MaxFrameSize for larger frames; for a Writer the buffered size at
// which it writes to its io.Writer; for a SharedWriter the batch size at
// which each ThreadWriter hands its events to the stream.
func WithBufferSize(n int) Option {
	return func(o *options) error {
		if n < 16 {
			return fmt.Errorf("dial9: buffer size %d too small (at least 16)", n)
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
	// path is how Next decodes the events: pathVarints (every field is a
	// Varint), pathSimple (every field is a simpleType) or pathGeneral
	// (next does).
	path uint8
	// fixedMax is, on the two fast paths, the sum of the fields' widest
	// reads (see simpleEvent).
	fixedMax int
}

// typeInfo.path values.
const (
	pathGeneral = iota
	pathSimple
	pathVarints
)

// Reader reads a dial9 stream frame by frame. Build one with
// NewBytesReader (a byte slice: events are zero-copy views into it) or
// NewReader (an io.Reader, read through a bounded buffer). Gzip input is recognised by its
// magic and decompressed on the fly; offsets are then offsets in the
// decompressed stream.
//
// Next/Event iterate over events; NextFrame/Kind also return schema, pool and
// annotation frames. After warm-up (schemas and pools seen) decoding an event
// does not allocate. A Reader is not safe for concurrent use.
type Reader struct {
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

	err         error
	version     byte
	headers     int
	resets      int
	streamStart int64 // offset of the current stream's header

	types     []*typeInfo
	typeIDs   []uint16  // ids registered in the current stream, for a cheap reset
	strs      poolTable // the string pool
	stacks    poolTable // the stack pool (little-endian u64 addresses)
	tsBase    uint64
	alloc     int64                // bytes allocated for retained state, charged against the budget
	zin       *wire.CountingReader // the compressed input of a gzip stream
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

	pend error     // a read error that came with bytes, set as err by the next fill
	nev  int64     // events delivered
	rec  *Recovery // set when WithRecovery ended the stream at an error
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

// NewBytesReader returns a Reader over data, which must start with a stream
// header (or be a gzip stream of one). Events, strings and stacks returned
// are views into data (unless data is gzip-compressed, which is read like
// NewReader does). It reads the first header and returns its error.
func NewBytesReader(data []byte, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return newStreaming(bytes.NewReader(data), o)
	}
	d := &Reader{opts: o}
	d.init()
	d.buf = data
	if err := d.readFirstHeader(); err != nil {
		return nil, err
	}
	return d, nil
}

// NewReader returns a streaming Reader reading from r (plain or gzip). It
// reads the first header and returns its error.
// Memory stays within the package's budget (see "Allocation and limits"):
// the buffer grows to the largest frame (at most Limits.MaxFrameSize) and
// the pool contents of the current stream are copied (at most
// Limits.MaxPoolBytes; a stream header starts a new count).
func NewReader(r io.Reader, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return newStreaming(r, o)
}

func (d *Reader) init() {
	d.lim = d.opts.limits
	d.sc = scanner{lim: &d.lim, streaming: d.owned}
	d.ev.d = d
}

// ResetBytes makes d decode data from the start, keeping its options and
// allocated memory. data must not be gzip-compressed.
func (d *Reader) ResetBytes(data []byte) error {
	d.resetStream()
	d.buf, d.pos, d.base, d.r, d.eof, d.owned, d.gzip = data, 0, 0, nil, false, false, false
	d.zin, d.alloc = nil, 0
	d.sc.streaming = false
	d.err, d.headers, d.resets, d.kind = nil, 0, 0, 0
	d.nev, d.rec, d.pend = 0, nil, nil
	return d.readFirstHeader()
}

func (d *Reader) readFirstHeader() error {
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
func (d *Reader) header(p int) error {
	v := d.buf[p+4]
	if v != Version && !d.opts.anyVersion {
		return newErr(d.abs(p+4), ErrUnsupportedVersion, "header version %d (only %d is supported; see WithAnyVersion)", v, Version)
	}
	if d.headers == 0 {
		d.version = v
	}
	d.headers++
	d.streamStart = d.abs(p)
	d.resetStream()
	d.pos = p + 5
	return nil
}

// resetStream clears schemas, pools and the timestamp base (a new stream).
func (d *Reader) resetStream() {
	for _, id := range d.typeIDs {
		d.types[id] = nil
	}
	d.typeIDs = d.typeIDs[:0]
	d.strs.reset()
	d.stacks.reset()
	d.tsBase = 0
	// Pool copies of the previous stream become garbage: count afresh.
	d.poolBytes = 0
	d.arena = nil
}

func (d *Reader) abs(p int) int64 { return d.base + int64(p) }

// Err returns the error that stopped decoding, nil at a clean end of input.
func (d *Reader) Err() error { return d.err }

// Version is the version byte of the first header.
func (d *Reader) Version() byte { return d.version }

// Headers is the number of stream headers read so far (1 + concatenated streams).
func (d *Reader) Headers() int { return d.headers }

// StreamOffset is the offset of the header of the stream the current frame
// belongs to (0 until a concatenated stream follows).
func (d *Reader) StreamOffset() int64 { return d.streamStart }

// Resets is the number of timestamp-reset frames read so far.
func (d *Reader) Resets() int { return d.resets }

// atEnd reports whether every input byte has been consumed without error
// (a streaming Reader reads ahead to find out).
func (d *Reader) atEnd() bool {
	for d.pos >= len(d.buf) {
		if !d.fill() {
			return d.err == nil
		}
	}
	return false
}

// Offset is the absolute offset just past the last frame returned.
func (d *Reader) Offset() int64 { return d.abs(d.pos) }

// Kind is the kind of the current frame.
func (d *Reader) Kind() FrameKind { return d.kind }

// FrameOffset and FrameEnd delimit the current frame: [FrameOffset, FrameEnd).
func (d *Reader) FrameOffset() int64 {
	if d.kind == FrameEvent {
		return d.abs(d.ev.frameStart())
	}
	return d.abs(d.frameStart)
}

// FrameEnd is the offset just past the current frame.
func (d *Reader) FrameEnd() int64 { return d.abs(d.pos) }

// Schema is the current frame's schema: the one a schema frame registered
// (the stored one for an identical re-registration), an event's, or the one
// an annotations frame annotates (nil if its type id is unknown).
func (d *Reader) Schema() *Schema {
	if d.kind == FrameEvent {
		return d.ev.ti.schema
	}
	if d.cur == nil {
		return nil
	}
	return d.cur.schema
}

// SchemaByID returns the schema registered for id in the current stream.
func (d *Reader) SchemaByID(id uint16) *Schema {
	if int(id) < len(d.types) && d.types[id] != nil {
		return d.types[id].schema
	}
	return nil
}

// StringPoolEntries returns the entries of the current string-pool frame.
func (d *Reader) StringPoolEntries() []StringPoolEntry { return d.strEntries }

// StackPoolEntries returns the entries of the current stack-pool frame.
func (d *Reader) StackPoolEntries() []StackPoolEntry { return d.stkEntries }

// Annotations returns the type id and entries of the current annotations frame.
func (d *Reader) Annotations() (typeID uint16, entries []Annotation) {
	return d.annID, d.annEntries
}

// LookupString resolves a string-pool id against the pool as it stands now.
func (d *Reader) LookupString(id uint32) ([]byte, bool) {
	return d.strs.get(id)
}

// LookupStack resolves a stack-pool id against the pool as it stands now.
func (d *Reader) LookupStack(id uint32) (Stack, bool) {
	b, ok := d.stacks.get(id)
	return stackOf(b), ok
}

// Event returns the current event (after Next, or NextFrame with
// Kind() == FrameEvent): a view valid until the next call to Next or
// NextFrame.
func (d *Reader) Event() *Event { return &d.ev }

// Next advances to the next event. Schema, pool and annotation frames,
// timestamp resets and the headers of concatenated streams on the way are
// consumed (they update the schemas, pools and timestamp base the event is
// read against); NextFrame returns them too. Next returns false at the end
// of the input or on an error, which Err then reports: an unknown frame
// tag, an unknown type id, a truncated frame or a timestamp overflow is an
// error, never a quiet end of stream. After warm-up it does not allocate.
func (d *Reader) Next() bool {
	// The hot path: Next itself reads the header of the common frame, an
	// event whose schema has only simpleType fields, and decodes it (all
	// Varints) or hands it to simpleEvent, when it lies wholly in the
	// buffer and every varint is at most 8 bytes long, leaving d exactly as
	// event would; next handles everything else, including every error.
	p, buf := d.pos, d.buf
	if d.err != nil || p < 0 || p > len(buf)-6 {
		return d.next()
	}
	// buf[p:p+6] is in bounds: the tag, the type id, a timestamp delta.
	h := unsafe.Add(unsafe.Pointer(unsafe.SliceData(buf)), p)
	w := binary.LittleEndian.Uint32((*[4]byte)(h)[:])
	if byte(w) != tagEvent {
		return d.next()
	}
	id := int(w >> 8 & 0xffff)
	if id >= len(d.types) {
		return d.next()
	}
	ti := d.types[id]
	if ti == nil {
		return d.next()
	}
	ts := d.tsBase
	start := p + 3
	if ti.hasTS {
		delta := uint64(binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(h, 2))[:]) >> 8)
		ts += delta
		if ts < delta {
			return d.next()
		}
		start = p + 6
	}
	if ti.path != pathVarints {
		if ti.path == pathSimple {
			return d.simpleEvent(ti, p, start, ts)
		}
		return d.next()
	}
	// Every field a Varint: with 8n bytes of input from the payload on (n
	// fields), which every field of at most 8 bytes keeps in bounds (field
	// i starts at most 8i bytes in and is read as the 8 bytes there), the
	// fields are read without bounds checks; closer to the end of the
	// buffer simpleEvent reads them. d.offs and d.vals hold n+1 entries
	// for every registered schema (schemaFrame grows them).
	n := len(ti.types)
	if len(buf)-start < 8*n {
		return d.simpleEventTail(ti, p, start, ts)
	}
	base := unsafe.Add(h, start-p)
	fo := unsafe.Pointer(unsafe.SliceData(d.offs))
	vs := unsafe.Pointer(unsafe.SliceData(d.vals))
	q := 0
	for i := 0; i < n; i++ {
		*(*int32)(unsafe.Add(fo, 4*i)) = int32(q)
		x := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(base, q))[:])
		var v uint64
		switch {
		case x&0x80 == 0:
			v = x & 0x7f
			q++
		case x&0x8000 == 0:
			v = x&0x7f | x>>1&0x3f80
			q += 2
		default:
			var k int
			if v, k = varint8(x); k == 0 {
				return d.next()
			}
			q += k
		}
		*(*uint64)(unsafe.Add(vs, 8*i)) = v
	}
	*(*int32)(unsafe.Add(fo, 4*n)) = int32(q)
	d.deliver(ti, start, start+q, ts)
	return true
}

// deliver makes the event frame ending at end, with payload buf[start:end]
// and timestamp ts, the current one (its fields are in d.offs and d.vals).
// The frame's start and schema are read back from the event (FrameOffset,
// Schema), not stored.
func (d *Reader) deliver(ti *typeInfo, start, end int, ts uint64) {
	d.tsBase = ts // unchanged without a timestamp
	d.kind = FrameEvent
	ev := &d.ev
	ev.ti, ev.types, ev.ts, ev.start = ti, ti.types, ts, start
	d.pos = end
	d.nev++
}

// simpleEvent is Next for an event of a schema whose fields are all
// simpleType. With ti.fixedMax bytes of input from the payload on (each
// field's widest read: 8 for a Varint, 4 for a stack's count), and again
// after each stack's addresses, no field read can leave the buffer, so it
// reads them without bounds checks; closer to the end of the buffer, or
// for a varint longer than 8 bytes or a stack over its limit,
// simpleEventTail or next decode the event. d.offs and d.vals hold n+1
// entries for every registered schema (growFields).
func (d *Reader) simpleEvent(ti *typeInfo, p, start int, ts uint64) bool {
	rest := len(d.buf) - start
	if rest < ti.fixedMax {
		return d.simpleEventTail(ti, p, start, ts)
	}
	s := unsafe.Add(unsafe.Pointer(unsafe.SliceData(d.buf)), start)
	fo := unsafe.Pointer(unsafe.SliceData(d.offs))
	vs := unsafe.Pointer(unsafe.SliceData(d.vals))
	q := 0
	for i, t := range ti.types {
		*(*int32)(unsafe.Add(fo, 4*i)) = int32(q)
		r := unsafe.Add(s, q)
		var v uint64
		switch t {
		case TypeVarint:
			x := binary.LittleEndian.Uint64((*[8]byte)(r)[:])
			if x&0x80 == 0 {
				v = x & 0x7f
				q++
			} else {
				var k int
				if v, k = varint8(x); k == 0 {
					return d.next()
				}
				q += k
			}
		case TypeU8:
			v = uint64(*(*byte)(r))
			q++
		case TypeBool:
			if *(*byte)(r) != 0 {
				v = 1
			}
			q++
		case TypeU16:
			v = uint64(binary.LittleEndian.Uint16((*[2]byte)(r)[:]))
			q += 2
		case TypeU32, TypePooledString, TypePooledStackFrames:
			v = uint64(binary.LittleEndian.Uint32((*[4]byte)(r)[:]))
			q += 4
		case TypeI64, TypeF64:
			v = binary.LittleEndian.Uint64((*[8]byte)(r)[:])
			q += 8
		case TypeStackFrames:
			// The addresses and then fixedMax more bytes must be in the
			// buffer: the fields after the stack are read as above.
			// Past that (near the end of the buffer; a stack over its
			// limit), next decodes the event: its only fallback in the
			// loop, so that p stays out of the loop's registers.
			c := uint64(binary.LittleEndian.Uint32((*[4]byte)(r)[:]))
			avail := rest - q - 4 - ti.fixedMax
			if avail < 0 || c > uint64(d.lim.MaxStackFrames) || 8*c > uint64(avail) {
				return d.next()
			}
			q += 4 + 8*int(c)
		default:
			return d.next()
		}
		*(*uint64)(unsafe.Add(vs, 8*i)) = v
	}
	if q > math.MaxInt32 {
		return d.next()
	}
	*(*int32)(unsafe.Add(fo, 4*len(ti.types))) = int32(q)
	d.deliver(ti, start, start+q, ts)
	return true
}

// simpleEventTail is simpleEvent with every read checked: it decodes the
// fields of the payload at buf[start:], or leaves the frame to next when a
// field is cut short by the end of the buffer, a varint is longer than 8
// bytes or closer than 8 bytes to the end, or a stack exceeds its limit.
func (d *Reader) simpleEventTail(ti *typeInfo, p, start int, ts uint64) bool {
	s := d.buf[start:]
	types := ti.types
	n := len(types)
	offs, vals := d.offs, d.vals
	if len(offs) <= n || len(vals) < n {
		return d.next()
	}
	fo := offs[:n] // field starts (bounds checks proven away)
	vals = vals[:n]
	q := 0
	for i, t := range types {
		fo[i] = int32(q)
		if t == TypeVarint {
			if uint(q) < uint(len(s)) && s[q] < 0x80 {
				vals[i] = uint64(s[q])
				q++
				continue
			}
			if len(s)-q < 8 {
				return d.next()
			}
			v, k := varint8(binary.LittleEndian.Uint64(s[q:]))
			if k == 0 {
				return d.next()
			}
			vals[i] = v
			q += k
			continue
		}
		r := s[q:]
		switch t {
		case TypeU8:
			if len(r) < 1 {
				return d.next()
			}
			vals[i] = uint64(r[0])
			q++
		case TypeU32, TypePooledString, TypePooledStackFrames:
			if len(r) < 4 {
				return d.next()
			}
			vals[i] = uint64(binary.LittleEndian.Uint32(r))
			q += 4
		case TypeU16:
			if len(r) < 2 {
				return d.next()
			}
			vals[i] = uint64(binary.LittleEndian.Uint16(r))
			q += 2
		case TypeBool:
			if len(r) < 1 {
				return d.next()
			}
			vals[i] = 0
			if r[0] != 0 {
				vals[i] = 1
			}
			q++
		case TypeI64, TypeF64:
			if len(r) < 8 {
				return d.next()
			}
			vals[i] = binary.LittleEndian.Uint64(r)
			q += 8
		case TypeStackFrames:
			if len(r) < 4 {
				return d.next()
			}
			c := int64(binary.LittleEndian.Uint32(r))
			if c > d.lim.MaxStackFrames || int64(len(r)-4) < 8*c {
				return d.next()
			}
			vals[i] = 0
			q += 4 + 8*int(c)
		default:
			return d.next()
		}
	}
	if q > math.MaxInt32 {
		return d.next()
	}
	offs[n] = int32(q)
	d.deliver(ti, start, start+q, ts)
	return true
}

// next is Next for every frame the fast path does not take.
func (d *Reader) next() bool {
	if d.err == nil && d.pos < len(d.buf) && d.buf[d.pos] == tagEvent {
		p := d.pos
		if end, err := d.event(p); err == nil {
			d.frameStart = p
			d.pos = end
			d.nev++
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

// All iterates over the remaining events, as Next and Event do; each event
// is a view valid until the next iteration. On a decoding error it yields
// a last (nil, err) pair, then stops.
func (d *Reader) All() iter.Seq2[*Event, error] {
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
func (d *Reader) NextFrame() bool {
	if d.err != nil {
		return false
	}
	for {
		if d.pos >= len(d.buf) && !d.fill() {
			d.kind = 0
			d.recoverStop()
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
			if d.kind == FrameEvent {
				d.nev++
			}
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
			d.recoverStop()
			return false
		}
		d.err = atFrame(err, d.abs(p), d.buf[p])
		d.kind = 0
		d.recoverStop()
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
// buf[p:] (the count field at buf[at]). A byte-slice Reader reports a count
// the rest of the input cannot hold as truncation first; a streaming one
// checks the limit first and then waits for the bytes.
func (d *Reader) count(at int, what string, n, limit int64, p, minSize int) error {
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

func (d *Reader) truncated(p int) error {
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
