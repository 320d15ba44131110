package ctf2meta

import (
	"encoding/json"
	"strconv"
	"strings"
)

// TSDL (CTF 1.8 §7) parsing: ParseTSDL reads the metadata text into the
// typed CTF 2 model (*Metadata) the way babeltrace2 2.1 translates CTF 1.8
// traces: integers become fixed-length integers (enumerations keep their
// labels as mappings), floating-point numbers of 32 and 64 bits become
// fixed-length floating-point numbers, arrays and sequences of 8-bit
// integers with an encoding become strings, the packet header's 16-byte
// `uuid` array becomes a BLOB, sequence lengths and variant tags become
// field locations (absolute: origin and path), variant options get the
// ranges of their tag's enumeration label, and the special field names get
// their CTF 2 roles (magic, uuid, stream_id, stream_instance_id;
// timestamp_begin, timestamp_end, content_size, packet_size,
// events_discarded, packet_seq_num; the event header's id and timestamp).
// One leading underscore of a field name is removed, as CTF 1.8 §7.4 says.

type tyKind uint8

const (
	tyInt tyKind = iota + 1
	tyFloat
	tyString
	tyEnum
	tyStruct
	tyVariant
	tyArray
	tySeq
)

type tMember struct {
	name string // raw (with any leading underscore)
	typ  *tType
}

type tMapping struct {
	label  string
	lo, hi Integer
}

// tType is a parsed TSDL type; instantiation into a scope makes the model
// field class.
type tType struct {
	kind tyKind
	off  int
	// integer / floating point
	size, align uint64
	signed      bool
	order       string // "le", "be" or "" (the trace's byte order)
	base        int
	text        bool   // encoding UTF8 or ASCII
	clock       string // map = clock.NAME.value
	exp, mant   uint64
	// enumeration
	base2    *tType // container integer
	mappings []tMapping
	// structure, variant
	members []tMember
	salign  uint64
	tag     []string // variant tag path (raw)
	// array, sequence
	elem    *tType
	length  uint64
	lenPath []string
}

type tValue struct {
	off   int
	str   string // string literal or dotted identifiers
	isStr bool   // a string literal
	num   *Integer
	typ   *tType
}

type tBlock struct {
	kind  string
	off   int
	attrs map[string]tValue
	order []string
}

type tsdlParser struct {
	lx     lexer
	la     []token // lookahead
	scopes []map[string]*tType
	prefix map[string]bool // every word prefix of a multi-word alias name
	blocks []*tBlock
	depth  int
	maxDep int
	budget int // field class nodes that may still be made
	nodes  int
	o      options
}

// ParseTSDL parses CTF 1.8 TSDL metadata text (plain: depacketize packetized
// metadata first) into the typed model. Errors wrap ErrTSDL (syntax, names,
// unsupported constructs, a text without a trace block or a trace block
// without major, minor or byte_order — babeltrace2 2.1 refuses both — with
// line and column), ErrLimit (nesting deeper
// than Limits.MaxDepth, or more field class nodes than 64 per input byte
// plus 4096: an alias used many times is instantiated each time), or
// ErrSchema when the translated metadata breaks a CTF 2 rule. The returned
// Metadata's Source.Kind is KindTSDL; its Fragments are the fragments a
// CTF 2 writer would write for this trace (babeltrace2 2.1's mapping), so
// Metadata.Encode converts the trace's metadata to CTF 2.
func ParseTSDL(text []byte, opts ...ReaderOption) (*Metadata, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	p := &tsdlParser{lx: lexer{src: text}, prefix: map[string]bool{}, maxDep: o.limits.MaxDepth, o: o}
	p.budget = 64*len(text) + 4096
	p.scopes = []map[string]*tType{{}}
	if err := p.parseTop(); err != nil {
		return nil, err
	}
	return p.build()
}

func (p *tsdlParser) peekN(n int) token {
	for len(p.la) <= n {
		t := p.lx.next()
		p.la = append(p.la, t)
		if t.kind == tEOF {
			break
		}
	}
	if n >= len(p.la) {
		return p.la[len(p.la)-1]
	}
	return p.la[n]
}

func (p *tsdlParser) peek() token { return p.peekN(0) }

func (p *tsdlParser) take() token {
	t := p.peek()
	if t.kind != tEOF {
		p.la = p.la[:copy(p.la, p.la[1:])]
	}
	return t
}

func (p *tsdlParser) errAt(off int, msg string, args ...any) error {
	if p.lx.err != nil {
		return p.lx.err
	}
	return p.lx.errAt(off, msg, args...)
}

func (p *tsdlParser) isPunct(t token, s string) bool { return t.kind == tPunct && t.text == s }

func (p *tsdlParser) expect(s string) (token, error) {
	t := p.take()
	if !p.isPunct(t, s) {
		return t, p.errAt(t.off, "expecting %q, found %s", s, describe(t))
	}
	return t, nil
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the text"
	case tInt:
		return "integer " + t.text
	case tString:
		return strconv.Quote(t.text)
	case tChar:
		return "'" + t.text + "'"
	}
	return "`" + t.text + "`"
}

func (p *tsdlParser) enter(off int) error {
	p.depth++
	if p.depth > p.maxDep {
		return newErr(int64(off), ErrLimit, "TSDL nesting deeper than %d", p.maxDep)
	}
	return nil
}

func (p *tsdlParser) lookup(name string) *tType {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if t := p.scopes[i][name]; t != nil {
			return t
		}
	}
	return nil
}

func (p *tsdlParser) define(name string, t *tType) {
	p.scopes[len(p.scopes)-1][name] = t
	w := strings.Fields(name)
	for i := 1; i < len(w); i++ {
		p.prefix[strings.Join(w[:i], " ")] = true
	}
}

var tsdlBlocks = map[string]bool{"trace": true, "env": true, "clock": true, "stream": true, "event": true, "callsite": true}

func (p *tsdlParser) parseTop() error {
	for {
		t := p.peek()
		if t.kind == tEOF {
			return p.lx.err
		}
		if p.isPunct(t, ";") {
			p.take()
			continue
		}
		if t.kind == tIdent && tsdlBlocks[t.text] && p.isPunct(p.peekN(1), "{") {
			if err := p.parseBlock(); err != nil {
				return err
			}
			continue
		}
		if err := p.parseDeclStatement(); err != nil {
			return err
		}
	}
}

// parseDeclStatement parses typealias, typedef, or a type specifier that
// declares a named struct, variant or enumeration, up to its ';'.
func (p *tsdlParser) parseDeclStatement() error {
	t := p.peek()
	if t.kind == tIdent && t.text == "typealias" {
		p.take()
		typ, err := p.parseTypeSpec()
		if err != nil {
			return err
		}
		name, typ, err := p.parseDeclarator(typ, true)
		if err != nil {
			return err
		}
		if _, err := p.expect(":="); err != nil {
			return err
		}
		var words []string
		for {
			w := p.peek()
			if w.kind == tIdent {
				words = append(words, p.take().text)
				continue
			}
			if p.isPunct(w, "*") {
				return p.errAt(w.off, "pointer type aliases are not supported")
			}
			break
		}
		if len(words) == 0 {
			return p.errAt(p.peek().off, "typealias: expecting the alias name after `:=`")
		}
		if name != "" {
			return p.errAt(t.off, "typealias: unexpected declarator name %q before `:=`", name)
		}
		p.define(strings.Join(words, " "), typ)
		_, err = p.expect(";")
		return err
	}
	if t.kind == tIdent && t.text == "typedef" {
		p.take()
		typ, err := p.parseTypeSpec()
		if err != nil {
			return err
		}
		for {
			name, dt, err := p.parseDeclarator(typ, false)
			if err != nil {
				return err
			}
			p.define(name, dt)
			if p.isPunct(p.peek(), ",") {
				p.take()
				continue
			}
			break
		}
		_, err = p.expect(";")
		return err
	}
	if t.kind == tIdent && (t.text == "struct" || t.text == "variant" || t.text == "enum") {
		if _, err := p.parseTypeSpec(); err != nil {
			return err
		}
		_, err := p.expect(";")
		return err
	}
	return p.errAt(t.off, "unexpected %s at the top level", describe(t))
}

// parseBlock parses trace/env/clock/stream/event/callsite { … };
func (p *tsdlParser) parseBlock() error {
	kw := p.take()
	p.take() // {
	b := &tBlock{kind: kw.text, off: kw.off, attrs: map[string]tValue{}}
	p.scopes = append(p.scopes, map[string]*tType{})
	defer func() { p.scopes = p.scopes[:len(p.scopes)-1] }()
	for {
		t := p.peek()
		if p.isPunct(t, "}") {
			p.take()
			break
		}
		if t.kind == tIdent && (t.text == "typealias" || t.text == "typedef") ||
			t.kind == tIdent && (t.text == "struct" || t.text == "variant" || t.text == "enum") {
			if err := p.parseDeclStatement(); err != nil {
				return err
			}
			continue
		}
		// key (dotted identifiers)
		var key []string
		for {
			k := p.take()
			if k.kind != tIdent {
				return p.errAt(k.off, "%s block: expecting an attribute name, found %s", kw.text, describe(k))
			}
			key = append(key, k.text)
			if p.isPunct(p.peek(), ".") {
				p.take()
				continue
			}
			break
		}
		op := p.take()
		var v tValue
		v.off = op.off
		switch {
		case p.isPunct(op, ":="):
			typ, err := p.parseTypeSpec()
			if err != nil {
				return err
			}
			v.typ = typ
		case p.isPunct(op, "="):
			vv, err := p.parseValue()
			if err != nil {
				return err
			}
			v = vv
		default:
			return p.errAt(op.off, "%s block: expecting `=` or `:=` after %q, found %s", kw.text, strings.Join(key, "."), describe(op))
		}
		if _, err := p.expect(";"); err != nil {
			return err
		}
		k := strings.Join(key, ".")
		if _, dup := b.attrs[k]; dup {
			return p.errAt(v.off, "%s block: attribute %q given twice", kw.text, k)
		}
		b.attrs[k] = v
		b.order = append(b.order, k)
	}
	if _, err := p.expect(";"); err != nil {
		return err
	}
	p.blocks = append(p.blocks, b)
	return nil
}

// parseValue parses an attribute value: an integer (maybe signed), a string,
// or dotted identifiers.
func (p *tsdlParser) parseValue() (tValue, error) {
	t := p.take()
	v := tValue{off: t.off}
	switch {
	case t.kind == tString:
		v.str, v.isStr = t.text, true
	case t.kind == tChar:
		v.str, v.isStr = t.text, true
	case t.kind == tInt:
		n := Uint(t.u)
		v.num = &n
	case p.isPunct(t, "-") || p.isPunct(t, "+"):
		n := p.take()
		if n.kind != tInt {
			return v, p.errAt(n.off, "expecting an integer after %q", t.text)
		}
		x := Uint(n.u)
		if t.text == "-" && n.u != 0 {
			if n.u > 1<<63 {
				return v, p.errAt(n.off, "integer -%d out of range", n.u)
			}
			x = Integer{abs: n.u, neg: true}
		}
		v.num = &x
	case t.kind == tIdent:
		s := t.text
		for p.isPunct(p.peek(), ".") {
			p.take()
			n := p.take()
			if n.kind != tIdent {
				return v, p.errAt(n.off, "expecting a name after `.`, found %s", describe(n))
			}
			s += "." + n.text
		}
		v.str = s
	default:
		return v, p.errAt(t.off, "expecting a value, found %s", describe(t))
	}
	return v, nil
}

func (p *tsdlParser) newType(k tyKind, off int) (*tType, error) {
	p.nodes++
	if p.nodes > p.budget {
		return nil, newErr(int64(off), ErrLimit, "TSDL: more than %d types", p.budget)
	}
	return &tType{kind: k, off: off}, nil
}

// parseTypeSpec parses a type specifier.
func (p *tsdlParser) parseTypeSpec() (*tType, error) {
	t := p.peek()
	if err := p.enter(t.off); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	for t.kind == tIdent && (t.text == "const" || t.text == "volatile") {
		p.take()
		t = p.peek()
	}
	if t.kind != tIdent {
		p.take()
		return nil, p.errAt(t.off, "expecting a type, found %s", describe(t))
	}
	switch t.text {
	case "integer":
		p.take()
		return p.parseInteger(t.off)
	case "floating_point":
		p.take()
		return p.parseFloat(t.off)
	case "string":
		p.take()
		typ, err := p.newType(tyString, t.off)
		if err != nil {
			return nil, err
		}
		if p.isPunct(p.peek(), "{") {
			p.take()
			attrs, err := p.parseAttrs("string")
			if err != nil {
				return nil, err
			}
			_ = attrs // encoding (UTF8, ASCII or none); unknown attributes ignored as babeltrace2 does
		}
		return typ, nil
	case "enum":
		p.take()
		return p.parseEnum(t.off)
	case "struct":
		p.take()
		return p.parseStruct(t.off)
	case "variant":
		p.take()
		return p.parseVariant(t.off)
	}
	// an alias name, maybe several words
	p.take()
	name := t.text
	for {
		n := p.peek()
		if n.kind == tIdent && p.prefix[name] && (p.lookup(name+" "+n.text) != nil || p.prefix[name+" "+n.text]) {
			p.take()
			name += " " + n.text
			continue
		}
		break
	}
	if typ := p.lookup(name); typ != nil {
		return typ, nil
	}
	return nil, p.errAt(t.off, "unknown type %q", name)
}

// parseAttrs parses `key = value; …}` (the '{' already taken).
func (p *tsdlParser) parseAttrs(what string) (map[string]tValue, error) {
	attrs := map[string]tValue{}
	for {
		t := p.take()
		if p.isPunct(t, "}") {
			return attrs, nil
		}
		if t.kind != tIdent {
			return nil, p.errAt(t.off, "%s: expecting an attribute name, found %s", what, describe(t))
		}
		if _, err := p.expect("="); err != nil {
			return nil, err
		}
		v, err := p.parseValue()
		if err != nil {
			return nil, err
		}
		if _, dup := attrs[t.text]; dup {
			return nil, p.errAt(t.off, "%s: attribute %q given twice", what, t.text)
		}
		attrs[t.text] = v
		if !p.isPunct(p.peek(), "}") {
			if _, err := p.expect(";"); err != nil {
				return nil, err
			}
		}
	}
}

func (p *tsdlParser) uintAttr(what, k string, v tValue) (uint64, error) {
	if v.num == nil || v.num.neg {
		return 0, p.errAt(v.off, "%s: attribute %q must be a non-negative integer", what, k)
	}
	return v.num.abs, nil
}

func (p *tsdlParser) boolAttr(what, k string, v tValue) (bool, error) {
	if v.num != nil && !v.num.neg && v.num.abs <= 1 {
		return v.num.abs == 1, nil
	}
	switch v.str {
	case "true", "TRUE":
		return true, nil
	case "false", "FALSE":
		return false, nil
	}
	return false, p.errAt(v.off, "%s: attribute %q must be true or false", what, k)
}

func (p *tsdlParser) orderAttr(what string, v tValue) (string, error) {
	switch v.str {
	case "le", "little_endian":
		return "le", nil
	case "be", "big_endian", "network":
		return "be", nil
	case "native":
		return "", nil
	}
	return "", p.errAt(v.off, "%s: invalid byte_order %q", what, v.str)
}

func (p *tsdlParser) alignAttr(what string, v tValue) (uint64, error) {
	a, err := p.uintAttr(what, "align", v)
	if err != nil {
		return 0, err
	}
	if a == 0 || a&(a-1) != 0 {
		return 0, p.errAt(v.off, "%s: align %d is not a power of two", what, a)
	}
	return a, nil
}

func (p *tsdlParser) parseInteger(off int) (*tType, error) {
	if _, err := p.expect("{"); err != nil {
		return nil, err
	}
	attrs, err := p.parseAttrs("integer")
	if err != nil {
		return nil, err
	}
	typ, err := p.newType(tyInt, off)
	if err != nil {
		return nil, err
	}
	typ.base = 10
	for k, v := range attrs {
		switch k {
		case "size":
			typ.size, err = p.uintAttr("integer", k, v)
			if err == nil && (typ.size == 0 || typ.size > 64) {
				err = p.errAt(v.off, "integer: size %d is not in 1..64", typ.size)
			}
		case "align":
			typ.align, err = p.alignAttr("integer", v)
		case "signed":
			typ.signed, err = p.boolAttr("integer", k, v)
		case "byte_order":
			typ.order, err = p.orderAttr("integer", v)
		case "base":
			switch {
			case v.num != nil && !v.num.neg:
				typ.base = int(v.num.abs)
			case v.str == "decimal" || v.str == "dec" || v.str == "d" || v.str == "i" || v.str == "u":
				typ.base = 10
			case v.str == "hexadecimal" || v.str == "hex" || v.str == "x" || v.str == "X" || v.str == "p":
				typ.base = 16
			case v.str == "octal" || v.str == "oct" || v.str == "o":
				typ.base = 8
			case v.str == "binary" || v.str == "b":
				typ.base = 2
			}
			if typ.base != 2 && typ.base != 8 && typ.base != 10 && typ.base != 16 {
				err = p.errAt(v.off, "integer: invalid base")
			}
		case "encoding":
			switch v.str {
			case "none":
			case "UTF8", "ASCII", "utf8", "ascii":
				typ.text = true
			default:
				err = p.errAt(v.off, "integer: invalid encoding %q", v.str)
			}
		case "map":
			s := strings.Split(v.str, ".")
			if len(s) != 3 || s[0] != "clock" || s[2] != "value" {
				err = p.errAt(v.off, "integer: map must be clock.NAME.value, got %q", v.str)
			} else {
				typ.clock = s[1]
			}
		default:
			// babeltrace2 warns about unknown attributes and ignores them
		}
		if err != nil {
			return nil, err
		}
	}
	if typ.size == 0 {
		return nil, p.errAt(off, "integer: missing size")
	}
	if typ.align == 0 {
		typ.align = 1
		if typ.size%8 == 0 {
			typ.align = 8
		}
	}
	return typ, nil
}

func (p *tsdlParser) parseFloat(off int) (*tType, error) {
	if _, err := p.expect("{"); err != nil {
		return nil, err
	}
	attrs, err := p.parseAttrs("floating_point")
	if err != nil {
		return nil, err
	}
	typ, err := p.newType(tyFloat, off)
	if err != nil {
		return nil, err
	}
	for k, v := range attrs {
		switch k {
		case "exp_dig":
			typ.exp, err = p.uintAttr("floating_point", k, v)
		case "mant_dig":
			typ.mant, err = p.uintAttr("floating_point", k, v)
		case "align":
			typ.align, err = p.alignAttr("floating_point", v)
		case "byte_order":
			typ.order, err = p.orderAttr("floating_point", v)
		default:
			// ignored, as babeltrace2 does
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case typ.exp == 8 && typ.mant == 24:
		typ.size = 32
	case typ.exp == 11 && typ.mant == 53:
		typ.size = 64
	default:
		return nil, p.errAt(off, "floating_point: exp_dig %d, mant_dig %d: only binary32 (8, 24) and binary64 (11, 53) are supported", typ.exp, typ.mant)
	}
	if typ.align == 0 {
		typ.align = 8
	}
	return typ, nil
}

func (p *tsdlParser) parseEnum(off int) (*tType, error) {
	var name string
	if t := p.peek(); t.kind == tIdent {
		name = "enum " + p.take().text
		if n := p.peek(); !p.isPunct(n, ":") && !p.isPunct(n, "{") {
			if typ := p.lookup(name); typ != nil {
				return typ, nil
			}
			return nil, p.errAt(t.off, "unknown %s", name)
		}
	}
	typ, err := p.newType(tyEnum, off)
	if err != nil {
		return nil, err
	}
	if p.isPunct(p.peek(), ":") {
		p.take()
		c, err := p.parseTypeSpec()
		if err != nil {
			return nil, err
		}
		typ.base2 = c
	} else {
		typ.base2 = p.lookup("int")
	}
	if typ.base2 == nil || typ.base2.kind != tyInt {
		return nil, p.errAt(off, "enum: the container type must be an integer")
	}
	if _, err := p.expect("{"); err != nil {
		return nil, err
	}
	next := Int(0)
	for {
		t := p.take()
		if p.isPunct(t, "}") {
			break
		}
		if t.kind != tIdent && t.kind != tString {
			return nil, p.errAt(t.off, "enum: expecting a label, found %s", describe(t))
		}
		m := tMapping{label: t.text, lo: next, hi: next}
		if p.isPunct(p.peek(), "=") {
			p.take()
			lo, err := p.parseValue()
			if err != nil {
				return nil, err
			}
			if lo.num == nil {
				return nil, p.errAt(lo.off, "enum: label %q: expecting an integer value", t.text)
			}
			m.lo, m.hi = *lo.num, *lo.num
			if p.isPunct(p.peek(), "...") {
				p.take()
				hi, err := p.parseValue()
				if err != nil {
					return nil, err
				}
				if hi.num == nil {
					return nil, p.errAt(hi.off, "enum: label %q: expecting an integer upper bound", t.text)
				}
				m.hi = *hi.num
			}
		}
		if m.lo.Cmp(m.hi) > 0 {
			m.lo, m.hi = m.hi, m.lo
		}
		if len(typ.mappings) >= p.budget {
			return nil, newErr(int64(t.off), ErrLimit, "TSDL: too many enumeration labels")
		}
		p.nodes++
		typ.mappings = append(typ.mappings, m)
		if m.hi.neg {
			next = Integer{abs: m.hi.abs - 1, neg: m.hi.abs > 1}
		} else {
			next = Uint(m.hi.abs + 1)
		}
		if n := p.take(); p.isPunct(n, "}") {
			break
		} else if !p.isPunct(n, ",") {
			return nil, p.errAt(n.off, "enum: expecting `,` or `}`, found %s", describe(n))
		}
	}
	if name != "" {
		p.define(name, typ)
	}
	return typ, nil
}

// parseMembers parses `type decl, decl; …}` (the '{' already taken) for a
// struct or a variant.
func (p *tsdlParser) parseMembers(what string) ([]tMember, error) {
	p.scopes = append(p.scopes, map[string]*tType{})
	defer func() { p.scopes = p.scopes[:len(p.scopes)-1] }()
	var ms []tMember
	seen := map[string]bool{}
	for {
		t := p.peek()
		if p.isPunct(t, "}") {
			p.take()
			return ms, nil
		}
		if p.isPunct(t, ";") {
			p.take()
			continue
		}
		if t.kind == tIdent && (t.text == "typealias" || t.text == "typedef") {
			if err := p.parseDeclStatement(); err != nil {
				return nil, err
			}
			continue
		}
		base, err := p.parseTypeSpec()
		if err != nil {
			return nil, err
		}
		if p.isPunct(p.peek(), ";") { // a named struct/variant/enum declaration
			p.take()
			continue
		}
		for {
			name, typ, err := p.parseDeclarator(base, false)
			if err != nil {
				return nil, err
			}
			if seen[name] {
				return nil, p.errAt(t.off, "%s: duplicate member %q", what, name)
			}
			seen[name] = true
			ms = append(ms, tMember{name: name, typ: typ})
			if p.isPunct(p.peek(), ",") {
				p.take()
				continue
			}
			break
		}
		if _, err := p.expect(";"); err != nil {
			return nil, err
		}
	}
}

func (p *tsdlParser) parseStruct(off int) (*tType, error) {
	var name string
	if t := p.peek(); t.kind == tIdent {
		name = "struct " + p.take().text
		if !p.isPunct(p.peek(), "{") {
			typ := p.lookup(name)
			if typ == nil {
				return nil, p.errAt(t.off, "unknown %s", name)
			}
			return p.structAlign(typ)
		}
	}
	p.take() // {
	ms, err := p.parseMembers("struct")
	if err != nil {
		return nil, err
	}
	typ, err := p.newType(tyStruct, off)
	if err != nil {
		return nil, err
	}
	typ.members, typ.salign = ms, 1
	typ, err = p.structAlign(typ)
	if err != nil {
		return nil, err
	}
	if name != "" {
		p.define(name, typ)
	}
	return typ, nil
}

// structAlign parses an optional `align(N)` after a struct.
func (p *tsdlParser) structAlign(typ *tType) (*tType, error) {
	if t := p.peek(); t.kind == tIdent && t.text == "align" && p.isPunct(p.peekN(1), "(") {
		p.take()
		p.take()
		v, err := p.parseValue()
		if err != nil {
			return nil, err
		}
		a, err := p.alignAttr("struct", v)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(")"); err != nil {
			return nil, err
		}
		c := *typ
		if a > c.salign {
			c.salign = a
		}
		return &c, nil
	}
	return typ, nil
}

func (p *tsdlParser) parsePath() ([]string, error) {
	var path []string
	for {
		t := p.take()
		if t.kind != tIdent {
			return nil, p.errAt(t.off, "expecting a field name in a path, found %s", describe(t))
		}
		path = append(path, t.text)
		if n := p.peek(); p.isPunct(n, ".") || p.isPunct(n, "->") {
			p.take()
			continue
		}
		return path, nil
	}
}

func (p *tsdlParser) parseVariant(off int) (*tType, error) {
	var name string
	var tag []string
	if t := p.peek(); t.kind == tIdent {
		name = "variant " + p.take().text
	}
	if p.isPunct(p.peek(), "<") {
		p.take()
		var err error
		if tag, err = p.parsePath(); err != nil {
			return nil, err
		}
		if _, err := p.expect(">"); err != nil {
			return nil, err
		}
	}
	if name != "" && !p.isPunct(p.peek(), "{") {
		typ := p.lookup(name)
		if typ == nil {
			return nil, p.errAt(off, "unknown %s", name)
		}
		if tag != nil {
			c := *typ
			c.tag = tag
			return &c, nil
		}
		return typ, nil
	}
	if _, err := p.expect("{"); err != nil {
		return nil, err
	}
	ms, err := p.parseMembers("variant")
	if err != nil {
		return nil, err
	}
	typ, err := p.newType(tyVariant, off)
	if err != nil {
		return nil, err
	}
	typ.members, typ.tag = ms, tag
	if name != "" {
		p.define(name, typ)
	}
	return typ, nil
}

// parseDeclarator parses a member name (optional when anonymous is true)
// followed by array/sequence dimensions.
func (p *tsdlParser) parseDeclarator(base *tType, anonymous bool) (string, *tType, error) {
	var name string
	for p.isPunct(p.peek(), "*") {
		t := p.take()
		return "", nil, p.errAt(t.off, "pointers are not supported")
	}
	t := p.peek()
	if t.kind == tIdent {
		name = p.take().text
	} else if !anonymous {
		p.take()
		return "", nil, p.errAt(t.off, "expecting a field name, found %s", describe(t))
	}
	type dim struct {
		n    uint64
		path []string
		off  int
	}
	var dims []dim
	for p.isPunct(p.peek(), "[") {
		o := p.take().off
		n := p.peek()
		var d dim
		d.off = o
		switch n.kind {
		case tInt:
			p.take()
			d.n = n.u
		case tIdent:
			path, err := p.parsePath()
			if err != nil {
				return "", nil, err
			}
			d.path = path
		default:
			p.take()
			return "", nil, p.errAt(n.off, "expecting an array length, found %s", describe(n))
		}
		if _, err := p.expect("]"); err != nil {
			return "", nil, err
		}
		dims = append(dims, d)
	}
	typ := base
	for i := len(dims) - 1; i >= 0; i-- {
		k := tyArray
		if dims[i].path != nil {
			k = tySeq
		}
		a, err := p.newType(k, dims[i].off)
		if err != nil {
			return "", nil, err
		}
		a.elem, a.length, a.lenPath = typ, dims[i].n, dims[i].path
		typ = a
	}
	return name, typ, nil
}

// envValue converts an env attribute to the model's JSON value.
func envValue(v tValue) any {
	if v.num != nil {
		return json.Number(v.num.String())
	}
	return v.str
}
