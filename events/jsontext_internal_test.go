package events

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"unicode/utf8"
)

// refJSONText is appendJSONText byte by byte: escapes for '"', '\\', \n,
// \r, \t, \u00XX for the other control characters, U+FFFD for each
// invalid UTF-8 byte, everything else as it is.
func refJSONText(s []byte) []byte {
	b := []byte{'"'}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c < 0x20:
			b = append(b, `\u00`...)
			if c < 0x10 {
				b = append(b, '0')
			}
			b = strconv.AppendUint(b, uint64(c), 16)
		case c < utf8.RuneSelf:
			b = append(b, c)
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, "\ufffd"...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		i++
	}
	return append(b, '"')
}

// TestAppendJSONTextRuns: appendJSONText, which copies runs of plain bytes
// at once, writes what the byte-by-byte definition writes, for strings and
// byte slices: every byte alone, between plain bytes, and random mixes of
// plain bytes, escapes, valid and invalid UTF-8.
func TestAppendJSONTextRuns(t *testing.T) {
	var inputs [][]byte
	for c := range 256 {
		inputs = append(inputs, []byte{byte(c)}, []byte{'a', byte(c), 'b', 'c'}, []byte{byte(c), byte(c), 'x'})
	}
	pieces := [][]byte{[]byte("plain text "), []byte(`"`), []byte(`\`), []byte("\n\r\t\x00\x1f\x7f"), []byte("é€😀"), {0xff}, {0xe2, 0x82}, {0xc3}, []byte("x")}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var s []byte
		for range rng.IntN(12) {
			s = append(s, pieces[rng.IntN(len(pieces))]...)
		}
		inputs = append(inputs, s)
	}
	for _, s := range inputs {
		want := string(refJSONText(s))
		if got := string(AppendJSONBytes([]byte("x"), s)); got != "x"+want {
			t.Fatalf("AppendJSONBytes(%q) = %s, want %s", s, got[1:], want)
		}
		if got := string(AppendJSONString(nil, string(s))); got != want {
			t.Fatalf("AppendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}
