package atf

import (
	"encoding/binary"
	"unsafe"
)

// IndexIter iterates over index events in file order: Next, then Event (or
// the field getters Timestamp, FunctionID, ThreadID, Kind, CallDepth and
// DetailSeq, which read the fields in place: the cheapest way to read
// events) and Seq, until Next returns false; then Err.
//
// It works on blocks of raw event bytes of up to 256 KiB: a file in memory is
// sliced into blocks (the events are decoded straight from it), a file behind
// an io.ReaderAt is read in blocks of whole events through one buffer
// allocated when the iterator is created. Next only advances an offset within
// the block and Event copies the 32 bytes there (the in-memory layout of an
// IndexEvent is the file's on amd64 and arm64), with no bounds check: the
// offset never leaves the block. Neither allocates and both inline into the
// caller's loop.
type IndexIter struct {
	blk      []byte         // raw events of the current block; never shorter than one event
	p        unsafe.Pointer // &blk[0], for Event
	cur      int            // offset in blk of the current event: 0 ≤ cur ≤ len(blk)-32
	last     int            // Next's fast path runs while cur < last: len(blk)-32, or the filter's match (see advance)
	base     uint64         // seq of the event at blk[0]
	next     uint64         // seq of the first event after blk
	end      uint64         // seq after the last event to visit
	buf      []byte         // block buffer for files behind an io.ReaderAt
	chunk    uint64         // events per block (≥ 1)
	r        *IndexFile
	err      error
	filter   bool
	from, to uint64
}

// iterBufSize is the block size of IndexFile.Events and Iter: through an
// io.ReaderAt (the default pread path), 256 KiB reads cost 6–10 % less CPU
// per event than 64 KiB ones on a 320 MB file in the page cache (fewer
// system calls), and 512 KiB or 1 MiB no less than 256 KiB (the block no
// longer stays in the L2 cache until it is read); see
// docs/performance-atf.md.
const iterBufSize = 256 << 10

// noEvent is the block of an iterator that has no current event: Event reads
// zeros from it. It is never written.
var noEvent [IndexEventSize]byte

// reset points it at events [start, end) of r, in blocks of up to bufSize
// bytes (files in memory are sliced, files behind an io.ReaderAt read).
func (it *IndexIter) reset(r *IndexFile, start, end uint64, bufSize int) {
	*it = IndexIter{r: r, blk: noEvent[:], p: unsafe.Pointer(&noEvent), base: start, next: start, end: end, chunk: max(uint64(bufSize)/IndexEventSize, 1)}
	if r.src.data == nil && end > start {
		n := min(int64(bufSize), int64(end-start)*IndexEventSize)
		n -= n % IndexEventSize
		it.buf = make([]byte, max(n, IndexEventSize))
	}
}

// Next advances to the next event; false at the end or on a read error (see
// Err).
func (it *IndexIter) Next() bool {
	// One shape for every case, so that the caller's loop tests one
	// comparison: advance (the block used up, or the time filter) leaves
	// cur one event before the next one to visit and last at or past it —
	// or, at the end, cur at -32 and last at -64, so that Next returns
	// false with cur on the zero event.
	if it.cur >= it.last {
		it.advance()
	}
	it.cur += IndexEventSize
	return it.cur <= it.last
}

// advance is Next's slow path: it moves to the next block when the current
// one is used up, and applies the time filter of Range over an unsorted file
// (then last is the matching event's offset, so that every Next comes here).
func (it *IndexIter) advance() {
	for {
		if p := it.cur + IndexEventSize; p+IndexEventSize <= len(it.blk) {
			it.cur = p
		} else if !it.refill() {
			it.setBlock(noEvent[:])
			it.base = it.next
			it.cur, it.last = -IndexEventSize, -2*IndexEventSize
			return
		}
		if !it.filter {
			it.cur -= IndexEventSize
			return
		}
		if ts := binary.LittleEndian.Uint64(it.blk[it.cur:]); ts >= it.from && ts <= it.to {
			it.last = it.cur
			it.cur -= IndexEventSize
			return
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
	it.base = it.next
	it.setBlock(b)
	it.next += uint64(len(b) / IndexEventSize)
	return true
}

// setBlock makes b (at least one event) the current block, positioned at its
// first event, with Next's fast path running up to its last.
func (it *IndexIter) setBlock(b []byte) {
	it.blk, it.p, it.cur, it.last = b, unsafe.Pointer(unsafe.SliceData(b)), 0, len(b)-IndexEventSize
}

// Event is the current event (the zero IndexEvent before the first call to
// Next and after Next has returned false).
func (it *IndexIter) Event() (e IndexEvent) {
	loadIndexEventAt(&e, it.p, it.cur)
	return
}

// The current event's fields, read in place: Event().Timestamp and the
// others without copying the event. A loop that reads the fields it needs
// through these does no copy at all (Event copies the whole 32 bytes, and
// Go keeps a six-field struct in memory, not in registers: the copy and
// the reloads of its fields are most of an iteration's cost). Like Event,
// they are the zero values before the first call to Next and after it has
// returned false. No bounds check: cur stays within the block, whose
// events are whole.

// Timestamp is the current event's timestamp.
func (it *IndexIter) Timestamp() uint64 {
	if nativeLayout {
		return *(*uint64)(unsafe.Add(it.p, it.cur))
	}
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(it.p, it.cur))[:])
}

// FunctionID is the current event's function id.
func (it *IndexIter) FunctionID() uint64 {
	if nativeLayout {
		return *(*uint64)(unsafe.Add(it.p, it.cur+8))
	}
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(it.p, it.cur+8))[:])
}

// ThreadID is the current event's thread id.
func (it *IndexIter) ThreadID() uint32 {
	if nativeLayout {
		return (*(*uint32)(unsafe.Add(it.p, it.cur+16)))
	}
	return (binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(it.p, it.cur+16))[:]))
}

// Kind is the current event's kind.
func (it *IndexIter) Kind() EventKind {
	if nativeLayout {
		return EventKind(*(*uint32)(unsafe.Add(it.p, it.cur+20)))
	}
	return EventKind(binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(it.p, it.cur+20))[:]))
}

// CallDepth is the current event's call depth.
func (it *IndexIter) CallDepth() uint32 {
	if nativeLayout {
		return (*(*uint32)(unsafe.Add(it.p, it.cur+24)))
	}
	return (binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(it.p, it.cur+24))[:]))
}

// DetailSeq is the current event's detail_seq (NoDetail: no detail record).
func (it *IndexIter) DetailSeq() uint32 {
	if nativeLayout {
		return (*(*uint32)(unsafe.Add(it.p, it.cur+28)))
	}
	return (binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(it.p, it.cur+28))[:]))
}

// Seq is the current event's sequence number.
func (it *IndexIter) Seq() uint64 { return it.base + uint64(it.cur)/IndexEventSize }

// ts is the current event's timestamp (the merge key).
func (it *IndexIter) ts() uint64 { return binary.LittleEndian.Uint64(it.blk[it.cur:]) }

// Err is the read error that ended the iteration, if any.
func (it *IndexIter) Err() error { return it.err }
