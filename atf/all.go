package atf

import "iter"

// The All methods are the range-over-func form of the iterators:
//
//	for e, err := range r.All() {
//		if err != nil {
//			return err // a read error: the iteration ends here
//		}
//		use(e)
//	}
//
// They yield every event as (event, nil). When the iteration stops on an
// error — an io.ReaderAt that fails or comes back short, a corrupt footer
// met by an IndexStream — they yield one final (zero value, err) pair, so a
// loop that checks err cannot mistake a failed read for the end of the
// input. Values are only valid until the next step (a DetailEvent's payload
// is reused, as with Next). Use Events or NewMerger with Next/Err directly
// when the sequence numbers or thread positions are needed.

// All yields every event of the file in order (the n-th event yielded is
// sequence number n), then (IndexEvent{}, err) if a read failed.
func (r *IndexReader) All() iter.Seq2[IndexEvent, error] { return r.Events(0).All() }

// All yields the iterator's remaining events, then (IndexEvent{}, err) if a
// read failed. It consumes the iterator.
func (it *IndexIter) All() iter.Seq2[IndexEvent, error] {
	return func(yield func(IndexEvent, error) bool) {
		for it.Next() {
			if !yield(it.Event(), nil) {
				return
			}
		}
		if it.err != nil {
			yield(IndexEvent{}, it.err)
		}
	}
}

// All yields every detail record in file order (the n-th is detail_seq n),
// then (DetailEvent{}, err) if a read failed. Each payload is valid until the
// next step.
func (d *DetailReader) All() iter.Seq2[DetailEvent, error] { return d.Events().All() }

// All yields the iterator's remaining records, then (DetailEvent{}, err) if a
// read failed. It consumes the iterator.
func (it *DetailIter) All() iter.Seq2[DetailEvent, error] {
	return func(yield func(DetailEvent, error) bool) {
		for it.Next() {
			if !yield(it.Event(), nil) {
				return
			}
		}
		if it.err != nil {
			yield(DetailEvent{}, it.err)
		}
	}
}

// All yields the stream's remaining events, then (IndexEvent{}, err) if the
// stream failed (a read error, a footer that disagrees with the header, a
// limit). It consumes the stream; Footer, Recovered and Discarded report on
// it afterwards.
func (s *IndexStream) All() iter.Seq2[IndexEvent, error] {
	return func(yield func(IndexEvent, error) bool) {
		for s.Next() {
			if !yield(s.Event(), nil) {
				return
			}
		}
		if s.err != nil {
			yield(IndexEvent{}, s.err)
		}
	}
}

// MergedEvent is one step of a merge: the event, the position of its thread
// in the merged reader list, and its sequence number within that thread.
type MergedEvent struct {
	IndexEvent
	Thread int
	Seq    uint64
}

// All yields the merge's remaining events, then (MergedEvent{}, err) if a
// thread's read failed. It consumes the merger.
func (m *Merger) All() iter.Seq2[MergedEvent, error] {
	return func(yield func(MergedEvent, error) bool) {
		for m.Next() {
			if !yield(MergedEvent{m.Event(), m.Thread(), m.Seq()}, nil) {
				return
			}
		}
		if m.err != nil {
			yield(MergedEvent{}, m.err)
		}
	}
}
