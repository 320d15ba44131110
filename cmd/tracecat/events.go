package main

// The commands' view of the event layer: opening an input as uniform events,
// dump --json (one JSON Lines schema for every event format) and the event
// keys of stats.

import (
	"bufio"
	"math"
	"runtime"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
)

// openEvents opens in through the event layer.
func openEvents(in *input, opts ...events.Option) (*events.Reader, error) {
	if err := in.interrupted(); err != nil {
		return nil, err
	}
	opts = append(opts, events.WithConcurrency(runtime.GOMAXPROCS(0)))
	var r *events.Reader
	var err error
	if in.Path == "-" {
		r, err = events.OpenBytes(in.data, append(opts, events.WithName("-"))...)
	} else {
		r, err = events.Open(in.Path, opts...)
	}
	if err != nil {
		return nil, err
	}
	if r.Format() == events.FormatATF {
		atfRecovery(in) // with the links walked, as validate reports them
	} else {
		in.setRecovery(r.Recovery)
	}
	return r, nil
}

// dumpEvents writes the input's events through inspect.Dump: text or JSON
// Lines, the same records in the same order, with dump's filters as the
// event layer applies them to every format. A large input shows a progress
// line (events read) on a terminal.
func dumpEvents(in *input, w *bufio.Writer, o dumpOptions) error {
	// The filter is checked before the input is read: a refused flag is a
	// usage error whatever the input holds.
	if _, err := o.filter().Compile(in.det.Format); err != nil {
		return err
	}
	r, err := openEvents(in)
	if err != nil {
		return err
	}
	defer r.Close()
	p := newProgress("dump", 0, in.Size() >= progressThreshold || in.IsDir()).Units("events")
	defer p.Done()
	var last int64
	_, err = inspect.Dump(w, r, inspect.DumpOptions{JSON: o.JSON, Filter: o.filter(), Progress: func(read int64) error {
		p.Add(read - last)
		last = read
		return in.interrupted()
	}})
	return err
}

// eventKeys are the keys stats adds for every event format, from
// inspect.Scan, in the order stats prints them (times null when no event
// has one): events, first_ns and last_ns (the first and last timed event in
// stream order), min_ns and max_ns.
func eventKeys(s inspect.Stats) statList {
	var first, last, lo, hi any
	if s.Timed {
		first, last, lo, hi = s.First, s.Last, s.Min, s.Max
	}
	return statList{{"events", s.Events}, {"first_ns", first}, {"last_ns", last}, {"min_ns", lo}, {"max_ns", hi}}
}

// withEventStats sets the event keys in st: an existing key keeps its place
// and takes the event layer's value, a new one is added at the end.
func withEventStats(st statList, in *input) (statList, error) {
	r, err := openEvents(in)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := inspect.Scan(r, func(int64) error { return in.interrupted() })
	if err != nil {
		return nil, err
	}
	return st.merge(eventKeys(s)), nil
}

// merge sets each key of add in s (replacing the value in place, or
// appending).
func (s statList) merge(add statList) statList {
	for _, kv := range add {
		found := false
		for i := range s {
			if s[i].Key == kv.Key {
				s[i].Value, found = kv.Value, true
				break
			}
		}
		if !found {
			s = append(s, kv)
		}
	}
	return s
}

// ratio rounds a ratio to two decimals, as stats prints every ratio.
func ratio(num, den float64) any {
	if den == 0 {
		return nil
	}
	return math.Round(num/den*100) / 100
}
