package main

// The commands' view of the event layer: opening an input as uniform events,
// dump --json (one JSON Lines schema for every event format) and the event
// keys of stats.

import (
	"bufio"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/events"
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

// eventFilter turns dump's --type, --thread, --from and --to into a test on
// events, with each format's units and names as dump's help states.
func eventFilter(format string, o dumpOptions) (func(*events.Event) bool, error) {
	var kind atf.EventKind
	var thread uint64
	hasKind, hasThread := false, false
	if format == "atf" {
		if o.Type != "" {
			k, ok := atf.ParseEventKind(o.Type)
			if !ok {
				return nil, fmt.Errorf("--type %q: want call, return, exception or a number", o.Type)
			}
			kind, hasKind = k, true
		}
		if o.Thread != "" {
			id, err := strconv.ParseUint(strings.TrimPrefix(o.Thread, "thread_"), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("--thread %q: want a thread id", o.Thread)
			}
			thread, hasThread = id, true
		}
	}
	ranged := o.HasFrom || o.HasTo
	return func(e *events.Event) bool {
		switch format {
		case "dial9":
			d := e.Dial9()
			if o.Type != "" && e.Name() != o.Type && d.Name() != o.Type {
				return false
			}
			if ranged && (!e.HasTime() || !o.inRange(e.Time())) {
				return false
			}
		case "atf":
			ev, th, _, _ := e.ATF()
			if hasKind && ev.Kind != kind || hasThread && uint64(th.ID) != thread {
				return false
			}
			if ranged && !o.inRange(e.Time()) {
				return false
			}
		case "wtf":
			w := e.WTF()
			if o.Type != "" && w.Name() != o.Type && e.Name() != o.Type {
				return false
			}
			if o.Thread != "" && (w.Zone == nil || w.Zone.Name != o.Thread) {
				return false
			}
			if ranged && !o.inRange(int64(w.Time)) { // µs, the format's unit
				return false
			}
		case "cdt":
			if tick, _ := e.Tick(); ranged && !o.inRange(tick) {
				return false
			}
		}
		return true
	}, nil
}

// dumpEventsJSON writes the input's events as JSON Lines (the schema of
// events.Event.AppendJSON, documented in the README).
func dumpEventsJSON(in *input, w *bufio.Writer, o dumpOptions) error {
	r, err := openEvents(in)
	if err != nil {
		return err
	}
	defer r.Close()
	keep, err := eventFilter(r.Format(), o)
	if err != nil {
		return err
	}
	var line []byte
	for n := 0; r.Next(); n++ {
		if n&0xffff == 0 {
			if err := in.interrupted(); err != nil {
				return err
			}
		}
		ev := r.Event()
		if !keep(ev) {
			continue
		}
		line = append(ev.AppendJSON(line[:0]), '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return r.Err()
}

// eventStats are the keys stats adds for every event format, from the event
// layer: events (every event it yields), first_ns and last_ns (the first and
// last timed event in stream order), min_ns and max_ns; metadata records
// (WTF definitions and zone records) have no place in the time keys.
type eventStats struct {
	events      int64
	first, last int64
	min, max    int64
	timed       bool
	recovered   bool
}

func scanEvents(in *input) (*eventStats, error) {
	r, err := openEvents(in)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s := &eventStats{min: math.MaxInt64, max: math.MinInt64}
	for r.Next() {
		if s.events&0xffff == 0 {
			if err := in.interrupted(); err != nil {
				return nil, err
			}
		}
		s.events++
		ev := r.Event()
		if !ev.HasTime() || ev.Kind() == events.KindMetadata {
			continue
		}
		t := ev.Time()
		if !s.timed {
			s.first = t
		}
		s.timed = true
		s.last = t
		s.min = min(s.min, t)
		s.max = max(s.max, t)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	s.recovered = r.Recovered()
	return s, nil
}

// keys returns the event keys, in the order stats prints them (times null when
// no event has one).
func (s *eventStats) keys() statList {
	var first, last, lo, hi any
	if s.timed {
		first, last, lo, hi = s.first, s.last, s.min, s.max
	}
	return statList{{"events", s.events}, {"first_ns", first}, {"last_ns", last}, {"min_ns", lo}, {"max_ns", hi}}
}

// withEventStats sets the event keys in st: an existing key keeps its place
// and takes the event layer's value, a new one is added at the end.
func withEventStats(st statList, in *input) (statList, error) {
	s, err := scanEvents(in)
	if err != nil {
		return nil, err
	}
	return st.merge(s.keys()), nil
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
