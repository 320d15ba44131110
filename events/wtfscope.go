package events

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// With WithScopeData and WithPairing, a wtf.scope#leave that closes a scope
// — the complete event pairing yields for the scope — carries that scope's
// arguments as the reference's database reports them (wtfcff.Scope.Args):
// the enter event's own arguments, then the data appended while the scope
// was open (wtf.scope#appendData name/value pairs, arguments of
// APPEND_SCOPE_DATA events). The tracker keeps them as one JSON object;
// scopeArgs splits it into typed arguments: strings, integers (int64), other
// numbers (float64), booleans and null as such, arrays and objects as
// composites written as they are.

// scopeArg is one member of a closed scope's arguments.
type scopeArg struct {
	name string
	v    Value
	raw  []byte // the member's JSON value
}

// scopeArgs returns the arguments of the scope the current event closed,
// parsed once per event.
func (s *wtfSource) scopeArgs() []scopeArg {
	if s.parsed {
		return s.members
	}
	s.parsed = true
	s.members, s.unq = s.members[:0], s.unq[:0]
	obj := s.closed.Args
	// The tracker writes valid JSON; a member that does not scan stops
	// the list there rather than failing the event.
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return s.members
	}
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd, ok := scanString(obj, i)
		if !ok {
			break
		}
		key := obj[i+1 : kEnd-1]
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			break
		}
		i = skipSpace(obj, i+1)
		vEnd, ok := scanValue(obj, i)
		if !ok {
			break
		}
		raw := obj[i:vEnd]
		s.members = append(s.members, scopeArg{name: s.memberName(key), raw: raw})
		s.members[len(s.members)-1].v = s.jsonValue(raw, len(s.members)-1)
		i = skipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return s.members
}

// memberName is a member's key as an interned string (unescaped).
func (s *wtfSource) memberName(key []byte) string {
	if n, ok := s.keys[string(key)]; ok {
		return n
	}
	var n string
	if hasEscape(key) {
		n = string(unescapeJSON(nil, key))
	} else {
		n = string(key)
	}
	if s.keys == nil {
		s.keys = map[string]string{}
	}
	if len(s.keys) < s.maxName {
		s.keys[string(key)] = n
	}
	return n
}

// jsonValue types one JSON value of member i.
func (s *wtfSource) jsonValue(raw []byte, i int) Value {
	switch c := raw[0]; {
	case c == '"':
		in := raw[1 : len(raw)-1]
		if !hasEscape(in) {
			return stringValue(in)
		}
		start := len(s.unq)
		s.unq = unescapeJSON(s.unq, in)
		return stringValue(s.unq[start:len(s.unq):len(s.unq)])
	case c == 't':
		return boolValue(true)
	case c == 'f':
		return boolValue(false)
	case c == 'n':
		return Value{}
	case c == '-' || '0' <= c && c <= '9':
		if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return intValue(v)
		}
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return floatValue(f)
		}
	}
	return compositeValue(s, i)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the end (past the closing quote) of the string at b[i].
func scanString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// scanValue returns the end of the JSON value at b[i].
func scanValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return scanString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := scanString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j, j > i
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// unescapeJSON appends the text of the JSON string body s (without quotes).
func unescapeJSON(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := hex4(s[i+1:])
			if n == 0 {
				dst = append(dst, '\\', 'u')
				continue
			}
			i += n
			if utf16.IsSurrogate(r) && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2, n2 := hex4(s[i+3:]); n2 > 0 {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r, i = d, i+2+n2
					}
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // \" \\ \/
			dst = append(dst, s[i])
		}
	}
	return dst
}

// hex4 reads 4 hex digits: the rune and 4, or 0 digits read.
func hex4(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, 0
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 4
}
