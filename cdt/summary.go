package cdt

import "github.com/tracecodec/tracecodec/traceerr"

// Summary returns the report as the module's uniform recovery summary
// (traceerr.Recovery, unit "ticks"): Read and ReadBytes are the recovered
// ticks and bytes, Lost and LostBytes what the torn or corrupt chunk and
// what follows it held, StopOffset where the scan stopped (-1 when it read
// to the end of the input). Reason is what ended the scan (Stop) or, when
// the scan read every chunk, why the footer could not be used; when both
// are known the latter is a note.
func (r *Recovery) Summary() traceerr.Recovery {
	s := traceerr.Recovery{Format: formatName, Unit: "ticks", Read: r.Ticks, ReadBytes: r.ReadBytes,
		LostBytes: r.LostBytes, Lost: r.LostTicks, StopOffset: -1, Reason: r.Reason}
	if r.LostBytes > 0 {
		s.StopOffset = r.ReadBytes
	}
	if r.Stop != nil {
		s.Reason = r.Stop
		if r.Reason != nil {
			s.Notes = []string{"footer unusable: " + r.Reason.Error()}
		}
	}
	return s
}
