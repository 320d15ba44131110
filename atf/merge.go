package atf

import (
	"math"
	"math/bits"
)

// Merger is the cross-thread view of a session: a k-way merge of the threads'
// index files by (timestamp, thread position, sequence number), the order of
// the reference readers' min-heap — equal timestamps come out in thread
// order.
//
// Like the reference, it merges rather than sorts: each thread's events come
// out in file order, so when a thread's file is not timestamp-sorted (the
// production tracer writes its index lane, then its detail lane) the merged
// stream is not sorted either; it equals a sort only when every thread is
// sorted. Event and All give the same MergedEvent values: the event, its
// thread's position and its sequence number within the thread.
//
// The merge is a loser tree (a tournament tree that keeps each match's loser):
// a step replays only the matches on the path of the thread that advanced,
// log₂(threads) branch-free comparisons, against the two branching
// comparisons per level a binary heap pays. While timestamps fit in
// 64 − log₂(threads) bits (nanosecond clocks do, for centuries) a key is one
// word, timestamp and position packed; a larger timestamp switches the merge
// to two-word keys, with the same order. Next does not allocate. Files in memory (OpenIndexBytes, or mapped with WithMmap)
// are merged straight from their bytes; each thread of a file behind an
// io.ReaderAt reads blocks of 64 KiB of events through its own buffer.
type Merger struct {
	its []IndexIter
	// packed is the tree while every timestamp seen is below limit: each
	// key is ts<<shift | leaf in one word (math.MaxUint64 for a finished
	// thread), so a match is a compare and two conditional moves. The
	// first timestamp at or above limit switches the merge to tree, whose
	// keys are (ts, pos) pairs, for good.
	packed  []uint64
	tree    []mergeKey // tree[0]: the winner; tree[n], 1 ≤ n < k: the loser of match n
	mask    uint32     // k-1, k = len(its) rounded up to a power of two (leaves)
	shift   uint       // log₂ k
	limit   uint64     // timestamps below it pack: math.MaxUint64 >> shift
	wide    bool       // tree is in use, not packed
	started bool
	top     int32 // leaf (thread position) of the current event, -1 for none
	err     error
}

const mergeBufSize = 64 << 10

// mergeKey is a leaf's key in the wide tree: its thread's current timestamp
// and, as the tie breaker, the leaf number (= thread position) while the
// thread has events, k + leaf once it has none — so a finished thread loses
// every match, even against an event stamped math.MaxUint64, and the leaf is
// pos&mask either way.
type mergeKey struct {
	ts  uint64
	pos uint32
}

func (a mergeKey) less(b mergeKey) bool {
	return a.ts < b.ts || (a.ts == b.ts && a.pos < b.pos)
}

// NewMerger merges every event of files (nil entries are skipped; a thread's
// position is its index in files).
func NewMerger(files []*IndexFile) *Merger {
	m := &Merger{its: make([]IndexIter, len(files))}
	for i, r := range files {
		if r != nil {
			m.its[i].reset(r, 0, r.count, mergeBufSize)
		}
	}
	m.init()
	return m
}

// NewMergerRange merges the events with from ≤ timestamp < to (each thread
// binary-searched when sorted, filtered when not; see IndexFile.Range).
func NewMergerRange(files []*IndexFile, from, to uint64) *Merger {
	m := &Merger{its: make([]IndexIter, len(files))}
	for i, r := range files {
		if r != nil {
			r.rangeInto(&m.its[i], from, to, mergeBufSize)
		}
	}
	m.init()
	return m
}

// init positions every thread at its first event and plays the tournament.
func (m *Merger) init() {
	m.top = -1 // no current event
	k := 1
	for k < len(m.its) {
		k <<= 1
		m.shift++
	}
	m.mask = uint32(k - 1)
	m.limit = math.MaxUint64 >> m.shift
	for i := range m.its {
		it := &m.its[i]
		if it.r == nil {
			continue
		}
		if it.err != nil {
			m.err = it.err
			continue
		}
		if it.Next() {
			if it.ts() >= m.limit {
				m.wide = true
			}
		} else if it.err != nil {
			m.err = it.err
		}
	}
	m.build()
}

// build plays the whole tournament from the leaves' current events, into
// the packed tree or, when m.wide, the wide one.
func (m *Merger) build() {
	k := int(m.mask) + 1
	if !m.wide {
		var buf [64]uint64
		win := buf[:] // win[k+leaf]: the leaf's key; win[n]: the winner of match n
		if 2*k > len(buf) {
			win = make([]uint64, 2*k)
		}
		for leaf := range k {
			win[k+leaf] = math.MaxUint64
			if m.live(leaf) {
				win[k+leaf] = m.its[leaf].ts()<<m.shift | uint64(leaf)
			}
		}
		m.packed = make([]uint64, k)
		for n := k - 1; n >= 1; n-- {
			a, b := win[2*n], win[2*n+1]
			win[n], m.packed[n] = min(a, b), max(a, b)
		}
		m.packed[0] = win[1] // with k == 1, the only leaf
		return
	}
	win := make([]mergeKey, 2*k)
	for leaf := range k {
		win[k+leaf] = mergeKey{math.MaxUint64, uint32(k + leaf)}
		if m.live(leaf) {
			win[k+leaf] = mergeKey{m.its[leaf].ts(), uint32(leaf)}
		}
	}
	m.tree = make([]mergeKey, k)
	for n := k - 1; n >= 1; n-- {
		a, b := win[2*n], win[2*n+1]
		if b.less(a) {
			a, b = b, a
		}
		win[n], m.tree[n] = a, b
	}
	m.tree[0] = win[1]
	m.packed = nil
}

// Next advances to the next event of the merged stream.
func (m *Merger) Next() bool {
	if m.top < 0 {
		return m.first()
	}
	if m.wide {
		return m.nextWide()
	}
	leaf := uint32(m.top)
	var w uint64
	if it := &m.its[leaf]; it.Next() {
		ts := it.ts()
		if ts >= m.limit {
			return m.widen()
		}
		w = ts<<m.shift | uint64(leaf)
	} else {
		if it.err != nil {
			m.err = it.err
			m.top = -1
			return false
		}
		w = math.MaxUint64
	}
	// Replay the matches from the leaf to the root: the winner (smaller
	// key) of each goes on up, the loser stays. min and max compile to
	// conditional moves: on interleaved threads the outcome of a match is
	// a coin toss a branch predictor would lose.
	t, mask := m.packed, m.mask
	for n := (leaf + mask + 1) >> 1; n > 0; n >>= 1 {
		l := t[n&mask]
		t[n&mask] = max(l, w)
		w = min(l, w)
	}
	t[0] = w
	if w == math.MaxUint64 { // every thread is done
		m.top = -1
		return false
	}
	m.top = int32(uint32(w) & mask)
	return true
}

// live reports whether leaf's thread is on an event (its last Next was
// true).
func (m *Merger) live(leaf int) bool {
	if leaf >= len(m.its) {
		return false
	}
	b := m.its[leaf].blk
	return len(b) > 0 && &b[0] != &noEvent[0]
}

// widen switches to the wide tree when a timestamp does not pack: the
// current leaf has just advanced, every other leaf is where it was.
func (m *Merger) widen() bool {
	m.wide = true
	m.build()
	return m.setTop()
}

// setTop makes the wide tree's winner the current event.
func (m *Merger) setTop() bool {
	if w := m.tree[0]; w.pos <= m.mask {
		m.top = int32(w.pos)
		return true
	}
	m.top = -1
	return false
}

// nextWide is Next on the wide tree.
func (m *Merger) nextWide() bool {
	leaf := uint32(m.top)
	w := mergeKey{pos: leaf}
	if it := &m.its[leaf]; it.Next() {
		w.ts = it.ts()
	} else {
		if it.err != nil {
			m.err = it.err
			m.top = -1
			return false
		}
		w = mergeKey{math.MaxUint64, m.mask + 1 + leaf}
	}
	t := m.tree
	for n := (leaf + m.mask + 1) >> 1; n > 0; n >>= 1 {
		l := t[n&m.mask]
		// borrow = 1 when l < w, comparing (ts, pos) as one 96-bit number
		_, borrow := bits.Sub64(uint64(l.pos), uint64(w.pos), 0)
		_, borrow = bits.Sub64(l.ts, w.ts, borrow)
		mask := -borrow
		t[n&m.mask] = mergeKey{l.ts ^ (l.ts^w.ts)&mask, l.pos ^ (l.pos^w.pos)&uint32(mask)}
		w = mergeKey{w.ts ^ (w.ts^l.ts)&mask, w.pos ^ (w.pos^l.pos)&uint32(mask)}
	}
	t[0] = w
	return m.setTop()
}

// first is Next without a current event: the first step, or the end.
func (m *Merger) first() bool {
	if m.err != nil || m.started {
		return false
	}
	m.started = true
	if m.wide {
		return m.setTop()
	}
	if w := m.packed[0]; w != math.MaxUint64 {
		m.top = int32(uint32(w) & m.mask)
		return true
	}
	return false
}

// Event is the current event with its thread position and sequence number
// (the zero MergedEvent before the first call to Next and after the end).
func (m *Merger) Event() MergedEvent {
	if m.top < 0 {
		return MergedEvent{}
	}
	it := &m.its[m.top]
	return MergedEvent{IndexEvent: it.Event(), Thread: int(m.top), Seq: it.Seq()}
}

// Thread is the position (in the file list) of the current event's thread,
// -1 when there is no current event.
func (m *Merger) Thread() int { return int(m.top) }

// Seq is the current event's sequence number within its thread (0 when
// there is no current event).
func (m *Merger) Seq() uint64 {
	if m.top < 0 {
		return 0
	}
	return m.its[m.top].Seq()
}

// Err is the read error that ended the merge, if any.
func (m *Merger) Err() error { return m.err }
