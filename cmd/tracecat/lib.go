package main

// The formats whose validate and stats live in package inspect: tracecat
// hands them its input (reads that stop on an interrupt, the event reader
// it opens, a progress line) and prints what they return.

import (
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/traceerr"
)

// libInput is in as package inspect reads it, with a progress line
// (bytes, as before the move: "reading" for dial9, "wtf" for WTF; none for
// CDT and ATF, whose reads report no progress) for a large input; the
// caller calls p.Done.
func libInput(in *input) (inspect.Input, *progress) {
	label, total := "reading", in.Size()
	switch in.det.Format {
	case events.FormatWTF:
		label = "wtf"
	case events.FormatDial9:
	default:
		total = 0 // below the threshold: no line
	}
	p := newProgress(label, total, false)
	var last int64
	li := toLib(in)
	li.Progress = func(read int64) {
		p.Add(read - last)
		last = read
	}
	return li, p
}

// toLib is in as package inspect reads it: reads that stop on an
// interrupt, the event reader tracecat opens.
func toLib(in *input) inspect.Input {
	li := inspect.Input{
		Path:        in.Path,
		Format:      in.det.Format,
		Variant:     in.det.Variant,
		Size:        in.Size(),
		Open:        in.Reader,
		OpenAt:      in.ReaderAt,
		Events:      func() (*events.Reader, error) { return openEvents(in) },
		Interrupted: in.interrupted,
	}
	if in.Path == "-" {
		li.Data = in.data
	}
	return li
}

// libValidate is validate through inspect.Validate; the report's recovery
// becomes in's recovery line.
func libValidate(in *input) (inspect.Report, error) {
	li, p := libInput(in)
	rep, err := inspect.Validate(li)
	p.Done()
	in.setRecovery(func() *traceerr.Recovery { return rep.Recovery })
	if err != nil {
		return inspect.Report{}, err
	}
	return rep, nil
}

// libStats is stats through inspect.FormatStats: "format" first, the
// format's keys, the event keys and "recovery".
func libStats(in *input) (statList, error) {
	li, p := libInput(in)
	st, err := inspect.FormatStats(li)
	p.Done()
	if err != nil {
		return nil, err
	}
	if in.det.Format == events.FormatCTF {
		// No event pass reads CTF metadata: the recovery line is the
		// metadata reader's, which FormatStats returns as "recovery".
		for _, s := range st {
			if r, ok := s.Value.(*traceerr.Recovery); ok && s.Key == "recovery" {
				in.setRecovery(func() *traceerr.Recovery { return r })
			}
		}
	}
	return fromLib(st), nil
}
