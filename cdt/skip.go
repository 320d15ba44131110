package cdt

import "encoding/binary"

// skipValue returns the encoded length of the msgpack value at the start of
// b, or -1 when b is truncated or holds the never-used byte 0xc1. It walks
// nested containers iteratively (no recursion, so no depth limit is needed):
// every declared element costs at least one input byte, so hostile counts end
// at the end of b.
func skipValue(b []byte) int {
	i, pending := 0, int64(1)
	for pending > 0 {
		if i >= len(b) {
			return -1
		}
		c := b[i]
		pending--
		switch {
		case c <= 0x7f || c >= 0xe0: // fixint
			i++
		case c <= 0x8f: // fixmap
			pending += 2 * int64(c&0x0f)
			i++
		case c <= 0x9f: // fixarray
			pending += int64(c & 0x0f)
			i++
		case c <= 0xbf: // fixstr
			i += 1 + int(c&0x1f)
		default:
			n, ok := skipFixed[c-0xc0], true
			switch c {
			case 0xc1:
				return -1
			case 0xc4, 0xd9: // bin8, str8
				if i+2 > len(b) {
					return -1
				}
				n = 2 + int(b[i+1])
			case 0xc5, 0xda: // bin16, str16
				if i+3 > len(b) {
					return -1
				}
				n = 3 + int(binary.BigEndian.Uint16(b[i+1:]))
			case 0xc6, 0xdb: // bin32, str32
				if i+5 > len(b) {
					return -1
				}
				n = 5 + int(binary.BigEndian.Uint32(b[i+1:]))
			case 0xc7: // ext8
				if i+2 > len(b) {
					return -1
				}
				n = 3 + int(b[i+1])
			case 0xc8: // ext16
				if i+3 > len(b) {
					return -1
				}
				n = 4 + int(binary.BigEndian.Uint16(b[i+1:]))
			case 0xc9: // ext32
				if i+5 > len(b) {
					return -1
				}
				n = 6 + int(binary.BigEndian.Uint32(b[i+1:]))
			case 0xdc, 0xde: // array16, map16
				if i+3 > len(b) {
					return -1
				}
				k := int64(binary.BigEndian.Uint16(b[i+1:]))
				if c == 0xde {
					k *= 2
				}
				pending += k
			case 0xdd, 0xdf: // array32, map32
				if i+5 > len(b) {
					return -1
				}
				k := int64(binary.BigEndian.Uint32(b[i+1:]))
				if c == 0xdf {
					k *= 2
				}
				pending += k
			default:
				ok = n > 0
			}
			if !ok {
				return -1
			}
			i += n
		}
	}
	if i > len(b) {
		return -1
	}
	return i
}

// skipFixed is the encoded size of the fixed-size types 0xc0..0xdf (0 for
// the variable ones handled in skipValue).
var skipFixed = [32]int{
	1, 0, 1, 1, // c0 nil, c1 unused, c2 false, c3 true
	0, 0, 0, 0, 0, 0, // c4..c9 bin/ext: variable
	5, 9, // ca float32, cb float64
	2, 3, 5, 9, // cc..cf uint8..uint64
	2, 3, 5, 9, // d0..d3 int8..int64
	3, 4, 6, 10, 18, // d4..d8 fixext
	0, 0, 0, // d9..db str: variable
	3, 5, 3, 5, // dc array16, dd array32, de map16, df map32
}
