package events

import (
	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/traceerr"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// Recovery returns the uniform summary (traceerr.Recovery) of what the
// codec read from a damaged or unfinished input, what it lost and why, or
// nil for a clean input. Call it once Next has returned false without
// error: a dial9 stream (read with dial9.WithRecovery) and a torn WTF file
// are known to be damaged only at their end.
//
//   - CDT: cdt.Recovery.Summary of a trace read by a forward scan (unit
//     "ticks").
//   - dial9: dial9.Recovery.Summary of a stream cut or corrupted mid-frame:
//     every event before the bad frame was delivered, Err is nil.
//   - ATF: atf.Summarize of the problems opening the files found
//     (Session.Problems: no footer, bytes dropped, header lies, threads
//     left out); the links are not walked (Session.Check does that).
//   - WTF: the torn last chunk of a binary file (wtfcff.Recovery): Read
//     counts the events delivered, ReadBytes the complete chunks,
//     LostBytes and Lost what the torn chunk lost (Lost -1 when only a
//     range is known).
func (r *Reader) Recovery() *traceerr.Recovery {
	var s traceerr.Recovery
	switch src := r.src.(type) {
	case *cdtSource:
		rep := src.rd.Recovery()
		if rep == nil {
			return nil
		}
		s = rep.Summary()
	case *dial9Source:
		rep := src.dec.Recovery()
		if rep == nil {
			return nil
		}
		s = rep.Summary()
	case *atfSource:
		ps := src.session.Problems()
		if len(ps) == 0 {
			return nil
		}
		s = atf.Summarize(ps, atfEvents(src.session), atfBytes(src.session))
	case *wtfSource:
		rep := src.chunks.Recovery()
		if rep == nil || !rep.Torn {
			return nil
		}
		s = wtfSummary(rep, src.n)
	default:
		return nil
	}
	return &s
}

// atfEvents is the number of index events of the session's threads.
func atfEvents(s *atf.Session) uint64 {
	var n uint64
	for _, t := range s.Threads {
		n += t.Index.Len()
	}
	return n
}

// atfBytes is the number of bytes of the session's files that were read
// (their sizes less the bytes dropped).
func atfBytes(s *atf.Session) int64 {
	var n int64
	for _, t := range s.Threads {
		n += t.Index.Size() - t.Index.Discarded()
		if t.Detail != nil {
			n += t.Detail.Size() - t.Detail.Discarded()
		}
	}
	return n
}

// wtfSummary turns a wtfcff.Recovery of a torn binary file into the uniform
// summary; events is the number of events delivered. Reason wraps
// wtfcff.ErrTruncated at the torn chunk's offset; Lost is the count of lost
// events when the report knows it exactly, else -1 (LostEvents gives a
// range).
func wtfSummary(rep *wtfcff.Recovery, events int64) traceerr.Recovery {
	s := traceerr.Recovery{Format: "wtfcff", Unit: "events", Read: events, ReadBytes: rep.ReadBytes, StopOffset: -1}
	if !rep.Torn {
		return s
	}
	s.LostBytes = rep.LostBytes()
	least, most := rep.LostEvents()
	s.Lost = most
	if least != most {
		s.Lost = -1
	}
	s.StopOffset = rep.TornOffset
	s.Reason = traceerr.New("wtfcff", rep.TornOffset, wtfcff.ErrTruncated, "%s", rep.String())
	return s
}
