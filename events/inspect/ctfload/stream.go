package ctfload

// Packet-level information for CTF data stream files whose trace has CTF 2
// metadata: each packet's header and context are decoded far enough to find
// the role-carrying fields (magic, data stream class id, sizes, timestamps,
// sequence number, discarded events). Only what real packet headers and
// contexts use is supported: structures, byte-aligned fixed-length integers
// and booleans of 8..64 bits, static-length BLOBs and variable-length
// integers. Anything else stops with a clear message. CTF 1.8 TSDL metadata
// is translated by ctf2meta.ParseTSDL into the same model first.

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/internal/ferr"
	"github.com/tracecodec/tracecodec/traceerr"
)

// PacketInfo is what a data stream packet's header and context say: where
// it starts, its total and content sizes in bits (when present), its data
// stream class id and sequence number, and the other header and context
// fields StreamPackets reads. Magic is the packet header's magic number
// (HasMagic: the header has one); a packet whose magic number is not
// 0xc1fc1fc1 is read all the same, as babeltrace2 2.1 reads it; so is one
// whose UUID differs from the metadata's (UUIDDiffers, the packet's UUID).
type PacketInfo struct {
	Offset         int64
	Magic          uint64
	HasMagic       bool
	UUID           ctf2meta.UUID
	UUIDDiffers    bool
	TotalBits      uint64
	ContentBits    uint64
	HasTotal       bool
	HasContent     bool
	DSCID          uint64
	SeqNum         uint64
	HasSeq         bool
	TimestampBegin uint64
	TimestampEnd   uint64
	HasBegin       bool
	HasEnd         bool
	Discarded      uint64
}

// streamDecoder reads the packet header and context of data stream packets.
type streamDecoder struct {
	md  *ctf2meta.Metadata
	buf []byte
	pos uint64 // bit position in the packet
	end uint64 // bits available
	p   *PacketInfo
	err error
}

const packetMagic = 0xC1FC1FC1

// MetadataProblem returns why the metadata of trace folder dir cannot
// describe the data stream files in it — no metadata file, or one that
// does not load or parse (what such a file given alone reports) — or nil
// when it can.
func MetadataProblem(dir string) error {
	_, err := dirMetadata(dir)
	return err
}

// streamMetadata returns the metadata model of the data stream file path:
// its folder's.
func streamMetadata(path string) (*ctf2meta.Metadata, error) {
	return dirMetadata(filepath.Dir(path))
}

// dirMetadata returns the metadata model of trace folder dir.
func dirMetadata(dir string) (*ctf2meta.Metadata, error) {
	mp := filepath.Join(dir, "metadata")
	fi, err := os.Stat(mp)
	if err != nil {
		return nil, fmt.Errorf("data stream: no metadata beside it: %w", err)
	}
	if !fi.Mode().IsRegular() {
		// (a folder named metadata would be read as a trace folder,
		// and its own metadata looked for inside it)
		what := "not a regular file"
		if fi.IsDir() {
			what = "a folder, not a file"
		}
		return nil, fmt.Errorf("data stream: the metadata beside it, %s, is %s", mp, what)
	}
	m, err := Load(Source{Path: mp, Bytes: func() ([]byte, error) { return os.ReadFile(mp) }})
	if err != nil {
		return nil, fmt.Errorf("data stream: its metadata is invalid: %w", err)
	}
	// CTF 2, or CTF 1.8 TSDL translated into the same model.
	md, err := m.Model()
	if err != nil {
		return nil, fmt.Errorf("data stream: its CTF 1.8 metadata is invalid: %w", err)
	}
	return md, nil
}

func readPackets(data []byte, md *ctf2meta.Metadata) ([]PacketInfo, error) {
	var out []PacketInfo
	for off := 0; off < len(data); {
		p := PacketInfo{Offset: int64(off)}
		d := &streamDecoder{md: md, buf: data[off:], end: uint64(len(data)-off) * 8, p: &p}
		if md.TraceClass != nil && md.TraceClass.PacketHeaderFieldClass != nil {
			d.field(md.TraceClass.PacketHeaderFieldClass, "")
		}
		dsc := md.DataStreamClass(p.DSCID)
		if d.err == nil && dsc == nil {
			d.fail("packet header selects data stream class %d, which the metadata does not define", p.DSCID)
		}
		if d.err == nil && dsc.PacketContextFieldClass != nil {
			d.field(dsc.PacketContextFieldClass, "")
		}
		if d.err != nil {
			return out, ferr.New("ctf", int64(off), ctf2meta.ErrCorrupt, "packet %d: %v", len(out), d.err)
		}
		if !p.HasTotal {
			p.TotalBits, p.HasTotal = uint64(len(data)-off)*8, true
		}
		if !p.HasContent {
			p.ContentBits = p.TotalBits
		}
		switch {
		case p.TotalBits%8 != 0 || p.TotalBits == 0:
			return out, ferr.New("ctf", int64(off), ctf2meta.ErrCorrupt, "packet %d: total size %d bits is not a positive multiple of 8", len(out), p.TotalBits)
		case p.ContentBits > p.TotalBits:
			return out, ferr.New("ctf", int64(off), ctf2meta.ErrCorrupt, "packet %d: content size %d bits exceeds the total size %d bits", len(out), p.ContentBits, p.TotalBits)
		case p.TotalBits/8 > uint64(len(data)-off):
			return out, ferr.New("ctf", int64(off), ctf2meta.ErrTruncated, "packet %d: total size %d bytes, only %d remain", len(out), p.TotalBits/8, len(data)-off)
		}
		out = append(out, p)
		off += int(p.TotalBits / 8)
	}
	return out, nil
}

func (d *streamDecoder) fail(msg string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(msg, args...)
	}
}

func alignment(md *ctf2meta.Metadata, fc ctf2meta.FieldClass) uint64 {
	switch f := md.Resolve(fc).(type) {
	case *ctf2meta.FixedLengthUnsignedInteger:
		return f.Alignment
	case *ctf2meta.FixedLengthSignedInteger:
		return f.Alignment
	case *ctf2meta.FixedLengthBoolean:
		return f.Alignment
	case *ctf2meta.FixedLengthBitArray:
		return f.Alignment
	case *ctf2meta.Structure:
		a := f.MinimumAlignment
		for _, m := range f.MemberClasses {
			a = max(a, alignment(md, m.FieldClass))
		}
		return a
	}
	return 8
}

func (d *streamDecoder) align(a uint64) {
	if a > 1 {
		d.pos = (d.pos + a - 1) &^ (a - 1)
	}
}

func (d *streamDecoder) field(fc ctf2meta.FieldClass, name string) {
	if d.err != nil {
		return
	}
	fc = d.md.Resolve(fc)
	switch f := fc.(type) {
	case *ctf2meta.Structure:
		d.align(alignment(d.md, f))
		for _, m := range f.MemberClasses {
			d.field(m.FieldClass, m.Name)
		}
	case *ctf2meta.FixedLengthUnsignedInteger:
		v := d.fixed(&f.BitArray, name)
		d.role(f.Roles, v, name)
	case *ctf2meta.FixedLengthSignedInteger:
		d.fixed(&f.BitArray, name)
	case *ctf2meta.FixedLengthBoolean:
		d.fixed(&f.BitArray, name)
	case *ctf2meta.FixedLengthBitArray:
		d.fixed(&f.BitArray, name)
	case *ctf2meta.VariableLengthUnsignedInteger:
		d.role(f.Roles, d.leb128(name), name)
	case *ctf2meta.VariableLengthSignedInteger:
		d.leb128(name)
	case *ctf2meta.StaticLengthBlob:
		d.align(8)
		if d.pos+f.Length*8 > d.end || f.Length > d.end {
			d.fail("field %q: %d-byte BLOB ends past the input", name, f.Length)
			return
		}
		if len(f.Roles) > 0 && f.Length == 16 && d.md.Preamble.UUID != nil {
			var u ctf2meta.UUID
			copy(u[:], d.buf[d.pos/8:])
			// Read all the same, as ctf.OpenDir and babeltrace2 2.1 read
			// it (MagicRecovery notes it).
			if u != *d.md.Preamble.UUID {
				d.p.UUID, d.p.UUIDDiffers = u, true
			}
		}
		d.pos += f.Length * 8
	default:
		d.fail("field %q: %s field classes in packet headers and contexts are not supported by this tool", name, fc.Type())
	}
}

func (d *streamDecoder) fixed(b *ctf2meta.BitArray, name string) uint64 {
	d.align(b.Alignment)
	if d.pos%8 != 0 || b.Length%8 != 0 || b.Length > 64 {
		d.fail("field %q: %d-bit field at bit %d: only byte-aligned 8..64-bit fields are supported by this tool", name, b.Length, d.pos)
		return 0
	}
	if d.pos+b.Length > d.end {
		d.fail("field %q ends past the input", name)
		return 0
	}
	raw := d.buf[d.pos/8 : (d.pos+b.Length)/8]
	var tmp [8]byte
	var v uint64
	if b.ByteOrder == "big-endian" {
		copy(tmp[8-len(raw):], raw)
		v = binary.BigEndian.Uint64(tmp[:])
	} else {
		copy(tmp[:], raw)
		v = binary.LittleEndian.Uint64(tmp[:])
	}
	d.pos += b.Length
	return v
}

func (d *streamDecoder) leb128(name string) uint64 {
	d.align(8)
	var v uint64
	for i := 0; ; i++ {
		if d.pos+8 > d.end || i == 10 {
			d.fail("field %q: variable-length integer ends past the input or is too long", name)
			return 0
		}
		c := d.buf[d.pos/8]
		d.pos += 8
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v
		}
	}
}

func (d *streamDecoder) role(roles []string, v uint64, name string) {
	p := d.p
	for _, r := range roles {
		switch r {
		case ctf2meta.RolePacketMagicNumber:
			// Not checked here: babeltrace2 2.1 never checks the magic
			// number (MagicRecovery notes it, CheckMagic refuses it).
			p.Magic, p.HasMagic = v, true
		case ctf2meta.RoleDataStreamClassID:
			p.DSCID = v
		case ctf2meta.RolePacketTotalLength:
			p.TotalBits, p.HasTotal = v, true
		case ctf2meta.RolePacketContentLength:
			p.ContentBits, p.HasContent = v, true
		case ctf2meta.RoleDefaultClockTimestamp:
			p.TimestampBegin, p.HasBegin = v, true
		case ctf2meta.RolePacketEndDefaultClockTimestamp:
			p.TimestampEnd, p.HasEnd = v, true
		case ctf2meta.RolePacketSequenceNumber:
			p.SeqNum, p.HasSeq = v, true
		case ctf2meta.RoleDiscardedEventRecordCounterSnapshot:
			p.Discarded = v
		}
	}
}

// StreamPackets reads the packet headers and contexts of the data stream
// file at path, with the metadata file beside it (CTF 2, or CTF 1.8 TSDL
// translated by Meta.Model). A packet header whose magic number is not
// 0xc1fc1fc1 is read, as ctf.OpenDir and
// babeltrace2 2.1 read it (MagicRecovery notes it; CheckMagic refuses it).
func StreamPackets(path string) ([]PacketInfo, error) {
	if path == "-" {
		return nil, fmt.Errorf("data stream on standard input: %w", ErrNotMetadata)
	}
	md, err := streamMetadata(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readPackets(data, md)
}

// countPackets returns how many packets of ps satisfy bad, and the index of
// the first (-1 when none).
func countPackets(ps []PacketInfo, bad func(*PacketInfo) bool) (n, first int) {
	first = -1
	for i := range ps {
		if bad(&ps[i]) {
			if n == 0 {
				first = i
			}
			n++
		}
	}
	return n, first
}

// badMagic returns how many packets of ps have a magic number other than
// 0xc1fc1fc1, and the index of the first.
func badMagic(ps []PacketInfo) (n, first int) {
	return countPackets(ps, func(p *PacketInfo) bool { return p.HasMagic && p.Magic != packetMagic })
}

// MagicRecovery is the recovery summary of a data stream file's packets ps
// (StreamPackets) whose packet headers hold a magic number other than
// 0xc1fc1fc1, or a UUID other than the metadata's — read as babeltrace2 2.1
// reads them, noted as ctf.OpenDir notes them in Stream.Recovery — or nil
// when every header is right.
func MagicRecovery(ps []PacketInfo) *traceerr.Recovery {
	var notes []string
	if n, i := badMagic(ps); n > 0 {
		notes = append(notes, fmt.Sprintf("%d packet headers hold a magic number other than 0xc1fc1fc1 (the first: packet %d, %#x); read as babeltrace2 2.1 does", n, i, ps[i].Magic))
	}
	if n, first := countPackets(ps, func(p *PacketInfo) bool { return p.UUIDDiffers }); n > 0 {
		notes = append(notes, fmt.Sprintf("%d packet headers hold a UUID other than the metadata's (the first: packet %d, %s); read as babeltrace2 2.1 does", n, first, ps[first].UUID))
	}
	if notes == nil {
		return nil
	}
	var size int64
	for _, p := range ps {
		size += int64(p.TotalBits / 8)
	}
	return &traceerr.Recovery{Format: "ctf", Unit: "packets", Read: int64(len(ps)), ReadBytes: size, StopOffset: -1, Notes: notes}
}

// CheckMagic refuses, as ctf.WithStrictMagic does, the first packet of ps
// whose magic number is not 0xc1fc1fc1: an error wrapping ctf.ErrBadMagic
// at its offset; nil when every magic number is right.
func CheckMagic(ps []PacketInfo) error {
	if n, i := badMagic(ps); n > 0 {
		return ferr.New("ctf", ps[i].Offset, ctf.ErrBadMagic, "packet %d: magic %#x, expecting 0xc1fc1fc1", i, ps[i].Magic)
	}
	return nil
}
