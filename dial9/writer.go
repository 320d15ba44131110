package dial9

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unsafe"
)

// defaultFlushSize is the buffered size at which a Writer writes to its
// writer and a ThreadWriter hands its batch to the shared stream.
const defaultFlushSize = 64 << 10

// Handle names a registered schema in a Writer, valid until Reset. A
// handle from a SharedWriter or any of its ThreadWriters is valid on every
// ThreadWriter of that stream.
type Handle struct {
	idx int32
	id  uint16
}

// ID is the wire type id.
func (h Handle) ID() uint16 { return h.id }

type encType struct {
	schema Schema
	types  []FieldType
}

// Writer writes one dial9 stream (or, with Reset, a sequence of complete
// streams) to an io.Writer, producing the same bytes as the upstream Rust
// encoder for the same sequence of calls:
//
//   - Register assigns type ids 0, 1, 2… in first-registration order and
//     writes the schema frame (plus an annotations frame when the schema has
//     annotations); an identical re-registration writes nothing.
//   - InternString / InternStack write a one-entry pool frame the first time a
//     content is seen (ids from 0, separate counters) and return the id.
//   - Begin … End (or WriteEvent) writes a timestamp-reset frame when the
//     timestamp is below the base or more than 0xFFFFFF ns after it, then the
//     event frame; the base then moves to the event's timestamp.
//
// Output is buffered; call Flush (or Close) at the end. After warm-up
// (schemas registered, interned contents seen) writing an event does not
// allocate. A Writer is not safe for concurrent use: to write one stream
// from many goroutines, use a SharedWriter and a ThreadWriter per
// goroutine.
type Writer struct {
	w      io.Writer
	buf    []byte
	err    error // sticky write error
	types  []encType
	byName map[string]int32
	byID   map[uint16]int32
	nextID int
	strs   internTable[byte]
	stacks internTable[uint64]
	tsBase uint64
	ew     EventWriter

	flushAt int  // buffered bytes that trigger a write (WithBufferSize)
	closed  bool // Close was called: err is ErrClosed

	// A ThreadWriter's Writer: registrations and pool misses go to the
	// shared stream, a full buffer is handed to it as a batch, and the
	// batch's first timestamped event (the anchor) is encoded against the
	// stream's base when the batch joins the stream (SharedWriter.append).
	shared *SharedWriter
	// While anchor is set, tsBase is anchorBase, so that the next
	// timestamped event takes the (rare) reset branch, which records it as
	// the anchor instead of writing a reset frame: the plain Writer's hot
	// path pays nothing for it. ThreadWriter moves the one timestamp that
	// would not take that branch (anchorBase itself) out of the way.
	anchor   bool   // no timestamped event in buf yet: the next one is the anchor
	anchorAt int    // offset in buf of the anchor's event frame (when !anchor)
	anchorTS uint64 // the anchor's timestamp
}

// SchemaOption adjusts a registration (Writer.Register,
// ThreadWriter.Register). Like Option, it returns an error for an invalid
// setting, which Register returns.
type SchemaOption func(*schemaOptions) error

type schemaOptions struct {
	id          int // -1 = automatic
	noTimestamp bool
	annotations []Annotation
}

// WithTypeID registers the schema under a fixed type id (the static ids of
// the newest upstream) instead of the next free one.
func WithTypeID(id uint16) SchemaOption {
	return func(o *schemaOptions) error { o.id = int(id); return nil }
}

// WithoutTimestamp registers a schema with has_timestamp = 0. The upstream
// encoders never write such schemas; readers of 0.2/0.4 report no
// timestamp for its events and the newest ones the current base.
func WithoutTimestamp() SchemaOption {
	return func(o *schemaOptions) error { o.noTimestamp = true; return nil }
}

// WithAnnotations attaches field annotations, written in an annotations
// frame (0x06) right after the schema frame.
func WithAnnotations(a ...Annotation) SchemaOption {
	return func(o *schemaOptions) error { o.annotations = append(o.annotations, a...); return nil }
}

// NewWriter returns a Writer that writes a new stream to w: the stream
// header first (buffered, like everything the Writer writes). The options
// a Writer takes are WithBufferSize; reader options are an error.
func NewWriter(w io.Writer, opts ...Option) (*Writer, error) {
	e, err := newWriter(w, opts)
	if err != nil {
		return nil, err
	}
	e.buf = append(e.buf, Magic...)
	e.buf = append(e.buf, Version)
	return e, nil
}

func newWriter(w io.Writer, opts []Option) (*Writer, error) {
	if w == nil {
		return nil, errors.New("dial9: NewWriter with a nil io.Writer")
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.readerOnly != "" {
		return nil, fmt.Errorf("dial9: %s is a reader option; a Writer does not take it", o.readerOnly)
	}
	e := &Writer{w: w, flushAt: o.bufSize, buf: make([]byte, 0, o.bufSize+4096)}
	e.ew.e = e
	e.clearState()
	return e, nil
}

func (e *Writer) clearState() {
	e.types = e.types[:0]
	if e.byName == nil {
		e.byName = map[string]int32{}
		e.byID = map[uint16]int32{}
	}
	clear(e.byName)
	clear(e.byID)
	e.nextID = 0
	e.strs.reset()
	e.stacks.reset()
	e.tsBase = 0
}

// Reset flushes what is buffered to the current writer, then starts a new
// complete stream on w: a new header, an empty registry, empty pools and a
// timestamp base of 0 (the thread-local batch pattern of tokio telemetry).
// Handles from before are invalid. Reset also reopens a closed Writer
// (Close has flushed it; nothing more is written to the old writer).
func (e *Writer) Reset(w io.Writer) error {
	var err error
	if !e.closed {
		e.abandon()
		err = e.Flush()
	}
	e.w = w
	e.err = nil
	e.closed = false
	e.clearState()
	e.buf = append(e.buf[:0], Magic...)
	e.buf = append(e.buf, Version)
	return err
}

// NewAppendWriter returns a Writer that continues the stream r has read,
// writing no header: it inherits r's current schemas (the next automatic
// type id follows the highest), its pools (the next ids follow the highest
// ones; contents already pooled are reused without a frame) and its
// timestamp base, like upstream's Decoder::into_encoder. Appending its
// output to the bytes r read gives one valid stream (a trace extended in
// place, as perf-self-profile's symbolizer does).
//
// r must have been read to its end without error: a failed r returns its
// error, a reader with frames left is an error. It is a constructor rather
// than an option of NewWriter because it needs a Reader, and a Writer built
// this way is an ordinary Writer in every other respect.
func NewAppendWriter(w io.Writer, r *Reader, opts ...Option) (*Writer, error) {
	if r == nil {
		return nil, errors.New("dial9: NewAppendWriter with a nil Reader")
	}
	if r.err != nil {
		return nil, r.err
	}
	if !r.atEnd() {
		return nil, fmt.Errorf("dial9: NewAppendWriter: the Reader is at offset %d, not at the end of its stream; read it to the end first", r.Offset())
	}
	e, err := newWriter(w, opts)
	if err != nil {
		return nil, err
	}
	d := r
	for _, id := range d.typeIDs {
		ti := d.types[id]
		if ti == nil {
			continue
		}
		if _, dup := e.byID[id]; dup {
			continue
		}
		s := *ti.schema
		s.Fields = append([]FieldDef(nil), s.Fields...)
		s.Annotations = nil
		e.types = append(e.types, encType{schema: s, types: append([]FieldType(nil), ti.types...)})
		idx := int32(len(e.types) - 1)
		e.byName[s.Name] = idx
		e.byID[id] = idx
		if int(id) >= e.nextID {
			e.nextID = int(id) + 1
		}
	}
	// Deterministic: for a content present under several ids, keep the lowest.
	ids := make([]uint32, 0, d.strs.len())
	d.strs.each(func(id uint32, _ []byte) { ids = append(ids, id) })
	slices.Sort(ids)
	for _, id := range ids {
		s, _ := d.strs.get(id)
		h := xxhashBytes(s)
		if _, ok := e.strs.find(h, s); !ok {
			e.strs.add(h, s, id)
		}
		if id+1 > e.strs.next {
			e.strs.next = id + 1
		}
	}
	ids = ids[:0]
	d.stacks.each(func(id uint32, _ []byte) { ids = append(ids, id) })
	slices.Sort(ids)
	for _, id := range ids {
		b, _ := d.stacks.get(id)
		frames := stackOf(b).AppendTo(nil)
		h := hashStack(frames)
		if _, ok := e.stacks.find(h, frames); !ok {
			e.stacks.add(h, frames, id)
		}
		if id+1 > e.stacks.next {
			e.stacks.next = id + 1
		}
	}
	e.tsBase = d.tsBase
	return e, nil
}

// Flush writes the buffered bytes to the writer (a ThreadWriter's: hands
// them to the shared stream). A write error is sticky: the Writer then
// writes nothing more and every call returns it.
func (e *Writer) Flush() error {
	e.abandon()
	if e.err != nil {
		return e.err
	}
	if e.shared != nil {
		return e.shared.append(e, true)
	}
	if len(e.buf) > 0 {
		if _, err := e.w.Write(e.buf); err != nil {
			e.err = err
			return err
		}
		e.buf = e.buf[:0]
	}
	return nil
}

// Close flushes the stream and ends the Writer's use: later calls return
// ErrClosed (Reset reopens it). It does not close the underlying
// io.Writer. A second Close returns nil and writes nothing; a Close after a
// write error returns that error.
func (e *Writer) Close() error {
	if e.closed {
		return nil
	}
	err := e.Flush()
	e.closed = true
	if err == nil {
		e.err = ErrClosed
	}
	return err
}

// Buffered returns the complete frames not yet written to the writer
// (valid until the next call).
func (e *Writer) Buffered() []byte {
	if e.ew.open {
		return e.buf[:e.ew.mark] // not the event being written
	}
	return e.buf
}

// TimestampBase is the current timestamp base (the last event's timestamp
// or the last reset).
func (e *Writer) TimestampBase() uint64 { return e.tsBase }

func (e *Writer) maybeFlush() error {
	if len(e.buf) >= e.flushAt && !e.ew.open {
		return e.Flush()
	}
	return e.err
}

// anchorBase is a ThreadWriter's tsBase while it waits for its anchor.
const anchorBase = math.MaxUint64

// flushFull writes (a ThreadWriter: hands over) a buffer that reached the
// flush size after an event.
func (e *Writer) flushFull() error {
	if e.shared != nil {
		return e.shared.append(e, false)
	}
	return e.Flush()
}

// Register registers a schema and returns its handle. The first
// registration of a name writes the schema frame (and an annotations frame
// if any). Registering the same name with the same fields again returns the
// same handle and writes nothing; different fields (or a different fixed id)
// are ErrSchemaConflict.
func (e *Writer) Register(name string, fields []FieldDef, opts ...SchemaOption) (Handle, error) {
	if e.err != nil {
		return Handle{}, e.err
	}
	o := schemaOptions{id: -1}
	for _, f := range opts {
		if err := f(&o); err != nil {
			return Handle{}, err
		}
	}
	s := Schema{Name: name, HasTimestamp: !o.noTimestamp, Fields: fields}
	if idx, ok := e.byName[name]; ok {
		t := &e.types[idx]
		if !t.schema.sameLayout(&s) || (o.id >= 0 && int(t.schema.ID) != o.id) {
			return Handle{}, fmt.Errorf("%w: %q is already registered as type %d with a different layout", ErrSchemaConflict, name, t.schema.ID)
		}
		return Handle{idx: idx, id: t.schema.ID}, nil
	}
	if e.shared != nil {
		return e.shared.register(e, name, fields, opts)
	}
	if len(name) > math.MaxUint16 || len(fields) > math.MaxUint16 {
		return Handle{}, fmt.Errorf("%w: schema %q: name or field count over 65535", ErrLimit, name)
	}
	for i, f := range fields {
		if !f.Type.Valid() {
			return Handle{}, fmt.Errorf("%w: schema %q field %d (%s): unknown field type %#02x", ErrEncode, name, i, f.Name, uint8(f.Type))
		}
		if len(f.Name) > math.MaxUint16 {
			return Handle{}, fmt.Errorf("%w: schema %q field %d: name over 65535 bytes", ErrLimit, name, i)
		}
	}
	for _, a := range o.annotations {
		if int(a.Field) >= len(fields) || len(a.Key) > math.MaxUint16 || uint64(len(a.Value)) > math.MaxUint32 {
			return Handle{}, fmt.Errorf("%w: schema %q: bad annotation %+v", ErrEncode, name, a)
		}
	}
	if len(o.annotations) > math.MaxUint16 {
		return Handle{}, fmt.Errorf("%w: schema %q: more than 65535 annotations", ErrLimit, name)
	}
	var id int
	if o.id >= 0 {
		id = o.id
		if _, used := e.byID[uint16(id)]; used {
			return Handle{}, fmt.Errorf("%w: type id %d is already used", ErrSchemaConflict, id)
		}
	} else {
		for {
			if e.nextID > math.MaxUint16 {
				return Handle{}, fmt.Errorf("%w: no type id left", ErrLimit)
			}
			if _, used := e.byID[uint16(e.nextID)]; !used {
				break
			}
			e.nextID++
		}
		id = e.nextID
		e.nextID++
	}
	s.ID = uint16(id)
	s.Fields = append([]FieldDef(nil), fields...)
	s.Annotations = append([]Annotation(nil), o.annotations...)
	t := encType{schema: s, types: make([]FieldType, len(fields))}
	for i, f := range fields {
		t.types[i] = f.Type
	}
	e.types = append(e.types, t)
	idx := int32(len(e.types) - 1)
	e.byName[name] = idx
	e.byID[s.ID] = idx
	start := len(e.buf)
	e.buf = AppendSchema(e.buf, &s)
	if len(s.Annotations) > 0 {
		e.buf = AppendAnnotations(e.buf, s.ID, s.Annotations)
	}
	e.frameDone(start)
	return Handle{idx: idx, id: s.ID}, e.maybeFlush()
}

// frameDone moves the frames written from buf[start:] in front of an event
// begun and not yet ended, so that a schema or pool frame written between
// Begin and End (for example InternString called inside an EventWriter
// chain) precedes the event that uses it.
func (e *Writer) frameDone(start int) {
	w := &e.ew
	if !w.open {
		return
	}
	k := len(e.buf) - start
	rotateRight(e.buf[w.mark:], k)
	w.mark += k
}

// rotateRight rotates b right by k bytes in place.
func rotateRight(b []byte, k int) {
	reverse(b)
	reverse(b[:k])
	reverse(b[k:])
}

func reverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

// Schema returns the registered schema of h (do not modify it).
func (e *Writer) Schema(h Handle) *Schema {
	if int(h.idx) >= len(e.types) {
		return nil
	}
	return &e.types[h.idx].schema
}

// InternString returns the string-pool id of s, writing a one-entry pool
// frame the first time s is seen in this stream. A hit does not allocate.
// A string over 4 GiB sets the Writer's sticky error (ErrLimit).
func (e *Writer) InternString(s string) uint32 {
	return e.internString(hashString(s), stringBytes(s))
}

// InternStringBytes is InternString for a byte slice.
func (e *Writer) InternStringBytes(b []byte) uint32 {
	return e.internString(xxhashBytes(b), b)
}

func (e *Writer) internString(h uint64, b []byte) uint32 {
	if id, ok := e.strs.find(h, b); ok || e.err != nil {
		return id
	}
	if uint64(len(b)) > math.MaxUint32 {
		if e.err == nil {
			e.err = fmt.Errorf("%w: pool string of %d bytes is over the u32 length limit", ErrLimit, len(b))
		}
		return 0
	}
	if e.shared != nil {
		return e.shared.intern(e, h, b, false, nil)
	}
	id := e.strs.next
	e.strs.next++
	e.strs.add(h, b, id)
	start := len(e.buf)
	e.buf = append(e.buf, tagStringPool, 1, 0, 0, 0)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, id)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(b)))
	e.buf = append(e.buf, b...)
	e.frameDone(start)
	_ = e.maybeFlush()
	return id
}

// InternStack returns the stack-pool id of frames, writing a one-entry
// stack-pool frame the first time this exact address list is seen.
func (e *Writer) InternStack(frames []uint64) uint32 {
	h := hashStack(frames)
	if id, ok := e.stacks.find(h, frames); ok || e.err != nil {
		return id
	}
	if e.shared != nil {
		return e.shared.intern(e, h, nil, true, frames)
	}
	id := e.stacks.next
	e.stacks.next++
	e.stacks.add(h, frames, id)
	start := len(e.buf)
	e.buf = append(e.buf, tagStackPool, 1, 0, 0, 0)
	e.buf = appendStackEntry(e.buf, id, frames)
	e.frameDone(start)
	_ = e.maybeFlush()
	return id
}

// StackEntry is one entry of an explicit stack-pool frame.
type StackEntry struct {
	ID     uint32
	Frames []uint64
}

// WriteStringPool writes one string-pool frame with the given entries and
// ids as they are (it does not touch the interning table or its counter).
func (e *Writer) WriteStringPool(entries []StringPoolEntry) error {
	if e.err != nil {
		return e.err
	}
	start := len(e.buf)
	e.buf = AppendStringPool(e.buf, entries)
	e.frameDone(start)
	return e.maybeFlush()
}

// WriteStackPool writes one stack-pool frame with the given entries and ids
// as they are (it does not touch the interning table or its counter).
func (e *Writer) WriteStackPool(entries []StackEntry) error {
	if e.err != nil {
		return e.err
	}
	start := len(e.buf)
	e.buf = append(e.buf, tagStackPool)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(entries)))
	for _, en := range entries {
		e.buf = appendStackEntry(e.buf, en.ID, en.Frames)
	}
	e.frameDone(start)
	return e.maybeFlush()
}

// WriteAnnotations writes an annotations frame for a registered schema.
func (e *Writer) WriteAnnotations(h Handle, a []Annotation) error {
	if e.err != nil {
		return e.err
	}
	if len(a) > math.MaxUint16 {
		return fmt.Errorf("%w: more than 65535 annotations", ErrLimit)
	}
	start := len(e.buf)
	e.buf = AppendAnnotations(e.buf, h.id, a)
	e.frameDone(start)
	return e.maybeFlush()
}

// WriteTimestampReset writes an explicit reset frame and sets the base.
func (e *Writer) WriteTimestampReset(ts uint64) error {
	e.abandon()
	if e.err != nil {
		return e.err
	}
	e.buf = AppendTimestampReset(e.buf, ts)
	e.tsBase = ts
	return e.maybeFlush()
}

// AppendSchema appends a schema frame for s to dst.
func AppendSchema(dst []byte, s *Schema) []byte {
	dst = append(dst, tagSchema)
	dst = binary.LittleEndian.AppendUint16(dst, s.ID)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(s.Name)))
	dst = append(dst, s.Name...)
	if s.HasTimestamp {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(s.Fields)))
	for _, f := range s.Fields {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(f.Name)))
		dst = append(dst, f.Name...)
		dst = append(dst, byte(f.Type))
	}
	return dst
}

// AppendAnnotations appends an annotations frame (0x06) to dst.
func AppendAnnotations(dst []byte, typeID uint16, a []Annotation) []byte {
	dst = append(dst, tagAnnotations)
	dst = binary.AppendUvarint(dst, uint64(typeID))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(a)))
	for _, x := range a {
		dst = binary.LittleEndian.AppendUint16(dst, x.Field)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(x.Key)))
		dst = append(dst, x.Key...)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(x.Value)))
		dst = append(dst, x.Value...)
	}
	return dst
}

// AppendStringPool appends a string-pool frame to dst.
func AppendStringPool(dst []byte, entries []StringPoolEntry) []byte {
	dst = append(dst, tagStringPool)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(entries)))
	for _, en := range entries {
		dst = binary.LittleEndian.AppendUint32(dst, en.ID)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(en.Data)))
		dst = append(dst, en.Data...)
	}
	return dst
}

// AppendTimestampReset appends a timestamp-reset frame to dst.
func AppendTimestampReset(dst []byte, ts uint64) []byte {
	dst = append(dst, tagReset)
	return binary.LittleEndian.AppendUint64(dst, ts)
}

func appendStackEntry(dst []byte, id uint32, frames []uint64) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, id)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(frames)))
	return appendAddresses(dst, frames)
}

// nativeLittleEndian: a []uint64 in memory is little-endian u64s.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// appendAddresses appends frames as little-endian u64s, growing dst once.
func appendAddresses(dst []byte, frames []uint64) []byte {
	n, need := len(dst), 8*len(frames)
	if cap(dst)-n < need {
		dst = append(dst, make([]byte, need)...) // grows without allocating the zeros
	} else {
		dst = dst[:n+need]
	}
	b := dst[n:]
	if nativeLittleEndian && len(frames) > 0 {
		// The addresses' own bytes are the wire form: one copy.
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&frames[0])), need))
		return dst
	}
	for _, f := range frames {
		if len(b) < 8 {
			break
		}
		binary.LittleEndian.PutUint64(b, f)
		b = b[8:]
	}
	return dst
}
