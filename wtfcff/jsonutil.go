package wtfcff

import (
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string (see appendJSONBytes).
func appendJSONString(b []byte, s string) []byte {
	return appendJSONBytes(b, unsafe.Slice(unsafe.StringData(s), len(s)))
}

// appendJSONBytes appends UTF-8 text as a JSON string, escaped as
// JSON.stringify does. Invalid UTF-8 bytes become U+FFFD, as the reference's
// UTF-8 decoders produce. It does not allocate beyond growing b.
func appendJSONBytes(b []byte, s []byte) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		// A run of characters written as they are is appended at once.
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] < utf8.RuneSelf && s[j] != '"' && s[j] != '\\' {
			j++
		}
		b = append(b, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = appendASCIIEscaped(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, "\ufffd"...)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// appendASCIIEscaped escapes as JavaScript's JSON.stringify does, so text
// written here matches the JS writer byte for byte.
func appendASCIIEscaped(b []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(b, '\\', c)
	case c >= 0x20:
		return append(b, c)
	case c == '\n':
		return append(b, '\\', 'n')
	case c == '\r':
		return append(b, '\\', 'r')
	case c == '\t':
		return append(b, '\\', 't')
	case c == '\b':
		return append(b, '\\', 'b')
	case c == '\f':
		return append(b, '\\', 'f')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// appendJSONLatin1 appends bytes read as Latin-1 characters (char, char[]).
func appendJSONLatin1(b []byte, s []byte) []byte {
	b = append(b, '"')
	for _, c := range s {
		if c < utf8.RuneSelf {
			b = appendASCIIEscaped(b, c)
		} else {
			b = utf8.AppendRune(b, rune(c))
		}
	}
	return append(b, '"')
}

// appendJSONUTF16LE appends little-endian UTF-16 code units (wchar[]) as a
// JSON string; lone surrogates are written as \uXXXX escapes.
func appendJSONUTF16(b []byte, data []byte, big bool) []byte {
	n := len(data) / 2
	unit := func(i int) uint16 {
		if big {
			return uint16(data[2*i])<<8 | uint16(data[2*i+1])
		}
		return uint16(data[2*i]) | uint16(data[2*i+1])<<8
	}
	b = append(b, '"')
	for i := 0; i < n; i++ {
		u := unit(i)
		switch {
		case u >= 0xD800 && u < 0xDC00 && i+1 < n && unit(i+1) >= 0xDC00 && unit(i+1) < 0xE000:
			r := (rune(u)-0xD800)<<10 | (rune(unit(i+1)) - 0xDC00)
			b = utf8.AppendRune(b, r+0x10000)
			i++
		case u >= 0xD800 && u < 0xE000:
			b = append(b, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
		case u < utf8.RuneSelf:
			b = appendASCIIEscaped(b, byte(u))
		default:
			b = utf8.AppendRune(b, rune(u))
		}
	}
	return append(b, '"')
}
