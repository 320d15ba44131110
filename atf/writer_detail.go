package atf

import (
	"hash/crc32"
	"io"
)

// DetailWriter writes one detail.atf: a placeholder header at creation
// (written through at once),
// length-prefixed records (24-byte header + payload, no padding) as they come,
// and on Close the footer plus the patched header (event_count, bytes_length,
// index_seq_start/end = min/max linked index sequence number).
//
// Records are encoded into an internal buffer; payloads larger than the buffer
// go straight to the underlying writer. Append does not allocate. Not safe for
// concurrent use.
type DetailWriter struct {
	w       io.WriteSeeker
	base    int64
	o       writerOptions
	hdr     DetailHeader
	buf     []byte
	count   uint64
	bytes   uint64
	minSeq  uint32
	maxSeq  uint32
	first   uint64
	last    uint64
	crc     uint32
	written int64
	err     error
	closed  bool
	// beforeRecords runs before records are handed to w: a ThreadWriter
	// flushes its index there, so no detail record reaches its file before
	// the index event it links back to.
	beforeRecords func() error
	// m is the mapped output (WithMmapOutput), nil with write(2): buf is
	// then the window of the mapping after the written bytes.
	m *mapOut
}

// maxDetailEvents keeps every detail_seq below NoDetail.
const maxDetailEvents = NoDetail

// MaxDetailPayload is the largest payload a detail record can carry
// (total_length is a u32 that includes the 24-byte header).
const MaxDetailPayload = 1<<32 - 1 - DetailEventHeaderSize

// NewDetailWriter writes the placeholder header to w at its current position.
func NewDetailWriter(w io.WriteSeeker, threadID uint32, opts ...WriterOption) (*DetailWriter, error) {
	o, err := buildWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	base, err := w.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	dw := &DetailWriter{w: w, base: base, o: o}
	if dw.m = mapOutput(w, base, &o); dw.m != nil {
		dw.buf = dw.m.data[:0:dw.m.size]
	} else {
		dw.buf = make([]byte, 0, max(o.bufSize, HeaderSize+FooterSize))
	}
	dw.hdr = DetailHeader{
		Endian: endianLittle, Version: formatVersion, Arch: o.arch, OS: o.os,
		ThreadID: threadID, EventsOffset: HeaderSize,
	}
	dw.buf = AppendDetailHeader(dw.buf, dw.hdr)
	if err := dw.flush(); err != nil {
		return nil, err
	}
	return dw, nil
}

// Append writes one record linking back to index event indexSeq; its
// detail_seq is Count() before the call.
func (w *DetailWriter) Append(typ DetailType, flags uint16, indexSeq uint32, ts uint64, payload []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return ErrClosed
	}
	if w.count >= maxDetailEvents {
		w.err = newError(w.written+int64(len(w.buf)), ErrLimit, "detail file already holds %d events, the most detail_seq addresses", w.count)
		return w.err
	}
	if uint64(len(payload)) > MaxDetailPayload {
		return newError(w.written+int64(len(w.buf)), ErrLimit, "detail payload of %d bytes does not fit a u32 total_length", len(payload))
	}
	total := DetailEventHeaderSize + len(payload)
	if w.m != nil {
		if err := w.appendMapped(typ, flags, indexSeq, ts, payload); err != nil {
			return err
		}
	} else if err := w.appendBuffered(typ, flags, indexSeq, ts, payload); err != nil {
		return err
	}
	if w.count == 0 {
		w.first, w.minSeq, w.maxSeq = ts, indexSeq, indexSeq
	}
	w.minSeq = min(w.minSeq, indexSeq)
	w.maxSeq = max(w.maxSeq, indexSeq)
	w.last = ts
	w.count++
	w.bytes += uint64(total)
	return nil
}

// appendBuffered puts a record into the buffer, or hands its payload
// straight to w when it does not fit.
func (w *DetailWriter) appendBuffered(typ DetailType, flags uint16, indexSeq uint32, ts uint64, payload []byte) error {
	if len(w.buf)+DetailEventHeaderSize > cap(w.buf) {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.buf = AppendDetailEventHeader(w.buf, typ, flags, indexSeq, w.hdr.ThreadID, ts, len(payload))
	if len(w.buf)+len(payload) <= cap(w.buf) {
		w.buf = append(w.buf, payload...)
	} else {
		if err := w.flush(); err != nil {
			return err
		}
		return w.write(payload)
	}
	return nil
}

// appendMapped stores a record in the mapping: the payload, then the rest
// of the header, and its total_length last, so that a process killed in
// between leaves a zero total_length where the record starts (the end of
// the records for a reader), never a record with a partial payload.
func (w *DetailWriter) appendMapped(typ DetailType, flags uint16, indexSeq uint32, ts uint64, payload []byte) error {
	total := DetailEventHeaderSize + len(payload)
	n := len(w.buf)
	if n+total > cap(w.buf) {
		if err := w.commit(int64(total)); err != nil {
			return err
		}
		n = 0
	}
	rec := w.buf[n : n+total]
	copy(rec[DetailEventHeaderSize:], payload)
	var h [DetailEventHeaderSize]byte
	AppendDetailEventHeader(h[:0], typ, flags, indexSeq, w.hdr.ThreadID, ts, len(payload))
	copy(rec[4:DetailEventHeaderSize], h[4:])
	copy(rec[:4], h[:4])
	w.buf = w.buf[:n+total]
	return nil
}

// commit is flush for a mapped output: the window's bytes, already in the
// file, count as written, and the next window starts after them with room
// for at least need bytes (the file grows when it has less).
func (w *DetailWriter) commit(need int64) error {
	if w.o.checksum {
		w.crc = crc32.Update(w.crc, crc32.IEEETable, afterHeader(w.buf, w.written))
	}
	var err error
	if w.buf, err = w.m.next(w.buf, &w.written, need); err != nil {
		w.err = err
	}
	return err
}

// Count is the number of records appended so far.
func (w *DetailWriter) Count() uint64 { return w.count }

func (w *DetailWriter) write(p []byte) error {
	if w.beforeRecords != nil && w.written >= HeaderSize {
		if err := w.beforeRecords(); err != nil {
			w.err = err
			return err
		}
	}
	if w.o.checksum {
		w.crc = crc32.Update(w.crc, crc32.IEEETable, afterHeader(p, w.written))
	}
	n, err := w.w.Write(p)
	w.written += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
	}
	return err
}

func (w *DetailWriter) flush() error {
	if w.err != nil {
		return w.err
	}
	if w.m != nil {
		return w.commit(DetailEventHeaderSize)
	}
	if len(w.buf) == 0 {
		return nil
	}
	err := w.write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// Flush hands buffered records to the underlying writer. After Close it
// returns ErrClosed (or the error Close met).
func (w *DetailWriter) Flush() error {
	if w.closed {
		return closedErr(w.err)
	}
	return w.flush()
}

// Sync flushes and calls the underlying writer's Sync method when it has one.
func (w *DetailWriter) Sync() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if w.m != nil {
		return w.m.sync()
	}
	return syncOf(w.w)
}

// Close writes the footer after the last record and rewrites the header.
// Closing twice is harmless: the second call writes nothing and returns the
// first call's error.
func (w *DetailWriter) Close() error {
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
	w.err = patch(w.w, w.base, AppendDetailFooter(w.buf[:0], f), AppendDetailHeader(w.buf[FooterSize:FooterSize], h))
	return w.err
}

// finalFooterHeader is the footer Close writes and the header it patches.
func (w *DetailWriter) finalFooterHeader() (DetailFooter, DetailHeader) {
	f := DetailFooter{EventCount: w.count, BytesLength: w.bytes, TimeStartNs: w.first, TimeEndNs: w.last}
	if w.o.checksum {
		f.Checksum = w.crc
	}
	w.hdr.EventCount = w.count
	w.hdr.BytesLength = w.bytes
	w.hdr.IndexSeqStart, w.hdr.IndexSeqEnd = uint64(w.minSeq), uint64(w.maxSeq)
	return f, w.hdr
}

// closeMapped is Close for a mapped output (see IndexWriter.closeMapped).
func (w *DetailWriter) closeMapped() error {
	err := w.err
	if err == nil {
		err = w.commit(FooterSize)
	}
	end := w.written + int64(len(w.buf))
	if err == nil {
		f, h := w.finalFooterHeader()
		AppendDetailFooter(w.buf[:0], f)
		AppendDetailHeader(w.m.data[:0:HeaderSize], h)
		end += FooterSize
	}
	w.buf = nil
	err = w.m.close(w.w, end, err)
	if w.err == nil {
		w.err = err
	}
	return err
}
