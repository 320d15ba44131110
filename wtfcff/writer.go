package wtfcff

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"unsafe"
)

// WriterOption configures a Writer, a SharedWriter, a ChunkWriter or a
// JSONWriter; each option says which it applies to, the others ignore it.
type WriterOption func(*writerOptions) error

type writerOptions struct {
	header     *FileHeader
	version    int64
	chunkSize  int
	noBuiltins bool
	jsonMode   JSONMode
}

func applyWriterOptions(opts []WriterOption) (writerOptions, error) {
	o := writerOptions{version: JSWTFVersion, chunkSize: 1 << 20}
	for _, f := range opts {
		if err := f(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// WithFileHeader sets the file header (Writer, SharedWriter). Default: flags
// ["has_high_resolution_times"], timebase 0, a "script" context info and
// metadata {"nowTimeNs":0}. As the JS writer does, metadata always starts
// with nowTimeNs (0 is added when missing).
func WithFileHeader(h FileHeader) WriterOption {
	return func(o *writerOptions) error { o.header = &h; return nil }
}

// WithWTFVersion sets the WTF build number the header records (every
// writer). The binary header stores it mod 2^32, a JSON header whole.
// Default JSWTFVersion, what the last JS release writes.
func WithWTFVersion(v int64) WriterOption {
	return func(o *writerOptions) error { o.version = v; return nil }
}

// WithJSONMode sets the layout of a JSONWriter's document. Default
// JSONComplete.
func WithJSONMode(m JSONMode) WriterOption {
	return func(o *writerOptions) error {
		if m != JSONComplete && m != JSONPartial {
			return errors.New("wtfcff: unknown JSON mode")
		}
		o.jsonMode = m
		return nil
	}
}

// WithChunkSize (Writer, SharedWriter) sets the event-buffer size at which the writer closes the
// current event_data chunk and starts a new one (the JS library's ring buffers
// are 1 MiB). Default 1 MiB; at least 64 bytes.
func WithChunkSize(n int) WriterOption {
	return func(o *writerOptions) error {
		if n < 64 || n > 1<<30 {
			return errors.New("wtfcff: chunk size must be between 64 bytes and 1 GiB")
		}
		o.chunkSize = n
		return nil
	}
}

// WithoutBuiltins (Writer, SharedWriter) stops the writer from defining the built-in event types
// (wire ids 2–17 as the JS library numbers them); then the first Define gets
// wire id 2 and the zone/scope helpers are unavailable until their types are
// defined with Define.
func WithoutBuiltins() WriterOption {
	return func(o *writerOptions) error { o.noBuiltins = true; return nil }
}

// builtinSignatures are the JS library's built-in types in registration
// order (wire ids 2…17), with their classes and flags.
var builtinSignatures = []struct {
	sig   string
	class uint16
	flags uint32
}{
	{"wtf.trace#discontinuity()", ClassInstance, FlagBuiltin},
	{"wtf.zone#create(uint16 zoneId, ascii name, ascii type, ascii location)", ClassInstance, FlagBuiltin | FlagInternal},
	{"wtf.zone#delete(uint16 zoneId)", ClassInstance, FlagBuiltin | FlagInternal},
	{"wtf.zone#set(uint16 zoneId)", ClassInstance, FlagBuiltin | FlagInternal},
	{"wtf.scope#enter(ascii name)", ClassScope, FlagBuiltin},
	{"wtf.scope#enterTracing()", ClassScope, FlagBuiltin | FlagInternal | FlagSystemTime},
	{"wtf.scope#leave()", ClassInstance, FlagBuiltin | FlagInternal},
	{"wtf.scope#appendData(ascii name, any value)", ClassInstance, FlagBuiltin | FlagInternal | FlagAppendScopeData},
	{"wtf.flow#branch(flowId id, flowId parentId, ascii name, any value)", ClassInstance, FlagBuiltin | FlagInternal},
	{"wtf.flow#extend(flowId id, ascii name, any value)", ClassInstance, FlagBuiltin | FlagInternal},
	{"wtf.flow#terminate(flowId id, any value)", ClassInstance, FlagBuiltin | FlagInternal},
	{"wtf.flow#appendData(flowId id, ascii name, any value)", ClassInstance, FlagBuiltin | FlagInternal | FlagAppendFlowData},
	{"wtf.trace#mark(ascii name, any value)", ClassInstance, FlagBuiltin | FlagInternal},
	{"wtf.trace#timeStamp(ascii name, any value)", ClassInstance, FlagBuiltin},
	{"wtf.timeRange#begin(uint32 id, ascii name, any value)", ClassInstance, FlagBuiltin | FlagInternal},
	{"wtf.timeRange#end(uint32 id)", ClassInstance, FlagBuiltin | FlagInternal},
}

// Writer writes a binary CFF trace: the file header, a file_header chunk,
// then event_data chunks of [string_table, binary_event_buffer] parts, as
// the JS library's snapshots do. Event types are defined once per stream
// (Define writes the wtf.event#define record into the current chunk);
// strings are de-duplicated per chunk; a chunk is written when its event
// buffer reaches the chunk size (events never straddle chunks), and every
// chunk after the first starts with wtf.zone#set(current zone), as JS ring
// buffers do.
//
// Chunk ids: the file_header chunk is 1, event_data chunks count from 2
// (readers ignore ids). Chunk start/end times are InvalidTime, as in JS files.
//
// After warm-up, appending an event does not allocate (strings new to the
// chunk are copied into the chunk's table, which grows amortized). A Writer
// is not safe for concurrent use.
type Writer struct {
	cw        *ChunkWriter
	o         writerOptions
	buf       []byte
	strs      StringTableBuilder
	nextChunk uint32
	byName    map[string]*EventType
	byWire    []*EventType
	nextWire  uint32
	zone      uint16
	hasZone   bool
	nextZone  uint32
	eb        EventBuilder
	chunk     Chunk
	parts     []Part
	resources []Part
	events    int
	lastTime  uint32
	err       error
	closed    bool

	// owner is the Writer whose types this one accepts: itself, or the
	// SharedWriter's writer for a ThreadWriter's.
	owner *Writer
	// sink, when set, takes each finished chunk instead of cw (a
	// ThreadWriter hands it to its SharedWriter); every chunk then starts
	// with wtf.zone#set(zone), a prelude of preludeLen bytes that alone
	// is not worth a chunk.
	sink       func(*Chunk) error
	setType    *EventType
	preludeLen int
}

// NewWriter writes the binary header and the file_header chunk to w and
// defines the built-in event types.
func NewWriter(w io.Writer, opts ...WriterOption) (*Writer, error) {
	o, err := applyWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	h := o.header
	if h == nil {
		h = &FileHeader{}
	}
	hc := *h
	if hc.Flags == nil {
		hc.Flags = []string{"has_high_resolution_times"}
	}
	if hc.ContextInfo == nil {
		hc.ContextInfo = &ContextInfo{ContextType: "script"}
	}
	if _, ok := hc.Metadata.Get("nowTimeNs"); !ok {
		hc.Metadata = append(Object{{"nowTimeNs", json.RawMessage("0")}}, hc.Metadata...)
	}
	cw, err := NewChunkWriter(w, WithWTFVersion(o.version))
	if err != nil {
		return nil, err
	}
	hdr := Chunk{ID: 1, Type: ChunkFileHeader, StartTime: InvalidTime, EndTime: InvalidTime,
		Parts: []Part{{Type: PartFileHeader, Data: hc.AppendJSON(nil)}}}
	if err := cw.WriteChunk(&hdr); err != nil {
		return nil, err
	}
	wr := &Writer{cw: cw, o: o, nextChunk: 2, byName: map[string]*EventType{}, nextWire: 2, nextZone: 1,
		buf: make([]byte, 0, min(o.chunkSize+4096, 1<<20))}
	wr.owner = wr
	def := defineType()
	def.owner = wr
	wr.byName[def.Name] = def
	wr.byWire = []*EventType{nil, def}
	wr.eb.w = wr
	if !o.noBuiltins {
		// Like a JS snapshot, the stream first defines wtf.event#define itself.
		if err := wr.Begin(def, 0).Uint16(1).Uint16(def.Class).Uint32(def.Flags).ASCII(def.Name).ASCII(def.Signature).End(); err != nil {
			return nil, err
		}
		for _, b := range builtinSignatures {
			if _, err := wr.Define(0, b.sig, b.class, b.flags); err != nil {
				return nil, err
			}
		}
	}
	return wr, nil
}

// Define defines an event type from its signature, e.g.
// "my.app#frame(uint32 number, ascii label)", and writes its
// wtf.event#define record at time t (µs). class is ClassInstance or
// ClassScope. Defining a name again returns the first type (the reference
// keeps the first definition of a name).
func (w *Writer) Define(t uint32, signature string, class uint16, flags uint32) (*EventType, error) {
	if w.err != nil {
		return nil, w.err
	}
	name, args, err := ParseSignature(signature)
	if err != nil {
		return nil, err
	}
	if et, ok := w.byName[name]; ok {
		return et, nil
	}
	for _, a := range args {
		if a.Type == ArgUnsupported {
			return nil, errArg("argument type " + a.TypeName + " has no wire encoding")
		}
	}
	if w.nextWire > 0xFFFF {
		return nil, errArg("more than 65534 event types")
	}
	et, err := newEventType(uint16(w.nextWire), class, flags, name, CanonicalArgs(args))
	if err != nil {
		return nil, err
	}
	et.owner = w
	w.nextWire++
	w.byName[name] = et
	w.byWire = append(w.byWire, et)
	sigArg := et.Signature
	eb := w.Begin(w.byWire[1], t).Uint16(et.WireID).Uint16(class).Uint32(flags).ASCII(name)
	if sigArg == "" {
		eb.Null()
	} else {
		eb.ASCII(sigArg)
	}
	if err := eb.End(); err != nil {
		return nil, err
	}
	return et, nil
}

// Type returns the defined type called name (built-ins included), or nil.
func (w *Writer) Type(name string) *EventType { return w.byName[name] }

// Begin starts an event of type et at time t (µs since the header's
// timebase). Append its arguments in signature order with the EventBuilder
// methods, then call End. The builder is the writer's own (no allocation);
// only one event can be in progress.
func (w *Writer) Begin(et *EventType, t uint32) *EventBuilder {
	eb := &w.eb
	eb.t, eb.i, eb.start, eb.err = et, 0, len(w.buf), w.err
	w.lastTime = t
	if eb.err == nil && (et == nil || et.owner != w.owner) {
		eb.err = errArg("event type is not defined by this writer")
	}
	if eb.err == nil {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(et.WireID))
		w.buf = binary.LittleEndian.AppendUint32(w.buf, t)
	}
	return eb
}

type errArg string

func (e errArg) Error() string { return ErrArgument.Error() + ": " + string(e) }
func (e errArg) Unwrap() error { return ErrArgument }

// EventBuilder appends one event's arguments. Each method checks the next
// argument's type (a mismatch makes End return an error wrapping
// ErrArgument and drops the event) and returns the builder for chaining.
type EventBuilder struct {
	w     *Writer
	t     *EventType
	i     int
	start int
	err   error
}

func (eb *EventBuilder) next(ok func(ArgType) bool) bool {
	if eb.err != nil {
		return false
	}
	if eb.i >= len(eb.t.Args) {
		eb.err = errArg(eb.t.Name + ": too many arguments")
		return false
	}
	if !ok(eb.t.Args[eb.i].Type) {
		eb.err = errArg(eb.t.Name + ": argument " + eb.t.Args[eb.i].Name + " is " + eb.t.Args[eb.i].TypeName)
		return false
	}
	eb.i++
	return true
}

func (eb *EventBuilder) slot(v uint32) {
	eb.w.buf = binary.LittleEndian.AppendUint32(eb.w.buf, v)
}

func is(t ArgType) func(ArgType) bool { return func(a ArgType) bool { return a == t } }

// Bool appends a bool argument.
func (eb *EventBuilder) Bool(v bool) *EventBuilder {
	if eb.next(is(ArgBool)) {
		var x uint32
		if v {
			x = 1
		}
		eb.slot(x)
	}
	return eb
}

// Int8 appends an int8 argument (the slot's padding bytes are zero).
func (eb *EventBuilder) Int8(v int8) *EventBuilder {
	if eb.next(is(ArgInt8)) {
		eb.slot(uint32(uint8(v)))
	}
	return eb
}

// Uint8 appends a uint8 argument.
func (eb *EventBuilder) Uint8(v uint8) *EventBuilder {
	if eb.next(is(ArgUint8)) {
		eb.slot(uint32(v))
	}
	return eb
}

// Int16 appends an int16 argument.
func (eb *EventBuilder) Int16(v int16) *EventBuilder {
	if eb.next(is(ArgInt16)) {
		eb.slot(uint32(uint16(v)))
	}
	return eb
}

// Uint16 appends a uint16 argument.
func (eb *EventBuilder) Uint16(v uint16) *EventBuilder {
	if eb.next(is(ArgUint16)) {
		eb.slot(uint32(v))
	}
	return eb
}

// Int32 appends an int32 argument.
func (eb *EventBuilder) Int32(v int32) *EventBuilder {
	if eb.next(is(ArgInt32)) {
		eb.slot(uint32(v))
	}
	return eb
}

// Uint32 appends a uint32 argument.
func (eb *EventBuilder) Uint32(v uint32) *EventBuilder {
	if eb.next(is(ArgUint32)) {
		eb.slot(v)
	}
	return eb
}

// Float32 appends a float32 argument.
func (eb *EventBuilder) Float32(v float32) *EventBuilder {
	if eb.next(is(ArgFloat32)) {
		eb.slot(math.Float32bits(v))
	}
	return eb
}

// FlowID appends a flowId argument (0 = no flow).
func (eb *EventBuilder) FlowID(v uint32) *EventBuilder {
	if eb.next(is(ArgFlowID)) {
		eb.slot(v)
	}
	return eb
}

// Time32 appends a time32 argument in microseconds.
func (eb *EventBuilder) Time32(us uint32) *EventBuilder {
	if eb.next(is(ArgTime32)) {
		eb.slot(us)
	}
	return eb
}

// Char appends a char argument (one Latin-1 byte).
func (eb *EventBuilder) Char(c byte) *EventBuilder {
	if eb.next(is(ArgChar)) {
		eb.slot(uint32(c))
	}
	return eb
}

// WChar appends a wchar argument (one UTF-16 code unit).
func (eb *EventBuilder) WChar(c uint16) *EventBuilder {
	if eb.next(is(ArgWChar)) {
		eb.slot(uint32(c))
	}
	return eb
}

func (eb *EventBuilder) str(s []byte) {
	ord, ok := eb.w.strs.Add(s)
	if !ok {
		eb.err = errArg(eb.t.Name + ": a string argument contains NUL")
		return
	}
	eb.slot(ord)
}

func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// ASCII appends an ascii or utf8 argument (both are string-table
// references; "" is written as the empty sentinel).
func (eb *EventBuilder) ASCII(s string) *EventBuilder { return eb.StringBytes(bytesOf(s)) }

// UTF8 is ASCII: both types are stored the same way.
func (eb *EventBuilder) UTF8(s string) *EventBuilder { return eb.StringBytes(bytesOf(s)) }

// StringBytes appends an ascii or utf8 argument from bytes.
func (eb *EventBuilder) StringBytes(s []byte) *EventBuilder {
	if eb.next(func(a ArgType) bool { return a == ArgASCII || a == ArgUTF8 }) {
		eb.str(s)
	}
	return eb
}

// Any appends an any argument: json is the value's JSON text (as the JS
// writer stores JSON.stringify of the value).
func (eb *EventBuilder) Any(jsonText string) *EventBuilder {
	if eb.next(is(ArgAny)) {
		eb.str(bytesOf(jsonText))
	}
	return eb
}

// Null appends null for a string, any or array argument.
func (eb *EventBuilder) Null() *EventBuilder {
	if eb.next(func(a ArgType) bool { return a.IsString() || a.IsArray() }) {
		eb.slot(NullString)
	}
	return eb
}

func (eb *EventBuilder) array(t ArgType, n int, elems func(b []byte) []byte) *EventBuilder {
	if eb.next(is(t)) {
		w := eb.w
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(n))
		start := len(w.buf)
		w.buf = elems(w.buf)
		w.buf = appendZeros(w.buf, pad4(len(w.buf)-start)-(len(w.buf)-start))
	}
	return eb
}

// Int8s appends an int8[] argument.
func (eb *EventBuilder) Int8s(v []int8) *EventBuilder {
	return eb.array(ArgInt8Array, len(v), func(b []byte) []byte {
		for _, x := range v {
			b = append(b, byte(x))
		}
		return b
	})
}

// Uint8s appends a uint8[] argument.
func (eb *EventBuilder) Uint8s(v []byte) *EventBuilder {
	return eb.array(ArgUint8Array, len(v), func(b []byte) []byte { return append(b, v...) })
}

// Int16s appends an int16[] argument.
func (eb *EventBuilder) Int16s(v []int16) *EventBuilder {
	return eb.array(ArgInt16Array, len(v), func(b []byte) []byte {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
		}
		return b
	})
}

// Uint16s appends a uint16[] argument.
func (eb *EventBuilder) Uint16s(v []uint16) *EventBuilder {
	return eb.array(ArgUint16Array, len(v), func(b []byte) []byte {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, x)
		}
		return b
	})
}

// Int32s appends an int32[] argument.
func (eb *EventBuilder) Int32s(v []int32) *EventBuilder {
	return eb.array(ArgInt32Array, len(v), func(b []byte) []byte {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		}
		return b
	})
}

// Uint32s appends a uint32[] argument.
func (eb *EventBuilder) Uint32s(v []uint32) *EventBuilder {
	return eb.array(ArgUint32Array, len(v), func(b []byte) []byte {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		return b
	})
}

// Float32s appends a float32[] argument.
func (eb *EventBuilder) Float32s(v []float32) *EventBuilder {
	return eb.array(ArgFloat32Array, len(v), func(b []byte) []byte {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		return b
	})
}

// Chars appends a char[] argument: Latin-1 bytes.
func (eb *EventBuilder) Chars(latin1 []byte) *EventBuilder {
	return eb.array(ArgCharArray, len(latin1), func(b []byte) []byte { return append(b, latin1...) })
}

// WChars appends a wchar[] argument: UTF-16 code units.
func (eb *EventBuilder) WChars(v []uint16) *EventBuilder {
	return eb.array(ArgWCharArray, len(v), func(b []byte) []byte {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, x)
		}
		return b
	})
}

// End finishes the event. On an argument error the partial record is
// removed and the error (wrapping ErrArgument) returned; the writer stays
// usable. Write errors are sticky.
func (eb *EventBuilder) End() error {
	w := eb.w
	if eb.err == nil && eb.i != len(eb.t.Args) {
		eb.err = errArg(eb.t.Name + ": too few arguments")
	}
	if eb.err != nil {
		if w.err == nil {
			w.buf = w.buf[:eb.start]
		}
		return eb.err
	}
	w.events++
	if len(w.buf) >= w.o.chunkSize {
		return w.rotate()
	}
	return nil
}

// rotate writes the current chunk and starts the next with zone#set.
func (w *Writer) rotate() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if w.hasZone {
		if set := w.byName["wtf.zone#set"]; set != nil {
			return w.Begin(set, w.lastTime).Uint16(w.zone).End()
		}
	}
	return nil
}

// Flush writes the current event_data chunk, if it holds any record.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if len(w.buf) <= w.preludeLen && len(w.resources) == 0 {
		return nil
	}
	w.parts = append(w.parts[:0], Part{Type: PartStringTable, Data: w.strs.Bytes()}, Part{Type: PartBinaryEventBuffer, Data: w.buf})
	w.parts = append(w.parts, w.resources...)
	w.chunk = Chunk{ID: w.nextChunk, Type: ChunkEventData, StartTime: InvalidTime, EndTime: InvalidTime, Parts: w.parts}
	var err error
	if w.sink != nil {
		err = w.sink(&w.chunk)
	} else {
		err = w.cw.WriteChunk(&w.chunk)
	}
	if err != nil {
		w.err = err
		return err
	}
	w.nextChunk++
	w.buf = w.buf[:0]
	w.strs.Reset()
	w.resources = w.resources[:0]
	if w.sink != nil {
		w.startBatch()
	}
	return nil
}

// startBatch begins a ThreadWriter's chunk with wtf.zone#set(zone) at the
// last time written: chunks of different threads interleave in the file,
// so each must say whose events it holds.
func (w *Writer) startBatch() {
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(w.setType.WireID))
	w.buf = binary.LittleEndian.AppendUint32(w.buf, w.lastTime)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(w.zone))
	w.preludeLen = len(w.buf)
}

// AddResource attaches an embedded resource to the chunk being filled: a
// string resource (part 0x40001) when isString, else a binary resource
// (0x40000). It returns the resource's 0-based id within that chunk (see the
// package documentation). data is copied. Events referring to the resource
// must be written before the chunk is closed: call Flush first to start a
// fresh chunk, and keep the chunk size large enough for what follows.
func (w *Writer) AddResource(data []byte, isString bool) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	t := PartBinaryResource
	if isString {
		t = PartStringResource
	}
	w.resources = append(w.resources, Part{Type: t, Data: bytes.Clone(data)})
	return len(w.resources) - 1, nil
}

// Close flushes the last chunk. It does not close the underlying writer. A
// second Close returns nil; other calls after Close return ErrClosed.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	err := w.Flush()
	w.closed = true
	if w.err == nil {
		w.err = ErrClosed
	}
	return err
}

// Events is the number of records written so far (definitions included).
func (w *Writer) Events() int { return w.events }

// CreateZone writes wtf.zone#create at time t and returns the new zone's id.
func (w *Writer) CreateZone(t uint32, name, typ, location string) (uint16, error) {
	ct := w.byName["wtf.zone#create"]
	if ct == nil || w.nextZone > 0xFFFF {
		return 0, errArg("wtf.zone#create is not available")
	}
	id := uint16(w.nextZone)
	if err := w.Begin(ct, t).Uint16(id).ASCII(name).ASCII(typ).ASCII(location).End(); err != nil {
		return 0, err
	}
	w.nextZone++
	return id, nil
}

// SetZone writes wtf.zone#set at time t: later events belong to zone id.
func (w *Writer) SetZone(t uint32, id uint16) error {
	st := w.byName["wtf.zone#set"]
	if st == nil {
		return errArg("wtf.zone#set is not available")
	}
	// Set the current zone first: if this record fills the chunk, the next
	// chunk must start with a set to the new zone.
	prev, had := w.zone, w.hasZone
	w.zone, w.hasZone = id, true
	if err := w.Begin(st, t).Uint16(id).End(); err != nil {
		if errors.Is(err, ErrArgument) {
			w.zone, w.hasZone = prev, had
		}
		return err
	}
	return nil
}

// EnterScope writes wtf.scope#enter(name) at time t (a generic scope).
func (w *Writer) EnterScope(t uint32, name string) error {
	return w.builtin("wtf.scope#enter", t).ASCII(name).End()
}

// LeaveScope writes wtf.scope#leave at time t: it closes the innermost open
// scope.
func (w *Writer) LeaveScope(t uint32) error { return w.builtin("wtf.scope#leave", t).End() }

// AppendScopeData writes wtf.scope#appendData(name, value) at time t; value
// is JSON text.
func (w *Writer) AppendScopeData(t uint32, name, jsonValue string) error {
	return w.builtin("wtf.scope#appendData", t).ASCII(name).Any(jsonValue).End()
}

// Mark writes wtf.trace#mark(name, value) at time t; value is JSON text ("" for null).
func (w *Writer) Mark(t uint32, name, jsonValue string) error {
	eb := w.builtin("wtf.trace#mark", t).ASCII(name)
	return anyOrNull(eb, jsonValue).End()
}

// TimeStamp writes wtf.trace#timeStamp(name, value) at time t.
func (w *Writer) TimeStamp(t uint32, name, jsonValue string) error {
	eb := w.builtin("wtf.trace#timeStamp", t).ASCII(name)
	return anyOrNull(eb, jsonValue).End()
}

func anyOrNull(eb *EventBuilder, v string) *EventBuilder {
	if v == "" {
		return eb.Null()
	}
	return eb.Any(v)
}

func (w *Writer) builtin(name string, t uint32) *EventBuilder {
	et := w.byName[name]
	eb := w.Begin(et, t)
	if et == nil && eb.err == nil {
		eb.err = errArg(name + " is not defined")
	}
	return eb
}
