package ctf

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"slices"
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
// Each Next picks the stream of the next event among the N streams that
// have one, by (time, rank), without branches on the times (CMOV): up to
// 8 streams (one per CPU, the common case) the least of their times, a
// tournament of 3 (up to 4 streams) or 7 compares; more, from a loser
// tree (a tournament tree whose nodes keep the loser of their match),
// whose matches on the path of the stream just advanced it replays,
// O(log N). It allocates nothing.
type Reader struct {
	// streams are the streams merged, in stream order; dirs, for a
	// Session's Reader, the trace folder of each (for errors)
	streams []*Stream
	dirs    []string
	// tgroup, for a Session's Reader, the trace group of each stream
	// (traceGroup)
	tgroup []int
	// chains holds, by stream, the group it is read in (group.go; the
	// group's first stream's leaf reads it), nil: read alone; nil when
	// there is no group
	chains []*chain
	// leaves are the streams (or groups) with an event, in rank order;
	// win the leaf of the event last returned, which the next Next
	// advances (step: how; stepNone: none). Up to 8 leaves, keys holds
	// the time of each (nsKey; after the leaves: done) and the next is
	// the first of the least (ties by rank: by leaf); more, tree is the
	// loser tree over them (loserTree)
	leaves []leaf
	keys   [8]uint64
	tree   []tkey
	win    int
	step   uint8
	err    error
	init   bool
	fills  bool // Next decodes fields (Scan: not)
	// serial: ByStream's order, the data streams one after another;
	// lead: by stream, whether it leads its group (planGroups)
	serial bool
	lead   []bool
}

// leaf is a stream (or group: chain, which s reads the current packet
// of) that the Reader merges: ord its index in Reader.streams; adv how
// Next advances it.
type leaf struct {
	s     *Stream
	chain *chain
	ord   int
	adv   uint8
}

// leaf.adv: s.Next, s.Scan, or Reader.chainNext (which Next or Scan the
// group's files).
const (
	advNext = iota
	advScan
	advChain
)

// tkey is a key of the loser tree: hi the time (its sign bit flipped: the
// order of int64 as uint64), lo the leaf (its rank among the leaves),
// compared as one 128-bit unsigned number; a leaf at its end is done.
type tkey struct{ hi, lo uint64 }

// done is the key of a leaf with no event left, after every other key.
var done = tkey{math.MaxUint64, math.MaxUint64}

// Reader.step: how Next picks the next leaf; stepNone: Next has no
// event to go on from (start: before the first, or after the last).
const (
	stepNone = iota
	step1    // the one leaf
	step4    // least4 of Reader.keys
	step8    // least8 of Reader.keys
	stepTree // replay of Reader.tree
)

// nsKey is the key of time ns (the high half of a tree's).
func nsKey(ns int64) uint64 { return uint64(ns) ^ 1<<63 }

// below reports whether key a orders before b.
func (a tkey) below(b tkey) bool {
	_, c := bits.Sub64(a.lo, b.lo, 0)
	_, c = bits.Sub64(a.hi, b.hi, c)
	return c != 0
}

// replay gives leaf w key k (lo: w, or done's) and replays its matches up
// the loser tree: each node on its path keeps the loser, the winner goes on. It
// returns the winner of the whole tree (its lo: the leaf; done.lo: none
// left). The leaves are nodes len(leaves)..2·len(leaves)-1 of the tree
// (node x's children are 2x and 2x+1), the nodes 1..len(leaves)-1 hold the
// losers; there are no branches on the keys (CMOV).
func (r *Reader) replay(w int, k tkey) (uint64, uint64) {
	t := r.tree
	hi, lo := k.hi, k.lo
	for x := uint(w+len(r.leaves)) >> 1; x > 0; x >>= 1 {
		n := &t[x]
		nh, nl := n.hi, n.lo
		_, c := bits.Sub64(nl, lo, 0)
		_, c = bits.Sub64(nh, hi, c)
		if c != 0 { // the node's key is the smaller: it goes on
			nh, hi = hi, nh
			nl, lo = lo, nl
		}
		n.hi, n.lo = nh, nl
	}
	return hi, lo
}

// loserTree builds r.tree over r.leaves (more than 8) at keys (by leaf)
// and makes r.win its winner.
func (r *Reader) loserTree(keys []tkey) {
	n := len(keys)
	if cap(r.tree) < n {
		r.tree = make([]tkey, n)
	}
	r.tree = r.tree[:n]
	// wins: the winner of each node's subtree (node n+w: leaf w's key)
	wins := make([]tkey, 2*n)
	copy(wins[n:], keys)
	for x := n - 1; x >= 1; x-- {
		a, b := wins[2*x], wins[2*x+1]
		if b.below(a) {
			a, b = b, a
		}
		wins[x], r.tree[x] = a, b
	}
	r.win = int(wins[1].lo)
}

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
	if r.step == stepNone {
		return r.start()
	}
	l := &r.leaves[r.win]
	s := l.s
	var ok bool
	switch l.adv {
	case advNext:
		ok = s.Next()
	case advScan:
		ok = s.Scan()
	default:
		ok = r.chainNext(l, false)
		s = l.s
	}
	if !ok {
		return r.ended()
	}
	// (what Next keeps across the calls above it reads again: in
	// registers, r and s only)
	k := nsKey(s.held(s.pkt.Class.NS(s.ev.Cycles))) // s.ev.NS()
	if r.step == step4 {
		r.keys[r.win&7] = k
		r.win = least4(&r.keys)
		return true
	}
	r.follow(k)
	return true
}

// follow is Next, after a step other than step4, with k the key of the
// time of leaf r.win's new event.
func (r *Reader) follow(k uint64) {
	switch r.step {
	case step8:
		r.keys[r.win&7] = k
		r.win = least8(&r.keys)
	case stepTree:
		_, lo := r.replay(r.win, tkey{k, uint64(r.win)})
		r.win = int(lo)
	}
}

// least4 returns the index of the first of the least of k[:4]: the
// winner of the matches 0–1, 2–3 and of their winners, a tie won by the
// first.
func least4(k *[8]uint64) int {
	a, i := k[0], 0
	if k[1] < a {
		a, i = k[1], 1
	}
	b, j := k[2], 2
	if k[3] < b {
		b, j = k[3], 3
	}
	if b < a {
		i = j
	}
	return i
}

// least8 is least4 over k[:8].
func least8(k *[8]uint64) int {
	a, i := k[0], 0
	if k[1] < a {
		a, i = k[1], 1
	}
	b, j := k[2], 2
	if k[3] < b {
		b, j = k[3], 3
	}
	if b < a {
		a, i = b, j
	}
	c, m := k[4], 4
	if k[5] < c {
		c, m = k[5], 5
	}
	d, n := k[6], 6
	if k[7] < d {
		d, n = k[7], 7
	}
	if d < c {
		c, m = d, n
	}
	if c < a {
		i = m
	}
	return i
}

// pick makes r.win the leaf of the least key, after the leaves (up to 8)
// changed, and r.step the way Next picks it: one step for their number.
func (r *Reader) pick() {
	switch n := len(r.leaves); {
	case n == 1:
		r.step = step1
	case n <= 4:
		r.step = step4
	case n <= 8:
		r.step = step8
	}
	switch r.step {
	case step1:
		r.win = 0
	case step4:
		r.win = least4(&r.keys)
	case step8:
		r.win = least8(&r.keys)
	}
}

// start is Next before the first event (or after the last: false).
func (r *Reader) start() bool {
	if r.err != nil || r.init {
		return false
	}
	r.init = true
	chains, lead, rank, err := r.planGroups()
	if err != nil {
		r.err = err
		return false
	}
	r.chains, r.lead = chains, lead
	if r.serial {
		return r.serialStart(0)
	}
	type first struct {
		l  leaf
		rk int
		ns int64
	}
	var fs []first
	for i := range r.streams {
		l, ns, ok := r.firstLeaf(i)
		if ok {
			rk := i
			if rank != nil {
				rk = rank[i]
			}
			fs = append(fs, first{l, rk, ns})
		} else if r.err != nil {
			return false
		}
	}
	if len(fs) == 0 {
		return false
	}
	// the leaves in rank order: a key's lo, its leaf, breaks ties of time
	// by rank (the ranks of the leaves differ)
	slices.SortStableFunc(fs, func(a, b first) int { return cmp.Compare(a.rk, b.rk) })
	r.leaves = make([]leaf, len(fs))
	for k, f := range fs {
		r.leaves[k] = f.l
	}
	if len(fs) <= len(r.keys) {
		for k := range r.keys {
			r.keys[k] = done.hi
			if k < len(fs) {
				r.keys[k] = nsKey(fs[k].ns)
			}
		}
		r.pick()
		return true
	}
	r.step = stepTree
	keys := make([]tkey, len(fs))
	for k, f := range fs {
		keys[k] = tkey{nsKey(f.ns), uint64(k)}
	}
	r.loserTree(keys)
	return true
}

// ended is Next when leaf r.win's stream (or group) has no event left,
// or failed.
func (r *Reader) ended() bool {
	l := &r.leaves[r.win]
	if r.err == nil && l.s.err != nil {
		r.err = r.streamErr(l.ord, l.s)
	}
	if r.err != nil {
		r.step = stepNone
		return false
	}
	if r.serial {
		return r.serialStart(l.ord + 1)
	}
	if r.step != stepTree {
		// the leaf leaves (the others keep their order, of rank; a real
		// time's key ties with done's: done must not come before it)
		w := r.win
		r.leaves = slices.Delete(r.leaves, w, w+1)
		copy(r.keys[w:], r.keys[w+1:])
		r.keys[len(r.keys)-1] = done.hi
		if len(r.leaves) == 0 {
			r.step = stepNone
			return false
		}
		r.pick()
		return true
	}
	_, lo := r.replay(r.win, done)
	if lo == done.lo {
		r.step = stepNone
		return false
	}
	r.win = int(lo)
	return true
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
		l := &r.leaves[r.win]
		if !r.serial || l.chain != nil {
			continue
		}
		s := l.s
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

// serialStart makes the Reader's one leaf the first event of the first
// data stream from stream i on that has one (ByStream's order), reporting
// whether there is one (r.err set when a stream failed).
func (r *Reader) serialStart(i int) bool {
	r.step = stepNone
	for ; i < len(r.streams); i++ {
		if l, _, ok := r.firstLeaf(i); ok {
			r.leaves = append(r.leaves[:0], l)
			r.win, r.step = 0, step1
			return true
		}
		if r.err != nil {
			return false
		}
	}
	return false
}

// firstLeaf returns the leaf of stream i — of its group, when it leads
// one — at its first event, and that event's time (Stream.held); ok is
// false when it has none, is a group's file that does not lead it, or
// failed (r.err set).
func (r *Reader) firstLeaf(i int) (l leaf, ns int64, ok bool) {
	l.ord = i
	if !r.fills {
		l.adv = advScan
	}
	if r.chains != nil && r.chains[i] != nil {
		l.chain, l.adv = r.chains[i], advChain
		if !r.lead[i] || !r.chainNext(&l, true) {
			return l, 0, false
		}
	} else {
		s := r.streams[i]
		s.Reset()
		if !r.advance(s) {
			if s.err != nil {
				r.err = r.streamErr(i, s)
			}
			return l, 0, false
		}
		l.s = s
	}
	return l, l.s.held(l.s.ev.NS()), true
}

// chainNext advances l, which reads group l.chain, to the group's
// next event (first: its first): in the current packet, else in the
// group's next packet that holds one, which may be in another of its
// files (each packet is read alone: Stream.resume). A stream's error
// stops the Reader (r.err).
func (r *Reader) chainNext(l *leaf, first bool) bool {
	c := l.chain
	if !first {
		s := l.s
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
		s := r.enterSeg(l.s, sg)
		l.s = s
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
func (r *Reader) Event() *Event { return &r.leaves[r.win].s.ev }

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
