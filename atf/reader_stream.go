package atf

import (
	"encoding/binary"
	"fmt"
	"io"
)

// IndexReader reads an index file sequentially from an io.Reader (a pipe, a
// network stream, a file being copied), with the same validation and crash
// recovery as OpenIndex. Next does not allocate; the stream reads through one
// 64 KiB buffer.
type IndexReader struct {
	r         io.Reader
	hdr       IndexHeader
	buf       []byte
	start     int
	end       int
	eof       bool
	off       int64 // file offset of buf[start]
	expect    uint64
	finalized bool // the header says where the footer is
	maxEvents uint64
	seq       uint64
	cur       int // offset in buf of the current event, -1 when there is none
	fastEnd   int // Next's fast path takes events while start < fastEnd
	syncStart int // seq and off are as of this start; the fast path leaves them behind
	footer    IndexFooter
	hasFooter bool
	discarded int64
	// after a finalized stream's footer: how many bytes followed it, and
	// whether it is a live footer a kill left torn (tornLiveFooter)
	after     int64
	tornRange bool
	tornP     Problem
	first     uint64 // the first event's timestamp (take), and the last's (finish)
	last      uint64
	done      bool
	err       error
}

// NewIndexReader reads and validates the 64-byte header (checks in the order
// of OpenIndex) and skips to the first event.
func NewIndexReader(r io.Reader, opts ...ReaderOption) (*IndexReader, error) {
	o, err := buildReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	s := &IndexReader{r: r, buf: make([]byte, 64<<10), maxEvents: o.limits.MaxIndexEvents, cur: -1}
	if err := s.fill(HeaderSize); err != nil {
		return nil, err
	}
	if n := s.end - s.start; n < HeaderSize {
		return nil, newError(int64(n), ErrTruncated, "file too small: %d bytes, the index header needs %d", n, HeaderSize)
	}
	b := s.buf[:HeaderSize]
	if string(b[:4]) != IndexMagic {
		return nil, newError(0, ErrBadMagic, "magic %q, want %q", b[:4], IndexMagic)
	}
	s.hdr = parseIndexHeader(b)
	h := &s.hdr
	switch {
	case h.Version != formatVersion:
		return nil, newError(5, ErrUnsupportedVersion, "version %d, want %d", h.Version, formatVersion)
	case h.Endian != endianLittle:
		return nil, newError(4, ErrUnsupportedEndian, "endian byte %d, want 1 (little-endian)", h.Endian)
	case h.EventSize != IndexEventSize:
		return nil, newError(24, ErrCorrupt, "event_size %d, want %d", h.EventSize, IndexEventSize)
	case h.EventsOffset < HeaderSize:
		return nil, newError(32, ErrCorrupt, "events_offset %d overlaps the %d-byte header", h.EventsOffset, HeaderSize)
	}
	s.start += HeaderSize
	s.off = HeaderSize
	s.syncStart = s.start
	for skip := h.EventsOffset - HeaderSize; skip > 0; {
		if err := s.fill(1); err != nil {
			return nil, err
		}
		n := uint64(s.end - s.start)
		if n == 0 {
			return nil, newError(32, ErrCorrupt, "events_offset %d is beyond the end of the stream at %d", h.EventsOffset, s.off)
		}
		n = min(n, skip)
		s.start += int(n)
		s.off += int64(n)
		s.syncStart = s.start
		skip -= n
	}
	if fo := h.FooterOffset; fo > h.EventsOffset {
		if (fo-h.EventsOffset)%IndexEventSize != 0 {
			return nil, newError(40, ErrCorrupt, "footer_offset %d is not events_offset %d plus a whole number of events", fo, h.EventsOffset)
		}
		s.finalized = true
		s.expect = (fo - h.EventsOffset) / IndexEventSize
	}
	return s, nil
}

// fill reads until at least n bytes are buffered or the stream ends.
func (s *IndexReader) fill(n int) error {
	for idle := 0; s.end-s.start < n && !s.eof; {
		// Callers are in step (see sync), so moving start moves syncStart.
		if s.start > 0 && s.start == s.end {
			s.start, s.end, s.syncStart = 0, 0, 0
		}
		if len(s.buf)-s.end < n {
			copy(s.buf, s.buf[s.start:s.end])
			s.end -= s.start
			s.start, s.syncStart = 0, 0
		}
		m, err := s.r.Read(s.buf[s.end:])
		s.end += m
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.err = err
			return err
		} else if m == 0 {
			if idle++; idle > 100 {
				s.err = io.ErrNoProgress
				return s.err
			}
		}
	}
	return nil
}

// Header returns the header as stored.
func (s *IndexReader) Header() IndexHeader { return s.hdr }

// Next advances to the next event.
func (s *IndexReader) Next() bool {
	if s.start < s.fastEnd {
		s.cur = s.start
		s.start += IndexEventSize
		return true
	}
	return s.next()
}

// sync brings seq and off up to date with what the fast path consumed.
func (s *IndexReader) sync() {
	n := s.start - s.syncStart
	s.seq += uint64(n / IndexEventSize)
	s.off += int64(n)
	s.syncStart = s.start
}

// next is Next with every check: footer, torn tail, limit, refills. Both
// modes keep 64 bytes of look-ahead, so a footer is recognised where the
// stream ends, as OpenIndex does: after the events of a placeholder header,
// and when a finalized header's footer_offset lies past the end. Whole
// events that arrived before a read error are delivered before Next reports
// it.
func (s *IndexReader) next() bool {
	s.sync()
	s.cur, s.fastEnd = -1, 0
	if s.done {
		return false
	}
	if s.finalized && s.seq == s.expect {
		if s.err != nil {
			return false
		}
		return s.finish()
	}
	if s.err == nil {
		s.fill(IndexEventSize + FooterSize) // a failure is in s.err
	}
	avail := s.end - s.start
	if s.err != nil {
		if avail >= IndexEventSize && s.seq < s.maxEvents {
			return s.take()
		}
		return false
	}
	if avail < IndexEventSize+FooterSize && s.eof {
		total := uint64(s.off) + uint64(avail)
		// The last 64 bytes, by OpenIndex's rules (namesFooter,
		// boundsEvents): a valid footer, a damaged one, or two events.
		if h := &s.hdr; avail == FooterSize && !h.namesFooter(total) {
			b := s.buf[s.start:s.end]
			if s.footerFits(b, s.seq) {
				s.done = true
				return false
			}
			if !h.boundsEvents(total) && damagedFooter(b) {
				return s.torn() // a damaged footer, not two events
			}
		}
		if avail < IndexEventSize {
			return s.torn()
		}
	}
	if s.seq >= s.maxEvents {
		s.err = newError(s.off, ErrLimit, "more than %d index events", s.maxEvents)
		return false
	}
	return s.take()
}

// take makes the next buffered event current and counts how many after it
// Next may take on its fast path: whole events already buffered short of the
// 64 bytes of look-ahead a footer needs, of the header's count (finalized)
// and of the event limit.
func (s *IndexReader) take() bool {
	if s.seq == 0 {
		s.first = binary.LittleEndian.Uint64(s.buf[s.start:])
	}
	s.cur = s.start
	s.start += IndexEventSize
	s.off += IndexEventSize
	s.seq++
	s.syncStart = s.start
	avail := uint64(s.end - s.start)
	var k uint64
	if avail >= IndexEventSize+FooterSize {
		k = (avail - FooterSize) / IndexEventSize
	}
	if s.finalized {
		k = min(k, s.expect-s.seq)
	}
	if s.seq < s.maxEvents {
		k = min(k, s.maxEvents-s.seq)
	} else {
		k = 0
	}
	s.fastEnd = s.start + int(k)*IndexEventSize
	return true
}

// footerFits accepts b as the footer of a file holding count events.
func (s *IndexReader) footerFits(b []byte, count uint64) bool {
	if len(b) < FooterSize || string(b[:4]) != IndexFooterMagic {
		return false
	}
	f := parseIndexFooter(b)
	if f.EventCount != count || f.BytesWritten != count*IndexEventSize {
		return false
	}
	s.footer, s.hasFooter = f, true
	return true
}

// finish reads the footer of a finalized file, and what follows it.
func (s *IndexReader) finish() bool {
	s.done = true
	if s.start >= IndexEventSize {
		// The last event, still where take or the fast path left it: no
		// read since (s.seq == s.expect > 0).
		s.last = binary.LittleEndian.Uint64(s.buf[s.start-IndexEventSize:])
	}
	if s.fill(FooterSize) != nil {
		return false
	}
	if s.end-s.start >= FooterSize {
		b := s.buf[s.start : s.start+FooterSize]
		if s.footerFits(b, s.expect) {
			s.afterFooter()
			return false
		}
		if string(b[:4]) == IndexFooterMagic {
			f := parseIndexFooter(b)
			if f.EventCount != s.expect {
				s.err = newError(s.off+8, ErrCorrupt, "footer event_count %d disagrees with footer_offset %d (room for %d events)", f.EventCount, s.hdr.FooterOffset, s.expect)
			} else {
				s.err = newError(s.off+32, ErrCorrupt, "footer bytes_written %d, want %d", f.BytesWritten, s.expect*IndexEventSize)
			}
			return false
		}
	}
	s.discarded = s.drain()
	return false
}

// afterFooter reads what follows a finalized stream's footer, as OpenIndex
// reads the bytes after a footer: counted as ignored, and, when an event's
// worth or more follows, looked at for a live footer a kill left torn.
func (s *IndexReader) afterFooter() {
	if s.fill(FooterSize+IndexEventSize) != nil {
		return
	}
	if s.end-s.start >= FooterSize+IndexEventSize {
		tail := s.buf[s.start+40 : s.start+40+tornTailSize]
		s.tornP, s.tornRange = tornLiveFooter(&s.footer, s.off, s.seq, tail, s.first, s.last)
	}
	s.start += FooterSize // s.off stays at the footer (Problems)
	s.syncStart = s.start
	s.after = s.drain()
}

// torn ends a stream cut inside an event.
func (s *IndexReader) torn() bool {
	s.done = true
	s.discarded = s.drain()
	return false
}

// drain counts (and drops) what is left of the stream.
func (s *IndexReader) drain() int64 {
	n := int64(s.end - s.start)
	s.start = s.end
	s.syncStart = s.start
	if !s.eof {
		m, err := io.Copy(io.Discard, s.r)
		n += m
		if err != nil {
			s.err = err
		}
	}
	return n
}

// Event is the current event (the zero IndexEvent before the first call to
// Next and after Next has returned false). It is decoded from the stream's
// buffer on each call.
func (s *IndexReader) Event() IndexEvent {
	if s.cur < 0 {
		return IndexEvent{}
	}
	return loadIndexEvent(s.buf[s.cur:])
}

// Seq is the current event's sequence number.
func (s *IndexReader) Seq() uint64 { return s.seq + uint64((s.start-s.syncStart)/IndexEventSize) - 1 }

// Err is the read error that ended the stream, if any.
func (s *IndexReader) Err() error { return s.err }

// Footer returns the footer once the stream has ended, and whether it was
// valid.
func (s *IndexReader) Footer() (IndexFooter, bool) { return s.footer, s.hasFooter }

// Recovered reports, once the stream has ended, that it had no valid footer.
func (s *IndexReader) Recovered() bool { return s.done && !s.hasFooter }

// Discarded is the number of bytes after the last complete event of a
// recovered stream.
func (s *IndexReader) Discarded() int64 { return s.discarded }

// Problems lists, once the stream has ended (Next returned false), what it
// recovered from or found inconsistent, as IndexFile.Problems does: no valid
// footer, the bytes dropped after the last complete event, the bytes after a
// finalized stream's footer (read to the end of the stream, and ignored), a
// mapped writer's live footer whose time range a kill left torn (the events
// then give the time range the header is compared with), header fields that
// disagree with the stream (a footer_offset before the events or past the
// end, event_count, the time range). Before the end it returns nil.
func (s *IndexReader) Problems() []Problem {
	if !s.done {
		return nil
	}
	h := &s.hdr
	end := s.off
	var ps []Problem
	if !s.hasFooter {
		n := s.seq
		ps = append(ps, Problem{Kind: ProblemNoFooter, Offset: end, Events: n,
			Msg: fmt.Sprintf("no valid footer (the writer did not finish): %d events recovered from the stream", n)})
		if s.discarded > 0 {
			ps = append(ps, Problem{Kind: ProblemDiscarded, Offset: end, Bytes: s.discarded,
				Msg: fmt.Sprintf("%d bytes dropped after the last complete event: a torn event or a damaged footer", s.discarded)})
		}
	}
	if s.after > 0 {
		ps = append(ps, afterFooterProblem(end, s.after))
	}
	if s.tornRange {
		ps = append(ps, s.tornP)
	}
	fo, eo := h.FooterOffset, h.EventsOffset
	switch {
	case fo < eo:
		ps = append(ps, problem(ProblemHeaderMismatch, 40, "footer_offset %d lies before events_offset %d", fo, eo))
	case s.finalized && s.seq < s.expect && s.hasFooter && fo <= uint64(end)+FooterSize:
		ps = append(ps, problem(ProblemHeaderMismatch, 40, "footer_offset %d disagrees with the footer found at %d", fo, end))
	case s.finalized && s.seq < s.expect:
		ps = append(ps, problem(ProblemHeaderMismatch, 40, "footer_offset %d is past the end of the stream (%d events)", fo, s.seq))
	}
	switch {
	case fo == eo && h.EventCount != 0:
		ps = append(ps, problem(ProblemHeaderMismatch, 28, "event_count %d in a header that was never finalized (%d events in the stream)", h.EventCount, s.seq))
	case fo == eo && s.hasFooter && s.seq > 0:
		ps = append(ps, problem(ProblemHeaderMismatch, 0, "the footer was written but the header not patched (the writer stopped in between)"))
	case fo > eo && s.hasFooter:
		if uint64(h.EventCount) != s.seq {
			ps = append(ps, problem(ProblemHeaderMismatch, 28, "event_count %d, the stream holds %d events", h.EventCount, s.seq))
		}
		first, last, says := s.footer.TimeStartNs, s.footer.TimeEndNs, "the footer says"
		if s.tornRange {
			first, last, says = s.first, s.last, "the events say"
		}
		if h.TimeStartNs != first || h.TimeEndNs != last {
			ps = append(ps, problem(ProblemHeaderMismatch, 48, "time range %d..%d, %s %d..%d", h.TimeStartNs, h.TimeEndNs, says, first, last))
		}
	}
	return ps
}
