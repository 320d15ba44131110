package ctf

import "encoding/binary"

// IndexEntry is one packet of an LTTng packet index (index/NAME.idx):
// where the packet is and what its context says, so a reader can seek to a
// time without decoding the packets before it.
type IndexEntry struct {
	Offset          int64  // byte offset of the packet in the data stream file
	TotalBits       uint64 // packet size
	ContentBits     uint64 // content size
	Begin, End      uint64 // default clock values (timestamp_begin, timestamp_end)
	Discarded       uint64 // discarded event record counter snapshot
	StreamClassID   uint64
	StreamID        uint64 // index ≥ 1.1
	SeqNum          uint64 // index ≥ 1.1
	HasStreamSeqNum bool
}

const indexMagic = 0xc1f1dcc1

// ParseIndex decodes an LTTng packet index file (CTF_INDEX 1.0 and 1.1;
// big-endian header of magic 0xc1f1dcc1, major, minor, entry length, then
// entries of 56 (1.0) or 72 (1.1) or more bytes, of which the known fields
// are read). Entries must be in increasing offset order.
func ParseIndex(b []byte) ([]IndexEntry, error) {
	if len(b) < 16 {
		return nil, newErr(0, ErrIndex, "index: %d bytes, shorter than its 16-byte header", len(b))
	}
	if m := binary.BigEndian.Uint32(b); m != indexMagic {
		return nil, newErr(0, ErrIndex, "index: magic %#x, expecting %#x", m, uint32(indexMagic))
	}
	major, minor := binary.BigEndian.Uint32(b[4:]), binary.BigEndian.Uint32(b[8:])
	elen := uint64(binary.BigEndian.Uint32(b[12:]))
	if major != 1 {
		return nil, newErr(4, ErrIndex, "index: version %d.%d, expecting 1.x", major, minor)
	}
	if elen < 56 || minor >= 1 && elen < 72 {
		return nil, newErr(12, ErrIndex, "index: entry length %d too small for version %d.%d", elen, major, minor)
	}
	body := b[16:]
	if uint64(len(body))%elen != 0 {
		return nil, newErr(16, ErrIndex, "index: %d bytes of entries is not a multiple of the entry length %d", len(body), elen)
	}
	n := uint64(len(body)) / elen
	out := make([]IndexEntry, 0, n)
	for i := uint64(0); i < n; i++ {
		e := body[i*elen:]
		u := func(k int) uint64 { return binary.BigEndian.Uint64(e[8*k:]) }
		ent := IndexEntry{Offset: int64(u(0)), TotalBits: u(1), ContentBits: u(2), Begin: u(3), End: u(4), Discarded: u(5), StreamClassID: u(6)}
		if elen >= 72 {
			ent.StreamID, ent.SeqNum, ent.HasStreamSeqNum = u(7), u(8), true
		}
		off := int64(16 + i*elen)
		switch {
		case ent.Offset < 0:
			return nil, newErr(off, ErrIndex, "index entry %d: offset out of range", i)
		case i > 0 && ent.Offset <= out[i-1].Offset:
			return nil, newErr(off, ErrIndex, "index entry %d: offset %d not after the previous entry's %d", i, ent.Offset, out[i-1].Offset)
		case ent.TotalBits%8 != 0 || ent.ContentBits > ent.TotalBits:
			return nil, newErr(off, ErrIndex, "index entry %d: sizes %d/%d bits invalid", i, ent.ContentBits, ent.TotalBits)
		}
		out = append(out, ent)
	}
	return out, nil
}

// Packets lists the packets of the stream by reading each packet's header
// and context (not its events). The stream's event iteration restarts at
// the first packet afterwards.
func (s *Stream) Packets() ([]Packet, error) {
	var out []Packet
	s.SeekPacket(0, 0)
	s.hdrOnly = true
	defer func() { s.hdrOnly = false }()
	for {
		if s.next >= s.size {
			break
		}
		if !s.nextPacket() {
			break
		}
		p := s.pkt
		p.Fields = nil
		out = append(out, p)
		if p.Cut {
			break
		}
	}
	err := s.err
	s.SeekPacket(0, 0)
	return out, err
}

// CheckIndex compares the stream's packets with its LTTng index: same
// offsets, sizes, begin/end clock values, discarded counters.
func (s *Stream) CheckIndex() error {
	if s.Index == nil {
		return nil
	}
	ps, err := s.Packets()
	if err != nil {
		return err
	}
	if len(ps) != len(s.Index) {
		return newErr(0, ErrIndex, "index of %s: %d entries for %d packets", s.Name, len(s.Index), len(ps))
	}
	for i, e := range s.Index {
		p := ps[i]
		if e.Offset != p.Offset || e.TotalBits != p.TotalBits || e.ContentBits != p.ContentBit ||
			p.HasBegin && e.Begin != p.Begin || p.HasEnd && e.End != p.End || p.HasDiscarded && e.Discarded != p.Discarded {
			return newErr(int64(16+i*72), ErrIndex, "index of %s: entry %d disagrees with packet %d at offset %d", s.Name, i, i, p.Offset)
		}
	}
	return nil
}
