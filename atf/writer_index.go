package atf

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// IndexWriter writes one index.atf: a placeholder header at creation (written
// through at once, so even a writer killed before its first event leaves a
// valid empty file), 32-byte events as they come, and on Close the footer
// plus the patched header.
//
// Events are encoded into an internal buffer that is written to the
// underlying writer when it fills and on Flush, Sync and Close: a crash loses
// at most the buffered events (WithBufferSize; a ThreadWriter also flushes
// every WithFlushEvery events). After the buffer is allocated at creation,
// Append does not allocate. An IndexWriter is not safe for concurrent use
// (one writer per thread is the format's design).
type IndexWriter struct {
	w       io.WriteSeeker
	base    int64 // where the file starts in w
	o       writerOptions
	hdr     IndexHeader
	buf     []byte
	count   uint64
	first   uint64
	last    uint64
	crc     uint32
	written int64 // bytes handed to w, header included
	err     error
	closed  bool
	// m is the mapped output (WithMmapOutput), nil with write(2): buf is
	// then the window of the mapping after the written bytes.
	m *mapOut
	// room is what Append needs in buf: the event, and in a mapped file
	// the live footer after it (putMapped).
	room int
	// live is the header each event updates (event_count, footer_offset):
	// the file's in the mapping, else spare (stores nobody reads are
	// cheaper than a branch).
	live  *[HeaderSize]byte
	spare [HeaderSize]byte
}

// maxIndexEvents is the most events an index file can hold with 32-bit
// sequence numbers (the detail back link and the header count are u32).
const maxIndexEvents = 1<<32 - 1

// NewIndexWriter writes the placeholder header to w at its current position and
// returns a writer for the events of threadID. w must support Seek so that
// Close can patch the header.
func NewIndexWriter(w io.WriteSeeker, threadID uint32, opts ...WriterOption) (*IndexWriter, error) {
	o, err := buildWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	base, err := w.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	iw := &IndexWriter{w: w, base: base, o: o}
	iw.live = &iw.spare
	iw.room = IndexEventSize
	if iw.m = mapOutput(w, base, &o); iw.m != nil {
		iw.buf = iw.m.data[:0:iw.m.size]
		iw.room += FooterSize
	} else {
		iw.buf = make([]byte, 0, max(o.bufSize, HeaderSize+FooterSize))
	}
	iw.hdr = IndexHeader{
		Endian: endianLittle, Version: formatVersion, Arch: o.arch, OS: o.os,
		ThreadID: threadID, ClockType: o.clock, EventSize: IndexEventSize,
		EventsOffset: HeaderSize, FooterOffset: HeaderSize,
	}
	iw.buf = AppendIndexHeader(iw.buf, iw.hdr)
	if iw.m != nil {
		// The live footer of no events (putMapped moves it after each).
		iw.putLiveFooter(iw.buf[HeaderSize:HeaderSize+IndexEventSize+FooterSize], 0)
	}
	if err := iw.flush(); err != nil {
		return nil, err
	}
	if iw.m != nil {
		// Until the first event the file is the header and the live
		// footer, nothing more: a file of no events with a zero tail
		// would read as the tail's events here (the header's footer_offset
		// can name no footer before the first event). The first Append
		// grows it again.
		if err := iw.m.cut(HeaderSize + FooterSize); err != nil {
			iw.m.finish(0)
			return nil, err
		}
		iw.buf = iw.buf[:0:0]
	}
	return iw, nil
}

// Append writes one event; its sequence number is Count() before the call.
func (w *IndexWriter) Append(e IndexEvent) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return ErrClosed
	}
	if w.count >= maxIndexEvents {
		w.err = newError(w.written+int64(len(w.buf)), ErrLimit, "index file already holds %d events, the most 32-bit sequence numbers address", w.count)
		return w.err
	}
	n := len(w.buf)
	if n+w.room > cap(w.buf) {
		if err := w.flush(); err != nil {
			return err
		}
		n = 0
	}
	w.buf = w.buf[:n+IndexEventSize]
	if w.count == 0 {
		w.first = e.Timestamp
	}
	w.last = e.Timestamp
	w.count++
	if w.m != nil {
		w.putMapped((*[IndexEventSize + FooterSize]byte)(w.buf[n:n+IndexEventSize+FooterSize]), e.Timestamp, e.FunctionID, pair(e.ThreadID, uint32(e.Kind)), pair(e.CallDepth, e.DetailSeq))
		return nil
	}
	putIndexEvent(w.buf[n:], &e)
	w.publish()
	return nil
}

// footerMagicWord is the first 8 bytes of an index footer whose checksum
// is 0 ("2ITA", then 0), as one little-endian store.
const footerMagicWord = uint64('2') | uint64('I')<<8 | uint64('T')<<16 | uint64('A')<<24

// putMapped stores the w.count-th event in the mapped file at b[0:32],
// which holds the live footer of the events before it, and moves the live
// footer to b[32:96] and the header's footer_offset after it. In a mapped
// file the live footer is always right after the last event (what Close
// leaves), so that a file left by a crash reads as its events, and not the
// zeros of its last growth step, both by the reference Rust reader, which
// counts the events by the footer's event_count when header.footer_offset
// points at the footer magic and by the file size when it does not, and by
// this package's readers, which refuse a footer whose counts disagree with
// its offset and otherwise count by footer_offset.
//
// The stores are ordered so that a process killed between any two of
// them leaves a file this package's readers read exactly: first what no
// reader looks at (the new footer's fields over the old footer's reserved
// bytes and past it, the event's second half over the old footer's time
// range), then the event's first half, which breaks the old footer's
// magic (footer_offset then bounds the events), the new footer's magic
// over the old bytes_written, and last the header. The reference reader
// counts the zero tail only when the kill comes between the event's first
// store and the header's (three instructions), and reads the file exactly
// at every other instruction; its time range is the event's bytes while
// the second half is being stored.
func (w *IndexWriter) putMapped(b *[IndexEventSize + FooterSize]byte, ts, functionID uint64, threadKind, depthSeq uint64) {
	le := binary.LittleEndian
	c := w.count
	le.PutUint64(b[64:], c*IndexEventSize) // the new footer's bytes_written
	le.PutUint64(b[40:], c)                // its event_count,
	le.PutUint64(b[48:], w.first)          // time range
	le.PutUint64(b[56:], ts)
	le.PutUint64(b[16:], threadKind)
	le.PutUint64(b[24:], depthSeq)
	le.PutUint64(b[0:], ts)
	le.PutUint64(b[8:], functionID)
	le.PutUint64(b[32:], footerMagicWord)
	publishCount(w.live, c)
}

// pair is two little-endian u32 fields of an index event stored as one
// u64 (thread_id and event_kind, call_depth and detail_seq).
func pair(lo, hi uint32) uint64 { return uint64(lo) | uint64(hi)<<32 }

// putLiveFooter stores the live footer of count events at b[0:64] of a
// mapped file (what putMapped keeps after every event), its magic last,
// and clears the 32 bytes after it.
func (w *IndexWriter) putLiveFooter(b []byte, count uint64) {
	_ = b[IndexEventSize+FooterSize-1]
	le := binary.LittleEndian
	le.PutUint64(b[8:], count)
	le.PutUint64(b[16:], w.first)
	le.PutUint64(b[24:], w.last)
	le.PutUint64(b[32:], count*IndexEventSize)
	clear(b[40:])
	le.PutUint64(b[0:], footerMagicWord)
}

// publish stores the event count in the live header: in a mapped file,
// the header then says where the events end, whenever the process dies.
func (w *IndexWriter) publish() { publishCount(w.live, w.count) }

// publishCount stores count as a header's footer_offset and the matching
// event_count (in that order: footer_offset is what readers go by).
func publishCount(h *[HeaderSize]byte, count uint64) {
	binary.LittleEndian.PutUint64(h[40:], HeaderSize+count*IndexEventSize)
	binary.LittleEndian.PutUint32(h[28:], uint32(count))
}

// unappend takes back the last appended event, still in buf: the
// ThreadWriter drops an event whose detail record could not be written.
func (w *IndexWriter) unappend(prevLast uint64) {
	n := len(w.buf) - IndexEventSize
	w.count--
	w.last = prevLast
	if w.count == 0 {
		w.first = 0
	}
	w.publish()
	if w.m != nil {
		// A mapped window is the file: the event's place holds the live
		// footer again (footer_offset already points there).
		w.putLiveFooter(w.buf[n:n+IndexEventSize+FooterSize], w.count)
	}
	w.buf = w.buf[:n]
}

// Count is the number of events appended so far.
func (w *IndexWriter) Count() uint64 { return w.count }

// TimeRange is the timestamps of the first and last appended events (0, 0
// before the first), the values Close stores in the header and footer.
func (w *IndexWriter) TimeRange() (first, last uint64) { return w.first, w.last }

// SetHasDetailFile sets header flag bit 0; it is persisted by Close.
func (w *IndexWriter) SetHasDetailFile() { w.hdr.Flags |= flagHasDetailFile }

func (w *IndexWriter) flush() error {
	if w.err != nil {
		return w.err
	}
	if w.m != nil {
		return w.commit(int64(w.room))
	}
	if len(w.buf) == 0 {
		return nil
	}
	w.sum()
	n, err := w.w.Write(w.buf)
	w.written += int64(n)
	if err == nil && n < len(w.buf) {
		err = io.ErrShortWrite
	}
	w.buf = w.buf[:0]
	if err != nil {
		w.err = err
	}
	return err
}

// sum adds buf to the checksum of the events section.
func (w *IndexWriter) sum() {
	if w.o.checksum {
		w.crc = crc32.Update(w.crc, crc32.IEEETable, afterHeader(w.buf, w.written))
	}
}

// afterHeader is the part of chunk, written at offset written, that follows
// the header (the header is not part of the checksum).
func afterHeader(chunk []byte, written int64) []byte {
	if written < HeaderSize {
		chunk = chunk[min(HeaderSize-written, int64(len(chunk))):]
	}
	return chunk
}

// commit is flush for a mapped output: the window's bytes, already in the
// file, count as written, and the next window starts after them with room
// for at least need bytes (the file grows when it has less).
func (w *IndexWriter) commit(need int64) error {
	w.sum()
	var err error
	if w.buf, err = w.m.next(w.buf, &w.written, need); err != nil {
		w.err = err
		return err
	}
	w.live = (*[HeaderSize]byte)(w.m.data) // the mapping may have moved
	return nil
}

// Flush hands buffered events to the underlying writer. After Close it
// returns ErrClosed (or the error Close met).
func (w *IndexWriter) Flush() error {
	if w.closed {
		return closedErr(w.err)
	}
	return w.flush()
}

// closedErr is what a writer's methods return after Close: the sticky error,
// else ErrClosed.
func closedErr(err error) error {
	if err != nil {
		return err
	}
	return ErrClosed
}

// Sync flushes and, when the underlying writer has a Sync method (*os.File),
// calls it: a durability point.
func (w *IndexWriter) Sync() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if w.m != nil {
		return w.m.sync()
	}
	return syncOf(w.w)
}

func syncOf(w any) error {
	if s, ok := w.(interface{ Sync() error }); ok {
		return s.Sync()
	}
	return nil
}

// Close flushes the events, writes the footer after them, rewrites the header
// with flags, event_count, footer_offset and the time range, and leaves w
// positioned after the footer. Closing twice is harmless: the second call
// writes nothing and returns the first call's error (nil after a clean
// Close).
func (w *IndexWriter) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.m != nil {
		return w.closeMapped()
	}
	if err := w.flush(); err != nil {
		return err
	}
	f, h := w.finalFooterHeader()
	w.err = patch(w.w, w.base, AppendIndexFooter(w.buf[:0], f), AppendIndexHeader(w.buf[FooterSize:FooterSize], h))
	return w.err
}

// finalFooterHeader is the footer Close writes and the header it patches.
func (w *IndexWriter) finalFooterHeader() (IndexFooter, IndexHeader) {
	eventsBytes := w.count * IndexEventSize
	f := IndexFooter{EventCount: w.count, TimeStartNs: w.first, TimeEndNs: w.last, BytesWritten: eventsBytes}
	if w.o.checksum {
		f.Checksum = w.crc
	}
	w.hdr.EventCount = uint32(w.count)
	w.hdr.FooterOffset = HeaderSize + eventsBytes
	w.hdr.TimeStartNs, w.hdr.TimeEndNs = w.first, w.last
	return f, w.hdr
}

// closeMapped is Close for a mapped output: the final footer goes over
// the live one after the events, the final header over the live one, and
// the file is unmapped and truncated to its end, then w is positioned
// there. After a failure the file keeps the events, the live footer and
// the live header (what a crash leaves), without the zero tail.
func (w *IndexWriter) closeMapped() error {
	err := w.err
	if err == nil {
		err = w.commit(FooterSize)
	}
	// Events appended after a failure are in the file too; the live
	// footer follows them (Append kept room for it).
	end := w.written + int64(len(w.buf)) + FooterSize
	if err == nil {
		f, h := w.finalFooterHeader()
		AppendIndexFooter(w.buf[:0], f)
		AppendIndexHeader(w.m.data[:0:HeaderSize], h)
	}
	w.buf, w.live = nil, &w.spare
	err = w.m.close(w.w, end, err)
	if w.err == nil {
		w.err = err
	}
	return err
}

// patch writes the footer at the current position, the header at base, then
// moves back to the end.
func patch(w io.WriteSeeker, base int64, footer, header []byte) error {
	if _, err := w.Write(footer); err != nil {
		return err
	}
	end, err := w.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := w.Seek(base, io.SeekStart); err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	_, err = w.Seek(end, io.SeekStart)
	return err
}
