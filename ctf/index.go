package ctf

import (
	"encoding/binary"
	"fmt"
)

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
	ps, _, _, err := s.walkPackets()
	return ps, err
}

// walkPackets is Packets, also returning, when it fails, the number and
// byte offset of the packet that failed; s.skipAt lists the packets
// WithSkipDamagedPackets skipped (their header or context damaged).
func (s *Stream) walkPackets() (out []Packet, failIdx int, failOff int64, err error) {
	s.SeekPacket(0, 0)
	s.skipAt = s.skipAt[:0]
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
	err = s.err
	// the failing packet starts at s.next (which only a packet read whole
	// moves); s.pkt is it unless the failure came before its header
	failIdx, failOff = s.pkt.Index, s.next
	if s.pkt.Offset != s.next {
		failIdx++
	}
	s.SeekPacket(0, 0)
	return out, failIdx, failOff, err
}

// CheckIndex compares the stream's packets with its LTTng index: same
// offsets, sizes, begin/end clock values, discarded counters. An error
// wrapping ErrIndex names the index file (index/NAME.idx), the entry and
// what differs, at the entry's offset in the index file; other errors are
// the stream's own (its packets cannot be read).
func (s *Stream) CheckIndex() error {
	if s.Index == nil {
		return nil
	}
	ps, err := s.Packets()
	if err != nil {
		return err
	}
	// entry i's offset in the index file (72-byte entries from 1.1)
	entry := func(i int) int64 {
		if s.Index[0].HasStreamSeqNum {
			return int64(16 + i*72)
		}
		return int64(16 + i*56)
	}
	for i, e := range s.Index {
		off := entry(i)
		if i >= len(ps) {
			return newErr(off, ErrIndex, "%s lists %d packets, %s holds %d: entry %d (packet at offset %d) has no packet in the data stream file",
				s.indexName(), len(s.Index), s.Name, len(ps), i, e.Offset)
		}
		p := ps[i]
		var what string
		var idx, got uint64
		switch {
		case e.Offset != p.Offset:
			what, idx, got = "offset", uint64(e.Offset), uint64(p.Offset)
		case e.TotalBits != p.TotalBits:
			what, idx, got = "packet size (bits)", e.TotalBits, p.TotalBits
		case e.ContentBits != p.ContentBit:
			what, idx, got = "content size (bits)", e.ContentBits, p.ContentBit
		case p.HasBegin && e.Begin != p.Begin:
			what, idx, got = "timestamp_begin", e.Begin, p.Begin
		case p.HasEnd && e.End != p.End:
			what, idx, got = "timestamp_end", e.End, p.End
		case p.HasDiscarded && e.Discarded != p.Discarded:
			what, idx, got = "events_discarded", e.Discarded, p.Discarded
		default:
			continue
		}
		return newErr(off, ErrIndex, "%s entry %d says %s %d, packet %d of %s (offset %d) has %d", s.indexName(), i, what, idx, i, s.Name, p.Offset, got)
	}
	if len(ps) > len(s.Index) {
		return newErr(entry(len(s.Index)), ErrIndex, "%s lists %d packets, %s holds %d", s.indexName(), len(s.Index), s.Name, len(ps))
	}
	return nil
}

// notePacketsPastEnd counts the packets of the stream's index that start
// at or past the end of its file: packets the file lost (cut at a packet
// boundary, which the data alone cannot show; a packet cut inside is the
// stream's own recovery). Trace.Recovery counts them lost.
func (s *Stream) notePacketsPastEnd() {
	s.indexPast, s.pastBytes = 0, 0
	if len(s.Index) == 0 {
		return
	}
	last := &s.Index[len(s.Index)-1]
	end := uint64(last.Offset) + last.TotalBits/8
	for i := len(s.Index) - 1; i >= 0 && s.Index[i].Offset >= s.size; i-- {
		s.indexPast, s.indexPastAt = s.indexPast+1, i
	}
	if s.indexPast > 0 {
		s.pastBytes = int64(min(end-uint64(s.Index[s.indexPastAt].Offset), 1<<62))
	}
}

// pastEndNote says what notePacketsPastEnd found.
func (s *Stream) pastEndNote() string {
	return fmt.Sprintf("%s lists %d packets past the end of the file, which ends at byte %d (the first: entry %d, packet at offset %d): %d bytes lost",
		s.indexName(), s.indexPast, s.size, s.indexPastAt, s.Index[s.indexPastAt].Offset, s.pastBytes)
}

// indexName is the path of the stream's LTTng index in its trace folder.
func (s *Stream) indexName() string { return "index/" + s.Name + ".idx" }
