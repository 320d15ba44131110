package ctf2meta

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// DecodeFragment decodes one fragment from its JSON text (an object, without
// the RS byte). It checks the fragment on its own: types, required
// properties, value ranges, defaults; DecodeMetadata and FragmentReader also
// check the rules that span fragments. Error offsets count bytes of text
// (FragmentReader rebases them to the stream).
func DecodeFragment(text []byte, opts ...ReaderOption) (Fragment, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return decodeFragment(text, &o, 0, 0, 1, newBudget(&o.limits, nil, int64(len(text))), nil)
}

// decodeFragment decodes the JSON text of fragment num; off is the offset of
// its RS byte (schema errors point there), textOff that of text[0] (syntax
// errors point into the text). The JSON values are charged to bud; js is
// parseJSON's state kept between fragments (nil: none).
//
// The direct decoder (direct.go) decodes the text first; what it leaves
// (errors, unusual texts, preambles, trace and clock classes) the generic
// path decodes again: parseJSON, then decoder.
func decodeFragment(text []byte, o *options, off, textOff int64, num int, bud *memBudget, js *jsonScratch) (Fragment, error) {
	if js == nil {
		js = new(jsonScratch)
	}
	var used int64
	if bud != nil {
		used = bud.used
	}
	if f, ok := decodeDirect(text, o, bud, js); ok {
		return f, nil
	}
	if bud != nil {
		bud.used = used
	}
	return decodeGeneric(text, o, off, textOff, num, bud, js)
}

// decodeGeneric is decodeFragment by the generic path: the JSON text into
// parseJSON's tree, the tree into typed values. Its errors are
// decodeFragment's.
func decodeGeneric(text []byte, o *options, off, textOff int64, num int, bud *memBudget, js *jsonScratch) (Fragment, error) {
	if js == nil {
		js = new(jsonScratch)
	}
	v, err := parseJSON(text, jsonDepth(o.limits.MaxDepth), bud, js)
	if err != nil {
		var le *jsonLimitError
		if errors.As(err, &le) {
			return nil, newErr(textOff+int64(le.Offset), ErrLimit, "fragment #%d: %v (%s)", num, err, budgetRule)
		}
		var se *jsonSyntaxError
		if errors.As(err, &se) && se.Truncated {
			return nil, newErr(textOff+int64(se.Offset), ErrTruncated, "fragment #%d: JSON text ends prematurely (truncated fragment)", num)
		}
		if se != nil && se.Depth {
			return nil, newErr(textOff+int64(se.Offset), ErrLimit, "fragment #%d: %v", num, err)
		}
		return nil, newErr(textOff+int64(se.Offset), ErrFraming, "fragment #%d: invalid JSON text: %v", num, err)
	}
	d := &decoder{o: o, off: off, num: num, js: js}
	f := d.fragment(v)
	if d.err != nil {
		return nil, d.err
	}
	return f, nil
}

// jsonDepth is the JSON nesting allowed with field classes nested maxDepth
// deep: a structure member adds three JSON levels (member-classes array,
// member object, field-class object), and a field class's own properties
// (mappings, attributes) a few more.
func jsonDepth(maxDepth int) int { return 3*maxDepth + 8 }

// Memory budget of decoded JSON values: MemoryPerInputByte bytes per byte
// of JSON text read, plus MemoryBase, and never more than Limits.MaxMemory.
const (
	MemoryPerInputByte = 32
	MemoryBase         = 1 << 20
)

const budgetRule = "the budget is 32 bytes per byte of JSON text read + 1 MiB, at most Limits.MaxMemory"

// newBudget returns bud (or a new budget) with its limit set for read bytes
// of JSON text read so far.
func newBudget(l *Limits, bud *memBudget, read int64) *memBudget {
	if bud == nil {
		bud = new(memBudget)
	}
	bud.limit = min(l.MaxMemory, MemoryPerInputByte*read+MemoryBase)
	return bud
}

// decoder converts a generic JSON value into typed values. The first error
// wins; the path names where it is.
type decoder struct {
	o     *options
	off   int64
	num   int
	kind  string
	path  []pathSeg
	depth int
	err   error
	js    *jsonScratch // shared Common.present lists
}

func (d *decoder) fail(msg string, args ...any) {
	if d.err != nil {
		return
	}
	var sb strings.Builder
	for _, p := range d.path {
		sb.WriteByte('.')
		sb.WriteString(p.key)
		if p.idx >= 0 {
			fmt.Fprintf(&sb, "[%d]", p.idx)
		}
	}
	where := sb.String()
	if where != "" {
		where = " " + where + ":"
	}
	kind := d.kind
	if kind != "" {
		kind = " (" + kind + ")"
	}
	d.err = newErr(d.off, ErrSchema, "fragment #%d%s:%s %s", d.num, kind, where, fmt.Sprintf(msg, args...))
}

// pathSeg is one step of the property path, rendered ".key" or ".key[idx]".
type pathSeg struct {
	key string
	idx int // -1: none
}

func (d *decoder) push(seg string)             { d.path = append(d.path, pathSeg{seg, -1}) }
func (d *decoder) pushIndex(key string, i int) { d.path = append(d.path, pathSeg{key, i}) }
func (d *decoder) pop()                        { d.path = d.path[:len(d.path)-1] }

// object checks v is an object with no properties outside known (unless
// unknown properties are allowed) and returns it.
func (d *decoder) object(v any, known ...string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.fail("expecting a JSON object, got %s", jsonKind(v))
		return nil
	}
	unknown, hasUnknown := "", false
	for k := range m {
		found := false
		for _, kk := range known {
			if k == kk {
				found = true
				break
			}
		}
		if found {
			continue
		}
		if d.o.allowUnknown {
			delete(m, k) // dropped, as documented
			continue
		}
		if !hasUnknown || k < unknown {
			unknown, hasUnknown = k, true // the smallest, for a deterministic message
		}
	}
	if hasUnknown {
		d.fail("unknown property `%s`", unknown)
		return nil
	}
	return m
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func (d *decoder) str(m map[string]any, key string, required bool) string {
	v, ok := m[key]
	if !ok {
		if required {
			d.fail("missing required property `%s`", key)
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.fail("property `%s` must be a string, got %s", key, jsonKind(v))
	}
	return s
}

func (d *decoder) integer(m map[string]any, key string, required bool) (Integer, bool) {
	v, ok := m[key]
	if !ok {
		if required {
			d.fail("missing required property `%s`", key)
		}
		return Integer{}, false
	}
	return d.integerValue(v, key)
}

func (d *decoder) integerValue(v any, what string) (Integer, bool) {
	n, ok := v.(json.Number)
	if !ok {
		d.fail("`%s` must be an integer, got %s", what, jsonKind(v))
		return Integer{}, false
	}
	i, ok := parseInteger(string(n))
	if !ok {
		d.fail("`%s` must be an integer in [-2^63, 2^64-1], got %s", what, n)
		return Integer{}, false
	}
	return i, true
}

func (d *decoder) uint(m map[string]any, key string, required bool, def uint64) uint64 {
	i, ok := d.integer(m, key, required)
	if !ok {
		return def
	}
	u, ok := i.Uint64()
	if !ok {
		d.fail("property `%s` must be ≥ 0, got %s", key, i)
		return def
	}
	return u
}

func (d *decoder) common(m map[string]any) Common {
	var c Common
	c.present = d.presentKeys(m)
	c.Attributes = d.freeObject(m, "attributes")
	c.Extensions = d.freeObject(m, "extensions")
	return c
}

// presentKeys returns the sorted keys of m but "type". Objects of a kind
// share their key sets: each distinct list (up to internMax of them) is
// allocated once per stream and shared, with its capacity cut to its
// length so that an append copies it.
func (d *decoder) presentKeys(m map[string]any) []string {
	js := d.js
	keys := js.keys[:0]
	for k := range m {
		if k != "type" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	js.keys = keys
	sig := js.sig[:0]
	for _, k := range keys {
		sig = binary.AppendUvarint(sig, uint64(len(k)))
		sig = append(sig, k...)
	}
	js.sig = sig
	if p, ok := js.present[string(sig)]; ok {
		return p
	}
	p := append(make([]string, 0, len(keys)), keys...)
	if js.present == nil {
		js.present = make(map[string][]string)
	}
	if len(js.present) < internMax {
		js.present[string(sig)] = p
	}
	return p
}

func (d *decoder) freeObject(m map[string]any, key string) map[string]any {
	v, ok := m[key]
	if !ok {
		return nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		d.fail("property `%s` must be an object, got %s", key, jsonKind(v))
		return nil
	}
	if len(o) == 0 {
		return nil
	}
	return o
}

func (d *decoder) fragment(v any) Fragment {
	m, ok := v.(map[string]any)
	if !ok {
		d.fail("a fragment must be a JSON object, got %s", jsonKind(v))
		return nil
	}
	t, ok := m["type"].(string)
	if !ok {
		if _, has := m["type"]; has {
			d.fail("property `type` must be a string")
		} else {
			d.fail("missing required property `type`")
		}
		return nil
	}
	d.kind = t
	switch t {
	case TypePreamble:
		m = d.object(m, "type", "attributes", "extensions", "version", "uuid")
		if m == nil {
			return nil
		}
		p := &Preamble{Common: d.common(m)}
		ver, ok := d.integer(m, "version", true)
		if ok {
			if v, ok := ver.Int64(); !ok || v != 2 {
				d.failVersion(ver)
				return nil
			}
			p.Version = 2
		}
		if u, ok := m["uuid"]; ok {
			p.UUID = d.uuid(u)
		}
		return p
	case TypeFieldClassAlias:
		m = d.object(m, "type", "attributes", "extensions", "name", "field-class")
		if m == nil {
			return nil
		}
		a := &FieldClassAlias{Common: d.common(m), Name: d.str(m, "name", true)}
		a.FieldClass = d.fieldClassProp(m, "field-class", true)
		return a
	case TypeTraceClass:
		m = d.object(m, "type", "attributes", "extensions", "namespace", "name", "uid", "environment", "packet-header-field-class")
		if m == nil {
			return nil
		}
		tc := &TraceClass{Common: d.common(m), Namespace: d.str(m, "namespace", false), Name: d.str(m, "name", false), UID: d.str(m, "uid", false)}
		_, tc.NameSet = m["name"]
		if env, ok := m["environment"]; ok {
			d.push("environment")
			em, ok := env.(map[string]any)
			if !ok {
				d.fail("must be an object, got %s", jsonKind(env))
			}
			for _, k := range sortedKeys(em) {
				switch v := em[k].(type) {
				case string:
					d.setEnv(tc, k, v)
				case json.Number:
					if i, ok := d.integerValue(v, k); ok {
						d.setEnv(tc, k, i)
					}
				default:
					d.fail("environment entry `%s` must be an integer or a string, got %s", k, jsonKind(v))
				}
			}
			d.pop()
		}
		tc.PacketHeaderFieldClass = d.fieldClassProp(m, "packet-header-field-class", false)
		return tc
	case TypeClockClass:
		return d.clockClass(m)
	case TypeDataStreamClass:
		m = d.object(m, "type", "attributes", "extensions", "id", "namespace", "name", "uid", "default-clock-class-id", "packet-context-field-class", "event-record-header-field-class", "event-record-common-context-field-class")
		if m == nil {
			return nil
		}
		s := &DataStreamClass{Common: d.common(m), ID: d.uint(m, "id", false, 0), Namespace: d.str(m, "namespace", false), Name: d.str(m, "name", false), UID: d.str(m, "uid", false)}
		s.DefaultClockClassID = d.str(m, "default-clock-class-id", false)
		s.PacketContextFieldClass = d.fieldClassProp(m, "packet-context-field-class", false)
		s.EventRecordHeaderFieldClass = d.fieldClassProp(m, "event-record-header-field-class", false)
		s.EventRecordCommonContextFieldClass = d.fieldClassProp(m, "event-record-common-context-field-class", false)
		return s
	case TypeEventRecordClass:
		m = d.object(m, "type", "attributes", "extensions", "id", "data-stream-class-id", "namespace", "name", "uid", "specific-context-field-class", "payload-field-class")
		if m == nil {
			return nil
		}
		e := &EventRecordClass{Common: d.common(m), ID: d.uint(m, "id", false, 0), DataStreamClassID: d.uint(m, "data-stream-class-id", false, 0), Namespace: d.str(m, "namespace", false), Name: d.str(m, "name", false), UID: d.str(m, "uid", false)}
		e.SpecificContextFieldClass = d.fieldClassProp(m, "specific-context-field-class", false)
		e.PayloadFieldClass = d.fieldClassProp(m, "payload-field-class", false)
		return e
	}
	d.fail("unknown fragment type %q", t)
	return nil
}

func (d *decoder) failVersion(v Integer) {
	if d.err != nil {
		return
	}
	d.err = newErr(d.off, ErrUnsupportedVersion, "fragment #%d (preamble): unsupported CTF version %s (expecting 2)", d.num, v)
}

func (d *decoder) setEnv(tc *TraceClass, k string, v any) {
	if tc.Environment == nil {
		tc.Environment = map[string]any{}
	}
	tc.Environment[k] = v
}

func (d *decoder) uuid(v any) *UUID {
	d.push("uuid")
	defer d.pop()
	a, ok := v.([]any)
	if !ok || len(a) != 16 {
		d.fail("must be an array of 16 integers")
		return nil
	}
	var u UUID
	for i, e := range a {
		n, ok := d.integerValue(e, "uuid element")
		if !ok {
			return nil
		}
		b, ok := n.Uint64()
		if !ok || b > 255 {
			d.fail("element %d is %s, not in [0, 255]", i, n)
			return nil
		}
		u[i] = byte(b)
	}
	return &u
}

func (d *decoder) clockClass(m map[string]any) Fragment {
	m = d.object(m, "type", "attributes", "extensions", "id", "namespace", "name", "uid", "frequency", "origin", "offset-from-origin", "precision", "accuracy", "description")
	if m == nil {
		return nil
	}
	c := &ClockClass{Common: d.common(m), ID: d.str(m, "id", true), Namespace: d.str(m, "namespace", false), Name: d.str(m, "name", false), UID: d.str(m, "uid", false), Description: d.str(m, "description", false)}
	c.Frequency = d.uint(m, "frequency", true, 0)
	if d.err == nil && c.Frequency == 0 {
		d.fail("property `frequency` must be > 0")
	}
	if o, ok := m["origin"]; ok {
		d.push("origin")
		switch o := o.(type) {
		case string:
			if o != "unix-epoch" {
				d.fail("must be \"unix-epoch\" or an object, got %q", o)
			}
			c.Origin = &ClockOrigin{UnixEpoch: true}
		default:
			om := d.object(o, "namespace", "name", "uid")
			if om != nil {
				c.Origin = &ClockOrigin{Namespace: d.str(om, "namespace", false), Name: d.str(om, "name", true), UID: d.str(om, "uid", true)}
			}
		}
		d.pop()
	}
	if o, ok := m["offset-from-origin"]; ok {
		d.push("offset-from-origin")
		if om := d.object(o, "seconds", "cycles"); om != nil {
			for _, k := range sortedKeys(om) {
				c.present = append(c.present, "offset-from-origin."+k)
			}
			if s, ok := d.integer(om, "seconds", false); ok {
				v, ok := s.Int64()
				if !ok {
					d.fail("`seconds` %s out of the int64 range", s)
				}
				c.OffsetFromOrigin.Seconds = v
			}
			c.OffsetFromOrigin.Cycles = d.uint(om, "cycles", false, 0)
			if d.err == nil && c.OffsetFromOrigin.Cycles >= c.Frequency {
				d.fail("`cycles` %d must be less than the frequency %d", c.OffsetFromOrigin.Cycles, c.Frequency)
			}
		}
		d.pop()
	}
	if _, ok := m["precision"]; ok {
		p := d.uint(m, "precision", false, 0)
		c.Precision = &p
	}
	if _, ok := m["accuracy"]; ok {
		a := d.uint(m, "accuracy", false, 0)
		c.Accuracy = &a
	}
	return c
}

func (d *decoder) fieldClassProp(m map[string]any, key string, required bool) FieldClass {
	v, ok := m[key]
	if !ok {
		if required {
			d.fail("missing required property `%s`", key)
		}
		return nil
	}
	d.push(key)
	fc := d.fieldClass(v)
	d.pop()
	return fc
}

var bitArrayKeys = []string{"type", "attributes", "extensions", "length", "byte-order", "bit-order", "alignment"}

func keys(base []string, more ...string) []string {
	return append(append([]string(nil), base...), more...)
}

var (
	keysBitArray    = bitArrayKeys
	keysBitMap      = keys(bitArrayKeys, "flags")
	keysUnsignedInt = keys(bitArrayKeys, "preferred-display-base", "mappings", "roles")
	keysSignedInt   = keys(bitArrayKeys, "preferred-display-base", "mappings")
	keysVLUnsigned  = []string{"type", "attributes", "extensions", "preferred-display-base", "mappings", "roles"}
	keysVLSigned    = []string{"type", "attributes", "extensions", "preferred-display-base", "mappings"}
)

func (d *decoder) fieldClass(v any) FieldClass {
	if d.err != nil {
		return nil
	}
	if s, ok := v.(string); ok {
		if s == "" {
			d.fail("empty field class alias name")
		}
		return AliasRef(s)
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > d.o.limits.MaxDepth {
		if d.err == nil {
			d.err = newErr(d.off, ErrLimit, "fragment #%d: field classes nested deeper than %d (Limits.MaxDepth)", d.num, d.o.limits.MaxDepth)
		}
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.fail("a field class must be an object or an alias name, got %s", jsonKind(v))
		return nil
	}
	t, ok := m["type"].(string)
	if !ok {
		d.fail("field class: missing or non-string property `type`")
		return nil
	}
	switch t {
	case TypeFixedLengthBitArray:
		if m = d.object(m, keysBitArray...); m != nil {
			return &FixedLengthBitArray{Common: d.common(m), BitArray: d.bitArray(m)}
		}
	case TypeFixedLengthBoolean:
		if m = d.object(m, keysBitArray...); m != nil {
			return &FixedLengthBoolean{Common: d.common(m), BitArray: d.bitArray(m)}
		}
	case TypeFixedLengthFloatingPointNumber:
		if m = d.object(m, keysBitArray...); m != nil {
			f := &FixedLengthFloatingPointNumber{Common: d.common(m), BitArray: d.bitArray(m)}
			if l := f.Length; d.err == nil && l != 16 && l != 32 && l != 64 && !(l >= 128 && l%32 == 0) {
				d.fail("floating point number length %d is not 16, 32, 64, 128 or a multiple of 32 above 128", l)
			}
			return f
		}
	case TypeFixedLengthBitMap:
		if m = d.object(m, keysBitMap...); m != nil {
			b := &FixedLengthBitMap{Common: d.common(m), BitArray: d.bitArray(m)}
			b.Flags = d.rangeMap(m, "flags", true, false)
			if d.err == nil && len(b.Flags) == 0 {
				d.fail("a bit map needs at least one flag")
			}
			for _, name := range sortedKeys(b.Flags) {
				for _, r := range b.Flags[name] {
					if u, _ := r.Upper.Uint64(); r.Lower.Negative() || u >= b.Length {
						d.fail("flag `%s`: bit index range [%s, %s] outside [0, %d]", name, r.Lower, r.Upper, b.Length-1)
					}
				}
			}
			return b
		}
	case TypeFixedLengthUnsignedInteger:
		if m = d.object(m, keysUnsignedInt...); m != nil {
			return &FixedLengthUnsignedInteger{Common: d.common(m), BitArray: d.bitArray(m), IntegerProps: d.intProps(m, false), Roles: d.roles(m)}
		}
	case TypeFixedLengthSignedInteger:
		if m = d.object(m, keysSignedInt...); m != nil {
			return &FixedLengthSignedInteger{Common: d.common(m), BitArray: d.bitArray(m), IntegerProps: d.intProps(m, true)}
		}
	case TypeVariableLengthUnsignedInteger:
		if m = d.object(m, keysVLUnsigned...); m != nil {
			return &VariableLengthUnsignedInteger{Common: d.common(m), IntegerProps: d.intProps(m, false), Roles: d.roles(m)}
		}
	case TypeVariableLengthSignedInteger:
		if m = d.object(m, keysVLSigned...); m != nil {
			return &VariableLengthSignedInteger{Common: d.common(m), IntegerProps: d.intProps(m, true)}
		}
	case TypeNullTerminatedString:
		if m = d.object(m, "type", "attributes", "extensions", "encoding"); m != nil {
			return &NullTerminatedString{Common: d.common(m), Encoding: d.encoding(m)}
		}
	case TypeStaticLengthString:
		if m = d.object(m, "type", "attributes", "extensions", "length", "encoding"); m != nil {
			return &StaticLengthString{Common: d.common(m), Length: d.uint(m, "length", true, 0), Encoding: d.encoding(m)}
		}
	case TypeDynamicLengthString:
		if m = d.object(m, "type", "attributes", "extensions", "length-field-location", "encoding"); m != nil {
			return &DynamicLengthString{Common: d.common(m), LengthFieldLocation: d.location(m, "length-field-location"), Encoding: d.encoding(m)}
		}
	case TypeStaticLengthBlob:
		if m = d.object(m, "type", "attributes", "extensions", "length", "media-type", "roles"); m != nil {
			return &StaticLengthBlob{Common: d.common(m), Length: d.uint(m, "length", true, 0), MediaType: d.mediaType(m), Roles: d.roles(m)}
		}
	case TypeDynamicLengthBlob:
		if m = d.object(m, "type", "attributes", "extensions", "length-field-location", "media-type"); m != nil {
			return &DynamicLengthBlob{Common: d.common(m), LengthFieldLocation: d.location(m, "length-field-location"), MediaType: d.mediaType(m)}
		}
	case TypeStructure:
		if m = d.object(m, "type", "attributes", "extensions", "member-classes", "minimum-alignment"); m != nil {
			return d.structure(m)
		}
	case TypeStaticLengthArray:
		if m = d.object(m, "type", "attributes", "extensions", "element-field-class", "length", "minimum-alignment"); m != nil {
			a := &StaticLengthArray{Common: d.common(m), Length: d.uint(m, "length", true, 0), MinimumAlignment: d.alignment(m, "minimum-alignment")}
			a.ElementFieldClass = d.fieldClassProp(m, "element-field-class", true)
			return a
		}
	case TypeDynamicLengthArray:
		if m = d.object(m, "type", "attributes", "extensions", "element-field-class", "length-field-location", "minimum-alignment"); m != nil {
			a := &DynamicLengthArray{Common: d.common(m), LengthFieldLocation: d.location(m, "length-field-location"), MinimumAlignment: d.alignment(m, "minimum-alignment")}
			a.ElementFieldClass = d.fieldClassProp(m, "element-field-class", true)
			return a
		}
	case TypeOptional:
		if m = d.object(m, "type", "attributes", "extensions", "field-class", "selector-field-location", "selector-field-ranges"); m != nil {
			o := &Optional{Common: d.common(m), SelectorFieldLocation: d.location(m, "selector-field-location")}
			if v, ok := m["selector-field-ranges"]; ok {
				d.push("selector-field-ranges")
				o.SelectorFieldRanges = d.rangeSet(v, false)
				d.pop()
			}
			o.FieldClass = d.fieldClassProp(m, "field-class", true)
			return o
		}
	case TypeVariant:
		if m = d.object(m, "type", "attributes", "extensions", "options", "selector-field-location"); m != nil {
			return d.variant(m)
		}
	default:
		d.fail("unknown field class type %q", t)
	}
	return nil
}

func (d *decoder) bitArray(m map[string]any) BitArray {
	var b BitArray
	b.Length = d.uint(m, "length", true, 0)
	if d.err == nil && b.Length == 0 {
		d.fail("property `length` must be > 0")
	}
	b.ByteOrder = d.str(m, "byte-order", true)
	var ok bool
	if b.BitOrder, ok = defaultBitOrder(b.ByteOrder); !ok {
		d.fail("property `byte-order` must be \"big-endian\" or \"little-endian\", got %q", b.ByteOrder)
	}
	if _, ok := m["bit-order"]; ok {
		b.BitOrder = d.str(m, "bit-order", false)
		if b.BitOrder != "first-to-last" && b.BitOrder != "last-to-first" {
			d.fail("property `bit-order` must be \"first-to-last\" or \"last-to-first\", got %q", b.BitOrder)
		}
	}
	b.Alignment = d.alignment(m, "alignment")
	return b
}

// defaultBitOrder returns the bit order a byte order implies, and false
// for a string that is no byte order.
func defaultBitOrder(byteOrder string) (string, bool) {
	switch byteOrder {
	case "little-endian":
		return "first-to-last", true
	case "big-endian":
		return "last-to-first", true
	}
	return "", false
}

func (d *decoder) alignment(m map[string]any, key string) uint64 {
	a := d.uint(m, key, false, 1)
	if d.err == nil && bits.OnesCount64(a) != 1 {
		d.fail("property `%s` %d is not a power of two", key, a)
	}
	return a
}

func (d *decoder) intProps(m map[string]any, signed bool) IntegerProps {
	p := IntegerProps{PreferredDisplayBase: 10}
	if _, ok := m["preferred-display-base"]; ok {
		b := d.uint(m, "preferred-display-base", false, 10)
		if b != 2 && b != 8 && b != 10 && b != 16 {
			d.fail("property `preferred-display-base` must be 2, 8, 10 or 16, got %d", b)
		}
		p.PreferredDisplayBase = int(b)
	}
	p.Mappings = d.rangeMap(m, "mappings", false, signed)
	if len(p.Mappings) > 1 {
		p.MappingOrder = d.textOrder(m, "mappings")
	}
	return p
}

func (d *decoder) rangeMap(m map[string]any, key string, required, signed bool) map[string]RangeSet {
	v, ok := m[key]
	if !ok {
		if required {
			d.fail("missing required property `%s`", key)
		}
		return nil
	}
	d.push(key)
	defer d.pop()
	mm, ok := v.(map[string]any)
	if !ok {
		d.fail("must be an object, got %s", jsonKind(v))
		return nil
	}
	if len(mm) == 0 {
		return nil
	}
	out := make(map[string]RangeSet, len(mm))
	for _, k := range sortedKeys(mm) {
		d.push(k)
		out[k] = d.rangeSet(mm[k], !signed)
		d.pop()
	}
	return out
}

// textOrder returns the text order of the keys of a "mappings" object of
// the current text (two or more keys), or nil.
func (d *decoder) textOrder(m map[string]any, key string) []string {
	mm, ok := m[key].(map[string]any)
	if !ok || d.js == nil {
		return nil
	}
	return d.js.order[reflect.ValueOf(mm).Pointer()]
}

func (d *decoder) rangeSet(v any, unsigned bool) RangeSet {
	a, ok := v.([]any)
	if !ok || len(a) == 0 {
		d.fail("an integer range set must be a non-empty array")
		return nil
	}
	rs := make(RangeSet, 0, len(a))
	for _, e := range a {
		p, ok := e.([]any)
		if !ok || len(p) != 2 {
			d.fail("an integer range must be an array of two integers")
			return nil
		}
		lo, ok1 := d.integerValue(p[0], "lower bound")
		hi, ok2 := d.integerValue(p[1], "upper bound")
		if !ok1 || !ok2 {
			return nil
		}
		if lo.Cmp(hi) > 0 {
			d.fail("range [%s, %s]: lower bound greater than upper bound", lo, hi)
			return nil
		}
		if unsigned && lo.Negative() {
			d.fail("range [%s, %s] of an unsigned integer has a negative bound", lo, hi)
			return nil
		}
		rs = append(rs, Range{lo, hi})
	}
	return rs
}

var validRoles = map[string]bool{
	RoleDataStreamClassID: true, RoleDataStreamID: true, RoleMetadataStreamUUID: true, RolePacketMagicNumber: true,
	RoleDefaultClockTimestamp: true, RoleDiscardedEventRecordCounterSnapshot: true, RolePacketContentLength: true,
	RolePacketEndDefaultClockTimestamp: true, RolePacketSequenceNumber: true, RolePacketTotalLength: true,
	RoleEventRecordClassID: true,
}

func (d *decoder) roles(m map[string]any) []string {
	v, ok := m["roles"]
	if !ok {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		d.fail("property `roles` must be an array of strings")
		return nil
	}
	if len(a) == 0 {
		return nil
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok || !validRoles[s] {
			d.fail("invalid role %v", e)
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) encoding(m map[string]any) string {
	if _, ok := m["encoding"]; !ok {
		return "utf-8"
	}
	e := d.str(m, "encoding", false)
	switch e {
	case "utf-8", "utf-16be", "utf-16le", "utf-32be", "utf-32le":
	default:
		d.fail("property `encoding` %q is not utf-8, utf-16be, utf-16le, utf-32be or utf-32le", e)
	}
	return e
}

func (d *decoder) mediaType(m map[string]any) string {
	if _, ok := m["media-type"]; !ok {
		return "application/octet-stream"
	}
	return d.str(m, "media-type", false)
}

func (d *decoder) location(m map[string]any, key string) FieldLocation {
	var loc FieldLocation
	v, ok := m[key]
	if !ok {
		d.fail("missing required property `%s`", key)
		return loc
	}
	d.push(key)
	defer d.pop()
	lm := d.object(v, "origin", "path")
	if lm == nil {
		return loc
	}
	if _, ok := lm["origin"]; ok {
		loc.Origin = d.str(lm, "origin", false)
		switch loc.Origin {
		case OriginPacketHeader, OriginPacketContext, OriginEventRecordHeader, OriginEventRecordCommonContext, OriginEventRecordSpecificContext, OriginEventRecordPayload:
		default:
			d.fail("unknown origin %q", loc.Origin)
		}
	}
	p, ok := lm["path"].([]any)
	if !ok || len(p) == 0 {
		d.fail("property `path` must be a non-empty array")
		return loc
	}
	loc.Path = make([]PathElement, len(p))
	for i, e := range p {
		switch e := e.(type) {
		case nil:
			loc.Path[i].Parent = true
		case string:
			loc.Path[i].Name = e
		default:
			d.fail("path element %d must be a string or null", i)
		}
	}
	if loc.Path[len(p)-1].Parent {
		d.fail("the last path element must not be null")
	}
	return loc
}

func (d *decoder) structure(m map[string]any) *Structure {
	s := &Structure{Common: d.common(m), MinimumAlignment: d.alignment(m, "minimum-alignment")}
	v, ok := m["member-classes"]
	if !ok {
		return s
	}
	a, ok := v.([]any)
	if !ok {
		d.fail("property `member-classes` must be an array")
		return s
	}
	s.MemberClasses = make([]StructureMember, 0, len(a))
	seen := make(map[string]bool, len(a))
	for i, e := range a {
		d.pushIndex("member-classes", i)
		mm := d.object(e, "name", "field-class", "attributes", "extensions")
		if mm != nil {
			mem := StructureMember{Common: d.common(mm), Name: d.str(mm, "name", true)}
			if seen[mem.Name] && d.err == nil {
				d.fail("duplicate member name %q", mem.Name)
			}
			seen[mem.Name] = true
			mem.FieldClass = d.fieldClassProp(mm, "field-class", true)
			s.MemberClasses = append(s.MemberClasses, mem)
		}
		d.pop()
		if d.err != nil {
			return s
		}
	}
	if len(s.MemberClasses) == 0 {
		s.MemberClasses = nil
	}
	return s
}

func (d *decoder) variant(m map[string]any) *Variant {
	vr := &Variant{Common: d.common(m), SelectorFieldLocation: d.location(m, "selector-field-location")}
	a, ok := m["options"].([]any)
	if !ok || len(a) == 0 {
		d.fail("property `options` must be a non-empty array")
		return vr
	}
	vr.Options = make([]VariantOption, 0, len(a))
	names := map[string]bool{}
	for i, e := range a {
		d.pushIndex("options", i)
		om := d.object(e, "name", "field-class", "selector-field-ranges", "attributes", "extensions")
		if om != nil {
			opt := VariantOption{Common: d.common(om), Name: d.str(om, "name", false)}
			if opt.Name != "" {
				if names[opt.Name] {
					d.fail("duplicate option name %q", opt.Name)
				}
				names[opt.Name] = true
			}
			if rv, ok := om["selector-field-ranges"]; ok {
				d.push("selector-field-ranges")
				opt.SelectorFieldRanges = d.rangeSet(rv, false)
				d.pop()
			} else {
				d.fail("missing required property `selector-field-ranges`")
			}
			opt.FieldClass = d.fieldClassProp(om, "field-class", true)
			vr.Options = append(vr.Options, opt)
		}
		d.pop()
		if d.err != nil {
			return vr
		}
	}
	if a, b, ok := intersectingOptions(vr.Options); ok {
		d.pushIndex("options", b)
		d.fail("selector field ranges intersect those of option %d", a)
		d.pop()
	}
	return vr
}

// intersectingOptions finds two options whose selector field ranges
// intersect, a < b, in O(n log n) for n ranges: it sweeps the ranges by lower
// bound, keeping the highest upper bound seen and the highest of another
// option than that one's.
func intersectingOptions(opts []VariantOption) (a, b int, ok bool) {
	type item struct {
		r   Range
		opt int
	}
	var items []item
	for i := range opts {
		for _, r := range opts[i].SelectorFieldRanges {
			items = append(items, item{r, i})
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].r.Lower.Cmp(items[j].r.Lower) < 0 })
	best, second := -1, -1 // indexes into items: highest upper, highest upper of another option
	for k, it := range items {
		other := best
		if other >= 0 && items[other].opt == it.opt {
			other = second
		}
		if other >= 0 && items[other].r.Upper.Cmp(it.r.Lower) >= 0 {
			return min(it.opt, items[other].opt), max(it.opt, items[other].opt), true
		}
		switch {
		case best < 0 || it.r.Upper.Cmp(items[best].r.Upper) > 0:
			if best >= 0 && items[best].opt != it.opt {
				second = best
			}
			best = k
		case items[best].opt != it.opt && (second < 0 || it.r.Upper.Cmp(items[second].r.Upper) > 0):
			second = k
		}
	}
	return 0, 0, false
}

// sortedKeys returns m's keys in order, for deterministic messages and output.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
