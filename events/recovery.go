package events

import (
	"strconv"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/traceerr"
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
//   - ATF: nil when opening the files found no problem (Session.Problems:
//     every footer valid, headers agreeing, no thread left out); else
//     atf.Summarize of Session.Check, the report tracecat validate gives:
//     what opening found and the links walked (dangling links, orphaned
//     and broken detail records), which reads the detail records' headers
//     once more. A session whose files are all finished but whose links
//     disagree (corruption, not a crash) is found by Session.Check or
//     tracecat validate, not here.
//   - CTF: ctf.Trace.Recovery of a trace folder: the data streams' cut
//     last packets (Reason: the first one), packet headers read leniently
//     (a foreign UUID, a wrong magic number) as notes.
//   - WTF: the torn last chunk of a binary file (wtfcff.Recovery): Read
//     counts the events delivered, ReadBytes the complete chunks,
//     LostBytes and Lost what the torn chunk lost (Lost -1 when only a
//     range is known).
//
// Any format: when dial9 or ATF timestamps at or past 2^63 ns were
// saturated to math.MaxInt64 (Event.Time), a note says how many, so a
// clean input with such times has a non-nil Recovery with that note.
func (r *Reader) Recovery() *traceerr.Recovery {
	rec := r.recovery()
	var clamped, read, readBytes int64
	switch src := r.src.(type) {
	case *dial9Source:
		clamped, read, readBytes = src.clamped, src.n, src.dec.Offset()
	case *atfSource:
		clamped, read, readBytes = src.clamped, int64(atfEvents(src.session)), atfBytes(src.session)
	}
	if clamped == 0 {
		return rec
	}
	if rec == nil {
		rec = &traceerr.Recovery{Format: r.Format(), Unit: "events", Read: read, ReadBytes: readBytes, StopOffset: -1}
	}
	rec.Notes = append(rec.Notes, strconv.FormatInt(clamped, 10)+" timestamps at or past 2^63 ns carried as 2^63-1 (the event layer's time is int64; dump --json writes them exactly)")
	return rec
}

func (r *Reader) recovery() *traceerr.Recovery {
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
		// Opening found nothing: every file has its footer and agrees
		// with its header, so the writers finished. Otherwise Check, as
		// tracecat validate does: the links are walked, so the summary
		// counts dangling links and orphaned detail records too. (Walking
		// reads every detail record's header: for a 1 GiB session ≈ 6 % of
		// a Parquet export, not spent on sessions that opened clean.)
		if len(src.session.Problems()) == 0 {
			return nil
		}
		ps, err := src.session.Check()
		s = atf.Summarize(ps, atfEvents(src.session), atfBytes(src.session))
		if err != nil {
			s.Notes = append(s.Notes, "links not walked to the end: "+err.Error())
		}
	case *ctfSource:
		return src.recovery()
	case *wtfSource:
		rep := src.chunks.Recovery()
		if rep == nil || !rep.Torn {
			return nil
		}
		s = rep.Summary(src.n)
	default:
		return nil
	}
	s.Format = FormatName(s.Format)
	return &s
}

// FormatName returns the format name — FormatCDT, FormatDial9, FormatATF,
// FormatCTF or FormatWTF, the names Detect, Event.Format, JSON Lines and
// tracecat use — for the codec package name that traceerr.FormatError.Format
// and the codecs' traceerr.Recovery.Format carry ("wtfcff" gives "wtf",
// "ctf2meta" gives "ctf"; "cdt", "cdt/schema7"'s "cdt", "dial9" and "atf"
// are already both). Errors keep the package name, as Go packages prefix
// their errors ("wtfcff: offset 12: …"); the summaries this package returns
// (Reader.Recovery) carry the format name. Other strings are returned as
// they are.
func FormatName(pkg string) string {
	switch pkg {
	case "wtfcff":
		return FormatWTF
	case "ctf2meta":
		return FormatCTF
	}
	return pkg
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
		n += t.ReadBytes()
	}
	return n
}
