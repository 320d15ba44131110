package atf

import "encoding/binary"

// IndexIter iterates over index events in file order: Next, then Event and
// Seq, until Next returns false; then Err.
//
// It works on blocks of raw event bytes of up to 64 KiB: a file in memory is
// sliced into blocks (the events are decoded straight from it), a file behind
// an io.ReaderAt is read in blocks of whole events through one buffer
// allocated when the iterator is created. Next only advances an offset within the block and Event decodes
// the 32 bytes there, so neither allocates and both inline into the caller's
// loop.
type IndexIter struct {
	r        *IndexFile
	blk      []byte // raw events of the current block; never shorter than one event
	cur      int    // offset in blk of the current event: 0 ≤ cur ≤ len(blk)-32
	last     int    // Next's fast path runs while cur < last: len(blk)-32, or -1 to filter
	base     uint64 // seq of the event at blk[0]
	next     uint64 // seq of the first event after blk
	end      uint64 // seq after the last event to visit
	buf      []byte // block buffer for files behind an io.ReaderAt
	chunk    uint64 // events per block (≥ 1)
	err      error
	filter   bool
	from, to uint64
}

// noEvent is the block of an iterator that has no current event: Event reads
// zeros from it. It is never written.
var noEvent [IndexEventSize]byte

// reset points it at events [start, end) of r, in blocks of up to bufSize
// bytes (files in memory are sliced, files behind an io.ReaderAt read).
func (it *IndexIter) reset(r *IndexFile, start, end uint64, bufSize int) {
	*it = IndexIter{r: r, blk: noEvent[:], base: start, next: start, end: end, chunk: max(uint64(bufSize)/IndexEventSize, 1)}
	if r.src.data == nil && end > start {
		n := min(int64(bufSize), int64(end-start)*IndexEventSize)
		n -= n % IndexEventSize
		it.buf = make([]byte, max(n, IndexEventSize))
	}
}

// Next advances to the next event; false at the end or on a read error (see
// Err).
func (it *IndexIter) Next() bool {
	if it.cur < it.last {
		it.cur += IndexEventSize
		return true
	}
	return it.nextSlow()
}

// nextSlow moves to the next block when the current one is used up, and
// applies the time filter of Range over an unsorted file.
func (it *IndexIter) nextSlow() bool {
	for {
		if p := it.cur + IndexEventSize; p+IndexEventSize <= len(it.blk) {
			it.cur = p
		} else if !it.refill() {
			it.blk, it.cur, it.last, it.base = noEvent[:], 0, 0, it.next
			return false
		}
		if !it.filter {
			return true
		}
		if ts := binary.LittleEndian.Uint64(it.blk[it.cur:]); ts >= it.from && ts <= it.to {
			return true
		}
	}
}

// refill makes the next block current, positioned at its first event.
func (it *IndexIter) refill() bool {
	if it.err != nil || it.next >= it.end {
		return false
	}
	r := it.r
	n := min(it.end-it.next, it.chunk)
	off := r.eventsOff + int64(it.next)*IndexEventSize
	var b []byte
	if data := r.src.data; data != nil {
		b = data[off : off+int64(n)*IndexEventSize]
	} else {
		k := min(n, uint64(len(it.buf)/IndexEventSize))
		if k == 0 { // not reachable through reset; never loop without progress
			it.buf = make([]byte, IndexEventSize)
			k = 1
		}
		b = it.buf[:k*IndexEventSize]
		if err := r.src.readAt(b, off); err != nil {
			it.err = err
			return false
		}
	}
	it.blk, it.cur, it.last, it.base = b, 0, len(b)-IndexEventSize, it.next
	if it.filter {
		it.last = -1
	}
	it.next += uint64(len(b) / IndexEventSize)
	return true
}

// Event is the current event (the zero IndexEvent before the first call to
// Next and after Next has returned false).
func (it *IndexIter) Event() IndexEvent { return loadIndexEvent(it.blk[it.cur:]) }

// Seq is the current event's sequence number.
func (it *IndexIter) Seq() uint64 { return it.base + uint64(it.cur)/IndexEventSize }

// ts is the current event's timestamp (the merge key).
func (it *IndexIter) ts() uint64 { return binary.LittleEndian.Uint64(it.blk[it.cur:]) }

// Err is the read error that ended the iteration, if any.
func (it *IndexIter) Err() error { return it.err }
