package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/events"
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

// atfRecovery registers the ATF summary of in: the problems validate
// reports (Check: every link walked for a thread or session), from a fresh
// view of the input, so that it can be computed after the command's own
// view is closed.
func atfRecovery(in *input) {
	in.setRecovery(func() *traceerr.Recovery {
		v, err := atfOpenView(in)
		if err != nil {
			return nil
		}
		defer v.Close()
		ps, err := v.check()
		if err != nil {
			return nil
		}
		sort.SliceStable(ps, func(i, j int) bool { return atfLossFirst(ps[i]) && !atfLossFirst(ps[j]) })
		events, details, _ := v.counts()
		if v.detail != nil {
			events = details
		}
		return summaryOf(atf.Summarize(ps, events, v.readBytes()))
	})
}

// atfLossFirst puts the problems that lose bytes or events before the others,
// so the summary's reason is a loss when there is one.
func atfLossFirst(p atf.Problem) bool {
	return p.Kind == atf.ProblemDiscarded || p.Kind == atf.ProblemDanglingLink || p.Kind == atf.ProblemOrphanDetail
}

// readBytes is the bytes of the view's files that were read: their sizes
// less the bytes dropped.
func (v *atfView) readBytes() int64 {
	if v.detail != nil {
		return v.detail.Size() - v.detail.Discarded()
	}
	var n int64
	for _, t := range v.threads {
		n += t.ReadBytes()
	}
	return n
}
