package wtfcff

import (
	"fmt"
	"strings"

	"github.com/tracecodec/tracecodec/internal/wire"
)

// Recovery reports what a reader read from a file and, when the input ends
// inside a chunk (a writer killed mid-chunk, a full disk, a copy cut short),
// what that torn chunk held, what was salvaged from it and what was lost.
// Reader.Recovery, JSONReader.Recovery, LegacyReader.Recovery and
// File.Recovery return it; the event counts are filled in by the Decoder (or
// Events) that decodes the torn chunk (Chunk.Recovery is the report a torn
// chunk carries).
//
// A writer of this package, like the JS one, writes whole chunks, so only
// the last chunk of a file can be torn: every earlier chunk is read whole.
// The fields mean the same for every container, in its own units:
//
//   - Binary (Reader, File): offsets and byte counts are file bytes; a chunk
//     declares its length, so what is missing is known.
//   - JSON (JSONReader, or Reader over JSON): offsets and byte counts are
//     bytes of text, except MissingEventBytes and DroppedRecordBytes, which
//     count event-buffer bytes (decoded base64; a binary_event_buffer part
//     declares its byteLength, so what is missing of it is known). A chunk
//     object declares no length: DeclaredBytes is 0, and a document that
//     ends between chunks (its closing brackets missing) is torn with
//     nothing of a chunk present, and an unknown number of events lost
//     after it. The torn chunk's complete parts are salvaged and its base64
//     event buffer decoded up to the cut, as in the binary form.
//   - Legacy (LegacyReader, or Reader over a legacy file): the file is one
//     event buffer without a declared length, so a cut is seen only when the
//     Decoder meets the record it goes through: the event chunk is then
//     torn, every record before the cut salvaged (SalvagedEvents counts all
//     of the file's records), the cut one dropped, and what followed it is
//     unknown. A legacy file cut between two records reads as whole.
type Recovery struct {
	// Kind is the container the report is about.
	Kind Kind
	// Size is the input size when known (NewBytesReader), else the bytes
	// that arrived, once the end was reached.
	Size int64
	// Chunks is the number of complete chunks read; ReadBytes the bytes
	// they and the file header cover.
	Chunks    int
	ReadBytes int64
	// Torn says the input ends inside a chunk (its header or its body).
	Torn bool
	// TornOffset is the offset of the torn chunk; TornID its id (0 when its
	// header is cut); DeclaredBytes its declared length (0 when its header
	// is cut); PresentBytes how many of its bytes the input holds.
	TornOffset    int64
	TornID        uint32
	DeclaredBytes int64
	PresentBytes  int64
	// Salvaged says the torn chunk was delivered (WithRecovery) with
	// SalvagedParts parts, the event buffer possibly cut; LostParts counts
	// its parts that were cut or lie beyond the end (a cut event buffer
	// delivered in part counts as salvaged).
	Salvaged      bool
	SalvagedParts int
	LostParts     int
	// SalvagedEvents is the number of records decoded from the torn chunk's
	// event buffer; DroppedRecordBytes the bytes of the record the cut went
	// through (dropped).
	SalvagedEvents     int
	DroppedRecordBytes int64
	// MissingEventBytes is how many bytes of the torn chunk's event buffers
	// were not delivered (beyond the end of the input, or unusable).
	MissingEventBytes int64
	// Reason says why the chunk could not be salvaged in full.
	Reason string

	salvagedBytes int64 // bytes of the torn chunk delivered (header, table, parts)
	cut           int   // where the Decoder dropped a partial record, -1 if none
	eventsUnknown bool  // JSON: the event buffer's declared length was not seen
}

// Recovery is the report of the reader that delivered a torn chunk (Torn),
// whose event counts the Decoder fills in as it decodes the chunk, and of a
// legacy event chunk read with WithRecovery (which the Decoder marks torn
// when it meets a cut record); nil otherwise.
func (c *Chunk) Recovery() *Recovery { return c.rec }

// TrimTorn makes a torn chunk (Chunk.Torn) fit to be written out: it decodes
// its event buffer with dec, which must have decoded the chunks before it
// (for their definitions), and cuts the buffer after the last complete
// record. The chunk is then no longer marked torn, and the Recovery counts
// its events. Other chunks are left alone.
func TrimTorn(c *Chunk, dec *Decoder) error {
	if !c.Torn || c.rec == nil {
		return nil
	}
	c.rec.cut = -1
	if dec.SetChunk(c) {
		for dec.Next() {
		}
		if err := dec.Err(); err != nil {
			return err
		}
	}
	if cut := c.rec.cut; cut >= 0 {
		for i := len(c.Parts) - 1; i >= 0; i-- {
			if c.Parts[i].Type == PartBinaryEventBuffer {
				c.Parts[i].Data = c.Parts[i].Data[:cut]
				break
			}
		}
	}
	c.Torn, c.rec = false, nil
	return nil
}

// LostBytes is what the torn chunk declared or held and could not be
// delivered: the declared bytes missing from the input, the present bytes
// of parts that were not delivered, and the dropped partial record. For JSON
// it is the text of the torn chunk that was not delivered plus the
// event-buffer bytes declared (byteLength) but not delivered and the dropped
// record; for a legacy file, the dropped record.
func (r *Recovery) LostBytes() int64 {
	if !r.Torn {
		return 0
	}
	if r.Kind == KindJSON {
		return r.PresentBytes - r.salvagedBytes + r.MissingEventBytes + r.DroppedRecordBytes
	}
	return max(r.DeclaredBytes, r.PresentBytes) - r.salvagedBytes + r.DroppedRecordBytes
}

// LostEvents is the range of records the torn chunk lost: at least one when
// a record was cut or event-buffer bytes are missing, at most one per 8
// missing or dropped bytes (the smallest record: wire id and time). Both
// are 0 when nothing of an event buffer was lost; most is -1 (unknown) when
// the chunk's header itself is cut (binary), when the JSON text ends before
// the event buffer declares its length or between chunks, and for a legacy
// file (which declares no length: least is then the dropped record). Chunks
// after the torn one never arrived: nothing can say what they held.
func (r *Recovery) LostEvents() (least, most int64) {
	if !r.Torn {
		return 0, 0
	}
	switch {
	case r.Kind == KindLegacy:
		if r.DroppedRecordBytes > 0 {
			return 1, -1
		}
		return 0, -1
	case r.eventsUnknown, r.Kind != KindJSON && r.DeclaredBytes == 0:
		return 0, -1
	}
	lost := r.MissingEventBytes + r.DroppedRecordBytes
	if r.DroppedRecordBytes == 0 && r.MissingEventBytes < 4 && r.Salvaged {
		// The buffer was decoded to its cut end: what is missing is the
		// padding after the last record's array.
		return 0, 0
	}
	if lost == 0 {
		return 0, 0
	}
	return 1, (lost + 7) / 8
}

// String describes the recovery in one line ("" when nothing was torn).
func (r *Recovery) String() string {
	if !r.Torn {
		return ""
	}
	var b strings.Builder
	switch {
	case r.Kind == KindLegacy:
		fmt.Fprintf(&b, "the legacy event buffer at offset %d (%d bytes) is cut inside a record", r.TornOffset, r.PresentBytes)
	case r.Kind == KindJSON && r.Reason == jsonEndsBetweenChunks:
		fmt.Fprintf(&b, "the JSON text ends at offset %d, outside a chunk", r.TornOffset)
	case r.Kind == KindJSON:
		fmt.Fprintf(&b, "the chunk object at text offset %d is torn: %d bytes of its text present", r.TornOffset, r.PresentBytes)
	case r.DeclaredBytes == 0:
		fmt.Fprintf(&b, "the input ends %d bytes into the header of the chunk at offset %d", r.PresentBytes, r.TornOffset)
	default:
		fmt.Fprintf(&b, "chunk %d at offset %d is torn: %d of its %d bytes present", r.TornID, r.TornOffset, r.PresentBytes, r.DeclaredBytes)
	}
	fmt.Fprintf(&b, "; read %d complete chunks (%d bytes)", r.Chunks, r.ReadBytes)
	if r.Salvaged {
		fmt.Fprintf(&b, "; salvaged %d parts and %d events of the torn chunk", r.SalvagedParts, r.SalvagedEvents)
	}
	fmt.Fprintf(&b, "; lost %d bytes", r.LostBytes())
	switch least, most := r.LostEvents(); {
	case most < 0 && least > 0:
		fmt.Fprintf(&b, " and %d event and an unknown number after it", least)
	case most < 0:
		b.WriteString(" and an unknown number of events")
	case most == 0:
		b.WriteString(" and no events")
	case least == most:
		fmt.Fprintf(&b, " and %d event", most)
	default:
		fmt.Fprintf(&b, " and %d to %d events", least, most)
	}
	if r.Reason != "" {
		b.WriteString(" (" + r.Reason + ")")
	}
	return b.String()
}

// Recovery returns what the reader read and lost so far, whatever the
// container (see Recovery for what the fields mean in each). It is complete
// once Next has returned false and the torn chunk, if any (for a legacy
// file, the event chunk), has been decoded.
func (r *Reader) Recovery() *Recovery {
	switch {
	case r.json != nil:
		return &r.json.rec
	case r.legacy != nil:
		return &r.legacy.rec
	}
	return &r.rec
}

// tornHeader handles an input that ends n bytes into a chunk header: nothing
// of the chunk can be read.
func (r *Reader) tornHeader(n int64) bool {
	r.rec.Torn, r.rec.TornOffset, r.rec.PresentBytes = true, r.off, n
	r.rec.Reason = "the chunk header is cut"
	r.rec.Size = r.off + n
	if r.o.recover {
		r.done = true
		return false
	}
	r.err = newErr(r.off, ErrTruncated, "chunk header too small: %d bytes left, need %d", n, chunkHeaderSize)
	return false
}

// tornChunk handles an input that ends inside the chunk with header h at
// r.off, b holding the bytes present: it salvages the complete parts and the
// event buffer's present bytes (when the string table is whole), delivering
// them under WithRecovery.
func (r *Reader) tornChunk(b []byte, h *chunkHeader) bool {
	rec := &r.rec
	present := int64(len(b))
	*rec = Recovery{Kind: KindBinary, Size: r.off + present, Chunks: rec.Chunks, ReadBytes: rec.ReadBytes, Torn: true,
		TornOffset: r.off, TornID: h.ID, DeclaredBytes: h.Length, PresentBytes: present}
	if !r.o.recover {
		// Work out what a recovering read would salvage, for the report.
		_, ok := r.salvage(b, h)
		what := "nothing of it can be salvaged (" + rec.Reason + ")"
		if ok {
			what = fmt.Sprintf("WithRecovery salvages %d of its %d parts", rec.SalvagedParts, h.Parts)
		}
		r.err = newErr(r.off, ErrTruncated, "chunk %d declares %d bytes, only %d present: data does not contain the entire chunk; %s",
			h.ID, h.Length, present, what)
		return false
	}
	r.done = true
	c, ok := r.salvage(b, h)
	if !ok {
		return false
	}
	rec.Salvaged = true
	r.chunk = c
	r.off += present
	return true
}

// salvage builds the deliverable part of a torn chunk and fills the byte
// accounting of r.rec.
func (r *Reader) salvage(b []byte, h *chunkHeader) (Chunk, bool) {
	c, ok := salvageChunk(b, r.off, h, &r.rec, r.parts[:0])
	if ok {
		r.parts = c.Parts
	}
	return c, ok
}

// salvageChunk builds the deliverable part of the torn chunk with header h
// at offset off, b holding its bytes present, with parts appended to parts,
// and fills the byte accounting of rec.
func salvageChunk(b []byte, off int64, h *chunkHeader, rec *Recovery, parts []Part) (Chunk, bool) {
	present := int64(len(b))
	c := Chunk{ID: h.ID, Type: h.Type, StartTime: h.StartTime, EndTime: h.EndTime, Offset: off, Length: present, Torn: true, rec: rec}
	tableEnd := h.tableEnd()
	entries := min(h.Parts, max(present-chunkHeaderSize, 0)/partEntrySize)
	table := wire.NewCursor(b[chunkHeaderSize:chunkHeaderSize+partEntrySize*entries], off+chunkHeaderSize)
	delivered, evTotal, otherTotal := int64(0), int64(0), int64(0)
	eventBuf, eventBufCut, stringsWhole, ok := -1, false, true, true
	for i := int64(0); i < entries; i++ {
		pt, po, pl := PartType(table.U32()), int64(table.U32()), int64(table.U32())
		start := tableEnd + po
		if start+pl > h.Length {
			rec.Reason = fmt.Sprintf("part %d lies outside its chunk", i)
			ok = false
			break
		}
		isEvents := pt == PartBinaryEventBuffer || pt == PartJSONEventBuffer || pt == PartLegacyEventBuffer
		if isEvents {
			evTotal += pl
		} else {
			otherTotal += pl
		}
		switch {
		case start+pl <= present:
			parts = append(parts, Part{Type: pt, Offset: off + start, Data: b[start : start+pl : start+pl]})
			delivered = max(delivered, start+pl)
			if pt == PartBinaryEventBuffer {
				eventBuf, eventBufCut = len(parts)-1, false
			}
		case pt == PartBinaryEventBuffer && start < present:
			// The cut goes through the event buffer: its present bytes hold
			// the complete records before the cut.
			parts = append(parts, Part{Type: pt, Offset: off + start, Data: b[start:present:present]})
			eventBuf, eventBufCut = len(parts)-1, true
			rec.MissingEventBytes += start + pl - present
			delivered = present
		default:
			rec.LostParts++
			if pt == PartStringTable {
				stringsWhole = false
			}
			if isEvents {
				rec.MissingEventBytes += pl
			}
		}
	}
	rec.LostParts += int(h.Parts - entries)
	if ok && entries < h.Parts {
		rec.Reason = "the part table is cut"
		ok = h.Type != ChunkEventData || eventBuf >= 0
	}
	switch {
	case !ok:
	case h.Type == ChunkEventData && !stringsWhole:
		// Events would read the missing strings as null: salvage none.
		ok = false
		rec.Reason = "the string table is cut"
	case h.Type == ChunkEventData && eventBuf < 0:
		ok = false
		rec.Reason = "the event buffer is cut before its first byte"
	}
	if ok {
		c.Parts = parts
		if err := c.check(); err != nil {
			ok = false
			rec.Reason = err.Error()
		}
	}
	if !ok {
		rec.LostParts = int(h.Parts)
		rec.MissingEventBytes = evTotal
		if entries < h.Parts && h.Type == ChunkEventData {
			// The parts whose entries are cut off are, at most, the rest.
			rec.MissingEventBytes = max(h.Length-tableEnd-otherTotal, evTotal)
		}
		rec.salvagedBytes = 0
		return Chunk{}, false
	}
	rec.SalvagedParts = len(parts)
	rec.salvagedBytes = max(delivered, tableEnd)
	if eventBufCut && rec.Reason == "" {
		rec.Reason = "the event buffer is cut"
	}
	return c, true
}
