package ctf2meta

import "encoding/binary"

// headerCheck decodes and validates packet headers against the rules of
// CTF 1.8 §7.1 and CTF2-PMETA-1.0 and against the stream's first packet.
type headerCheck struct {
	strict         bool
	rejectShortV20 bool
	maxPacket      int64
	first          PacketHeader
	have           bool

	// Fast path for the packets after the first (CTF 1.8 and PMETA
	// layouts): when the bytes that must equal packet 0's (magic, UUID,
	// schemes, version) do, only the sizes and the checksum are decoded.
	fast  bool
	hsize int       // packet 0's header size
	same  [4]uint64 // packet 0's bytes 0..19 and 32..36 (magic, UUID, schemes, version)
	hbits uint32    // packet 0's header size in bits
}

// sameBytes packs the header bytes every packet must share with packet 0:
// magic and UUID (0..19), schemes and version (32..36). b holds at least 37
// bytes.
func sameBytes(b []byte) [4]uint64 {
	_ = b[36]
	le := binary.LittleEndian
	return [4]uint64{le.Uint64(b), le.Uint64(b[8:]), uint64(le.Uint32(b[16:])) | uint64(le.Uint32(b[32:]))<<32, uint64(b[36])}
}

// decodeFast decodes the header of a packet after the first when its
// shared bytes equal packet 0's and its sizes and checksum are valid; it
// returns false otherwise. b holds at least c.hsize bytes.
func (c *headerCheck) decodeFast(b []byte) (h PacketHeader, ok bool) {
	_ = b[HeaderSizeCTF18-1]
	if sameBytes(b) != c.same {
		return h, false
	}
	var ck, cb, tb uint32
	hs := c.hbits
	if c.first.ByteOrder == BigEndian {
		ck, cb, tb = binary.BigEndian.Uint32(b[20:]), binary.BigEndian.Uint32(b[24:]), binary.BigEndian.Uint32(b[28:])
		if c.hsize == HeaderSizePMETA {
			hs = binary.BigEndian.Uint32(b[40:44])
		}
	} else {
		ck, cb, tb = binary.LittleEndian.Uint32(b[20:]), binary.LittleEndian.Uint32(b[24:]), binary.LittleEndian.Uint32(b[28:])
		if c.hsize == HeaderSizePMETA {
			hs = binary.LittleEndian.Uint32(b[40:44])
		}
	}
	if hs != c.hbits || (cb|tb)%8 != 0 || cb < c.hbits || tb < cb || (ck != 0 && c.strict) || int64(tb/8) > c.maxPacket {
		return h, false
	}
	h = c.first
	h.Checksum, h.ContentBits, h.TotalBits = ck, cb, tb
	if c.hsize == HeaderSizePMETA {
		h.Reserved = [3]byte{b[37], b[38], b[39]}
	}
	return h, true
}

func newHeaderCheck(o *options) headerCheck {
	return headerCheck{strict: o.strict, rejectShortV20: o.rejectShortV20, maxPacket: o.limits.MaxPacketBytes}
}

// decode decodes the header at the start of b (the rest of the input from
// the packet's first byte, possibly cut short), for packet idx at offset off.
// need > 0 means b is too short to decide and at least need bytes are wanted.
func (c *headerCheck) decode(b []byte, idx int, off int64) (h PacketHeader, need int, err error) {
	if c.fast && len(b) >= c.hsize {
		if h, ok := c.decodeFast(b); ok {
			return h, 0, nil
		}
		// Something differs or is wrong: the full decode below says what.
	}
	if len(b) < HeaderSizeCTF18 {
		return h, HeaderSizeCTF18, nil
	}
	bo, ok := magicOrder(b)
	if !ok {
		if idx == 0 {
			return h, 0, newErr(off, ErrBadMagic, "packet 0: magic %02x %02x %02x %02x is not 0x75d11d57 in either byte order: not packetized metadata", b[0], b[1], b[2], b[3])
		}
		return h, 0, newErr(off, ErrBadMagic, "packet %d: magic %02x %02x %02x %02x is not 0x75d11d57 in either byte order", idx, b[0], b[1], b[2], b[3])
	}
	if c.have && bo != c.first.ByteOrder {
		return h, 0, newErr(off, ErrCorrupt, "packet %d: header byte order %s differs from packet 0's %s", idx, bo, c.first.ByteOrder)
	}
	o := bo.order()
	h.ByteOrder = bo
	copy(h.UUID[:], b[4:20])
	h.Checksum = o.Uint32(b[20:])
	h.ContentBits = o.Uint32(b[24:])
	h.TotalBits = o.Uint32(b[28:])
	h.CompressionScheme, h.EncryptionScheme, h.ChecksumScheme = b[32], b[33], b[34]
	h.Major, h.Minor = b[35], b[36]
	h.HeaderBits = HeaderSizeCTF18 * 8
	switch {
	case h.Major == 1 && h.Minor == 8:
		h.Layout = LayoutCTF18
	case h.Major == 2 && h.Minor == 0:
		// PMETA if the header-size field says 352. In the 37-byte layout,
		// bytes 37.. are JSON text, never NUL, so zero reserved bytes with
		// another header size mean a broken PMETA header.
		if h.ContentBits >= 320 {
			if len(b) < HeaderSizePMETA {
				return h, HeaderSizePMETA, nil
			}
			hs := o.Uint32(b[40:])
			zeroRes := b[37] == 0 && b[38] == 0 && b[39] == 0
			switch {
			case hs == PMETAHeaderBits && h.ContentBits >= PMETAHeaderBits:
				h.Layout = LayoutPMETA
			case zeroRes || hs == PMETAHeaderBits:
				return h, 0, newErr(off, ErrCorrupt, "packet %d: header size field is %d bits with content size %d bits; CTF2-PMETA-1.0 requires a 352-bit header", idx, hs, h.ContentBits)
			default:
				h.Layout = LayoutV20Short
			}
			if h.Layout == LayoutPMETA {
				copy(h.Reserved[:], b[37:40])
				h.HeaderBits = hs
			}
		} else {
			h.Layout = LayoutV20Short
		}
		if h.Layout == LayoutV20Short && c.rejectShortV20 {
			return h, 0, newErr(off, ErrUnsupportedVersion, "packet %d: 37-byte header with version 2.0 (LTTng kernel ring-buffer layout) is not accepted", idx)
		}
	default:
		return h, 0, newErr(off, ErrUnsupportedVersion, "packet %d: unsupported metadata packet version %d.%d (expecting 1.8, or 2.0 for CTF2-PMETA-1.0)", idx, h.Major, h.Minor)
	}
	hbits := uint32(h.Layout.HeaderSize()) * 8
	switch {
	case h.ContentBits%8 != 0:
		return h, 0, newErr(off, ErrCorrupt, "packet %d: content size %d bits is not a multiple of 8", idx, h.ContentBits)
	case h.TotalBits%8 != 0:
		return h, 0, newErr(off, ErrCorrupt, "packet %d: total size %d bits is not a multiple of 8", idx, h.TotalBits)
	case h.ContentBits < hbits:
		return h, 0, newErr(off, ErrCorrupt, "packet %d: content size %d bits is less than the %d-bit header", idx, h.ContentBits, hbits)
	case h.TotalBits < h.ContentBits:
		return h, 0, newErr(off, ErrCorrupt, "packet %d: total size %d bits is less than the content size %d bits", idx, h.TotalBits, h.ContentBits)
	case h.CompressionScheme != 0:
		return h, 0, newErr(off, ErrUnsupported, "packet %d: compression scheme %d is not supported (must be 0)", idx, h.CompressionScheme)
	case h.EncryptionScheme != 0:
		return h, 0, newErr(off, ErrUnsupported, "packet %d: encryption scheme %d is not supported (must be 0)", idx, h.EncryptionScheme)
	case h.ChecksumScheme != 0:
		return h, 0, newErr(off, ErrUnsupported, "packet %d: checksum scheme %d is not supported (must be 0)", idx, h.ChecksumScheme)
	case h.Checksum != 0 && c.strict:
		return h, 0, newErr(off, ErrUnsupported, "packet %d: non-zero checksum field 0x%x (strict mode, as babeltrace; CTF2-PMETA-1.0 says to ignore it)", idx, h.Checksum)
	case int64(h.TotalBits/8) > c.maxPacket:
		return h, 0, newErr(off, ErrLimit, "packet %d: total size %d bytes exceeds the limit of %d", idx, h.TotalBits/8, c.maxPacket)
	}
	if c.have {
		if h.UUID != c.first.UUID {
			return h, 0, newErr(off, ErrCorrupt, "packet %d: UUID %s differs from packet 0's %s", idx, h.UUID, c.first.UUID)
		}
		if h.Layout != c.first.Layout {
			return h, 0, newErr(off, ErrCorrupt, "packet %d: header layout %s differs from packet 0's %s", idx, h.Layout, c.first.Layout)
		}
	} else {
		c.first, c.have = h, true
		c.hsize, c.hbits = h.Layout.HeaderSize(), uint32(h.Layout.HeaderSize())*8
		c.fast = h.Layout != LayoutV20Short
		c.same = sameBytes(b)
	}
	return h, 0, nil
}
