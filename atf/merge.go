package atf

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"unsafe"
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
// to two-word keys, with the same order, as does a merge of more than 64
// threads. The packed merge runs ahead in batches of up to 1024 events,
// decoded into a buffer the Merger owns, so Next is an increment and Event a
// copy; a batch ends where a thread's block does, so a read error comes
// exactly after the events before it. Next does not allocate. Files in
// memory (OpenIndexBytes, or mapped with WithMmap) are merged straight from
// their bytes; each thread of a file behind an io.ReaderAt reads blocks of
// 64 KiB of events through its own buffer.
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
	// The packed merge runs ahead of Next in batches (fill): out holds the
	// next events, decoded, out[i] is the current one, and Next only steps
	// i. A batch ends when the buffer is full, or after the last event of
	// a thread's block, before that thread moves on (pend: a refill can
	// fail, and its error must come after the events before it). The wide
	// tree keeps its current event as out[0]. i ≥ len(out): no current
	// event.
	out  []MergedEvent // a slice of a mergeOut buffer
	i    int
	pend bool // the current event's thread must advance before the next batch
	err  error
}

// errOutOfBlock is the panic of a merge that would read outside a block: an
// internal invariant broken, never an input's fault.
var errOutOfBlock = errors.New("atf: internal error: merge read outside its block")

// mergeOut is the batch size of the packed merge, in events.
const mergeOut = 1024

// maxPacked is the most threads the packed tree takes (an ATF session has
// at most 64 thread slots): a fixed-size tree needs no bounds checks. A
// merge of more threads uses the wide tree.
const maxPacked = 64

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
	m := &Merger{its: newIters(len(files))}
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
	m := &Merger{its: newIters(len(files))}
	for i, r := range files {
		if r != nil {
			r.rangeInto(&m.its[i], from, to, mergeBufSize)
		}
	}
	m.init()
	return m
}

// newIters makes the iterators of n threads; up to maxPacked in an array of
// maxPacked, so that fill indexes them without bounds checks.
func newIters(n int) []IndexIter {
	if n <= maxPacked {
		return new([maxPacked]IndexIter)[:n]
	}
	return make([]IndexIter, n)
}

// init positions every thread at its first event and plays the tournament.
func (m *Merger) init() {
	var total uint64 // events at most: the batch buffer needs no more
	for i := range m.its {
		total += m.its[i].end - m.its[i].next
	}
	m.out = make([]MergedEvent, 0, max(1, min(total, mergeOut)))
	k := 1
	for k < len(m.its) {
		k <<= 1
		m.shift++
	}
	m.mask = uint32(k - 1)
	m.limit = math.MaxUint64 >> m.shift
	m.wide = k > maxPacked
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
		m.packed = make([]uint64, maxPacked)
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
	if i := m.i + 1; i < len(m.out) {
		m.i = i
		return true
	}
	return m.next()
}

// next is Next at the end of a batch: it starts the merge, advances the
// thread a batch ended on, fills the next batch, or steps the wide tree.
func (m *Merger) next() bool {
	if m.i >= len(m.out) { // no current event: before the first, or after the end
		if m.err != nil || m.started {
			return false
		}
		m.started = true
		if m.wide {
			return m.setTop()
		}
	} else if leaf := uint32(m.out[m.i].Thread); m.wide {
		return m.nextWide(leaf)
	} else if m.pend {
		m.pend = false
		var w uint64
		if it := &m.its[leaf]; it.Next() {
			ts := it.ts()
			if ts >= m.limit {
				return m.widen()
			}
			w = ts<<m.shift | uint64(leaf)
		} else {
			if it.err != nil {
				return m.fail(it.err)
			}
			w = math.MaxUint64
		}
		m.replay(leaf, w)
	}
	m.fill()
	return len(m.out) > 0 // false: every thread is done
}

// fail ends the merge with err.
func (m *Merger) fail(err error) bool {
	m.err = err
	m.i, m.out = 0, m.out[:0]
	return false
}

// replay replays the matches of the packed tree from leaf, whose key is now
// w, to the root: the winner (smaller key) of each goes on up, the loser
// stays. min and max compile to conditional moves: on interleaved threads
// the outcome of a match is a coin toss a branch predictor would lose.
func (m *Merger) replay(leaf uint32, w uint64) {
	t, mask := (*[maxPacked]uint64)(m.packed), m.mask
	for n := (leaf + mask + 1) >> 1; n > 0; n >>= 1 {
		l := t[n%maxPacked]
		t[n%maxPacked] = max(l, w)
		w = min(l, w)
	}
	t[0] = w
}

// fill runs the packed merge ahead into out: it takes the tree's winner,
// advances its thread within its block and replays the matches, until out
// is full, every thread is done, or the winner is the last event of its
// block or its thread's next timestamp does not pack (pend: next moves that
// thread on, through a refill, the time filter or the switch to the wide
// tree). A thread's iterator always stands on its key's event, except the
// pending thread's, which stands on the batch's last event.
func (m *Merger) fill() {
	out := m.out[:cap(m.out)]
	its, t := (*[maxPacked]IndexIter)(m.its[:maxPacked]), (*[maxPacked]uint64)(m.packed)
	mask, shift, limit := uint64(m.mask), m.shift%64, m.limit
	n := 0
	for n < len(out) {
		w := t[0]
		if w == math.MaxUint64 { // every thread is done
			break
		}
		leaf := w & mask
		it := &its[leaf%maxPacked]
		cur := it.cur
		e := &out[n]
		loadIndexEventInto(&e.IndexEvent, it.blk, uint32(cur))
		e.Thread = int(leaf)
		e.Seq = it.base + uint64(uint32(cur))/IndexEventSize
		n++
		if cur >= it.last { // the block's last event, or a filtered thread
			m.pend = true
			break
		}
		cur += IndexEventSize
		ts := loadTS(it.blk, uint32(cur))
		if ts >= limit {
			m.pend = true
			break
		}
		it.cur = cur
		w = ts<<shift | leaf
		// The matches from the leaf up, unrolled: shift is the tree's
		// height (at most 6 for 64 leaves).
		j := (leaf + mask + 1) >> 1
		switch shift {
		case 6:
			l := t[j%maxPacked]
			t[j%maxPacked], w = max(l, w), min(l, w)
			j >>= 1
			fallthrough
		case 5:
			l := t[j%maxPacked]
			t[j%maxPacked], w = max(l, w), min(l, w)
			j >>= 1
			fallthrough
		case 4:
			l := t[j%maxPacked]
			t[j%maxPacked], w = max(l, w), min(l, w)
			j >>= 1
			fallthrough
		case 3:
			l := t[j%maxPacked]
			t[j%maxPacked], w = max(l, w), min(l, w)
			j >>= 1
			fallthrough
		case 2:
			l := t[j%maxPacked]
			t[j%maxPacked], w = max(l, w), min(l, w)
			fallthrough
		case 1:
			l := t[1]
			t[1], w = max(l, w), min(l, w)
		}
		t[0] = w
	}
	m.i, m.out = 0, out[:n]
}

// loadTS is the timestamp of the event at b[off:] — binary.LittleEndian.Uint64
// with one bounds check instead of a slice expression's (the check never
// fails: fill reads only events of the block, off ≤ len(b)-32).
func loadTS(b []byte, off uint32) uint64 {
	if uint64(off)+8 > uint64(len(b)) {
		panic(errOutOfBlock)
	}
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), off))[:])
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
	m.i, m.out = 0, m.out[:0]
	if w := m.tree[0]; w.pos <= m.mask {
		it := &m.its[w.pos]
		m.out = append(m.out, MergedEvent{IndexEvent: it.Event(), Thread: int(w.pos), Seq: it.Seq()})
		return true
	}
	return false
}

// nextWide is Next on the wide tree.
func (m *Merger) nextWide(leaf uint32) bool {
	w := mergeKey{pos: leaf}
	if it := &m.its[leaf]; it.Next() {
		w.ts = it.ts()
	} else {
		if it.err != nil {
			return m.fail(it.err)
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

// Event is the current event with its thread position and sequence number
// (the zero MergedEvent before the first call to Next and after the end).
func (m *Merger) Event() MergedEvent {
	if i := m.i; i < len(m.out) {
		return m.out[i]
	}
	return MergedEvent{}
}

// Thread is the position (in the file list) of the current event's thread,
// -1 when there is no current event.
func (m *Merger) Thread() int {
	if i := m.i; i < len(m.out) {
		return m.out[i].Thread
	}
	return -1
}

// Seq is the current event's sequence number within its thread (0 when
// there is no current event).
func (m *Merger) Seq() uint64 {
	if i := m.i; i < len(m.out) {
		return m.out[i].Seq
	}
	return 0
}

// Err is the read error that ended the merge, if any.
func (m *Merger) Err() error { return m.err }
