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
// log₂(threads) comparisons of (timestamp, position) keys held in one small
// array, against the two comparisons per level a binary heap pays. Next does
// not allocate. Files in memory (OpenIndexBytes, or mapped with WithMmap)
// are merged straight from their bytes; each thread of a file behind an
// io.ReaderAt reads blocks of 64 KiB of events through its own buffer.
type Merger struct {
	its     []IndexIter
	tree    []mergeKey // tree[0]: the winner; tree[n], 1 ≤ n < k: the loser of match n
	mask    uint32     // k-1, k = len(its) rounded up to a power of two (leaves)
	started bool
	top     int32 // leaf (thread position) of the current event, -1 for none
	err     error
}

const mergeBufSize = 64 << 10

// mergeKey is a leaf's key: its thread's current timestamp and, as the tie
// breaker, the leaf number (= thread position) while the thread has events,
// k + leaf once it has none — so a finished thread loses every match, even
// against an event stamped math.MaxUint64, and the leaf is pos&mask either
// way.
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
	}
	m.mask = uint32(k - 1)
	// win[k+leaf] is the leaf's key, win[n] the winner of match n.
	win := make([]mergeKey, 2*k)
	for leaf := range k {
		win[k+leaf] = mergeKey{math.MaxUint64, uint32(k + leaf)}
		if leaf >= len(m.its) {
			continue
		}
		it := &m.its[leaf]
		if it.r == nil {
			continue
		}
		if it.err != nil {
			m.err = it.err
			continue
		}
		if it.Next() {
			win[k+leaf] = mergeKey{it.ts(), uint32(leaf)}
		} else if it.err != nil {
			m.err = it.err
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
	m.tree[0] = win[1] // with k == 1, the only leaf
}

// Next advances to the next event of the merged stream.
func (m *Merger) Next() bool {
	if m.top < 0 {
		return m.first()
	}
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
	// Replay the matches from the leaf to the root: the winner of each goes
	// on up, the loser stays. Branch-free: on interleaved threads the
	// outcome of a match is a coin toss a branch predictor would lose.
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
	if w.pos > m.mask { // the best leaf has no events: every thread is done
		m.top = -1
		return false
	}
	m.top = int32(w.pos)
	return true
}

// first is Next without a current event: the first step, or the end.
func (m *Merger) first() bool {
	if m.err != nil || m.started {
		return false
	}
	m.started = true
	if w := m.tree[0]; w.pos <= m.mask {
		m.top = int32(w.pos)
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
