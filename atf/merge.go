package atf

// Merger is the cross-thread view of a session: a k-way merge of the threads'
// index files by (timestamp, thread position, sequence number), the order of
// the reference readers' min-heap — equal timestamps come out in thread
// order.
//
// Like the reference, it merges rather than sorts: each thread's events come
// out in file order, so when a thread's file is not timestamp-sorted (the
// production tracer writes its index lane, then its detail lane) the merged
// stream is not sorted either; it equals a sort only when every thread is
// sorted. Next does not allocate; each thread of a file behind an
// io.ReaderAt reads through its own 4 KiB buffer (files in memory need
// none). Event and All give the same MergedEvent values: the event, its
// thread's position and its sequence number within the thread.
type Merger struct {
	its     []IndexIter
	heap    []mergeEntry // min-heap on (timestamp, position)
	started bool
	top     int32
	err     error
}

const mergeBufSize = 4 << 10

// mergeEntry is a heap slot: a thread's current timestamp and its position.
type mergeEntry struct {
	ts  uint64
	pos int32
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

func (m *Merger) init() {
	m.top = -1 // no current event
	m.heap = make([]mergeEntry, 0, len(m.its))
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
			m.heap = append(m.heap, mergeEntry{it.ts(), int32(i)})
		} else if it.err != nil {
			m.err = it.err
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
}

func (a mergeEntry) less(b mergeEntry) bool {
	return a.ts < b.ts || (a.ts == b.ts && a.pos < b.pos)
}

func (m *Merger) down(i int) {
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
func (m *Merger) Next() bool {
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
