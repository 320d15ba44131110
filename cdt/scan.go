package cdt

import (
	"encoding/binary"
)

// ChunkInfo describes one chunk found by ScanChunks.
type ChunkInfo struct {
	Offset int64 // offset of the chunk header
	Header ChunkHeader
}

// ScanChunks walks the chunk headers of a complete CDT file held in memory,
// from offset 27 up to the trailer, without decoding payloads. It checks the
// file header, the trailer magic and that every chunk lies inside the file.
func ScanChunks(data []byte) ([]ChunkInfo, error) {
	if len(data) < MinFileSize {
		return nil, newErr(0, ErrSize, "invalid trace size: %d bytes", len(data))
	}
	if string(data[:len(Magic)]) != Magic {
		return nil, newErr(0, ErrBadMagic, "unsupported trace magic")
	}
	if v := binary.LittleEndian.Uint32(data[len(Magic):]); v != FormatVersion {
		return nil, newErr(int64(len(Magic)), ErrUnsupportedVersion, "unsupported trace format version: %d", v)
	}
	end := int64(len(data)) - TrailerSize
	if string(data[end:end+8]) != TrailerMagic {
		return nil, newErr(end, ErrTrailer, "missing trace trailer")
	}
	var out []ChunkInfo
	for off := int64(HeaderSize); off < end; {
		if end-off < ChunkHeaderSize {
			return out, newErr(off, ErrTruncated, "truncated chunk header")
		}
		h := ParseChunkHeader((*[ChunkHeaderSize]byte)(data[off:]))
		if !h.Kind.known() {
			return out, newErr(off, ErrChunkKind, "unknown chunk kind: %s", h.Kind)
		}
		if int64(h.CompressedLen) > end-off-ChunkHeaderSize {
			return out, newErr(off+16, ErrTruncated, "truncated chunk payload")
		}
		out = append(out, ChunkInfo{Offset: off, Header: h})
		off += ChunkHeaderSize + int64(h.CompressedLen)
	}
	return out, nil
}
