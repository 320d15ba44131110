package wtfcff

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
)

// jsonEndsBetweenChunks is the Reason of a JSON document that ends outside
// a chunk object before its closing brackets.
const jsonEndsBetweenChunks = "the text ends outside a chunk, before the document's closing brackets"

// Recovery returns what the reader read and lost so far (see Recovery for
// what the fields mean in JSON text). It is complete once Next has returned
// false and the torn chunk, if any, has been decoded.
func (jr *JSONReader) Recovery() *Recovery { return &jr.rec }

// countChunk records a complete chunk object ending at text offset end.
func (jr *JSONReader) countChunk(end int64) {
	jr.rec.Chunks++
	jr.rec.ReadBytes = end
}

// textSize is the size of the text once encoding/json has met its end.
func (jr *JSONReader) textSize() int64 {
	n, _ := io.Copy(io.Discard, jr.dec.Buffered())
	return jr.dec.InputOffset() + n
}

// tornOutside ends a recovering read whose text ends outside a chunk object
// (between chunks, or in the document head after the header): every chunk
// before was delivered; what followed is unknown.
func (jr *JSONReader) tornOutside() bool {
	rec := &jr.rec
	rec.Size = jr.textSize()
	rec.Torn, rec.TornOffset, rec.PresentBytes = true, rec.ReadBytes, rec.Size-rec.ReadBytes
	rec.eventsUnknown, rec.Reason = true, jsonEndsBetweenChunks
	jr.state = jsDone
	return false
}

// tornChunk ends a recovering read whose text ends inside the chunk object
// at text offset off: it salvages the chunk's complete parts and the present
// part of its base64 event buffer, as the binary reader does.
func (jr *JSONReader) tornChunk(off int64) bool {
	start := jr.dec.InputOffset() // the object (after its separator)
	text, err := io.ReadAll(jr.dec.Buffered())
	if err != nil {
		jr.err = err
		return false
	}
	rec := &jr.rec
	rec.Size = start + int64(len(text))
	rec.Torn, rec.TornOffset, rec.PresentBytes = true, off, rec.Size-off
	jr.state = jsDone
	c, ok := salvageJSONChunk(text, start, off, rec, &jr.o.limits)
	if !ok {
		return false
	}
	jr.chunk = c
	return true
}

// salvageJSONChunk reads what it can of a chunk object cut short: text
// holds it from its '{' (at offset base) to the end of the input; off is the
// chunk's offset as Chunk.Offset reports it.
func salvageJSONChunk(text []byte, base, off int64, rec *Recovery, lim *Limits) (Chunk, bool) {
	c := Chunk{StartTime: InvalidTime, EndTime: InvalidTime, Offset: off, Torn: true, rec: rec}
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	typeSeen, stringsWhole := false, true
	eventBuf, eventBufCut := -1, false
	delivered := int64(0) // text bytes (from base) of the delivered parts
	var parts []Part
	fail := func(reason string) (Chunk, bool) {
		rec.Reason = reason
		rec.LostParts += len(parts)
		rec.salvagedBytes = 0
		if c.Type == ChunkEventData || !typeSeen {
			rec.eventsUnknown = true
			if eventBuf >= 0 && !eventBufCut {
				// The whole buffer was present but is not delivered:
				// its events are lost.
				rec.MissingEventBytes += int64(len(parts[eventBuf].Data))
				rec.eventsUnknown = false
			}
		}
		return Chunk{}, false
	}
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return fail("the chunk object is cut before its first key")
	}
keys:
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		key, ok := tok.(string)
		if !ok {
			break // '}': not reached for a cut object
		}
		switch key {
		case "id", "startTime", "endTime":
			var n json.Number
			if d.Decode(&n) != nil {
				break keys
			}
			v, ok := jsonUint32(n)
			if !ok {
				return fail(fmt.Sprintf("chunk %s %q is not a 32-bit integer", key, n))
			}
			switch key {
			case "id":
				c.ID, rec.TornID = v, v
			case "startTime":
				c.StartTime = v
			default:
				c.EndTime = v
			}
		case "type":
			var s string
			if d.Decode(&s) != nil {
				break keys
			}
			if c.Type, ok = chunkTypeFromString(s); !ok {
				return fail(fmt.Sprintf("chunk type %q is unknown (the reference skips it)", s))
			}
			typeSeen = true
		case "parts":
			if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
				break keys
			}
			for i := 0; d.More(); i++ {
				if int64(i) >= lim.MaxParts {
					return fail(fmt.Sprintf("part count exceeds the limit of %d", lim.MaxParts))
				}
				ps := d.InputOffset()
				var raw json.RawMessage
				if err := d.Decode(&raw); err != nil {
					// The cut goes through this part.
					p, consumed, declared, cut := cutJSONPart(text[ps:])
					switch {
					case cut.isEvents && p.Data != nil:
						p.Offset = off
						parts = append(parts, p)
						eventBuf, eventBufCut = len(parts)-1, cut.open
						delivered = ps + consumed
						if declared >= 0 {
							rec.MissingEventBytes += max(declared-int64(len(p.Data)), 0)
						} else {
							rec.eventsUnknown = true
						}
					default:
						rec.LostParts++
						if cut.typeKnown && cut.typ == PartStringTable {
							stringsWhole = false
						}
						if cut.isEvents && declared >= 0 {
							rec.MissingEventBytes += declared
						} else if !cut.typeKnown || cut.isEvents {
							rec.eventsUnknown = true
						}
					}
					break keys
				}
				p, keep, err := convertJSONPart(raw, c.ID, i, off)
				if err != nil {
					return fail(err.Error())
				}
				if keep {
					parts = append(parts, p)
					if p.Type == PartBinaryEventBuffer {
						eventBuf, eventBufCut = len(parts)-1, false
					}
				}
				delivered = d.InputOffset()
			}
			if _, err := d.Token(); err != nil { // ']'
				break keys
			}
		default:
			var raw json.RawMessage
			if d.Decode(&raw) != nil {
				break keys
			}
		}
	}
	switch {
	case !typeSeen:
		return fail("the chunk object is cut before its type")
	case c.Type == ChunkEventData && !stringsWhole:
		return fail("the string table is cut")
	case c.Type == ChunkEventData && eventBuf < 0:
		if _, ok := partIndex(parts, PartJSONEventBuffer); !ok {
			return fail("the event buffer is cut before its first byte")
		}
	}
	c.Parts = parts
	if err := c.check(); err != nil {
		return fail(err.Error())
	}
	rec.Salvaged, rec.SalvagedParts = true, len(parts)
	rec.salvagedBytes = base + delivered - off
	switch {
	case eventBufCut:
		rec.Reason = "the event buffer is cut"
	case rec.LostParts > 0:
		rec.Reason = "a part after the event buffer is cut"
	default:
		rec.Reason = "the chunk object's end is cut"
	}
	return c, true
}

func partIndex(parts []Part, t PartType) (int, bool) {
	for i := range parts {
		if parts[i].Type == t {
			return i, true
		}
	}
	return -1, false
}

// cutPart is what cutJSONPart learnt of a part object cut short.
type cutPart struct {
	typ       PartType
	typeKnown bool
	isEvents  bool // an event buffer part of any kind
	open      bool // the base64 value string is cut (not closed)
}

// cutJSONPart reads a part object cut short (text from its '{'): for a
// base64 binary_event_buffer whose type and mode precede the value (as the
// writers lay it out), the value's complete 4-character groups decoded (text
// may start with the separator before the part);
// consumed is the text they end at, declared the byteLength (-1 when not
// seen). p.Data is nil when nothing is delivered.
func cutJSONPart(text []byte) (p Part, consumed, declared int64, cut cutPart) {
	declared = -1
	// text may start with the separator before the part.
	lead := skipSpace(text, 0)
	if lead < len(text) && text[lead] == ',' {
		lead++
	}
	text = text[lead:]
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return p, 0, declared, cut
	}
	mode := ""
	for {
		tok, err := d.Token()
		if err != nil {
			return p, 0, declared, cut
		}
		key, ok := tok.(string)
		if !ok {
			return p, 0, declared, cut
		}
		switch key {
		case "type", "mode":
			var s string
			if d.Decode(&s) != nil {
				return p, 0, declared, cut
			}
			if key == "mode" {
				mode = s
				continue
			}
			cut.typ, cut.typeKnown = partTypeFromString(s)
			cut.isEvents = cut.typeKnown && (cut.typ == PartBinaryEventBuffer || cut.typ == PartJSONEventBuffer || cut.typ == PartLegacyEventBuffer)
		case "byteLength":
			var n json.Number
			if d.Decode(&n) != nil {
				return p, 0, declared, cut
			}
			if v, err := n.Int64(); err == nil && v >= 0 {
				declared = v
			}
		case "value":
			if !cut.typeKnown || cut.typ != PartBinaryEventBuffer || mode != "base64" {
				return p, 0, declared, cut
			}
			at := d.InputOffset()
			rest := text[at:]
			i := skipSpace(rest, 0)
			if i >= len(rest) || rest[i] != ':' {
				return p, 0, declared, cut
			}
			if i = skipSpace(rest, i+1); i >= len(rest) || rest[i] != '"' {
				return p, 0, declared, cut
			}
			i++
			j := i
			for j < len(rest) && isBase64Char(rest[j]) {
				j++
			}
			n4 := (j - i) / 4 * 4
			data := make([]byte, base64.StdEncoding.DecodedLen(n4))
			m, err := base64.StdEncoding.Decode(data, rest[i:i+n4])
			if err != nil {
				return p, 0, declared, cut
			}
			cut.open = j >= len(rest) || rest[j] != '"' || n4 != j-i
			p = Part{Type: PartBinaryEventBuffer, Data: data[:m]}
			return p, int64(lead) + at + int64(i+n4), declared, cut
		default:
			var raw json.RawMessage
			if d.Decode(&raw) != nil {
				return p, 0, declared, cut
			}
		}
	}
}

func isBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}
