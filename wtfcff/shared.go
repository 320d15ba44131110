package wtfcff

import (
	"encoding/binary"
	"errors"
	"io"
	"sync"
	"time"
)

// SharedWriter writes one binary trace from many goroutines. Each goroutine
// takes its own ThreadWriter (Thread), which owns a zone and buffers whole
// events in a chunk of its own; a full chunk (WithChunkSize, default 1 MiB of
// event buffer), a Flush or a Close hands the chunk to the shared stream under
// one lock, so the hot path takes no lock and allocates nothing.
//
// Event types are defined once for every thread with Define; zones are
// created by Thread. Both are written to the stream before any chunk handed
// over after the call that made them.
//
// Ordering: the events of one ThreadWriter keep their order; chunks of
// different threads interleave whole, in the order their hand-overs took the
// lock, so events of different zones are not in time order in the file
// (readers order by time per zone, as the reference's database does). Each
// thread's chunk starts with wtf.zone#set(its zone), so no event needs a
// zone record of its own.
//
// Time: ThreadWriter methods take the event time as a time.Duration since
// the trace start (the file header's timebase). The file stores whole
// microseconds in a 32-bit word (sub-µs parts are dropped), so times wrap
// every 2^32 µs (71 min 34.967296 s): a time t is written as
// uint32(t/time.Microsecond). The reference reader shows wrapped times as
// they are; UnwrapTime restores 64-bit times for a zone whose consecutive
// events are less than 2^31 µs (35 min) apart. A negative time is an
// ErrArgument error (the event is dropped).
//
// A SharedWriter is safe for concurrent use; each ThreadWriter belongs to
// one goroutine. Close every ThreadWriter before the SharedWriter: a
// ThreadWriter's chunk handed over after the SharedWriter's Close fails with
// ErrClosed.
type SharedWriter struct {
	mu     sync.Mutex
	main   *Writer // header, definitions and zone records
	err    error
	closed bool
}

// NewSharedWriter writes the binary header and the file_header chunk to w
// and defines the built-in event types. Options: WithFileHeader,
// WithWTFVersion, WithChunkSize (the size at which a ThreadWriter hands its
// chunk over). WithoutBuiltins is refused: threads need the zone events.
func NewSharedWriter(w io.Writer, opts ...WriterOption) (*SharedWriter, error) {
	o, err := applyWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.noBuiltins {
		return nil, errors.New("wtfcff: a SharedWriter needs the built-in event types (WithoutBuiltins)")
	}
	main, err := NewWriter(w, opts...)
	if err != nil {
		return nil, err
	}
	return &SharedWriter{main: main}, nil
}

// Define defines an event type for every thread, from its signature (e.g.
// "my.app#frame(uint32 number, ascii label)"; see Writer.Define), with time
// 0. Defining a name again returns the first type.
func (sw *SharedWriter) Define(signature string, class uint16, flags uint32) (*EventType, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if err := sw.usable(); err != nil {
		return nil, err
	}
	et, err := sw.main.Define(0, signature, class, flags)
	sw.keep(err)
	return et, err
}

// Type returns the defined type called name (built-ins included), or nil.
func (sw *SharedWriter) Type(name string) *EventType {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.main.byName[name]
}

// usable returns the error that stops the writer: sticky write error or
// ErrClosed. The caller holds mu.
func (sw *SharedWriter) usable() error {
	if sw.err != nil {
		return sw.err
	}
	if sw.closed {
		return ErrClosed
	}
	return nil
}

// keep makes a write error sticky (argument errors are not). The caller
// holds mu.
func (sw *SharedWriter) keep(err error) {
	if err != nil && !errors.Is(err, ErrArgument) && sw.err == nil {
		sw.err = err
	}
}

// ThreadOption configures a ThreadWriter's zone.
type ThreadOption func(*threadOptions) error

type threadOptions struct {
	typ, location string
}

// WithZoneType sets the type of the thread's zone ("script",
// "native_script", "worker" …). Default "script".
func WithZoneType(typ string) ThreadOption {
	return func(o *threadOptions) error { o.typ = typ; return nil }
}

// WithZoneLocation sets the location of the thread's zone (a URL or file
// name). Default "".
func WithZoneLocation(location string) ThreadOption {
	return func(o *threadOptions) error { o.location = location; return nil }
}

// Thread creates a zone called name (wtf.zone#create, time 0) and returns a
// ThreadWriter whose events all belong to it. Call it once per goroutine.
func (sw *SharedWriter) Thread(name string, opts ...ThreadOption) (*ThreadWriter, error) {
	to := threadOptions{typ: "script"}
	for _, f := range opts {
		if err := f(&to); err != nil {
			return nil, err
		}
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if err := sw.usable(); err != nil {
		return nil, err
	}
	m := sw.main
	id, err := m.CreateZone(0, name, to.typ, to.location)
	if err != nil {
		sw.keep(err)
		return nil, err
	}
	tw := &ThreadWriter{sw: sw}
	w := &Writer{o: m.o, owner: m, byName: make(map[string]*EventType, len(m.byName)),
		zone: id, setType: m.byName["wtf.zone#set"], nextChunk: 1,
		buf: make([]byte, 0, min(m.o.chunkSize+4096, 1<<20))}
	for k, v := range m.byName { // the built-ins, for EnterScope and friends
		w.byName[k] = v
	}
	w.eb.w = w
	w.sink = tw.handOver
	w.startBatch()
	tw.w = w
	return tw, nil
}

// Flush writes the definitions and zone records made so far. It does not
// flush the ThreadWriters' chunks (each goroutine flushes its own).
func (sw *SharedWriter) Flush() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if err := sw.usable(); err != nil {
		return err
	}
	err := sw.main.Flush()
	sw.keep(err)
	return err
}

// Close writes what Define and Thread left pending and closes the writer (not
// the io.Writer). A second Close returns nil.
func (sw *SharedWriter) Close() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.closed {
		return nil
	}
	sw.closed = true
	if sw.err != nil {
		return sw.err
	}
	err := sw.main.Close()
	sw.keep(err)
	return err
}

// ThreadWriter buffers the events of one goroutine, all in its own zone,
// and hands them to its SharedWriter a whole chunk at a time. It is not safe
// for concurrent use. After warm-up, writing an event allocates nothing.
type ThreadWriter struct {
	sw  *SharedWriter
	w   *Writer
	out []byte // the chunk's bytes, built outside the lock
}

// handOver writes a finished chunk into the shared stream: the pending
// definitions and zone records first, then the chunk, under one lock.
func (tw *ThreadWriter) handOver(c *Chunk) error {
	tw.out = AppendChunk(tw.out[:0], c)
	sw := tw.sw
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if err := sw.usable(); err != nil {
		return err
	}
	m := sw.main
	if len(m.buf) > 0 {
		if err := m.Flush(); err != nil {
			sw.keep(err)
			return err
		}
	}
	binary.LittleEndian.PutUint32(tw.out, m.nextChunk) // chunk ids count in file order
	m.nextChunk++
	err := m.cw.writeRaw(tw.out)
	sw.keep(err)
	return err
}

// Zone is the id of the thread's zone.
func (tw *ThreadWriter) Zone() uint16 { return tw.w.zone }

// timeWord is the event time word for t since the trace start: whole
// microseconds mod 2^32 (see SharedWriter); ok is false for t < 0.
func timeWord(t time.Duration) (word uint32, ok bool) {
	if t < 0 {
		return 0, false
	}
	return uint32(uint64(t / time.Microsecond)), true
}

// UnwrapTime returns the 64-bit time in µs of an event whose time word is
// word, given prev, the unwrapped time of the previous event of the same
// zone (for a zone's first event, use int64(word)): the time congruent to
// word mod 2^32 nearest to prev. It is exact while consecutive events of a
// zone are less than 2^31 µs (35 min 47 s) apart.
func UnwrapTime(prev int64, word uint32) int64 {
	return prev + int64(int32(word-uint32(prev)))
}

func (tw *ThreadWriter) timed(eb *EventBuilder, ok bool) *EventBuilder {
	if !ok && eb.err == nil {
		eb.err = errArg("negative event time")
	}
	return eb
}

// Begin starts an event of type et (defined by the SharedWriter) at time t
// since the trace start. Append its arguments with the EventBuilder methods,
// then call End.
func (tw *ThreadWriter) Begin(et *EventType, t time.Duration) *EventBuilder {
	word, ok := timeWord(t)
	return tw.timed(tw.w.Begin(et, word), ok)
}

func (tw *ThreadWriter) builtin(name string, t time.Duration) *EventBuilder {
	word, ok := timeWord(t)
	return tw.timed(tw.w.builtin(name, word), ok)
}

// EnterScope writes wtf.scope#enter(name) at time t (a generic scope).
func (tw *ThreadWriter) EnterScope(t time.Duration, name string) error {
	return tw.builtin("wtf.scope#enter", t).ASCII(name).End()
}

// LeaveScope writes wtf.scope#leave at time t: it closes the thread's
// innermost open scope.
func (tw *ThreadWriter) LeaveScope(t time.Duration) error {
	return tw.builtin("wtf.scope#leave", t).End()
}

// AppendScopeData writes wtf.scope#appendData(name, value) at time t; value
// is JSON text.
func (tw *ThreadWriter) AppendScopeData(t time.Duration, name, jsonValue string) error {
	return tw.builtin("wtf.scope#appendData", t).ASCII(name).Any(jsonValue).End()
}

// Mark writes wtf.trace#mark(name, value) at time t; value is JSON text (""
// for null).
func (tw *ThreadWriter) Mark(t time.Duration, name, jsonValue string) error {
	return anyOrNull(tw.builtin("wtf.trace#mark", t).ASCII(name), jsonValue).End()
}

// TimeStamp writes wtf.trace#timeStamp(name, value) at time t.
func (tw *ThreadWriter) TimeStamp(t time.Duration, name, jsonValue string) error {
	return anyOrNull(tw.builtin("wtf.trace#timeStamp", t).ASCII(name), jsonValue).End()
}

// Events is the number of events written so far.
func (tw *ThreadWriter) Events() int { return tw.w.events }

// Flush hands the events buffered so far to the shared stream as one chunk.
func (tw *ThreadWriter) Flush() error { return tw.w.Flush() }

// Close flushes the thread's last chunk. A second Close returns nil; other
// calls after Close return ErrClosed.
func (tw *ThreadWriter) Close() error { return tw.w.Close() }
