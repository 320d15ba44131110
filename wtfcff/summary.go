package wtfcff

import "github.com/tracecodec/tracecodec/traceerr"

// Summary returns the report as the module's uniform recovery summary
// (traceerr.Recovery, unit "events"). events is the number of events the
// caller decoded (a Recovery counts chunks and bytes; the events are counted
// by whoever decodes them). ReadBytes covers the file header and the complete
// chunks; for a torn chunk LostBytes and StopOffset say what it lost and where
// it starts, Lost is the number of events lost when it is known exactly and -1
// when only a range is (LostEvents), and Reason wraps ErrTruncated with the
// report's text. A report of an input that was not torn summarises as clean.
func (r *Recovery) Summary(events int64) traceerr.Recovery {
	s := traceerr.Recovery{Format: "wtfcff", Unit: "events", Read: events, ReadBytes: r.ReadBytes, StopOffset: -1}
	if !r.Torn {
		return s
	}
	s.LostBytes = r.LostBytes()
	least, most := r.LostEvents()
	s.Lost = most
	if least != most {
		s.Lost = -1
	}
	s.StopOffset = r.TornOffset
	s.Reason = traceerr.New("wtfcff", r.TornOffset, ErrTruncated, "%s", r.String())
	return s
}
