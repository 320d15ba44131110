package schema7

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// ErrQuerySyntax is wrapped by every error of ParseQuery (a *QueryError).
var ErrQuerySyntax = errors.New("schema7: invalid query")

// QueryError is a query that does not parse: what is wrong and where.
type QueryError struct {
	Expr   string // the expression as given
	Offset int    // byte offset in Expr where the problem is
	Msg    string // the reference's message where it has one
}

// Column is the 1-based position of Offset in characters (runes).
func (e *QueryError) Column() int {
	off := min(max(e.Offset, 0), len(e.Expr))
	return utf8.RuneCountInString(e.Expr[:off]) + 1
}

// Error is "schema7: query: position N: what is wrong", N counted in characters
// from 1.
func (e *QueryError) Error() string {
	return fmt.Sprintf("schema7: query: position %d: %s", e.Column(), e.Msg)
}

// Is matches ErrQuerySyntax.
func (e *QueryError) Is(target error) bool { return target == ErrQuerySyntax }

// Query scopes.
const (
	ScopeTicks    = "ticks"
	ScopeEntities = "entities"
)

// DefaultQueryLimit is the reference's --limit default.
const DefaultQueryLimit = 256

// Comparison operators, in the order the reference's pattern tries them.
var queryOps = [...]string{"==", "!=", ">=", "<=", ">", "<"}

type operandKind uint8

const (
	operandLiteral operandKind = iota
	operandField
	operandPrev
)

// operand is one side of the condition.
type operand struct {
	kind operandKind
	text string       // as written, stripped
	lit  pyjson.Value // operandLiteral
	path valuePath    // operandField, operandPrev
}

// Expr is a parsed query: "ticks where LHS OP RHS" or "entities where LHS
// OP RHS". It is safe for concurrent use; each Run keeps its own state.
type Expr struct {
	text        string
	scope       string
	op          string
	left, right operand
}

// Scope is "ticks" or "entities".
func (e *Expr) Scope() string { return e.scope }

// String returns the expression as given.
func (e *Expr) String() string { return e.text }

// Condition returns the two sides as written (stripped) and the operator.
func (e *Expr) Condition() (left, op, right string) { return e.left.text, e.op, e.right.text }

// Literals reports which sides are literals (constants) rather than field
// paths or prev().
func (e *Expr) Literals() (left, right bool) {
	return e.left.kind == operandLiteral, e.right.kind == operandLiteral
}

// ParseQuery parses a query with the reference's grammar:
//
//	ticks|entities where LHS OP RHS       OP: == != >= <= > <
//
// split as the reference's regular expressions split it (the shortest LHS
// followed by an operator; spaces are Python's whitespace). Each side is,
// in the reference's order: prev(PATH) (the previous tick's value; None on
// the first tick and in the entities scope); true, false, none or null in
// any case; a Python literal (int, float, str, list or dict of these, True,
// False, None; underscores, 0x/0o/0b, signs and string escapes as Python
// reads them); otherwise a dotted field PATH into the tick summary or the
// entity row ({"tick_index", …row fields}), each step a dict key. Paths
// that lead nowhere are None. Python literals this package does not
// evaluate (tuples or parenthesised expressions, sets, bytes, dict keys that
// are not strings, ints beyond 64 bits) are reported as errors instead of
// being read as paths. Errors are *QueryError values naming the position.
func ParseQuery(expr string) (*Expr, error) {
	startErr := func(off int) error {
		return &QueryError{expr, off, "expression must start with 'ticks where ...' or 'entities where ...'"}
	}
	i := skipSpace(expr, 0)
	var scope string
	switch {
	case strings.HasPrefix(expr[i:], ScopeTicks):
		scope = ScopeTicks
	case strings.HasPrefix(expr[i:], ScopeEntities):
		scope = ScopeEntities
	default:
		return nil, startErr(i)
	}
	i += len(scope)
	j := skipSpace(expr, i)
	if j == i || !strings.HasPrefix(expr[j:], "where") {
		return nil, startErr(j)
	}
	i = j + len("where")
	j = skipSpace(expr, i)
	if j == i {
		return nil, startErr(i)
	}
	end := len(strings.TrimRightFunc(expr, isPySpace))
	condErr := &QueryError{expr, j, "expression condition must use one of: == != >= <= > <"}
	if end <= j {
		// Only spaces follow "where": the pattern still matches if it can
		// hand one of them (not the first, not a newline) to the condition,
		// which then has no operator.
		_, n := utf8.DecodeRuneInString(expr[i:])
		if strings.ContainsFunc(expr[i+n:], func(r rune) bool { return r != '\n' }) {
			condErr.Offset = i + n
			return nil, condErr
		}
		return nil, startErr(i)
	}
	cond := expr[j:end]
	if k := strings.IndexByte(cond, '\n'); k >= 0 {
		return nil, startErr(j + k) // '.' does not match a newline
	}
	// ^\s*(.+?)\s*(OP)\s*(.+?)\s*$: the shortest left side after which an
	// operator follows with something behind it.
	runEnd := 0 // end of the last run of spaces scanned: keeps the scan linear
	for li := 0; li < len(cond); {
		_, n := utf8.DecodeRuneInString(cond[li:])
		li += n
		k := runEnd
		if li >= runEnd {
			k = skipSpace(cond, li)
			runEnd = k
		}
		for _, op := range queryOps {
			if !strings.HasPrefix(cond[k:], op) || k+len(op) >= len(cond) {
				continue
			}
			e := &Expr{text: expr, scope: scope, op: op}
			var err error
			if e.left, err = parseOperand(expr, j, cond[:li], scope); err != nil {
				return nil, err
			}
			if e.right, err = parseOperand(expr, j+k+len(op), cond[k+len(op):], scope); err != nil {
				return nil, err
			}
			return e, nil
		}
	}
	return nil, condErr
}

// parseOperand reads one side; off is its byte offset in expr.
func parseOperand(expr string, off int, text string, scope string) (operand, error) {
	lead := skipSpace(text, 0)
	off += lead
	raw := strings.TrimRightFunc(text[lead:], isPySpace)
	o := operand{text: raw}
	if strings.HasPrefix(raw, "prev(") && strings.HasSuffix(raw, ")") && len(raw) >= len("prev()") {
		p := strings.TrimFunc(raw[len("prev("):len(raw)-1], isPySpace)
		if p == "" {
			return o, &QueryError{expr, off, "empty prev(...) field path"}
		}
		o.kind, o.path = operandPrev, compilePath(scope, p)
		return o, nil
	}
	switch strings.ToLower(raw) {
	case "true":
		o.lit = pyjson.BoolValue(true)
		return o, nil
	case "false":
		o.lit = pyjson.BoolValue(false)
		return o, nil
	case "none", "null":
		o.lit = pyjson.NullValue()
		return o, nil
	}
	v, ok, err := parseLiteral(raw)
	if err != nil {
		var le *literalError
		if errors.As(err, &le) {
			return o, &QueryError{expr, off + le.off, le.msg}
		}
		return o, &QueryError{expr, off, err.Error()}
	}
	if ok {
		o.lit = v
		return o, nil
	}
	o.kind, o.path = operandField, compilePath(scope, raw)
	return o, nil
}

// literalError is a Python literal this package does not evaluate.
type literalError struct {
	off int
	msg string
}

func (e *literalError) Error() string { return e.msg }

// litParser reads the subset of Python literals described at ParseQuery.
// A malformed literal is not an error: the reference then reads the text as
// a field path (ok false); only valid but unsupported literals are errors.
type litParser struct {
	s     string
	i     int
	depth int
}

// maxLiteralDepth bounds nesting so that a hostile expression cannot
// exhaust the stack.
const maxLiteralDepth = 64

func parseLiteral(s string) (v pyjson.Value, ok bool, err error) {
	p := &litParser{s: s}
	v, ok, err = p.value()
	if err != nil || !ok {
		return v, false, err
	}
	p.space()
	return v, p.i == len(p.s), nil
}

func (p *litParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\f', '\n', '\r':
			p.i++
		case '\\': // line continuation
			if p.i+1 < len(p.s) && p.s[p.i+1] == '\n' {
				p.i += 2
				continue
			}
			return
		default:
			return
		}
	}
}

func (p *litParser) unsupported(off int, what string) error {
	return &literalError{off, what + " literals are not supported in queries"}
}

func (p *litParser) value() (pyjson.Value, bool, error) {
	p.space()
	if p.i >= len(p.s) {
		return pyjson.Value{}, false, nil
	}
	if p.depth >= maxLiteralDepth {
		return pyjson.Value{}, false, &literalError{p.i, "literal nested too deeply"}
	}
	switch c := p.s[p.i]; {
	case c == '[':
		return p.list()
	case c == '{':
		return p.dict()
	case c == '(':
		return pyjson.Value{}, false, p.unsupported(p.i, "tuple and parenthesised")
	case c == '+' || c == '-':
		start := p.i
		p.i++
		p.space()
		if p.i >= len(p.s) || !(isDigit(p.s[p.i]) || (p.s[p.i] == '.' && p.i+1 < len(p.s) && isDigit(p.s[p.i+1]))) {
			return pyjson.Value{}, false, nil
		}
		v, ok, err := p.number()
		if !ok || err != nil || c == '+' {
			return v, ok, err
		}
		switch {
		case v.Kind == pyjson.Float:
			v.F = -v.F
		case v.Unsigned:
			if v.U == 1<<63 {
				return pyjson.IntValue(math.MinInt64), true, nil
			}
			return v, false, &literalError{start, "integer literal out of 64-bit range"}
		default:
			v.I = -v.I
		}
		return v, true, nil
	case isDigit(c) || (c == '.' && p.i+1 < len(p.s) && isDigit(p.s[p.i+1])):
		return p.number()
	case c == '"' || c == '\'':
		return p.strings()
	}
	// A string prefix, or a name (True, False, None inside containers).
	j := p.i
	for j < len(p.s) && (isDigit(p.s[j]) || p.s[j] == '_' || (p.s[j]|0x20 >= 'a' && p.s[j]|0x20 <= 'z')) {
		j++
	}
	word := p.s[p.i:j]
	if j < len(p.s) && (p.s[j] == '"' || p.s[j] == '\'') {
		switch strings.ToLower(word) {
		case "r", "u":
			return p.strings()
		case "b", "br", "rb":
			return pyjson.Value{}, false, p.unsupported(p.i, "bytes")
		}
		return pyjson.Value{}, false, nil // f-strings and others are not literals
	}
	if p.depth > 0 {
		switch word {
		case "True":
			p.i = j
			return pyjson.BoolValue(true), true, nil
		case "False":
			p.i = j
			return pyjson.BoolValue(false), true, nil
		case "None":
			p.i = j
			return pyjson.NullValue(), true, nil
		}
	}
	return pyjson.Value{}, false, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// items reads "elem, elem, …" up to close (a trailing comma allowed).
func (p *litParser) items(close byte, elem func() (bool, error)) (bool, error) {
	p.depth++
	defer func() { p.depth-- }()
	p.i++ // the opening bracket
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == close {
			p.i++
			return true, nil
		}
		ok, err := elem()
		if !ok || err != nil {
			return ok, err
		}
		p.space()
		if p.i >= len(p.s) {
			return false, nil
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case close:
			p.i++
			return true, nil
		default:
			return false, nil
		}
	}
}

func (p *litParser) list() (pyjson.Value, bool, error) {
	out := pyjson.ListValue()
	ok, err := p.items(']', func() (bool, error) {
		v, ok, err := p.value()
		if ok {
			out.Items = append(out.Items, v)
		}
		return ok, err
	})
	return out, ok, err
}

func (p *litParser) dict() (pyjson.Value, bool, error) {
	out := pyjson.NewMap()
	index := map[string]int{}
	start := p.i
	ok, err := p.items('}', func() (bool, error) {
		keyAt := p.i
		k, ok, err := p.value()
		if !ok || err != nil {
			return ok, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			if p.i < len(p.s) && (p.s[p.i] == ',' || p.s[p.i] == '}') {
				return false, p.unsupported(start, "set")
			}
			return false, nil
		}
		p.i++
		v, ok, err := p.value()
		if !ok || err != nil {
			return ok, err
		}
		if k.Kind != pyjson.String {
			return false, &literalError{keyAt, "dict literals with keys that are not strings are not supported in queries"}
		}
		if i, dup := index[k.S]; dup { // a repeated key keeps its place and takes the last value
			out.Vals[i] = v
			return true, nil
		}
		index[k.S] = len(out.Keys)
		out.Set(k.S, v)
		return true, nil
	})
	return out, ok, err
}

// number reads a Python int or float literal.
func (p *litParser) number() (pyjson.Value, bool, error) {
	s, start := p.s, p.i
	digitsOf := func(valid func(byte) bool, allowLeadingUnderscore bool) (string, bool) {
		var b []byte
		for p.i < len(s) {
			c := s[p.i]
			if valid(c) {
				b = append(b, c)
				p.i++
				continue
			}
			if c == '_' && (len(b) > 0 || allowLeadingUnderscore) && p.i+1 < len(s) && valid(s[p.i+1]) {
				p.i++
				continue
			}
			break
		}
		return string(b), len(b) > 0
	}
	notLiteral := pyjson.Value{}
	if s[p.i] == '0' && p.i+1 < len(s) {
		base := 0
		var valid func(byte) bool
		switch s[p.i+1] | 0x20 {
		case 'x':
			base, valid = 16, func(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
		case 'o':
			base, valid = 8, func(c byte) bool { return c >= '0' && c <= '7' }
		case 'b':
			base, valid = 2, func(c byte) bool { return c == '0' || c == '1' }
		}
		if base != 0 {
			p.i += 2
			d, ok := digitsOf(valid, true)
			if !ok || p.identAfter() {
				return notLiteral, false, nil
			}
			return intLiteral(d, base, start)
		}
	}
	intPart, _ := digitsOf(isDigit, false)
	isFloat := false
	if p.i < len(s) && s[p.i] == '.' {
		isFloat = true
		p.i++
		if p.i < len(s) && isDigit(s[p.i]) {
			frac, _ := digitsOf(isDigit, false)
			intPart += "." + frac
		}
	}
	if p.i < len(s) && s[p.i]|0x20 == 'e' {
		save := p.i
		p.i++
		sign := ""
		if p.i < len(s) && (s[p.i] == '+' || s[p.i] == '-') {
			sign = s[p.i : p.i+1]
			p.i++
		}
		if exp, ok := digitsOf(isDigit, false); ok {
			isFloat = true
			intPart += "e" + sign + exp
		} else {
			p.i = save
			return notLiteral, false, nil
		}
	}
	if p.i < len(s) && s[p.i]|0x20 == 'j' {
		return notLiteral, false, nil // complex: the reference reads the text as a path
	}
	if p.identAfter() {
		return notLiteral, false, nil
	}
	if isFloat {
		f, err := strconv.ParseFloat(intPart, 64)
		if err != nil && !math.IsInf(f, 0) {
			return notLiteral, false, nil
		}
		return pyjson.FloatValue(f), true, nil
	}
	if len(intPart) > 1 && strings.Trim(intPart, "0") != "" && intPart[0] == '0' {
		return notLiteral, false, nil // "01" is not a Python literal
	}
	return intLiteral(intPart, 10, start)
}

// identAfter reports whether a name character follows a number (1abc).
func (p *litParser) identAfter() bool {
	if p.i >= len(p.s) {
		return false
	}
	c := p.s[p.i]
	return isDigit(c) || c == '_' || c == '.' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

func intLiteral(d string, base int, off int) (pyjson.Value, bool, error) {
	n, ok := new(big.Int).SetString(d, base)
	if !ok {
		return pyjson.Value{}, false, nil
	}
	if n.IsInt64() {
		return pyjson.IntValue(n.Int64()), true, nil
	}
	if n.IsUint64() {
		return pyjson.UintValue(n.Uint64()), true, nil
	}
	return pyjson.Value{}, false, &literalError{off, "integer literal out of 64-bit range"}
}

// strings reads one or more adjacent string literals ('a' "b" → "ab").
func (p *litParser) strings() (pyjson.Value, bool, error) {
	var out strings.Builder
	first := true
	for {
		save := p.i
		if !first {
			p.space()
		}
		raw := false
		j := p.i
		for j < len(p.s) && j-p.i < 2 && p.s[j]|0x20 >= 'a' && p.s[j]|0x20 <= 'z' {
			j++
		}
		if j >= len(p.s) || (p.s[j] != '"' && p.s[j] != '\'') {
			if first {
				return pyjson.Value{}, false, nil
			}
			p.i = save
			return pyjson.StringValue(out.String()), true, nil
		}
		switch strings.ToLower(p.s[p.i:j]) {
		case "":
		case "r":
			raw = true
		case "u":
		case "b", "br", "rb":
			if first {
				return pyjson.Value{}, false, p.unsupported(p.i, "bytes")
			}
			return pyjson.Value{}, false, nil // str + bytes is a SyntaxError
		default:
			if first {
				return pyjson.Value{}, false, nil
			}
			p.i = save
			return pyjson.StringValue(out.String()), true, nil
		}
		p.i = j
		ok, err := p.oneString(&out, raw)
		if !ok || err != nil {
			return pyjson.Value{}, ok, err
		}
		first = false
	}
}

// oneString reads a quoted string at p.i into out.
func (p *litParser) oneString(out *strings.Builder, raw bool) (bool, error) {
	q := p.s[p.i]
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))
	if triple {
		p.i += 3
	} else {
		p.i++
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q && (!triple || strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))):
			if triple {
				p.i += 3
			} else {
				p.i++
			}
			return true, nil
		case c == '\n' && !triple:
			return false, nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return false, nil
			}
			if raw {
				out.WriteString(p.s[p.i : p.i+2])
				p.i += 2
				continue
			}
			ok, err := p.escape(out)
			if !ok || err != nil {
				return ok, err
			}
		default:
			out.WriteByte(c)
			p.i++
		}
	}
	return false, nil
}

var simpleEscapes = map[byte]string{'\n': "", '\\': "\\", '\'': "'", '"': "\"", 'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v"}

// escape decodes the backslash escape at p.i.
func (p *litParser) escape(out *strings.Builder) (bool, error) {
	at := p.i
	c := p.s[p.i+1]
	p.i += 2
	if s, ok := simpleEscapes[c]; ok {
		out.WriteString(s)
		return true, nil
	}
	hexRune := func(n int) bool {
		if p.i+n > len(p.s) {
			return false
		}
		v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
		if err != nil || strings.ContainsAny(p.s[p.i:p.i+n], "+-_") || v > utf8.MaxRune {
			return false
		}
		out.WriteRune(rune(v))
		p.i += n
		return true
	}
	switch {
	case c >= '0' && c <= '7':
		v := int(c - '0')
		for k := 0; k < 2 && p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '7'; k++ {
			v = v*8 + int(p.s[p.i]-'0')
			p.i++
		}
		out.WriteRune(rune(v))
		return true, nil
	case c == 'x':
		return hexRune(2), nil
	case c == 'u':
		return hexRune(4), nil
	case c == 'U':
		return hexRune(8), nil
	case c == 'N':
		return false, &literalError{at, `named escapes (\N{...}) are not supported in queries`}
	}
	out.WriteByte('\\') // an unknown escape keeps its backslash
	p.i--
	return true, nil
}
