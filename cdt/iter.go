package cdt

import (
	"iter"
	"slices"
	"unsafe"

	"github.com/tracecodec/tracecodec/internal/checksum"
)

// Iterator walks the rows of a File whose tick_index lies in [from, to], in
// footer order, skipping blocks whose index range lies outside. It reuses its
// buffers (pooled per File): the Row returned by Row (and its Raw bytes) is
// valid until the iterator moves to the next block or finishes, so copy what
// must outlive the next call to Next. After warm-up, iteration allocates
// nothing per row or block; with WithConcurrency(n > 1) up to n blocks are
// decoded ahead in goroutines. Without it, where the CPU hashes several
// messages at once (checksum.Lanes: 8 with AVX-512), the iterator reads and
// decompresses up to that many blocks ahead (at most 12 MiB of payload, or
// one larger block alone) and compares their checksums in one pass; a
// failing block is still reported only after every row before it.
type Iterator struct {
	rd       *File
	from, to int64
	next     int // next footer block to schedule
	cur      *block
	ri       int
	row      Row
	err      error
	done     bool
	lazy     bool // RawBlocks: rows are not split

	// sequential mode: up to checksum.Lanes blocks are read and
	// decompressed ahead into batch and their checksums compared together
	// (Blake2b64.Sums), then handed out one by one.
	batch    []*block // batchBuf[:checksum.Lanes]
	nb, bi   int      // blocks fetched into batch, next one to hand out
	batchErr error    // the error met after batch[:nb]
	arena    arena    // the batch's payloads and compressed bytes (carve)
	stored   []byte   // the arena's room for one chunk's compressed bytes
	ownArena bool     // arena was taken from the File
	batchBuf [checksum.MaxLanes]*block
	payloads [checksum.MaxLanes][]byte
	sums     [checksum.MaxLanes]uint64

	// parallel mode
	pending []chan result
	free    chan *block
}

type result struct {
	b   *block
	err error
}

// Iter returns an iterator over the rows with from ≤ tick_index ≤ to. Call
// Close when stopping early so prefetching goroutines finish.
func (rd *File) Iter(from, to int64) *Iterator {
	it := &Iterator{rd: rd, from: from, to: to}
	if n := rd.opts.concurrency; n > 1 {
		it.free = make(chan *block, n+1)
		for range n + 1 {
			it.free <- rd.getBuffer()
		}
	} else {
		it.batch = it.batchBuf[:checksum.Lanes]
		for j := range it.batch {
			it.batch[j] = rd.getBuffer()
		}
	}
	return it
}

// nextBlock returns the index of the next footer block overlapping the range,
// or -1.
func (it *Iterator) nextBlock() int {
	blocks := it.rd.footer.Blocks
	for it.next < len(blocks) {
		i := it.next
		it.next++
		if e := &blocks[i]; e.EndTick >= it.from && e.StartTick <= it.to {
			return i
		}
	}
	return -1
}

// peekBlock is nextBlock without moving past the block it returns.
func (it *Iterator) peekBlock() int {
	next := it.next
	i := it.nextBlock()
	if i < 0 {
		return -1
	}
	it.next = next
	return i
}

// batchBytes bounds the payload bytes (as the footer index gives them) that
// the sequential iterator decompresses ahead to compare their checksums
// together; a larger chunk is read alone. The batch is decompressed into
// one arena (mapped outside the Go heap in 2 MiB pages where the system
// offers them, see arena) that the iterator reuses and hands back to its
// File for the next iterator.
//
// Measured in fresh processes reading a whole file (the side-by-side
// benchmark, ../shared/bench/refs/cdt). With 4 KiB pages (≈15 µs per page
// fault on the benchmark machine) a 2 MiB bound read fastest; in huge
// pages 32 MiB did (all five 4 MB chunks of h5, eight 640 kB chunks of h8
// per eight-lane pass). But a new huge page costs from 0.2 to 3.5 ms of
// system time there, as the host backs the guest's memory or not (the
// same ≈190 page faults took 4 or 40 ms in consecutive runs), and 32 MiB
// batches put 21 MB of h5 into new pages. Series of 7–15 fresh processes,
// each run after one of the reference's as in the benchmark (2026-11-28,
// load 10–16), median CPU-s of an h5 read: 32 MiB 0.041, 0.082, 0.061,
// 0.067, 0.071, 0.055 (single runs up to 0.14 s); 12 MiB — three chunks
// of h5, then two into the same memory; h8 unchanged — 0.049, 0.049,
// 0.068, 0.053, 0.058 (user time higher by the unused lanes, system time
// lower: medians 0.056 and 0.008 s against 0.042 and 0.029 in one
// series); 17 MiB (four, then one) 0.063, 0.062; one chunk at a time (one
// lane) 0.053, 0.055. The differences are within the noise of single
// series; 12 MiB was kept for its shorter tail and lower mean.
const batchBytes = 12 << 20

func (it *Iterator) schedule() {
	for len(it.pending) < cap(it.free)-1 {
		i := it.nextBlock()
		if i < 0 {
			return
		}
		ch := make(chan result, 1)
		it.pending = append(it.pending, ch)
		buf := <-it.free
		off := it.rd.footer.Blocks[i].FileOffset
		lazy := it.lazy
		go func() {
			b, err := it.rd.decodeBlock(off, buf, lazy)
			if err != nil {
				b = buf
			} else {
				b.index = i
			}
			ch <- result{b, err}
		}()
	}
}

func (it *Iterator) advanceBlock() bool {
	if it.free == nil {
		if it.bi == it.nb {
			if it.batchErr == nil {
				it.fill()
			}
			if it.bi == it.nb {
				it.err = it.batchErr
				return false
			}
		}
		b := it.batch[it.bi]
		it.bi++
		if err := it.rd.parseFetched(b, it.lazy); err != nil {
			it.err = err
			return false
		}
		it.cur, it.ri = b, 0
		return true
	}
	if it.cur != nil {
		it.free <- it.cur
		it.cur = nil
	}
	it.schedule()
	if len(it.pending) == 0 {
		return false
	}
	r := <-it.pending[0]
	it.pending = it.pending[1:]
	if r.err != nil {
		it.free <- r.b
		it.err = r.err
		return false
	}
	it.cur, it.ri = r.b, 0
	it.schedule()
	return true
}

// fill reads and decompresses the next blocks of the range into batch, up to
// its size, stopping at the first that fails, and then compares their
// checksums in one Sums call: up to the first failure, which batchErr keeps
// for when the blocks before it have been handed out. The checks of each
// chunk and their order are those of decodeBlock.
func (it *Iterator) fill() {
	it.nb, it.bi = 0, 0
	var idx [checksum.MaxLanes]int
	n := 0
	var bytes int64
	for n < len(it.batch) {
		i := it.peekBlock()
		if i < 0 {
			break
		}
		size := it.rd.footer.Blocks[i].UncompressedLen
		if n > 0 && bytes+size > batchBytes {
			break
		}
		bytes += size
		it.next = i + 1
		idx[n] = i
		n++
	}
	it.carve(idx[:n])
	for _, i := range idx[:n] {
		// The compressed bytes are dead once decompressed: the batch reads
		// them all into the arena's room after the payloads. A raw chunk's
		// payload is its stored bytes: it is copied to its own piece of
		// the arena before the next chunk is read over it.
		into := it.batch[it.nb]
		piece := into.payload
		into.stored = it.stored
		b, err := it.rd.fetchBlock(it.rd.footer.Blocks[i].FileOffset, into, nil)
		if it.stored != nil && into.payload != nil && unsafe.SliceData(into.payload) == unsafe.SliceData(it.stored) {
			if len(into.payload) <= cap(piece) {
				into.payload = append(piece[:0], into.payload...)
			} else {
				into.payload = slices.Clone(into.payload)
			}
		}
		into.stored = nil
		if err != nil {
			it.batchErr = err
			break
		}
		b.index = i
		it.nb++
	}
	if it.nb == 0 {
		return
	}
	ps := it.payloads[:0]
	for _, b := range it.batch[:it.nb] {
		ps = append(ps, b.payload)
	}
	sum := it.rd.sums.Get().(*checksum.Blake2b64)
	sum.Sums(ps, it.sums[:])
	it.rd.sums.Put(sum)
	clear(ps) // no payload kept alive from here
	for j, b := range it.batch[:it.nb] {
		if it.sums[j] != b.header.Checksum {
			it.batchErr = checksumError(b.offset, it.sums[j], b.header.Checksum)
			it.nb = j
			break
		}
	}
}

// carve points the payload buffers of the batch's blocks at consecutive,
// capacity-limited pieces of the iterator's arena, each as large as its
// footer entry's uncompressed_len plus decodeSlack, and sets stored to the
// room after them for the largest entry's compressed_len. The entries are
// not trusted: a chunk whose header asks for more than its piece (or the
// room) holds gets a buffer of its own from readChunkInto, and an entry
// beyond the chunk-size limit gets no piece. The arena is taken from the
// File at the first batch and replaced by a larger one (a quarter larger
// than needed) when a batch needs more.
func (it *Iterator) carve(idx []int) {
	lim := it.rd.opts.limits.MaxChunkSize
	total, room := 0, 0
	for _, i := range idx {
		e := &it.rd.footer.Blocks[i]
		if size := e.UncompressedLen; size >= 0 && size <= lim {
			total += int(size) + decodeSlack
		}
		if size := e.CompressedLen; size >= 0 && size <= lim {
			room = max(room, int(size))
		}
	}
	total += room
	if !it.ownArena {
		it.arena = it.rd.takeArena()
		it.ownArena = true
	}
	if cap(it.arena.b) < total {
		it.arena.release()
		it.arena = newArena(bufCap(total, true))
	}
	guardArena(&it.arena, it) // once per arena: a dropped iterator gives it back
	a := it.arena.b[:cap(it.arena.b)]
	o := 0
	for k, i := range idx {
		b := it.batch[k]
		b.payload = nil
		if size := it.rd.footer.Blocks[i].UncompressedLen; size >= 0 && size <= lim {
			end := o + int(size) + decodeSlack
			b.payload = a[o:o:end]
			o = end
		}
	}
	it.stored = nil
	if room > 0 {
		it.stored = a[o : o : o+room]
	}
}

// takeArena hands the File's batch arena to an iterator (an empty one if
// another iterator holds it); giveArena takes it back, keeping the larger
// of the two, or releases it when the File is closed.
func (rd *File) takeArena() arena {
	rd.mu.Lock()
	a := rd.arena
	rd.arena = arena{}
	rd.mu.Unlock()
	a.unguard()
	return a
}

func (rd *File) giveArena(a arena) {
	a.unguard()
	rd.mu.Lock()
	if rd.closed || cap(a.b) <= cap(rd.arena.b) {
		rd.mu.Unlock()
		a.release()
		return
	}
	old := rd.arena
	rd.arena = a
	guardArena(&rd.arena, rd)
	rd.mu.Unlock()
	old.release()
}

// Next advances to the next row in range; it returns false at the end or on
// an error (see Err).
func (it *Iterator) Next() bool {
	if it.done || it.err != nil {
		return false
	}
	for {
		if it.cur != nil {
			for it.ri < len(it.cur.rows) {
				r := it.cur.rows[it.ri]
				it.ri++
				if r.Tick >= it.from && r.Tick <= it.to {
					it.row = r
					return true
				}
			}
		}
		if !it.advanceBlock() {
			it.finish()
			return false
		}
	}
}

// Row returns the current row.
func (it *Iterator) Row() Row { return it.row }

// All yields the iterator's remaining rows (each valid as Row's is) and, on
// failure, a last (Row{}, err) pair. It closes the iterator when the loop ends,
// early or not.
func (it *Iterator) All() iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		defer it.Close()
		for it.Next() {
			if !yield(it.row, nil) {
				return
			}
		}
		if it.err != nil {
			yield(Row{}, it.err)
		}
	}
}

// Err returns the first error met; it is sticky.
func (it *Iterator) Err() error { return it.err }

// Close stops the iterator and waits for prefetching goroutines.
func (it *Iterator) Close() error {
	it.finish()
	return nil
}

func (it *Iterator) finish() {
	if it.done {
		return
	}
	it.done = true
	for _, ch := range it.pending {
		r := <-ch
		it.free <- r.b
	}
	it.pending = nil
	// Hand the buffers back for the next iterator of this reader; the rows of
	// the current block stay readable until then only by contract.
	for _, b := range it.batch {
		b.payload = nil // a piece of the arena, which goes back on its own
		it.rd.putBuffer(b)
	}
	if it.ownArena {
		it.rd.giveArena(it.arena)
		it.arena, it.stored, it.ownArena = arena{}, nil, false
	}
	it.batch, it.nb, it.bi = nil, 0, 0
	if it.free != nil {
		if it.cur != nil {
			it.free <- it.cur
		}
		for len(it.free) > 0 {
			it.rd.putBuffer(<-it.free)
		}
	}
	it.cur = nil
}

// RawBlock is one TICK chunk whose rows are not split: Ticks holds the
// msgpack encodings of Rows TickRecord maps back to back and nothing else
// (bytes left after the last row mean a corrupt chunk) — their decoder finds
// where each ends. Typed decoders use it to walk rows once instead of twice.
type RawBlock struct {
	Index     int   // footer index entry
	StartTick int64 // from the TickBlock payload
	EndTick   int64
	Rows      int
	Ticks     []byte
}

// RawBlocks iterates over the TICK chunks whose footer index range meets
// [from, to], in footer order, without splitting rows (the caller filters
// rows by tick). Ticks is valid until the next iteration step; chunks are
// decompressed ahead in parallel with WithConcurrency.
func (rd *File) RawBlocks(from, to int64) iter.Seq2[RawBlock, error] {
	return func(yield func(RawBlock, error) bool) {
		it := rd.Iter(from, to)
		it.lazy = true
		defer it.Close()
		for it.advanceBlock() {
			b := it.cur
			if !yield(RawBlock{Index: b.index, StartTick: b.start, EndTick: b.end, Rows: b.nrows, Ticks: b.ticks}, nil) {
				return
			}
		}
		if it.err != nil {
			yield(RawBlock{}, it.err)
		}
	}
}
