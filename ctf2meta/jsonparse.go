package ctf2meta

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"reflect"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// parseJSON parses one JSON text (RFC 8259) into the generic tree
// encoding/json produces with UseNumber: map[string]any, []any,
// json.Number, string, bool and nil. It is a single pass, about three times
// faster than encoding/json for metadata. Invalid UTF-8 in strings becomes
// U+FFFD as in encoding/json; a key given twice in an object is a syntax
// error at the second one, as in babeltrace2 2.1 ("Duplicate JSON object
// key").
//
// Every value is charged to bud (when not nil) what it costs in Go memory
// (see the charge constants); parsing stops with a *jsonLimitError when the
// budget is spent.
//
// js (when not nil) is kept from one parse to the next: its scratch space
// is reused, and short strings and numbers seen before are shared (see
// jsonScratch), which is what makes a stream of thousands of small texts
// cheap to parse.
func parseJSON(b []byte, maxDepth int, bud *memBudget, js *jsonScratch) (any, error) {
	if js == nil {
		js = new(jsonScratch)
	}
	p := jsonParser{b: b, maxDepth: maxDepth, bud: bud, js: js}
	clear(js.order)
	p.space()
	v := p.value()
	if p.err == nil {
		p.space()
		if p.i < len(p.b) {
			p.fail("data after the JSON text")
		}
	}
	js.stack.drop(0)
	return v, p.err
}

// jsonScratch is what parseJSON keeps between texts: the array scratch
// stack, the buffer for strings with escapes, and the interned strings and
// numbers. A metadata stream repeats a small vocabulary (property names,
// type names, byte orders, small numbers) in every fragment; each such
// string or number is allocated and boxed once and then shared by every
// value that spells it, instead of once per occurrence. At most
// internMax strings and internMax numbers of at most internLen bytes are
// kept, the first ones seen, so the tables stay small whatever the input.
//
// The decoder keeps its Common.present key lists here too (present: by
// their keys, each length-prefixed; keys and sig: scratch).
type jsonScratch struct {
	stack   scratch[any]
	sb      []byte
	strs    map[string]any // string(b) -> any(string(b))
	nums    map[string]any // string(b) -> any(json.Number(b))
	present map[string][]string
	keys    []string
	sig     []byte

	// The direct decoder's (direct.go): present key lists by key set, and
	// stacks where the elements of arrays gather before they move to a
	// slice of their exact length.
	presentBits map[uint64][]string

	// the text order of the keys of each "mappings" object of the
	// current text with two or more keys, by the object's map pointer
	order     map[uintptr][]string
	members   scratch[StructureMember]
	options   scratch[VariantOption]
	ranges    scratch[Range]
	pathElems scratch[PathElement]

	// the unknown key sets of the objects being read (direct.go,
	// ukeySet): their slots, the decoded keys, slots being rehashed, and
	// the hash seed
	ukTab    []uint64
	ukBuf    []byte
	ukTmp    []uint64
	ukSeed   maphash.Seed
	ukSeeded bool
}

const (
	internMax = 4096
	internLen = 64
)

// intern returns the boxed value of the text t in table *tab, made by mk
// and added to the table when there is room.
func intern(tab *map[string]any, t []byte, mk func(string) any) any {
	if v, ok := (*tab)[string(t)]; ok {
		return v
	}
	v := mk(string(t))
	if len(t) <= internLen {
		if *tab == nil {
			*tab = make(map[string]any)
		}
		if len(*tab) < internMax {
			(*tab)[string(t)] = v
		}
	}
	return v
}

func boxString(s string) any { return s }
func boxNumber(s string) any { return json.Number(s) }

// jsonSyntaxError is a JSON syntax error at Offset in the text.
type jsonSyntaxError struct {
	Offset    int
	Msg       string
	Truncated bool
	Depth     bool // nested deeper than allowed
}

func (e *jsonSyntaxError) Error() string { return e.Msg }

// Go memory charged per decoded JSON value, in bytes: an upper estimate of
// what the value takes (its slot in the parent slice or map, the boxed
// value, and for arrays the parser's scratch slot), measured on amd64 with
// Go 1.24. String and number bytes and object keys are charged on top.
const (
	chargeValue  = 48  // every value: its slot and scratch slot, a boxed header
	chargeArray  = 32  // an array's slice header
	chargeObject = 320 // an object's map: header and first group of 8 slots
	chargeMember = 80  // each object member: its map slot, growth included
)

// memBudget counts the Go memory decoded JSON values take, as charged.
type memBudget struct {
	used  int64
	limit int64
}

// jsonLimitError reports a spent memory budget at Offset in the text.
type jsonLimitError struct {
	Offset      int
	Used, Limit int64
}

func (e *jsonLimitError) Error() string {
	return fmt.Sprintf("decoded JSON values would take more than %d bytes of memory", e.Limit)
}

// smallNumbers holds the boxed json.Number values "0" to "255", shared by
// every parse: the numbers metadata uses most (lengths, alignments, ids)
// then cost no allocation.
var smallNumbers = func() (t [256]any) {
	for i := range t {
		t[i] = json.Number(strconv.Itoa(i))
	}
	return t
}()

type jsonParser struct {
	b        []byte
	i        int
	depth    int
	maxDepth int
	err      error
	js       *jsonScratch // scratch stack (array elements, copied out at ']'), interned values
	bud      *memBudget
	// mappings: the value being parsed is that of a "mappings" member,
	// whose keys' text order is kept (jsonScratch.order)
	mappings bool
}

// scratch is a stack of values kept in chunks of scratchChunk values, so
// that growing it never copies more than one chunk (an append-grown slice
// would allocate about five times its final size along the way). The first
// chunk grows as needed, so that small metadata does not pay for whole
// chunks; the others are made whole.
type scratch[T any] struct {
	chunks [][]T
	n      int
}

const scratchChunk = 1024

func (s *scratch[T]) push(v T) {
	c, k := s.n/scratchChunk, s.n%scratchChunk
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, make([]T, 0, min(c*scratchChunk+8, scratchChunk)))
	}
	if k < len(s.chunks[c]) {
		s.chunks[c][k] = v
	} else {
		s.chunks[c] = append(s.chunks[c], v) // never past scratchChunk values: k < scratchChunk
	}
	s.n++
}

// pop returns the values from base on in a new slice of their exact length
// and removes them.
func (s *scratch[T]) pop(base int) []T {
	out := make([]T, s.n-base)
	var zero T
	for i := range out {
		j := base + i
		c := s.chunks[j/scratchChunk]
		out[i] = c[j%scratchChunk]
		c[j%scratchChunk] = zero
	}
	s.n = base
	return out
}

// drop removes the values from base on.
func (s *scratch[T]) drop(base int) {
	var zero T
	for j := base; j < s.n; j++ {
		s.chunks[j/scratchChunk][j%scratchChunk] = zero
	}
	s.n = base
}

// charge adds n bytes to the budget; it fails the parse and returns false
// when the budget is spent.
func (p *jsonParser) charge(n int) bool {
	if p.bud == nil {
		return true
	}
	p.bud.used += int64(n)
	if p.bud.used > p.bud.limit {
		if p.err == nil {
			p.err = &jsonLimitError{Offset: p.i, Used: p.bud.used, Limit: p.bud.limit}
		}
		return false
	}
	return true
}

func (p *jsonParser) fail(msg string, args ...any) {
	if p.err == nil {
		p.err = &jsonSyntaxError{Offset: p.i, Msg: fmt.Sprintf(msg, args...)}
	}
}

func (p *jsonParser) eof() {
	if p.err == nil {
		p.err = &jsonSyntaxError{Offset: p.i, Msg: "unexpected end of JSON input", Truncated: true}
	}
}

// space moves past white space (inlined: half the calls find none).
func (p *jsonParser) space() {
	if p.i < len(p.b) && p.b[p.i] > ' ' {
		return
	}
	p.spaceRun()
}

func (p *jsonParser) spaceRun() {
	b, i := p.b, p.i
	// Pretty-printed text: a newline and the next line's indentation, eight
	// bytes at a time, ended by the line's first token.
	if i < len(b) && b[i] == '\n' {
		i++
		for i+8 <= len(b) {
			if x := binary.LittleEndian.Uint64(b[i:]) ^ 0x2020202020202020; x != 0 {
				i += bits.TrailingZeros64(x) >> 3
				break
			}
			i += 8
		}
		if i < len(b) && b[i] > ' ' {
			p.i = i
			return
		}
	}
	for i < len(b) {
		switch c := b[i]; {
		case c > ' ':
			p.i = i
			return
		case c == ' ':
			if i+1 < len(b) && b[i+1] > ' ' { // one space, as after ':'
				p.i = i + 1
				return
			}
			// Indentation: eight bytes at a time; the first byte of a
			// word that is not a space ends the run.
			for i+8 <= len(b) {
				if x := binary.LittleEndian.Uint64(b[i:]) ^ 0x2020202020202020; x != 0 {
					i += bits.TrailingZeros64(x) >> 3
					break
				}
				i += 8
			}
			if i < len(b) && b[i] == ' ' {
				i++ // the last bytes of the text
			}
		case c == '\n' || c == '\t' || c == '\r':
			i++
		default:
			p.i = i
			return
		}
	}
	p.i = i
}

func (p *jsonParser) value() any {
	if p.i >= len(p.b) {
		p.eof()
		return nil
	}
	if !p.charge(chargeValue) {
		return nil
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.strValue()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	default:
		p.fail("invalid character %q looking for the beginning of a value", c)
		return nil
	}
}

func (p *jsonParser) literal(word string, v any) any {
	for k := 0; k < len(word); k++ {
		if p.i+k >= len(p.b) {
			p.i += k
			p.eof()
			return nil
		}
		if p.b[p.i+k] != word[k] {
			p.i += k
			p.fail("invalid character %q in literal %s", p.b[p.i], word)
			return nil
		}
	}
	p.i += len(word)
	return v
}

func (p *jsonParser) enter() bool {
	p.depth++
	if p.depth > p.maxDepth {
		if p.err == nil {
			p.err = &jsonSyntaxError{Offset: p.i, Depth: true,
				Msg: fmt.Sprintf("JSON values nested deeper than %d (3 × Limits.MaxDepth + 8)", p.maxDepth)}
		}
		return false
	}
	return true
}

func (p *jsonParser) object() any {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	if !p.charge(chargeObject) {
		return nil
	}
	keep := p.mappings
	p.mappings = false
	var order []string
	p.i++ // {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return map[string]any{}
	}
	// Room for 8 members from the start (one group, what chargeObject
	// counts): most metadata objects have up to 8, and the map then never
	// grows from its empty form.
	m := make(map[string]any, 8)
	for {
		p.space()
		if p.i >= len(p.b) {
			p.eof()
			return nil
		}
		if p.b[p.i] != '"' {
			p.fail("invalid character %q looking for an object key", p.b[p.i])
			return nil
		}
		koff := p.i
		k := p.key()
		if p.err != nil || !p.charge(chargeMember+len(k)) {
			return nil
		}
		p.space()
		if p.i >= len(p.b) {
			p.eof()
			return nil
		}
		if p.b[p.i] != ':' {
			p.fail("invalid character %q after object key", p.b[p.i])
			return nil
		}
		p.i++
		p.space()
		p.mappings = k == "mappings"
		v := p.value()
		p.mappings = false
		if p.err != nil {
			return nil
		}
		n := len(m)
		m[k] = v
		if len(m) == n {
			// babeltrace2 refuses a duplicate key in any object.
			p.err = &jsonSyntaxError{Offset: koff, Msg: fmt.Sprintf("duplicate object key %q", k)}
			return nil
		}
		if keep {
			order = append(order, k)
		}
		p.space()
		if p.i >= len(p.b) {
			p.eof()
			return nil
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			if len(order) > 1 {
				if p.js.order == nil {
					p.js.order = map[uintptr][]string{}
				}
				p.js.order[reflect.ValueOf(m).Pointer()] = order
			}
			return m
		default:
			p.fail("invalid character %q after object value", p.b[p.i])
			return nil
		}
	}
}

func (p *jsonParser) array() any {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	p.mappings = false
	if !p.charge(chargeArray) {
		return nil
	}
	p.i++ // [
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return []any{}
	}
	// Elements gather on the shared scratch stack (nested arrays push above
	// this one's), then move to a slice of the exact length: no append
	// growth garbage per array.
	base := p.js.stack.n
	defer p.js.stack.drop(base) // on error; pop empties it on success
	for {
		p.space()
		v := p.value()
		if p.err != nil {
			return nil
		}
		p.js.stack.push(v)
		p.space()
		if p.i >= len(p.b) {
			p.eof()
			return nil
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return p.js.stack.pop(base)
		default:
			p.fail("invalid character %q after array element", p.b[p.i])
			return nil
		}
	}
}

func (p *jsonParser) number() any {
	t := p.numToken()
	if t == nil {
		return nil
	}
	if n, ok := smallDecimal(t); ok {
		return smallNumbers[n]
	}
	if !p.charge(len(t)) {
		return nil
	}
	return intern(&p.js.nums, t, boxNumber)
}

// numToken moves past the JSON number at p.i and returns its text (nil
// after an error).
func (p *jsonParser) numToken() []byte {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		p.bad("number")
		return nil
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			p.bad("number fraction")
			return nil
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.bad("number exponent")
			return nil
		}
	}
	return p.b[start:p.i]
}

// smallDecimal returns the value of t when t is a plain decimal integer in
// [0, 255] (no sign, fraction or exponent; JSON has no leading zeros).
func smallDecimal(t []byte) (int, bool) {
	if len(t) == 0 || len(t) > 3 {
		return 0, false
	}
	n := 0
	for _, c := range t {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= 255
}

func (p *jsonParser) bad(what string) {
	if p.i >= len(p.b) {
		p.eof()
		return
	}
	p.fail("invalid character %q in %s", p.b[p.i], what)
}

var errBadEscape = errors.New("bad escape")

// strValue is str as a value: a string without escapes is interned.
func (p *jsonParser) strValue() any {
	if t, ok := p.plainString(); ok {
		if !p.charge(len(t)) {
			return nil
		}
		return intern(&p.js.strs, t, boxString)
	}
	s := p.str()
	if p.err != nil {
		return nil
	}
	return s
}

// key is str for an object key: a key without escapes is interned.
func (p *jsonParser) key() string {
	if t, ok := p.plainString(); ok {
		if !p.charge(len(t)) {
			return ""
		}
		return intern(&p.js.strs, t, boxString).(string)
	}
	return p.str()
}

// plainString returns the content of the string at p.i and moves past it
// when it is valid UTF-8 without escapes or control characters; otherwise
// it leaves p.i and returns false (str then decodes or reports it).
func (p *jsonParser) plainString() ([]byte, bool) {
	b := p.b
	var high byte // the OR of the bytes: ≥ 0x80 when not ASCII
	j := p.i + 1
	// Eight bytes at a time while none is '"', '\\', a control character
	// or ≥ 0x80: each term sets the top bit of such a byte (and maybe of
	// bytes after it, never before), so the lowest top bit set is the
	// first byte the loop below must look at.
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	for ; j+8 <= len(b); j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		q, bs := w^(ones*'"'), w^(ones*'\\')
		if m := (w | (w-ones*0x20)&^w | (q-ones)&^q | (bs-ones)&^bs) & tops; m != 0 {
			j += bits.TrailingZeros64(m) >> 3
			break
		}
	}
	for ; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			t := b[p.i+1 : j]
			if high >= 0x80 && !utf8.Valid(t) {
				return nil, false
			}
			p.i = j + 1
			return t, true
		case c == '\\' || c < 0x20:
			return nil, false
		default:
			high |= c
		}
	}
	return nil, false
}

func (p *jsonParser) str() string {
	p.i++ // "
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			if !p.charge(len(s)) {
				return ""
			}
			if utf8.Valid(s) {
				return string(s)
			}
			return string(p.fixUTF8(p.js.sb[:0], s))
		case c == '\\':
			return p.strEscaped(start)
		case c < 0x20:
			p.fail("invalid control character %#02x in string literal", c)
			return ""
		}
		p.i++
	}
	p.eof()
	return ""
}

// strEscaped decodes a string with escapes from start (after the quote).
func (p *jsonParser) strEscaped(start int) string {
	out := append(p.js.sb[:0], p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			p.js.sb = out
			if !p.charge(len(out)) {
				return ""
			}
			if utf8.Valid(out) {
				return string(out)
			}
			return string(p.fixUTF8(nil, out))
		case c < 0x20:
			p.fail("invalid control character %#02x in string literal", c)
			return ""
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			p.i = len(p.b)
			p.eof()
			return ""
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return ""
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if r2, err = p.hex4(); err != nil {
						return ""
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						continue
					}
					p.i = save
				}
				// A lone surrogate is not text (RFC 8259 §8.2; I-JSON,
				// RFC 7493 §2.1, forbids it): an error, not a silent
				// U+FFFD.
				p.i -= 6
				p.fail("lone UTF-16 surrogate \\u%04X in string literal", r)
				return ""
			}
			out = utf8.AppendRune(out, r)
		default:
			p.i--
			p.fail("invalid escape character %q in string literal", e)
			return ""
		}
	}
	p.eof()
	return ""
}

func (p *jsonParser) hex4() (rune, error) {
	if p.i+4 > len(p.b) {
		p.i = len(p.b)
		p.eof()
		return 0, errBadEscape
	}
	v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		p.fail("invalid \\u escape %q", p.b[p.i:p.i+4])
		return 0, errBadEscape
	}
	p.i += 4
	return rune(v), nil
}

// fixUTF8 appends s to dst with each invalid byte replaced by U+FFFD.
func (p *jsonParser) fixUTF8(dst, s []byte) []byte {
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, s[:n]...)
		}
		s = s[n:]
	}
	return dst
}
