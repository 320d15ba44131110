package ctf

import (
	"fmt"
	"iter"
	"math"
)

// Reader merges the event records of all the streams of a trace (or of a
// Session's traces) by time, as babeltrace2's muxer does: the next event is
// the one with the smallest time in nanoseconds from its clock's origin;
// equal times in babeltrace2 2.1's muxer order: by trace (a Session's
// traces in their order), then data stream class id, then stream id (the
// packet header's stream_instance_id; for the streams without one,
// numbers from 0 in the order of their first file's path, as src.ctf.fs
// numbers them), then the first file's path (rankGroups). Events are views
// valid until the next Next. A stream that fails stops the Reader with its
// error (Err); a cut last packet ends its stream with a Recovery note.
//
// The streams with a current event form a binary min-heap keyed by (time,
// rank): each Next costs O(log N) for N streams and allocates
// nothing.
type Reader struct {
	// streams are the streams merged, in stream order; dirs, for a
	// Session's Reader, the trace folder of each (for errors)
	streams []*Stream
	dirs    []string
	// tgroup, for a Session's Reader, the trace group of each stream
	// (traceGroup)
	tgroup []int
	// chains holds, by stream, the group it is read in (group.go; the
	// group's first stream's head reads it), nil: read alone; nil when
	// there is no group
	chains []*chain
	heap   []head
	cur    bool // heap[0] is the event last returned
	err    error
	init   bool
	fills  bool // Next decodes fields (Scan: not)
	// serial: ByStream's order, the data streams one after another;
	// lead: by stream, whether it leads its group (planGroups)
	serial bool
	lead   []bool
}

// head is a stream (or group: chains) in the heap: ord its index in
// Reader.streams, rk its rank for equal times (rankGroups; ord when there
// is no ranking: one stream).
// (int32: 2³¹ streams would not fit in memory; 24 bytes a head)
type head struct {
	ns      int64
	rk, ord int32
	s       *Stream
}

func (a *head) less(b *head) bool { return a.ns < b.ns || a.ns == b.ns && a.rk < b.rk }

// NewReader returns a Reader over the trace's streams from their first
// packets.
func (t *Trace) NewReader() *Reader {
	return &Reader{streams: t.Streams, fills: true}
}

// NewScanner returns a Reader whose streams advance with Stream.Scan: every
// event record is checked as fully as by Next, but its fields are decoded
// only on Event.Decode.
func (t *Trace) NewScanner() *Reader {
	return &Reader{streams: t.Streams}
}

func (r *Reader) advance(s *Stream) bool {
	if r.fills {
		return s.Next()
	}
	return s.Scan()
}

// Next advances to the next event in time order.
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	if !r.init {
		r.init = true
		r.heap = r.heap[:0]
		chains, lead, rank, err := r.planGroups()
		if err != nil {
			r.err = err
			return false
		}
		r.chains, r.lead = chains, lead
		if r.serial {
			r.cur = r.serialStart(0)
			return r.cur
		}
		for i := range r.streams {
			if h, ok := r.firstHead(i, rank); ok {
				r.heap = append(r.heap, h)
				r.up(len(r.heap) - 1)
			} else if r.err != nil {
				return false
			}
		}
	} else if r.cur {
		h := &r.heap[0]
		var ok bool
		if r.chains == nil || r.chains[h.ord] == nil {
			ok = r.advance(h.s)
		} else {
			ok = r.chainNext(h, false)
		}
		if ok {
			h.ns = h.s.held(h.s.ev.NS())
		} else {
			if r.err == nil && h.s.err != nil {
				r.err = r.streamErr(int(h.ord), h.s)
			}
			if r.err != nil {
				return false
			}
			if r.serial {
				r.cur = r.serialStart(int(h.ord) + 1)
				return r.cur
			}
			last := len(r.heap) - 1
			r.heap[0] = r.heap[last]
			r.heap = r.heap[:last]
		}
		r.down(0)
	}
	r.cur = len(r.heap) > 0
	return r.cur
}

// ByStream makes the Reader read its data streams one after another
// instead of merging them by time: each stream's event records in its
// order, the streams in stream order, the files of one data stream (same
// data stream class and stream_instance_id, which the Reader reads as one
// stream, as babeltrace2 does) together at their first file's place, in
// the group's packet order. Every check of Next
// (or, for a Scanner, Scan) is made, and a group's tracer gaps
// (Stream.Losses) count across its files as when merged. It must be
// called before the first Next; it returns r.
func (r *Reader) ByStream() *Reader {
	r.serial = true
	return r
}

// Count reads the Reader's remaining event records, with every check of
// Next (or Scan, for a Scanner), and returns how many it read; Err says
// what stopped it. Read ByStream, a stream read alone (no other file of
// its data stream) is read in a loop of its own, without the Reader's
// cost per record (tracecat validate counts so).
func (r *Reader) Count() int64 {
	var n int64
	for r.Next() {
		n++
		h := &r.heap[0]
		if !r.serial || r.chains != nil && r.chains[h.ord] != nil {
			continue
		}
		s := h.s
		if r.fills {
			for s.Next() {
				n++
			}
		} else {
			for s.Scan() {
				n++
			}
		}
		// Next steps to the next stream (or reports s's error): s's
		// Next or Scan keeps returning false at its end
	}
	return n
}

// ReadPackets reads the header and context of every packet of the
// Reader's data streams — the streams one after another, a group's
// packets in the group's order across its files, its equal packets once,
// as Next reads them — but none of their event records, and returns how
// many packets it read; Err says what stopped it: a packet whose header or
// context fails (what Next would stop at there; an event record that
// fails, which only reading the records finds, does not stop it). Each
// Stream's Losses then list the tracer's gaps as reading every record
// lists them, across a group's files too (Loss.From), for a fraction of
// the cost (tracecat validate finds the gaps across the rotation chunks of
// a session so). It is called instead of Next: after Next (or a first
// ReadPackets) it reads nothing and returns 0.
func (r *Reader) ReadPackets() int64 {
	if r.init || r.err != nil {
		return 0
	}
	r.init = true
	chains, lead, _, err := r.planGroups()
	if err != nil {
		r.err = err
		return 0
	}
	r.chains, r.lead = chains, lead
	var n int64
	for i, s := range r.streams {
		if chains == nil || chains[i] == nil {
			s.Reset()
			s.hdrOnly = true
			for s.next < s.size && s.nextPacket() {
				n++
			}
			s.hdrOnly = false
			s.release()
			if s.err != nil {
				r.err = r.streamErr(i, s)
				return n
			}
			continue
		}
		if !lead[i] {
			continue
		}
		var prev *Stream
		for _, sg := range chains[i].segs {
			s := r.enterSeg(prev, sg)
			prev = s
			s.hdrOnly = true
			ok := s.nextPacket()
			s.hdrOnly = false
			if ok {
				n++
			} else if s.err != nil {
				r.err = r.streamErr(sg.st, s)
				return n
			}
		}
		if prev != nil {
			prev.release()
		}
	}
	return n
}

// serialStart makes the heap hold the first event of the first data
// stream from stream i on that has one (ByStream's order), reporting
// whether there is one (r.err set when a stream failed).
func (r *Reader) serialStart(i int) bool {
	r.heap = r.heap[:0]
	for ; i < len(r.streams); i++ {
		if h, ok := r.firstHead(i, nil); ok {
			r.heap = append(r.heap, h)
			return true
		}
		if r.err != nil {
			return false
		}
	}
	return false
}

// firstHead returns the head of stream i — of its group, when it leads
// one — at its first event, ranked by rank (nil: by i); ok is false when
// it has none, is a group's file that does not lead it, or failed (r.err
// set).
func (r *Reader) firstHead(i int, rank []int) (h head, ok bool) {
	h = head{rk: int32(i), ord: int32(i)}
	if rank != nil {
		h.rk = int32(rank[i])
	}
	if r.chains != nil && r.chains[i] != nil {
		if !r.lead[i] || !r.chainNext(&h, true) {
			return h, false
		}
	} else {
		s := r.streams[i]
		s.Reset()
		if !r.advance(s) {
			if s.err != nil {
				r.err = r.streamErr(i, s)
			}
			return h, false
		}
		h.s = s
	}
	h.ns = h.s.held(h.s.ev.NS())
	return h, true
}

func (r *Reader) up(i int) {
	h := r.heap
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(&h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (r *Reader) down(i int) {
	h := r.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if l+1 < n && h[l+1].less(&h[l]) {
			m = l + 1
		}
		if !h[m].less(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// chainNext advances h, which reads group r.chains[h.ord], to the group's
// next event (first: its first): in the current packet, else in the
// group's next packet that holds one, which may be in another of its
// files (each packet is read alone: Stream.resume). A stream's error
// stops the Reader (r.err).
func (r *Reader) chainNext(h *head, first bool) bool {
	c := r.chains[h.ord]
	if !first {
		s := h.s
		if r.advance(s) {
			return true
		}
		if s.err != nil {
			r.err = r.streamErr(c.segs[c.i].st, s)
			return false
		}
		c.i++
	}
	for ; c.i < len(c.segs); c.i++ {
		sg := c.segs[c.i]
		s := r.enterSeg(h.s, sg)
		h.s = s
		if r.advance(s) {
			return true
		}
		if s.err != nil {
			r.err = r.streamErr(sg.st, s)
			return false
		}
	}
	return false
}

// enterSeg makes the group's stream of packet sg read that packet alone,
// going on from prev, the stream that read the group's packet before it
// (nil: none): a group is one stream to babeltrace2, so the tracer's gaps
// and the hold count from there (Stream.follow). When the group moves to
// another file, the one it leaves gives back its buffer and closes (a
// group of many files, as LTTng's tracefile rotation makes, keeps one
// open).
func (r *Reader) enterSeg(prev *Stream, sg seg) *Stream {
	s := r.streams[sg.st]
	if prev != nil && prev != s {
		prev.release()
	}
	s.resume(sg.idx, sg.off)
	if prev != nil {
		s.follow(prev)
	}
	return s
}

// Event returns the current event (valid until the next Next).
func (r *Reader) Event() *Event { return &r.heap[0].s.ev }

// Err returns the error that stopped the Reader, or nil: a stream's error
// (a *FormatError whose offset is in that data stream file) wrapped with
// the stream's file name.
func (r *Reader) Err() error { return r.err }

// streamErr is the error of stream s, the i-th, prefixed with its file
// name (after its trace's folder in a Session): the offset of a
// *FormatError is in that file, one of the trace's many.
func (r *Reader) streamErr(i int, s *Stream) error {
	if i < len(r.dirs) {
		return fmt.Errorf("%s/%s: %w", r.dirs[i], s.Name, s.err)
	}
	return fmt.Errorf("%s: %w", s.Name, s.err)
}

// All iterates over the merged events.
func (r *Reader) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for r.Next() {
			if !yield(r.Event(), nil) {
				return
			}
		}
		if r.err != nil {
			yield(nil, r.err)
		}
	}
}

// LossTotals sums the gaps the tracer reported (Stream.Losses) in a
// Reader's streams.
type LossTotals struct {
	// Events is the event records the tracer discarded, Packets the
	// packets it lost (both saturate at the largest uint64).
	Events, Packets uint64
	// EventGaps and PacketGaps count the gaps that reported them (babeltrace2
	// prints one warning per gap), Streams the streams with a gap.
	EventGaps, PacketGaps, Streams int
}

// Losses totals the gaps the tracer reported in the streams the Reader
// merges, as far as it has read them (after Next returned false: all of
// them, up to an error).
func (r *Reader) Losses() LossTotals {
	var t LossTotals
	for _, s := range r.streams {
		if len(s.losses) > 0 {
			t.Streams++
		}
		for _, l := range s.losses {
			if l.Events > 0 {
				t.EventGaps++
				t.Events = satAdd(t.Events, l.Events)
			}
			if l.Packets > 0 {
				t.PacketGaps++
				t.Packets = satAdd(t.Packets, l.Packets)
			}
		}
	}
	return t
}

// satAdd is a+b, or the largest uint64 when that overflows.
func satAdd(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxUint64
}
