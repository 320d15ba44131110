package traceerr

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Recovery is the one summary every format package gives of how it read an
// input: what was read, what was lost and why. Each package keeps its own
// detailed report (cdt.Recovery, dial9.Recovery, wtfcff.Recovery,
// atf.Problem, ctf2meta.Recovery) and has a method returning this summary
// of it, so that a tool prints the same line, and the same JSON object, for
// every format.
//
// A clean input has a zero Reason, nothing lost and no Notes (Clean). A
// damaged or unfinished input that the reader still read as far as it could
// has a Reason; Lossy tells whether bytes or units were lost on the way.
type Recovery struct {
	// Format is the package that read the input: "cdt", "dial9", "atf",
	// "ctf2meta" or "wtfcff" (events.Reader.Recovery and tracecat give the
	// format names "ctf" and "wtf" instead: see events.FormatName).
	Format string
	// Unit names what Read and Lost count, in the plural: "events",
	// "ticks", "records", "packets", "fragments".
	Unit string
	// Read is the number of units delivered to the caller, and ReadBytes
	// the bytes of input that were read and checked to deliver them (for
	// a compressed input, bytes of the decompressed stream, as the
	// package's offsets are).
	Read      int64
	ReadBytes int64
	// LostBytes is the number of input bytes that were not delivered (cut
	// short, corrupt, after the last usable frame or record, trailing);
	// -1 when unknown. Lost is the number of units lost, -1 when unknown
	// (a format without an index cannot count what it cannot parse).
	LostBytes int64
	Lost      int64
	// StopOffset is the byte offset where reading stopped short of the
	// input's end (the first byte not delivered), -1 when it did not.
	StopOffset int64
	// Reason says why the reader recovered instead of reading cleanly: an
	// error wrapping the package's sentinel (errors.Is works), usually a
	// *FormatError with its byte offset. Nil for a clean input.
	Reason error
	// Notes lists, one phrase each, what the reader accepted or found
	// without losing anything: lenient readings of what the specification
	// forbids, header fields that disagree with the data.
	Notes []string
}

// Clean reports whether the input was read whole, as its specification
// says: no Reason, nothing lost, no Notes.
func (r *Recovery) Clean() bool {
	return r.Reason == nil && r.LostBytes == 0 && r.Lost == 0 && len(r.Notes) == 0
}

// Lossy reports whether bytes or units were lost, or may have been (-1).
func (r *Recovery) Lossy() bool { return r.LostBytes != 0 || r.Lost != 0 }

// String renders the summary in one line:
//
//	read 120 events in 4096 bytes; lost 37 bytes and 1 event from offset 4096: dial9: offset 4096: event frame cut short …
//
// or "read 120 events in 4096 bytes, nothing lost" for a clean input. Notes
// follow after "; note: ".
func (r *Recovery) String() string {
	var b strings.Builder
	b.WriteString("read ")
	writeCount(&b, r.Read, r.Unit)
	b.WriteString(" in ")
	writeCount(&b, r.ReadBytes, "bytes")
	if r.Lossy() {
		b.WriteString("; lost ")
		if r.LostBytes < 0 {
			b.WriteString("an unknown number of bytes")
		} else {
			writeCount(&b, r.LostBytes, "bytes")
		}
		b.WriteString(" and ")
		if r.Lost < 0 {
			b.WriteString("an unknown number of ")
			b.WriteString(unitOr(r.Unit))
		} else {
			writeCount(&b, r.Lost, r.Unit)
		}
		if r.StopOffset >= 0 {
			b.WriteString(" from offset ")
			b.WriteString(strconv.FormatInt(r.StopOffset, 10))
		}
	} else {
		b.WriteString(", nothing lost")
		if r.StopOffset >= 0 {
			b.WriteString(", stopped at offset ")
			b.WriteString(strconv.FormatInt(r.StopOffset, 10))
		}
	}
	if r.Reason != nil {
		b.WriteString(": ")
		b.WriteString(r.Reason.Error())
	}
	for i, n := range r.Notes {
		if i == 0 {
			b.WriteString("; note: ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(n)
	}
	return b.String()
}

func unitOr(u string) string {
	if u == "" {
		return "units"
	}
	return u
}

// writeCount writes "n unit", the unit in the singular for 1 ("1 event",
// "1 byte").
func writeCount(b *strings.Builder, n int64, unit string) {
	b.WriteString(strconv.FormatInt(n, 10))
	b.WriteByte(' ')
	unit = unitOr(unit)
	if n == 1 && strings.HasSuffix(unit, "s") {
		unit = unit[:len(unit)-1]
	}
	b.WriteString(unit)
}

// MarshalJSON renders the summary as the object every tool prints:
//
//	{"format":"dial9","unit":"events","read":120,"read_bytes":4096,
//	 "lost_bytes":37,"lost":1,"stop_offset":4096,"clean":false,
//	 "reason":"dial9: offset 4096: …","notes":[]}
//
// reason is null for a clean input; -1 means unknown as in the fields.
func (r *Recovery) MarshalJSON() ([]byte, error) {
	var reason *string
	if r.Reason != nil {
		s := r.Reason.Error()
		reason = &s
	}
	notes := r.Notes
	if notes == nil {
		notes = []string{}
	}
	return json.Marshal(struct {
		Format     string   `json:"format"`
		Unit       string   `json:"unit"`
		Read       int64    `json:"read"`
		ReadBytes  int64    `json:"read_bytes"`
		LostBytes  int64    `json:"lost_bytes"`
		Lost       int64    `json:"lost"`
		StopOffset int64    `json:"stop_offset"`
		Clean      bool     `json:"clean"`
		Reason     *string  `json:"reason"`
		Notes      []string `json:"notes"`
	}{r.Format, r.Unit, r.Read, r.ReadBytes, r.LostBytes, r.Lost, r.StopOffset, r.Clean(), reason, notes})
}
