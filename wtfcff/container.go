package wtfcff

import (
	"cmp"
	"slices"

	"github.com/tracecodec/tracecodec/internal/wire"
)

// Part is one typed blob of a chunk. Data is the unpadded part body: for the
// binary container a view into the chunk's bytes (valid as long as the chunk
// is), for the JSON container the decoded bytes (a string table's strings
// joined with NUL terminators, a base64 buffer decoded, a file header's JSON
// text, a string resource's UTF-8).
type Part struct {
	// Type is the part's type word.
	Type PartType
	// Offset is the absolute file offset of the part body (binary container),
	// or the offset of the chunk object in the JSON text (JSON container).
	Offset int64
	// Data is the part body without its padding.
	Data []byte
}

// Chunk is one chunk of a file. Parts keeps every part in file order, the ones
// the reference does not know included (readers skip them; the writers copy
// them through so conversions are lossless).
type Chunk struct {
	// ID is the chunk's id word (readers ignore it).
	ID uint32
	// Type is the chunk's type word.
	Type ChunkType
	// StartTime and EndTime are the chunk's time words: InvalidTime when
	// unset (what the JS writer and this package write).
	StartTime uint32
	EndTime   uint32
	// Offset is the absolute file offset of the chunk header (binary) or of
	// the chunk object (JSON).
	Offset int64
	// Length is the chunk's length in the binary container (header, part
	// table, parts and padding); 0 for chunks read from JSON.
	Length int64
	// Parts are the chunk's parts in file order.
	Parts []Part
	// Torn says the input ends inside this chunk (a Reader with
	// WithRecovery): Parts holds the parts that arrived whole, and the
	// binary event buffer may end inside a record, which a Decoder drops
	// (see Recovery). Length is then the bytes present.
	Torn bool

	rec *Recovery // the reader's report, for a torn chunk
}

// Part returns the last part of type t (the reference lets the last one win)
// and whether there is one.
func (c *Chunk) Part(t PartType) (Part, bool) {
	for i := len(c.Parts) - 1; i >= 0; i-- {
		if c.Parts[i].Type == t {
			return c.Parts[i], true
		}
	}
	return Part{}, false
}

// Resources returns the chunk's resource parts (binary 0x40000 and string
// 0x40001) in file order. Resource ids are 0-based indexes into this list, as
// the format documentation says (the JS writer's addResource returns id+1).
func (c *Chunk) Resources() []Part {
	var r []Part
	for _, p := range c.Parts {
		if p.Type == PartBinaryResource || p.Type == PartStringResource {
			r = append(r, p)
		}
	}
	return r
}

// Resource returns the resource with the given 0-based id.
func (c *Chunk) Resource(id int) (Part, bool) {
	n := 0
	for _, p := range c.Parts {
		if p.Type == PartBinaryResource || p.Type == PartStringResource {
			if n == id {
				return p, true
			}
			n++
		}
	}
	return Part{}, false
}

// FileHeader parses the chunk's file header part.
func (c *Chunk) FileHeader() (*FileHeader, error) {
	p, ok := c.Part(PartFileHeader)
	if !ok {
		return nil, newErr(c.Offset, ErrCorrupt, "chunk %d has no file_header part", c.ID)
	}
	return ParseFileHeader(p.Data, p.Offset)
}

// check applies the reference's rules for the parts a known chunk may hold.
func (c *Chunk) check() error {
	switch c.Type {
	case ChunkFileHeader:
		for _, p := range c.Parts {
			if p.Type.Known() && p.Type != PartFileHeader {
				return newErr(p.Offset, ErrCorrupt, "chunk %d: part type %s does not belong in a file_header chunk", c.ID, p.Type)
			}
		}
		if _, ok := c.Part(PartFileHeader); !ok {
			return newErr(c.Offset, ErrCorrupt, "file_header chunk %d has no file_header part", c.ID)
		}
	case ChunkEventData:
		hasBuf := false
		for _, p := range c.Parts {
			switch p.Type {
			case PartFileHeader:
				return newErr(p.Offset, ErrCorrupt, "chunk %d: part type file_header does not belong in an event_data chunk", c.ID)
			case PartBinaryEventBuffer, PartJSONEventBuffer, PartLegacyEventBuffer:
				hasBuf = true
			}
		}
		if !hasBuf {
			return newErr(c.Offset, ErrCorrupt, "event_data chunk %d has no event buffer part", c.ID)
		}
	}
	return nil
}

// chunkHeader is the fixed 24-byte chunk header: id, type, length (header,
// part table, parts and padding), start time, end time, part count.
type chunkHeader struct {
	ID                 uint32
	Type               ChunkType
	Length             int64
	StartTime, EndTime uint32
	Parts              int64
}

// readChunkHeader decodes the chunk header at the start of b, which holds at
// least chunkHeaderSize bytes.
func readChunkHeader(b []byte) chunkHeader {
	c := wire.NewCursor(b[:chunkHeaderSize], 0)
	return chunkHeader{ID: c.U32(), Type: ChunkType(c.U32()), Length: int64(c.U32()),
		StartTime: c.U32(), EndTime: c.U32(), Parts: int64(c.U32())}
}

// checkLimits applies lim to the header of the chunk at offset off.
func (h *chunkHeader) checkLimits(off int64, lim *Limits) error {
	if h.Length > lim.MaxChunkSize {
		return newErr(off+8, ErrLimit, "chunk length %d exceeds the limit of %d", h.Length, lim.MaxChunkSize)
	}
	if h.Parts > lim.MaxParts {
		return newErr(off+20, ErrLimit, "part count %d exceeds the limit of %d", h.Parts, lim.MaxParts)
	}
	return nil
}

// tableEnd is the size of the header and part table, where part offsets
// start counting.
func (h *chunkHeader) tableEnd() int64 { return chunkHeaderSize + partEntrySize*h.Parts }

// parseChunk decodes one whole binary chunk held in b (b[0] is the chunk
// header, at absolute offset off). parts is reused for the part list.
func parseChunk(b []byte, off int64, lim *Limits, parts []Part) (Chunk, error) {
	if len(b) < chunkHeaderSize {
		return Chunk{}, newErr(off, ErrTruncated, "chunk header too small: %d bytes left, need %d", len(b), chunkHeaderSize)
	}
	h := readChunkHeader(b)
	c := Chunk{ID: h.ID, Type: h.Type, StartTime: h.StartTime, EndTime: h.EndTime, Offset: off}
	if err := h.checkLimits(off, lim); err != nil {
		return Chunk{}, err
	}
	length, n, tableEnd := h.Length, h.Parts, h.tableEnd()
	if length < tableEnd {
		return Chunk{}, newErr(off+8, ErrCorrupt, "chunk %d: length %d is smaller than its header and part table (%d bytes): chunk header missing part lengths", c.ID, length, tableEnd)
	}
	if length > int64(len(b)) {
		return Chunk{}, newErr(off, ErrTruncated, "chunk %d declares %d bytes, only %d present: data does not contain the entire chunk", c.ID, length, len(b))
	}
	c.Length = length
	if !c.Type.Known() {
		// Unknown chunk types are skipped by the reference; their parts are
		// kept when the part table is consistent, so conversions copy them.
		c.Parts = parseUnknownParts(b[:length], off, n, parts)
		return c, nil
	}
	parts = parts[:0]
	table := wire.NewCursor(b[chunkHeaderSize:tableEnd], off+chunkHeaderSize)
	ordered, prevEnd := true, tableEnd
	for i := int64(0); i < n; i++ {
		at := table.Offset()
		pt, po, pl := PartType(table.U32()), int64(table.U32()), int64(table.U32())
		start := tableEnd + po
		if start+pl > length {
			return Chunk{}, newErr(at, ErrCorrupt,
				"chunk %d part %d (%s) at %d+%d lies outside its chunk of %d bytes", c.ID, i, pt, start, pl, length)
		}
		if pl > 0 {
			ordered = ordered && start >= prevEnd
			prevEnd = start + pl
		}
		parts = append(parts, Part{Type: pt, Offset: off + start, Data: b[start : start+pl : start+pl]})
	}
	if !ordered {
		if err := checkPartsDisjoint(parts, c.ID); err != nil {
			return Chunk{}, err
		}
	}
	c.Parts = parts
	if err := c.check(); err != nil {
		return Chunk{}, err
	}
	return c, nil
}

// checkPartsDisjoint fails when two parts of chunk id share bytes. Every
// writer lays parts out one after the other; parts that overlap would make
// each reader and converter pay for the shared bytes once per part (4 094
// binary_resource parts over the same 256 KiB turn a 312 KB file into 4–5 GB
// of JSON), so they are refused as corrupt rather than read.
func checkPartsDisjoint(parts []Part, id uint32) error {
	idx := make([]int, 0, len(parts))
	for i := range parts {
		if len(parts[i].Data) > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(parts[a].Offset, parts[b].Offset) })
	for k := 1; k < len(idx); k++ {
		p, q := &parts[idx[k-1]], &parts[idx[k]]
		if q.Offset < p.Offset+int64(len(p.Data)) {
			return newErr(q.Offset, ErrCorrupt, "chunk %d part %d (%s) at %d+%d overlaps part %d (%s) at %d+%d: each byte of a chunk belongs to one part",
				id, idx[k], q.Type, q.Offset, len(q.Data), idx[k-1], p.Type, p.Offset, len(p.Data))
		}
	}
	return nil
}

// AppendChunk appends c in the binary layout the JS writer produces: parts in
// order, each part's offset counted from the end of the part table, each part
// zero-padded to 4 bytes (padding not counted in the part length), and the
// chunk length covering everything. c.Offset and c.Length are ignored.
func AppendChunk(dst []byte, c *Chunk) []byte {
	n := len(c.Parts)
	body := 0
	for _, p := range c.Parts {
		body += pad4(len(p.Data))
	}
	length := chunkHeaderSize + partEntrySize*n + body
	dst = wire.AppendU32(dst, c.ID)
	dst = wire.AppendU32(dst, uint32(c.Type))
	dst = wire.AppendU32(dst, uint32(length))
	dst = wire.AppendU32(dst, c.StartTime)
	dst = wire.AppendU32(dst, c.EndTime)
	dst = wire.AppendU32(dst, uint32(n))
	off := 0
	for _, p := range c.Parts {
		dst = wire.AppendU32(dst, uint32(p.Type))
		dst = wire.AppendU32(dst, uint32(off))
		dst = wire.AppendU32(dst, uint32(len(p.Data)))
		off += pad4(len(p.Data))
	}
	for _, p := range c.Parts {
		dst = append(dst, p.Data...)
		dst = appendZeros(dst, pad4(len(p.Data))-len(p.Data))
	}
	return dst
}

// AppendFileHeader appends the 12-byte binary file header.
func AppendFileHeader(dst []byte, wtfVersion uint32) []byte {
	dst = wire.AppendU32(dst, Magic)
	dst = wire.AppendU32(dst, wtfVersion)
	return wire.AppendU32(dst, FormatVersion)
}

func pad4(n int) int { return (n + 3) &^ 3 }

func appendZeros(dst []byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, 0)
	}
	return dst
}

// parseFileHeaderWords checks the 12-byte binary header: magic, wtfVersion,
// data format version.
func parseFileHeaderWords(b []byte) (wtfVersion uint32, err error) {
	c := wire.NewCursor(b, 0)
	magic, wtfVersion, format := c.U32(), c.U32(), c.U32()
	switch {
	case c.Failed() && len(b) >= 4 && magic != Magic:
		return 0, newErr(0, ErrBadMagic, "file magic bytes mismatch: %#08x", magic)
	case c.Failed():
		return 0, newErr(int64(len(b)), ErrTruncated, "file header needs %d bytes, only %d present", fileHeaderSize, len(b))
	case magic == 0xEFBEADDE:
		return 0, newErr(0, ErrBadMagic, "legacy big-endian file: read it with NewReader or NewLegacyReader")
	case magic != Magic:
		return 0, newErr(0, ErrBadMagic, "file magic bytes mismatch: %#08x, want %#08x", magic, uint32(Magic))
	case format != FormatVersion:
		return 0, newErr(8, ErrUnsupportedVersion, "data version %d not supported (want %d)", format, FormatVersion)
	}
	return wtfVersion, nil
}

// parseUnknownParts reads the part table of a chunk of unknown type whose
// header declares n parts (b holds the whole chunk); it returns nil when a
// part lies outside the chunk.
func parseUnknownParts(b []byte, off, n int64, parts []Part) []Part {
	parts = parts[:0]
	tableEnd := chunkHeaderSize + partEntrySize*n
	table := wire.NewCursor(b[chunkHeaderSize:tableEnd], 0)
	for range n {
		pt, start, pl := PartType(table.U32()), tableEnd+int64(table.U32()), int64(table.U32())
		if start+pl > int64(len(b)) {
			return nil
		}
		parts = append(parts, Part{Type: pt, Offset: off + start, Data: b[start : start+pl : start+pl]})
	}
	return parts
}
