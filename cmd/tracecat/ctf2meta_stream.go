package main

// Packet-level information for CTF data stream files whose trace has CTF 2
// metadata: each packet's header and context are decoded far enough to find
// the role-carrying fields (magic, data stream class id, sizes, timestamps,
// sequence number, discarded events). Only what real packet headers and
// contexts use is supported: structures, byte-aligned fixed-length integers
// and booleans of 8..64 bits, static-length BLOBs and variable-length
// integers. Anything else stops with a clear message; TSDL metadata is not
// parsed, so CTF 1.8 data streams are not decoded.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/internal/ferr"
)

type ctfPacketInfo struct {
	Offset         int64
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

// ctfStreamDecoder reads the packet header and context of data stream packets.
type ctfStreamDecoder struct {
	md  *ctf2meta.Metadata
	buf []byte
	pos uint64 // bit position in the packet
	end uint64 // bits available
	p   *ctfPacketInfo
	err error
}

const ctfPacketMagic = 0xC1FC1FC1

func ctfStreamMetadata(path string) (*ctf2meta.Metadata, error) {
	in, err := newInput(filepath.Join(filepath.Dir(path), "metadata"), nil)
	if err != nil {
		return nil, fmt.Errorf("data stream: no metadata beside it: %w", err)
	}
	m, err := ctfLoad(in)
	if err != nil {
		return nil, fmt.Errorf("data stream: its metadata is invalid: %w", err)
	}
	if m.meta == nil {
		return nil, errors.New("data stream: packet information needs CTF 2 metadata, and this trace's metadata is CTF 1.8 TSDL, which this tool does not parse: validate the trace folder or its metadata file instead")
	}
	return m.meta, nil
}

func ctfReadPackets(data []byte, md *ctf2meta.Metadata) ([]ctfPacketInfo, error) {
	var out []ctfPacketInfo
	for off := 0; off < len(data); {
		p := ctfPacketInfo{Offset: int64(off)}
		d := &ctfStreamDecoder{md: md, buf: data[off:], end: uint64(len(data)-off) * 8, p: &p}
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

func (d *ctfStreamDecoder) fail(msg string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(msg, args...)
	}
}

func ctfAlignment(md *ctf2meta.Metadata, fc ctf2meta.FieldClass) uint64 {
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
			a = max(a, ctfAlignment(md, m.FieldClass))
		}
		return a
	}
	return 8
}

func (d *ctfStreamDecoder) align(a uint64) {
	if a > 1 {
		d.pos = (d.pos + a - 1) &^ (a - 1)
	}
}

func (d *ctfStreamDecoder) field(fc ctf2meta.FieldClass, name string) {
	if d.err != nil {
		return
	}
	fc = d.md.Resolve(fc)
	switch f := fc.(type) {
	case *ctf2meta.Structure:
		d.align(ctfAlignment(d.md, f))
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
			if u != *d.md.Preamble.UUID {
				d.fail("field %q: metadata stream UUID %s differs from the metadata's %s", name, u, *d.md.Preamble.UUID)
			}
		}
		d.pos += f.Length * 8
	default:
		d.fail("field %q: %s field classes in packet headers and contexts are not supported by this tool", name, fc.Type())
	}
}

func (d *ctfStreamDecoder) fixed(b *ctf2meta.BitArray, name string) uint64 {
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

func (d *ctfStreamDecoder) leb128(name string) uint64 {
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

func (d *ctfStreamDecoder) role(roles []string, v uint64, name string) {
	p := d.p
	for _, r := range roles {
		switch r {
		case ctf2meta.RolePacketMagicNumber:
			if v != ctfPacketMagic {
				d.fail("packet magic %#x, want 0xc1fc1fc1", v)
			}
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

func ctfStreamPackets(in *input) ([]ctfPacketInfo, error) {
	if in.Path == "-" {
		return nil, fmt.Errorf("data stream on standard input: %w", errCTFNotMetadata)
	}
	md, err := ctfStreamMetadata(in.Path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(in.Path)
	if err != nil {
		return nil, err
	}
	return ctfReadPackets(data, md)
}

func ctfStreamValidate(in *input) (string, error) {
	ps, err := ctfStreamPackets(in)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("CTF data stream, %d packet(s); packet headers and contexts only, event records not decoded", len(ps)), nil
}

func ctfStreamStats(in *input) (statList, error) {
	ps, err := ctfStreamPackets(in)
	if err != nil {
		return nil, err
	}
	st := statList{{"kind", "data-stream"}, {"packets", len(ps)}}
	var content, discarded uint64
	var first, last any
	for i, p := range ps {
		content += p.ContentBits / 8
		discarded = max(discarded, p.Discarded)
		if p.HasBegin && (first == nil || p.TimestampBegin < first.(uint64)) {
			first = p.TimestampBegin
		}
		if p.HasEnd && (last == nil || p.TimestampEnd > last.(uint64)) {
			last = p.TimestampEnd
		}
		if i == 0 {
			st = append(st, stat{"data_stream_class_id", p.DSCID})
		}
	}
	return append(st, stat{"content_bytes", content}, stat{"first_timestamp", first}, stat{"last_timestamp", last}, stat{"events_discarded", discarded}), nil
}

func ctfStreamDump(in *input, w *bufio.Writer, o dumpOptions) error {
	ps, err := ctfStreamPackets(in)
	for i, p := range ps {
		if (o.Type != "" && o.Type != "packet") || !o.inIndex(int64(i)) {
			continue
		}
		if o.JSON {
			rec := map[string]any{"record": "packet", "index": i, "offset": p.Offset, "total_bits": p.TotalBits, "content_bits": p.ContentBits,
				"data_stream_class_id": p.DSCID, "events_discarded": p.Discarded}
			if p.HasBegin {
				rec["timestamp_begin"] = p.TimestampBegin
			}
			if p.HasEnd {
				rec["timestamp_end"] = p.TimestampEnd
			}
			if p.HasSeq {
				rec["seq_num"] = p.SeqNum
			}
			if werr := ctfWriteJSON(w, rec); werr != nil {
				return werr
			}
			continue
		}
		fmt.Fprintf(w, "packet %d offset %d: total=%d content=%d bits dsc=%d", i, p.Offset, p.TotalBits, p.ContentBits, p.DSCID)
		if p.HasBegin || p.HasEnd {
			fmt.Fprintf(w, " timestamps %d..%d", p.TimestampBegin, p.TimestampEnd)
		}
		w.WriteByte('\n')
	}
	return err
}
