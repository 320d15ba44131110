package ctf

import (
	"unicode/utf8"
)

// String encodings of CTF 2 string field classes (FieldClass.enc).
const (
	encUTF8 uint8 = iota
	encUTF16BE
	encUTF16LE
	encUTF32BE
	encUTF32LE
)

var encNames = [...]string{"utf-8", "utf-16be", "utf-16le", "utf-32be", "utf-32le"}

// encodingOf returns the encoding code of a CTF 2 "encoding" value ("" is
// UTF-8) and whether it is known.
func encodingOf(s string) (uint8, bool) {
	if s == "" {
		return encUTF8, true
	}
	for i, n := range encNames {
		if n == s {
			return uint8(i), true
		}
	}
	return 0, false
}

// unitSize returns the code unit size in bytes of an encoding.
func unitSize(enc uint8) int {
	switch enc {
	case encUTF16BE, encUTF16LE:
		return 2
	case encUTF32BE, encUTF32LE:
		return 4
	}
	return 1
}

// unitAt returns the code unit of b at byte offset i (i+unitSize ≤ len(b)).
func unitAt(b []byte, i int, enc uint8) uint32 {
	switch enc {
	case encUTF16BE:
		return uint32(b[i])<<8 | uint32(b[i+1])
	case encUTF16LE:
		return uint32(b[i+1])<<8 | uint32(b[i])
	case encUTF32BE:
		return uint32(b[i])<<24 | uint32(b[i+1])<<16 | uint32(b[i+2])<<8 | uint32(b[i+3])
	case encUTF32LE:
		return uint32(b[i+3])<<24 | uint32(b[i+2])<<16 | uint32(b[i+1])<<8 | uint32(b[i])
	}
	return uint32(b[i])
}

// nullUnit returns the byte offset of the first null code unit of b (code
// units counted from b's start; a trailing partial unit is not one), or -1.
func nullUnit(b []byte, enc uint8) int {
	u := unitSize(enc)
	for i := 0; i+u <= len(b); i += u {
		if unitAt(b, i, enc) == 0 {
			return i
		}
	}
	return -1
}

// nextRune decodes the code point at byte offset i of b; n is the bytes it
// takes, 0 when b holds no valid code point there (an unpaired or reversed
// surrogate, a UTF-32 value that is a surrogate or above U+10FFFF, an
// incomplete code unit or pair at the end): what iconv, which babeltrace2
// converts with, refuses.
func nextRune(b []byte, i int, enc uint8) (rune, int) {
	u := unitSize(enc)
	if i+u > len(b) {
		return 0, 0
	}
	c := unitAt(b, i, enc)
	if u == 4 {
		if c >= 0xd800 && c < 0xe000 || c > utf8.MaxRune {
			return 0, 0
		}
		return rune(c), 4
	}
	switch {
	case c < 0xd800 || c >= 0xe000:
		return rune(c), 2
	case c >= 0xdc00 || i+4 > len(b):
		return 0, 0
	}
	d := unitAt(b, i+2, enc)
	if d < 0xdc00 || d >= 0xe000 {
		return 0, 0
	}
	return 0x10000 + rune(c-0xd800)<<10 + rune(d-0xdc00), 4
}

// badText returns the byte offset of the first invalid code point of b in
// a UTF-16 or UTF-32 encoding, or -1 when all of b is valid.
func badText(b []byte, enc uint8) int {
	for i := 0; i < len(b); {
		_, n := nextRune(b, i, enc)
		if n == 0 {
			return i
		}
		i += n
	}
	return -1
}

// appendUTF8 appends b, text in encoding enc, converted to UTF-8; an
// invalid code point (the decoder refuses them, so only in bytes it did not
// check) becomes U+FFFD.
func appendUTF8(dst, b []byte, enc uint8) []byte {
	if enc == encUTF8 {
		return append(dst, b...)
	}
	u := unitSize(enc)
	for i := 0; i < len(b); {
		r, n := nextRune(b, i, enc)
		if n == 0 {
			r, n = utf8.RuneError, min(u, len(b)-i)
		}
		dst = utf8.AppendRune(dst, r)
		i += n
	}
	return dst
}

// Encoding returns the encoding of a string field class: "utf-8",
// "utf-16be", "utf-16le", "utf-32be" or "utf-32le". Event.Bytes and
// Packet.Bytes give a string's bytes in this encoding; Event.AppendText and
// Packet.AppendText give its text in UTF-8.
func (fc *FieldClass) Encoding() string { return encNames[fc.enc] }

// AppendText appends the text of the string field Fields[i] in UTF-8
// (converted from UTF-16 or UTF-32 when its class has that encoding; the
// bytes of a UTF-8 string as they are).
func (e *Event) AppendText(dst []byte, i int) []byte {
	return appendUTF8(dst, e.Bytes(i), e.Stream.t.classes[e.Fields[i].cls].enc)
}

// AppendText appends the text of the string field Fields[i] in UTF-8, as
// Event.AppendText does.
func (p *Packet) AppendText(dst []byte, i int) []byte {
	return appendUTF8(dst, p.Bytes(i), p.t.classes[p.Fields[i].cls].enc)
}
