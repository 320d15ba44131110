package ctf2meta

import (
	"strconv"

	"github.com/tracecodec/tracecodec/traceerr"
)

// Recovery reports what a reader read from a metadata stream and what it
// accepted that the specifications forbid (the lenient readings this
// package makes by default, each refused by WithStrict(true)): bytes after
// the last packet, missing padding, ignored checksum fields, the 37-byte
// v2.0 header layout, whitespace before the first RS of a CTF 2 stream.
// Reader.Recovery, FragmentReader.Recovery and StreamInfo.Recovery return
// it; Summary gives the module's uniform traceerr.Recovery.
type Recovery struct {
	// Kind is KindPacketized for packetized input, else KindCTF2 (a
	// FragmentReader over a plain JSON text sequence).
	Kind Kind
	// Packets is the number of packets read (packetized input), Fragments
	// the number of CTF 2 fragments decoded (FragmentReader only).
	Packets   int
	Fragments int
	// Bytes is the number of input bytes read: the packets (with the
	// padding present) of packetized input, the JSON text of a plain one.
	Bytes int64
	// TrailingBytes counts bytes after the last packet, fewer than a
	// packet header, that were ignored; they start at offset Bytes.
	TrailingBytes int
	// MissingPadding counts padding bytes the last packet declares but the
	// input does not hold.
	MissingPadding int64
	// IgnoredChecksums counts packets with a non-zero checksum field.
	IgnoredChecksums int
	// ShortV20 says the packets use the 37-byte header carrying version
	// 2.0 (the LTTng ≥ 2.15 kernel ring-buffer layout), not
	// CTF2-PMETA-1.0's 44-byte one. babeltrace2 2.0.4 and 2.1.2 both reject
	// version-2.0 headers.
	ShortV20 bool
	// LeadingWhitespace counts whitespace bytes skipped before the first
	// RS of a CTF 2 stream (babeltrace 2.1 and yactfr read such a file as
	// TSDL).
	LeadingWhitespace int
}

// Recovery reports what the packets read so far held and what was accepted
// leniently (see Recovery); Packets, Bytes and the counts grow as packets
// are read, TrailingBytes and MissingPadding are known at the end.
func (s StreamInfo) Recovery() Recovery {
	return Recovery{Kind: KindPacketized, Packets: s.Packets, Bytes: s.Bytes, TrailingBytes: s.TrailingBytes,
		MissingPadding: s.MissingPadding, IgnoredChecksums: s.IgnoredChecksums, ShortV20: s.Layout == LayoutV20Short}
}

// Recovery is Info().Recovery(): the report on the packets read so far.
func (r *Reader) Recovery() Recovery { return r.info.Recovery() }

// Recovery reports what the FragmentReader has read so far: the fragments,
// the bytes (of the packets for packetized input, of the JSON text
// otherwise) and what was accepted leniently.
func (d *FragmentReader) Recovery() Recovery {
	var rec Recovery
	if d.pr != nil {
		rec = d.pr.Recovery()
	} else {
		rec.Kind = KindCTF2
		if d.s != nil {
			rec.Bytes = d.s.off
		}
	}
	if d.m != nil {
		rec.Fragments = len(d.m.Fragments)
		rec.LeadingWhitespace = d.m.Source.LeadingWhitespace
	}
	return rec
}

// Lenient lists, one phrase each, what was accepted that a strict reader
// refuses; nil when nothing was.
func (r Recovery) Lenient() []string {
	var w []string
	if r.TrailingBytes > 0 {
		w = append(w, strconv.Itoa(r.TrailingBytes)+" trailing byte(s) after the last packet, fewer than a header: ignored")
	}
	if r.MissingPadding > 0 {
		w = append(w, strconv.FormatInt(r.MissingPadding, 10)+" byte(s) of the last packet's padding missing at end of input")
	}
	if r.IgnoredChecksums > 0 {
		w = append(w, strconv.Itoa(r.IgnoredChecksums)+" packet(s) with a non-zero checksum field: ignored (CTF2-PMETA-1.0), refused by babeltrace 2")
	}
	if r.ShortV20 {
		w = append(w, "37-byte v2.0 packet headers (the LTTng kernel ring-buffer layout, not CTF2-PMETA-1.0's 44-byte one; babeltrace2 2.0.4 and 2.1.2 reject version-2.0 headers)")
	}
	if r.LeadingWhitespace > 0 {
		w = append(w, strconv.Itoa(r.LeadingWhitespace)+" byte(s) of whitespace before the first RS skipped; babeltrace 2.1 and yactfr read this file as TSDL, not CTF 2")
	}
	return w
}

// Summary gives the report as the module's uniform recovery summary. The
// unit is "fragments" for a FragmentReader's report, else "packets".
// Trailing bytes are lost (LostBytes, from StopOffset = Bytes) and may be
// the start of a torn packet (Lost -1); the Reason is then an ErrCorrupt
// *FormatError at their offset, the error WithStrict(true) gives. Every
// other lenient reading loses nothing and is a note.
func (r Recovery) Summary() traceerr.Recovery {
	s := traceerr.Recovery{Format: formatName, Unit: "packets", Read: int64(r.Packets), ReadBytes: r.Bytes, StopOffset: -1}
	if r.Kind != KindPacketized || r.Fragments > 0 {
		s.Unit, s.Read = "fragments", int64(r.Fragments)
	}
	notes := r.Lenient()
	if r.TrailingBytes > 0 {
		s.LostBytes, s.Lost, s.StopOffset = int64(r.TrailingBytes), -1, r.Bytes
		s.Reason = newErr(r.Bytes, ErrCorrupt, "%d trailing byte(s) after packet %d, fewer than a packet header", r.TrailingBytes, r.Packets-1)
		notes = notes[1:]
	}
	if len(notes) > 0 {
		s.Notes = notes
	}
	return s
}
