package main

import (
	"fmt"
	"io"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/traceerr"
)

// Every command that reads a trace (validate, stats, dump, convert) says
// the same about a damaged or unfinished input, whatever its format: one
// line "PATH: recovery: …" on standard error (traceerr.Recovery.String: what
// was read, what was lost, where and why) and, in --json outputs, a
// "recovery" key holding traceerr.Recovery's JSON object (null for a clean
// input). The format handlers register, when they open the input, how to
// get the codec's summary once it has been read (setRecovery); the commands
// print it (printRecovery, recoveryStat).

// setRecovery records how to get the summary of the input's last reader,
// called after it has been read to its end.
func (in *input) setRecovery(f func() *traceerr.Recovery) { in.recovery = f }

// Recovery is the summary of the input's last reader, nil when the input
// was read cleanly (or not read).
func (in *input) Recovery() *traceerr.Recovery {
	if in.recovery == nil {
		return nil
	}
	r := in.recovery()
	if r == nil || r.Clean() {
		return nil
	}
	if name := events.FormatName(r.Format); name != r.Format {
		c := *r // one format name everywhere: "wtf", not the package's "wtfcff"
		c.Format = name
		r = &c
	}
	return r
}

// recoveryLine is the line every command prints for a recovered input
// ("" when clean).
func recoveryLine(path string, in *input) string {
	r := in.Recovery()
	if r == nil {
		return ""
	}
	return path + ": recovery: " + r.String()
}

// printRecovery writes the recovery line of in to w, if any.
func printRecovery(w io.Writer, path string, in *input) {
	if in == nil {
		return
	}
	if l := recoveryLine(path, in); l != "" {
		fmt.Fprintln(w, l)
	}
}

// recoveryStat is the "recovery" key of stats: the summary object, or nil
// (null) for a clean input.
func recoveryStat(in *input) stat {
	if r := in.Recovery(); r != nil {
		return stat{"recovery", r}
	}
	return stat{"recovery", nil}
}

// summaryOf turns a non-nil report's Summary into a pointer.
func summaryOf(s traceerr.Recovery) *traceerr.Recovery { return &s }

// atfRecovery registers the ATF summary of in (inspect.ATFRecovery: the
// problems validate reports, from a fresh view of the input, so that it can
// be computed after the command's own view is closed).
func atfRecovery(in *input) {
	in.setRecovery(func() *traceerr.Recovery { return inspect.ATFRecovery(toLib(in)) })
}
