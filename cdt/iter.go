package cdt

import "iter"

// Iterator walks the rows of a File whose tick_index lies in [from, to], in
// footer order, skipping blocks whose index range lies outside. It reuses its
// buffers (pooled per File): the Row returned by Row (and its Raw bytes) is
// valid until the iterator moves to the next block or finishes, so copy what
// must outlive the next call to Next. After warm-up, iteration allocates
// nothing per row or block; with WithConcurrency(n > 1) up to n blocks are
// decoded ahead in goroutines.
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

	// sequential mode
	seq *block

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
		it.seq = rd.getBuffer()
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
		i := it.nextBlock()
		if i < 0 {
			return false
		}
		b, err := it.rd.decodeBlock(it.rd.footer.Blocks[i].FileOffset, it.seq, it.lazy)
		if err != nil {
			it.err = err
			return false
		}
		b.index = i
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
	if it.seq != nil {
		it.rd.putBuffer(it.seq)
		it.seq = nil
	}
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
