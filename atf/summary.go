package atf

import (
	"fmt"

	"github.com/tracecodec/tracecodec/traceerr"
)

// Summarize turns a problem list (from Problems or Check of an IndexFile,
// DetailFile, IndexReader, Thread or Session) into the module's uniform
// recovery summary (traceerr.Recovery, unit "events"); read is the number of
// events the caller read and readBytes the bytes they came from.
//
//   - LostBytes is the sum of the problems' dropped bytes (Problem.Bytes).
//   - Lost counts the events and records the problems say are lost: index
//     events a dangling link points away from (their detail records),
//     orphaned detail records (their index events), links that disagree,
//     records a header counts and the file no longer holds. When bytes
//     were dropped and no problem counts events, Lost is -1 (a torn tail
//     held an unknown part of an event or record).
//   - StopOffset is the offset of the first dropped byte (-1 when none).
//   - Reason is a *FormatError for the first problem (ErrCorrupt when any
//     problem is Corrupt, else ErrTruncated), nil when ps is empty; every
//     other problem is a note.
func Summarize(ps []Problem, read uint64, readBytes int64) traceerr.Recovery {
	s := traceerr.Recovery{Format: formatName, Unit: "events", Read: int64(min(read, 1<<62)), ReadBytes: readBytes, StopOffset: -1}
	if len(ps) == 0 {
		return s
	}
	sentinel := ErrTruncated
	counted := false
	for _, p := range ps {
		if p.Corrupt {
			sentinel = ErrCorrupt
		}
		switch p.Kind {
		case ProblemDiscarded:
			s.LostBytes += p.Bytes
			if s.StopOffset < 0 && p.Bytes > 0 {
				s.StopOffset = p.Offset
			}
		case ProblemDanglingLink, ProblemOrphanDetail, ProblemBrokenLink, ProblemHeaderMismatch:
			if p.Events > 0 {
				s.Lost += int64(min(p.Events, 1<<62))
				counted = true
			}
		}
	}
	if s.LostBytes > 0 && !counted {
		s.Lost = -1
	}
	first := ps[0]
	msg := first.String()
	if len(ps) > 1 {
		msg += fmt.Sprintf(" (and %d more problems)", len(ps)-1)
	}
	s.Reason = &FormatError{Format: formatName, Offset: -1, Err: sentinel, Msg: msg}
	for _, p := range ps[1:] {
		s.Notes = append(s.Notes, p.String())
	}
	return s
}
