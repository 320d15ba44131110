package ctf

import "iter"

// Reader merges the event records of all the streams of a trace by time,
// as babeltrace2's muxer does: the next event is the one with the smallest
// time in nanoseconds from its clock's origin; equal times go in stream
// order (Trace.Streams, sorted by file name for OpenDir). Events are views
// valid until the next Next. A stream that fails stops the Reader with its
// error (Err); a cut last packet ends its stream with a Recovery note.
type Reader struct {
	t     *Trace
	heads []*Stream // streams with a current event, in stream order
	times []int64
	cur   int // index in heads of the last event returned, -1 none
	err   error
	init  bool
}

// NewReader returns a Reader over the trace's streams from their first
// packets.
func (t *Trace) NewReader() *Reader {
	return &Reader{t: t, cur: -1}
}

// Next advances to the next event in time order.
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	if !r.init {
		r.init = true
		for _, s := range r.t.Streams {
			s.Reset()
			if s.Next() {
				r.heads = append(r.heads, s)
				r.times = append(r.times, s.ev.NS())
			} else if s.err != nil {
				r.err = s.err
				return false
			}
		}
	} else if r.cur >= 0 {
		s := r.heads[r.cur]
		if s.Next() {
			r.times[r.cur] = s.ev.NS()
		} else {
			if s.err != nil {
				r.err = s.err
				return false
			}
			r.heads = append(r.heads[:r.cur], r.heads[r.cur+1:]...)
			r.times = append(r.times[:r.cur], r.times[r.cur+1:]...)
		}
	}
	if len(r.heads) == 0 {
		r.cur = -1
		return false
	}
	best := 0
	for i := 1; i < len(r.times); i++ {
		if r.times[i] < r.times[best] {
			best = i
		}
	}
	r.cur = best
	return true
}

// Event returns the current event (valid until the next Next).
func (r *Reader) Event() *Event { return &r.heads[r.cur].ev }

// Err returns the error that stopped the Reader, or nil.
func (r *Reader) Err() error { return r.err }

// All iterates over the merged events.
func (r *Reader) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for r.Next() {
			if !yield(r.Event(), nil) {
				return
			}
		}
		if r.err != nil {
			yield(nil, r.err)
		}
	}
}
