package atf

// heapMerger is the merge as it was before the loser tree: a binary min-heap
// on (timestamp, thread position), one heap step per event. Kept as the
// oracle the Merger is checked against (merge_test.go).
type heapMerger struct {
	its     []IndexIter
	heap    []heapEntry // min-heap on (timestamp, position)
	started bool
	top     int32
	err     error
}

const heapBufSize = 4 << 10

// heapEntry is a heap slot: a thread's current timestamp and its position.
type heapEntry struct {
	ts  uint64
	pos int32
}

// NewheapMerger merges every event of files (nil entries are skipped; a thread's
// position is its index in files).
func newHeapMerger(files []*IndexFile) *heapMerger {
	m := &heapMerger{its: make([]IndexIter, len(files))}
	for i, r := range files {
		if r != nil {
			m.its[i].reset(r, 0, r.count, heapBufSize)
		}
	}
	m.init()
	return m
}

// NewheapMergerRange merges the events with from ≤ timestamp < to (each thread
// binary-searched when sorted, filtered when not; see IndexFile.Range).
func newHeapMergerRange(files []*IndexFile, from, to uint64) *heapMerger {
	m := &heapMerger{its: make([]IndexIter, len(files))}
	for i, r := range files {
		if r != nil {
			r.rangeInto(&m.its[i], from, to, heapBufSize)
		}
	}
	m.init()
	return m
}

func (m *heapMerger) init() {
	m.top = -1 // no current event
	m.heap = make([]heapEntry, 0, len(m.its))
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
			m.heap = append(m.heap, heapEntry{it.ts(), int32(i)})
		} else if it.err != nil {
			m.err = it.err
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
}

func (a heapEntry) less(b heapEntry) bool {
	return a.ts < b.ts || (a.ts == b.ts && a.pos < b.pos)
}

func (m *heapMerger) down(i int) {
	h := m.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[r].less(h[l]) {
			c = r
		}
		if !h[c].less(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// Next advances to the next event of the merged stream.
func (m *heapMerger) Next() bool {
	if m.err != nil {
		m.top = -1
		return false
	}
	if m.started && len(m.heap) > 0 {
		it := &m.its[m.heap[0].pos]
		if it.Next() {
			m.heap[0].ts = it.ts()
			m.down(0)
		} else {
			if it.err != nil {
				m.err = it.err
				m.top = -1
				return false
			}
			last := len(m.heap) - 1
			m.heap[0] = m.heap[last]
			m.heap = m.heap[:last]
			m.down(0)
		}
	}
	m.started = true
	if len(m.heap) == 0 {
		m.top = -1
		return false
	}
	m.top = m.heap[0].pos
	return true
}

// Event is the current event with its thread position and sequence number
// (the zero MergedEvent before the first call to Next and after the end).
func (m *heapMerger) Event() MergedEvent {
	if m.top < 0 {
		return MergedEvent{}
	}
	it := &m.its[m.top]
	return MergedEvent{IndexEvent: it.Event(), Thread: int(m.top), Seq: it.Seq()}
}

// Thread is the position (in the file list) of the current event's thread,
// -1 when there is no current event.
func (m *heapMerger) Thread() int { return int(m.top) }

// Seq is the current event's sequence number within its thread (0 when
// there is no current event).
func (m *heapMerger) Seq() uint64 {
	if m.top < 0 {
		return 0
	}
	return m.its[m.top].Seq()
}

// Err is the read error that ended the merge, if any.
func (m *heapMerger) Err() error { return m.err }
