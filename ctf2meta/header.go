package ctf2meta

import (
	"encoding/binary"
	"fmt"
)

// Magic is the metadata packet magic number. Its byte order in a packet gives
// the byte order of the packet's other header fields.
const Magic = 0x75d11d57

// Header sizes in bytes.
const (
	HeaderSizeCTF18 = 37 // CTF 1.8 §7.1, and the 37-byte version-2.0 layout
	HeaderSizePMETA = 44 // CTF2-PMETA-1.0
)

// PMETAHeaderBits is the value of the header-size field of a CTF2-PMETA-1.0
// header: 352 bits.
const PMETAHeaderBits = 352

// ByteOrder is the byte order of a packet header.
type ByteOrder uint8

// Byte orders.
const (
	LittleEndian ByteOrder = iota
	BigEndian
)

// String returns "little-endian" or "big-endian".
func (b ByteOrder) String() string {
	if b == BigEndian {
		return "big-endian"
	}
	return "little-endian"
}

// Short returns "le" or "be".
func (b ByteOrder) Short() string {
	if b == BigEndian {
		return "be"
	}
	return "le"
}

func (b ByteOrder) order() binary.ByteOrder {
	if b == BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// Layout is one of the three metadata packet header layouts.
type Layout uint8

// Layouts.
const (
	// LayoutCTF18 is the CTF 1.8 header: 37 bytes, version 1.8.
	LayoutCTF18 Layout = iota + 1
	// LayoutPMETA is the CTF2-PMETA-1.0 header: 44 bytes, version 2.0,
	// 3 reserved bytes and a header-size field of 352 bits.
	LayoutPMETA
	// LayoutV20Short is the 37-byte CTF 1.8 header carrying version 2.0, as the
	// LTTng ≥ 2.15 kernel metadata ring buffer writes it for CTF 2 sessions.
	LayoutV20Short
)

// HeaderSize returns the header size in bytes (0 for an invalid layout).
func (l Layout) HeaderSize() int {
	switch l {
	case LayoutCTF18, LayoutV20Short:
		return HeaderSizeCTF18
	case LayoutPMETA:
		return HeaderSizePMETA
	}
	return 0
}

// Version returns the major and minor version a header of this layout carries.
func (l Layout) Version() (major, minor uint8) {
	if l == LayoutCTF18 {
		return 1, 8
	}
	return 2, 0
}

// VersionString returns "1.8" or "2.0".
func (l Layout) VersionString() string {
	if l == LayoutCTF18 {
		return "1.8"
	}
	return "2.0"
}

// String describes the layout, e.g. "CTF2-PMETA-1.0 (44 bytes, version 2.0)".
func (l Layout) String() string {
	switch l {
	case LayoutCTF18:
		return "CTF 1.8 (37 bytes, version 1.8)"
	case LayoutPMETA:
		return "CTF2-PMETA-1.0 (44 bytes, version 2.0)"
	case LayoutV20Short:
		return "37 bytes, version 2.0"
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// UUID is a metadata stream UUID: 16 raw bytes.
type UUID [16]byte

// String returns the canonical form, e.g.
// "624812db-465e-464f-9ecc-a215d07bc420".
func (u UUID) String() string {
	const hexd = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexd[c>>4], hexd[c&15]
		j += 2
	}
	return string(b[:])
}

// PacketHeader is a decoded metadata packet header. Sizes are in bits and
// include the header, as on disk.
type PacketHeader struct {
	Layout            Layout
	ByteOrder         ByteOrder
	UUID              UUID
	Checksum          uint32
	ContentBits       uint32 // header + content
	TotalBits         uint32 // header + content + padding
	CompressionScheme uint8
	EncryptionScheme  uint8
	ChecksumScheme    uint8
	Major, Minor      uint8
	Reserved          [3]byte // LayoutPMETA only
	HeaderBits        uint32  // LayoutPMETA: the header-size field; others: 296
}

// HeaderSize is the header's size in bytes.
func (h *PacketHeader) HeaderSize() int { return h.Layout.HeaderSize() }

// ContentSize is the number of content bytes (excluding the header).
func (h *PacketHeader) ContentSize() int { return int(h.ContentBits/8) - h.HeaderSize() }

// PaddingSize is the number of padding bytes after the content.
func (h *PacketHeader) PaddingSize() int { return int(h.TotalBits/8) - int(h.ContentBits/8) }

// TotalSize is the packet's total size in bytes.
func (h *PacketHeader) TotalSize() int { return int(h.TotalBits / 8) }

// NewHeader returns a header of layout l in byte order bo with the given UUID,
// for contentSize content bytes followed by padding zero bytes.
func NewHeader(l Layout, bo ByteOrder, uuid UUID, contentSize, padding int) (PacketHeader, error) {
	hs := l.HeaderSize()
	if hs == 0 {
		return PacketHeader{}, fmt.Errorf("ctf2meta: invalid layout %d", uint8(l))
	}
	if contentSize < 0 || padding < 0 || int64(hs+contentSize+padding)*8 > 0xffffffff {
		return PacketHeader{}, fmt.Errorf("ctf2meta: packet of %d+%d+%d bytes does not fit the 32-bit size fields", hs, contentSize, padding)
	}
	maj, mnr := l.Version()
	return PacketHeader{
		Layout: l, ByteOrder: bo, UUID: uuid,
		ContentBits: uint32(hs+contentSize) * 8,
		TotalBits:   uint32(hs+contentSize+padding) * 8,
		Major:       maj, Minor: mnr,
		HeaderBits: uint32(hs) * 8,
	}, nil
}

// AppendHeader appends the encoded header to dst: 37 or 44 bytes depending on
// h.Layout. The version bytes written are h.Major/h.Minor.
func AppendHeader(dst []byte, h *PacketHeader) []byte {
	n := len(dst)
	hs := h.HeaderSize()
	if hs == 0 {
		hs = HeaderSizeCTF18
	}
	dst = append(dst, make([]byte, hs)...)
	putHeader(dst[n:n+hs], h)
	return dst
}

// putHeader writes h into b, which holds exactly the header's size.
func putHeader(b []byte, h *PacketHeader) {
	o := h.ByteOrder.order()
	_ = b[36]
	o.PutUint32(b[0:], Magic)
	copy(b[4:20], h.UUID[:])
	o.PutUint32(b[20:], h.Checksum)
	o.PutUint32(b[24:], h.ContentBits)
	o.PutUint32(b[28:], h.TotalBits)
	b[32], b[33], b[34] = h.CompressionScheme, h.EncryptionScheme, h.ChecksumScheme
	b[35], b[36] = h.Major, h.Minor
	if len(b) >= HeaderSizePMETA {
		copy(b[37:40], h.Reserved[:])
		o.PutUint32(b[40:], h.HeaderBits)
	}
}

// magicOrder returns the byte order of the magic at the start of b.
func magicOrder(b []byte) (ByteOrder, bool) {
	switch binary.LittleEndian.Uint32(b) {
	case Magic:
		return LittleEndian, true
	case 0x571dd175:
		return BigEndian, true
	}
	return 0, false
}

// IsPacketized reports whether b starts with the metadata packet magic in
// either byte order.
func IsPacketized(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	_, ok := magicOrder(b)
	return ok
}
