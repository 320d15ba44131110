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

// detailWindowSize is the window through which the open scan and DetailIter
// read a file behind an io.ReaderAt (the default pread path): 256 KiB cost
// 12–13 % less CPU than 64 KiB, measured on 1 M records of 540 bytes in the
// page cache (open scan 220 → 191 ms, warm pass 182 → 161 ms; see
// docs/performance-atf.md).
const detailWindowSize = 256 << 10

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
	win := newWindow(&d.src, detailWindowSize)
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

// init points it before the first record of d. (Events stays small enough
// to inline, so that the iterator of a caller's loop need not be allocated.)
func (it *DetailIter) init(d *DetailFile) {
	*it = DetailIter{d: d, win: newWindow(&d.src, detailWindowSize), data: d.src.data, base: unsafe.Pointer(&noDetail), evBatch: noBatch}
	it.bp = unsafe.Pointer(&it.rb)
	if it.data != nil && cap(d.offsets) > len(d.offsets) {
		n := len(d.offsets)
		it.bounds = d.offsets[: n+1 : n+1]
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
// file's bytes, valid as long as they are (until Close for a mapping), and
// Next only counts the record on: no copy. Otherwise the records are
// read through one reusable 256 KiB buffer and the current payload is valid
// until the next call to Next. The getters Timestamp, IndexSeq, ThreadID,
// Type, Flags and Payload read single fields in place without building the
// DetailEvent: one load each, after the record's start.
type DetailIter struct {
	// The current record is base[bp[j]:bp[j+1]]: bp is &bounds[0] over a
	// file in memory, base its first byte, and j the record's index;
	// otherwise (and before the first record) bp is &rb, rb the current
	// record's bounds in the window's buffer (0, 0 before the first
	// record: the zero header noDetail, no payload), and j stays 0. Next's
	// fast path (inlined) only counts j on and stores no pointer (no write
	// barrier per record).
	base unsafe.Pointer
	bp   unsafe.Pointer
	j    uint64
	// In memory, the fast path runs while j < lim; the slow path, every
	// detailBatch records, touches the headers of the detailBatch records
	// detailAhead on (touchAhead; kept in touched so that the loads stay), so that
	// their cache lines and page-table entries are on their way from
	// memory, together, well before the getters read them (records are
	// hundreds of bytes apart, each a new cache line and every few a new
	// page: the hardware prefetchers do not follow them). lim is 0 before
	// the first record and for a file behind an io.ReaderAt, where the
	// slow path reads every record.
	lim     uint64
	rb      [2]int64
	ri      uint64  // through an io.ReaderAt: records visited
	bounds  []int64 // in memory: record j is data[bounds[j]:bounds[j+1]], checked by the scan
	touched [4][16]byte
	// in memory, Event's records j with j/detailEvents == evBatch are
	// evs[j%detailEvents], decoded by decode
	evBatch uint64
	evs     [detailEvents]DetailEvent
	data    []byte
	d       *DetailFile
	win     window
	err     error
}

// noDetail is the record header the getters read before the first record:
// zeros, and one byte more so that the payload's start computed from it
// (then unused) still points into it. It is never written.
var noDetail [DetailEventHeaderSize + 1]byte

// detailAhead is how many records ahead DetailIter touches a file in
// memory, detailBatch how many it touches at a time (touchAhead: bytes 8–23
// of each header, 256 loads in a burst that the processor runs in
// parallel). Measured on 1 M records of 540 bytes, warm, mapped, against
// the Rust reader in alternating runs (docs/performance-atf.md): one byte
// 32 records ahead per record 0.96× Rust; one byte, 16/8 0.55×; both ends
// of the header, 128/64 1.23×, 512/256 1.38×; one 16-byte load, four
// records a step, 512/256 (256/128, 1024/512 and 128/64 were slower).
const (
	detailAhead = 512
	detailBatch = 256
)

// Next advances to the next record.
func (it *DetailIter) Next() bool {
	if it.j >= it.lim {
		return it.nextSlow()
	}
	it.j++ // a file in memory, between two touch-ahead batches
	return true
}

// started reports whether a file in memory has a current record.
func (it *DetailIter) started() bool { return it.bp != unsafe.Pointer(&it.rb) }

// nextSlow is Next for every detailBatch-th record of a file in memory
// (and its first), and for every record of a file behind an io.ReaderAt,
// which it reads through the window. At the end it leaves the last record
// current.
func (it *DetailIter) nextSlow() bool {
	if it.bounds != nil {
		var i uint64 // the next record
		if it.started() {
			i = it.j + 1
		}
		n := uint64(len(it.bounds)) - 1
		if i >= n {
			return false
		}
		it.base = unsafe.Pointer(unsafe.SliceData(it.data))
		it.bp = unsafe.Pointer(unsafe.SliceData(it.bounds))
		from := i + detailAhead
		if i == 0 {
			from = 0
		}
		it.touchAhead(it.bounds[min(from, n):min(i+detailAhead+detailBatch, n)])
		it.lim = min(i+detailBatch, n) - 1
		it.j = i
		return true
	}
	d := it.d
	i := it.ri
	if it.err != nil || i >= uint64(len(d.offsets)) {
		return false
	}
	off := d.offsets[i]
	next := d.end
	if i+1 < uint64(len(d.offsets)) {
		next = d.offsets[i+1]
	}
	b, err := it.win.at(off, int(next-off))
	if err != nil {
		it.err = err
		return false
	}
	it.base, it.rb = unsafe.Pointer(unsafe.SliceData(b)), [2]int64{0, int64(len(b))}
	it.ri = i + 1
	// Event's record (j stays 0 here): built now, as Event did, which
	// then only copies it out
	putDetailEvent(&it.evs[0], it.base, len(b))
	it.evBatch = 0
	return true
}

// touchAhead loads bytes 8–23 of the header of each record that starts at
// an offset in offs (index_seq, thread_id, timestamp: what the getters
// read after Next, the lines they need and no others) in one 16-byte load
// each, four records a step, into it.touched (four slots, so that no load
// is a dead store's). The loads are all the loop does: the fewer
// instructions per record, the more records' misses fit in the processor's
// reorder window at once (docs/performance-atf.md, sixth session).
func (it *DetailIter) touchAhead(offs []int64) {
	if len(offs) == 0 {
		return
	}
	p := unsafe.Add(it.base, 8)
	o := unsafe.Pointer(unsafe.SliceData(offs))
	n, k := len(offs), 0
	for ; k+4 <= n; k += 4 { // no pointer past offs (checkptr)
		q := unsafe.Add(o, k*8)
		it.touched[0] = *(*[16]byte)(unsafe.Add(p, *(*int64)(q)))
		it.touched[1] = *(*[16]byte)(unsafe.Add(p, *(*int64)(unsafe.Add(q, 8))))
		it.touched[2] = *(*[16]byte)(unsafe.Add(p, *(*int64)(unsafe.Add(q, 16))))
		it.touched[3] = *(*[16]byte)(unsafe.Add(p, *(*int64)(unsafe.Add(q, 24))))
	}
	for ; k < n; k++ {
		it.touched[0] = *(*[16]byte)(unsafe.Add(p, *(*int64)(unsafe.Add(o, k*8))))
	}
}

// rec is the current record's start and end in base (no bounds check:
// j and j+1 are in bp's array).
func (it *DetailIter) rec() (off, end int64) {
	p := unsafe.Add(it.bp, it.j*8)
	return *(*int64)(p), *(*int64)(unsafe.Add(p, 8))
}

// payload sets *b, which is nil, to the payload of the record [off, end):
// the bytes from the end of its header to its end (the scan checked that a
// record is never shorter than its header); before the first record (whose
// bounds are 0, 0) it leaves *b nil. The slice is stored as its three
// words: no check. (Cheap enough for Event to inline; Payload's own,
// branch-free form keeps the slice in registers.)
func (it *DetailIter) payload(b *[]byte, off, end int64) {
	if n := int(end-off) - DetailEventHeaderSize; n >= 0 {
		*(*sliceWords)(unsafe.Pointer(b)) = sliceWords{unsafe.Add(it.base, off+DetailEventHeaderSize), n, n}
	}
}

// sliceWords is the memory layout of a slice.
type sliceWords struct {
	p        unsafe.Pointer
	len, cap int
}

// Event is the current record (the zero DetailEvent before the first call to
// Next; the last record after Next has returned false).
func (it *DetailIter) Event() DetailEvent {
	if it.j/detailEvents != it.evBatch {
		it.decode()
	}
	return it.evs[it.j%detailEvents]
}

// detailEvents is how many records Event decodes at a time (a power of
// two) into DetailIter.evs.
const detailEvents = 32

// decode is Event outside the records decoded: in memory, it decodes the
// detailEvents records of the current record's batch (j/detailEvents) into
// it.evs, in one tight loop (their header lines are loaded in parallel,
// and each DetailEvent is in memory well before Event copies it out:
// building one per call and copying it out at once made the copy's
// 16-byte loads wait for the narrower stores that had just built it).
// Through an io.ReaderAt nextSlow builds each record in evs[0] (j stays
// 0); before the first record decode builds the zero record there and
// keeps it for no other call.
func (it *DetailIter) decode() {
	if !it.started() || it.bounds == nil {
		e := &it.evs[0]
		off, end := it.rec()
		e.Payload = nil
		loadDetailHeaderAt(e, unsafe.Add(it.base, off))
		it.payload(&e.Payload, off, end)
		it.evBatch = noBatch
		return
	}
	from := it.j &^ (detailEvents - 1)
	n := min(uint64(len(it.bounds))-1-from, detailEvents)
	b := it.bounds[from : from+n+1]
	// pointers rather than indexes: no bounds checks, and base stays in
	// a register (stores into it.evs could otherwise change it.base)
	base, e := it.base, unsafe.Pointer(&it.evs)
	q, last := unsafe.Pointer(&b[0]), unsafe.Pointer(&b[n])
	for off := b[0]; q != last; {
		q = unsafe.Add(q, 8)
		end := *(*int64)(q)
		putDetailEvent((*DetailEvent)(e), unsafe.Add(base, off), int(end-off))
		off, e = end, unsafe.Add(e, unsafe.Sizeof(DetailEvent{}))
	}
	it.evBatch = it.j / detailEvents
}

// putDetailEvent sets *e to the record of size bytes at p (checked by the
// open scan or the window: at least its header); the payload is stored as
// its three words, with no check.
func putDetailEvent(e *DetailEvent, p unsafe.Pointer, size int) {
	loadDetailHeaderAt(e, p)
	l := size - DetailEventHeaderSize
	*(*sliceWords)(unsafe.Pointer(&e.Payload)) = sliceWords{unsafe.Add(p, DetailEventHeaderSize), l, l}
}

// noBatch is DetailIter.evBatch when evs holds no batch: no j/detailEvents
// is that large.
const noBatch = ^uint64(0)

// The current record's fields, read in place: Event().Timestamp and the
// others without building the whole DetailEvent (Go keeps a struct of
// that size in memory: the copy and the reloads are most of an
// iteration's cost). Like Event, they read the last record after Next has
// returned false, and zero values before the first Next. Each is written
// out (the record's start is bp[j]) rather than through rec: a getter
// whose only code is an inlined helper leaves an inline mark, one NOP per
// call, in the caller's loop.

// Timestamp is the current record's timestamp.
func (it *DetailIter) Timestamp() uint64 {
	if nativeLayout {
		return *(*uint64)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+16))
	}
	return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+16)), 8))
}

// IndexSeq is the current record's index_seq (its index event's sequence number).
func (it *DetailIter) IndexSeq() uint32 {
	if nativeLayout {
		return *(*uint32)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+8))
	}
	return binary.LittleEndian.Uint32(unsafe.Slice((*byte)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+8)), 4))
}

// ThreadID is the current record's thread id.
func (it *DetailIter) ThreadID() uint32 {
	if nativeLayout {
		return *(*uint32)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+12))
	}
	return binary.LittleEndian.Uint32(unsafe.Slice((*byte)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+12)), 4))
}

// Type is the current record's event type.
func (it *DetailIter) Type() DetailType {
	if nativeLayout {
		return DetailType(*(*uint16)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+4)))
	}
	return DetailType(binary.LittleEndian.Uint16(unsafe.Slice((*byte)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+4)), 2)))
}

// Flags is the current record's flags.
func (it *DetailIter) Flags() uint16 {
	if nativeLayout {
		return *(*uint16)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+6))
	}
	return binary.LittleEndian.Uint16(unsafe.Slice((*byte)(unsafe.Add(it.base, *(*int64)(unsafe.Add(it.bp, it.j*8))+6)), 2))
}

// Payload is the current record's payload (see Event for how long it
// stays valid).
func (it *DetailIter) Payload() (b []byte) {
	r := unsafe.Add(it.bp, it.j*8)
	off, end := *(*int64)(r), *(*int64)(unsafe.Add(r, 8))
	p, n := unsafe.Add(it.base, off+DetailEventHeaderSize), int(end-off)-DetailEventHeaderSize
	if n < 0 { // before the first record: nil
		n, p = 0, nil
	}
	*(*sliceWords)(unsafe.Pointer(&b)) = sliceWords{p, n, n}
	return
}

// Seq is the current record's detail_seq.
func (it *DetailIter) Seq() uint64 {
	if it.bounds != nil && it.started() {
		return it.j
	}
	return it.ri - 1
}

// Err is the read error that ended the iteration, if any.
func (it *DetailIter) Err() error { return it.err }
