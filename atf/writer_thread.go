package atf

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// ThreadWriter writes one thread's index.atf and, from its first event with a
// payload on, its detail.atf. It reserves the index and detail sequence
// numbers of an event together, so the index event's forward link (detail_seq)
// and the detail event's back link (index_seq) always agree; a failed write
// makes the writer fail from then on.
//
// Crash durability: both headers are written when the files are created;
// every WithFlushEvery events (default 128) the buffered events go to the
// index file and then to the detail file, and whenever the detail buffer
// must be written the index goes first. So a process killed at any moment
// (SIGKILL, a crash) loses at most the events written since the last such
// point — under WithFlushEvery events, and never more than a buffer — and
// every detail record on file has its index event on file.
// WithFlushInterval adds a bound in the caller's timestamps (a Write
// flushes when its event is d or more after the oldest unflushed one), and
// WithBackgroundFlush one in wall time that covers idle threads too (a
// goroutine flushes every thread's buffered events every d). The index may
// hold the last few events' forward links to detail records that were still
// buffered; readers report those as dangling links (see Thread.Check). A
// write error (a full disk) fails the writer; an index event whose detail
// record could not be written is dropped when it is still buffered, and
// reported as a dangling link by readers otherwise.
//
// After warm-up Write and WriteFunction do not allocate. Not safe for
// concurrent use: give each goroutine or OS thread its own ThreadWriter.
type ThreadWriter struct {
	id         uint32
	o          []WriterOption
	index      *IndexWriter
	detail     *DetailWriter
	openDetail func() (io.WriteSeeker, error)
	closers    []io.Closer
	scratch    []byte
	flushEvery uint64
	flushAt    uint64 // the index count at which Write flushes both files
	interval   uint64 // WithFlushInterval (timestamp units), 0 = off
	// flushTS is the timestamp at which Write flushes both files:
	// noDeadline when interval is 0, 0 when nothing was written since the
	// last flush (the next Write sets it from its timestamp).
	flushTS uint64
	// gate is flushTS without a mutex, 0 with one: Write's lock-free fast
	// path needs ts < gate (one comparison for both conditions).
	gate   uint64
	mu     *sync.Mutex // WithBackgroundFlush: shared with the flusher
	own    *flusher    // WithBackgroundFlush outside a session
	err    error
	closed bool
}

const noDeadline = ^uint64(0)

// NewThreadWriter writes the index placeholder header to index. openDetail is
// called once, on the first event with a payload, to create the detail file;
// it may be nil when no event will carry a payload.
func NewThreadWriter(index io.WriteSeeker, openDetail func() (io.WriteSeeker, error), threadID uint32, opts ...WriterOption) (*ThreadWriter, error) {
	o, err := buildWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	iw, err := NewIndexWriter(index, threadID, opts...)
	if err != nil {
		return nil, err
	}
	t := &ThreadWriter{id: threadID, o: opts, index: iw, openDetail: openDetail, flushEvery: o.flushEvery, flushAt: ^uint64(0),
		interval: o.interval, flushTS: noDeadline}
	if o.flushEvery > 0 {
		t.flushAt = o.flushEvery
	}
	if o.interval > 0 {
		t.flushTS = 0
	}
	t.gate = t.flushTS
	if o.background > 0 {
		t.gate = 0
		t.mu = new(sync.Mutex)
		if !o.inSession {
			t.own = startFlusher(o.background)
			t.own.add(t)
		}
	}
	return t, nil
}

// CreateThread creates dir (and its parents) and dir/index.atf, as the
// reference writer does; dir/detail.atf is created on the first event with a
// payload. Close finalizes and closes both files.
func CreateThread(dir string, threadID uint32, opts ...WriterOption) (*ThreadWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, "index.atf"))
	if err != nil {
		return nil, err
	}
	var t *ThreadWriter
	open := func() (io.WriteSeeker, error) { // called by Write, after t is set
		d, err := os.Create(filepath.Join(dir, "detail.atf"))
		if err != nil {
			return nil, err
		}
		t.closers = append(t.closers, d)
		return d, nil
	}
	t, err = NewThreadWriter(f, open, threadID, opts...)
	if err != nil {
		f.Close()
		return nil, err
	}
	t.closers = []io.Closer{f}
	return t, nil
}

// ThreadID is the id written into the headers and every event.
func (t *ThreadWriter) ThreadID() uint32 { return t.id }

// Count is the number of index events written.
func (t *ThreadWriter) Count() uint64 { return t.index.Count() }

// DetailCount is the number of detail events written.
func (t *ThreadWriter) DetailCount() uint64 {
	if t.detail == nil {
		return 0
	}
	return t.detail.Count()
}

// HasDetail reports whether the detail file was created.
func (t *ThreadWriter) HasDetail() bool { return t.detail != nil }

// TimeRange is the first and last written index timestamps.
func (t *ThreadWriter) TimeRange() (first, last uint64) { return t.index.TimeRange() }

// Write records one event and returns its index sequence number. With a
// non-empty payload a detail event is written too (type FUNCTION_RETURN for
// KindReturn, FUNCTION_CALL otherwise, as the reference maps them) and the
// index event links to it.
func (t *ThreadWriter) Write(ts, functionID uint64, kind EventKind, depth uint32, payload []byte) (uint32, error) {
	if len(payload) == 0 && ts < t.gate && t.fast() {
		// appendFast, written out: the common case stays one call.
		iw := t.index
		seq := iw.count
		n := len(iw.buf)
		buf := iw.buf[:n+IndexEventSize]
		iw.buf = buf
		if seq == 0 {
			iw.first = ts
		}
		iw.last = ts
		iw.count = seq + 1
		if iw.m != nil {
			iw.putMapped((*[IndexEventSize + FooterSize]byte)(iw.buf[n:n+IndexEventSize+FooterSize]), ts, functionID, pair(t.id, uint32(kind)), pair(depth, NoDetail))
			return uint32(seq), nil
		}
		putIndexFields((*[IndexEventSize]byte)(buf[n:]), ts, functionID, t.id, kind, depth)
		publishCount(iw.live, seq+1)
		return uint32(seq), nil
	}
	if t.mu != nil {
		return t.writeLocked(ts, functionID, kind, depth, payload)
	}
	return t.write(ts, functionID, kind, depth, payload)
}

// fast reports whether an index-only event whose timestamp is before
// flushTS takes the fast path: it fits the buffer and reaches no flush point.
func (t *ThreadWriter) fast() bool {
	iw := t.index
	seq := iw.count
	return t.err == nil && !t.closed && iw.err == nil && seq+1 < t.flushAt && seq < maxIndexEvents && len(iw.buf)+iw.room <= cap(iw.buf)
}

// appendFast appends an index-only event that t.fast allowed.
func (t *ThreadWriter) appendFast(ts, functionID uint64, kind EventKind, depth uint32) uint32 {
	iw := t.index
	seq := iw.count
	n := len(iw.buf)
	buf := iw.buf[:n+IndexEventSize]
	iw.buf = buf
	if seq == 0 {
		iw.first = ts
	}
	iw.last = ts
	iw.count = seq + 1
	if iw.m != nil {
		iw.putMapped((*[IndexEventSize + FooterSize]byte)(iw.buf[n:n+IndexEventSize+FooterSize]), ts, functionID, pair(t.id, uint32(kind)), pair(depth, NoDetail))
		return uint32(seq)
	}
	putIndexFields((*[IndexEventSize]byte)(buf[n:]), ts, functionID, t.id, kind, depth)
	publishCount(iw.live, seq+1)
	return uint32(seq)
}

// putIndexFields encodes an index-only event (detail_seq NoDetail) into b.
func putIndexFields(b *[IndexEventSize]byte, ts, functionID uint64, thread uint32, kind EventKind, depth uint32) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], ts)
	le.PutUint64(b[8:], functionID)
	le.PutUint32(b[16:], thread)
	le.PutUint32(b[20:], uint32(kind))
	le.PutUint32(b[24:], depth)
	le.PutUint32(b[28:], NoDetail)
}

// writeLocked is Write under the mutex WithBackgroundFlush shares with the
// flusher.
func (t *ThreadWriter) writeLocked(ts, functionID uint64, kind EventKind, depth uint32, payload []byte) (uint32, error) {
	t.mu.Lock()
	var seq uint32
	var err error
	if len(payload) == 0 && ts < t.flushTS && t.fast() {
		seq = t.appendFast(ts, functionID, kind, depth)
	} else {
		seq, err = t.write(ts, functionID, kind, depth, payload)
	}
	t.mu.Unlock()
	return seq, err
}

// write is Write's general path.
func (t *ThreadWriter) write(ts, functionID uint64, kind EventKind, depth uint32, payload []byte) (uint32, error) {
	iw := t.index
	seq := iw.count
	if t.err != nil {
		return NoDetail, t.err
	}
	if t.closed {
		return NoDetail, ErrClosed
	}
	if seq >= maxIndexEvents {
		return NoDetail, newError(HeaderSize+int64(seq)*IndexEventSize, ErrLimit, "index file already holds %d events", seq)
	}
	if uint64(len(payload)) > MaxDetailPayload {
		return NoDetail, newError(-1, ErrLimit, "detail payload of %d bytes does not fit a u32 total_length", len(payload))
	}
	detailSeq := uint32(NoDetail)
	if len(payload) > 0 {
		if t.detail == nil {
			if err := t.startDetail(); err != nil {
				return NoDetail, err
			}
		}
		detailSeq = uint32(t.detail.Count())
	}
	// The index event goes first: the detail writer flushes the index before
	// any record reaches its file (beforeRecords).
	e := IndexEvent{Timestamp: ts, FunctionID: functionID, ThreadID: t.id, Kind: kind, CallDepth: depth, DetailSeq: detailSeq}
	prevLast := iw.last
	if err := iw.Append(e); err != nil {
		t.err = err
		return NoDetail, err
	}
	if len(payload) > 0 {
		pending, written := len(iw.buf), iw.written
		if err := t.detail.Append(DetailTypeFor(kind), 0, uint32(seq), ts, payload); err != nil {
			if iw.written == written && len(iw.buf) == pending {
				// Still buffered: drop the event rather than finalize a link
				// to a record that is not on file.
				iw.unappend(prevLast)
			}
			t.err = err
			return NoDetail, err
		}
	}
	if t.flushTS == 0 && t.interval != 0 {
		// The oldest event since the last flush: the deadline starts here.
		d := ts + t.interval
		if d < ts {
			d = noDeadline // saturated
		}
		t.setFlushTS(d)
	}
	if iw.count >= t.flushAt || t.interval != 0 && ts >= t.flushTS {
		if err := t.flush(); err != nil {
			t.err = err
			return uint32(seq), err
		}
	}
	return uint32(seq), nil
}

// WriteFunction records an event whose detail payload is the ARM64
// DetailFunctionPayload followed by stack (at most 256 bytes); the index
// event's function_id is p.FunctionID.
func (t *ThreadWriter) WriteFunction(ts uint64, kind EventKind, depth uint32, p *DetailFunctionPayload, stack []byte) (uint32, error) {
	if len(stack) > MaxStackSnapshot {
		return NoDetail, errors.New("atf: stack snapshot longer than 256 bytes")
	}
	t.scratch = AppendDetailFunctionPayload(t.scratch[:0], p, stack)
	return t.Write(ts, p.FunctionID, kind, depth, t.scratch)
}

func (t *ThreadWriter) startDetail() error {
	if t.openDetail == nil {
		t.err = errors.New("atf: event with a payload but the thread writer has no detail file")
		return t.err
	}
	w, err := t.openDetail()
	if err == nil {
		opts := t.o
		if t.index.m == nil {
			// A mapped detail file would hold records before the index
			// events they link back to reach the index file.
			opts = append(slices.Clip(opts), WithMmapOutput(false))
		}
		t.detail, err = NewDetailWriter(w, t.id, opts...)
	}
	if err != nil {
		t.err = err
		return err
	}
	t.detail.beforeRecords = t.index.flush
	t.index.SetHasDetailFile()
	return nil
}

// Flush hands buffered events to the underlying writers, the index file's
// first. After Close it returns ErrClosed (or the error Close met).
func (t *ThreadWriter) Flush() error {
	if t.mu != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	if t.closed {
		return closedErr(t.err)
	}
	return t.flush()
}

// flush flushes both files and starts the next flush points.
func (t *ThreadWriter) flush() error {
	if t.flushEvery > 0 {
		t.flushAt = t.index.count + t.flushEvery
	}
	if t.interval != 0 {
		t.setFlushTS(0)
	}
	err := t.index.Flush()
	if t.detail != nil {
		if derr := t.detail.Flush(); err == nil {
			err = derr
		}
	}
	return err
}

// setFlushTS sets the time flush point (and the fast path's gate).
func (t *ThreadWriter) setFlushTS(v uint64) {
	t.flushTS = v
	if t.mu == nil {
		t.gate = v
	}
}

// pending reports whether events are buffered.
func (t *ThreadWriter) pending() bool {
	return len(t.index.buf) > 0 || t.detail != nil && len(t.detail.buf) > 0
}

// backgroundFlush is the flusher's work on t: flush what is buffered,
// recording a failure as the writer's sticky error.
func (t *ThreadWriter) backgroundFlush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || t.err != nil || !t.pending() {
		return
	}
	if err := t.flush(); err != nil {
		t.err = err
	}
}

// Sync flushes both files and syncs them when they are *os.File (index
// first): what a power loss cannot take.
func (t *ThreadWriter) Sync() error {
	if t.mu != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	if err := t.index.Sync(); err != nil {
		return err
	}
	if t.detail != nil {
		return t.detail.Sync()
	}
	return nil
}

// Close finalizes the index file, then the detail file (the reference's
// order), and closes the files CreateThread opened. Closing twice is
// harmless: the second call writes nothing and returns the first call's
// error.
func (t *ThreadWriter) Close() error {
	if t.own != nil {
		t.own.close() // before taking t.mu, which the flusher may wait for
	}
	if t.mu != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	if t.closed {
		return t.err
	}
	t.closed = true
	err := t.index.Close()
	if t.detail != nil {
		if derr := t.detail.Close(); err == nil {
			err = derr
		}
	}
	for _, c := range t.closers {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	if t.err == nil {
		t.err = err
	}
	return err
}
