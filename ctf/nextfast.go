package ctf

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"unsafe"
)

// Next's fast path. When the event record header has a selID shape with
// templates (LTTng's compact and extended headers: skim.go's hdrShape),
// Next reads the header from its two words as Scan does and builds the
// record's fields from templates: the option's header template, then the
// class's (nxProg), in pre-order as the decoding program builds them; in a
// packet without event record headers (nextBare), from the template of its
// one class. A class's template holds every field it decodes to with its
// arrays empty, each with its class, member count and End. A stream keeps
// a copy of each template it uses (nxKept: the structure written
// once), so per event only the integer values, the string and BLOB
// offsets and lengths, the array lengths and elements are written; of a
// class with arrays the stream keeps the last event whole with its
// element counts (nxLens): an event with the same counts writes only
// values and elements; where an array's count differs, the kept event is
// recounted in place first (nxRecount: the fields after the array move
// within the buffer's room, with the End values that move), and only
// where that does not fit (or the kept event is not whole) are the
// fields after the first array written again (nxArrays). The class is
// cut into segments: fixed-size integers (and strings or BLOBs of a
// static length of 9 to 64 bytes: nxVal.n) at fixed offsets from the
// segment's aligned start, ending with at most one item of variable size
// (a null-terminated string, a string or BLOB of a static or dynamic
// length, an array of plain little-endian integers). The segments are
// compiled into one flat program per template (fxOp: a segment's start,
// its integers, the slots they fill, its item), which nxRun runs in one
// loop with an integer at its head, reading the bytes and writing the
// fields through unsafe pointers that one check per segment covers (its
// comment holds the proof). nextFlat, the common case (the structure in
// place, the scope roots static: a hot template, nxProg.heat), is Next's
// own body: it reads the header, finds the template and the stream's
// kept fields of it from the selector's entry (Stream.fxTab, the
// stream's copy of StreamClass.fxSel; for LTTng's extended header, from
// the class id's entry it names; for its large header, whose 16-bit
// selector has no table of its own, from the entry of the selector in
// the class id table of fxTab's one entry: fxEnts), checks the header and the class's first segment at
// once and runs the template's program inline with no call (in its hot
// form, nxProg.hops: hotOps joins and leaves out a few ops); anything
// else goes to nextFast (nextMiss), which ends what nxRun leaves with
// nxSlow (a string
// not found in one word read by nxText outside the loop: a call inside a
// loop spills every value the loop keeps; counts that the kept buffer
// has no room for, a template not kept yet). Floating-point numbers of 64
// bits are read as their bits, of 32 bits (fxF32) and big-endian integers
// of 8 to 64 bits at a byte (fxIntBE) by nxRun only (their templates are
// not hot). Classes with anything else (variants, optionals, booleans,
// big-endian bit fields or 32-bit floating-point numbers, variable-length
// integers, fields with roles, UTF-16/32 text, arrays of other elements)
// have no template, and
// wherever the fast path is unsure (a bound, the field limit, an 8-byte
// read past the loaded bytes) Next decodes the record with the decoding
// program, which reports exactly what it reports (TestNextFastMatchesWalk
// checks both give the same fields).

// maxNxArrays bounds the arrays of a class with a template (the element
// counts before each are kept on the stack).
const maxNxArrays = 8

// maxNxFields bounds the fields of one class template; the templates of
// a trace hold at most maxNxTotal fields, and at most nxPerClass per
// compiled field class plus nxBase (a large common context is copied into
// every class's template: hostile metadata must not turn a small text
// into large templates).
const (
	maxNxFields = 1 << 12
	maxNxTotal  = 1 << 20
	nxPerClass  = 16
	nxBase      = 1 << 16
)

// A stream keeps the fields of the templates it has used (Stream.nxKept):
// at most maxNxKept templates (the first ones compiled) and
// maxNxKeptFields fields; the others are copied per event.
const (
	maxNxKept       = 1 << 13
	maxNxKeptFields = 1 << 16
)

// nxProg is the template of an event record class (common context,
// specific context, payload) after one option of the header, for Next's
// fast path.
type nxProg struct {
	// (56 bytes before the hot fields: a template is allocated 8 bytes
	// past a cache line, after the Go allocator's header of an object of
	// over 512 bytes with pointers, so these start one: TestNxProgLayout)
	hvals []hdrVal // the header's other values (of the option's template)
	segs  []nxSeg
	// the header's selector, class id and clock fields (template
	// indices, -1: none), whose values Next reads anyway
	hSel, hID int32
	// (what Next's body reads of a template comes next: fields to hd
	// in 3 cache lines, tl in a fourth, TestNxProgLayout; with 40
	// classes in turn, the lines each record's template reads are what
	// Next waits for, not its instructions)
	//
	// fields are the header's fields (the option's template) and the
	// class's, with every array empty; Next adds to the End values the
	// elements of the arrays before them
	fields []Field
	// ec: the class; clk: the header's clock field (the option's);
	// hbits: see hot below (nextFlat's constants)
	ec    *EventClass
	clk   hdrAt
	hbits uint64
	// hClkFo: the byte offset of field hClk from the first (index times
	// the size of a Field; the selector's and the class id's values are
	// the template's: selTable)
	hClkFo uint32
	// tail: what Next runs after the integers at the head, without its
	// loop (tailEnd: nothing, opInts is opEnd, after at most 3 integers;
	// tailNulBX, tailArr8X: that op at opInts, the op it runs after it,
	// then opEnd, the position there on a byte, after at most 2
	// integers, tailNulBX3 and tailArr8X3 after 3), or tailLoop: the
	// integers after the first 3, then its loop from opInts on
	tail uint8
	// eroots are the event's scope roots: the header's (0), then
	// rootCC, rootSC, rootPL
	eroots [4]int32
	// hd: the first 3 integers from op0 on (nHead), which Next runs
	// whatever their number (no branch): the first 2 before its tail, the third in the tails that
	// have one (all but tailNulBX and tailArr8X, whose templates have at
	// most 2); for fewer, the others write 0 to the clock's field, which
	// Next writes after them (mask and sgn 0, off hoff: the 8 bytes from
	// the segment's start on, within hneed); opTail is the op after them
	// (op0 + min(nHead, 3)), opPair opTail + an even number of ops, the
	// last of them before opInts or opInts itself (Next runs the
	// integers after the first 3 up to it two at a time, then the odd
	// one before opInts)
	hd [3]fxHd
	_  [16]byte // (tl on a cache line of its own: TestNxProgLayout)
	// tl: the constants of tail tailNulBX or tailArr8X (and their forms
	// after 3 integers)
	tl fxTail
	// opTail, opPair: see hd
	opTail, opPair unsafe.Pointer
	hneed          uint64
	// nHead: the ops from op0 to opInts (fxInt)
	nHead int
	hClk  int32
	ops   []fxOp // segs as one flat program (nxRun)
	// hops: ops as Next's body runs them (hotOps: some joined, some left
	// out; hot templates only)
	hops []fxOp
	// flat: nextFlat may run t (its scope roots static, ops starting with
	// fxSeg and ending with fxEnd; a header of the selector, a clock field
	// and at most a class id: hSel, hClk ≥ 0, no hvals)
	flat bool
	// fix are the structures that hold an array: their End moves with
	// its length
	fix []nxRef
	// roots: the scope roots (common context, specific context,
	// payload); i -1: none
	roots  [3]nxRef
	arrays bool // the class has arrays (fields are copied segment by segment)
	// nArr counts the arrays; lens is the index of the template's
	// first array length in a stream's nxLens (kept templates with
	// arrays; -1: none)
	nArr, lens int32
	// static roots: the scope roots when no array comes before them
	rootStatic             bool
	rootCC, rootSC, rootPL int32
	// num numbers the templates of a trace: the index of the fields a
	// stream keeps of it in nxKept; -1:
	// beyond maxNxKept
	num int32
	// nextFlat's constants (heat): hot, nextFlat may run t (flat, num ≥
	// 0, no length the selector holds, a class id field when the option
	// has one); ec its class; the header's clock field (clk: the
	// option's). When the class's first
	// segment starts right after the option's fields at a fixed place
	// (fused: from op 1 on), one check covers both: hbits is the option's bits
	// plus the segment's, hneed the bytes read from the header's first
	// byte on (≥ 16), hoff the segment's first byte from the header's,
	// and nextFlat runs t's program from op 1 on; else hbits is the
	// option's bits, hneed 16, and it runs from op 0.
	hot  bool
	hoff uint64
	// op0 is t's op 1 (fused) or 0, opEnd its last (fxEnd), opInts the
	// first op from op0 on that is not an fxInt: pointers into hops
	op0, opEnd, opInts unsafe.Pointer
	// need: the most bytes Next's body reads from a position p it checks
	// against Stream.fxLim (p ≤ fxLim or p < fxLim): the header's hneed,
	// a segment's need from its start byte, 8 of a short string's word
	need uint64
	_    [16]byte // (a multiple of 64 bytes: TestNxProgLayout)
}

// hdrAt is a field of the header's first 16 bytes read with one 8-byte
// load: its value is the 8 bytes from the header's byte b (≤ 8) on, >> s,
// & mask.
type hdrAt struct {
	mask uint64
	b, s uint8
}

// at returns f as an hdrAt, false when its bits do not fit in the 8 bytes
// from its byte on, or those go past the header's first 16 bytes.
func (f *hdrField) at() (hdrAt, bool) {
	a := hdrAt{mask: f.mask, b: f.sh >> 3, s: f.sh & 7}
	return a, a.b <= 8 && uint64(a.s)+uint64(bits.Len64(f.mask)) <= 64
}

// get returns a's value in the header whose first byte hp points to (the
// caller checked 16 bytes from it lie within the data: b ≤ 8, b + 8 ≤ 16);
// what hdrField.get returns from the two words: the 8 bytes from byte b
// on, >> s, hold the 128-bit value's bits from sh = 8b + s on, the mask's
// bits within them.
func (a *hdrAt) get(hp unsafe.Pointer) uint64 {
	return le64(hp, uint64(a.b)) >> (a.s & 63) & a.mask
}

// Event's scope roots are 4 consecutive int32 (Next copies them at once):
// these arrays have a negative length otherwise.
var (
	_ [unsafe.Offsetof(Event{}.Payload) - unsafe.Offsetof(Event{}.Header) - 12]struct{}
	_ [12 - (unsafe.Offsetof(Event{}.Payload) - unsafe.Offsetof(Event{}.Header))]struct{}
	_ [unsafe.Offsetof(Event{}.CommonContext) - unsafe.Offsetof(Event{}.Header) - 4]struct{}
	_ [unsafe.Offsetof(Event{}.SpecificContext) - unsafe.Offsetof(Event{}.Header) - 8]struct{}
)

// nxRef is a template field index i (preceded by ai arrays) and, for a
// structure of fix, its template End e (preceded by ae arrays).
type nxRef struct {
	i, ai, e, ae int32
}

// nxSeg is a run of template fields [from, to): fixed-size integers
// (vals) at fixed bit offsets from the segment's start (aligned to am+1),
// bits in all, then the item of variable size dyn (code 0: none), whose
// field is the last of the run.
type nxSeg struct {
	from, to int32
	am       uint64
	bits     uint64
	need     uint64 // bytes read from the start's byte on (the last value's byte offset + 8, + 1 unless bytewise), 0: none
	// bytewise: the start is byte-aligned (am ≥ 7): each value's bit
	// offset in its byte is its offset's (checked to leave its bits
	// within the 8 bytes read); otherwise values have at most 57 bits
	bytewise bool
	vals     []nxVal
	slots    []nxSlot
	dyn      nxDyn
}

// nxVal is an integer of a segment: template field idx, off bits from the
// segment's start, its value 8 bytes read from its byte >> its bit,
// & mask, sign-extended as (x ^ sgn) - sgn, sgn its sign bit (0:
// unsigned or 64 bits; no shift by a variable amount). With n > 0, a
// string or BLOB of a static length of n bytes (minTxt ≤ n ≤ maxTxt) at
// byte off/8 of a byte-aligned segment (off a multiple of 8), its bytes
// within the segment's: its field's V is its first byte's index in the
// data, N its length up to the first null byte (mask, its zmask: the high
// bit of each byte; 0: a BLOB, n), which txtLen finds.
//
// kind valF32: a 32-bit floating-point number at a byte, its value the
// bits of that number as a float64 (Field.Float); valBE: a big-endian
// integer (or 64-bit floating-point number) of 8, 16, 32 or 64 bits at a
// byte, its 8 bytes from its byte on read in reverse order >> sh (64
// minus its bits), then sign-extended.
// A template with them is not hot (nxProg.heat): nxRun reads them
// (fxF32, fxIntBE), Next's body does not.
type nxVal struct {
	idx      int32
	off      uint32
	n        uint32
	kind, sh uint8
	mask     uint64
	sgn      uint64
}

// nxVal.kind
const (
	valInt = iota
	valF32
	valBE
)

// minTxt and maxTxt bound the static lengths of the strings and BLOBs
// (aligned to bytes) a segment holds in place (nxVal.n): the shorter are
// its item (nxDyn.word wordFix: one word), the longer too (nxText).
const (
	minTxt = 9
	maxTxt = 64
)

// nxSlot: the value of template field idx goes to slot (a length or
// selector read later).
type nxSlot struct {
	idx, slot int32
}

// nxDyn.word
const (
	wordNul = 1 + iota
	wordFix
)

// nxDyn codes
const (
	nxString = 1 + iota // null-terminated UTF-8 string
	nxBytes             // static- or dynamic-length string or BLOB
	nxArray             // static- or dynamic-length array of plain little-endian integers
)

type nxDyn struct {
	code uint8
	text bool // nxBytes: a string (N stops at the first null byte)
	// word: nxRun may read it from one word (aligned to 8 bits; wordNul:
	// a null-terminated string; wordFix: a string or BLOB of a static
	// length of at most 8 bytes)
	word   uint8
	zmask  uint64 // the high bit of each byte (0: a BLOB, no null byte ends it)
	esx    uint8  // nxArray: 64 - element size of signed elements (else 0)
	elog   uint8  // nxArray: log2 of the element size
	esgn   uint64 // nxArray: the sign bit of signed elements (else 0)
	idx    int32  // its template field
	src    int32  // slot of a dynamic length, -1: static
	am     uint64 // its alignment minus 1
	length uint64 // static length
	eam    uint64 // nxArray: element alignment minus 1
	ebits  uint32 // nxArray: element size (8, 16, 32 or 64)
	ecls   int32  // nxArray: element class
}

// nxBuilder makes the template of a class.
type nxBuilder struct {
	p      *nxProg
	seg    *nxSeg // the open segment (nil: none)
	arrays int32
	ok     bool
}

// compileNext gives the event record classes of the data stream classes
// whose header has a selID shape with templates their nxProg for each
// option of the header, within the trace's budget of template fields.
func (t *Trace) compileNext() {
	total, budget := 0, min(maxNxTotal, nxPerClass*len(t.classes)+nxBase)
	t.nxKept, t.nxLens = 0, 0
	for _, sc := range t.dscs {
		if sc.Header == nil {
			// no event record header: every record is one class
			ec := sc.only
			if ec == nil {
				ec = sc.EventClass(0)
			}
			if ec == nil {
				continue
			}
			p := buildNext(sc.CommonContext, ec.SpecificContext, ec.Payload)
			if p == nil || total+len(p.fields) > budget {
				continue
			}
			q := p.after(&hdrTmpl{}, &hdrField{}, &hdrPart{})
			if q.ops == nil {
				continue
			}
			total += len(p.fields)
			ec.nx = []nxProg{t.numbered(q)}
			sc.bare = ec
			continue
		}
		h := sc.selShape
		if h == nil || h.tmpl == nil {
			continue
		}
		for _, ec := range sc.events {
			p := buildNext(sc.CommonContext, ec.SpecificContext, ec.Payload)
			if p == nil || total+len(h.tmpl)*len(p.fields) > budget {
				continue
			}
			nx := make([]nxProg, len(h.tmpl))
			for k := range h.tmpl {
				if nx[k] = p.after(&h.tmpl[k], &h.pre.slot, &h.opts[k]); nx[k].ops == nil {
					nx = nil
					break
				}
			}
			if nx == nil {
				continue
			}
			total += len(h.tmpl) * len(p.fields)
			for k := range nx {
				nx[k] = t.numbered(nx[k])
				nx[k].heat(h, &h.opts[k], ec)
			}
			ec.nx = nx
		}
		sc.fxSel = selTable(sc, h)
		sc.fxNeed = 16
		for i := range sc.fxSel {
			e := &sc.fxSel[i]
			if e.t != nil {
				sc.fxNeed = max(sc.fxNeed, e.t.need)
			}
			for _, t := range e.ids {
				if t != nil {
					sc.fxNeed = max(sc.fxNeed, t.need)
				}
			}
		}
	}
}

// fxHead is what a selector value of an LTTng-shaped header names: the
// template (hot) of the class it names after its option, when the option
// has no class id field (the selector is the class id: LTTng's compact
// header); else, for an option with a class id field (id), the hot
// template of each class id (ids, nil entries: none). t nil and ids nil:
// none.
type fxHead struct {
	t   *nxProg
	ids []*nxProg
	id  hdrAt
}

// fxEnt is a stream's copy of an fxHead (Stream.fxTab), by which Next's
// body finds a record's template and the stream's kept fields of it: the
// template t (fxNone: none) and the stream's kept fields of it (kp: its
// entry of nxKept, made once, never moved; nil fields: not kept yet);
// or, for a selector value whose option has a class id field (LTTng's
// extended header; t nil), that field (id) and the stream's copy of the
// option's fxHead.ids (ids, in Stream.fxIDs), whose entries hold the
// template and kept fields of each class id. (Next branches on t nil:
// the processors measured predict the branch, and its loads of the class
// id's entry then stay off the compact header's path: BenchmarkStream
// read 15 % more records per CPU second than with no branch, the
// compact header's entry indexing itself with the selector, although
// callgrind's branch simulation counts more mispredictions.)
//
// hbits is t.hbits once the stream keeps t's fields whole, else
// fxNone's (keep sets it: Next's body checks no length of the kept
// fields, this bound sends it to nextMiss): Next finds the record's first bits past the header
// in the entry, one load fewer between a record's header and the next
// record's (and a 64-byte entry is found by a shift): BenchmarkStream
// +5.1 %, BenchmarkStreamLarge +5.6 % (alternated at high priority, n 28,
// p ≤ 0.005). t, kp and hbits come first: a table of over 512 bytes
// starts 8 bytes past a cache line (the Go allocator's header), and its
// entries' first 24 bytes then lie within one line.
type fxEnt struct {
	t     *nxProg
	kp    *[]Field
	hbits uint64
	ids   []fxEnt
	id    hdrAt
}

// fxEnts returns the stream's copy of selector table tab (a stream
// class's fxSel; nil when empty), made once per table in the stream's
// buffers (fxOwn, and fxIDs for the class id tables of its options with
// a class id field: at most the entries of a selector table, 256 or, for
// LTTng's large header, one per class id below maxFxIDs (selOptions), and
// maxFxIDs of each id table, the packet's class's): the same table as
// the last packet's costs nothing; another is made again, with no
// allocation once the buffers hold the largest.
func (s *Stream) fxEnts(tab []fxHead, h *hdrShape) []fxEnt {
	if len(tab) == 0 {
		return nil
	}
	if s.fxFor == &tab[0] {
		return s.fxOwn
	}
	s.nxAlloc()
	s.nxEnts(false) // (the last table's entries named by nxEnt no more)
	// (a template's counts, lens … lens+nArr-1, within nxLens: Next's
	// body reads them with no bounds check; its bits fxNone's until the
	// stream keeps its fields: entBits)
	entry := func(t *nxProg) fxEnt {
		if t != nil && t.num >= 0 && int(t.num) < len(s.nxKept) && (t.nArr == 0 || t.lens >= 0 && int(t.lens)+int(t.nArr) <= len(s.nxLens)) {
			return fxEnt{t: t, kp: &s.nxKept[t.num], hbits: entBits(t, s.nxKept[t.num])}
		}
		return fxEnt{t: &fxNone, kp: &fxNoFields, hbits: fxNone.hbits}
	}
	if wideSel(h.selAt) {
		// a selector of more bits (LTTng's large header: 16), or not
		// at the header's start, has no entry of its own:
		// fxTab is one entry (Next reads the selector with mask 0:
		// Stream.fxSelAt), whose class id table is by the selector
		// itself, its entries the templates of tab's values (up to the
		// last class id with one: selOptions); Next's check of the id
		// against that table's length sends the others (the extended
		// option's 65535 among them) to nextMiss. tab names the
		// template t only of an option without a class id field (a
		// value whose option has one, ids, has none here).
		ids := s.fxIDs[:0]
		if cap(ids) < len(tab) {
			ids = make([]fxEnt, 0, len(tab))
		}
		for i := range tab {
			ids = append(ids, entry(tab[i].t))
		}
		own := append(s.fxOwn[:0], fxEnt{ids: ids, id: h.selAt})
		s.fxOwn, s.fxIDs, s.fxFor = own, ids, &tab[0]
		s.nxEnts(true)
		return own
	}
	n := 0
	for i := range tab {
		n += len(tab[i].ids)
	}
	// (room made first: appending moves neither table)
	own, ids := s.fxOwn[:0], s.fxIDs[:0]
	if nsel := int(h.selAt.mask) + 1; cap(own) < nsel {
		own = make([]fxEnt, 0, nsel)
	}
	if cap(ids) < n {
		ids = make([]fxEnt, 0, n)
	}
	for i := range tab {
		x := tab[i].ids
		if len(x) == 0 {
			own = append(own, entry(tab[i].t))
			continue
		}
		// (an option's class id table is named by one selector value:
		// selTable)
		at := len(ids)
		for _, t := range x {
			ids = append(ids, entry(t))
		}
		own = append(own, fxEnt{ids: ids[at:len(ids):len(ids)], id: tab[i].id})
	}
	// (every selector value has its entry: those beyond the table's
	// name no template)
	for len(own) <= int(h.selAt.mask) {
		own = append(own, entry(nil))
	}
	s.fxOwn, s.fxIDs, s.fxFor = own, ids, &tab[0]
	s.nxEnts(true)
	return own
}

// nxEnts names in nxEnt (on), or no more (!on), the entry of each
// template of the stream's copy of a selector table (fxOwn, fxIDs: one
// entry per template, as an entry names templates of its selector value
// only, selTable), whose bits keep sets.
func (s *Stream) nxEnts(on bool) {
	for _, x := range [2][]fxEnt{s.fxOwn, s.fxIDs} {
		for i := range x {
			if t := x[i].t; t != nil && t != &fxNone {
				s.nxEnt[t.num] = nil
				if on {
					s.nxEnt[t.num] = &x[i]
				}
			}
		}
	}
}

// wideSel says whether selector a (h.selAt) has no entry of its own in
// a stream's copy of a selector table (fxEnts): its mask reaches
// maxFxSel, or it does not start the header (Next's body reads the
// selector from the header's first byte with no shift; so do the
// headers of the traces seen, and any whose templates are hot, as a
// field before the selector makes the header hold a value Next's body
// does not write).
func wideSel(a hdrAt) bool { return a.mask >= maxFxSel || a.s != 0 || a.b != 0 }

// fxNone is the template of an fxEnt that names none: its bits, beyond
// any packet, send Next's body to nextMiss; fxNoFields its kept fields.
var (
	fxNone     = nxProg{hbits: 1 << 62}
	fxNoFields []Field
)

// maxFxSel bounds the selector values of a stream's copy of a selector
// table (Stream.fxTab: an entry for each, up to its mask; a selector of
// more bits, LTTng's large header's, has one entry, whose class id table
// is by the selector: fxEnts).
const maxFxSel = 256

// fxEntSize is the size of an fxEnt: 64 (TestNextBodySelectorEntries).
const fxEntSize = unsafe.Sizeof(fxEnt{})

// maxFxIDs bounds the class ids of a selector table's ids (larger ids go
// to nextFast).
const maxFxIDs = 1 << 12

// selTable returns the fxHead of each selector value of header shape h
// of stream class sc up to the last that names a template (nil when none
// does; at most the values of selOptions: 256, or maxFxIDs).
func selTable(sc *StreamClass, h *hdrShape) []fxHead {
	var tab []fxHead
	var ok bool
	// (Next's body reads class ids, and wide selectors by which it finds
	// their templates, from the start of a byte: no shift)
	if h.selAt, ok = h.pre.slot.at(); !ok || wideSel(h.selAt) && h.selAt.s != 0 {
		return nil
	}
	byOpt := make([][]*nxProg, len(h.opts)) // the ids table of each option with an id field
	opts := selOptions(sc, h)
	// (the selector values of each option)
	nsel := make([]int, len(h.opts))
	for _, k := range opts {
		if k >= 0 {
			nsel[k]++
		}
	}
	for sel, k := range opts {
		if k < 0 {
			continue
		}
		var e fxHead
		if o := &h.opts[k]; o.id.mask == 0 {
			if ec := sc.EventClass(uint64(sel)); ec != nil && int(k) < len(ec.nx) && ec.nx[k].hot {
				e.t = &ec.nx[k]
				// (the selector's value, the class id: in the template)
				e.t.fields[e.t.hSel].V = uint64(sel)
			}
		} else if nsel[k] == 1 {
			// (an option with a class id field named by one selector
			// value: its templates hold both values; one named by
			// several has no entry, Next's body writing neither)
			if byOpt[k] == nil {
				byOpt[k] = idTable(sc, int(k))
				for id, t := range byOpt[k] {
					if t != nil {
						t.fields[t.hSel].V, t.fields[t.hID].V = uint64(sel), uint64(id)
					}
				}
			}
			id, ok := o.id.at()
			if e.ids = byOpt[k]; e.ids != nil && ok && id.s == 0 {
				e.id = id
			} else {
				e.ids = nil
			}
		}
		if e.t == nil && e.ids == nil {
			continue
		}
		if tab == nil {
			tab = make([]fxHead, len(opts))
		}
		tab[sel] = e
	}
	for len(tab) > 0 && tab[len(tab)-1].t == nil && tab[len(tab)-1].ids == nil {
		tab = tab[:len(tab)-1]
	}
	return tab
}

// maxSelRanges bounds the ranges of a variant selOptions maps beyond
// its selector table (each range costs up to maxFxIDs steps).
const maxSelRanges = 64

// selOptions returns the option of each selector value, from 0 on, that
// the selector tables of header shape h of stream class sc hold (fxSel,
// scSel; -1: none): h.tab when the variant's ranges lie within 0..255;
// else (LTTng's large header: a 16-bit id, compact 0 … 65534, extended
// 65535) the values below the class ids of sc (sc.small: at most
// maxFxIDs), whose option is the selector's class's: larger selectors
// (the extended option's 65535 among them) lie beyond the table, where
// Next and Scan leave their bodies (nil: no such table: a signed
// selector, more than 127 options or maxSelRanges ranges); for a header
// without a variant (idOnly), option 0 for those values.
func selOptions(sc *StreamClass, h *hdrShape) []int8 {
	if h.tab != nil {
		return h.tab
	}
	if h.idOnly {
		// every class id below min(len(sc.small), maxFxIDs): option 0
		return make([]int8, min(len(sc.small), maxFxIDs))
	}
	v := h.v
	if v == nil || v.srcSign || len(v.optRange) > 127 {
		return nil
	}
	nr := 0
	for _, rs := range v.optRange {
		nr += len(rs)
	}
	n := uint64(min(len(sc.small), maxFxIDs))
	if nr > maxSelRanges || n == 0 {
		return nil
	}
	tab := make([]int8, n)
	for i := range tab {
		tab[i] = -1
	}
	// (the first option whose ranges hold the value, as the walk
	// chooses: hdrShape.option)
	for k, rs := range v.optRange {
		for _, r := range rs {
			for x := r.Lo; x <= r.Hi && x < n; x++ {
				if tab[x] < 0 {
					tab[x] = int8(k)
				}
			}
		}
	}
	return tab
}

// idTable returns the hot template after option k of each class id of sc
// up to the last that has one (below maxFxIDs; nil when none has).
func idTable(sc *StreamClass, k int) []*nxProg {
	var ids []*nxProg
	for id, ec := range sc.small {
		if id >= maxFxIDs {
			break
		}
		if ec == nil || k >= len(ec.nx) || !ec.nx[k].hot {
			continue
		}
		for len(ids) <= id {
			ids = append(ids, nil)
		}
		ids[id] = &ec.nx[k]
	}
	return ids
}

// heat sets the constants of q, the template of class ec after option o
// of header shape h, by which nextFlat runs it (nxProg.hot).
func (q *nxProg) heat(h *hdrShape, o *hdrPart, ec *EventClass) {
	clk, ok := o.clk.at()
	if !q.flat || q.num < 0 || o.clk.mask == 0 || !ok || h.am%8 != 7 || o.id.mask != 0 && q.hID < 0 {
		return
	}
	for _, g := range q.segs {
		if g.dyn.code != 0 && g.dyn.src >= 0 && g.dyn.src == h.pre.slot.slot {
			return // (a length the selector holds: nextFast writes its slot)
		}
		for _, v := range g.vals {
			if v.kind != valInt {
				return // (read by nxRun only: fxF32, fxIntBE)
			}
		}
	}
	q.hot, q.ec, q.clk = true, ec, clk
	q.hClkFo = uint32(uintptr(q.hClk) * fieldSize)
	q.eroots = [4]int32{0, q.rootCC, q.rootSC, q.rootPL}
	q.hbits, q.hneed = o.bits, 16
	hop := 0
	// the first segment's start, base + (hs + o.bits - base + am) &^ am
	// (ops[0] is its fxSeg: am in mask), is hs + o.bits when am is 2^k-1
	// with its bits within the header's alignment (hs - base is a
	// multiple of it) and o.bits a multiple of am+1; and o.bits a whole
	// number of bytes (the start byte-aligned: the header's start is)
	g := &q.ops[0]
	if am := g.mask; am&(am+1) == 0 && am&^h.am == 0 && o.bits&am == 0 && o.bits%8 == 0 {
		hop = 1
		q.hoff = o.bits / 8
		q.hbits = o.bits + g.sgn
		q.hneed = max(16, o.bits/8+uint64(g.off))
	}
	q.hops = hotOps(q.ops, q.segs)
	// each array's count in a stream's nxLens (lens ≥ 0: the template
	// is numbered, num ≥ 0, and has arrays)
	na := q.lens
	for i := range q.hops {
		if o := &q.hops[i]; o.code == fxArrF || o.code == fxArr8 || o.code == fxArr8X || o.code == fxDyn && q.segs[o.off].dyn.code == nxArray {
			o.sl = uint32(na)
			na++
		}
	}
	o0 := unsafe.Pointer(unsafe.SliceData(q.hops))
	q.op0, q.opEnd = unsafe.Add(o0, uintptr(hop)*fxOpSize), unsafe.Add(o0, uintptr(len(q.hops)-1)*fxOpSize)
	n := hop
	for n < len(q.hops)-1 && q.hops[n].code == fxInt {
		n++
	}
	q.opInts = unsafe.Add(o0, uintptr(n)*fxOpSize)
	q.nHead = n - hop
	nh := min(q.nHead, len(q.hd))
	for i := range q.hd {
		q.hd[i] = fxHd{off: uint32(q.hoff), fo: uint32(q.hClkFo)} // (writes 0 to the clock's field)
		if i < nh {
			o := &q.hops[hop+i]
			q.hd[i] = fxHd{off: uint32(q.hoff) + o.off, fo: o.fo, mask: o.mask, sgn: o.sgn, sgn2: o.sgn}
		}
	}
	// (the 8 bytes a filler reads from the segment's start: within those
	// its integers read, if any)
	q.hneed = max(q.hneed, q.hoff+8)
	q.opTail = unsafe.Add(q.op0, uintptr(nh)*fxOpSize)
	q.opPair = unsafe.Add(q.opTail, uintptr((q.nHead-nh)&^1)*fxOpSize)
	q.need = q.hneed
	for _, o := range q.hops {
		switch o.code {
		case fxSeg, fxSegB:
			q.need = max(q.need, uint64(o.off))
		case fxNulB, fxNulBX:
			q.need = max(q.need, 8, o.mask)
		case fxNul, fxFix:
			q.need = max(q.need, 8)
		}
	}
	// (after the fused segment the position, hs + hbits, is on a byte
	// when hbits is a multiple of 8: hs is on one, h.am%8 = 7 and every
	// packet's start on a byte)
	q.tail = tailLoop
	switch rest := q.hops[n:]; {
	case q.nHead > len(q.hd):
	case len(rest) == 1:
		q.tail = tailEnd
	case len(rest) == 3 && hop == 1 && q.hbits%8 == 0 && rest[0].code == fxNulBX:
		q.tail = tailNulBX
		o, o1 := &rest[0], &rest[1]
		q.tl = fxTail{fo: o.fo, fo1: o1.fo, adv: 8 + o.sgn, off1: 1 + uint64(o1.off), mask1: o1.mask, sgn1: o1.sgn, sgn2: o1.sgn}
		if q.nHead == 3 {
			q.tail = tailNulBX3
		}
	case len(rest) == 3 && hop == 1 && q.hbits%8 == 0 && rest[0].code == fxArr8X && rest[1].sgn <= 8:
		q.tail = tailArr8X
		o, o1 := &rest[0], &rest[1]
		q.tl = fxTail{fo: o.fo, fo1: o1.fo, sl: o.sl, lenFo: uint32(o.mask), adv: 8 * o1.sgn, mask1: o1.mask, sgn1: o.sgn}
		if o1.sgn < 8 {
			q.tl.stop = 0x80 << (8 * o1.sgn)
		}
		if q.nHead == 3 {
			q.tail = tailArr8X3
		}
	}
}

// fxHd is an integer at the head of a hot template (nxProg.hd): an fxInt
// (off, fo, mask, sgn), its sign bit twice (sgn2: Next reads each from
// memory in the instruction that uses it, x ^ sgn - sgn2, one
// instruction less).
type fxHd struct {
	off, fo         uint32
	mask, sgn, sgn2 uint64
}

// fxTail holds the constants of a hot template's tail (nxProg.tail)
// tailNulBX (a string from one word, then an integer: fxNulBX and its
// fxInt) or tailArr8X (a sequence of bytes, then a short static-length
// string: fxArr8X and its fxFix), read with no pointer to follow.
type fxTail struct {
	// fo, fo1: the byte offsets of the fields of the string or the
	// array, and of the integer or short string after it
	fo, fo1 uint32
	// tailArr8X: the array's count's index in the stream's nxLens (sl)
	// and its length's field (lenFo)
	sl, lenFo uint32
	// tailNulBX: 8 + the bits of the segment after the string (the end
	// of the record from its null byte's bit); tailArr8X: 8 times the
	// string's length (its end from its start)
	adv uint64
	// tailNulBX: 1 + the integer's byte offset in its segment, its mask
	// and sign bit; tailArr8X: off1 0, the string's zmask (mask1), the
	// elements' sign bit (sgn1) and stop, the high bit of the byte after
	// the string's last (0 for 8 bytes)
	off1, mask1, sgn1, stop uint64
	sgn2                    uint64 // tailNulBX: sgn1 again (fxHd's sgn2)
}

// nxProg.tail
const (
	tailLoop = iota
	tailEnd
	tailNulBX
	tailArr8X
	// tailNulBX and tailArr8X after 3 head integers (Next writes the
	// third, hd[2], first; before the tail, it writes 2)
	tailNulBX3
	tailArr8X3
)

// hotOps returns flat program ops (ops[0] an fxSeg, the last fxEnd) as
// Next's body runs it (nxProg.hops), with fewer ops to dispatch: an fxInt
// and the fxSlot right after it of the same field are one fxIntSl; an
// fxNul and the fxSegB right after it one fxNulB; and an fxSegB of a
// segment without integers (no bits, nothing read: need 0) before its
// item (fxNul, fxFix or fxDyn) is left out. Such an fxSegB only checks
// its start st (the position: after an item, which checked it lies
// within the content) with st ≤ end and st>>3 ≤ len(data), and sets sp
// and the start's bit for integers it has none of; its item checks
// again every byte it reads from the position on, and leaves the
// position within the content. ops[0] and the first op after it stay
// where they are (nxProg.heat's op 1 and the integers after it).
//
// An fxInt whose slot only the array of its segment reads (its length:
// LTTng's sequences) keeps no fxSlot: that array's op is an fxArrF, which
// reads the length from the integer's field (written by the same
// segment, before the array: the same field delta, and the value the
// slot would hold). Slots hold values for the event being decoded only
// (what reads them, a dynamic length or a selector, reads the event's own
// fields; where Next misses, nextFast decodes the record again, slots
// and all). An fxArrF of 8-bit elements aligned to bytes, the array
// too, is an fxArr8.
//
// Two ops that often follow each other run as one, with one dispatch: an
// fxNulB and the fxInt right after it (LTTng's integer after a string)
// are an fxNulBX and that fxInt, which fxNulBX runs (it reads the bytes
// of the segment fxNulB checked) and Next's loop steps over; an fxArr8
// and the fxFix right after it (a sequence of bytes, then a short
// string) an fxArr8X and that fxFix. The op run with the one before it
// is never the last (fxEnd), so Next's loop, stepping past it, stops at
// fxEnd as it does op by op.
func hotOps(ops []fxOp, segs []nxSeg) []fxOp {
	// (a slot's readers: the segments whose item's length it holds)
	reader := func(slot uint64) (n, at int) {
		for k := range segs {
			if d := &segs[k].dyn; d.code != 0 && d.src >= 0 && uint64(d.src) == slot {
				n, at = n+1, k
			}
		}
		return n, at
	}
	out := make([]fxOp, 0, len(ops))
	si, arrF, arrFo := -1, -1, uint32(0) // the segment; the one whose array reads its length from field arrFo
	for i := 0; i < len(ops); i++ {
		o := ops[i]
		if o.code == fxSeg || o.code == fxSegB {
			si++
		}
		var nx *fxOp
		if i+1 < len(ops) {
			nx = &ops[i+1]
		}
		switch {
		case o.code == fxDyn && int(o.off) == arrF && si == arrF:
			o.code, o.mask = fxArrF, uint64(arrFo)
			if d := &segs[si].dyn; d.ebits == 8 && d.am == 7 && d.eam == 7 {
				o.code, o.sgn = fxArr8, d.esgn
			}
		case nx == nil:
		case o.code == fxInt && nx.code == fxSlot && nx.fo == o.fo && nx.mask <= math.MaxUint32:
			if n, at := reader(nx.mask); n == 1 && at == si && segs[at].dyn.code == nxArray {
				arrF, arrFo = si, o.fo
			} else {
				o.code, o.sl = fxIntSl, uint32(nx.mask)
			}
			i++
		case o.code == fxNul && nx.code == fxSegB:
			o.code, o.mask, o.sgn = fxNulB, uint64(nx.off), nx.sgn
			i++
			si++ // (the fxSegB joined: its segment's)
		case o.code == fxSegB && o.sgn == 0 && o.off == 0 && (nx.code == fxNul || nx.code == fxFix || nx.code == fxDyn):
			continue
		}
		out = append(out, o)
	}
	// (an op and the one after it, not the last, fxEnd)
	for i := 0; i+2 < len(out); i++ {
		switch o, nx := &out[i], &out[i+1]; {
		case o.code == fxNulB && nx.code == fxInt:
			o.code = fxNulBX
		case o.code == fxArr8 && nx.code == fxFix:
			o.code = fxArr8X
		}
	}
	return out
}

// numbered returns q with its number among the templates a stream may
// keep (nxProg.num).
func (t *Trace) numbered(q nxProg) nxProg {
	q.num = -1
	if t.nxKept < maxNxKept {
		q.num = int32(t.nxKept)
		t.nxKept++
		if q.nArr > 0 {
			q.lens = int32(t.nxLens)
			t.nxLens += int(q.nArr)
		}
	}
	return q
}

// after returns the class template p (its indices from the class's first
// field) after the header template ht of option o, whose selector is sel.
func (p *nxProg) after(ht *hdrTmpl, sel *hdrField, o *hdrPart) nxProg {
	hn := int32(len(ht.fields))
	q := nxProg{arrays: p.arrays, nArr: p.nArr, lens: -1, roots: p.roots, hSel: -1, hID: -1, hClk: -1}
	for _, v := range ht.vals {
		switch {
		case q.hSel < 0 && v.f == *sel:
			q.hSel = int32(v.idx)
		case q.hID < 0 && o.id.mask != 0 && v.f == o.id:
			q.hID = int32(v.idx)
		case q.hClk < 0 && o.clk.mask != 0 && v.f == o.clk:
			q.hClk = int32(v.idx)
		default:
			q.hvals = append(q.hvals, v)
		}
	}
	q.fields = append(append(q.fields, ht.fields...), p.fields...)
	for i := hn; i < int32(len(q.fields)); i++ {
		q.fields[i].End += hn
	}
	for _, x := range p.fix {
		q.fix = append(q.fix, nxRef{i: x.i + hn, ai: x.ai, e: x.e + hn, ae: x.ae})
	}
	for k := range q.roots {
		if q.roots[k].i >= 0 {
			q.roots[k].i += hn
		}
	}
	for _, g := range p.segs {
		g.from, g.to = g.from+hn, g.to+hn
		g.vals = append([]nxVal(nil), g.vals...)
		for i := range g.vals {
			g.vals[i].idx += hn
		}
		g.slots = append([]nxSlot(nil), g.slots...)
		for i := range g.slots {
			g.slots[i].idx += hn
		}
		if g.dyn.code != 0 {
			g.dyn.idx += hn
		}
		q.segs = append(q.segs, g)
	}
	if len(q.segs) > 0 {
		q.segs[0].from = 0 // with the header's fields
	}
	q.ops = flat(q.segs, len(q.fields))
	q.rootStatic = q.roots[0].ai == 0 && q.roots[1].ai == 0 && q.roots[2].ai == 0
	q.flat = q.rootStatic && len(q.ops) >= 2 && q.ops[0].code == fxSeg && q.hSel >= 0 && q.hClk >= 0 && len(q.hvals) == 0
	q.rootCC, q.rootSC, q.rootPL = q.roots[0].i, q.roots[1].i, q.roots[2].i
	return q
}

// buildNext returns the template of the class of these scopes, or nil.
func buildNext(scopes ...*FieldClass) *nxProg {
	b := &nxBuilder{p: &nxProg{}, ok: true}
	for k, fc := range scopes {
		b.p.roots[k] = nxRef{i: -1}
		if fc == nil {
			continue
		}
		b.p.roots[k] = nxRef{i: int32(len(b.p.fields)), ai: b.arrays}
		b.field(fc, 0)
	}
	b.close()
	if !b.ok || len(b.p.segs) == 0 {
		return nil
	}
	b.p.arrays = b.arrays > 0
	b.p.nArr = b.arrays
	return b.p
}

// place puts a field aligned to a bits at template index idx in the open
// segment, opening one when none is or when a is larger than its start's
// alignment (the field's offset would not be fixed); it returns the
// field's bit offset from the segment's start.
func (b *nxBuilder) place(a uint64, idx int32) uint64 {
	g := b.seg
	if g == nil || a-1 > g.am {
		b.close()
		b.p.segs = append(b.p.segs, nxSeg{from: idx, am: a - 1, bytewise: a >= 8})
		b.seg = &b.p.segs[len(b.p.segs)-1]
		return 0
	}
	return (g.bits + a - 1) &^ (a - 1)
}

// close ends the open segment (without an item of variable size), its
// strings and BLOBs in place after its integers (flat gives their ops in
// that order: Next runs the integers at a template's head without its
// loop).
func (b *nxBuilder) close() {
	if g := b.seg; g != nil {
		g.to = int32(len(b.p.fields))
		slices.SortStableFunc(g.vals, func(x, y nxVal) int { return cmp.Compare(min(x.n, 1), min(y.n, 1)) })
		b.seg = nil
	}
}

// item ends the open segment (or one opened for it) with the item of
// variable size d at template index idx.
func (b *nxBuilder) item(fc *FieldClass, d nxDyn, idx int32) {
	if b.seg == nil {
		b.place(uint64(fc.Align), idx)
	}
	d.idx, d.am = idx, uint64(fc.Align)-1
	d.src = -1
	if fc.dynamic {
		d.src = int32(fc.src)
	} else {
		d.length = fc.Length
	}
	b.p.fields = append(b.p.fields, Field{End: idx + 1, cls: fc.id})
	b.seg.dyn = d
	b.close()
}

func (b *nxBuilder) field(fc *FieldClass, depth int) {
	if !b.ok || depth > 64 || len(b.p.fields) >= maxNxFields {
		b.ok = false
		return
	}
	idx := int32(len(b.p.fields))
	a := uint64(fc.Align)
	switch fc.Kind {
	case KindUint, KindSint, KindFloat:
		if fc.roles != 0 || fc.Bits == 0 || fc.Bits > 64 || fc.Kind == KindFloat && fc.Bits != 32 && fc.Bits != 64 {
			break
		}
		// a 64-bit floating-point number is its bits: an unsigned
		// integer's; a 32-bit one (valF32) and a big-endian integer
		// (valBE) are read at a byte only
		kind := uint8(valInt)
		switch {
		case fc.BigEndian:
			// (of 8, 16, 32 or 64 bits; a 64-bit floating-point number's
			// bits too, not a 32-bit one's)
			if fc.Bits < 8 || fc.Bits&(fc.Bits-1) != 0 || fc.Kind == KindFloat && fc.Bits == 32 {
				b.ok = false
				return
			}
			kind = valBE
		case fc.Kind == KindFloat && fc.Bits == 32:
			kind = valF32
		}
		off := b.place(a, idx)
		g := b.seg
		// the value is 8 bytes from its byte on, shifted by its bit
		// offset in that byte: static when the start is byte-aligned
		if g.am+1 >= 8 && off%8+uint64(fc.Bits) > 64 || g.am+1 < 8 && fc.Bits > 57 || off > math.MaxUint32-64 {
			break
		}
		if kind != valInt && (g.am+1 < 8 || off%8 != 0) {
			break
		}
		v := nxVal{idx: idx, off: uint32(off), mask: math.MaxUint64, kind: kind, sh: uint8(64 - fc.Bits)}
		if fc.Bits < 64 {
			v.mask = 1<<fc.Bits - 1
			if fc.Kind == KindSint {
				v.sgn = 1 << (fc.Bits - 1)
			}
		}
		if kind == valF32 {
			v.mask = 0
		}
		if fc.slot >= 0 {
			g.slots = append(g.slots, nxSlot{idx: idx, slot: int32(fc.slot)})
		}
		g.vals = append(g.vals, v)
		g.bits = off + uint64(fc.Bits)
		// (9 bytes when the start may lie inside a byte)
		need := off/8 + 8
		if !g.bytewise {
			need++
		}
		g.need = max(g.need, need)
		b.p.fields = append(b.p.fields, Field{End: idx + 1, cls: fc.id})
		return
	case KindStruct:
		off := b.place(a, idx)
		b.seg.bits = off
		b.p.fields = append(b.p.fields, Field{V: uint64(len(fc.Members)), cls: fc.id})
		arrays := b.arrays
		for _, m := range fc.Members {
			b.field(m, depth+1)
		}
		e := int32(len(b.p.fields))
		b.p.fields[idx].End = e
		if b.arrays != arrays {
			b.p.fix = append(b.p.fix, nxRef{i: idx, ai: arrays, e: e, ae: b.arrays})
		}
		return
	case KindArray:
		if len(fc.Members) == 0 || fc.roles != 0 || b.arrays >= maxNxArrays {
			break
		}
		el := fc.Members[0]
		if !plainLE(el) || el.Align > el.Bits {
			break // the decoding program's fast arrays only
		}
		d := nxDyn{code: nxArray, eam: uint64(el.Align) - 1, ebits: el.Bits, ecls: el.id}
		d.elog = uint8(bits.TrailingZeros32(el.Bits))
		if el.Kind == KindSint && el.Bits < 64 {
			d.esx = uint8(64 - el.Bits)
			d.esgn = 1 << (el.Bits - 1)
		}
		b.item(fc, d, idx)
		b.arrays++
		return
	case KindString, KindBlob:
		if fc.enc != encUTF8 || fc.roles != 0 || fc.Align%8 != 0 {
			break
		}
		if fc.nulStr {
			d := nxDyn{code: nxString}
			if fc.Align == 8 {
				d.word, d.zmask = wordNul, 0x8080808080808080
			}
			b.item(fc, d, idx)
		} else if fc.Align == 8 && !fc.dynamic && fc.Length >= minTxt && fc.Length <= maxTxt {
			// in place in the open segment (one opened for it when it
			// is aligned to less than a byte: then it starts the new
			// one, byte-aligned), as an integer of 8n bits at a byte
			off := b.place(8, idx)
			g := b.seg
			if off%8 != 0 || off > math.MaxUint32-8*maxTxt || g.am < 7 {
				break // (not reached: place aligns to 8 bits, in a segment aligned to 8 or more)
			}
			v := nxVal{idx: idx, off: uint32(off), n: uint32(fc.Length)}
			if fc.textElem {
				v.mask = 0x8080808080808080
			}
			g.vals = append(g.vals, v)
			g.bits = off + 8*fc.Length
			g.need = max(g.need, off/8+fc.Length)
			b.p.fields = append(b.p.fields, Field{End: idx + 1, cls: fc.id})
		} else {
			d := nxDyn{code: nxBytes, text: fc.textElem}
			if fc.Align == 8 && !fc.dynamic && fc.Length <= 8 {
				d.word = wordFix
				if fc.textElem {
					d.zmask = 0x8080808080808080
				}
			}
			b.item(fc, d, idx)
		}
		return
	}
	b.ok = false
}

// nextFast decodes the event record at s.pos, whose header has shape h
// (selID, with templates), from the templates; false where the decoding
// program might fail or the class has no template (Next then decodes it,
// writing again what this wrote).
func (s *Stream) nextFast(h *hdrShape) bool {
	start := s.pos
	base, end, data := s.base, s.end, s.data
	hs, w0, w1, ok := h.words(data, base, start)
	if !ok {
		return false
	}
	f := &h.pre.slot
	id := f.get(w0, w1)
	k := h.option(id)
	if k < 0 {
		return false
	}
	if f.slot >= 0 { // (idOnly: none)
		s.slots[f.slot] = id
	}
	sel := id
	p := &h.opts[k]
	pos := hs + p.bits
	if pos > end {
		return false
	}
	if p.id.mask != 0 {
		id = p.id.get(w0, w1)
	}
	sc := s.pkt.Class
	var ec *EventClass
	if id < uint64(len(sc.small)) {
		ec = sc.small[id]
	} else {
		ec = sc.events[id]
	}
	if ec == nil || k >= len(ec.nx) {
		return false
	}
	t := &ec.nx[k]
	// the fields of t with their structure in place (the stream's copy;
	// of a template with arrays, the last event, recounted by nxRun where
	// a count differs: nxRecount): nxRun writes the values; nxSlow does
	// the rest
	var fs []Field
	var at nxAt
	r, p0 := sameDiff, pos
	if j := uint32(t.num); j < uint32(len(s.nxKept)) && len(s.nxKept[j]) > 0 {
		fs = s.nxKept[j]
		if !t.arrays {
			pos, r = s.nxRun(t, &fs, pos, nil, &at)
		} else if lens := s.nxLensOf(t); len(lens) > 0 && lens[0] != 0 {
			pos, r = s.nxRun(t, &fs, pos, lens, &at)
		}
	}
	if r != sameOK || !t.rootStatic {
		if fs, pos, ok = s.nxSlow(t, fs, p0, pos, r, &at); !ok {
			return false
		}
	}
	if t.hSel >= 0 {
		fs[t.hSel].V = sel
	}
	if t.hID >= 0 {
		fs[t.hID].V = id
	}
	clock := s.clock
	if m := p.clk.mask; m != 0 {
		// hdrPart.clock, with the field's value kept
		v := p.clk.get(w0, w1)
		clock += (v - clock) & m
		if t.hClk >= 0 {
			fs[t.hClk].V = v
		}
	}
	if len(t.hvals) > 0 { // (a loop alone reloads w0 and w1 first: 4 instructions per event)
		for i := range t.hvals {
			v := &t.hvals[i]
			fs[v.idx].V = v.f.get(w0, w1)
		}
	}
	ev := &s.ev
	ev.Header = 0
	if t.rootStatic {
		ev.CommonContext, ev.SpecificContext, ev.Payload = t.rootCC, t.rootSC, t.rootPL
	} // else nxArrays set them
	ev.Fields = fs
	s.ercID, s.haveERCID = id, true
	s.clock = clock
	ev.Class, ev.Cycles, ev.Offset = ec, clock, start+uint64(s.dataOff)*8
	s.pos = pos
	s.events++
	s.nxEvents++
	return true
}

// Next decodes the next event record; it returns false at the end of the
// stream or at an error (Err).
//
// Its body, nextFlat, is nextFast for the common case, in one pass with
// no call but for an array's elements of 16 to 64 bits (fxElems): a hot
// template (nxProg.hot: flat, its scope roots static; LTTng's header: the
// selector, a clock field, at most a class id) and the stream's kept
// fields of it found from the selector's entry (Stream.fxTab, the
// stream's copy of StreamClass.fxSel, an entry for every selector value:
// no bounds check, and fxNone where no template is: no nil check), or
// for an option with a class id field from the entry of the class id it
// names, its structure in place (kept by the stream;
// of a template with arrays, the last event; where this one's count of
// an array differs, the kept event is recounted in place, nxRecount, and
// the record read again, or its tail tailArr8X ended by nxTailArr8X:
// calls off the path of the records whose counts repeat, which keep no
// value live across them). One check against the packet's limit (Stream.fxLim: the
// content and the bytes loaded at once) covers the header and the
// class's first segment (fused: nxProg.heat); the header's values and
// the event are written first (their values dead before the loop, which
// keeps few in registers), then t's flat program runs inline, as nxRun
// runs it (its hot form, nxProg.hops: hotOps joins and leaves out a few
// ops), from its first op after the fused segment: the first 2 integers
// at its head with no branch (nxProg.hd: fillers for fewer; the third in
// the tails that have one), the clock, then what follows them without
// the loop when it is nothing, a string
// and an integer, or a sequence of bytes and a short string
// (nxProg.tail: one branch on the class), else the other integers at
// its head and the loop; the stream's clock, position and counters are
// written only once the record is read whole. Wherever
// the program stops short (a string's null byte not within the content,
// or, before an integer (tailNulBX), not in its first word; a count the
// kept buffer has no room for, a bound in doubt) it returns nextMiss: nextFast decodes the record again
// from its start, writing again everything this wrote. (The body is not a
// function of its own: the call cost ≈ 18 instructions per record.)
func (s *Stream) Next() bool {
	// (at the packet's end, pos ≥ end, the header's bits, t.hbits ≥ 1,
	// are past the end: nextMiss, where nextFast finds so too and the
	// decoding program starts the next packet, as nextOther does; and
	// without fxTab, fxLim is 0: nextCold)
	// (s.scanned is left as Scan left it: the event's Fields, set here,
	// are not nil, and Event.Decode decodes only an event without them;
	// nextMiss clears it)
	// (the event's values are written as soon as they are known, fewer
	// live on; where this returns to nextMiss, they are written again)
	ev := &s.ev
	start, data := s.pos, s.data
	ev.Offset = start + uint64(s.dataOff)*8
	// (the header's start, base + (start-base+am)&^am, is (start+am)&^am:
	// fxTab is set for a packet whose start is aligned to am+1 only)
	hs := (start + s.fxAM) & s.fxNAM
	// (hs < fxLim: the fxNeed ≥ 16 bytes from the header's first byte j
	// on lie within data)
	if hs >= s.fxLim {
		return s.nextCold()
	}
	j := hs >> 3
	dp := unsafe.Pointer(unsafe.SliceData(data))
	hp := unsafe.Add(dp, j) // (the header's 16 bytes: j+16 ≤ len(data))
	// (hdrAt.get, written out, from the header's first byte with no
	// shift: fxSelAt.b and fxSelAt.s are 0, wideSel)
	sel := binary.LittleEndian.Uint64((*[8]byte)(hp)[:]) & s.fxSelAt.mask
	// the template and the stream's fields of it (fxEnt): the selector's
	// entry (fxTab has one for each value up to its mask: sel <
	// len(fxTab)), or for an option with a class id field (its t nil)
	// the entry of that id in the table it names (LTTng's large header:
	// fxTab's one entry, sel 0, names the table by the selector: fxEnts)
	e := (*fxEnt)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.fxTab)), uintptr(sel)*fxEntSize))
	if e.t == nil {
		// (from the start of its byte: e.id.s is 0, selTable)
		id := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(hp, e.id.b))[:]) & e.id.mask
		if ids := e.ids; id < uint64(len(ids)) {
			e = &ids[id]
		} else {
			return s.nextMiss(s.sel)
		}
	}
	// (an entry without a template: fxNone, whose bits send this to
	// nextMiss below)
	// the header and (fused) the first segment: their bits within the
	// content, their bytes (8 read from each value's on) within data,
	// both from pos ≤ fxLim (j + hneed ≤ j + fxNeed ≤ len(data))
	// (an entry whose template's fields the stream does not keep whole,
	// not yet or not any more (nxNoKeep), has fxNone's bits: keep)
	t, kp := e.t, e.kp
	pos := hs + e.hbits
	if pos > s.fxLim {
		return s.nextMiss(s.sel)
	}
	// (read here, its first load checks kp for nil: no instruction of
	// its own; len(fs) ≥ len(t.fields): its bits are t's, keep)
	fs := *kp
	ev.Fields, ev.Class = fs, t.ec // (together: one write barrier check)
	fp := unsafe.Pointer(unsafe.SliceData(fs))
	// (hot: the header holds the selector and the option's clock field,
	// and no other value but the class id; the selector's and the class
	// id's are the template's, fs their copy: the entry of a selector
	// value names templates of that value only, and of the class id
	// they hold: selTable)
	*(*[4]int32)(unsafe.Pointer(&ev.Header)) = t.eroots // (Header … Payload: see eroots)
	// (le64 written out: its inlining marks cost no-ops here)
	// nxRun's loop from op0, inline (a call would cost ≈ 50
	// instructions per event: its entry's checks and state; here they
	// are proven above: t's program starts with fxSeg, which op 1
	// (fused) follows, its start sp checked with the header; fs holds
	// t's fields, delta being 0)
	// first the integers at its head (the fused segment's: every value
	// of a class of integers only, without the loop's state): the
	// first 2 (t.hd: for fewer, fillers that write the clock's field,
	// written after them), with no branch; the third, hd[2], below in
	// the tails that have one
	{
		// (their offsets from the header's first byte: hoff + the
		// segment's; the 8 bytes from each within the hneed ≤ fxNeed
		// from j: the segment's need covers its integers', and hneed
		// the fillers' from hoff; a template not fused has fillers only,
		// op0 being its fxSeg)
		o, o1 := &t.hd[0], &t.hd[1]
		x := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(hp, uint64(o.off)))[:]) & o.mask
		(*Field)(unsafe.Add(fp, uintptr(o.fo))).V = x ^ o.sgn - o.sgn2
		x1 := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(hp, uint64(o1.off)))[:]) & o1.mask
		(*Field)(unsafe.Add(fp, uintptr(o1.fo))).V = x1 ^ o1.sgn - o1.sgn2
	}
	// hdrPart.clock, with the field's value kept: the clock advanced by
	// (v − clock) mod m+1 (m is 2^bits − 1), which is the clock's bits
	// of the field replaced by v, plus m+1 when v is below them; its
	// field's template index is below len(t.fields) ≤ len(fs): byte
	// offset hClkFo
	m, clock0 := t.clk.mask, s.clock
	v := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(hp, t.clk.b))[:]) >> (t.clk.s & 63) & m
	clock := clock0 + (v-clock0)&m
	ev.Cycles = clock
	// (s.ercID and haveERCID are left as they are: what reads them, Scan
	// and the decoding program, sets them first)
	// then what follows (fxNulBX and fxArr8X run the op after them too,
	// never fxEnd: hotOps), op walking the hot ops (t.hops) from opTail
	// to the last, fxEnd, at opEnd (a pointer: no index and no bounds
	// check per op; never past the ops)
	// (from here on, s.nextMiss(s.sel) is nextMiss(h), s.sel unchanged)
	// (the third head integer, hd[2], where the tail has it: every tail
	// but tailNulBX and tailArr8X, whose templates have at most 2)
	o2 := &t.hd[2]
	// (one compare after another, in this order, not a binary search:
	// of the orders tried, the fewest simulated mispredictions on
	// BenchmarkStream)
	tl := t.tail
	if tl == tailNulBX {
		goto nulBX
	}
	if tl == tailEnd {
		x2 := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(hp, uint64(o2.off)))[:]) & o2.mask
		(*Field)(unsafe.Add(fp, uintptr(o2.fo))).V = x2 ^ o2.sgn - o2.sgn2
		(*Field)(unsafe.Add(fp, uintptr(t.hClkFo))).V = v
		s.clock, s.pos = clock, pos
		s.fxEvents++
		return true
	}
	if tl == tailArr8X {
		goto arr8X
	}
	if tl == tailNulBX3 {
		x2 := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(hp, uint64(o2.off)))[:]) & o2.mask
		(*Field)(unsafe.Add(fp, uintptr(o2.fo))).V = x2 ^ o2.sgn - o2.sgn2
		goto nulBX
	}
	if tl == tailArr8X3 {
		x2 := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(hp, uint64(o2.off)))[:]) & o2.mask
		(*Field)(unsafe.Add(fp, uintptr(o2.fo))).V = x2 ^ o2.sgn - o2.sgn2
		goto arr8X
	}
	{
		op, oe := t.opInts, t.opEnd
		// the third integer at the head, then those after the first 3, two
		// at a time up to opPair, then the odd one before opInts
		x2 := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(hp, uint64(o2.off)))[:]) & o2.mask
		(*Field)(unsafe.Add(fp, uintptr(o2.fo))).V = x2 ^ o2.sgn - o2.sgn2
		(*Field)(unsafe.Add(fp, uintptr(t.hClkFo))).V = v
		sp := unsafe.Add(hp, t.hoff) // the current segment's start byte (fused; else op 0 sets it)
		p := t.opTail
		for o2 := t.opPair; p != o2; p = unsafe.Add(p, 2*fxOpSize) {
			o, o1 := (*fxOp)(p), (*fxOp)(unsafe.Add(p, fxOpSize))
			x := le64(sp, uint64(o.off)) & o.mask
			(*Field)(unsafe.Add(fp, uintptr(o.fo))).V = x ^ o.sgn - o.sgn
			x1 := le64(sp, uint64(o1.off)) & o1.mask
			(*Field)(unsafe.Add(fp, uintptr(o1.fo))).V = x1 ^ o1.sgn - o1.sgn
		}
		if p != op {
			o := (*fxOp)(p)
			x := le64(sp, uint64(o.off)) & o.mask
			(*Field)(unsafe.Add(fp, uintptr(o.fo))).V = x ^ o.sgn - o.sgn
		}
		// (fxRun but for dp, fp and nfs, which live on in locals: less to
		// clear)
		nfs := uint64(len(fs))
		// (the kept counts, s.nxLens from t.lens on: the first array's 0,
		// when the kept event is not whole, matches no count, and
		// nxRecount recounts no such event: its op returns to nextMiss; a
		// count n with uint32(n)+1 = 0 is ≥ 2^32-1, more elements than the
		// fields fs holds, where its op returns too. A count that differs
		// is recounted (nxRecount) and the record read again, below)
		r := fxHot{pos: pos}
		fd := fp
		for ; op != oe; op = unsafe.Add(op, fxOpSize) {
			o := (*fxOp)(op)
			if o.code == fxInt {
				x := le64(sp, uint64(o.off)) & o.mask
				(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = x ^ o.sgn - o.sgn
				continue
			}
			switch o.code {
			case fxIntS:
				x := le64(sp, uint64(o.off)) >> (o.sh & 63) & o.mask
				(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = x ^ o.sgn - o.sgn
				continue
			case fxIntB:
				q := r.stb + uint64(o.off)
				x := le64(sp, q>>3) >> (q & 7) & o.mask
				(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = x ^ o.sgn - o.sgn
				continue
			case fxSegB:
				// (the position is on a byte: the segment starts there)
				st := r.pos
				if st+o.sgn > s.end || (st>>3)+uint64(o.off) > uint64(len(s.data)) {
					return s.nextMiss(s.sel)
				}
				sp, r.stb = unsafe.Add(dp, st>>3), 0
				r.pos = st + o.sgn
				continue
			case fxSeg:
				base := s.base
				st := base + (r.pos-base+o.mask)&^o.mask
				if st+o.sgn > s.end || (st>>3)+uint64(o.off) > uint64(len(s.data)) {
					return s.nextMiss(s.sel)
				}
				sp, r.stb = unsafe.Add(dp, st>>3), st&7
				r.pos = st + o.sgn
				continue
			case fxSlot:
				s.slots[o.mask] = (*Field)(unsafe.Add(fd, uintptr(o.fo))).V
				continue
			case fxTxt:
				// (nxRun's fxTxt, inline)
				f, p := (*Field)(unsafe.Add(fd, uintptr(o.fo))), unsafe.Add(sp, o.off)
				f.V, f.N = uint64(uintptr(p)-uintptr(dp)), uint32(txtLen(p, o.sgn, o.mask))
				continue
			case fxTxtL:
				f, p := (*Field)(unsafe.Add(fd, uintptr(o.fo))), unsafe.Add(sp, o.off)
				f.V, f.N = uint64(uintptr(p)-uintptr(dp)), uint32(txtLong(p, o.sgn, o.mask))
				continue
			case fxIntSl:
				// fxInt, then fxSlot
				x := le64(sp, uint64(o.off))&o.mask ^ o.sgn - o.sgn
				(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = x
				s.slots[o.sl] = x
				continue
			case fxArr8, fxArr8X:
				// an array of bytes (fxArrF: its length the value of the
				// field at fo mask, before it in its segment): its
				// position aligned to a byte (base is a multiple of 8),
				// its count the kept event's (recounted to it where it
				// differs: nxRecount); its elements the bytes
				// q>>3 … (q>>3)+n-1, q+8n ≤ end ≤ 8·len(data), into the
				// fields after the array's (fo), delta + idx + 1 …
				// delta + idx + n: delta + n + len(t.fields) ≤ len(fs)
				// (idx < len(t.fields)), all checked here
				n := (*Field)(unsafe.Add(fd, uintptr(o.mask))).V
				if lens := s.nxLens; uint64(o.sl) >= uint64(len(lens)) || lens[o.sl] != uint32(n)+1 {
					// another count: the kept event recounted in place
					// (the array's field: delta + fo/size), where it
					// fits, and the record read again from its start, its
					// counts up to this array's now the kept event's
					// (nothing written to the stream but values the
					// second pass writes again: s.pos and the clock are
					// written at the end). As the last thing this does, a
					// call leaves none of the loop's values live across
					// it (a call that returns into the loop would have
					// them spilled on every record: ≈ 1 instruction per
					// record on BenchmarkStreamKernel); and it is one
					// call deep per array at most (each pass gets past
					// one more array).
					if _, ok := s.nxRecount(t, o.sl, n, o.off); ok {
						return s.Next()
					}
					return s.nextMiss(s.sel)
				}
				f := (*Field)(unsafe.Add(fd, uintptr(o.fo)))
				f.V = n
				q := (r.pos + 7) &^ 7
				if n > 0 {
					end := s.end
					if q > end || n > (end-q)>>3 || r.delta+n+uint64(len(t.fields)) > nfs || end > uint64(len(s.data))*8 {
						return s.nextMiss(s.sel)
					}
					el, ep, sgn := unsafe.Add(unsafe.Pointer(f), fieldSize), unsafe.Add(dp, q>>3), o.sgn
					for i := uintptr(0); i < uintptr(n); i++ {
						(*Field)(unsafe.Add(el, i*fieldSize)).V = uint64(*(*uint8)(unsafe.Add(ep, i))) ^ sgn - sgn
					}
					r.delta += n
					fd = unsafe.Add(fp, uintptr(r.delta)*fieldSize)
				}
				r.pos = q + n*8
				if o.code == fxArr8 {
					continue
				}
				// fxArr8X: then the fxFix after it (op+1, before the
				// last op, fxEnd: hotOps), with no dispatch
				op = unsafe.Add(op, fxOpSize)
				o = (*fxOp)(op)
				fallthrough
			case fxFix:
				// a short string or BLOB of static length sgn ≤ 8 from
				// one word: up to its first null byte (a string), 8 when
				// none (or a BLOB: zmask 0)
				pos := r.pos
				i := pos >> 3
				if pos&7 != 0 || i+8 > uint64(len(s.data)) || pos+o.sgn*8 > s.end {
					return s.nextMiss(s.sel) // (fxFix's item is no array: nextMiss below)
				}
				w := le64(dp, i)
				z := (w - 0x0101010101010101) &^ w & o.mask
				f := (*Field)(unsafe.Add(fd, uintptr(o.fo)))
				f.V, f.N = i, uint32(min(uint64(bits.TrailingZeros64(z)>>3), o.sgn))
				r.pos = pos + o.sgn*8
				continue
			case fxNulB, fxNulBX:
				// fxNul, then fxSegB (need in mask, bits in sgn): their
				// checks, one after the other
				pos := r.pos
				i := pos >> 3
				if pos&7 != 0 || i+8 > uint64(len(s.data)) {
					return s.nextMiss(s.sel) // (fxNul's item is no array: nextMiss below)
				}
				w := le64(dp, i)
				z := (w - 0x0101010101010101) &^ w & 0x8080808080808080
				q := pos + uint64(bits.TrailingZeros64(z)&^7)
				if z == 0 {
					q, z = s.nulFar(i)
				}
				// (st+sgn ≤ end: st ≤ end, the string's null byte within
				// the content)
				if st := q + 8; z == 0 || st+o.sgn > s.end || (st>>3)+o.mask > uint64(len(s.data)) {
					return s.nextMiss(s.sel)
				}
				f := (*Field)(unsafe.Add(fd, uintptr(o.fo)))
				f.V, f.N = i, uint32(q-pos)>>3
				sp, r.stb = unsafe.Add(dp, q>>3+1), 0
				r.pos = q + 8 + o.sgn
				if o.code == fxNulB {
					continue
				}
				// fxNulBX: then the fxInt after it (op+1, before the
				// last op, fxEnd: hotOps), of the segment just checked,
				// with no dispatch
				op = unsafe.Add(op, fxOpSize)
				o = (*fxOp)(op)
				fallthrough
			case fxInt:
				// (fxNulBX's fxInt: the others are run above)
				x := le64(sp, uint64(o.off)) & o.mask
				(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = x ^ o.sgn - o.sgn
				continue
			case fxNul:
				// a short null-terminated string from one word, without a
				// call: the first null byte (z's lowest flag), within the
				// content: what nulAt finds there
				pos := r.pos
				i := pos >> 3
				if pos&7 == 0 && i+8 <= uint64(len(s.data)) {
					w := le64(dp, i)
					z := (w - 0x0101010101010101) &^ w & 0x8080808080808080
					q := pos + uint64(bits.TrailingZeros64(z)&^7)
					if z == 0 {
						q, z = s.nulFar(i)
					}
					if z != 0 && q+8 <= s.end {
						f := (*Field)(unsafe.Add(fd, uintptr(o.fo)))
						f.V, f.N = i, uint32(q-pos)>>3
						r.pos = q + 8
						continue
					}
				}
				return s.nextMiss(s.sel)
			}
			d := &t.segs[o.off].dyn
			if d.code != nxArray {
				return s.nextMiss(s.sel)
			}
			// the array: its length and elements (within the checks the
			// comment above proves)
			base := s.base
			pos := base + (r.pos-base+d.am)&^d.am
			n := d.length
			if o.code == fxArrF {
				n = (*Field)(unsafe.Add(fd, uintptr(o.mask))).V // (the length's field, below len(t.fields): hotOps)
			} else if d.src >= 0 {
				n = s.slots[d.src]
			}
			if lens := s.nxLens; uint64(o.sl) >= uint64(len(lens)) || lens[o.sl] != uint32(n)+1 {
				// (another count: as fxArr8's above)
				if _, ok := s.nxRecount(t, o.sl, n, o.off); ok {
					return s.Next()
				}
				return s.nextMiss(s.sel)
			}
			cur := r.delta + uint64(d.idx) + 1
			fieldAt(fp, cur-1).V = n
			if n > 0 {
				end := s.end
				q := base + (pos-base+d.eam)&^d.eam
				// (with the fields of the template after them: the
				// invariant delta + len(t.fields) ≤ len(fs) holds on)
				if q > end || n > (end-q)>>d.elog || r.delta+n+uint64(len(t.fields)) > nfs || end > uint64(len(s.data))*8 {
					return s.nextMiss(s.sel)
				}
				pos = q + n<<d.elog
				if ep := unsafe.Add(dp, q>>3); d.ebits == 8 {
					// fxElems' bytes, without the call (the elements
					// fields cur … cur+n-1, the bytes q>>3 … (q>>3)+n-1:
					// within fs and data, checked above)
					el, sgn := fieldAt(fp, cur), d.esgn
					for i := uintptr(0); i < uintptr(n); i++ {
						(*Field)(unsafe.Add(unsafe.Pointer(el), i*fieldSize)).V = uint64(*(*uint8)(unsafe.Add(ep, i))) ^ sgn - sgn
					}
				} else {
					fxElems(unsafe.Slice(fieldAt(fp, cur), n), ep, d)
				}
				r.delta += n
				fd = unsafe.Add(fp, uintptr(r.delta)*fieldSize)
			}
			r.pos = pos
		}
		s.clock = ev.Cycles
		s.pos = r.pos
		s.fxEvents++ // (the one count of the records read here: Stream.events)
		return true
	}
nulBX:
	{
		(*Field)(unsafe.Add(fp, uintptr(t.hClkFo))).V = v
		// the loop's fxNulBX and the fxInt after it, then fxEnd (pos on
		// a byte: nxProg.tail), with no dispatch (fxTail: their
		// constants); its checks against fxLim: pos ≤ fxLim (above), so
		// the word's 8 bytes from i on lie within data; the string's
		// null byte k, the next segment's start st = pos + 8k + 8 after
		// it, st + its bits (adv: 8 + bits) ≤ fxLim: within the
		// content, its need (≤ fxNeed) bytes from st>>3 = i+k+1 on
		// within data
		x := &t.tl
		i := pos >> 3
		w := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(dp, i))[:])
		z := (w - 0x0101010101010101) &^ w & 0x8080808080808080
		if z == 0 {
			return s.nextMiss(s.sel)
		}
		k := uint64(bits.TrailingZeros64(z)) >> 3
		end := pos + k*8 + x.adv
		if end > s.fxLim {
			return s.nextMiss(s.sel)
		}
		f := (*Field)(unsafe.Add(fp, uintptr(x.fo)))
		f.V, f.N = i, uint32(k)
		v := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(dp, i+k+x.off1))[:]) & x.mask1
		(*Field)(unsafe.Add(fp, uintptr(x.fo1))).V = v ^ x.sgn1 - x.sgn2
		s.clock, s.pos = clock, end
		s.fxEvents++
		return true
	}
arr8X:
	{
		(*Field)(unsafe.Add(fp, uintptr(t.hClkFo))).V = v
		// the loop's fxArr8X and the fxFix after it, then fxEnd (pos on
		// a byte: nxProg.tail), with no dispatch (fxTail: their
		// constants); its checks against fxLim (delta 0: the template's
		// first array): the n bytes from pos>>3 on, pos + 8n ≤ fxLim
		// (pos ≤ fxLim: above), into the fields after the array's (fo):
		// n + len(t.fields) ≤ len(fs); the string's word, 8 bytes from
		// q>>3 on (q = pos + 8n, the string's start), its sgn bytes
		// within the content: q + 8·sgn ≤ fxLim, one check for both.
		// Its count: the kept event's (s.nxLens, made with fxTab: sl
		// below its length, nxProg.heat); where it differs, the kept
		// event is recounted and the tail ends in nxTailArr8X
		x := &t.tl
		n := (*Field)(unsafe.Add(fp, uintptr(x.lenFo))).V
		if *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.nxLens)), uintptr(x.sl)*4)) != uint32(n)+1 {
			// another count: the kept event recounted in place, and
			// the rest of the tail, by a call that leaves nothing live
			return s.nxTailArr8X(t, pos, n, clock)
		}
		f := (*Field)(unsafe.Add(fp, uintptr(x.fo)))
		f.V = n
		// (n ≤ len(fs) < 2^58: pos + 8n + adv does not wrap;
		// len(t.fields) ≤ len(fs): above)
		if n > uint64(len(fs)-len(t.fields)) {
			return s.nextMiss(s.sel)
		}
		end := pos + n*8 + x.adv
		if end > s.fxLim {
			return s.nextMiss(s.sel)
		}
		// (the elements from one pointer to the next, no index: el ends
		// at the field after the last element, within fs (the string's
		// follows), ep at the string's first byte, within data)
		el, ep, sgn := unsafe.Add(unsafe.Pointer(f), fieldSize), unsafe.Add(dp, pos>>3), x.sgn1
		for ee := unsafe.Add(ep, uintptr(n)); ep != ee; ep, el = unsafe.Add(ep, 1), unsafe.Add(el, fieldSize) {
			(*Field)(el).V = uint64(*(*uint8)(ep)) ^ sgn - sgn
		}
		fd := unsafe.Add(fp, uintptr(n)*fieldSize)
		i := pos>>3 + n
		w := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(dp, i))[:])
		// (the string's first null byte, else its length: stop flags
		// the byte after it, when it has fewer than 8)
		z := (w-0x0101010101010101)&^w&x.mask1 | x.stop
		f1 := (*Field)(unsafe.Add(fd, uintptr(x.fo1)))
		f1.V, f1.N = i, uint32(bits.TrailingZeros64(z)>>3)
		s.clock, s.pos = clock, end
		s.fxEvents++
		return true
	}
}

// nxTailArr8X ends a record of Next's body's tail tailArr8X (template
// t; the sequence of bytes at bit pos, on a byte, after the head
// integers, the header and the clock's field written; the clock after
// the header) whose count n differs from the kept event's: it recounts
// the kept event in place (nxRecount: the array's field at fo/size, delta
// 0) and writes the rest as the tail does, with its checks (pos + 8n +
// adv ≤ fxLim: the elements' bytes and the string's word within data). A
// function of its own, which Next calls last: a call in Next's tail would
// keep its values live across it, spilled on every record. nextMiss
// where nxRecount does not recount.
func (s *Stream) nxTailArr8X(t *nxProg, pos, n, clock uint64) bool {
	x := &t.tl
	ai := uint64(x.fo) / uint64(fieldSize)
	fs, ok := s.nxRecount(t, x.sl, n, (*fxOp)(t.opInts).off)
	// (nxRecount: len(fs) ≥ len(t.fields) + n, and fo, fo1 below
	// len(t.fields) fields: the array's, its elements' and the string's
	// within fs)
	if !ok || n > uint64(len(fs)-len(t.fields)) {
		return s.nextMiss(s.sel)
	}
	end := pos + n*8 + x.adv
	if end > s.fxLim {
		return s.nextMiss(s.sel)
	}
	// (Next set Event.Fields to the kept fields: their length only)
	s.ev.Fields = s.ev.Fields[:len(fs)]
	fs[ai].V = n
	// the elements, the bytes pos>>3 … pos>>3+n-1 into the fields ai+1 …
	// ai+n (within data and fs: checked above), as the tail writes them
	data, b := s.data, pos>>3
	el, ep, sgn := unsafe.Pointer(&fs[ai]), unsafe.Add(unsafe.Pointer(unsafe.SliceData(data)), b), x.sgn1
	for ee := unsafe.Add(ep, uintptr(n)); ep != ee; ep = unsafe.Add(ep, 1) {
		el = unsafe.Add(el, fieldSize)
		(*Field)(el).V = uint64(*(*uint8)(ep)) ^ sgn - sgn
	}
	i := b + n
	w := binary.LittleEndian.Uint64(data[i : i+8 : i+8])
	z := (w-0x0101010101010101)&^w&x.mask1 | x.stop
	f1 := &fs[n+uint64(x.fo1)/uint64(fieldSize)]
	f1.V, f1.N = i, uint32(bits.TrailingZeros64(z)>>3)
	s.clock, s.pos = clock, end
	s.fxEvents++
	return true
}

// nextBare decodes the event record at s.pos of a packet without event
// record headers, whose records are all of class ec (with a template), from
// its template; false where the decoding program might fail (Next then
// decodes it). What decodeEvent does for such a record, but from the
// template: no header, the clock unchanged, no class id.
func (s *Stream) nextBare(ec *EventClass) bool {
	start := s.pos
	t := &ec.nx[0]
	var fs []Field
	var at nxAt
	// (nextFast's steps)
	r, pos := sameDiff, start
	if j := uint32(t.num); j < uint32(len(s.nxKept)) && len(s.nxKept[j]) > 0 {
		fs = s.nxKept[j]
		if !t.arrays {
			pos, r = s.nxRun(t, &fs, pos, nil, &at)
		} else if lens := s.nxLensOf(t); len(lens) > 0 && lens[0] != 0 {
			pos, r = s.nxRun(t, &fs, pos, lens, &at)
		}
	}
	ok := true
	if r != sameOK || !t.rootStatic {
		fs, pos, ok = s.nxSlow(t, fs, start, pos, r, &at)
	}
	// (an empty record is an error the decoding program reports)
	if !ok || pos == start || pos > s.end {
		return false
	}
	ev := &s.ev
	ev.Header = -1
	if t.rootStatic {
		ev.CommonContext, ev.SpecificContext, ev.Payload = t.rootCC, t.rootSC, t.rootPL
	} // else nxArrays set them
	ev.Fields = fs
	s.ercID, s.haveERCID = 0, false
	ev.Class, ev.Cycles, ev.Offset = ec, s.clock, start+uint64(s.dataOff)*8
	s.pos = pos
	s.events++
	s.nxEvents++
	return true
}

// nxKeep copies t's fields (a template without arrays) into the stream's
// chunk of kept fields when its budget allows (nextFast and nextBare then
// find them there: the structure in place, only values to write; what
// they write is the stream's own copy of t.fields), else into s.fields.
func (s *Stream) nxKeep(t *nxProg) []Field {
	b := s.nxTake(t, len(t.fields))
	if b == nil {
		s.fields = append(s.fields[:0], t.fields...)
		return s.fields
	}
	b = append(b, t.fields...)
	s.keep(t, b)
	return b
}

// nxTake returns room for n fields of template t in the stream's chunk of
// kept fields (empty, of capacity n), or nil when t is not to be kept (or
// is kept already) or the stream's budget has no room.
func (s *Stream) nxTake(t *nxProg, n int) []Field {
	if !s.nxIndex(t) || s.nxKept[t.num] != nil {
		return nil
	}
	if cap(s.nxChunk)-len(s.nxChunk) < n {
		// a new chunk (never moved: the fields kept in the last stay)
		c := max(n, min(1024, s.nxRoom-s.nxUsed))
		if s.nxUsed+c > s.nxRoom {
			return nil
		}
		s.nxChunk = make([]Field, 0, c)
		s.nxUsed += c
	}
	o := len(s.nxChunk)
	s.nxChunk = s.nxChunk[:o+n]
	return s.nxChunk[o : o : o+n]
}

// keep sets the stream's kept fields of template t (nxKept) to fs, and
// the bits of its entry in the stream's copy of the selector table, if
// any (nxEnt): t.hbits when fs holds t's fields at least, else fxNone's,
// which send Next's body to nextMiss (Next's body writes t's fields into
// the kept fields its entry names, with no check of their length: every
// change of a kept length goes through keep, but nxRecount's, which
// leaves at least t's fields).
func (s *Stream) keep(t *nxProg, fs []Field) {
	s.nxKept[t.num] = fs
	if e := s.nxEnt[t.num]; e != nil {
		e.hbits = entBits(t, fs)
	}
}

// entBits returns the bits of the entry of template t whose kept fields
// are fs: t.hbits when fs holds t's fields at least, else fxNone's.
func entBits(t *nxProg, fs []Field) uint64 {
	if len(fs) < len(t.fields) {
		return fxNone.hbits
	}
	return t.hbits
}

// nxIndex makes s.nxKept (once) and says whether t may be kept in it.
func (s *Stream) nxIndex(t *nxProg) bool {
	s.nxAlloc()
	return t.num >= 0 && int(t.num) < len(s.nxKept)
}

// nxAlloc makes s.nxKept, s.nxEnt and s.nxLens, once (never moved:
// fxEnt points into nxKept).
func (s *Stream) nxAlloc() {
	if s.nxKept == nil && s.t.nxKept > 0 {
		s.nxKept = make([][]Field, s.t.nxKept)
		s.nxEnt = make([]*fxEnt, s.t.nxKept)
		s.nxLens = make([]uint32, s.t.nxLens)
	}
}

// nxRoots sets the scope roots of the event from template t, cum[k]
// holding the elements of the first k arrays.
func (s *Stream) nxRoots(t *nxProg, cum *[maxNxArrays + 1]int32) {
	var roots [3]int32
	for k, r := range t.roots {
		roots[k] = -1
		if r.i >= 0 {
			roots[k] = r.i + cum[r.ai]
		}
	}
	s.ev.CommonContext, s.ev.SpecificContext, s.ev.Payload = roots[0], roots[1], roots[2]
}

// nxSlow ends what nextFast's (or nextBare's) call of nxRun on the
// fields fs of template t, from bit p0, left with outcome r at pos (r
// sameDiff: t's structure was not in place, nxRun did not run): a string
// it leaves is read by nxText here, outside its loop (a call inside the
// loop would spill every value the loop keeps), and nxRun resumes; a
// template without arrays not kept yet is kept (or copied) and run; one
// with arrays whose counts differ from the kept event's where nxRecount
// cannot recount it in place, or not kept yet, is decoded by nxArrays; the scope roots after arrays are set. It
// returns the fields and the position after them, false where the
// decoding program might fail.
func (s *Stream) nxSlow(t *nxProg, fs []Field, p0, pos uint64, r int, at *nxAt) ([]Field, uint64, bool) {
	var lens []uint32
	if t.arrays {
		lens = s.nxLensOf(t)
	}
	if r == sameDiff && !t.arrays {
		fs = s.nxKeep(t)
		*at = nxAt{}
		pos, r = s.nxRun(t, &fs, p0, nil, at)
	}
	for r == sameText {
		d := &t.segs[at.si].dyn
		var ok bool
		if pos, ok = s.nxText(d, &fs[int(at.delta)+int(d.idx)], pos); !ok {
			return fs, 0, false
		}
		pos, r = s.nxRun(t, &fs, pos, lens, at)
	}
	switch r {
	case sameOK:
		if !t.rootStatic {
			s.nxRootsOf(t, lens)
		}
		return fs, pos, true
	case sameFail:
		return fs, 0, false
	}
	// sameDiff: a count differs beyond what nxRecount does (the structure
	// is rewritten, kept again if it all goes well), or t is not kept yet
	if len(lens) > 0 {
		lens[0] = 0
	}
	return s.nxArrays(t, p0)
}

// nulAt returns the index of the first null byte of data[i:e] (i ≤ e ≤
// len(data)), at most 2^32-1 bytes from i, false when there is none:
// eight bytes at a time (the lowest byte the test flags is the first null
// one) while eight can be read, IndexByte for the rest.
func nulAt(data []byte, i, e uint64) (uint64, bool) {
	z := i
	for z+8 <= e {
		w := binary.LittleEndian.Uint64(data[z : z+8 : z+8])
		if m := (w - 0x0101010101010101) &^ w & 0x8080808080808080; m != 0 {
			z += uint64(bits.TrailingZeros64(m) >> 3)
			return z, z-i <= math.MaxUint32
		}
		z += 8
	}
	x := bytes.IndexByte(data[z:e], 0)
	if x < 0 {
		return 0, false
	}
	z += uint64(x)
	return z, z-i <= math.MaxUint32
}

// nulFar returns, for Next, the bit position q of the null byte that ends
// the null-terminated string at byte i, whose first 8 bytes (within the
// data) hold none, and z 1; z 0 when the content (and the data) holds
// none after them, or only more than 2^32-1 bytes from i (where the
// decoding program reports so). (A call, out of Next's loop's common
// path: the values the loop keeps are spilled on this path only.)
func (s *Stream) nulFar(i uint64) (q, z uint64) {
	e := min(s.end>>3, uint64(len(s.data)))
	if i+8 >= e {
		return 0, 0
	}
	k, ok := nulAt(s.data, i+8, e)
	if !ok || k-i > math.MaxUint32 {
		return 0, 0
	}
	return k * 8, 1
}

// textLen returns the length of the text of the n bytes data[i:i+n]
// (within data): up to the first null byte. Up to 8 bytes, from one 8-byte
// word when 8 can be read (the lowest byte the test flags is the first
// null one); IndexByte otherwise.
func textLen(data []byte, i, n uint64) uint64 {
	if n <= 8 && i+8 <= uint64(len(data)) {
		w := binary.LittleEndian.Uint64(data[i : i+8 : i+8])
		if m := (w - 0x0101010101010101) &^ w & 0x8080808080808080; m != 0 {
			return min(n, uint64(bits.TrailingZeros64(m)>>3))
		}
		return n
	}
	if z := bytes.IndexByte(data[i:i+n], 0); z >= 0 {
		return uint64(z)
	}
	return n
}

// txtLen returns the length of the text of the n bytes from p (8 ≤ n ≤
// 16, LTTng's process names; the caller checked they lie within the
// data): up to its first null byte, n when none; n for a BLOB (zm 0;
// else zm is 0x8080808080808080). It reads them as two 8-byte words, the
// first 8 bytes and the last 8 (overlapping unless n is 16), and flags
// each word's null bytes (the lowest flag of a word is its first null
// byte: a borrow that flags a byte above it comes from a null byte
// below): the first word's first null byte when it has one, else the
// last word's (the bytes it shares with the first hold none), else n;
// with a conditional move, no branch. (Inlined: a call inside Next's
// loop would spill the values the loop keeps.)
func txtLen(p unsafe.Pointer, n, zm uint64) uint64 {
	// (le64 written out: an inlined call costs a no-op or two)
	w0 := binary.LittleEndian.Uint64((*[8]byte)(p)[:])
	w1 := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, n-8))[:])
	z0 := (w0 - 0x0101010101010101) &^ w0 & zm
	k := n - 8 + uint64(bits.TrailingZeros64((w1-0x0101010101010101)&^w1&zm)>>3)
	if z0 != 0 {
		k = uint64(bits.TrailingZeros64(z0) >> 3)
	}
	return k
}

// txtLong is txtLen for any n ≥ 8: the words from byte 0 on, 8 bytes
// apart, before the last, which ends at byte n.
func txtLong(p unsafe.Pointer, n, zm uint64) uint64 {
	w := le64(p, n-8)
	k := n - 8 + uint64(bits.TrailingZeros64((w-0x0101010101010101)&^w&zm)>>3)
	for i := uint64(0); i+8 < n; i += 8 {
		w := le64(p, i)
		z := uint64(bits.TrailingZeros64((w - 0x0101010101010101) &^ w & zm))
		k = min(k, i+z>>3+z&64)
	}
	return k
}

// nxText reads the string or BLOB d at bit pos (before its alignment) into
// its field f, returning the position after it; false where the decoding
// program might fail.
func (s *Stream) nxText(d *nxDyn, f *Field, pos uint64) (uint64, bool) {
	data, base, end := s.data, s.base, s.end
	pos = base + (pos-base+d.am)&^d.am
	if pos > end {
		return 0, false
	}
	i := pos >> 3
	if d.code == nxString {
		z, ok := nulAt(data, i, end>>3)
		if !ok {
			return 0, false
		}
		f.V, f.N = i, uint32(z-i)
		return (z + 1) * 8, true
	}
	n := d.length
	if d.src >= 0 {
		n = s.slots[d.src]
	}
	if n > (end-pos)/8 || n > math.MaxUint32 {
		return 0, false
	}
	k := n
	if d.text {
		k = textLen(data, i, n)
	}
	f.V, f.N = i, uint32(k)
	return pos + n*8, true
}

// nxNoKeep marks a template with arrays whose buffer outgrew the stream's
// budget (cap 0: copied per event).
var nxNoKeep = []Field{}

// nxArrKeep returns a buffer for template t (with arrays) holding its first
// segment's fields, kept in the stream (nxKept) with room for 16 elements
// (the capacity beyond an event's fields: nxRecount moves the fields
// after an array within it when a count grows), or nil when t is not to
// be kept (nxNoKeep: outgrown) or the stream's budget has no room for it.
func (s *Stream) nxArrKeep(t *nxProg) []Field {
	b := s.nxTake(t, len(t.fields)+16)
	if b == nil {
		return nil
	}
	b = append(b, t.fields[:t.segs[0].to]...)
	s.keep(t, b)
	return b
}

// nxArrays fills the fields of template t, which has arrays, from the
// class's bytes at bit pos, segment by segment (their End values moved by
// the elements of the arrays before them), and sets the event's scope
// roots when an array comes before one; it returns the fields and the
// position after them, false where the decoding program might fail. The
// fields are the stream's buffer of t. It holds t's first segment (the
// header's fields and the class's before its first array) from the
// previous events, and the whole previous event of t with its element
// counts (s.nxLens): when this event's arrays have the same counts, their
// structure is in place and only values are written (Next's body, nxRun);
// when a count differs, they recount the kept event in place
// (nxRecount) where the buffer has room for it; else (or where the kept
// event is not whole) this is called, and the fields after the first
// segment are copied from t.
func (s *Stream) nxArrays(t *nxProg, pos uint64) ([]Field, uint64, bool) {
	s.nxBuilt++
	// the fields: the stream's own buffer of t, its first segment in
	// place (nxArrKeep makes it), or s.fields, empty
	var fs, kept []Field
	var lens []uint32 // the counts of the event kept (1 + count; 0: not kept)
	if j := uint32(t.num); j < uint32(len(s.nxKept)) && cap(s.nxKept[j]) > 0 {
		kept = s.nxKept[j]
		lens = s.nxLensOf(t)
		fs = kept[:t.segs[0].to]
	} else {
		fs = s.fields[:0]
		if kept = s.nxArrKeep(t); kept != nil {
			fs = kept
			lens = s.nxLensOf(t)
		}
	}
	data, base, end := s.data, s.base, s.end
	var delta int32 // the elements of the arrays so far: added to the template's indices and End values
	var cum [maxNxArrays + 1]int32
	na := 0
	for si := range t.segs {
		g := &t.segs[si]
		st := base + (pos-base+g.am)&^g.am
		if st+g.bits > end || g.need != 0 && (st>>3)+g.need > uint64(len(data)) {
			return fs, 0, false
		}
		n0 := len(fs)
		if si > 0 || n0 == 0 {
			fs = append(fs, t.fields[g.from:g.to]...)
		}
		if delta != 0 {
			for i := n0; i < len(fs); i++ {
				fs[i].End += delta
			}
		}
		vals := g.vals // (a local: read through g, the compiler reloads it after every store to fs)
		for i := range vals {
			v := &vals[i]
			if v.n > 0 {
				// a string or BLOB in place: its n bytes from byte k
				// on lie within the segment's need
				k, n := st>>3+uint64(v.off>>3), uint64(v.n)
				f := &fs[delta+v.idx]
				f.V, f.N = k, uint32(n)
				if v.mask != 0 {
					f.N = uint32(textLen(data, k, n))
				}
				continue
			}
			fs[delta+v.idx].V = v.at(data, st)
		}
		for i := range g.slots {
			sl := &g.slots[i]
			s.slots[sl.slot] = fs[delta+sl.idx].V
		}
		pos = st + g.bits
		d := &g.dyn
		if d.code == 0 {
			continue
		}
		if d.code != nxArray {
			var ok bool
			if pos, ok = s.nxText(d, &fs[delta+d.idx], pos); !ok {
				return fs, 0, false
			}
			continue
		}
		pos = base + (pos-base+d.am)&^d.am
		n := d.length
		if d.src >= 0 {
			n = s.slots[d.src]
		}
		// the walk's limit: the fields so far (the array's with them)
		// and the elements
		cur := int(delta + d.idx + 1)
		if cur > s.limit || n > uint64(s.limit-cur) || n > 1<<30 {
			return fs, 0, false
		}
		fs[cur-1].V, fs[cur-1].End = n, int32(cur)+int32(n)
		if n > 0 {
			q := base + (pos-base+d.eam)&^d.eam
			eb := uint64(d.ebits)
			if q > end || n > (end-q)/eb {
				return fs, 0, false
			}
			for range n {
				x := loadLE(data, q>>3, d.ebits)
				x = uint64(int64(x<<d.esx) >> d.esx)
				fs = append(fs, Field{V: x, End: int32(len(fs) + 1), cls: d.ecls})
				q += eb
			}
			pos = q
		}
		na++
		cum[na] = cum[na-1] + int32(n)
		delta += int32(n)
	}
	for i := range t.fix {
		x := &t.fix[i]
		fs[x.i+cum[x.ai]].End = x.e + cum[x.ae]
	}
	if !t.rootStatic {
		s.nxRoots(t, &cum)
	}
	switch {
	case kept == nil:
		s.fields = fs[:0]
		return fs, pos, true
	case cap(fs) == cap(kept):
		s.keep(t, fs)
	case s.nxUsed+cap(fs) <= s.nxRoom:
		// the elements outgrew the buffer (append moved it, the first
		// segment with it): keep the larger one within the budget
		// (the old buffer's room stays counted: it may lie in a chunk)
		s.keep(t, fs)
		s.nxUsed += cap(fs)
	default:
		// else copy t's fields per event from now on
		s.keep(t, nxNoKeep)
		return fs, pos, true
	}
	for i := range lens {
		lens[i] = uint32(cum[i+1]-cum[i]) + 1
	}
	return fs, pos, true
}

// nxRecount gives the kept event of template t (with arrays: its fields
// s.nxKept[t.num], whole, their counts in s.nxLens from t.lens on, the
// first nonzero) the count n for its array whose count is s.nxLens[sl]
// (the kept count n′ = s.nxLens[sl] − 1), the item of its segment si, in
// place: the array's field is at its template index plus the kept
// counts of the arrays before it (those of the event being read, which
// its caller found equal to them or recounted); the fields after its n′
// elements move by n − n′ within the buffer's capacity (nxArrKeep makes
// it with room for t's fields and 16 elements; nxArrays keeps a larger
// one it grew to) and their End values with them; the
// array's End and those of the structures that hold it (t.fix: before
// it, each at its template index plus the elements of the arrays before
// it) move by n − n′ too; the new elements (n > n′) are fields of the
// element class without a value (End, cls; V written by the caller). It
// sets the count in s.nxLens and the fields in nxKept, and returns them
// (the caller sets Event.Fields): the kept event, whole, of the counts
// it now holds, at least len(t.fields) + n fields (the values of the
// arrays' elements and of the fields after them are left for the caller
// to write). False, with nothing written, when the kept event is not
// whole (nxArrays rewrites it), n − n′ does not fit the capacity or the
// fields would pass the field limit (the walk checks it at every array:
// an event of at most s.limit fields passes each check; nxArrays checks
// more closely). Next's body calls it as the last thing it does (it
// then reads the record again, or ends tailArr8X in nxTailArr8X): none
// of its values is live across the call; nxRun goes on after it.
//
// The kept event's End values are the caller's to break (Event.Fields):
// this reads none of them, and writes only within the fields it returns.
func (s *Stream) nxRecount(t *nxProg, sl uint32, n uint64, si uint32) ([]Field, bool) {
	lens := s.nxLensOf(t)
	k := uint64(sl) - uint64(t.lens) // (t.lens ≥ 0 where lens is not empty)
	if k >= uint64(len(lens)) || lens[0] == 0 || uint64(t.num) >= uint64(len(s.nxKept)) || uint64(si) >= uint64(len(t.segs)) {
		return nil, false
	}
	fs := s.nxKept[t.num]
	// the array's field: its template index plus the elements of the
	// arrays before it (kept counts: 0 wraps to a large index, refused
	// below)
	dy := &t.segs[si].dyn
	if dy.code != nxArray {
		return nil, false // (not reached: si is the array's segment)
	}
	ai := uint64(dy.idx)
	for _, l := range lens[:k] {
		ai += uint64(l) - 1
	}
	n0, nf, c := uint64(lens[k])-1, uint64(len(fs)), uint64(cap(fs))
	// the array's field and its n′ elements within fs, the fields but
	// them at least t's (as in a whole kept event: Next's body subtracts
	// len(t.fields) from the length); the new length within the
	// capacity and the field limit (n ≤ c: no wrap)
	if ai >= nf || n0 > nf-ai-1 || nf-n0 < uint64(len(t.fields)) || n > c || nf-n0+n > c || nf-n0+n > uint64(s.limit) || nf-n0+n > math.MaxInt32 {
		return nil, false
	}
	nl := nf - n0 + n
	d := int32(nl) - int32(nf)
	out := fs[:nl]
	// the fields after the elements, from a = ai+1+n′ … nf-1 to b =
	// ai+1+n … nl-1, their End values moved (a field at a time, in the
	// order that reads each before it is overwritten: fewer
	// instructions than copy's call for the few fields after an array)
	if a, b := ai+1+n0, ai+1+n; b > a {
		for i := nl - 1; i >= b; i-- {
			f := fs[i-(b-a)]
			f.End += d
			out[i] = f
		}
	} else {
		for i := b; i < nl; i++ {
			f := fs[i+(a-b)]
			f.End += d
			out[i] = f
		}
	}
	if n > n0 {
		ecls := dy.ecls
		for i := ai + 1 + n0; i < ai+1+n; i++ {
			out[i] = Field{End: int32(i + 1), cls: ecls}
		}
	}
	out[ai].End = int32(ai + 1 + n)
	// the structures that hold the array (its arrays ai … ae-1 hold k)
	for i := range t.fix {
		x := &t.fix[i]
		if uint64(x.ai) > k || uint64(x.ae) <= k {
			continue
		}
		j := uint64(x.i)
		for a := int32(0); a < x.ai; a++ {
			j += uint64(lens[a]) - 1
		}
		if j < ai {
			out[j].End += d
		}
	}
	lens[k] = uint32(n) + 1
	kp := &s.nxKept[t.num]
	*kp = (*kp)[:nl] // (the length only: no write barrier; nl ≥ len(t.fields): the entry's bits stand, keep)
	return out, true
}

// nxRun outcomes
const (
	sameOK   = iota
	sameFail // where the decoding program might fail
	sameDiff // an array's count differs from the kept event's (beyond nxRecount's room)
	sameText // the item of segment nxAt.si is for nxText
)

// nxAt is where nxRun stops for nxText and resumes: the op after the
// string's, the string's segment, the elements and the arrays before it.
type nxAt struct {
	oi, si int
	delta  int32
	na     int
}

// fxOp is one step of a template's flat program (nxProg.ops), which nxRun
// runs: a segment's start, then its integers, the slots they fill and its
// item of variable size, segment after segment.
type fxOp struct {
	// fxInt, fxIntS, fxIntB: the value's mask and sign bit (its value is
	// 8 bytes from its byte on, >> its bit, & mask, sign-extended as
	// (x^sgn)-sgn); fxSeg: the segment's alignment minus 1 and its bits;
	// fxSlot: the slot; fxFix: zmask and the length
	mask, sgn uint64
	// fxInt, fxIntS: the value's byte offset from the segment's start
	// byte; fxIntB: its bit offset from the segment's start; fxSeg: the
	// bytes read from the start's byte on (nxSeg.need); items: the segment
	off uint32
	// fo is the byte offset of the template field from the first (its
	// index times the size of a Field: no multiplication per value)
	fo   uint32
	code uint8
	sh   uint8 // fxIntS: the value's bit in its byte
	// fxIntSl: the slot; an array's op in a hot program (an fxDyn of an
	// array, fxArrF, fxArr8, fxArr8X): the index of its count in the stream's
	// nxLens, nxProg.lens + the arrays before it (nxProg.heat) (in the
	// padding: fxOp stays 32 bytes)
	sl uint32
}

// fxOp codes
const (
	fxInt  = iota // an integer of a byte-aligned segment at a byte
	fxIntS        // an integer of a byte-aligned segment inside a byte (sh)
	fxIntB        // an integer of a segment whose start may lie inside a byte
	fxSlot        // the value of field fo goes to slot mask
	fxSeg         // a segment's start
	fxSegB        // a segment's start aligned to at most 8 bits after an item that ends on a byte: at the position (nxRun takes it as fxSeg)
	fxNul         // the segment's item: a null-terminated string nxRun may find in one word (nxDyn.word wordNul)
	fxFix         // the segment's item: a string (zmask mask) or BLOB of static length sgn ≤ 8 (wordFix)
	fxDyn         // the segment's other item of variable size (off: the segment)
	fxEnd         // the program's end (its last op, where nxRun's walk stops)
	// a hot program's joined ops (nxProg.hops, which only Next runs):
	fxIntSl // an fxInt and the fxSlot after it that takes its value (slot sl)
	fxNulB  // an fxNul and the fxSegB after it (the segment's need in mask, its bits in sgn)
	fxArrF  // an fxDyn, an array whose length is the value of the field at fo mask from the segment's fields (an fxInt of its segment, whose slot no other op reads)
	fxArr8  // an fxArrF of 8-bit elements (their sign bit in sgn), the array and its elements aligned to bytes
	fxArr8X // an fxArr8 and the fxFix right after it (which stays in the program: fxArr8X runs it, Next's loop skips it)
	fxNulBX // an fxNulB and the fxInt right after it (which stays in the program: fxNulBX runs it, Next's loop skips it)
	fxTxt   // a string (zmask mask) or BLOB of static length sgn (minTxt … 16) at byte off of a byte-aligned segment (nxVal.n)
	fxTxtL  // fxTxt of 17 … maxTxt bytes
	// nxRun's only (a template with them is not hot):
	fxF32   // a 32-bit floating-point number at byte off of a byte-aligned segment (nxVal valF32)
	fxIntBE // a big-endian integer at byte off of a byte-aligned segment, >> sh (nxVal valBE)
)

// fxOpSize is the size of an fxOp.
const fxOpSize = unsafe.Sizeof(fxOp{})

// flat returns the flat program of the segments segs of a template of n
// fields, or nil when a field index is not below n (nxRun's proof needs
// them below: not reached, after makes them so).
func flat(segs []nxSeg, n int) []fxOp {
	var ops []fxOp
	ok := true
	fo := func(idx int32) uint32 {
		ok = ok && idx >= 0 && int(idx) < n && uint64(idx)*uint64(fieldSize) <= math.MaxUint32
		return uint32(idx) * uint32(fieldSize)
	}
	for si := range segs {
		g := &segs[si]
		code := uint8(fxSeg)
		// (after a string or BLOB, aligned to bytes, or an array of
		// elements of 8 to 64 bits aligned to bytes, the position is on a
		// byte: (pos - base) is a multiple of 8, which an alignment of
		// at most 8 bits, base + (pos - base + am) &^ am, leaves as is)
		if d := &segs[max(si, 1)-1].dyn; si > 0 && g.am < 8 && d.code != 0 && d.am&7 == 7 && (d.code != nxArray || d.eam&7 == 7) {
			code = fxSegB
		}
		ops = append(ops, fxOp{code: code, mask: g.am, sgn: g.bits, off: uint32(g.need)})
		for _, v := range g.vals {
			switch {
			case v.n > 0:
				ops = append(ops, fxOp{code: fxTxt + uint8(min(v.n/17, 1)), mask: v.mask, sgn: uint64(v.n), off: v.off >> 3, fo: fo(v.idx)}) // (fxTxtL beyond 16 bytes)
			case v.kind == valF32:
				ops = append(ops, fxOp{code: fxF32, off: v.off >> 3, fo: fo(v.idx)})
			case v.kind == valBE:
				ops = append(ops, fxOp{code: fxIntBE, sgn: v.sgn, off: v.off >> 3, sh: v.sh, fo: fo(v.idx)})
			case !g.bytewise:
				ops = append(ops, fxOp{code: fxIntB, mask: v.mask, sgn: v.sgn, off: v.off, fo: fo(v.idx)})
			case v.off&7 != 0:
				ops = append(ops, fxOp{code: fxIntS, mask: v.mask, sgn: v.sgn, off: v.off >> 3, sh: uint8(v.off & 7), fo: fo(v.idx)})
			default:
				ops = append(ops, fxOp{code: fxInt, mask: v.mask, sgn: v.sgn, off: v.off >> 3, fo: fo(v.idx)})
			}
		}
		for _, sl := range g.slots {
			ops = append(ops, fxOp{code: fxSlot, mask: uint64(sl.slot), fo: fo(sl.idx)})
		}
		switch d := &g.dyn; {
		case d.code == 0:
		case d.word == wordNul:
			ops = append(ops, fxOp{code: fxNul, off: uint32(si), fo: fo(d.idx)})
		case d.word == wordFix:
			ops = append(ops, fxOp{code: fxFix, mask: d.zmask, sgn: d.length, off: uint32(si), fo: fo(d.idx)})
		default:
			ops = append(ops, fxOp{code: fxDyn, off: uint32(si), fo: fo(d.idx)})
		}
	}
	if !ok {
		return nil
	}
	return append(ops, fxOp{code: fxEnd})
}

// nxRun fills the fields fs of template t, which hold t's structure
// (the stream's copy of a template without arrays, lens nil; or, for a
// template with arrays, the whole kept event of t whose element counts are
// lens), from the class's bytes at bit pos: values, string and BLOB
// offsets and lengths, array lengths and elements only (the structure,
// End values and the field limit are in place), running t's flat program
// from op at.oi on; where an array's count differs from the kept
// event's, it recounts the kept event in place (nxRecount: *fsp, the
// stream's kept fields of t, then has the new length) and goes on. It
// returns the position after the fields and sameOK, or sameFail (where
// the decoding program might fail) or sameDiff (an array's count
// differs and nxRecount cannot recount it: nxArrays then rewrites the
// structure, and every field this wrote), or sameText and the position of a string or BLOB for nxText,
// where it stops (at: its segment, and the op after it, where nxRun
// resumes).
//
// One loop over the ops, an integer at the head of it (the common op):
// few values live in it, so the compiler keeps them in registers. It
// reads the bytes and writes the fields through unsafe pointers, each
// access covered by a check made once for all the accesses it covers:
//   - sp is the byte of the current segment's start st (dp + st>>3, dp
//     data's first byte); its integers are read as 8 bytes from byte
//     sp + off on (fxInt; fxIntB: from (st&7 + off)>>3 on); the segment's
//     check (st>>3)+need ≤ len(data), need being the largest off/8 + 8
//     (+ 1 when st may lie inside a byte), covers them all, and the n
//     bytes of its strings in place from sp + off on (fxTxt, fxTxtL:
//     off/8 + n ≤ need);
//   - a short string or BLOB is read as 8 bytes at byte pos>>3, after
//     the check (pos>>3)+8 ≤ len(data) (pos is byte-aligned there);
//   - the elements of an array, each of ebits/8 bytes from byte q>>3
//     (q byte-aligned: its class is byte-aligned and so is every packet's
//     start), lie within q + n·ebits ≤ end ≤ 8·len(data), both checked
//     there;
//   - fd is fs's field delta (fp + delta·size, fp its first field, delta
//     the elements of the arrays so far); every op's field is a template
//     index below len(t.fields) (flat makes no program otherwise), written
//     at fd + index·size (fo): delta + len(t.fields) ≤ len(fs), checked on
//     entry and again after each array's elements (fields cur … cur+n-1,
//     cur ≤ delta + len(t.fields)), covers them all.
func (s *Stream) nxRun(t *nxProg, fsp *[]Field, pos uint64, lens []uint32, at *nxAt) (uint64, int) {
	fs := *fsp
	ops := t.ops
	oi := at.oi
	if len(ops) == 0 {
		return 0, sameFail // (not reached: see flat)
	}
	if oi >= len(ops)-1 {
		return pos, sameOK // (at fxEnd)
	}
	// (not reached: every segment's ops, and so the program, start with
	// fxSeg, which sets sp, and nxRun resumes only after a segment's
	// item; fs holds t's fields after the arrays so far)
	nfs := uint64(len(fs))
	if c := ops[oi].code; c != fxSeg && c != fxSegB || uint64(at.delta)+uint64(len(t.fields)) > nfs {
		return 0, sameFail
	}
	// the loop's state but for the op, sp and fd, in memory (r: a
	// structure too large to live in registers): the ops other than
	// fxInt read and write it, the loop over fxInt keeps its few values
	// in registers
	var r fxRun
	r.pos, r.delta, r.na, r.lens = pos, uint64(at.delta), at.na, lens
	r.dp, r.fp, r.nfs = unsafe.Pointer(unsafe.SliceData(s.data)), unsafe.Pointer(unsafe.SliceData(fs)), nfs
	fd := unsafe.Add(r.fp, uintptr(r.delta)*fieldSize)
	var sp unsafe.Pointer // the current segment's start byte
	// op walks the ops from op oi to the last, fxEnd, at oe (a pointer:
	// no index and no bounds check per op; never past the ops)
	o0 := unsafe.Pointer(unsafe.SliceData(ops))
	oe := unsafe.Add(o0, uintptr(len(ops)-1)*fxOpSize)
	for op := unsafe.Add(o0, uintptr(oi)*fxOpSize); op != oe; op = unsafe.Add(op, fxOpSize) {
		o := (*fxOp)(op)
		if o.code == fxInt {
			x := le64(sp, uint64(o.off)) & o.mask
			(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = x ^ o.sgn - o.sgn
			continue
		}
		switch o.code {
		case fxIntS:
			x := le64(sp, uint64(o.off)) >> (o.sh & 63) & o.mask
			(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = x ^ o.sgn - o.sgn
			continue
		case fxIntB:
			q := r.stb + uint64(o.off)
			x := le64(sp, q>>3) >> (q & 7) & o.mask
			(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = x ^ o.sgn - o.sgn
			continue
		case fxSeg, fxSegB:
			base := s.base
			st := base + (r.pos-base+o.mask)&^o.mask
			if st+o.sgn > s.end || (st>>3)+uint64(o.off) > uint64(len(s.data)) {
				return 0, sameFail
			}
			sp, r.stb = unsafe.Add(r.dp, st>>3), st&7
			r.pos = st + o.sgn
			continue
		case fxSlot:
			s.slots[o.mask] = (*Field)(unsafe.Add(fd, uintptr(o.fo))).V
			continue
		case fxTxt:
			// a string or BLOB in place: its bytes within the
			// segment's need (checked at its start)
			f, p := (*Field)(unsafe.Add(fd, uintptr(o.fo))), unsafe.Add(sp, o.off)
			f.V, f.N = uint64(uintptr(p)-uintptr(r.dp)), uint32(txtLen(p, o.sgn, o.mask))
			continue
		case fxTxtL:
			f, p := (*Field)(unsafe.Add(fd, uintptr(o.fo))), unsafe.Add(sp, o.off)
			f.V, f.N = uint64(uintptr(p)-uintptr(r.dp)), uint32(txtLong(p, o.sgn, o.mask))
			continue
		case fxF32:
			(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = f32Bits(le64(sp, uint64(o.off)))
			continue
		case fxIntBE:
			(*Field)(unsafe.Add(fd, uintptr(o.fo))).V = beInt(le64(sp, uint64(o.off)), o.sh, o.sgn)
			continue
		case fxNul, fxFix:
			// a short string or BLOB from one word, without a call
			pos := r.pos
			i := pos >> 3
			if pos&7 == 0 && i+8 <= uint64(len(s.data)) {
				f := (*Field)(unsafe.Add(fd, uintptr(o.fo)))
				w := le64(r.dp, i)
				z := (w - 0x0101010101010101) &^ w & 0x8080808080808080
				if o.code == fxNul {
					// the first null byte (z's lowest flag), within
					// the content: what nulAt finds there
					q := pos + uint64(bits.TrailingZeros64(z)&^7)
					if z != 0 && q+8 <= s.end {
						f.V, f.N = i, uint32(q-pos)>>3
						r.pos = q + 8
						continue
					}
				} else if pos+o.sgn*8 <= s.end {
					// up to its first null byte (a string), 8 when
					// none (or a BLOB: zmask 0)
					n := uint64(bits.TrailingZeros64(z&o.mask) >> 3)
					f.V, f.N = i, uint32(min(n, o.sgn))
					r.pos = pos + o.sgn*8
					continue
				}
			}
		}
		d := &t.segs[o.off].dyn
		if d.code != nxArray {
			at.oi, at.si, at.delta, at.na = int((uintptr(op)-uintptr(o0))/fxOpSize)+1, int(o.off), int32(r.delta), r.na
			return r.pos, sameText
		}
		// the array: its length and elements (within the checks the
		// comment above proves)
		base := s.base
		pos := base + (r.pos-base+d.am)&^d.am
		n := d.length
		if d.src >= 0 {
			n = s.slots[d.src]
		}
		if r.na >= len(r.lens) || r.lens[r.na] != uint32(n)+1 {
			// another count: the kept event recounted in place, where
			// it fits (fs the stream's kept fields of t: lens not empty)
			if r.na >= len(r.lens) {
				return 0, sameDiff
			}
			nfs, ok := s.nxRecount(t, uint32(t.lens)+uint32(r.na), n, o.off)
			if !ok {
				return 0, sameDiff
			}
			*fsp, r.nfs = nfs, uint64(len(nfs))
		}
		cur := r.delta + uint64(d.idx) + 1
		fieldAt(r.fp, cur-1).V = n
		if n > 0 {
			end := s.end
			q := base + (pos-base+d.eam)&^d.eam
			// (with the fields of the template after them: the
			// invariant delta + len(t.fields) ≤ len(fs) holds on)
			if q > end || n > (end-q)>>d.elog || r.delta+n+uint64(len(t.fields)) > r.nfs || end > uint64(len(s.data))*8 {
				return 0, sameFail
			}
			pos = q + n<<d.elog
			fxElems(unsafe.Slice(fieldAt(r.fp, cur), n), unsafe.Add(r.dp, q>>3), d)
			r.delta += n
			fd = unsafe.Add(r.fp, uintptr(r.delta)*fieldSize)
		}
		r.pos = pos
		r.na++
	}
	return r.pos, sameOK
}

// fxRun is nxRun's state: the position, the elements of the arrays so
// far (delta) and the arrays (na), the kept counts, data's first byte,
// fs's first field and length, the bit of the current segment's start in
// its byte.
type fxRun struct {
	pos, delta uint64
	na         int
	lens       []uint32
	dp, fp     unsafe.Pointer
	nfs, stb   uint64
}

// fxHot is Next's fxRun: the position, the elements of the arrays so
// far (delta), the bit of the current segment's start in its byte (the
// kept counts: s.nxLens, at each array op's sl).
type fxHot struct {
	pos, delta uint64
	stb        uint64
}

// fxElems writes the elements el of array d from p on (len(el) elements
// of d.ebits bits, which nxRun checked lie within the data).
func fxElems(el []Field, p unsafe.Pointer, d *nxDyn) {
	switch d.ebits {
	case 8:
		for i := range el {
			x := uint64(*(*uint8)(p))
			el[i].V = x ^ d.esgn - d.esgn
			p = unsafe.Add(p, 1)
		}
	case 16:
		for i := range el {
			x := uint64(binary.LittleEndian.Uint16((*[2]byte)(p)[:]))
			el[i].V = x ^ d.esgn - d.esgn
			p = unsafe.Add(p, 2)
		}
	case 32:
		for i := range el {
			x := uint64(binary.LittleEndian.Uint32((*[4]byte)(p)[:]))
			el[i].V = x ^ d.esgn - d.esgn
			p = unsafe.Add(p, 4)
		}
	default:
		for i := range el {
			el[i].V = binary.LittleEndian.Uint64((*[8]byte)(p)[:])
			p = unsafe.Add(p, 8)
		}
	}
}

// fieldSize is the size of a Field.
const fieldSize = unsafe.Sizeof(Field{})

// le64 returns the little-endian 8 bytes from byte i of the memory p
// points to (the caller checked they lie within it).
func le64(p unsafe.Pointer, i uint64) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
}

// fieldAt returns field i of the fields p points to (the caller checked i
// is within them).
func fieldAt(p unsafe.Pointer, i uint64) *Field {
	return (*Field)(unsafe.Add(p, uintptr(i)*fieldSize))
}

// nxRootsOf sets the scope roots of the event from template t, whose
// arrays hold lens[k]-1 elements.
func (s *Stream) nxRootsOf(t *nxProg, lens []uint32) {
	var cum [maxNxArrays + 1]int32
	for k := range lens {
		cum[k+1] = cum[k] + int32(lens[k]) - 1
	}
	s.nxRoots(t, &cum)
}

// nxLensOf returns the element counts kept of template t (with arrays,
// kept by the stream: nxLens).
func (s *Stream) nxLensOf(t *nxProg) []uint32 {
	l := int(t.lens)
	if l < 0 || l+int(t.nArr) > len(s.nxLens) {
		return nil
	}
	return s.nxLens[l : l+int(t.nArr) : l+int(t.nArr)]
}

// at returns the value of v in data, of a segment that starts at bit st
// (the caller checked the segment's need).
func (v *nxVal) at(data []byte, st uint64) uint64 {
	q := st + uint64(v.off)
	k := q >> 3
	w := binary.LittleEndian.Uint64(data[k : k+8 : k+8])
	switch v.kind {
	case valF32:
		return f32Bits(w)
	case valBE:
		return beInt(w, v.sh, v.sgn)
	}
	x := w >> (q & 7) & v.mask
	return x ^ v.sgn - v.sgn
}

// beInt returns the big-endian integer in w's first bytes, read as
// little-endian (8 bytes from its first on), whose bits are 64 − sh,
// sign-extended by its sign bit sgn (0: unsigned).
func beInt(w uint64, sh uint8, sgn uint64) uint64 {
	x := bits.ReverseBytes64(w) >> (sh & 63)
	return x ^ sgn - sgn
}

// f32Bits returns the bits, as a float64's, of the 32-bit floating-point
// number in w's low 32 bits (what the decoding program writes).
func f32Bits(w uint64) uint64 {
	return math.Float64bits(float64(math.Float32frombits(uint32(w))))
}
