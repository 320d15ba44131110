package ctf2meta

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"sort"
)

// The direct decoder reads the JSON text of a field-class-alias, data stream
// class or event record class fragment straight into the typed model,
// without the generic tree (maps of every object) that parseJSON builds and
// decoder converts. It accepts exactly what the generic path accepts and
// gives the same values; it does not explain refusals: whenever something
// is wrong or unusual (an error of any kind, a duplicate key, another
// fragment type), it gives up and decodeFragment decodes the text again by
// the generic path, which gives the error with its offset and message, or
// the value. FuzzDirectDecoder and TestDirectDecoderMatchesGeneric hold the
// two paths equal.
//
// Every JSON value is charged to the memory budget exactly as parseJSON
// charges it (chargeValue, chargeObject, chargeMember, chargeArray, string
// and number bytes) and nests as deep, so both paths run out of budget or
// depth on the same texts.
//
// An object's members are read in text order into a props, one slot per
// property name any of these objects may have (dkeys: a key has the same
// JSON shape in every object that allows it); the object's "type", which
// may come last (JSON writers sorting keys put it there), then says which
// slots make the value and which keys are allowed.

// dshape is the JSON shape of a property's value.
type dshape uint8

const (
	shString   dshape = iota // a string
	shInteger                // an integer
	shObject                 // a free-form object (attributes, extensions)
	shRangeMap               // an object of integer range sets
	shRoles                  // an array of role names
	shLocation               // a field location
	shRanges                 // an integer range set
	shField                  // a field class
	shMembers                // structure member classes
	shOptions                // variant options
)

// Value slots of a props by shape: strings, integers, field classes,
// locations, range maps.
const (
	sType = iota
	sName
	sByteOrder
	sBitOrder
	sEncoding
	sMediaType
	sNamespace
	sUID
	sDefaultClock
	nStr
)

const (
	iLength = iota
	iAlignment
	iDisplayBase
	iMinAlignment
	iID
	iDataStreamClassID
	nInt
)

const (
	fField = iota
	fElement
	fSpecificContext
	fPayload
	fPacketContext
	fRecordHeader
	fCommonContext
	nField
)

const (
	lLength = iota
	lSelector
)

const (
	rFlags = iota
	rMappings
)

type dkey struct {
	name  string
	shape dshape
	slot  int
}

// dkeys lists every property name of the objects the direct decoder reads,
// sorted (init sorts them): bit i of props.mask is dkeys[i], so a mask lists
// its keys in the order Common.present keeps them.
var dkeys = []dkey{
	{"type", shString, sType},
	{"name", shString, sName},
	{"byte-order", shString, sByteOrder},
	{"bit-order", shString, sBitOrder},
	{"encoding", shString, sEncoding},
	{"media-type", shString, sMediaType},
	{"namespace", shString, sNamespace},
	{"uid", shString, sUID},
	{"default-clock-class-id", shString, sDefaultClock},
	{"length", shInteger, iLength},
	{"alignment", shInteger, iAlignment},
	{"preferred-display-base", shInteger, iDisplayBase},
	{"minimum-alignment", shInteger, iMinAlignment},
	{"id", shInteger, iID},
	{"data-stream-class-id", shInteger, iDataStreamClassID},
	{"attributes", shObject, 0},
	{"extensions", shObject, 1},
	{"flags", shRangeMap, rFlags},
	{"mappings", shRangeMap, rMappings},
	{"roles", shRoles, 0},
	{"length-field-location", shLocation, lLength},
	{"selector-field-location", shLocation, lSelector},
	{"selector-field-ranges", shRanges, 0},
	{"field-class", shField, fField},
	{"element-field-class", shField, fElement},
	{"specific-context-field-class", shField, fSpecificContext},
	{"payload-field-class", shField, fPayload},
	{"packet-context-field-class", shField, fPacketContext},
	{"event-record-header-field-class", shField, fRecordHeader},
	{"event-record-common-context-field-class", shField, fCommonContext},
	{"member-classes", shMembers, 0},
	{"options", shOptions, 0},
}

// dkeyIndex maps a property name to its index in dkeys; dkeyTable is the
// same as a perfect hash table (dkeyHash), for the decoder's loop.
var dkeyIndex, dkeyTable = func() (map[string]int, [64]int8) {
	sort.Slice(dkeys, func(i, j int) bool { return dkeys[i].name < dkeys[j].name })
	m := make(map[string]int, len(dkeys))
	var t [64]int8
	for i := range t {
		t[i] = -1
	}
	for i, k := range dkeys {
		m[k.name] = i
		h := dkeyHash([]byte(k.name), 0, len(k.name))
		if t[h] >= 0 {
			panic("ctf2meta: dkeyHash collides") // a programming error, found by every test
		}
		t[h] = int8(i)
	}
	return m, t
}()

// dkeyHash hashes the name b[i:i+n] for dkeyTable: a multiplicative hash of
// its first eight bytes, its last eight and its length, distinct for every
// name of dkeys (init checks).
func dkeyHash(b []byte, i, n int) int {
	var w uint64
	switch {
	case n >= 8:
		w = binary.LittleEndian.Uint64(b[i:]) ^ binary.LittleEndian.Uint64(b[i+n-8:])*3
	case i+8 <= len(b):
		w = binary.LittleEndian.Uint64(b[i:]) & (1<<(8*n) - 1)
	default:
		for k := n - 1; k >= 0; k-- {
			w = w<<8 | uint64(b[i+k])
		}
	}
	return int((w ^ uint64(n)) * 0x33cac5a702e557d1 >> 58)
}

// lookupKey returns the index in dkeys of the name b[i:i+n].
func lookupKey(b []byte, i, n int) (int, bool) {
	k := dkeyTable[dkeyHash(b, i, n)]
	if k < 0 || dkeys[k].name != string(b[i:i+n]) {
		return 0, false
	}
	return int(k), true
}

// unknownBit marks a props that had a key outside dkeys.
const unknownBit = 1 << 63

// dmask returns the mask of the keys named.
func dmask(names ...string) uint64 {
	var m uint64
	for _, n := range names {
		i, ok := dkeyIndex[n]
		if !ok {
			panic("ctf2meta: no direct decoder key " + n) // a programming error, found by every test
		}
		m |= 1 << i
	}
	return m
}

// The keys each object allows (the generic decoder's lists).
var (
	dmCommon    = dmask("type", "attributes", "extensions")
	dmBitArray  = dmCommon | dmask("length", "byte-order", "bit-order", "alignment")
	dmBitMap    = dmBitArray | dmask("flags")
	dmUnsigned  = dmBitArray | dmask("preferred-display-base", "mappings", "roles")
	dmSigned    = dmBitArray | dmask("preferred-display-base", "mappings")
	dmVLUnsign  = dmCommon | dmask("preferred-display-base", "mappings", "roles")
	dmVLSigned  = dmCommon | dmask("preferred-display-base", "mappings")
	dmNTString  = dmCommon | dmask("encoding")
	dmSLString  = dmCommon | dmask("length", "encoding")
	dmDLString  = dmCommon | dmask("length-field-location", "encoding")
	dmSLBlob    = dmCommon | dmask("length", "media-type", "roles")
	dmDLBlob    = dmCommon | dmask("length-field-location", "media-type")
	dmStructure = dmCommon | dmask("member-classes", "minimum-alignment")
	dmSLArray   = dmCommon | dmask("element-field-class", "length", "minimum-alignment")
	dmDLArray   = dmCommon | dmask("element-field-class", "length-field-location", "minimum-alignment")
	dmOptional  = dmCommon | dmask("field-class", "selector-field-location", "selector-field-ranges")
	dmVariant   = dmCommon | dmask("options", "selector-field-location")
	dmMember    = dmask("name", "field-class", "attributes", "extensions")
	dmOption    = dmask("name", "field-class", "selector-field-ranges", "attributes", "extensions")
	dmAlias     = dmCommon | dmask("name", "field-class")
	dmStream    = dmCommon | dmask("id", "namespace", "name", "uid", "default-clock-class-id", "packet-context-field-class", "event-record-header-field-class", "event-record-common-context-field-class")
	dmRecord    = dmCommon | dmask("id", "data-stream-class-id", "namespace", "name", "uid", "specific-context-field-class", "payload-field-class")
	dmType      = dmask("type")

	dmName         = dmask("name")
	dmID           = dmask("id")
	dmStreamID     = dmask("data-stream-class-id")
	dmLength       = dmask("length")
	dmByteOrder    = dmask("byte-order")
	dmBitOrder     = dmask("bit-order")
	dmAlignment    = dmask("alignment")
	dmMinAlignment = dmask("minimum-alignment")
	dmDisplayBase  = dmask("preferred-display-base")
	dmMappings     = dmask("mappings")
	dmEncoding     = dmask("encoding")
	dmMediaType    = dmask("media-type")
	dmLengthLoc    = dmask("length-field-location")
	dmSelectorLoc  = dmask("selector-field-location")
	dmRanges       = dmask("selector-field-ranges")
	dmOptions      = dmask("options")
	dmField        = dmask("field-class")
	dmElement      = dmask("element-field-class")
)

// directTypes are the object types the direct decoder reads.
var directTypes = map[string]bool{
	TypeFieldClassAlias: true, TypeDataStreamClass: true, TypeEventRecordClass: true,
	TypeFixedLengthBitArray: true, TypeFixedLengthBitMap: true, TypeFixedLengthBoolean: true,
	TypeFixedLengthUnsignedInteger: true, TypeFixedLengthSignedInteger: true, TypeFixedLengthFloatingPointNumber: true,
	TypeVariableLengthUnsignedInteger: true, TypeVariableLengthSignedInteger: true,
	TypeNullTerminatedString: true, TypeStaticLengthString: true, TypeDynamicLengthString: true,
	TypeStaticLengthBlob: true, TypeDynamicLengthBlob: true, TypeStructure: true,
	TypeStaticLengthArray: true, TypeDynamicLengthArray: true, TypeOptional: true, TypeVariant: true,
}

// props holds the properties of one JSON object, by slot.
type props struct {
	mask   uint64
	str    [nStr]string
	num    [nInt]Integer
	fc     [nField]FieldClass
	obj    [2]map[string]any // attributes, extensions (nil when empty)
	rmap   [2]map[string]RangeSet
	rneg   [2]bool     // a range map has a negative bound
	rord   [2][]string // a range map's names in text order (two or more)
	loc    [2]FieldLocation
	roles  []string
	ranges RangeSet
	mems   []StructureMember
	opts   []VariantOption
}

func (pr *props) has(key uint64) bool { return pr.mask&key != 0 }

type direct struct {
	p     jsonParser
	o     *options
	depth int // field class nesting, as decoder.depth
}

// decodeDirect decodes text as decodeFragment does, or reports false when it
// leaves the text to the generic path. The budget's use is then
// meaningless: the caller restores it.
func decodeDirect(text []byte, o *options, bud *memBudget, js *jsonScratch) (Fragment, bool) {
	d := direct{p: jsonParser{b: text, maxDepth: jsonDepth(o.limits.MaxDepth), bud: bud, js: js}, o: o}
	f, ok := d.fragment()
	// The unknown key sets: empty now (each object removes its own, and
	// a failure leaves them all), and not kept big.
	js.ukTab, js.ukBuf = js.ukTab[:0], js.ukBuf[:0]
	if cap(js.ukTab) > ukKeep {
		js.ukTab = nil
	}
	if cap(js.ukBuf) > ukKeep {
		js.ukBuf = nil
	}
	if cap(js.ukTmp) > ukKeep {
		js.ukTmp = nil
	}
	if !ok {
		js.stack.drop(0)
		js.members.drop(0)
		js.options.drop(0)
		js.ranges.drop(0)
		js.pathElems.drop(0)
	}
	return f, ok
}

func (d *direct) fragment() (Fragment, bool) {
	p := &d.p
	p.space()
	var pr props
	if !d.object(&pr) {
		return nil, false
	}
	p.space()
	if p.i != len(p.b) || !pr.has(dmType) {
		return nil, false
	}
	switch pr.str[sType] {
	case TypeFieldClassAlias:
		c, ok := d.common(&pr, dmAlias)
		if !ok || !pr.has(dmName) || !pr.has(dmField) {
			return nil, false
		}
		return &FieldClassAlias{Common: c, Name: pr.str[sName], FieldClass: pr.fc[fField]}, true
	case TypeDataStreamClass:
		c, ok := d.common(&pr, dmStream)
		id, ok2 := d.uintOpt(&pr, dmID, iID, 0)
		if !ok || !ok2 {
			return nil, false
		}
		return &DataStreamClass{Common: c, ID: id, Namespace: pr.str[sNamespace], Name: pr.str[sName], UID: pr.str[sUID],
			DefaultClockClassID:                pr.str[sDefaultClock],
			PacketContextFieldClass:            pr.fc[fPacketContext],
			EventRecordHeaderFieldClass:        pr.fc[fRecordHeader],
			EventRecordCommonContextFieldClass: pr.fc[fCommonContext]}, true
	case TypeEventRecordClass:
		c, ok := d.common(&pr, dmRecord)
		id, ok2 := d.uintOpt(&pr, dmID, iID, 0)
		ds, ok3 := d.uintOpt(&pr, dmStreamID, iDataStreamClassID, 0)
		if !ok || !ok2 || !ok3 {
			return nil, false
		}
		return &EventRecordClass{Common: c, ID: id, DataStreamClassID: ds, Namespace: pr.str[sNamespace], Name: pr.str[sName], UID: pr.str[sUID],
			SpecificContextFieldClass: pr.fc[fSpecificContext], PayloadFieldClass: pr.fc[fPayload]}, true
	}
	return nil, false
}

// common checks pr has no key outside allowed (or drops them when unknown
// properties are allowed) and returns its Common.
func (d *direct) common(pr *props, allowed uint64) (Common, bool) {
	if pr.mask&^allowed != 0 {
		if !d.o.allowUnknown {
			return Common{}, false
		}
		pr.mask &= allowed
	}
	return Common{Attributes: pr.obj[0], Extensions: pr.obj[1], present: d.present(pr.mask &^ dmType)}, true
}

// present returns the names of the keys in mask, sorted; lists are shared
// as decoder.presentKeys shares them.
func (d *direct) present(mask uint64) []string {
	js := d.p.js
	if p, ok := js.presentBits[mask]; ok {
		return p
	}
	p := make([]string, 0, bits.OnesCount64(mask))
	for m := mask; m != 0; m &= m - 1 {
		p = append(p, dkeys[bits.TrailingZeros64(m)].name)
	}
	if js.presentBits == nil {
		js.presentBits = make(map[uint64][]string)
	}
	if len(js.presentBits) < internMax {
		js.presentBits[mask] = p
	}
	return p
}

// open enters the object or array at p.i starting with c, charged as
// parseJSON charges it; it returns false for another value or a spent
// budget or depth. empty reports "{}" or "[]" (then already left).
func (d *direct) open(c byte, charge int) (ok, empty bool) {
	p := &d.p
	if p.i >= len(p.b) || p.b[p.i] != c || !p.charge(chargeValue) || !p.enter() || !p.charge(charge) {
		return false, false
	}
	p.i++
	p.space()
	if p.i < len(p.b) && (p.b[p.i] == '}' || p.b[p.i] == ']') {
		if p.b[p.i] != c+2 { // '{'+2 == '}', '['+2 == ']'
			return false, false
		}
		p.i++
		p.depth--
		return true, true
	}
	return true, false
}

// next moves past the separator after a member or element: it reports
// more for ',' and closes the object or array for its closing byte.
func (d *direct) next(closing byte) (more, ok bool) {
	p := &d.p
	p.space()
	if p.i >= len(p.b) {
		return false, false
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		p.space()
		return true, true
	case closing:
		p.i++
		p.depth--
		return false, true
	}
	return false, false
}

// key reads an object key and its ':' as parseJSON does, charges the member.
func (d *direct) key() (string, bool) {
	p := &d.p
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", false
	}
	k := p.key()
	if p.err != nil || !p.charge(chargeMember+len(k)) {
		return "", false
	}
	p.space()
	if p.i >= len(p.b) || p.b[p.i] != ':' {
		return "", false
	}
	p.i++
	p.space()
	return k, true
}

// object reads the object at p.i into pr.
func (d *direct) object(pr *props) bool {
	ok, empty := d.open('{', chargeObject)
	if !ok || empty {
		return ok
	}
	p := &d.p
	var us ukeySet
	for {
		var idx int
		var found bool
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return false
		}
		if t, plain := p.plainString(); plain {
			// p.key without making the string: a known key needs only
			// its index, an unknown one is dropped or refused.
			if !p.charge(len(t)) || !p.charge(chargeMember+len(t)) {
				return false
			}
			off := p.i - 1 - len(t)
			idx, found = lookupKey(p.b, off, len(t))
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return false
			}
			p.i++
			p.space()
			if !found && !d.unknown(pr, &us, t, off, "") {
				return false
			}
		} else {
			k, ok := d.key()
			if !ok {
				return false
			}
			if idx, found = dkeyIndex[k]; !found && !d.unknown(pr, &us, nil, -1, k) {
				return false
			}
		}
		if found {
			bit := uint64(1) << idx
			if pr.mask&bit != 0 {
				return false // a duplicate key: the generic path refuses it
			}
			pr.mask |= bit
			if !d.member(pr, dkeys[idx]) {
				return false
			}
		}
		more, ok := d.next('}')
		if !ok {
			return false
		}
		if !more {
			d.dropKeys(&us)
			return true
		}
	}
}

// unknown reads the value of a key outside dkeys (its text text at off in
// p.b, or, off -1, decoded dec) into nothing, as parseJSON would parse it,
// after a check that the object (pr, its unknown keys us) has not had the
// key already: the generic path refuses a repeated key. It returns false
// to leave the object to the generic path: for that, and when unknown
// properties are refused (every object the direct decoder reads refuses
// them then), and for an object whose type the direct decoder does not
// read (a preamble, trace or clock class).
func (d *direct) unknown(pr *props, us *ukeySet, text []byte, off int, dec string) bool {
	if !d.o.allowUnknown || pr.has(dmType) && !directTypes[pr.str[sType]] || !d.unknownKey(us, text, off, dec) {
		return false
	}
	pr.mask |= unknownBit
	d.p.value()
	return d.p.err == nil
}

// member reads the value of key k into pr.
func (d *direct) member(pr *props, k dkey) bool {
	p := &d.p
	var ok bool
	switch k.shape {
	case shString:
		pr.str[k.slot], ok = d.str()
	case shInteger:
		pr.num[k.slot], ok = d.integer()
	case shObject:
		if p.i >= len(p.b) || p.b[p.i] != '{' {
			return false
		}
		m, _ := p.value().(map[string]any)
		if p.err != nil {
			return false
		}
		if len(m) > 0 {
			pr.obj[k.slot] = m
		}
		ok = true
	case shRangeMap:
		pr.rmap[k.slot], pr.rord[k.slot], pr.rneg[k.slot], ok = d.rangeMap()
	case shRoles:
		pr.roles, ok = d.roles()
	case shLocation:
		pr.loc[k.slot], ok = d.location()
	case shRanges:
		pr.ranges, _, ok = d.rangeSet()
	case shField:
		pr.fc[k.slot], ok = d.fieldClass()
	case shMembers:
		pr.mems, ok = d.members()
	case shOptions:
		pr.opts, ok = d.options()
	}
	return ok
}

// str reads a string value.
func (d *direct) str() (string, bool) {
	p := &d.p
	if p.i >= len(p.b) || p.b[p.i] != '"' || !p.charge(chargeValue) {
		return "", false
	}
	s := p.key()
	return s, p.err == nil
}

// integer reads an integer value.
func (d *direct) integer() (Integer, bool) {
	p := &d.p
	if p.i >= len(p.b) || !(p.b[p.i] == '-' || p.b[p.i] >= '0' && p.b[p.i] <= '9') || !p.charge(chargeValue) {
		return Integer{}, false
	}
	// Most numbers are a few digits: read them at once (no leading zero,
	// followed by a byte that cannot continue a number).
	if v, n := smallUint(p.b[p.i:]); n > 0 {
		p.i += n
		if n > 3 || v > 255 { // smallDecimal's numbers are not charged
			if !p.charge(n) {
				return Integer{}, false
			}
		}
		return Uint(v), true
	}
	t := p.numToken()
	if t == nil {
		return Integer{}, false
	}
	if _, small := smallDecimal(t); !small && !p.charge(len(t)) {
		return Integer{}, false
	}
	return parseInteger(t)
}

// smallUint reads the JSON number at the start of b when it is 1 to 18
// decimal digits without a leading zero, ending before a byte that is not a
// digit, '.', 'e' or 'E'; n is 0 otherwise.
func smallUint(b []byte) (v uint64, n int) {
	for n < len(b) && n < 19 {
		c := b[n] - '0'
		if c > 9 {
			break
		}
		v = v*10 + uint64(c)
		n++
	}
	if n == 0 || n == 19 || n > 1 && b[0] == '0' || n < len(b) && (b[n] == '.' || b[n] == 'e' || b[n] == 'E') {
		return 0, 0
	}
	return v, n
}

// uintOpt returns the integer of key (slot) when present, ≥ 0, else def.
func (d *direct) uintOpt(pr *props, key uint64, slot int, def uint64) (uint64, bool) {
	if !pr.has(key) {
		return def, true
	}
	return pr.num[slot].Uint64()
}

// rangeSet reads an integer range set and reports whether a bound is < 0.
func (d *direct) rangeSet() (RangeSet, bool, bool) {
	ok, empty := d.open('[', chargeArray)
	if !ok || empty {
		return nil, false, false // a range set is not empty
	}
	js := d.p.js
	base := js.ranges.n
	neg := false
	for {
		ok, empty := d.open('[', chargeArray)
		if !ok || empty {
			return nil, false, false
		}
		lo, ok1 := d.integer()
		more, ok2 := d.next(']')
		if !ok1 || !ok2 || !more {
			return nil, false, false
		}
		hi, ok3 := d.integer()
		more, ok4 := d.next(']')
		if !ok3 || !ok4 || more || lo.Cmp(hi) > 0 {
			return nil, false, false
		}
		neg = neg || lo.Negative()
		js.ranges.push(Range{lo, hi})
		if more, ok = d.next(']'); !ok {
			return nil, false, false
		}
		if !more {
			break
		}
	}
	return js.ranges.pop(base), neg, true
}

// rangeMap reads an object of range sets (nil when empty).
func (d *direct) rangeMap() (map[string]RangeSet, []string, bool, bool) {
	ok, empty := d.open('{', chargeObject)
	if !ok || empty {
		return nil, nil, false, ok
	}
	var out map[string]RangeSet
	var order []string
	neg := false
	for {
		k, ok := d.key()
		if !ok {
			return nil, nil, false, false
		}
		rs, n, ok := d.rangeSet()
		if !ok {
			return nil, nil, false, false
		}
		if out == nil {
			out = make(map[string]RangeSet, 1)
		}
		if _, dup := out[k]; dup {
			return nil, nil, false, false // a duplicate key: the generic path refuses it
		}
		out[k] = rs
		order = append(order, k)
		neg = neg || n
		more, ok := d.next('}')
		if !ok {
			return nil, nil, false, false
		}
		if !more {
			if len(order) < 2 {
				order = nil
			}
			return out, order, neg, true
		}
	}
}

// roles reads an array of role names (nil when empty).
func (d *direct) roles() ([]string, bool) {
	ok, empty := d.open('[', chargeArray)
	if !ok || empty {
		return nil, ok
	}
	var out []string
	for {
		s, ok := d.str()
		if !ok || !validRoles[s] {
			return nil, false
		}
		out = append(out, s)
		more, ok := d.next(']')
		if !ok {
			return nil, false
		}
		if !more {
			return out, true
		}
	}
}

// location reads a field location.
func (d *direct) location() (FieldLocation, bool) {
	var loc FieldLocation
	ok, empty := d.open('{', chargeObject)
	if !ok || empty {
		return loc, false
	}
	var hasOrigin, hasPath bool
	for {
		k, ok := d.key()
		if !ok {
			return loc, false
		}
		switch {
		case k == "origin" && !hasOrigin:
			hasOrigin = true
			if loc.Origin, ok = d.str(); !ok {
				return loc, false
			}
			switch loc.Origin {
			case OriginPacketHeader, OriginPacketContext, OriginEventRecordHeader, OriginEventRecordCommonContext, OriginEventRecordSpecificContext, OriginEventRecordPayload:
			default:
				return loc, false
			}
		case k == "path" && !hasPath:
			hasPath = true
			if loc.Path, ok = d.path(); !ok {
				return loc, false
			}
		default:
			return loc, false // unknown or duplicate: left to the generic path
		}
		more, ok := d.next('}')
		if !ok {
			return loc, false
		}
		if !more {
			return loc, hasPath
		}
	}
}

// path reads a location's path: member names and nulls, not ending with null.
func (d *direct) path() ([]PathElement, bool) {
	ok, empty := d.open('[', chargeArray)
	if !ok || empty {
		return nil, false
	}
	p := &d.p
	js := p.js
	base := js.pathElems.n
	for {
		var e PathElement
		if p.i < len(p.b) && p.b[p.i] == 'n' {
			if !p.charge(chargeValue) {
				return nil, false
			}
			if p.literal("null", nil); p.err != nil {
				return nil, false
			}
			e.Parent = true
		} else if e.Name, ok = d.str(); !ok {
			return nil, false
		}
		js.pathElems.push(e)
		more, ok := d.next(']')
		if !ok {
			return nil, false
		}
		if !more {
			break
		}
	}
	out := js.pathElems.pop(base)
	return out, !out[len(out)-1].Parent
}

// members reads a structure's member classes (nil when none).
func (d *direct) members() ([]StructureMember, bool) {
	ok, empty := d.open('[', chargeArray)
	if !ok || empty {
		return nil, ok
	}
	js := d.p.js
	base := js.members.n
	var seen nameSet
	for {
		var pr props
		if !d.object(&pr) {
			return nil, false
		}
		c, ok := d.common(&pr, dmMember)
		if !ok || !pr.has(dmName) || !pr.has(dmField) {
			return nil, false
		}
		name := pr.str[sName]
		if dupName(&seen, &js.members, base, memberName, name) {
			return nil, false
		}
		js.members.push(StructureMember{Common: c, Name: name, FieldClass: pr.fc[fField]})
		more, ok := d.next(']')
		if !ok {
			return nil, false
		}
		if !more {
			break
		}
	}
	return js.members.pop(base), true
}

// nameSet finds duplicate names among the elements of an array: by a scan
// while there are few, through a map from 32 on (a scan would make long
// arrays quadratic).
type nameSet struct{ m map[string]bool }

// dupName reports whether n names one of the elements of st from base on,
// the array's elements so far, and adds it.
func dupName[E any](s *nameSet, st *scratch[E], base int, name func(*E) string, n string) bool {
	at := func(j int) *E { return &st.chunks[j/scratchChunk][j%scratchChunk] }
	if s.m == nil {
		if st.n-base < 32 {
			for j := base; j < st.n; j++ {
				if name(at(j)) == n {
					return true
				}
			}
			return false
		}
		s.m = make(map[string]bool, 2*(st.n-base))
		for j := base; j < st.n; j++ {
			s.m[name(at(j))] = true
		}
	}
	if s.m[n] {
		return true
	}
	s.m[n] = true
	return false
}

// Unknown keys. With unknown properties allowed an object may have any
// number of keys outside dkeys, and the generic path refuses one given
// twice (the decoded texts equal), so the direct decoder keeps each
// object's unknown keys in a set (ukeySet) and leaves the object to the
// generic path at a repeated one: it then refuses exactly what the generic
// path refuses, and reads objects of many distinct unknown keys itself.
//
// The sets of the objects being read, one per nesting level, are regions
// of one stack of slots, jsonScratch.ukTab, reused from text to text. An
// object adds a key only when every object inside it is finished, so its
// region is then the top one and grows in place. A slot (one uint64, see
// ukUsed) says where the key's text is: in the JSON text for a key without
// escapes, else decoded in jsonScratch.ukBuf. So a key costs no string,
// and a region is 8 slots (64 bytes, less than the chargeObject the budget
// counts per object) until it grows, doubling when 3/4 full: at most 22
// bytes of table per key then, 43 with the tables its growth left behind,
// less than the chargeMember the budget counts per member.
//
// Slots are found by linear probing from maphash with a random seed per
// scratch, so no input can choose the collisions: expected O(1) probes
// per key, each comparing one key text; regrowth rehashes each key text a
// bounded number of times on average. Time is linear in the keys' bytes.

// ukeySet is the set of one object's unknown keys: its region
// js.ukTab[at:at+size] (size 0: no region yet) with n keys, and buf, where
// its decoded keys begin in js.ukBuf.
type ukeySet struct {
	at, size, n, buf int
}

// A slot of ukTab: 0 when empty, else ukUsed | ukInBuf (when the text is
// in ukBuf) | offset<<ukLenBits | length. Keys and offsets too long for
// their bits leave the object to the generic path.
const (
	ukLenBits = 24
	ukOffBits = 38
	ukUsed    = 1 << 62
	ukInBuf   = 1 << 63
	ukFirst   = 8       // slots of a new region
	ukKeep    = 1 << 14 // slots and bytes kept from one text to the next
)

// ukText returns the text of the key in slot v.
func (d *direct) ukText(v uint64) []byte {
	n := int(v & (1<<ukLenBits - 1))
	off := int(v >> ukLenBits & (1<<ukOffBits - 1))
	if v&ukInBuf != 0 {
		return d.p.js.ukBuf[off : off+n]
	}
	return d.p.b[off : off+n]
}

// ukExtend adds n empty slots on top of js.ukTab; a new backing array at
// least doubles, so growing costs the final size once more at most.
func (js *jsonScratch) ukExtend(n int) {
	l := len(js.ukTab)
	if l+n > cap(js.ukTab) {
		t := make([]uint64, l+n, max(2*cap(js.ukTab), l+n))
		copy(t, js.ukTab)
		js.ukTab = t
		return
	}
	js.ukTab = js.ukTab[:l+n]
	clear(js.ukTab[l:])
}

// unknownKey adds an unknown key to s: its text text at off in p.b, or
// (off -1) the decoded key dec. It reports false when s has the key
// already or the key cannot be kept (then the generic path decides).
func (d *direct) unknownKey(s *ukeySet, text []byte, off int, dec string) bool {
	js := d.p.js
	if s.size == 0 {
		if !js.ukSeeded {
			js.ukSeed, js.ukSeeded = maphash.MakeSeed(), true
		}
		s.at, s.size, s.buf = len(js.ukTab), ukFirst, len(js.ukBuf)
		js.ukExtend(ukFirst)
	}
	v := uint64(ukUsed)
	if off < 0 {
		off = len(js.ukBuf)
		js.ukBuf = append(js.ukBuf, dec...)
		text = js.ukBuf[off:]
		v |= ukInBuf
	}
	if len(text) >= 1<<ukLenBits || uint64(off) >= 1<<ukOffBits {
		return false
	}
	v |= uint64(off)<<ukLenBits | uint64(len(text))
	if 4*(s.n+1) > 3*s.size {
		d.ukGrow(s)
	}
	return d.ukInsert(s, v, text)
}

// ukInsert puts slot v, whose key text is key, into s's region unless a
// slot there has the same key text.
func (d *direct) ukInsert(s *ukeySet, v uint64, key []byte) bool {
	tab := d.p.js.ukTab[s.at : s.at+s.size]
	mask := uint64(s.size - 1)
	for i := maphash.Bytes(d.p.js.ukSeed, key) & mask; ; i = (i + 1) & mask {
		w := tab[i]
		if w == 0 {
			tab[i] = v
			s.n++
			return true
		}
		if string(d.ukText(w)) == string(key) {
			return false
		}
	}
}

// ukGrow doubles s's region, the top one of js.ukTab, and rehashes its
// keys from the old slots: those of the old backing array when the table
// moves to a new one (a table that grows by doubling), else a copy in
// js.ukTmp.
func (d *direct) ukGrow(s *ukeySet) {
	js := d.p.js
	old := js.ukTab[s.at : s.at+s.size]
	if l := s.at + 2*s.size; l > cap(js.ukTab) {
		t := make([]uint64, l, max(2*cap(js.ukTab), l))
		copy(t, js.ukTab[:s.at])
		js.ukTab = t
	} else {
		js.ukTmp = append(js.ukTmp[:0], old...)
		old = js.ukTmp
		js.ukTab = js.ukTab[:l]
		clear(js.ukTab[s.at:])
	}
	s.size *= 2
	s.n = 0
	for _, v := range old {
		if v != 0 {
			d.ukInsert(s, v, d.ukText(v))
		}
	}
}

// dropKeys removes s's region and decoded keys (its object is finished).
func (d *direct) dropKeys(s *ukeySet) {
	if s.size > 0 {
		js := d.p.js
		js.ukTab = js.ukTab[:s.at]
		js.ukBuf = js.ukBuf[:s.buf]
	}
}

// options reads a variant's options.
func (d *direct) options() ([]VariantOption, bool) {
	ok, empty := d.open('[', chargeArray)
	if !ok || empty {
		return nil, false // options are not empty
	}
	js := d.p.js
	base := js.options.n
	var seen nameSet
	for {
		var pr props
		if !d.object(&pr) {
			return nil, false
		}
		c, ok := d.common(&pr, dmOption)
		if !ok || !pr.has(dmRanges) || !pr.has(dmField) {
			return nil, false
		}
		name := pr.str[sName]
		if name != "" && dupName(&seen, &js.options, base, optionName, name) {
			return nil, false
		}
		js.options.push(VariantOption{Common: c, Name: name, SelectorFieldRanges: pr.ranges, FieldClass: pr.fc[fField]})
		more, ok := d.next(']')
		if !ok {
			return nil, false
		}
		if !more {
			break
		}
	}
	return js.options.pop(base), true
}

func memberName(m *StructureMember) string { return m.Name }
func optionName(o *VariantOption) string   { return o.Name }

// fieldClass reads a field class: an alias name or an object.
func (d *direct) fieldClass() (FieldClass, bool) {
	p := &d.p
	if p.i < len(p.b) && p.b[p.i] == '"' {
		s, ok := d.str()
		if !ok || s == "" {
			return nil, false
		}
		return AliasRef(s), true
	}
	d.depth++
	if d.depth > d.o.limits.MaxDepth {
		return nil, false
	}
	var pr props
	if !d.object(&pr) || !pr.has(dmType) {
		return nil, false
	}
	fc, ok := d.build(&pr)
	d.depth--
	return fc, ok
}

// build makes the field class of pr, checked as decoder.fieldClass checks it.
func (d *direct) build(pr *props) (FieldClass, bool) {
	var c Common
	ok := true
	allow := func(allowed uint64) {
		c, ok = d.common(pr, allowed)
	}
	switch pr.str[sType] {
	case TypeFixedLengthBitArray:
		allow(dmBitArray)
		b, ok2 := d.bitArray(pr)
		return &FixedLengthBitArray{Common: c, BitArray: b}, ok && ok2
	case TypeFixedLengthBoolean:
		allow(dmBitArray)
		b, ok2 := d.bitArray(pr)
		return &FixedLengthBoolean{Common: c, BitArray: b}, ok && ok2
	case TypeFixedLengthFloatingPointNumber:
		allow(dmBitArray)
		b, ok2 := d.bitArray(pr)
		l := b.Length
		return &FixedLengthFloatingPointNumber{Common: c, BitArray: b}, ok && ok2 && (l == 16 || l == 32 || l == 64 || l >= 128 && l%32 == 0)
	case TypeFixedLengthBitMap:
		allow(dmBitMap)
		b, ok2 := d.bitArray(pr)
		flags := pr.rmap[rFlags]
		if !ok || !ok2 || len(flags) == 0 || pr.rneg[rFlags] {
			return nil, false
		}
		for _, rs := range flags {
			for _, r := range rs {
				if u, _ := r.Upper.Uint64(); u >= b.Length {
					return nil, false
				}
			}
		}
		return &FixedLengthBitMap{Common: c, BitArray: b, Flags: flags}, true
	case TypeFixedLengthUnsignedInteger:
		allow(dmUnsigned)
		b, ok2 := d.bitArray(pr)
		ip, ok3 := d.intProps(pr, false)
		return &FixedLengthUnsignedInteger{Common: c, BitArray: b, IntegerProps: ip, Roles: pr.roles}, ok && ok2 && ok3
	case TypeFixedLengthSignedInteger:
		allow(dmSigned)
		b, ok2 := d.bitArray(pr)
		ip, ok3 := d.intProps(pr, true)
		return &FixedLengthSignedInteger{Common: c, BitArray: b, IntegerProps: ip}, ok && ok2 && ok3
	case TypeVariableLengthUnsignedInteger:
		allow(dmVLUnsign)
		ip, ok2 := d.intProps(pr, false)
		return &VariableLengthUnsignedInteger{Common: c, IntegerProps: ip, Roles: pr.roles}, ok && ok2
	case TypeVariableLengthSignedInteger:
		allow(dmVLSigned)
		ip, ok2 := d.intProps(pr, true)
		return &VariableLengthSignedInteger{Common: c, IntegerProps: ip}, ok && ok2
	case TypeNullTerminatedString:
		allow(dmNTString)
		e, ok2 := d.encoding(pr)
		return &NullTerminatedString{Common: c, Encoding: e}, ok && ok2
	case TypeStaticLengthString:
		allow(dmSLString)
		e, ok2 := d.encoding(pr)
		l, ok3 := pr.num[iLength].Uint64()
		return &StaticLengthString{Common: c, Length: l, Encoding: e}, ok && ok2 && ok3 && pr.has(dmLength)
	case TypeDynamicLengthString:
		allow(dmDLString)
		e, ok2 := d.encoding(pr)
		return &DynamicLengthString{Common: c, LengthFieldLocation: pr.loc[lLength], Encoding: e}, ok && ok2 && pr.has(dmLengthLoc)
	case TypeStaticLengthBlob:
		allow(dmSLBlob)
		l, ok2 := pr.num[iLength].Uint64()
		return &StaticLengthBlob{Common: c, Length: l, MediaType: d.mediaType(pr), Roles: pr.roles}, ok && ok2 && pr.has(dmLength)
	case TypeDynamicLengthBlob:
		allow(dmDLBlob)
		return &DynamicLengthBlob{Common: c, LengthFieldLocation: pr.loc[lLength], MediaType: d.mediaType(pr)}, ok && pr.has(dmLengthLoc)
	case TypeStructure:
		allow(dmStructure)
		a, ok2 := d.alignment(pr, dmMinAlignment, iMinAlignment)
		return &Structure{Common: c, MinimumAlignment: a, MemberClasses: pr.mems}, ok && ok2
	case TypeStaticLengthArray:
		allow(dmSLArray)
		a, ok2 := d.alignment(pr, dmMinAlignment, iMinAlignment)
		l, ok3 := pr.num[iLength].Uint64()
		return &StaticLengthArray{Common: c, Length: l, MinimumAlignment: a, ElementFieldClass: pr.fc[fElement]},
			ok && ok2 && ok3 && pr.has(dmLength) && pr.has(dmElement)
	case TypeDynamicLengthArray:
		allow(dmDLArray)
		a, ok2 := d.alignment(pr, dmMinAlignment, iMinAlignment)
		return &DynamicLengthArray{Common: c, LengthFieldLocation: pr.loc[lLength], MinimumAlignment: a, ElementFieldClass: pr.fc[fElement]},
			ok && ok2 && pr.has(dmLengthLoc) && pr.has(dmElement)
	case TypeOptional:
		allow(dmOptional)
		o := &Optional{Common: c, SelectorFieldLocation: pr.loc[lSelector], FieldClass: pr.fc[fField]}
		if pr.has(dmRanges) {
			o.SelectorFieldRanges = pr.ranges
		}
		return o, ok && pr.has(dmSelectorLoc) && pr.has(dmField)
	case TypeVariant:
		allow(dmVariant)
		if !ok || !pr.has(dmSelectorLoc) || !pr.has(dmOptions) {
			return nil, false
		}
		if _, _, clash := intersectingOptions(pr.opts); clash {
			return nil, false
		}
		return &Variant{Common: c, SelectorFieldLocation: pr.loc[lSelector], Options: pr.opts}, true
	}
	return nil, false
}

func (d *direct) bitArray(pr *props) (BitArray, bool) {
	var b BitArray
	l, ok := pr.num[iLength].Uint64()
	if !pr.has(dmLength) || !ok || l == 0 || !pr.has(dmByteOrder) {
		return b, false
	}
	b.Length, b.ByteOrder = l, pr.str[sByteOrder]
	if b.BitOrder, ok = defaultBitOrder(b.ByteOrder); !ok {
		return b, false
	}
	if pr.has(dmBitOrder) {
		b.BitOrder = pr.str[sBitOrder]
		if b.BitOrder != "first-to-last" && b.BitOrder != "last-to-first" {
			return b, false
		}
	}
	b.Alignment, ok = d.alignment(pr, dmAlignment, iAlignment)
	return b, ok
}

// alignment returns the power of two of key (slot), 1 when absent.
func (d *direct) alignment(pr *props, key uint64, slot int) (uint64, bool) {
	a, ok := d.uintOpt(pr, key, slot, 1)
	return a, ok && bits.OnesCount64(a) == 1
}

func (d *direct) intProps(pr *props, signed bool) (IntegerProps, bool) {
	ip := IntegerProps{PreferredDisplayBase: 10}
	if pr.has(dmDisplayBase) {
		b, ok := pr.num[iDisplayBase].Uint64()
		if !ok || b != 2 && b != 8 && b != 10 && b != 16 {
			return ip, false
		}
		ip.PreferredDisplayBase = int(b)
	}
	if pr.has(dmMappings) {
		if !signed && pr.rneg[rMappings] {
			return ip, false
		}
		ip.Mappings, ip.MappingOrder = pr.rmap[rMappings], pr.rord[rMappings]
	}
	return ip, true
}

func (d *direct) encoding(pr *props) (string, bool) {
	if !pr.has(dmEncoding) {
		return "utf-8", true
	}
	switch e := pr.str[sEncoding]; e {
	case "utf-8", "utf-16be", "utf-16le", "utf-32be", "utf-32le":
		return e, true
	}
	return "", false
}

func (d *direct) mediaType(pr *props) string {
	if !pr.has(dmMediaType) {
		return "application/octet-stream"
	}
	return pr.str[sMediaType]
}
