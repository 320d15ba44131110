package cdt

import (
	"encoding/binary"
	"strconv"
)

// Container constants (format 1).
const (
	// Magic opens every CDT v1 file.
	Magic = "crimson_debug_trace_v1\n"
	// FormatVersion is the container version written after the magic.
	FormatVersion = 1
	// TrailerMagic opens the 16-byte trailer at the end of the file.
	TrailerMagic = "CDTFTR1\n"
	// HeaderSize is the size of magic + u32 version; the META chunk starts here.
	HeaderSize = len(Magic) + 4
	// ChunkHeaderSize is the size of the "<4siiIIIQ" chunk header.
	ChunkHeaderSize = 32
	// TrailerSize is the size of the "<8sQ" trailer.
	TrailerSize = 16
	// MinFileSize is the smallest size the reference reader accepts before it
	// looks at the trailer.
	MinFileSize = HeaderSize + TrailerSize

	// FlagZstd marks a zstd-compressed payload.
	FlagZstd = 1 << 0
	// FlagMsgpack marks a msgpack payload; the reader requires it.
	FlagMsgpack = 1 << 1
	// DefaultFlags is what the reference Python writer sets.
	DefaultFlags = FlagZstd | FlagMsgpack

	// DefaultChunkTicks is the reference writer's rows per TICK chunk.
	DefaultChunkTicks = 256
)

// ChunkKind is the 4-byte ASCII kind of a chunk.
type ChunkKind [4]byte

// The three chunk kinds.
var (
	KindMeta   = ChunkKind{'M', 'E', 'T', 'A'}
	KindTick   = ChunkKind{'T', 'I', 'C', 'K'}
	KindFooter = ChunkKind{'F', 'O', 'T', 'R'}
)

// String returns the kind as text, quoted as Go does when it is not one of the
// known kinds.
func (k ChunkKind) String() string {
	if k == KindMeta || k == KindTick || k == KindFooter {
		return string(k[:])
	}
	return strconv.Quote(string(k[:]))
}

func (k ChunkKind) known() bool { return k == KindMeta || k == KindTick || k == KindFooter }

// ChunkHeader is the fixed 32-byte header before every chunk payload.
type ChunkHeader struct {
	Kind            ChunkKind
	StartTick       int32 // -1 for META and FOTR
	EndTick         int32
	Flags           uint32
	CompressedLen   uint32 // stored bytes after the header
	UncompressedLen uint32 // msgpack payload length
	Checksum        uint64 // BLAKE2b-64 of the msgpack payload, digest read little-endian
}

// AppendChunkHeader appends the 32-byte encoding of h to dst.
func AppendChunkHeader(dst []byte, h ChunkHeader) []byte {
	dst = append(dst, h.Kind[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.StartTick))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.EndTick))
	dst = binary.LittleEndian.AppendUint32(dst, h.Flags)
	dst = binary.LittleEndian.AppendUint32(dst, h.CompressedLen)
	dst = binary.LittleEndian.AppendUint32(dst, h.UncompressedLen)
	return binary.LittleEndian.AppendUint64(dst, h.Checksum)
}

// ParseChunkHeader decodes a 32-byte chunk header. It does not validate the kind.
func ParseChunkHeader(b *[ChunkHeaderSize]byte) ChunkHeader {
	var h ChunkHeader
	copy(h.Kind[:], b[0:4])
	h.StartTick = int32(binary.LittleEndian.Uint32(b[4:]))
	h.EndTick = int32(binary.LittleEndian.Uint32(b[8:]))
	h.Flags = binary.LittleEndian.Uint32(b[12:])
	h.CompressedLen = binary.LittleEndian.Uint32(b[16:])
	h.UncompressedLen = binary.LittleEndian.Uint32(b[20:])
	h.Checksum = binary.LittleEndian.Uint64(b[24:])
	return h
}

// BlockIndexEntry is one TickBlockIndexEntry of the footer: where a TICK chunk
// is and what it covers.
type BlockIndexEntry struct {
	StartTick       int64
	EndTick         int64
	FileOffset      int64 // offset of the chunk header
	CompressedLen   int64
	UncompressedLen int64
	Checksum        uint64
}

// ChannelCount is one entry of the footer's channel_counts map.
type ChannelCount struct {
	Channel string
	Count   int64
}

// Footer is the FOTR payload (TraceFooter): the chunk index and row counts.
type Footer struct {
	FormatVersion int64
	Blocks        []BlockIndexEntry
	TickCount     int64
	FirstTick     int64
	LastTick      int64
	ChannelCounts []ChannelCount // in file order
}

// Meta is what the container reads from the META payload (TraceMeta); the full
// payload is available as raw msgpack from File.MetaPayload and decodes with
// package schema7.
type Meta struct {
	FormatVersion int64
	SchemaVersion int64
	CreatedUTC    string
	Channels      []string
}
