package atf

import (
	"encoding/binary"
	"io"
	"unsafe"
)

// DetailFile reads one detail.atf over an io.ReaderAt, a path (OpenDetailFile,
// read or mapped with WithMmap) or a byte slice. Open scans the records once,
// sequentially, and keeps their offsets (8 bytes per event), so
// Event(detailSeq) is O(1) afterwards. Safe for concurrent use.
//
// Payloads are zero-copy views when the file is in memory: over
// OpenDetailBytes they are slices of b (valid while b is), over a mapped file
// slices of the mapping (valid until Close). Their capacity ends with the
// record, so an append to one copies instead of overwriting the next record.
// Over an io.ReaderAt (or a file opened without WithMmap) the bytes are read
// into a buffer: see EventInto and DetailIter for how long they stay valid.
//
// Without a valid footer (a crashed writer) every complete record up to the
// end of the file is recovered — unlike the reference readers, which always
// hold the last 64 bytes back for a footer — and the scan stops at the first
// torn or invalid record; Recovered reports true and Discarded counts the
// bytes after the last good record.
type DetailFile struct {
	src       source
	hdr       DetailHeader
	footer    DetailFooter
	hasFooter bool
	eventsOff int64
	end       int64 // end of the last good record
	offsets   []int64
	recovered bool
	discarded int64
	maxEvent  uint32
	closer    io.Closer // the file OpenDetailFile opened
}

// OpenDetail validates the header of the detail file r of size bytes and scans
// its records. Checks, in the reference reader's order: size ≥ 64, magic
// "ATD2", version 1, endian 1, events_offset within the file; then every
// record's total_length (≥ 24, within the events section, within
// Limits.MaxDetailEventSize) and a footer's event_count and bytes_length.
func OpenDetail(r io.ReaderAt, size int64, opts ...ReaderOption) (*DetailFile, error) {
	return openDetail(newSource(r, size), opts)
}

// OpenDetailBytes reads a detail file held in memory; payloads are views of
// b (never copied), so b must not change while they are in use.
func OpenDetailBytes(b []byte, opts ...ReaderOption) (*DetailFile, error) {
	return openDetail(bytesSource(b), opts)
}

func openDetail(src source, opts []ReaderOption) (*DetailFile, error) {
	o, err := buildReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	size := src.size
	if size < HeaderSize {
		return nil, newError(size, ErrTruncated, "file too small: %d bytes, the detail header needs %d", size, HeaderSize)
	}
	hb := smallBufs.Get().(*[HeaderSize]byte)
	defer smallBufs.Put(hb)
	if err := src.readAt(hb[:], 0); err != nil {
		return nil, err
	}
	if string(hb[:4]) != DetailMagic {
		return nil, newError(0, ErrBadMagic, "magic %q, want %q", hb[:4], DetailMagic)
	}
	d := &DetailFile{src: src, hdr: parseDetailHeader(hb[:]), maxEvent: o.limits.MaxDetailEventSize}
	h := &d.hdr
	if h.Version != formatVersion {
		return nil, newError(5, ErrUnsupportedVersion, "version %d, want %d", h.Version, formatVersion)
	}
	if h.Endian != endianLittle {
		return nil, newError(4, ErrUnsupportedEndian, "endian byte %d, want 1 (little-endian)", h.Endian)
	}
	if h.EventsOffset > uint64(size) {
		return nil, newError(20, ErrCorrupt, "events_offset %d is beyond the file size %d", h.EventsOffset, size)
	}
	if h.EventsOffset < HeaderSize {
		return nil, newError(20, ErrCorrupt, "events_offset %d overlaps the %d-byte header", h.EventsOffset, HeaderSize)
	}
	d.eventsOff = int64(h.EventsOffset)
	end := size
	// The footer is the last 64 bytes when its magic is right and its
	// bytes_length reaches exactly from events_offset to it.
	if size-d.eventsOff >= FooterSize {
		if err := src.readAt(hb[:], size-FooterSize); err != nil {
			return nil, err
		}
		if string(hb[:4]) == DetailFooterMagic {
			f := parseDetailFooter(hb[:])
			if f.BytesLength == uint64(size-FooterSize-d.eventsOff) {
				d.footer, d.hasFooter = f, true
				end = size - FooterSize
			}
		}
	}
	d.recovered = !d.hasFooter
	if err := d.scan(end, o.limits); err != nil {
		return nil, err
	}
	return d, nil
}

// scan records the offset of every record in [eventsOff, end).
func (d *DetailFile) scan(end int64, lim Limits) error {
	maxCount := uint64(end-d.eventsOff) / DetailEventHeaderSize
	if d.hasFooter {
		n := d.footer.EventCount
		if n > maxCount {
			return newError(end+8, ErrTruncated, "footer event_count %d needs at least %d bytes, the events section has %d", n, n*DetailEventHeaderSize, end-d.eventsOff)
		}
		if n > lim.MaxDetailEvents {
			return newError(end+8, ErrLimit, "footer event_count %d exceeds the limit of %d", n, lim.MaxDetailEvents)
		}
		d.offsets = make([]int64, 0, n+1) // +1: the end, see below
	}
	win := newWindow(&d.src, 64<<10)
	off := d.eventsOff
	for off < end {
		// stop reports a bad record: an error in a finalized file, the end of
		// the recovered events otherwise.
		stop := func(sentinel error, msg string, args ...any) error {
			if d.hasFooter {
				return newError(off, sentinel, msg, args...)
			}
			return nil
		}
		if end-off < DetailEventHeaderSize {
			if err := stop(ErrCorrupt, "%d bytes left in the events section, a record header needs %d", end-off, DetailEventHeaderSize); err != nil {
				return err
			}
			break
		}
		b, err := win.at(off, 4)
		if err != nil {
			return err
		}
		tl := binary.LittleEndian.Uint32(b)
		if tl < DetailEventHeaderSize {
			if err := stop(ErrCorrupt, "total_length %d is shorter than the %d-byte record header", tl, DetailEventHeaderSize); err != nil {
				return err
			}
			break
		}
		if tl > d.maxEvent {
			if err := stop(ErrLimit, "total_length %d exceeds the limit of %d", tl, d.maxEvent); err != nil {
				return err
			}
			break
		}
		if int64(tl) > end-off {
			if err := stop(ErrCorrupt, "record of %d bytes runs past the end of the events section at %d", tl, end); err != nil {
				return err
			}
			break
		}
		if uint64(len(d.offsets)) >= lim.MaxDetailEvents {
			return newError(off, ErrLimit, "more than %d detail events", lim.MaxDetailEvents)
		}
		d.offsets = append(d.offsets, off)
		off += int64(tl)
	}
	d.end = off
	// The end follows the last offset in the array (not in the slice), so
	// that offsets[:Len()+1] holds every record's start and end.
	d.offsets = append(d.offsets, off)[:len(d.offsets)]
	d.discarded = end - off
	if d.hasFooter && uint64(len(d.offsets)) != d.footer.EventCount {
		return newError(end+8, ErrCorrupt, "footer event_count %d, the events section holds %d records", d.footer.EventCount, len(d.offsets))
	}
	return nil
}

// Header returns the file header as stored.
func (d *DetailFile) Header() DetailHeader { return d.hdr }

// Footer returns the footer and whether the file has a valid one.
func (d *DetailFile) Footer() (DetailFooter, bool) { return d.footer, d.hasFooter }

// Len is the number of readable detail events.
func (d *DetailFile) Len() uint64 { return uint64(len(d.offsets)) }

// Size is the file size the reader was opened with.
func (d *DetailFile) Size() int64 { return d.src.size }

// Recovered reports whether the file had no valid footer.
func (d *DetailFile) Recovered() bool { return d.recovered }

// Discarded is the number of bytes after the last complete record of a
// recovered file.
func (d *DetailFile) Discarded() int64 { return d.discarded }

// Offset is the file offset of record detailSeq.
func (d *DetailFile) Offset(detailSeq uint64) (int64, bool) {
	if detailSeq >= uint64(len(d.offsets)) {
		return 0, false
	}
	return d.offsets[detailSeq], true
}

// Event returns record detailSeq. On an in-memory or mapped reader the
// payload is a view of the file's bytes; otherwise it is read into a new
// buffer (use EventInto to reuse one).
func (d *DetailFile) Event(detailSeq uint64) (DetailEvent, error) {
	return d.EventInto(detailSeq, nil)
}

// EventInto is Event reading the record into buf when the reader is not in
// memory and buf is large enough (so a reused buffer makes it allocation-free);
// the payload is then valid until buf is reused. In memory or mapped, buf is
// not used and the payload is a view, as with Event.
func (d *DetailFile) EventInto(detailSeq uint64, buf []byte) (DetailEvent, error) {
	if detailSeq >= uint64(len(d.offsets)) {
		return DetailEvent{}, newError(d.end, ErrNotFound, "detail event %d does not exist (%d events)", detailSeq, len(d.offsets))
	}
	off := d.offsets[detailSeq]
	next := d.end
	if detailSeq+1 < uint64(len(d.offsets)) {
		next = d.offsets[detailSeq+1]
	}
	n := next - off // == total_length, checked by the scan
	var b []byte
	if d.src.data != nil {
		b = d.src.data[off:next]
	} else {
		if int64(cap(buf)) >= n {
			b = buf[:n]
		} else {
			b = make([]byte, n)
		}
		if err := d.src.readAt(b, off); err != nil {
			return DetailEvent{}, err
		}
	}
	e := decodeDetailEventHeader(b)
	e.Payload = b[DetailEventHeaderSize:n:n]
	return e, nil
}

// Events returns an iterator over the records in file order.
func (d *DetailFile) Events() *DetailIter {
	it := new(DetailIter)
	it.init(d)
	return it
}

// init points it at the first record of d. (Events stays small enough to
// inline, so that the iterator of a caller's loop need not be allocated.)
func (it *DetailIter) init(d *DetailFile) {
	*it = DetailIter{d: d, win: newWindow(&d.src, 64<<10), data: d.src.data}
	if it.data != nil && cap(d.offsets) > len(d.offsets) {
		n := len(d.offsets)
		it.bounds = d.offsets[: n+1 : n+1]
		it.bp = unsafe.Pointer(unsafe.SliceData(it.bounds))
		it.base = unsafe.Pointer(unsafe.SliceData(it.data))
		it.nb = uint64(n)
		if n > detailAhead {
			it.nAhead = uint64(n - detailAhead)
			it.ahead = unsafe.Pointer(&it.bounds[detailAhead])
		}
	}
}

// TimeRange is the footer's first/last timestamps, or for a recovered file the
// timestamps of the first and last records.
func (d *DetailFile) TimeRange() (first, last uint64, ok bool) {
	if len(d.offsets) == 0 {
		return 0, 0, false
	}
	if d.hasFooter {
		return d.footer.TimeStartNs, d.footer.TimeEndNs, true
	}
	a, err1 := d.Event(0)
	b, err2 := d.Event(uint64(len(d.offsets) - 1))
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return a.Timestamp, b.Timestamp, true
}

// VerifyChecksum compares a footer's non-zero checksum with the CRC-32 (IEEE)
// of the events section; checked is false when there is nothing to check.
func (d *DetailFile) VerifyChecksum() (checked bool, err error) {
	if !d.hasFooter || d.footer.Checksum == 0 {
		return false, nil
	}
	sum, err := crcOf(&d.src, d.eventsOff, int64(d.footer.BytesLength))
	if err != nil {
		return false, err
	}
	if sum != d.footer.Checksum {
		return true, newError(d.src.size-FooterSize+4, ErrChecksum, "footer checksum %#08x, events section has %#08x", d.footer.Checksum, sum)
	}
	return true, nil
}

// DetailIter iterates over detail records in file order. For a file in
// memory (OpenDetailBytes) or mapped (WithMmap) every payload is a view of the
// file's bytes, valid as long as they are (until Close for a mapping), Next
// only counts, and Event slices the current record: no copy. Otherwise the
// records are read through one reusable 64 KiB buffer and the current
// payload is valid until the next call to Next. The getters Timestamp,
// IndexSeq, ThreadID, Type, Flags and Payload read single fields without
// building the DetailEvent (59 instead of 69 instructions per record for
// three fields over a mapped file).
type DetailIter struct {
	d   *DetailFile
	win window
	i   uint64 // records visited: the current one is i-1
	// In memory: the file's bytes and its nb records' bounds (record j is
	// data[bounds[j]:bounds[j+1]], checked by the scan); Next then stores
	// no pointer (no write barrier per record) and Event reads the header
	// at base+bounds[j] through bp (&bounds[0]) with no bounds check.
	data   []byte
	bounds []int64
	bp     unsafe.Pointer
	base   unsafe.Pointer // &data[0]
	nb     uint64
	// In memory, Next moving to record i < nAhead (nb-detailAhead) touches
	// the first byte of record i+detailAhead, and keeps it in touch so
	// that the load stays.
	nAhead uint64
	ahead  unsafe.Pointer // &bounds[detailAhead]
	touch  byte
	cur    DetailEvent // through an io.ReaderAt: the current record
	err    error
}

// detailAhead is how many records ahead DetailIter.Next touches a file in
// memory: 32 records of 540 bytes are 17 KiB, four pages (8, 16, 32 and 64
// measured alike on the issue-15 session, 5–10 % less CPU than none).
const detailAhead = 32

// Next advances to the next record.
func (it *DetailIter) Next() bool {
	// In memory, up to the last detailAhead records: count, and touch
	// the record detailAhead records on, so that its cache line and
	// page-table entry are on their way from memory well before Event
	// reads it (the records are hundreds of bytes apart, each a new cache
	// line and every few a new page: the hardware prefetchers do not
	// follow them).
	if it.i >= it.nAhead {
		return it.nextRead()
	}
	it.touch = *(*byte)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.ahead, it.i*8))))
	it.i++
	return true
}

// nextRead is Next for a file behind an io.ReaderAt, which it reads
// through the window, and for the last detailAhead records of one in
// memory, which it only counts.
func (it *DetailIter) nextRead() bool {
	if i := it.i + 1; i < uint64(len(it.bounds)) { // in memory: only count
		it.i = i
		return true
	}
	d := it.d
	if it.err != nil || it.data != nil || it.i >= uint64(len(d.offsets)) {
		return false
	}
	off := d.offsets[it.i]
	next := d.end
	if it.i+1 < uint64(len(d.offsets)) {
		next = d.offsets[it.i+1]
	}
	b, err := it.win.at(off, int(next-off))
	if err != nil {
		it.err = err
		return false
	}
	loadDetailHeader(&it.cur, b)
	it.cur.Payload = b[DetailEventHeaderSize:len(b):len(b)]
	it.i++
	return true
}

// Event is the current record.
func (it *DetailIter) Event() (e DetailEvent) {
	if i := it.i - 1; i < it.nb { // in memory (it.i == 0 wraps: no record yet)
		b := (*[2]int64)(unsafe.Add(it.bp, i*8))
		off, n := b[0], b[1]-b[0]
		p := unsafe.Add(it.base, off)
		loadDetailHeaderAt(&e, p)
		e.Payload = unsafe.Slice((*byte)(unsafe.Add(p, DetailEventHeaderSize)), n-DetailEventHeaderSize)
		return
	}
	return it.cur
}

// The current record's fields, read in place: Event().Timestamp and the
// others without building the whole DetailEvent (Go keeps a struct of
// that size in memory: the copy and the reloads are most of an
// iteration's cost). Like Event, they read the last record after Next has
// returned false, and zero values before the first Next.

// Timestamp is the current record's timestamp.
func (it *DetailIter) Timestamp() uint64 {
	if i := it.i - 1; i < it.nb {
		p := unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, i*8))+16)
		if nativeLayout {
			return (*(*uint64)(p))
		}
		return (binary.LittleEndian.Uint64(unsafe.Slice((*byte)(p), 8)))
	}
	return it.cur.Timestamp
}

// IndexSeq is the current record's index_seq (its index event's sequence number).
func (it *DetailIter) IndexSeq() uint32 {
	if i := it.i - 1; i < it.nb {
		p := unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, i*8))+8)
		if nativeLayout {
			return (*(*uint32)(p))
		}
		return (binary.LittleEndian.Uint32(unsafe.Slice((*byte)(p), 4)))
	}
	return it.cur.IndexSeq
}

// ThreadID is the current record's thread id.
func (it *DetailIter) ThreadID() uint32 {
	if i := it.i - 1; i < it.nb {
		p := unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, i*8))+12)
		if nativeLayout {
			return (*(*uint32)(p))
		}
		return (binary.LittleEndian.Uint32(unsafe.Slice((*byte)(p), 4)))
	}
	return it.cur.ThreadID
}

// Type is the current record's event type.
func (it *DetailIter) Type() DetailType {
	if i := it.i - 1; i < it.nb {
		p := unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, i*8))+4)
		if nativeLayout {
			return DetailType(*(*uint16)(p))
		}
		return DetailType(binary.LittleEndian.Uint16(unsafe.Slice((*byte)(p), 2)))
	}
	return it.cur.Type
}

// Flags is the current record's flags.
func (it *DetailIter) Flags() uint16 {
	if i := it.i - 1; i < it.nb {
		p := unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, i*8))+6)
		if nativeLayout {
			return (*(*uint16)(p))
		}
		return (binary.LittleEndian.Uint16(unsafe.Slice((*byte)(p), 2)))
	}
	return it.cur.Flags
}

// Payload is the current record's payload (see Event for how long it
// stays valid).
func (it *DetailIter) Payload() []byte {
	if i := it.i - 1; i < it.nb {
		b := (*[2]int64)(unsafe.Add(it.bp, i*8))
		return unsafe.Slice((*byte)(unsafe.Add(it.base, b[0]+DetailEventHeaderSize)), b[1]-b[0]-DetailEventHeaderSize)
	}
	return it.cur.Payload
}

// Seq is the current record's detail_seq.
func (it *DetailIter) Seq() uint64 { return it.i - 1 }

// Err is the read error that ended the iteration, if any.
func (it *DetailIter) Err() error { return it.err }
