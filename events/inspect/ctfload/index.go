package ctfload

// LTTng packet index files (trace/index/*.idx): a 16-byte big-endian header
// (magic 0xC1F1DCC1, major, minor, entry length) followed by one entry per
// data stream packet: offset (bytes), packet size and content size (bits),
// timestamp begin/end, events discarded, stream id; version ≥ 1.1 adds the
// stream instance id and the packet sequence number. Cheap to read, so
// tracecat's validate, stats and dump give packet-level information for them.

import (
	"encoding/binary"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/internal/ferr"
)

// IndexEntry is one packet's entry in an LTTng index file
// (index/STREAM.idx): where the packet is, its sizes in bits, its time range
// in clock cycles, the discarded-event counter and the stream ids; HasV11
// marks the fields of index version 1.1 (stream instance id, sequence number).
type IndexEntry struct {
	Offset, PacketBits, ContentBits uint64
	TimestampBegin, TimestampEnd    uint64
	EventsDiscarded, StreamID       uint64
	StreamInstanceID, PacketSeqNum  uint64
	HasV11                          bool
}

// Index is a parsed LTTng index file: its version, the size of one entry and
// the entries in file order.
type Index struct {
	Major, Minor uint32
	EntryLen     uint32
	Entries      []IndexEntry
}

const indexMagic = 0xC1F1DCC1

// ParseIndex parses an LTTng index file (magic 0xC1F1DCC1, big-endian); every
// length is checked against the input, and errors are *traceerr.FormatError
// values naming the offset.
func ParseIndex(b []byte) (*Index, error) {
	fail := func(off int, sentinel error, msg string, args ...any) error {
		return ferr.New("ctf", int64(off), sentinel, msg, args...)
	}
	if len(b) < 16 {
		return nil, fail(len(b), ctf2meta.ErrTruncated, "LTTng packet index: %d bytes, shorter than the 16-byte header", len(b))
	}
	be := binary.BigEndian
	if m := be.Uint32(b); m != indexMagic {
		return nil, fail(0, ctf2meta.ErrBadMagic, "LTTng packet index: magic %#08x, want 0xc1f1dcc1", m)
	}
	ix := &Index{Major: be.Uint32(b[4:]), Minor: be.Uint32(b[8:]), EntryLen: be.Uint32(b[12:])}
	if ix.Major != 1 {
		return nil, fail(4, ctf2meta.ErrUnsupportedVersion, "LTTng packet index version %d.%d is not supported (want 1.x)", ix.Major, ix.Minor)
	}
	minLen := uint32(56)
	if ix.Minor >= 1 {
		minLen = 72
	}
	if ix.EntryLen < minLen || ix.EntryLen > 4096 {
		return nil, fail(12, ctf2meta.ErrCorrupt, "LTTng packet index: entry length %d bytes, want %d..4096 for version %d.%d", ix.EntryLen, minLen, ix.Major, ix.Minor)
	}
	body := b[16:]
	if len(body)%int(ix.EntryLen) != 0 {
		return nil, fail(16+len(body)/int(ix.EntryLen)*int(ix.EntryLen), ctf2meta.ErrTruncated, "LTTng packet index: %d trailing bytes, not a whole %d-byte entry", len(body)%int(ix.EntryLen), ix.EntryLen)
	}
	var prevEnd uint64
	for off := 0; off < len(body); off += int(ix.EntryLen) {
		e := body[off:]
		en := IndexEntry{Offset: be.Uint64(e), PacketBits: be.Uint64(e[8:]), ContentBits: be.Uint64(e[16:]),
			TimestampBegin: be.Uint64(e[24:]), TimestampEnd: be.Uint64(e[32:]), EventsDiscarded: be.Uint64(e[40:]), StreamID: be.Uint64(e[48:])}
		if minLen >= 72 {
			en.StreamInstanceID, en.PacketSeqNum, en.HasV11 = be.Uint64(e[56:]), be.Uint64(e[64:]), true
		}
		at, n := 16+off, len(ix.Entries)
		switch {
		case en.PacketBits%8 != 0 || en.ContentBits%8 != 0:
			return nil, fail(at, ctf2meta.ErrCorrupt, "index entry %d: packet size %d or content size %d bits is not a multiple of 8", n, en.PacketBits, en.ContentBits)
		case en.ContentBits > en.PacketBits:
			return nil, fail(at, ctf2meta.ErrCorrupt, "index entry %d: content size %d bits exceeds the packet size %d bits", n, en.ContentBits, en.PacketBits)
		case en.Offset < prevEnd:
			return nil, fail(at, ctf2meta.ErrCorrupt, "index entry %d: packet offset %d overlaps the previous packet (ends at %d)", n, en.Offset, prevEnd)
		case en.TimestampEnd < en.TimestampBegin:
			return nil, fail(at, ctf2meta.ErrCorrupt, "index entry %d: end timestamp %d before begin timestamp %d", n, en.TimestampEnd, en.TimestampBegin)
		}
		prevEnd = en.Offset + en.PacketBits/8
		ix.Entries = append(ix.Entries, en)
	}
	return ix, nil
}
