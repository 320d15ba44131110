package atf

import "unsafe"

// IndexBlocks iterates over index events a block at a time: Next, then
// Events (a slice of up to BlockEvents events) and Seq, until Next returns false;
// then Err. It is the fastest way to read index events in bulk: the caller's
// loop over Events is an ordinary loop over a slice, with nothing per event
// but its own loads and the index increment.
//
// Events hands out the events in place wherever it can. On amd64 and arm64,
// where an IndexEvent's memory is the file layout of an event, the slice of
// a mapped (WithMmap) or in-memory (OpenIndexBytes) file whose events start
// at an 8-byte-aligned address is a view of the file's bytes: no copy at
// all. A file behind an io.ReaderAt is read (one ReadAt per block) straight
// into a buffer the iterator owns; elsewhere the events are decoded into it.
// Either way the slice must not be modified (a mapping is read-only memory:
// writing to it ends the process), and it is valid until the next call to
// Next and, for a mapped file, until the file is closed.
//
// Neither Next nor Events allocates; the buffer, when one is needed, is
// allocated by IndexFile.Blocks.
type IndexBlocks struct {
	it  IndexIter
	evs []IndexEvent // the current block
	dec []IndexEvent // the buffer a block is decoded into when it cannot be a view
}

// BlockEvents is the most events an IndexBlocks block holds: 256 KiB of
// them, as IndexIter's (through an io.ReaderAt, reads of 256 KiB cost
// 10–15 % less CPU per event than 64 KiB ones, measured on a 320 MB file in
// the page cache; the buffer is allocated once, by Blocks).
const BlockEvents = 8192

// Blocks returns an iterator over events [start, Len()) in blocks.
func (r *IndexFile) Blocks(start uint64) *IndexBlocks {
	b := &IndexBlocks{}
	b.it.reset(r, start, r.count, BlockEvents*IndexEventSize)
	switch buf := b.it.buf; {
	case buf != nil && nativeLayout:
		// Read straight into the events' memory (make gives a []byte of
		// this size 8-byte-aligned; if it ever did not, take a new one).
		if eventsInPlace(buf, 0) {
			b.dec = unsafe.Slice((*IndexEvent)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)/IndexEventSize)
		} else {
			b.dec = make([]IndexEvent, len(buf)/IndexEventSize)
			b.it.buf = indexEventBytes(b.dec)
		}
	case buf != nil:
		b.dec = make([]IndexEvent, len(buf)/IndexEventSize)
	case start < r.count && !eventsInPlace(r.src.data, r.eventsOff):
		b.dec = make([]IndexEvent, min(b.it.chunk, r.count-start))
	}
	return b
}

// eventsInPlace reports whether the events at data[off:] can be handed out
// as an []IndexEvent view: the native layout, and the first event at an
// address aligned for an IndexEvent's 8-byte fields (a mapping is
// page-aligned, so this is events_offset % 8 == 0; events_offset is 64 in
// every file the reference writer and ours write).
func eventsInPlace(data []byte, off int64) bool {
	return nativeLayout && (uintptr(unsafe.Pointer(unsafe.SliceData(data)))+uintptr(off))%unsafe.Alignof(IndexEvent{}) == 0
}

// Next advances to the next block; false at the end or on a read error (see
// Err).
func (b *IndexBlocks) Next() bool {
	if !b.it.refill() {
		b.evs = nil
		return false
	}
	blk := b.it.blk
	n := len(blk) / IndexEventSize
	switch {
	case b.it.buf != nil && nativeLayout:
		b.evs = b.dec[:n] // read into the events' memory: nothing to decode
	case b.dec == nil:
		b.evs = unsafe.Slice((*IndexEvent)(unsafe.Pointer(unsafe.SliceData(blk))), n)
	default:
		evs := b.dec[:n]
		for i := range evs {
			evs[i] = decodeIndexEvent(blk[i*IndexEventSize:])
		}
		b.evs = evs
	}
	return true
}

// Events is the current block's events (none before the first call to Next
// and after Next has returned false). See IndexBlocks for how long they stay
// valid.
func (b *IndexBlocks) Events() []IndexEvent { return b.evs }

// Seq is the sequence number of Events()[0].
func (b *IndexBlocks) Seq() uint64 { return b.it.base }

// Err is the read error that ended the iteration, if any.
func (b *IndexBlocks) Err() error { return b.it.err }
