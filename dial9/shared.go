package dial9

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"
)

// SharedWriter writes one dial9 stream from many goroutines. It is safe for
// concurrent use; each goroutine writes through its own ThreadWriter
// (Thread), which buffers complete events and hands them to the stream as
// whole batches, taking the SharedWriter's lock once per batch, never per
// event.
//
// The stream is one ordinary dial9 stream (one header, one schema registry,
// one string pool and one stack pool), readable by any reader:
//
//   - Schemas: a schema registered on any ThreadWriter (or on the
//     SharedWriter) gets one type id for the whole stream and its schema
//     frame is written to the stream at once, before any batch that can use
//     it; its Handle is valid on every ThreadWriter of the stream.
//   - Pools: the first InternString or InternStack of a content on a
//     ThreadWriter looks it up in the stream's pool under the lock, writing
//     the pool frame at once if the stream has not seen the content; the
//     ThreadWriter then keeps the id, so later hits take no lock. A pool id
//     is therefore defined in the stream before any batch that uses it.
//   - Timestamps: a batch's events are encoded relative to each other; the
//     first timestamped event of a batch is encoded against the stream's
//     timestamp base when the batch is appended (a delta when it is at most
//     0xFFFFFF ns after the base, otherwise a reset frame before it), and
//     the stream's base is then the batch's last timestamp. Every event
//     decodes to the timestamp it was written with.
//
// Ordering: the events of one ThreadWriter appear in the stream in the
// order they were written; batches of different ThreadWriters interleave
// whole (a batch is never split), in the order they were handed over.
// Timestamps across threads are therefore not sorted: a reader that needs
// time order sorts or merges by timestamp. An event of a schema without
// timestamps (WithoutTimestamp) decodes with the base it follows, which in
// a shared stream depends on how batches interleave.
//
// A batch is handed over when it reaches the batch size (WithBufferSize,
// default 64 KiB), on ThreadWriter.Flush and on ThreadWriter.Close. Close
// every ThreadWriter before the SharedWriter: events still buffered in a
// ThreadWriter are not in the stream. Errors are sticky: a write error of
// the underlying io.Writer is returned to every later call on the
// SharedWriter, and after Close they return ErrClosed. A ThreadWriter
// learns of either the next time it takes the lock (a hand-off, a new
// schema, a pool miss): that call returns the error, the events it had
// buffered are dropped, and the error is then sticky on it too.
type SharedWriter struct {
	mu      sync.Mutex
	core    *Writer // the stream: header, registry, pools, base, output buffer
	batch   int     // ThreadWriter batch size
	threads int     // open ThreadWriters
	closed  bool
}

// NewSharedWriter returns a SharedWriter that writes a new stream to w. The
// option it takes is WithBufferSize (the batch size of its ThreadWriters
// and the buffered size at which it writes to w); reader options are an
// error.
func NewSharedWriter(w io.Writer, opts ...Option) (*SharedWriter, error) {
	core, err := NewWriter(w, opts...)
	if err != nil {
		return nil, err
	}
	return &SharedWriter{core: core, batch: core.flushAt}, nil
}

// ThreadWriter is one goroutine's writer into a SharedWriter's stream. It
// has the typed event API of Writer (Register, Begin … End, WriteUints,
// WriteEvent, InternString, InternStack) and is not safe for concurrent
// use: take one per goroutine. After warm-up (schemas registered, contents
// interned on this ThreadWriter) writing an event allocates nothing and
// takes no lock; handing a full batch to the stream takes the lock once.
type ThreadWriter struct {
	w Writer
}

// Thread returns a new ThreadWriter for the calling goroutine.
func (sw *SharedWriter) Thread() (*ThreadWriter, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.core.err != nil {
		return nil, sw.core.err
	}
	t := &ThreadWriter{}
	e := &t.w
	e.shared = sw
	e.flushAt = sw.batch
	e.buf = make([]byte, 0, sw.batch+4096)
	e.ew.e = e
	e.clearState()
	e.anchor, e.tsBase = true, anchorBase
	sw.syncLocked(e)
	sw.threads++
	return t, nil
}

// Register registers a schema in the stream and returns its handle, valid
// on every ThreadWriter of this SharedWriter. It is Writer.Register: the
// first registration of a name writes the schema frame, an identical one
// returns the same handle.
func (sw *SharedWriter) Register(name string, fields []FieldDef, opts ...SchemaOption) (Handle, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.core.Register(name, fields, opts...)
}

// Flush writes what the stream has buffered (schemas, pool entries and
// batches already handed over) to the io.Writer. Events still buffered in
// ThreadWriters are not flushed: ThreadWriter.Flush hands them over.
func (sw *SharedWriter) Flush() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.core.Flush()
}

// Close flushes the stream and ends it: later calls on the SharedWriter and
// its ThreadWriters return ErrClosed. It does not close the io.Writer. A
// second Close returns nil. Closing while ThreadWriters are still open is
// an error (after the stream is flushed and closed): the events they had
// not handed over are not in the stream.
func (sw *SharedWriter) Close() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.closed {
		return nil
	}
	sw.closed = true
	err := sw.core.Close()
	if err == nil && sw.threads > 0 {
		err = fmt.Errorf("dial9: SharedWriter closed with %d ThreadWriters still open: events they had not handed over are not in the stream", sw.threads)
	}
	return err
}

// syncLocked copies the stream's schemas registered since e last looked
// into e's table (same indexes, so Handles are valid on every thread).
func (sw *SharedWriter) syncLocked(e *Writer) {
	for i := len(e.types); i < len(sw.core.types); i++ {
		t := sw.core.types[i] // immutable once registered: slices are shared
		e.types = append(e.types, t)
		e.byName[t.schema.Name] = int32(i)
		e.byID[t.schema.ID] = int32(i)
	}
}

// syncTypes brings a ThreadWriter's schema table up to date for a handle it
// does not know yet (registered on another thread); it reports whether h is
// then valid.
func (e *Writer) syncTypes(h Handle) bool {
	if e.shared == nil {
		return false
	}
	sw := e.shared
	sw.mu.Lock()
	sw.syncLocked(e)
	sw.mu.Unlock()
	return int(h.idx) < len(e.types) && e.types[h.idx].schema.ID == h.id
}

// register is Writer.Register for a ThreadWriter whose table does not know
// the name: the stream registers it.
func (sw *SharedWriter) register(e *Writer, name string, fields []FieldDef, opts []SchemaOption) (Handle, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	h, err := sw.core.Register(name, fields, opts...)
	if err == nil {
		sw.syncLocked(e)
	}
	return h, err
}

// intern is a ThreadWriter's pool miss (the string b, or with stack the
// stack frames): the stream's id, with the pool frame written to the stream
// if the stream has not seen the content. The thread keeps the id.
func (sw *SharedWriter) intern(e *Writer, h uint64, b []byte, stack bool, frames []uint64) uint32 {
	sw.mu.Lock()
	var id uint32
	if !stack {
		id = sw.core.internString(h, b)
	} else {
		id = sw.core.InternStack(frames)
	}
	err := sw.core.err
	sw.mu.Unlock()
	if err != nil {
		e.err = err
		return 0
	}
	if !stack {
		e.strs.add(h, b, id)
	} else {
		e.stacks.add(h, frames, id)
	}
	return id
}

// append hands e's batch to the stream under the lock, encoding the
// batch's anchor (its first timestamped event, written with delta 0)
// against the stream's base, and with flush writes the stream out.
func (sw *SharedWriter) append(e *Writer, flush bool) error {
	sw.mu.Lock()
	err := sw.appendLocked(e, flush)
	sw.mu.Unlock()
	e.buf = e.buf[:0]
	e.anchor, e.tsBase = true, anchorBase
	if err != nil {
		e.err = err
	}
	return err
}

func (sw *SharedWriter) appendLocked(e *Writer, flush bool) error {
	core := sw.core
	if core.err != nil {
		return core.err
	}
	batch := e.buf
	if len(batch) > 0 {
		if e.anchor { // no timestamped event: the base does not move
			core.emit(batch)
		} else {
			at, ts, base := e.anchorAt, e.anchorTS, core.tsBase
			if ts >= base && ts-base <= 0xFFFFFF {
				d := ts - base
				batch[at+3], batch[at+4], batch[at+5] = byte(d), byte(d>>8), byte(d>>16)
				core.emit(batch)
			} else {
				var reset [9]byte
				reset[0] = tagReset
				binary.LittleEndian.PutUint64(reset[1:], ts)
				core.emit(batch[:at])
				core.emit(reset[:])
				core.emit(batch[at:])
			}
			core.tsBase = e.tsBase
		}
	}
	if flush {
		return core.Flush()
	}
	return core.err
}

// emit appends p to the stream: into the buffer when it fits, else the
// buffer and then p are written out. Errors are left in e.err.
func (e *Writer) emit(p []byte) {
	if e.err != nil {
		return
	}
	if len(e.buf)+len(p) <= e.flushAt {
		e.buf = append(e.buf, p...)
		return
	}
	if e.Flush() != nil {
		return
	}
	if len(p) < e.flushAt {
		e.buf = append(e.buf, p...)
		return
	}
	if _, err := e.w.Write(p); err != nil {
		e.err = err
	}
}

// Register registers a schema in the stream (see SharedWriter.Register);
// the handle is valid on every ThreadWriter of the stream. A name this
// ThreadWriter has registered or used before is answered without the lock.
func (t *ThreadWriter) Register(name string, fields []FieldDef, opts ...SchemaOption) (Handle, error) {
	return t.w.Register(name, fields, opts...)
}

// Schema returns the registered schema of h (do not modify it), or nil if
// this ThreadWriter does not know h yet.
func (t *ThreadWriter) Schema(h Handle) *Schema { return t.w.Schema(h) }

// Begin starts an event of type h at timestamp ts (ns), as Writer.Begin.
func (t *ThreadWriter) Begin(h Handle, ts uint64) *EventWriter {
	if ts == anchorBase {
		t.maxAnchor()
		w := t.w.Begin(h, ts)
		t.maxAnchorDone()
		return w
	}
	return t.w.Begin(h, ts)
}

// WriteUints writes an all-integer event, as Writer.WriteUints.
func (t *ThreadWriter) WriteUints(h Handle, ts uint64, values ...uint64) error {
	if ts == anchorBase {
		t.maxAnchor()
		err := t.w.WriteUints(h, ts, values...)
		t.maxAnchorDone()
		return err
	}
	return t.w.WriteUints(h, ts, values...)
}

// WriteEvent writes an event from generic values, as Writer.WriteEvent.
func (t *ThreadWriter) WriteEvent(h Handle, ts uint64, values []Value) error {
	if ts == anchorBase {
		t.maxAnchor()
		err := t.w.WriteEvent(h, ts, values)
		t.maxAnchorDone()
		return err
	}
	return t.w.WriteEvent(h, ts, values)
}

// maxAnchor and maxAnchorDone surround an event at timestamp anchorBase,
// the one timestamp that would not take the reset branch while the anchor
// is pending: with a base of 0 it does. If the event took no anchor (its
// schema has no timestamps, or it failed), the pending base is restored;
// an event left open restores it when it is discarded.
func (t *ThreadWriter) maxAnchor() {
	if e := &t.w; e.anchor {
		e.abandon() // as Begin would, before the base is changed
		e.tsBase = 0
	}
}

func (t *ThreadWriter) maxAnchorDone() {
	if e := &t.w; e.anchor {
		e.tsBase = anchorBase
	}
}

// InternString returns the stream's string-pool id of s (see SharedWriter:
// the first use of a content on this ThreadWriter takes the lock).
func (t *ThreadWriter) InternString(s string) uint32 { return t.w.InternString(s) }

// InternStringBytes is InternString for a byte slice.
func (t *ThreadWriter) InternStringBytes(b []byte) uint32 { return t.w.InternStringBytes(b) }

// InternStack returns the stream's stack-pool id of frames.
func (t *ThreadWriter) InternStack(frames []uint64) uint32 { return t.w.InternStack(frames) }

// Flush hands the buffered events to the stream as one batch and writes
// the stream out to its io.Writer. An event begun and not ended is
// discarded, as by Writer.Flush.
func (t *ThreadWriter) Flush() error { return t.w.Flush() }

// Close flushes and ends this ThreadWriter: later calls return ErrClosed. A
// second Close returns nil.
func (t *ThreadWriter) Close() error {
	e := &t.w
	if e.closed {
		return nil
	}
	err := e.Close()
	sw := e.shared
	sw.mu.Lock()
	sw.threads--
	sw.mu.Unlock()
	return err
}
