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
// met by an IndexReader — they yield one final (zero value, err) pair, so a
// loop that checks err cannot mistake a failed read for the end of the
// input. A DetailEvent's payload read through an io.ReaderAt is only valid
// until the next step (its buffer is reused, as with Next); in memory or
// mapped it is a view of the file's bytes (see DetailIter). The pull iterators (IndexFile.Events and Iter,
// DetailFile.Events, Session.Merge) give sequence numbers too; a merge's
// MergedEvent carries its thread position and sequence number either way.

// All yields every event of the file in order (the n-th event yielded is
// sequence number n), then (IndexEvent{}, err) if a read failed.
func (r *IndexFile) All() iter.Seq2[IndexEvent, error] { return r.Events(0).All() }

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
// next step, or longer when the file is in memory or mapped (see DetailIter).
func (d *DetailFile) All() iter.Seq2[DetailEvent, error] { return d.Events().All() }

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
func (s *IndexReader) All() iter.Seq2[IndexEvent, error] {
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
// in the merged file list (Session.Threads for a session), and its sequence
// number within that thread. Thread is a position, not a thread id: the id
// is Session.Threads[Thread].ID (from the thread_<ID> folder name), or
// Header().ThreadID of the merged IndexFile at that position (the event
// layer's Track.ID and JSON record "thread" give the id).
type MergedEvent struct {
	IndexEvent
	Thread int    // position of the event's thread in the merged file list (not its id; see above)
	Seq    uint64 // the event's sequence number in its thread's index file
}

// All yields the merge's remaining events, then (MergedEvent{}, err) if a
// thread's read failed. It consumes the merger.
func (m *Merger) All() iter.Seq2[MergedEvent, error] {
	return func(yield func(MergedEvent, error) bool) {
		for m.Next() {
			if !yield(m.Event(), nil) {
				return
			}
		}
		if m.err != nil {
			yield(MergedEvent{}, m.err)
		}
	}
}

// All yields the cross-thread merge of every thread's events (see Merger),
// then (MergedEvent{}, err) if a read failed.
func (s *Session) All() iter.Seq2[MergedEvent, error] { return s.Merge().All() }

// Range yields the cross-thread merge of the events with
// from ≤ timestamp < to, then (MergedEvent{}, err) if a read failed.
func (s *Session) Range(from, to uint64) iter.Seq2[MergedEvent, error] {
	return s.MergeRange(from, to).All()
}
