package ctf2meta

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Writing CTF 1.8 TSDL from the typed model: the inverse of ParseTSDL.

// AppendTSDL appends m as CTF 1.8 TSDL text (with its "/* CTF 1.8 */"
// signature) to dst. Every field class is written inline, so ParseTSDL of
// the text gives back the same model for metadata ParseTSDL built, and
// babeltrace2 2.1 reads the data streams of a CTF 2 trace through it the
// same way (a trace block with the preamble UUID, an env block, one clock,
// stream and event block per class). The trace block is written even when
// m has no trace class, since babeltrace2 refuses TSDL without one.
//
// TSDL gives roles by member name and scope, not by declaration; babeltrace2
// derives them the same way. So AppendTSDL refuses, with an error wrapping
// ErrUnsupported and naming the fragment and field, what TSDL cannot say or
// would say otherwise: booleans, bit arrays and bit maps, variable-length
// integers, BLOBs (but the 16-byte metadata-stream-uuid of the packet
// header), optionals, strings not in UTF-8, floating point numbers other
// than binary32 and binary64, integers over 64 bits, arrays with a minimum
// alignment, a bit order other than the byte order's, a role TSDL would not
// give the member (or one it would give that the model lacks), a variant
// whose selector is not an integer with one mapping per option holding the
// option's ranges, a field location TSDL cannot reach, member, option,
// environment and clock names that are not C identifiers, a named clock
// origin, a data stream class default clock without a clock-mapped member
// in its packet context or event record header, and extensions. A text over
// 32 MiB (aliases are written inline at each use) fails with ErrLimit.
//
// What TSDL has no place for but does not change how data streams decode is
// left out and listed in notes (one phrase each, with a count): attributes,
// namespaces, names and UIDs of the trace, data stream and event record
// classes (but event record class names), clock names other than the id,
// clock accuracy, media types.
func AppendTSDL(dst []byte, m *Metadata) (out []byte, notes []string, err error) {
	w := &tsdlWriter{m: m, b: dst, start: len(dst), dropped: map[string]int{}}
	w.write()
	if w.err != nil {
		return dst, nil, w.err
	}
	for k, n := range w.dropped {
		notes = append(notes, fmt.Sprintf("%s left out (%d)", k, n))
	}
	sort.Strings(notes)
	return w.b, notes, nil
}

type twMember struct {
	name string
	fc   FieldClass
}

type twFrame struct {
	path    []string   // from the scope root, as ParseTSDL's frames
	members []twMember // declared so far
}

type tsdlWriter struct {
	m       *Metadata
	b       []byte
	start   int // len(b) before the text
	err     error
	dropped map[string]int
	order   string // trace byte order: "little-endian" or "big-endian"
	where   string // fragment being written, for errors
	origin  string // scope being written
	frames  []*twFrame
	roots   map[string]FieldClass // scope roots in effect
	clock   string                // default clock of the data stream class
	clocked bool                  // a member of PC/EH maps to clock
	top     bool                  // writing a direct member of the scope root
	first   bool                  // the first member of the packet header
	field   []string              // member names from the scope root, for errors
	depth   int
}

func (w *tsdlWriter) fail(format string, args ...any) {
	if w.err == nil {
		at := w.where
		if len(w.field) > 0 {
			at += " field " + strings.Join(w.field, ".")
		}
		w.err = fmt.Errorf("%w: TSDL: %s: %s", ErrUnsupported, at, fmt.Sprintf(format, args...))
	}
}

// maxTSDLBytes bounds the text AppendTSDL writes: field class aliases are
// written inline at each use, so a model can describe an exponentially
// larger text.
const maxTSDLBytes = 32 << 20

func (w *tsdlWriter) drop(what string, present bool) {
	if present {
		w.dropped[what]++
	}
}

func (w *tsdlWriter) p(s ...string) {
	for _, x := range s {
		w.b = append(w.b, x...)
	}
}

func (w *tsdlWriter) indent(n int) {
	for range n {
		w.b = append(w.b, '\t')
	}
}

// tsdlKeywords are the words TSDL reserves: a member so named is written
// with a leading underscore, which readers remove.
var tsdlKeywords = map[string]bool{
	"align": true, "callsite": true, "const": true, "char": true, "clock": true, "double": true, "enum": true,
	"env": true, "event": true, "floating_point": true, "float": true, "integer": true, "int": true, "long": true,
	"short": true, "signed": true, "stream": true, "string": true, "struct": true, "trace": true, "typealias": true,
	"typedef": true, "unsigned": true, "variant": true, "void": true, "_Bool": true, "_Complex": true,
	"_Imaginary": true, "true": true, "false": true, "TRUE": true, "FALSE": true,
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ident returns the TSDL spelling of a member or option name: readers
// remove one leading underscore, so names starting with one, and keywords,
// get another.
func (w *tsdlWriter) ident(name string) string {
	if !isIdent(name) {
		w.fail("name %q is not a C identifier", name)
		return "_"
	}
	if name[0] == '_' || tsdlKeywords[name] {
		return "_" + name
	}
	return name
}

func quoteTSDL(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// firstOrder returns the byte order of the first fixed-length field class
// of the metadata (the packet header's magic number, usually).
func (w *tsdlWriter) firstOrder(fc FieldClass, depth int) string {
	fc = w.m.Resolve(fc)
	if fc == nil || depth > 64 {
		return ""
	}
	switch f := fc.(type) {
	case *FixedLengthUnsignedInteger:
		return f.ByteOrder
	case *FixedLengthSignedInteger:
		return f.ByteOrder
	case *FixedLengthFloatingPointNumber:
		return f.ByteOrder
	case *Structure:
		for _, m := range f.MemberClasses {
			if o := w.firstOrder(m.FieldClass, depth+1); o != "" {
				return o
			}
		}
	case *StaticLengthArray:
		return w.firstOrder(f.ElementFieldClass, depth+1)
	case *DynamicLengthArray:
		return w.firstOrder(f.ElementFieldClass, depth+1)
	case *Variant:
		for _, o := range f.Options {
			if o := w.firstOrder(o.FieldClass, depth+1); o != "" {
				return o
			}
		}
	}
	return ""
}

func (w *tsdlWriter) common(what string, c *Common) {
	w.drop(what+" attributes", len(c.Attributes) > 0)
	if len(c.Extensions) > 0 {
		w.fail("extensions %v: TSDL cannot declare them", sortedKeys(c.Extensions))
	}
}

func (w *tsdlWriter) write() {
	m := w.m
	w.p("/* CTF 1.8 */\n\n")
	tc := m.TraceClass
	if tc == nil {
		tc = &TraceClass{}
	}
	if m.Preamble != nil {
		w.where = "preamble"
		w.common("preamble", &m.Preamble.Common)
	}
	w.order = w.firstOrder(tc.PacketHeaderFieldClass, 0)
	for _, d := range m.DataStreamClasses {
		for _, o := range []FieldClass{d.PacketContextFieldClass, d.EventRecordHeaderFieldClass, d.EventRecordCommonContextFieldClass} {
			if w.order == "" {
				w.order = w.firstOrder(o, 0)
			}
		}
	}
	for _, e := range m.EventRecordClasses {
		for _, o := range []FieldClass{e.SpecificContextFieldClass, e.PayloadFieldClass} {
			if w.order == "" {
				w.order = w.firstOrder(o, 0)
			}
		}
	}
	// A trace block is written even without a trace class: babeltrace2
	// refuses TSDL without one ("Incomplete metadata stream section") and
	// needs its byte_order, which is the first one the header, context and
	// then payload field classes name (fields in another order carry their
	// own), le when none does.
	if w.order == "" {
		w.order = "little-endian"
	}
	// trace
	w.where = "trace class"
	w.common("trace class", &tc.Common)
	w.drop("trace class namespace", tc.Namespace != "")
	w.drop("trace class name", tc.Name != "")
	w.p("trace {\n\tmajor = 1;\n\tminor = 8;\n")
	if m.Preamble != nil && m.Preamble.UUID != nil {
		u := m.Preamble.UUID.String()
		w.p("\tuuid = \"", u, "\";\n")
		w.drop("trace class UID other than the preamble UUID", tc.UID != "" && tc.UID != u)
	} else {
		w.drop("trace class UID without a preamble UUID", tc.UID != "")
	}
	if w.order == "big-endian" {
		w.p("\tbyte_order = be;\n")
	} else {
		w.p("\tbyte_order = le;\n")
	}
	w.roots = map[string]FieldClass{}
	w.scopes(twScope{"packet.header", OriginPacketHeader, tc.PacketHeaderFieldClass})
	w.p("};\n")
	if w.err != nil {
		return
	}
	if len(tc.Environment) > 0 {
		w.p("\nenv {\n")
		for _, k := range sortedKeys(tc.Environment) {
			if !isIdent(k) || tsdlKeywords[k] {
				w.fail("environment key %q is not a C identifier", k)
				return
			}
			w.p("\t", k, " = ")
			switch v := tc.Environment[k].(type) {
			case string:
				w.p(quoteTSDL(v))
			case Integer:
				w.p(v.String())
			case json.Number:
				if _, ok := parseInteger(v.String()); !ok {
					w.fail("environment %s: %s is not an integer", k, v)
					return
				}
				w.p(v.String())
			default:
				w.fail("environment %s: a %T value (TSDL has strings and integers)", k, v)
				return
			}
			w.p(";\n")
		}
		w.p("};\n")
	}
	w.streamsAndEvents()
}

// streamsAndEvents writes the clock, stream and event blocks.
func (w *tsdlWriter) streamsAndEvents() {
	m := w.m
	for _, id := range sortedKeys(m.ClockClasses) {
		w.clockBlock(m.ClockClasses[id])
		if w.err != nil {
			return
		}
	}
	phRoot := w.roots[OriginPacketHeader]
	// babeltrace2 refuses a stream id without a stream_id member in the
	// packet header: with a single stream of id 0, neither is written.
	hasSID := false
	if st, ok := phRoot.(*Structure); ok {
		for _, mc := range st.MemberClasses {
			hasSID = hasSID || mc.Name == "stream_id"
		}
	}
	for _, d := range m.DataStreamClasses {
		withID := hasSID || len(m.DataStreamClasses) > 1 || d.ID != 0
		w.where = fmt.Sprintf("data stream class %d", d.ID)
		w.common("data stream class", &d.Common)
		w.drop("data stream class namespace, name or UID", d.Namespace != "" || d.Name != "" || d.UID != "")
		w.roots = map[string]FieldClass{OriginPacketHeader: phRoot}
		w.clock, w.clocked = d.DefaultClockClassID, false
		w.p("\nstream {\n")
		if withID {
			w.p("\tid = ", strconv.FormatUint(d.ID, 10), ";\n")
		}
		w.scopes(twScope{"packet.context", OriginPacketContext, d.PacketContextFieldClass},
			twScope{"event.header", OriginEventRecordHeader, d.EventRecordHeaderFieldClass},
			twScope{"event.context", OriginEventRecordCommonContext, d.EventRecordCommonContextFieldClass})
		w.p("};\n")
		if d.DefaultClockClassID != "" && !w.clocked && w.err == nil {
			w.fail("default clock %q: TSDL names a stream's default clock only through a clock-mapped member of its packet context or event record header, and it has none", d.DefaultClockClassID)
		}
		if w.err != nil {
			return
		}
		streamRoots := w.roots
		for _, e := range m.EventRecordClasses {
			if e.DataStreamClassID != d.ID {
				continue
			}
			w.where = fmt.Sprintf("event record class %d (%s)", e.ID, e.Name)
			// the log level and EMF URI are written (loglevel,
			// model.emf.uri); other attributes are left out
			c := e.Common
			c.Attributes = nil
			w.common("event record class", &c)
			w.drop("event record class attributes", otherEventAttrs(e.Attributes))
			w.drop("event record class namespace or UID", e.Namespace != "" || e.UID != "")
			w.roots = map[string]FieldClass{}
			for k, v := range streamRoots {
				w.roots[k] = v
			}
			w.clock = ""
			w.p("\nevent {\n\tname = ", quoteTSDL(e.Name), ";\n\tid = ", strconv.FormatUint(e.ID, 10), ";\n")
			if withID {
				w.p("\tstream_id = ", strconv.FormatUint(d.ID, 10), ";\n")
			}
			if uri, ok := EventEMFURI(e); ok && uri != "" {
				w.p("\tmodel.emf.uri = ", quoteTSDL(uri), ";\n")
			}
			if l, ok := EventLogLevel(e); ok {
				w.p("\tloglevel = ", strconv.Itoa(l), ";\n")
			}
			w.scopes(twScope{"context", OriginEventRecordSpecificContext, e.SpecificContextFieldClass},
				twScope{"fields", OriginEventRecordPayload, e.PayloadFieldClass})
			w.p("};\n")
			if w.err != nil {
				return
			}
		}
	}
	for _, a := range m.Aliases {
		w.drop("field class alias names (classes written inline)", a != nil)
	}
}

func (w *tsdlWriter) clockBlock(cc *ClockClass) {
	w.where = fmt.Sprintf("clock class %q", cc.ID)
	w.common("clock class", &cc.Common)
	if !isIdent(cc.ID) || tsdlKeywords[cc.ID] {
		w.fail("the id is not a C identifier (TSDL maps integers to clock.ID.value)")
		return
	}
	w.drop("clock class namespace", cc.Namespace != "")
	w.drop("clock class name other than its id", cc.Name != "" && cc.Name != cc.ID)
	w.drop("clock class accuracy", cc.Accuracy != nil)
	w.p("\nclock {\n\tname = ", cc.ID, ";\n")
	if cc.UID != "" {
		if _, ok := parseUUID(cc.UID); ok {
			w.p("\tuuid = \"", cc.UID, "\";\n")
		} else {
			w.drop("clock class UID that is not a UUID", true)
		}
	}
	if cc.Description != "" {
		w.p("\tdescription = ", quoteTSDL(cc.Description), ";\n")
	}
	w.p("\tfreq = ", strconv.FormatUint(cc.Frequency, 10), ";\n")
	if cc.Precision != nil {
		w.p("\tprecision = ", strconv.FormatUint(*cc.Precision, 10), ";\n")
	}
	w.p("\toffset_s = ", strconv.FormatInt(cc.OffsetFromOrigin.Seconds, 10), ";\n")
	w.p("\toffset = ", strconv.FormatUint(cc.OffsetFromOrigin.Cycles, 10), ";\n")
	switch {
	case cc.Origin == nil:
		w.p("\tabsolute = false;\n")
	case cc.Origin.UnixEpoch:
		w.p("\tabsolute = true;\n")
	default:
		w.fail("origin %s/%s/%s: TSDL has only the Unix epoch (absolute = true) or none", cc.Origin.Namespace, cc.Origin.Name, cc.Origin.UID)
	}
	w.p("};\n")
}

// twScope is a scope of a block: its TSDL name, origin and field class.
type twScope struct {
	name, origin string
	fc           FieldClass
}

// scopes writes the scopes that are present.
func (w *tsdlWriter) scopes(ss ...twScope) {
	for _, s := range ss {
		if s.fc != nil {
			w.scope("\t"+s.name+" := ", s.origin, s.fc)
		}
	}
}

// scope writes the root structure of one scope.
func (w *tsdlWriter) scope(prefix, origin string, fc FieldClass) {
	rfc := w.m.Resolve(fc)
	if _, ok := rfc.(*Structure); !ok {
		w.fail("%s: the scope's field class is not a structure", origin)
		return
	}
	w.origin = origin
	w.frames = nil
	w.field = nil
	w.roots[origin] = rfc
	w.depth = 0
	w.p(prefix)
	w.typeSpec(rfc, "", 1)
	w.p(";\n")
}

// member writes `TYPE NAME[DIMS];` for a structure member or variant
// option called name (the model's name; pname is the name ParseTSDL's
// frames give a structure inside it).
func (w *tsdlWriter) member(fc FieldClass, name string, ind int) {
	w.memberAs(fc, name, "", ind)
}

// memberAs is member with the TSDL name raw ("": the name's own spelling).
func (w *tsdlWriter) memberAs(fc FieldClass, name, raw string, ind int) {
	w.indent(ind)
	el := w.m.Resolve(fc)
	var dims []string
	// Arrays of non-text elements nest as C declarators: a[2][3].
	for w.err == nil {
		switch a := el.(type) {
		case *StaticLengthArray:
			if a.MinimumAlignment > 1 {
				w.fail("array with a minimum alignment of %d (TSDL arrays align as their elements)", a.MinimumAlignment)
			}
			w.common("field class", &a.Common)
			dims = append(dims, "["+strconv.FormatUint(a.Length, 10)+"]")
			el = w.m.Resolve(a.ElementFieldClass)
			w.top = false
			continue
		case *DynamicLengthArray:
			if a.MinimumAlignment > 1 {
				w.fail("array with a minimum alignment of %d (TSDL arrays align as their elements)", a.MinimumAlignment)
			}
			w.common("field class", &a.Common)
			dims = append(dims, "["+w.path(a.LengthFieldLocation, "length")+"]")
			el = w.m.Resolve(a.ElementFieldClass)
			w.top = false
			continue
		case *StaticLengthString:
			w.common("field class", &a.Common)
			w.textEncoding(a.Encoding)
			dims = append(dims, "["+strconv.FormatUint(a.Length, 10)+"]")
			w.textElem()
		case *DynamicLengthString:
			w.common("field class", &a.Common)
			w.textEncoding(a.Encoding)
			dims = append(dims, "["+w.path(a.LengthFieldLocation, "length")+"]")
			w.textElem()
		case *StaticLengthBlob:
			w.common("field class", &a.Common)
			if !(w.origin == OriginPacketHeader && w.top && name == "uuid" && a.Length == 16 && len(a.Roles) == 1 && a.Roles[0] == RoleMetadataStreamUUID) {
				w.fail("a BLOB (TSDL has them only as the packet header's 16-byte uuid)")
			}
			w.drop("BLOB media type", a.MediaType != "" && a.MediaType != "application/octet-stream")
			dims = append(dims, "[16]")
			w.p("integer { size = 8; align = 8; signed = false; }")
		default:
			w.typeSpec(el, name, ind) // an array element is reached through the array's name
		}
		break
	}
	if raw == "" {
		raw = w.ident(name)
	}
	w.p(" ", raw)
	for _, d := range dims {
		w.p(d)
	}
	w.p(";\n")
}

func (w *tsdlWriter) textEncoding(enc string) {
	if enc != "" && enc != "utf-8" {
		w.fail("a %s string (TSDL strings are UTF-8)", enc)
	}
}

func (w *tsdlWriter) textElem() {
	w.p("integer { size = 8; align = 8; signed = false; encoding = UTF8; }")
}

func (w *tsdlWriter) bitArray(what string, ba BitArray) string {
	if ba.ByteOrder != "big-endian" && ba.ByteOrder != "little-endian" {
		w.fail("%s byte order %q", what, ba.ByteOrder)
	}
	if bo := ba.BitOrder; bo != "" && (bo == "first-to-last") == (ba.ByteOrder == "big-endian") {
		w.fail("%s: bit order %s with byte order %s (TSDL: the byte order's)", what, bo, ba.ByteOrder)
	}
	s := "align = " + strconv.FormatUint(max(ba.Alignment, 1), 10) + ";"
	if ba.ByteOrder != w.order {
		if ba.ByteOrder == "big-endian" {
			s += " byte_order = be;"
		} else {
			s += " byte_order = le;"
		}
	}
	return s
}

// typeSpec writes the type specifier of fc (not an array); pname is the name
// ParseTSDL's frames give a structure here.
func (w *tsdlWriter) typeSpec(fc FieldClass, pname string, ind int) {
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > 64 {
		w.fail("field classes nested deeper than 64")
		return
	}
	if fc == nil {
		w.fail("unknown field class alias")
		return
	}
	if len(w.b)-w.start > maxTSDLBytes {
		if w.err == nil {
			w.err = fmt.Errorf("%w: TSDL: %s: the text exceeds %d MiB (field class aliases are written inline at each use)", ErrLimit, w.where, maxTSDLBytes>>20)
		}
		return
	}
	top := w.top
	w.top = false
	switch f := fc.(type) {
	case *FixedLengthUnsignedInteger:
		w.common("field class", &f.Common)
		w.top = top
		w.integer(f.BitArray, f.IntegerProps, false, f.Roles, pname)
		w.top = false
	case *FixedLengthSignedInteger:
		w.common("field class", &f.Common)
		w.integer(f.BitArray, f.IntegerProps, true, nil, pname)
	case *FixedLengthFloatingPointNumber:
		w.common("field class", &f.Common)
		var e, m string
		switch f.Length {
		case 32:
			e, m = "8", "24"
		case 64:
			e, m = "11", "53"
		default:
			w.fail("a %d-bit floating point number (TSDL readers take binary32 and binary64)", f.Length)
		}
		w.p("floating_point { exp_dig = ", e, "; mant_dig = ", m, "; ", w.bitArray("floating point number", f.BitArray), " }")
	case *NullTerminatedString:
		w.common("field class", &f.Common)
		w.textEncoding(f.Encoding)
		w.p("string")
	case *Structure:
		w.common("field class", &f.Common)
		fr := &twFrame{}
		if n := len(w.frames); n > 0 {
			fr.path = append(append([]string(nil), w.frames[n-1].path...), pname)
		}
		w.frames = append(w.frames, fr)
		w.p("struct {\n")
		for i, mc := range f.MemberClasses {
			w.common("structure member", &mc.Common)
			w.top = len(w.frames) == 1
			w.first = i == 0
			w.field = append(w.field, mc.Name)
			w.member(mc.FieldClass, mc.Name, ind+1)
			w.field = w.field[:len(w.field)-1]
			fr.members = append(fr.members, twMember{mc.Name, w.m.Resolve(mc.FieldClass)})
			if w.err != nil {
				break
			}
		}
		w.frames = w.frames[:len(w.frames)-1]
		w.indent(ind)
		w.p("}")
		if f.MinimumAlignment > 1 {
			w.p(" align(", strconv.FormatUint(f.MinimumAlignment, 10), ")")
		}
	case *Variant:
		w.common("field class", &f.Common)
		tag, sel := w.pathTarget(f.SelectorFieldLocation, "selector")
		if w.err != nil {
			return
		}
		var maps map[string]RangeSet
		switch s := sel.(type) {
		case *FixedLengthUnsignedInteger:
			maps = s.Mappings
		case *FixedLengthSignedInteger:
			maps = s.Mappings
		default:
			w.fail("variant selector %s is not a fixed-length integer (TSDL tags are enumerations)", tag)
			return
		}
		w.p("variant <", tag, "> {\n")
		for _, o := range f.Options {
			w.common("variant option", &o.Common)
			if o.Name == "" {
				w.fail("a variant option without a name (TSDL selects options by their tag label)")
				return
			}
			raw := optionIdent(o.Name, o.SelectorFieldRanges, maps)
			if raw == "" {
				w.fail("variant option %q: its selector %s has no mapping %q with the option's ranges (TSDL selects options by tag label)", o.Name, tag, o.Name)
				return
			}
			w.top = false
			w.field = append(w.field, o.Name)
			w.memberAs(o.FieldClass, o.Name, raw, ind+1)
			w.field = w.field[:len(w.field)-1]
			if w.err != nil {
				return
			}
		}
		w.indent(ind)
		w.p("}")
	case *FixedLengthBoolean:
		w.fail("a boolean (TSDL has none)")
	case *FixedLengthBitArray:
		w.fail("a bit array (TSDL has integers only)")
	case *FixedLengthBitMap:
		w.fail("a bit map (TSDL has integers only)")
	case *VariableLengthUnsignedInteger, *VariableLengthSignedInteger:
		w.fail("a variable-length integer (TSDL has none)")
	case *DynamicLengthBlob, *StaticLengthBlob:
		w.fail("a BLOB (TSDL has them only as the packet header's 16-byte uuid)")
	case *Optional:
		w.fail("an optional (TSDL has none)")
	case *StaticLengthArray, *DynamicLengthArray, *StaticLengthString, *DynamicLengthString:
		w.fail("an array or string of this kind here (TSDL writes them as declarators of a member)")
	default:
		w.fail("field class %T", fc)
	}
}

// optionIdent returns the TSDL name of a variant option called name whose
// selector has the given mappings, or "" when none selects it with its
// ranges. Readers take the option's ranges from the tag label equal to the
// TSDL name, else to the name without its leading underscore, and name the
// option without it.
func optionIdent(name string, ranges RangeSet, maps map[string]RangeSet) string {
	if !isIdent(name) {
		return ""
	}
	if rs, ok := maps["_"+name]; ok {
		if sameRanges(rs, ranges) {
			return "_" + name
		}
		return ""
	}
	if rs, ok := maps[name]; !ok || !sameRanges(rs, ranges) {
		return ""
	}
	if name[0] == '_' || tsdlKeywords[name] {
		return "_" + name
	}
	return name
}

func sameRanges(a, b RangeSet) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Lower.Cmp(b[i].Lower) != 0 || a[i].Upper.Cmp(b[i].Upper) != 0 {
			return false
		}
	}
	return true
}

// integer writes an integer or enumeration type specifier, checking that
// ParseTSDL gives the member the model's roles.
func (w *tsdlWriter) integer(ba BitArray, props IntegerProps, signed bool, roles []string, name string) {
	if ba.Length == 0 || ba.Length > 64 {
		w.fail("a %d-bit integer (TSDL integers have 1 to 64 bits)", ba.Length)
		return
	}
	clocked := false
	for _, r := range roles {
		if r == RoleDefaultClockTimestamp || r == RolePacketEndDefaultClockTimestamp {
			clocked = true
		}
	}
	if !signed && !clocked && len(w.m.ClockClasses) <= 1 && autoClocked(w.origin, name) {
		// ParseTSDL and babeltrace2 map such a member to the only clock
		// class (or an implicit one): the model must have the role then.
		w.fail("an unsigned integer named %s without a clock role: TSDL readers map it to the only (or an implicit) clock class", name)
		return
	}
	if !signed {
		if want := w.roles(name, ba.Length, clocked); !slices.Equal(want, roles) {
			w.fail("roles %v: TSDL readers give this member %v (roles come from the member name and scope)", roles, want)
			return
		}
	}
	spec := "integer { size = " + strconv.FormatUint(ba.Length, 10) + "; " + w.bitArray("integer", ba) + " signed = " + strconv.FormatBool(signed) + ";"
	if b := props.PreferredDisplayBase; b != 0 && b != 10 {
		spec += " base = " + strconv.Itoa(b) + ";"
	}
	if clocked {
		if w.clock == "" {
			w.fail("a clock timestamp role in a data stream class without a default clock")
			return
		}
		spec += " map = clock." + w.clock + ".value;"
		if w.origin == OriginPacketContext || w.origin == OriginEventRecordHeader {
			w.clocked = true
		}
	}
	spec += " }"
	if len(props.Mappings) == 0 {
		w.p(spec)
		return
	}
	w.p("enum : ", spec, " { ")
	// Labels in the order that makes babeltrace2 list them as it does
	// for the source metadata: TSDL's own order, or for CTF 2 the order
	// babeltrace2's first map of them gives (BabeltraceMappingOrder).
	order := props.metadataOrder()
	if w.m.Source.Kind != KindTSDL {
		order = unorderedMapOrder(order)
	}
	for i, k := range order {
		for j, r := range props.Mappings[k] {
			if i+j > 0 {
				w.p(", ")
			}
			w.p(quoteTSDL(k), " = ", r.Lower.String())
			if r.Upper.Cmp(r.Lower) != 0 {
				w.p(" ... ", r.Upper.String())
			}
		}
	}
	w.p(" }")
}

// roles returns the roles ParseTSDL (as babeltrace2) gives an unsigned
// integer member called name in the scope being written.
func (w *tsdlWriter) roles(name string, size uint64, clocked bool) []string {
	r := tsdlRoles(w.origin, w.top, w.first, name, size, clocked)
	if r == nil && clocked {
		return []string{"(none: a clock-mapped member outside the packet context and event record header)"}
	}
	return r
}

func (w *tsdlWriter) path(loc FieldLocation, what string) string {
	p, _ := w.pathTarget(loc, what)
	return p
}

var originWords = map[string]string{
	OriginPacketHeader:               "trace.packet.header",
	OriginPacketContext:              "stream.packet.context",
	OriginEventRecordHeader:          "stream.event.header",
	OriginEventRecordCommonContext:   "stream.event.context",
	OriginEventRecordSpecificContext: "event.context",
	OriginEventRecordPayload:         "event.fields",
}

// pathTarget returns the TSDL field path of a location, as seen from the
// member being written, and the field class it names.
func (w *tsdlWriter) pathTarget(loc FieldLocation, what string) (string, FieldClass) {
	origin := loc.Origin
	var names []string
	if origin == "" {
		origin = w.origin
		if len(w.frames) > 0 {
			names = append(names, w.frames[len(w.frames)-1].path...)
		}
	}
	for _, e := range loc.Path {
		if e.Parent {
			if loc.Origin != "" || len(names) == 0 {
				w.fail("%s location %v: a parent step out of the scope", what, loc.Path)
				return "", nil
			}
			names = names[:len(names)-1]
			continue
		}
		names = append(names, e.Name)
	}
	if len(names) == 0 {
		w.fail("%s location: empty path", what)
		return "", nil
	}
	if origin == w.origin {
		// The nearest frame holding the first name, as ParseTSDL looks
		// a relative path up.
		for i := len(w.frames) - 1; i >= 0; i-- {
			fr := w.frames[i]
			if len(fr.path) >= len(names) || !prefixOf(fr.path, names) {
				continue
			}
			rest := names[len(fr.path):]
			var hit FieldClass
			for _, m := range fr.members {
				if m.name == rest[0] {
					hit = m.fc
				}
			}
			if hit == nil || w.shadowed(i, rest[0]) {
				continue
			}
			t := w.walk(hit, rest[1:], what)
			return w.joinIdents(rest), t
		}
	}
	root := w.roots[origin]
	if origin == w.origin && len(w.frames) > 0 {
		st := &Structure{}
		for _, m := range w.frames[0].members {
			st.MemberClasses = append(st.MemberClasses, StructureMember{Name: m.name, FieldClass: m.fc})
		}
		root = st
	}
	if root == nil {
		w.fail("%s location: scope %s not written before this field", what, origin)
		return "", nil
	}
	t := w.walk(root, names, what)
	return originWords[origin] + "." + w.joinIdents(names), t
}

func prefixOf(p, s []string) bool {
	for i := range p {
		if p[i] != s[i] {
			return false
		}
	}
	return true
}

// shadowed reports whether a frame nearer than i declares name.
func (w *tsdlWriter) shadowed(i int, name string) bool {
	for j := len(w.frames) - 1; j > i; j-- {
		for _, m := range w.frames[j].members {
			if m.name == name {
				return true
			}
		}
	}
	return false
}

func (w *tsdlWriter) joinIdents(names []string) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = w.ident(n)
	}
	return strings.Join(s, ".")
}

// walk follows names from fc through structure members and variant
// options (TSDL paths name both).
func (w *tsdlWriter) walk(fc FieldClass, names []string, what string) FieldClass {
	for _, n := range names {
		fc = w.m.Resolve(fc)
		var next FieldClass
		switch f := fc.(type) {
		case *Structure:
			for _, m := range f.MemberClasses {
				if m.Name == n {
					next = m.FieldClass
				}
			}
		case *Variant:
			for _, o := range f.Options {
				if o.Name == n {
					next = o.FieldClass
				}
			}
		}
		if next == nil {
			w.fail("%s location: no member %q on the way (TSDL paths go through structures and variants only)", what, n)
			return nil
		}
		fc = next
	}
	return w.m.Resolve(fc)
}

// otherEventAttrs reports whether event record class attributes hold more
// than what TSDL's loglevel and model.emf.uri carry: another namespace,
// another key, or a log level or EMF URI babeltrace2 would not read.
func otherEventAttrs(a Attributes) bool {
	for ns, v := range a {
		m, ok := v.(map[string]any)
		if !ok || ns != BabeltraceNamespace && ns != LTTngNamespace {
			return true
		}
		for k, x := range m {
			s, isStr := x.(string)
			switch {
			case k == "emf-uri" && isStr:
			case k == "log-level" && isStr && slices.Contains(LogLevels[:], s):
			default:
				return true
			}
		}
	}
	return false
}
