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
	if iw.m = mapOutput(w, base, &o); iw.m != nil {
		iw.buf = iw.m.data[:0:iw.m.size]
	} else {
		iw.buf = make([]byte, 0, max(o.bufSize, HeaderSize+FooterSize))
	}
	iw.hdr = IndexHeader{
		Endian: endianLittle, Version: formatVersion, Arch: o.arch, OS: o.os,
		ThreadID: threadID, ClockType: o.clock, EventSize: IndexEventSize,
		EventsOffset: HeaderSize, FooterOffset: HeaderSize,
	}
	iw.buf = AppendIndexHeader(iw.buf, iw.hdr)
	if err := iw.flush(); err != nil {
		return nil, err
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
	if n+IndexEventSize > cap(w.buf) {
		if err := w.flush(); err != nil {
			return err
		}
		n = 0
	}
	w.buf = w.buf[:n+IndexEventSize]
	putIndexEvent(w.buf[n:], &e)
	if w.count == 0 {
		w.first = e.Timestamp
	}
	w.last = e.Timestamp
	w.count++
	w.publish()
	return nil
}

// publish stores the event count in the live header: in a mapped file,
// the header then says where the events end, whenever the process dies.
func (w *IndexWriter) publish() { publishCount(w.live, w.count) }

// publishCount stores count as a header's event_count and the matching
// footer_offset.
func publishCount(h *[HeaderSize]byte, count uint64) {
	binary.LittleEndian.PutUint32(h[28:], uint32(count))
	binary.LittleEndian.PutUint64(h[40:], HeaderSize+count*IndexEventSize)
}

// unappend takes back the last appended event, still in buf: the
// ThreadWriter drops an event whose detail record could not be written.
func (w *IndexWriter) unappend(prevLast uint64) {
	n := len(w.buf) - IndexEventSize
	clear(w.buf[n:]) // a mapped window is the file: no event may stay there
	w.buf = w.buf[:n]
	w.count--
	w.last = prevLast
	if w.count == 0 {
		w.first = 0
	}
	w.publish()
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
		return w.commit(IndexEventSize)
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

// closeMapped is Close for a mapped output: the footer goes after the
// events in the mapping, the final header over the live one, and the file
// is unmapped and truncated to its end, then w is positioned there. After
// a failure the file keeps the events and the live header (what a crash
// leaves), without the zero tail.
func (w *IndexWriter) closeMapped() error {
	err := w.err
	if err == nil {
		err = w.commit(FooterSize)
	}
	end := w.written + int64(len(w.buf)) // events appended after a failure are in the file too
	if err == nil {
		f, h := w.finalFooterHeader()
		AppendIndexFooter(w.buf[:0], f)
		AppendIndexHeader(w.m.data[:0:HeaderSize], h)
		end += FooterSize
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
