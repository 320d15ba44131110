package ctf

import (
	"reflect"
	"sort"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

// Kind is the kind of a field.
type Kind uint8

// Field kinds.
const (
	KindUint     Kind = iota + 1 // fixed-length unsigned integer, bit array, bit map
	KindSint                     // fixed-length signed integer
	KindBool                     // fixed-length boolean
	KindFloat                    // fixed-length floating-point number (32 or 64 bits)
	KindVarUint                  // variable-length (LEB128) unsigned integer
	KindVarSint                  // variable-length (LEB128) signed integer
	KindString                   // string (null-terminated, static or dynamic length)
	KindBlob                     // BLOB (static or dynamic length)
	KindStruct                   // structure
	KindArray                    // static or dynamic length array
	KindVariant                  // variant: one child, the selected option
	KindOptional                 // optional: zero or one child
)

// String returns the kind's name.
func (k Kind) String() string {
	n := [...]string{"?", "uint", "sint", "bool", "float", "var-uint", "var-sint", "string", "blob", "struct", "array", "variant", "optional"}
	if int(k) < len(n) {
		return n[k]
	}
	return "?"
}

// role bits
const (
	roleClock uint16 = 1 << iota
	rolePacketEnd
	roleContentLen
	roleTotalLen
	roleDiscarded
	roleSeqNum
	roleERCID
	roleDSCID
	roleDSID
	roleMagic
	roleUUID
)

var roleBits = map[string]uint16{
	ctf2meta.RoleDefaultClockTimestamp:               roleClock,
	ctf2meta.RolePacketEndDefaultClockTimestamp:      rolePacketEnd,
	ctf2meta.RolePacketContentLength:                 roleContentLen,
	ctf2meta.RolePacketTotalLength:                   roleTotalLen,
	ctf2meta.RoleDiscardedEventRecordCounterSnapshot: roleDiscarded,
	ctf2meta.RolePacketSequenceNumber:                roleSeqNum,
	ctf2meta.RoleEventRecordClassID:                  roleERCID,
	ctf2meta.RoleDataStreamClassID:                   roleDSCID,
	ctf2meta.RoleDataStreamID:                        roleDSID,
	ctf2meta.RolePacketMagicNumber:                   roleMagic,
	ctf2meta.RoleMetadataStreamUUID:                  roleUUID,
}

// Mapping is a named set of integer ranges of an integer field class (a
// CTF 1.8 enumeration label).
type Mapping struct {
	Name   string
	Ranges []Range
}

// Range is an inclusive range; for signed field classes Lo and Hi hold
// int64 values.
type Range struct{ Lo, Hi uint64 }

// FieldClass is the compiled, read-only form of a field class: what the
// decoder runs and what a Field points to.
type FieldClass struct {
	Name      string // member or option name ("" for array elements and scope roots)
	Kind      Kind
	Bits      uint32 // fixed-length: length in bits
	Align     uint32 // alignment in bits (power of two, ≥ 1)
	BigEndian bool
	Base      int // preferred display base of integers (2, 8, 10, 16)
	// Mappings are the integer mappings (enumeration labels) in the order
	// babeltrace2 2.1 lists the labels of a value
	// (ctf2meta.BabeltraceMappingOrder); bit map flags in name order.
	Mappings []Mapping
	Length   uint64 // static-length arrays, strings and BLOBs
	Members  []*FieldClass
	// Model is the metadata field class this was compiled from.
	Model ctf2meta.FieldClass

	id       int32 // index in the trace's class table (Field.cls)
	dynamic  bool  // length or selector from a slot
	src      int   // slot read (dynamic length, selector)
	srcSign  bool  // the selector slot holds a signed value
	slot     int   // slot written, -1 none
	roles    uint16
	optRange [][]Range // variant options' selector ranges; optional: [0]
	optBool  bool      // optional with a boolean selector
	fixedLE  bool      // fast path: byte-aligned LE 8/16/32/64-bit
	nulStr   bool      // null-terminated string
	textElem bool      // static/dynamic-length string (not BLOB)
	enc      uint8     // string encoding (encUTF8, encUTF16BE, …)
	// flat: a structure of byte-aligned little-endian integers that carry
	// no role and that no location refers to; members at fixed bit offsets
	// (off) from the structure's start, flatBits in all.
	flat     bool
	flatBits uint64
	off      uint64
	// how Pretty prints it (text.go, setText)
	show   uint8  // display form (showUdec, …)
	hidden bool   // Hidden(fc)
	allHid bool   // a structure whose every member is hidden
	pre    string // structure member: ", NAME = " ("": not kept)
	// integer with mappings: `( "LABEL" : container = ` by mapping (nil:
	// not kept)
	labels []string
}

// setFlat marks the structures whose members all have fixed offsets.
func setFlat(classes []*FieldClass) {
	for _, fc := range classes {
		if fc.Kind != KindStruct || len(fc.Members) == 0 {
			continue
		}
		off := uint64(0)
		ok := true
		for _, m := range fc.Members {
			if !m.fixedLE || m.slot >= 0 || m.roles != 0 {
				ok = false
				break
			}
			a := uint64(m.Align)
			off = (off + a - 1) &^ (a - 1)
			m.off = off
			off += uint64(m.Bits)
		}
		fc.flat, fc.flatBits = ok, off
	}
}

// Label returns the first mapping (in Mappings order) containing v, or "".
func (fc *FieldClass) Label(v uint64) string {
	for _, m := range fc.Mappings {
		for _, r := range m.Ranges {
			if fc.Kind == KindSint {
				if int64(v) >= int64(r.Lo) && int64(v) <= int64(r.Hi) {
					return m.Name
				}
			} else if v >= r.Lo && v <= r.Hi {
				return m.Name
			}
		}
	}
	return ""
}

type pendingLoc struct {
	fc    *FieldClass
	loc   ctf2meta.FieldLocation
	stack []*FieldClass // structures containing fc (innermost last)
	scope int
	what  string
}

type compiler struct {
	m       *ctf2meta.Metadata
	classes []*FieldClass
	budget  int
	slots   int
	pending []pendingLoc
	stack   []*FieldClass
	scope   int
	err     error
	depth   int
	maxDep  int
	orders  map[uintptr][]string // babeltrace2's mapping orders, by Mappings map
}

func (c *compiler) fail(format string, args ...any) {
	if c.err == nil {
		c.err = newErr(0, ErrMetadata, format, args...)
	}
}

// unsupported records a field class babeltrace2 does not decode either.
func (c *compiler) unsupported(format string, args ...any) {
	if c.err == nil {
		c.err = newErr(0, ErrUnsupported, format, args...)
	}
}

func (c *compiler) compile(fc ctf2meta.FieldClass, name string) *FieldClass {
	if c.err != nil || fc == nil {
		return nil
	}
	c.budget--
	if c.budget < 0 {
		c.err = newErr(0, ErrLimit, "metadata: field classes expand to more than the compile budget (aliases used many times)")
		return nil
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > c.maxDep {
		c.err = newErr(0, ErrLimit, "metadata: field classes nested deeper than %d", c.maxDep)
		return nil
	}
	for i := 0; i < 64; i++ {
		if _, ok := fc.(ctf2meta.AliasRef); !ok {
			break
		}
		fc = c.m.Resolve(fc)
		if fc == nil {
			c.fail("unknown field class alias")
			return nil
		}
	}
	out := &FieldClass{Name: name, Model: fc, slot: -1, src: -1, Align: 1, Base: 10, id: int32(len(c.classes))}
	c.classes = append(c.classes, out)
	bits := func(b ctf2meta.BitArray) {
		if b.Length > 64 {
			c.unsupported("field %q: %s of %d bits (babeltrace2 2.1 decodes at most 64 bits)", name, fc.Type(), b.Length)
		}
		out.Bits = uint32(b.Length)
		out.Align = uint32(max(b.Alignment, 1))
		out.BigEndian = b.ByteOrder == "big-endian"
		if b.BitOrder != "" && (b.BitOrder == "first-to-last") == out.BigEndian {
			c.fail("field %q: bit order %s with byte order %s is not supported", name, b.BitOrder, b.ByteOrder)
		}
	}
	props := func(p ctf2meta.IntegerProps, signed, bitMap bool) {
		if p.PreferredDisplayBase != 0 {
			out.Base = p.PreferredDisplayBase
		}
		order := sortedKeys(p.Mappings) // bit map flags: name order
		if !bitMap && len(p.Mappings) > 1 {
			// once per mappings object (an alias used many times)
			key := reflect.ValueOf(p.Mappings).Pointer()
			if o, ok := c.orders[key]; ok {
				order = o
			} else {
				order = ctf2meta.BabeltraceMappingOrder(&p, c.m.Source.Kind == ctf2meta.KindTSDL)
				if c.orders == nil {
					c.orders = map[uintptr][]string{}
				}
				c.orders[key] = order
			}
		}
		for _, k := range order {
			mp := Mapping{Name: k}
			for _, r := range p.Mappings[k] {
				mp.Ranges = append(mp.Ranges, Range{intBits(r.Lower, signed), intBits(r.Upper, signed)})
			}
			out.Mappings = append(out.Mappings, mp)
		}
	}
	roles := func(rs []string) {
		for _, r := range rs {
			out.roles |= roleBits[r]
		}
	}
	switch f := fc.(type) {
	case *ctf2meta.FixedLengthUnsignedInteger:
		out.Kind = KindUint
		bits(f.BitArray)
		props(f.IntegerProps, false, false)
		roles(f.Roles)
	case *ctf2meta.FixedLengthSignedInteger:
		out.Kind = KindSint
		bits(f.BitArray)
		props(f.IntegerProps, true, false)
	case *ctf2meta.FixedLengthBitArray:
		out.Kind = KindUint
		bits(f.BitArray)
	case *ctf2meta.FixedLengthBitMap:
		out.Kind = KindUint
		bits(f.BitArray)
		props(ctf2meta.IntegerProps{Mappings: f.Flags}, false, true)
	case *ctf2meta.FixedLengthBoolean:
		out.Kind = KindBool
		bits(f.BitArray)
	case *ctf2meta.FixedLengthFloatingPointNumber:
		out.Kind = KindFloat
		bits(f.BitArray)
		if out.Bits != 32 && out.Bits != 64 {
			c.unsupported("field %q: %d-bit floating-point number (babeltrace2 2.1 decodes 32 and 64 bits)", name, out.Bits)
		}
	case *ctf2meta.VariableLengthUnsignedInteger:
		out.Kind = KindVarUint
		out.Align = 8
		props(f.IntegerProps, false, false)
		roles(f.Roles)
	case *ctf2meta.VariableLengthSignedInteger:
		out.Kind = KindVarSint
		out.Align = 8
		props(f.IntegerProps, true, false)
	case *ctf2meta.NullTerminatedString:
		out.Kind, out.Align, out.nulStr, out.textElem = KindString, 8, true, true
		c.encoding(out, f.Encoding)
	case *ctf2meta.StaticLengthString:
		out.Kind, out.Align, out.Length, out.textElem = KindString, 8, f.Length, true
		c.encoding(out, f.Encoding)
	case *ctf2meta.DynamicLengthString:
		out.Kind, out.Align, out.dynamic, out.textElem = KindString, 8, true, true
		c.encoding(out, f.Encoding)
		c.pend(out, f.LengthFieldLocation, "length")
	case *ctf2meta.StaticLengthBlob:
		out.Kind, out.Align, out.Length = KindBlob, 8, f.Length
		roles(f.Roles)
	case *ctf2meta.DynamicLengthBlob:
		out.Kind, out.Align, out.dynamic = KindBlob, 8, true
		c.pend(out, f.LengthFieldLocation, "length")
	case *ctf2meta.Structure:
		out.Kind = KindStruct
		out.Align = uint32(max(f.MinimumAlignment, 1))
		c.stack = append(c.stack, out)
		for _, m := range f.MemberClasses {
			mc := c.compile(m.FieldClass, m.Name)
			if mc == nil {
				break
			}
			out.Members = append(out.Members, mc)
			out.Align = max(out.Align, mc.Align)
		}
		c.stack = c.stack[:len(c.stack)-1]
	case *ctf2meta.StaticLengthArray:
		out.Kind, out.Length = KindArray, f.Length
		el := c.compile(f.ElementFieldClass, "")
		if el == nil {
			break
		}
		out.Members = []*FieldClass{el}
		out.Align = uint32(max(f.MinimumAlignment, 1, uint64(el.Align)))
	case *ctf2meta.DynamicLengthArray:
		out.Kind, out.dynamic = KindArray, true
		c.pend(out, f.LengthFieldLocation, "length")
		el := c.compile(f.ElementFieldClass, "")
		if el == nil {
			break
		}
		out.Members = []*FieldClass{el}
		out.Align = uint32(max(f.MinimumAlignment, 1, uint64(el.Align)))
	case *ctf2meta.Optional:
		out.Kind = KindOptional
		c.pend(out, f.SelectorFieldLocation, "selector")
		el := c.compile(f.FieldClass, name)
		if el == nil {
			break
		}
		out.Members = []*FieldClass{el}
		out.optBool = f.SelectorFieldRanges == nil
		out.optRange = [][]Range{nil}
		for _, r := range f.SelectorFieldRanges {
			out.optRange[0] = append(out.optRange[0], Range{intBits(r.Lower, r.Lower.Negative()), intBits(r.Upper, r.Upper.Negative())})
		}
	case *ctf2meta.Variant:
		out.Kind = KindVariant
		c.pend(out, f.SelectorFieldLocation, "selector")
		for _, o := range f.Options {
			oc := c.compile(o.FieldClass, o.Name)
			if oc == nil {
				break
			}
			out.Members = append(out.Members, oc)
			var rs []Range
			for _, r := range o.SelectorFieldRanges {
				rs = append(rs, Range{intBits(r.Lower, r.Lower.Negative()), intBits(r.Upper, r.Upper.Negative())})
			}
			out.optRange = append(out.optRange, rs)
		}
	default:
		c.fail("field %q: unsupported field class %T", name, fc)
	}
	if out.Kind == KindUint || out.Kind == KindSint {
		out.fixedLE = !out.BigEndian && out.Align%8 == 0 && (out.Bits == 8 || out.Bits == 16 || out.Bits == 32 || out.Bits == 64)
	}
	return out
}

func (c *compiler) encoding(out *FieldClass, e string) {
	enc, ok := encodingOf(e)
	if !ok {
		c.fail("field %q: unknown string encoding %q", out.Name, e)
	}
	out.enc = enc
}

func intBits(i ctf2meta.Integer, signed bool) uint64 {
	if signed || i.Negative() {
		v, _ := i.Int64()
		return uint64(v)
	}
	v, _ := i.Uint64()
	return v
}

func (c *compiler) pend(fc *FieldClass, loc ctf2meta.FieldLocation, what string) {
	c.pending = append(c.pending, pendingLoc{fc: fc, loc: loc, stack: append([]*FieldClass(nil), c.stack...), scope: c.scope, what: what})
}

var origins = []string{ctf2meta.OriginPacketHeader, ctf2meta.OriginPacketContext, ctf2meta.OriginEventRecordHeader,
	ctf2meta.OriginEventRecordCommonContext, ctf2meta.OriginEventRecordSpecificContext, ctf2meta.OriginEventRecordPayload}

// resolve binds the pending locations of scopes given their compiled roots.
func (c *compiler) resolve(roots *[6]*FieldClass) {
	for _, p := range c.pending {
		if c.err != nil {
			return
		}
		var node *FieldClass
		path := p.loc.Path
		if p.loc.Origin != "" {
			k := -1
			for i, o := range origins {
				if o == p.loc.Origin {
					k = i
				}
			}
			if k < 0 || k > p.scope || roots[k] == nil {
				c.fail("%s location %s: no such scope before this field", p.what, p.loc.Origin)
				return
			}
			node = roots[k]
		} else {
			level := len(p.stack) - 1
			for len(path) > 0 && path[0].Parent {
				path = path[1:]
				level--
			}
			if level < 0 {
				c.fail("%s location goes above the scope root", p.what)
				return
			}
			node = p.stack[level]
		}
		for _, e := range path {
			node = findMember(node, e.Name, 0)
			if node == nil {
				c.fail("%s location: no member %q", p.what, e.Name)
				return
			}
		}
		switch node.Kind {
		case KindUint, KindSint, KindVarUint, KindVarSint, KindBool:
		default:
			c.fail("%s location names a %s field", p.what, node.Kind)
			return
		}
		if p.what == "length" && (node.Kind == KindSint || node.Kind == KindVarSint || node.Kind == KindBool) {
			c.fail("length location names a signed or boolean field")
			return
		}
		if node.slot < 0 {
			node.slot = c.slots
			c.slots++
		}
		p.fc.src = node.slot
		p.fc.srcSign = node.Kind == KindSint || node.Kind == KindVarSint
	}
	c.pending = c.pending[:0]
}

// findMember finds the member called name of a structure; through variants
// and optionals and arrays it looks inside (a path goes through them to the
// field that was decoded last).
func findMember(n *FieldClass, name string, depth int) *FieldClass {
	if depth > 64 {
		return nil
	}
	switch n.Kind {
	case KindStruct:
		for _, m := range n.Members {
			if m.Name == name {
				return m
			}
		}
	case KindVariant, KindOptional, KindArray:
		for _, m := range n.Members {
			if m.Kind == KindStruct || m.Kind == KindVariant || m.Kind == KindOptional || m.Kind == KindArray {
				if f := findMember(m, name, depth+1); f != nil {
					return f
				}
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
