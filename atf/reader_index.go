package atf

import (
	"fmt"
	"hash/crc32"
	"io"
	"iter"
	"sort"
	"sync"
	"unsafe"
)

// IndexFile reads one index.atf over an io.ReaderAt, a path (OpenIndexFile)
// or a byte slice. It is safe for concurrent use; the iterators taken from it
// are not. Opening costs a few small reads; Event(seq) is O(1).
//
// A file without a valid footer — a crashed or still-running writer leaves the
// placeholder header and no footer — is recovered: every complete 32-byte
// event is readable, the torn tail is counted by Discarded, Recovered reports
// true, and Problems says what was recovered and why.
type IndexFile struct {
	src       source
	hdr       IndexHeader
	footer    IndexFooter
	hasFooter bool
	eventsOff int64
	count     uint64
	recovered bool
	discarded int64
	// tornRange: the footer is a mapped writer's live footer whose time
	// range a kill left torn (tornLiveFooter); the events give it
	tornRange bool

	closer   io.Closer // the file OpenIndexFile opened
	footerAt int64     // where the valid footer is
	problems []Problem

	sortOnce sync.Once
	sorted   bool
	sortErr  error
}

// OpenIndex validates the header of the index file r of size bytes and finds
// its events. Checks, in the reference reader's order: size ≥ 64
// (ErrTruncated), magic "ATI2" (ErrBadMagic), version 1
// (ErrUnsupportedVersion), endian 1 (ErrUnsupportedEndian), event_size 32
// (ErrCorrupt); then events_offset within the file, and a footer's count
// against the file size and footer_offset.
func OpenIndex(r io.ReaderAt, size int64, opts ...ReaderOption) (*IndexFile, error) {
	return openIndex(newSource(r, size), opts)
}

// OpenIndexBytes reads an index file held in memory (read whole, or mapped).
// Events are decoded straight from b, which must not change while in use.
func OpenIndexBytes(b []byte, opts ...ReaderOption) (*IndexFile, error) {
	return openIndex(bytesSource(b), opts)
}

func openIndex(src source, opts []ReaderOption) (*IndexFile, error) {
	o, err := buildReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	size := src.size
	if size < HeaderSize {
		return nil, newError(size, ErrTruncated, "file too small: %d bytes, the index header needs %d", size, HeaderSize)
	}
	hb := smallBufs.Get().(*[HeaderSize]byte)
	defer smallBufs.Put(hb)
	if err := src.readAt(hb[:], 0); err != nil {
		return nil, err
	}
	if string(hb[:4]) != IndexMagic {
		return nil, newError(0, ErrBadMagic, "magic %q, want %q", hb[:4], IndexMagic)
	}
	r := &IndexFile{src: src, hdr: parseIndexHeader(hb[:])}
	h := &r.hdr
	if h.Version != formatVersion {
		return nil, newError(5, ErrUnsupportedVersion, "version %d, want %d", h.Version, formatVersion)
	}
	if h.Endian != endianLittle {
		return nil, newError(4, ErrUnsupportedEndian, "endian byte %d, want 1 (little-endian)", h.Endian)
	}
	if h.EventSize != IndexEventSize {
		return nil, newError(24, ErrCorrupt, "event_size %d, want %d", h.EventSize, IndexEventSize)
	}
	if h.EventsOffset > uint64(size) {
		return nil, newError(32, ErrCorrupt, "events_offset %d is beyond the file size %d", h.EventsOffset, size)
	}
	if h.EventsOffset < HeaderSize {
		return nil, newError(32, ErrCorrupt, "events_offset %d overlaps the %d-byte header", h.EventsOffset, HeaderSize)
	}
	r.eventsOff = int64(h.EventsOffset)
	if err := r.findFooter(hb); err != nil {
		return nil, err
	}
	if !r.hasFooter {
		r.recovered = true
		end := size
		why := "a torn event"
		// A header patched by Close (footer_offset past events_offset) whose
		// footer is damaged or cut off still says where the events end.
		if h.boundsEvents(uint64(size)) {
			end = int64(h.FooterOffset)
			why = fmt.Sprintf("a damaged or cut footer at footer_offset %d", h.FooterOffset)
		} else if end-r.eventsOff >= FooterSize && (end-r.eventsOff)%IndexEventSize == 0 {
			// The last 64 bytes look like a footer (magic, zero reserved
			// bytes) but are not a valid one: a damaged footer, not two
			// events.
			if err := src.readAt(hb[:], end-FooterSize); err != nil {
				return nil, err
			}
			if damagedFooter(hb[:]) {
				end -= FooterSize
				why = fmt.Sprintf("a damaged footer at %d (its magic is right, its counts are not)", end)
			}
		}
		r.count = uint64(end-r.eventsOff) / IndexEventSize
		r.discarded = size - r.eventsOff - int64(r.count)*IndexEventSize
		r.recoveryProblems(r.eventsOff+int64(r.count)*IndexEventSize, why)
	}
	r.checkIndexHeader()
	if r.count > o.limits.MaxIndexEvents {
		return nil, newError(r.eventsOff, ErrLimit, "%d index events exceed the limit of %d", r.count, o.limits.MaxIndexEvents)
	}
	return r, nil
}

// findFooter looks for the footer. A finalized header (footer_offset past
// events_offset) names its place: a footer there must have the magic "2ITA"
// and a count that agrees with footer_offset, or the file is corrupt; a
// missing or damaged footer means the file was cut (recovered). A placeholder
// header (footer_offset == events_offset, what a crashed writer leaves) has no
// footer, unless the writer died between writing the footer and patching the
// header: a valid footer filling the last 64 bytes exactly is accepted then.
//
// A footer_offset past the end of the file, or before events_offset, is a
// lie (reported by Problems): the footer is then looked for at the end, as
// for a placeholder header.
func (r *IndexFile) findFooter(buf *[HeaderSize]byte) error {
	h := &r.hdr
	size := uint64(r.src.size)
	fo, eo := h.FooterOffset, h.EventsOffset
	if fo > eo && (fo-eo)%IndexEventSize != 0 {
		return newError(40, ErrCorrupt, "footer_offset %d is not events_offset %d plus a whole number of events", fo, eo)
	}
	if h.namesFooter(size) {
		if err := r.src.readAt(buf[:], int64(fo)); err != nil {
			return err
		}
		if string(buf[:4]) != IndexFooterMagic {
			return nil
		}
		f := parseIndexFooter(buf[:])
		span := fo - eo
		if f.EventCount != span/IndexEventSize {
			return newError(int64(fo)+8, ErrCorrupt, "footer event_count %d disagrees with footer_offset %d (room for %d events)", f.EventCount, fo, span/IndexEventSize)
		}
		if f.BytesWritten != span {
			return newError(int64(fo)+32, ErrCorrupt, "footer bytes_written %d, want %d", f.BytesWritten, span)
		}
		r.footer, r.hasFooter, r.count, r.footerAt = f, true, f.EventCount, int64(fo)
		if rest := size - FooterSize - fo; rest > 0 {
			r.problems = append(r.problems, afterFooterProblem(int64(fo), int64(rest)))
			if rest >= IndexEventSize {
				return r.checkTornFooter(buf)
			}
		}
		return nil
	}
	if size < eo+FooterSize || (size-FooterSize-eo)%IndexEventSize != 0 {
		return nil
	}
	end := size - FooterSize
	if err := r.src.readAt(buf[:], int64(end)); err != nil {
		return err
	}
	f := parseIndexFooter(buf[:])
	span := end - eo
	if string(buf[:4]) == IndexFooterMagic && f.EventCount == span/IndexEventSize && f.BytesWritten == span {
		r.footer, r.hasFooter, r.count, r.footerAt = f, true, f.EventCount, int64(end)
	}
	return nil
}

// The two rules both index readers (OpenIndex, IndexReader) apply to a
// header's footer_offset against a file of size bytes:
//
// namesFooter: the header names a place for a footer before the file's end
// (a finalized header); a footer is looked for there only. Otherwise (a
// placeholder, or an offset too near or past the end) a valid footer is
// looked for in the last 64 bytes.
//
// boundsEvents: footer_offset says where the events end (finalized, within
// the file); when no valid footer is found, the events run to it, and the
// last 64 bytes are never taken for a damaged footer.
func (h *IndexHeader) namesFooter(size uint64) bool {
	fo := h.FooterOffset
	return fo > h.EventsOffset && size >= FooterSize && fo <= size-FooterSize
}

func (h *IndexHeader) boundsEvents(size uint64) bool {
	return h.FooterOffset > h.EventsOffset && h.FooterOffset <= size
}

// damagedFooter reports whether b, 64 bytes that are not a valid index
// footer, still look like one: the magic and the 24 zero reserved bytes (two
// real events would need a zero function id, thread, kind, depth and
// detail_seq there).
func damagedFooter(b []byte) bool {
	if len(b) < FooterSize || string(b[:4]) != IndexFooterMagic {
		return false
	}
	for _, c := range b[40:FooterSize] {
		if c != 0 {
			return false
		}
	}
	return true
}

// Header returns the file header as stored (a placeholder when the writer did
// not finish).
func (r *IndexFile) Header() IndexHeader { return r.hdr }

// Footer returns the footer and whether the file has a valid one.
func (r *IndexFile) Footer() (IndexFooter, bool) { return r.footer, r.hasFooter }

// Len is the number of readable events.
func (r *IndexFile) Len() uint64 { return r.count }

// Size is the file size the reader was opened with.
func (r *IndexFile) Size() int64 { return r.src.size }

// Recovered reports whether the file had no valid footer, so that its events
// were counted from the file size.
func (r *IndexFile) Recovered() bool { return r.recovered }

// Discarded is the number of bytes after the last complete event of a
// recovered file (a torn event, or a damaged footer).
func (r *IndexFile) Discarded() int64 { return r.discarded }

// TimeRange is the footer's first/last timestamps; for a recovered file, and
// for a live footer whose time range a kill left torn (see Problems), the
// timestamps of its first and last events (the reference reports the
// placeholder's 0, 0). ok is false for a file without events.
func (r *IndexFile) TimeRange() (first, last uint64, ok bool) {
	if r.count == 0 {
		return 0, 0, false
	}
	if r.hasFooter && !r.tornRange {
		return r.footer.TimeStartNs, r.footer.TimeEndNs, true
	}
	a, err1 := r.Event(0)
	b, err2 := r.Event(r.count - 1)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return a.Timestamp, b.Timestamp, true
}

// Event returns event seq in O(1). It does not allocate.
func (r *IndexFile) Event(seq uint64) (IndexEvent, error) {
	if seq >= r.count {
		return IndexEvent{}, newError(r.eventsOff+int64(min(seq, r.count))*IndexEventSize, ErrNotFound, "index event %d does not exist (%d events)", seq, r.count)
	}
	off := r.eventsOff + int64(seq)*IndexEventSize
	if r.src.data != nil {
		return loadIndexEvent(r.src.data[off:]), nil
	}
	b := smallBufs.Get().(*[HeaderSize]byte)
	err := r.src.readAt(b[:IndexEventSize], off)
	e := loadIndexEvent(b[:])
	smallBufs.Put(b)
	if err != nil {
		return IndexEvent{}, err
	}
	return e, nil
}

// ReadEvents decodes events start, start+1, … into dst and returns how many it
// decoded: min(len(dst), Len()-start). The events' bytes are copied (in
// memory, mapped) or read (one ReadAt) straight into dst's memory, 32 bytes
// each — on amd64 and arm64, where an IndexEvent's memory is the file
// layout, there is nothing left to decode; elsewhere each is decoded in
// place. On a read error it returns 0 and the error.
//
// Deprecated: use Blocks, which hands out the same events in place (a view
// of a mapped or in-memory file, or one read per block into the iterator's
// buffer) and is faster than this copy; ReadEvents remains for callers that
// need the events in their own slice.
func (r *IndexFile) ReadEvents(dst []IndexEvent, start uint64) (int, error) {
	if start >= r.count {
		return 0, nil
	}
	n := int(min(uint64(len(dst)), r.count-start))
	b := indexEventBytes(dst[:n])
	if err := r.src.readAt(b, r.eventsOff+int64(start)*IndexEventSize); err != nil {
		return 0, err
	}
	if !nativeLayout {
		for i := range dst[:n] {
			e := decodeIndexEvent(b[i*IndexEventSize:])
			dst[i] = e
		}
	}
	return n, nil
}

// indexEventBytes is the memory of e as bytes, 32 per event (an IndexEvent
// is 32 bytes on every platform: six fields, no padding).
func indexEventBytes(e []IndexEvent) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(e))), len(e)*IndexEventSize)
}

var _ = [1]struct{}{}[unsafe.Sizeof(IndexEvent{})-IndexEventSize]

// Events returns an iterator over events [start, Len()).
func (r *IndexFile) Events(start uint64) *IndexIter {
	it := &IndexIter{}
	it.reset(r, start, r.count, iterBufSize)
	return it
}

// Sorted reports whether timestamps never decrease from one event to the next.
// The first call scans the file once; the answer is remembered.
func (r *IndexFile) Sorted() (bool, error) {
	r.sortOnce.Do(func() {
		it := r.Events(0)
		r.sorted = true
		var prev uint64
		for it.Next() {
			ts := it.Event().Timestamp
			if ts < prev {
				r.sorted = false
				return
			}
			prev = ts
		}
		r.sortErr = it.Err()
	})
	return r.sorted, r.sortErr
}

// Range yields the events with from ≤ timestamp < to, in file order, then
// (IndexEvent{}, err) if a read failed (see All). When the file's timestamps
// are non-decreasing (see Sorted) it binary-searches the first and last
// matching events and reads only those; otherwise it filters every event
// (real files can be unsorted: the production tracer writes its index lane
// and then its detail lane through the same writer). Iter is the same window
// as a pull iterator, with sequence numbers.
func (r *IndexFile) Range(from, to uint64) iter.Seq2[IndexEvent, error] {
	return r.Iter(from, to).All()
}

// Iter returns a pull iterator over the events with from ≤ timestamp < to
// (see Range).
func (r *IndexFile) Iter(from, to uint64) *IndexIter {
	it := &IndexIter{}
	r.rangeInto(it, from, to, iterBufSize)
	return it
}

// rangeInto points it at the events with from ≤ timestamp < to.
func (r *IndexFile) rangeInto(it *IndexIter, from, to uint64, bufSize int) {
	if to <= from {
		it.reset(r, 0, 0, 0)
		return
	}
	last := to - 1 // inclusive from here on
	sorted, err := r.Sorted()
	if err != nil {
		it.reset(r, 0, 0, 0)
		it.err = err
		return
	}
	if !sorted {
		it.reset(r, 0, r.count, bufSize)
		it.filter, it.from, it.to = true, from, last
		return
	}
	lo := r.search(from, false)
	hi := r.search(last, true)
	if hi < lo {
		hi = lo
	}
	it.reset(r, lo, hi, bufSize)
	it.err = r.searchErr(lo, hi)
}

// search returns the first seq whose timestamp is ≥ ts (or > ts when after).
// Read errors are reported by searchErr.
func (r *IndexFile) search(ts uint64, after bool) uint64 {
	n := sort.Search(int(min(r.count, 1<<62)), func(i int) bool {
		e, err := r.Event(uint64(i))
		if err != nil {
			return true
		}
		if after {
			return e.Timestamp > ts
		}
		return e.Timestamp >= ts
	})
	return uint64(n)
}

func (r *IndexFile) searchErr(lo, hi uint64) error {
	if lo < r.count {
		if _, err := r.Event(lo); err != nil {
			return err
		}
	}
	if hi > 0 && hi <= r.count {
		if _, err := r.Event(hi - 1); err != nil {
			return err
		}
	}
	return nil
}

// VerifyChecksum recomputes the CRC-32 (IEEE) of the events section and
// compares it with the footer's. It returns checked == false, and no error,
// when there is no footer or its checksum is 0 ("not computed", what the
// reference writer always stores).
func (r *IndexFile) VerifyChecksum() (checked bool, err error) {
	if !r.hasFooter || r.footer.Checksum == 0 {
		return false, nil
	}
	sum, err := crcOf(&r.src, r.eventsOff, int64(r.count)*IndexEventSize)
	if err != nil {
		return false, err
	}
	if sum != r.footer.Checksum {
		return true, newError(int64(r.hdr.FooterOffset)+4, ErrChecksum, "footer checksum %#08x, events section has %#08x", r.footer.Checksum, sum)
	}
	return true, nil
}

func crcOf(src *source, off, n int64) (uint32, error) {
	if src.data != nil {
		return crc32.ChecksumIEEE(src.data[off : off+n]), nil
	}
	buf := make([]byte, min(n, 256<<10))
	var sum uint32
	for n > 0 {
		k := min(n, int64(len(buf)))
		if err := src.readAt(buf[:k], off); err != nil {
			return 0, err
		}
		sum = crc32.Update(sum, crc32.IEEETable, buf[:k])
		off += k
		n -= k
	}
	return sum, nil
}
