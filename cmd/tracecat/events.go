package main

// The commands' view of the event layer: opening an input as uniform events,
// dump --json (one JSON Lines schema for every event format); the event
// keys of stats come from inspect.FormatStats (lib.go).

import (
	"bufio"
	"runtime"

	"github.com/tracecodec/tracecodec/ctf"
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
	if cr, ok := r.Underlying().(*ctf.Reader); ok {
		in.ctfLosses = cr.Losses
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

// merge sets each key of add in s (replacing the value in place, or
// appending), as inspect.StatList.Merge.
func (s statList) merge(add statList) statList { return fromLib(s.lib().Merge(add.lib())) }
