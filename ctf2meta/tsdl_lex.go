package ctf2meta

import (
	"errors"
	"strconv"
)

// ErrTSDL is wrapped by every error of ParseTSDL: the CTF 1.8 TSDL text is
// not valid metadata (syntax, an unknown type name, an unresolvable field
// path, an unsupported construct). The message names the line and column.
var ErrTSDL = errors.New("ctf2meta: invalid TSDL metadata")

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tInt    // unsigned decimal, hex or octal literal (sign is a separate token)
	tString // "…" with escapes resolved
	tChar   // '…'
	tPunct  // one of { } [ ] ( ) ; , = : . < > + - * and the multi-byte := ...
)

type token struct {
	kind tokKind
	text string // identifier, punctuation or string value
	u    uint64 // tInt value
	off  int    // byte offset in the text
}

// lexer splits TSDL text into tokens, keeping offsets for line and column.
type lexer struct {
	src []byte
	pos int
	err error
}

func (l *lexer) errAt(off int, msg string, args ...any) error {
	line, col := lineCol(l.src, off)
	return newErr(int64(off), ErrTSDL, "line %d, column %d: "+msg, append([]any{line, col}, args...)...)
}

// lineCol returns the 1-based line and column (in bytes) of off.
func lineCol(src []byte, off int) (int, int) {
	line, start := 1, 0
	if off > len(src) {
		off = len(src)
	}
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, off - start + 1
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// next returns the next token; at an error it returns tEOF with l.err set.
func (l *lexer) next() token {
	s := l.src
	for l.pos < len(s) {
		c := s[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
		case c == '/' && l.pos+1 < len(s) && s[l.pos+1] == '*':
			start := l.pos
			l.pos += 2
			for {
				if l.pos+1 >= len(s) {
					l.err = l.errAt(start, "unterminated comment")
					return token{kind: tEOF, off: len(s)}
				}
				if s[l.pos] == '*' && s[l.pos+1] == '/' {
					l.pos += 2
					break
				}
				l.pos++
			}
		case c == '/' && l.pos+1 < len(s) && s[l.pos+1] == '/':
			for l.pos < len(s) && s[l.pos] != '\n' {
				l.pos++
			}
		default:
			return l.token()
		}
	}
	return token{kind: tEOF, off: len(s)}
}

func (l *lexer) token() token {
	s, start := l.src, l.pos
	c := s[start]
	switch {
	case isIdentStart(c):
		for l.pos < len(s) && isIdentChar(s[l.pos]) {
			l.pos++
		}
		return token{kind: tIdent, text: string(s[start:l.pos]), off: start}
	case c >= '0' && c <= '9':
		for l.pos < len(s) && isIdentChar(s[l.pos]) {
			l.pos++
		}
		lit := string(s[start:l.pos])
		num := lit
		for len(num) > 1 && (num[len(num)-1]|0x20 == 'u' || num[len(num)-1]|0x20 == 'l') {
			num = num[:len(num)-1]
		}
		var v uint64
		var err error
		switch {
		case len(num) > 2 && num[0] == '0' && num[1]|0x20 == 'x':
			v, err = strconv.ParseUint(num[2:], 16, 64)
		case len(num) > 1 && num[0] == '0':
			v, err = strconv.ParseUint(num[1:], 8, 64)
		default:
			v, err = strconv.ParseUint(num, 10, 64)
		}
		if err != nil {
			l.err = l.errAt(start, "invalid integer literal %q", lit)
			return token{kind: tEOF, off: start}
		}
		return token{kind: tInt, u: v, text: lit, off: start}
	case c == '"' || c == '\'':
		l.pos++
		var b []byte
		for {
			if l.pos >= len(s) || s[l.pos] == '\n' {
				l.err = l.errAt(start, "unterminated literal")
				return token{kind: tEOF, off: start}
			}
			ch := s[l.pos]
			if ch == c {
				l.pos++
				break
			}
			if ch == '\\' && l.pos+1 < len(s) {
				l.pos++
				switch e := s[l.pos]; e {
				case 'n':
					ch = '\n'
				case 't':
					ch = '\t'
				case 'r':
					ch = '\r'
				case '0':
					ch = 0
				default:
					ch = e
				}
			}
			b = append(b, ch)
			l.pos++
		}
		k := tString
		if c == '\'' {
			k = tChar
		}
		return token{kind: k, text: string(b), off: start}
	case c == ':' && start+1 < len(s) && s[start+1] == '=':
		l.pos += 2
		return token{kind: tPunct, text: ":=", off: start}
	case c == '.' && start+2 < len(s) && s[start+1] == '.' && s[start+2] == '.':
		l.pos += 3
		return token{kind: tPunct, text: "...", off: start}
	case c == '-' && start+1 < len(s) && s[start+1] == '>':
		l.pos += 2
		return token{kind: tPunct, text: "->", off: start}
	}
	switch c {
	case '{', '}', '[', ']', '(', ')', ';', ',', '=', ':', '.', '<', '>', '+', '-', '*':
		l.pos++
		return token{kind: tPunct, text: string(c), off: start}
	}
	l.err = l.errAt(start, "invalid character %q", c)
	return token{kind: tEOF, off: start}
}
