package schema7

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// The query language compares values as the reference's Python does. These
// helpers give Python's meaning to the JSON value tree: whitespace
// (str.isspace), str(), repr(), == and float().

// isPySpace is Python's str.isspace (and the regular expression \s): Go's
// unicode.IsSpace plus the separators U+001C..U+001F.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// skipSpace returns the offset of the first non-space rune of s at or after i.
func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isPySpace(r) {
			break
		}
		i += n
	}
	return i
}

// pyRepr is Python's repr() of a str.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == ' ' || (r != utf8.RuneError && unicode.IsPrint(r)):
			b = utf8.AppendRune(b, r)
		case r < 0x100:
			b = append(b, `\x`...)
			b = appendHex(b, uint32(r), 2)
		case r < 0x10000:
			b = append(b, `\u`...)
			b = appendHex(b, uint32(r), 4)
		default:
			b = append(b, `\U`...)
			b = appendHex(b, uint32(r), 8)
		}
	}
	return string(append(b, q))
}

func appendHex(b []byte, v uint32, digits int) []byte {
	const hex = "0123456789abcdef"
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hex[(v>>(4*i))&0xf])
	}
	return b
}

// appendPyFloat appends Python's repr() of a float.
func appendPyFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	return pyjson.AppendFloat(b, f)
}

// pyStr is Python's str() of a value; strings are themselves.
func pyStr(v pyjson.Value) string {
	if v.Kind == pyjson.String {
		return v.S
	}
	return string(appendPyStr(nil, v))
}

// appendPyStr appends Python's str() of v.
func appendPyStr(b []byte, v pyjson.Value) []byte {
	if v.Kind == pyjson.String {
		return append(b, v.S...)
	}
	return appendPyRepr(b, v)
}

// pyStrCompare compares str(a) with str(b) as Python orders strings (by
// code point, which is the byte order of UTF-8), without allocating for
// short values.
func pyStrCompare(a, b pyjson.Value) int {
	if a.Kind == pyjson.String && b.Kind == pyjson.String {
		return strings.Compare(a.S, b.S)
	}
	var ab, bb [64]byte
	return bytes.Compare(appendPyStr(ab[:0], a), appendPyStr(bb[:0], b))
}

// appendPyRepr appends Python's repr() of v.
func appendPyRepr(b []byte, v pyjson.Value) []byte {
	switch v.Kind {
	case pyjson.Null:
		return append(b, "None"...)
	case pyjson.Bool:
		if v.B {
			return append(b, "True"...)
		}
		return append(b, "False"...)
	case pyjson.Int:
		if v.Unsigned {
			return strconv.AppendUint(b, v.U, 10)
		}
		return strconv.AppendInt(b, v.I, 10)
	case pyjson.Float:
		return appendPyFloat(b, v.F)
	case pyjson.String:
		return append(b, pyRepr(v.S)...)
	case pyjson.List:
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendPyRepr(b, it)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, k := range v.Keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, pyRepr(k)...)
		b = append(b, ": "...)
		b = appendPyRepr(b, v.Vals[i])
	}
	return append(b, '}')
}

// pyToFloat is the reference's _to_float: bools are 0/1, ints and floats
// their value, strings what Python's float() makes of them; anything else
// (None, lists, dicts, non-numeric strings) is not a number.
func pyToFloat(v pyjson.Value) (float64, bool) {
	switch v.Kind {
	case pyjson.Bool:
		if v.B {
			return 1, true
		}
		return 0, true
	case pyjson.Int:
		if v.Unsigned {
			return float64(v.U), true
		}
		return float64(v.I), true
	case pyjson.Float:
		return v.F, true
	case pyjson.String:
		return pyFloatString(v.S)
	}
	return 0, false
}

// pyFloatString is Python's float(s): surrounding whitespace, a sign, then
// inf, infinity or nan (any case) or a decimal number whose digit groups may
// be joined by single underscores, with an optional fraction and exponent.
func pyFloatString(s string) (float64, bool) {
	t := strings.TrimFunc(s, isPySpace)
	if t == "" {
		return 0, false
	}
	body := t
	neg := false
	if body[0] == '+' || body[0] == '-' {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	var clean []byte
	if neg {
		clean = append(clean, '-')
	}
	i := 0
	digits := func() int { // digit ("_"? digit)*; returns the digit count
		n := 0
		for i < len(body) {
			c := body[i]
			if c >= '0' && c <= '9' {
				clean = append(clean, c)
				n++
				i++
				continue
			}
			if c == '_' && n > 0 && i+1 < len(body) && body[i+1] >= '0' && body[i+1] <= '9' {
				i++
				continue
			}
			break
		}
		return n
	}
	n := digits()
	if i < len(body) && body[i] == '.' {
		clean = append(clean, '.')
		i++
		n += digits()
	}
	if n == 0 {
		return 0, false
	}
	if i < len(body) && (body[i] == 'e' || body[i] == 'E') {
		clean = append(clean, 'e')
		i++
		if i < len(body) && (body[i] == '+' || body[i] == '-') {
			clean = append(clean, body[i])
			i++
		}
		if digits() == 0 {
			return 0, false
		}
	}
	if i != len(body) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(clean), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// pyNumber reports whether v is a Python number (bool, int, float).
func pyNumber(v pyjson.Value) bool {
	return v.Kind == pyjson.Bool || v.Kind == pyjson.Int || v.Kind == pyjson.Float
}

// numEqual is Python's == between two numbers: ints (and bools) exactly,
// an int and a float by exact value.
func numEqual(a, b pyjson.Value) bool {
	if a.Kind == pyjson.Float || b.Kind == pyjson.Float {
		if a.Kind == pyjson.Float && b.Kind == pyjson.Float {
			return a.F == b.F
		}
		f, n := a, b
		if b.Kind == pyjson.Float {
			f, n = b, a
		}
		x := f.F
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			return false
		}
		if n.Kind == pyjson.Int && n.Unsigned {
			return x >= 1<<63 && x < 1<<64 && uint64(x) == n.U
		}
		if x < -(1<<63) || x >= 1<<63 {
			return false
		}
		return int64(x) == intOf(n)
	}
	if a.Unsigned || b.Unsigned {
		return a.Unsigned == b.Unsigned && a.U == b.U
	}
	return intOf(a) == intOf(b)
}

func intOf(v pyjson.Value) int64 {
	if v.Kind == pyjson.Bool {
		if v.B {
			return 1
		}
		return 0
	}
	return v.I
}

// pyEqual is Python's == on builtin values: numbers across bool, int and
// float; strings, None, lists element by element, dicts key by key.
func pyEqual(a, b pyjson.Value) bool {
	if pyNumber(a) && pyNumber(b) {
		return numEqual(a, b)
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case pyjson.Null:
		return true
	case pyjson.String:
		return a.S == b.S
	case pyjson.List:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !pyEqual(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	case pyjson.Map:
		if len(a.Keys) != len(b.Keys) {
			return false
		}
		for i, k := range a.Keys {
			bv, ok := b.Get(k)
			if !ok || !pyEqual(a.Vals[i], bv) {
				return false
			}
		}
		return true
	}
	return false
}
