package wtfcff

import (
	"encoding/binary"
	"fmt"
	"io"
	"iter"

	"github.com/tracecodec/tracecodec/internal/wire"
)

// LegacyReader reads the pre-CFF binary format (wtf.data.formats.BinaryTrace
// version 3, big-endian, the default .wtf-trace format before mid-2013) and
// presents it as the reference reader does: a file_header chunk (id 0) and an
// event_data chunk (id 1) holding one legacy_event_buffer part, which
// Decoder.SetChunk decodes. It implements ChunkSource.
//
// Layout: u32BE 0xDEADBEEF, u32BE wtfVersion, u32BE 3; utf8str contextInfo
// JSON; u32BE flags; u32BE timebase low, u32BE high; utf8str metadata JSON;
// then events until the end: u16BE wire id, u32BE time (µs), arguments packed
// without alignment (see the package documentation).
type LegacyReader struct {
	rec    Recovery
	chunks [2]Chunk
	header *FileHeader
	i      int
	ver    uint32
}

// NewLegacyReader reads a legacy file whole from r (at most
// Limits.MaxChunkSize bytes: its events form one buffer) and parses its
// header. NewReader does the same when it sees a legacy file.
func NewLegacyReader(r io.Reader, opts ...ReaderOption) (*LegacyReader, error) {
	o, err := applyReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	data, err := readAllLimited(r, o.limits.MaxChunkSize)
	if err != nil {
		return nil, err
	}
	return newLegacyReader(data, o)
}

// NewLegacyBytesReader parses the legacy header of data (kept, not copied:
// the event buffer is a view of it).
func NewLegacyBytesReader(data []byte, opts ...ReaderOption) (*LegacyReader, error) {
	o, err := applyReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > o.limits.MaxChunkSize {
		return nil, newErr(o.limits.MaxChunkSize, ErrLimit, "legacy file is larger than the limit of %d bytes", o.limits.MaxChunkSize)
	}
	return newLegacyReader(data, o)
}

func newLegacyReader(data []byte, o readerOptions) (*LegacyReader, error) {
	c := wire.NewBigEndianCursor(data, 0)
	magic, ver, format := c.U32(), c.U32(), c.U32()
	switch {
	case c.Failed():
		return nil, newErr(int64(len(data)), ErrTruncated, "legacy file header needs 12 bytes, only %d present", len(data))
	case magic != Magic:
		return nil, newErr(0, ErrBadMagic, "not a legacy big-endian WTF file")
	case format != LegacyFormatVersion:
		return nil, newErr(8, ErrUnsupportedVersion, "legacy data version %d not supported (want %d)", format, LegacyFormatVersion)
	}
	lr := &LegacyReader{ver: ver}
	pos := c.Pos()
	ctx, null, pos, err := legacyUTF8Str(data, pos)
	if err != nil {
		return nil, err
	}
	h := &FileHeader{}
	if !null {
		ci, err := parseContextInfo(ctx)
		if err != nil {
			return nil, newErr(12, ErrCorrupt, "legacy contextInfo: %v", err)
		}
		if ci.UserAgent == nil {
			// What the reference's ScriptContextInfo reports when absent.
			ci.UserAgent = &UserAgent{Type: "unknown", Platform: "other", Device: "desktop"}
		}
		h.ContextInfo = ci
	}
	c.Reset(data[pos:], int64(pos))
	flags, low, high := c.U32(), c.U32(), c.U32()
	if c.Failed() {
		return nil, newErr(int64(pos), ErrTruncated, "legacy header flags and timebase need 12 bytes, only %d left", len(data)-pos)
	}
	h.Timebase = float64(int64(uint64(high)<<32 | uint64(low)))
	if flags&FileFlagHighResolutionTimes != 0 {
		h.Flags = append(h.Flags, "has_high_resolution_times")
	}
	if flags&FileFlagTimesAsCount != 0 {
		h.Flags = append(h.Flags, "times_as_count")
	}
	if h.Flags == nil {
		h.Flags = []string{}
	}
	metaAt := int(c.Offset())
	meta, null, pos, err := legacyUTF8Str(data, metaAt)
	if err != nil {
		return nil, err
	}
	h.Metadata = Object{}
	if !null {
		m, err := parseObject(meta)
		if err != nil {
			return nil, newErr(int64(metaAt), ErrCorrupt, "legacy metadata is not a JSON object: %v", err)
		}
		h.Metadata = m
	}
	lr.header = h
	lr.chunks[0] = Chunk{ID: 0, Type: ChunkFileHeader, StartTime: InvalidTime, EndTime: InvalidTime,
		Parts: []Part{{Type: PartFileHeader, Offset: 12, Data: h.AppendJSON(nil)}}}
	lr.chunks[1] = Chunk{ID: 1, Type: ChunkEventData, StartTime: InvalidTime, EndTime: InvalidTime, Offset: int64(pos),
		Parts: []Part{{Type: PartLegacyEventBuffer, Offset: int64(pos), Data: data[pos:]}}}
	size := int64(len(data))
	lr.rec = Recovery{Kind: KindLegacy, Size: size, Chunks: 2, ReadBytes: size}
	if o.recover {
		lr.chunks[1].rec = &lr.rec
	}
	return lr, nil
}

// Recovery says what was read and, with WithRecovery, whether the Decoder
// met a record cut by the end of the file (see Recovery: a legacy file
// declares no length, so a cut is seen only there). It is complete once the
// event chunk has been decoded.
func (lr *LegacyReader) Recovery() *Recovery { return &lr.rec }

// legacyCut records that the Decoder met the end of the input inside the
// record at pos of the legacy event buffer buf, at file offset base.
func (r *Recovery) legacyCut(buf []byte, pos int, base int64) {
	present := int64(len(buf))
	r.Torn, r.Salvaged, r.SalvagedParts = true, true, 1
	r.Chunks, r.ReadBytes = 1, base
	r.TornOffset, r.PresentBytes, r.salvagedBytes = base, present, present
	r.DroppedRecordBytes = present - int64(pos)
	r.Reason = fmt.Sprintf("the record at offset %d runs past the end of the file", base+int64(pos))
}

// legacyUTF8Str reads u16BE char count (0 = null, 0xFFFF = a u32 string-table
// reference, read as null: legacy files carry no table), u16BE byte count,
// bytes.
func legacyUTF8Str(b []byte, pos int) (s []byte, null bool, next int, err error) {
	if len(b)-pos < 2 {
		return nil, false, pos, newErr(int64(pos), ErrTruncated, "legacy string length runs past the end")
	}
	chars := binary.BigEndian.Uint16(b[pos:])
	switch chars {
	case 0:
		return nil, true, pos + 2, nil
	case 0xFFFF:
		if len(b)-pos < 6 {
			return nil, false, pos, newErr(int64(pos), ErrTruncated, "legacy string reference runs past the end")
		}
		return nil, true, pos + 6, nil
	}
	if len(b)-pos < 4 {
		return nil, false, pos, newErr(int64(pos), ErrTruncated, "legacy string length runs past the end")
	}
	n := int(binary.BigEndian.Uint16(b[pos+2:]))
	if len(b)-pos-4 < n {
		return nil, false, pos, newErr(int64(pos), ErrTruncated, "legacy string of %d bytes runs past the end (%d left)", n, len(b)-pos-4)
	}
	return b[pos+4 : pos+4+n], false, pos + 4 + n, nil
}

// Header returns the synthesized file header.
func (lr *LegacyReader) Header() *FileHeader { return lr.header }

// WTFVersion is the header's version word.
func (lr *LegacyReader) WTFVersion() uint32 { return lr.ver }

// Next advances to the next of the two synthesized chunks.
func (lr *LegacyReader) Next() bool {
	if lr.i >= len(lr.chunks) {
		return false
	}
	lr.i++
	return true
}

// Chunk returns the current chunk.
func (lr *LegacyReader) Chunk() *Chunk { return &lr.chunks[lr.i-1] }

// Err is always nil: the header was checked by NewLegacyReader; event errors
// come from the Decoder.
func (lr *LegacyReader) Err() error { return nil }

// All iterates over the remaining synthesized chunks (see ChunkSource).
func (lr *LegacyReader) All() iter.Seq2[*Chunk, error] { return allChunks(lr) }

func legacyScalarSize(a ArgType) int {
	switch a {
	case ArgBool, ArgInt8, ArgUint8:
		return 1
	case ArgInt16, ArgUint16:
		return 2
	case ArgInt32, ArgUint32, ArgFlowID, ArgTime32, ArgFloat32:
		return 4
	}
	return 0
}

func (d *Decoder) nextLegacy() bool {
	start := d.pos
	b := d.buf
	if len(b)-start < 6 {
		d.err = newErr(d.base+int64(start), ErrTruncated, "legacy event header needs 6 bytes, only %d left", len(b)-start)
		return false
	}
	wire := binary.BigEndian.Uint16(b[start:])
	t := d.TypeByWireID(wire)
	if t == nil {
		d.err = newErr(d.base+int64(start), ErrUndefinedEvent, "undefined event type %d (legacy event buffer offset %d)", wire, start)
		return false
	}
	if t.unsupported != "" {
		d.err = newErr(d.base+int64(start), ErrUnsupportedType, "event %s has argument type %q without a wire encoding", t.Name, t.unsupported)
		return false
	}
	pos := start + 6
	if cap(d.spans) < len(t.Args) {
		d.spans = make([]argSpan, len(t.Args), max(len(t.Args), 16))
	}
	d.spans = d.spans[:len(t.Args)]
	for i, ad := range t.Args {
		a := ad.Type
		trunc := func() bool {
			d.err = newErr(d.base+int64(pos), ErrTruncated, "legacy event %s argument %s runs past the end of the buffer", t.Name, ad.Name)
			return false
		}
		switch {
		case a == ArgChar || a == ArgWChar || a == ArgCharArray || a == ArgWCharArray:
			d.err = newErr(d.base+int64(start), ErrUnsupportedType, "legacy event %s: type %s has no legacy encoding", t.Name, a)
			return false
		case a == ArgASCII:
			if len(b)-pos < 2 {
				return trunc()
			}
			n := int(binary.BigEndian.Uint16(b[pos:]))
			switch n {
			case 0:
				d.spans[i] = argSpan{null: true}
				pos += 2
			case 0xFFFF:
				if len(b)-pos < 6 {
					return trunc()
				}
				d.spans[i] = argSpan{null: true}
				pos += 6
			default:
				if len(b)-pos-2 < n {
					return trunc()
				}
				d.spans[i] = argSpan{off: uint32(pos + 2), n: uint32(n)}
				pos += 2 + n
			}
		case a == ArgUTF8 || a == ArgAny:
			s, null, next, err := legacyUTF8Str(b, pos)
			if err != nil {
				return trunc()
			}
			if null {
				d.spans[i] = argSpan{null: true}
			} else {
				d.spans[i] = argSpan{off: uint32(pos + 4), n: uint32(len(s))}
			}
			pos = next
		case a.IsArray():
			if len(b)-pos < 4 {
				return trunc()
			}
			n := binary.BigEndian.Uint32(b[pos:])
			pos += 4
			if n == 0xFFFFFFFF {
				d.spans[i] = argSpan{null: true}
				continue
			}
			size := uint64(n) * uint64(a.elemSize())
			if size > uint64(len(b)-pos) {
				return trunc()
			}
			d.spans[i] = argSpan{off: uint32(pos), n: n}
			pos += int(size)
		default:
			w := legacyScalarSize(a)
			if len(b)-pos < w {
				return trunc()
			}
			d.spans[i] = argSpan{off: uint32(pos)}
			pos += w
		}
	}
	d.ev = Event{Type: t, WireID: wire, Time: binary.BigEndian.Uint32(b[start+2:]), Zone: d.zone,
		Chunk: d.chunk, Offset: d.base + int64(start), BufferOffset: start, Size: pos - start, d: d}
	d.pos = pos
	return true
}

func (d *Decoder) legacyValue(a ArgType, s argSpan) Value {
	v := Value{Type: a, big: true}
	if s.null {
		v.null = true
		return v
	}
	switch {
	case a.IsString():
		v.data = d.buf[s.off : s.off+s.n]
	case a.IsArray():
		v.data = d.buf[s.off : s.off+s.n*uint32(a.elemSize())]
	default:
		b := d.buf[s.off:]
		switch legacyScalarSize(a) {
		case 1:
			v.word = uint32(b[0])
		case 2:
			v.word = uint32(binary.BigEndian.Uint16(b))
		case 4:
			if a == ArgFloat32 {
				v.word = binary.LittleEndian.Uint32(b) // host order in legacy files
			} else {
				v.word = binary.BigEndian.Uint32(b)
			}
		}
	}
	return v
}
