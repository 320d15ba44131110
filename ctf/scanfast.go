package ctf

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"
)

// Scan's body (Stream.Scan): Next's per-stream, per-class fast path
// (nextfast.go) without the fields. For LTTng's headers (a selID shape
// with a selector table), each selector value names a form (scForm) of
// the class it names after its option, or (an option with a class id
// field) a table of forms by class id: the record is the header's fixed
// bits and the class's first fixed-size fields (hbits), then at most a few
// items of variable size, each followed by fixed-size fields: a
// null-terminated string, or a sequence or dynamic-length string/BLOB
// whose length is a little-endian unsigned field at a fixed place before
// it. Scan checks every position it reaches against one per-packet limit
// (Stream.scLim: min(end, 8·(len(data) − 16)), so that the 16 bytes from
// the byte of a position p ≤ scLim lie within data): the header's 16
// bytes, a string's word and a length (before the item's start, which is
// checked) are read from a checked position. A form is made only where
// the skimming program (skim, whose checks are those of the decoding
// program or stricter) runs the same steps: its checks are those of the
// skimming program, with the content's end replaced by scLim (stricter),
// and the field limit checked for the record's whole count (stricter than
// the walk, which checks it at arrays only). Wherever a form does not
// apply or a check fails, Scan goes on as before (scanSel: the header
// read again, the class skimmed, else the record decoded), so that its
// outcome is what it was.

// maxScForms bounds the forms of a trace (hostile metadata: many options
// with a class id field, times many classes), maxScOps the skimming ops
// their making reads (the same class's after each such option);
// maxScItems the items of one.
const (
	maxScForms = 1 << 16
	maxScOps   = 1 << 22
	maxScItems = 16
	maxScBits  = 1 << 40 // the fixed-size bits of a form between two items
)

// scForm says how Scan skims a record of class ec after one header
// option (scItems: how the items are read).
type scForm struct {
	ec  *EventClass
	clk hdrAt // the option's clock field (mask 0: none; the clock stays)
	// hbits: the bits from the header's start to the first item's start,
	// or to the record's end (scEnd)
	hbits uint64
	kind  uint8 // scEnd, scNul, scLen (one item: it), scMore (it, then more)
	it    scItem
	// post: the fixed-size bits after the last item
	post uint64
	// maxCnt: the elements of counted arrays the record may hold within
	// the field limit (the limit less every other field)
	maxCnt uint64
	more   []scItem
}

// scItem is an item of variable size: a null-terminated string (itNul),
// or (itLen) n elements of 2^e bits (e ≥ 3), n a little-endian unsigned
// field at byte lb, bit lsh, & lmask from its anchor's byte (the header's
// start for the first item, the end of the item before for the others);
// pre is the bits from its anchor to its start.
type scItem struct {
	pre   uint64
	lmask uint64
	lb    uint64
	// maxN: the largest n (counted arrays: maxCnt; strings and BLOBs:
	// 2^32 − 1), ≤ 2^32 − 1: n·2^e ≤ 2^38 added to a position ≤ scLim
	// does not wrap (Scan checks the sum against scLim, no quotient)
	maxN uint64
	kind uint8
	lsh  uint8
	e    uint8
	cnt  bool // its elements are fields (counted against the field limit)
}

// scForm.kind
const (
	scEnd = iota
	scNul
	scLen
	scMore
)

// scItem.kind
const (
	itNul = 1 + iota
	itLen
)

// scHead is what a selector value names: the form of its class (an
// option without a class id field: the selector is the class id), or the
// forms by class id (ids, id: the option's class id field).
type scHead struct {
	f *scForm
	x *scIDs
}

type scIDs struct {
	ids []*scForm
	id  hdrAt
}

// compileScan gives the stream classes whose header has a selID shape with
// a selector table their table of Scan's forms (StreamClass.scSel).
func (t *Trace) compileScan() {
	limit := t.o.limits.MaxFieldsPerEvent
	forms, ops := 0, maxScOps
	for _, sc := range t.dscs {
		sc.scSel = nil
		h := sc.selShape
		if h == nil {
			continue
		}
		opts := selOptions(sc, h)
		if opts == nil {
			continue
		}
		// (a selector at the start of a byte: Scan's body reads it with
		// no shift; so do the traces seen, 1 235 stream classes of Trace
		// Compass's and babeltrace's)
		at, ok := h.pre.slot.at()
		if !ok || at.s != 0 {
			continue
		}
		sc.scAt = at
		byOpt := make([]*scIDs, len(h.opts))
		var tab []scHead
		for sel, k := range opts {
			if k < 0 {
				continue
			}
			o := &h.opts[k]
			var e scHead
			if o.id.mask == 0 {
				if forms < maxScForms {
					if e.f = scanForm(h, o, sc.EventClass(uint64(sel)), limit, &ops); e.f != nil {
						forms++
					}
				}
			} else {
				if byOpt[k] == nil {
					byOpt[k] = &scIDs{}
					if id, ok := o.id.at(); ok {
						byOpt[k].id = id
						for c, ec := range sc.small {
							if c >= maxFxIDs || forms >= maxScForms {
								break
							}
							f := scanForm(h, o, ec, limit, &ops)
							if f == nil {
								continue
							}
							for len(byOpt[k].ids) <= c {
								byOpt[k].ids = append(byOpt[k].ids, nil)
							}
							byOpt[k].ids[c] = f
							forms++
						}
					}
				}
				if len(byOpt[k].ids) > 0 {
					e.x = byOpt[k]
				}
			}
			if e.f == nil && e.x == nil {
				continue
			}
			if tab == nil {
				tab = make([]scHead, len(opts))
			}
			tab[sel] = e
		}
		for len(tab) > 0 && tab[len(tab)-1].f == nil && tab[len(tab)-1].x == nil {
			tab = tab[:len(tab)-1]
		}
		sc.scSel = tab
	}
}

// scanForm returns the form of class ec after option o of header shape h
// (field limit limit), or nil: from the class's skimming program, whose
// steps it takes (see above); nil too once the ops it may read (*ops, less
// those of the class) are spent.
func scanForm(h *hdrShape, o *hdrPart, ec *EventClass, limit int, ops *int) *scForm {
	if ec == nil || !ec.skippable || ec.how == 0 || len(ec.skip) > *ops {
		return nil
	}
	*ops -= len(ec.skip)
	clk, ok := o.clk.at()
	if !ok {
		return nil
	}
	f := &scForm{ec: ec, clk: clk}
	// c: the bits from the anchor (the header's start, aligned to
	// h.am+1, while first; then the end of the last item, on a byte)
	c, first := o.bits, true
	nf := uint64(o.n)
	type lenField struct {
		slot int32
		at   uint64 // bits from the anchor
		mask uint64
	}
	var lens []lenField // the fields with a slot since the anchor
	var items []scItem
	item := func(it scItem) bool {
		if c%8 != 0 || len(items) >= maxScItems {
			return false
		}
		it.pre = c
		items = append(items, it)
		c, first, lens = 0, false, nil
		return true
	}
	// length: the item of a dynamic length from slot src, read from the
	// last field since the anchor that the slot holds
	length := func(src int32, e uint8, maxN uint64, cnt bool) bool {
		for i := len(lens) - 1; i >= 0; i-- {
			if l := lens[i]; l.slot == src {
				if l.mask == 0 {
					return false
				}
				return item(scItem{kind: itLen, lb: l.at / 8, lsh: uint8(l.at % 8), lmask: l.mask, e: e, maxN: maxN, cnt: cnt})
			}
		}
		return false
	}
	for i := range ec.skip {
		op := &ec.skip[i]
		// (alignments relative to the packet's start: the anchor is
		// aligned to h.am+1, then to a byte, relative to it)
		am := op.am
		if am > 7 && (!first || am > h.am) {
			return nil
		}
		c = (c + am) &^ am
		switch op.code {
		case opSkip:
			c += op.size
			nf += uint64(op.n)
		case opFixed:
			if op.roles != 0 || op.tab != nil || op.class {
				return nil
			}
			if op.slot >= 0 {
				// (a length read with one 8-byte load: unsigned,
				// little-endian, within the 8 bytes from its byte;
				// else mask 0: no item reads it)
				l := lenField{slot: op.slot, at: c}
				if op.le && c%8+uint64(op.bits) <= 64 {
					l.mask = op.mask
				}
				lens = append(lens, l)
			}
			c += uint64(op.bits)
			nf += uint64(op.n)
		case opString:
			nf += uint64(op.n)
			if !item(scItem{kind: itNul, maxN: math.MaxUint32}) {
				return nil
			}
		case opBytes:
			nf += uint64(op.n)
			fc := op.fc
			if !fc.dynamic {
				if fc.Length > math.MaxUint32 {
					return nil
				}
				c += fc.Length * 8
				break
			}
			if !length(int32(fc.src), 3, math.MaxUint32, false) {
				return nil
			}
		case opArray:
			nf += uint64(op.n)
			fc := op.fc
			// (its first element where the array starts: an array is
			// aligned at least as its elements)
			if !op.fast || !fc.dynamic || op.ecls != 1 || op.size != uint64(op.bits) || op.eam > op.am {
				return nil
			}
			e := uint8(bits.TrailingZeros32(op.bits))
			if op.bits < 8 || op.bits > 64 || op.bits != 1<<e {
				return nil
			}
			if !length(int32(fc.src), e, 0, true) {
				return nil
			}
		default:
			return nil
		}
		if c > maxScBits {
			return nil
		}
	}
	if nf > uint64(limit) {
		return nil
	}
	f.maxCnt, f.post = uint64(limit)-nf, c
	for i := range items {
		if items[i].cnt {
			items[i].maxN = min(f.maxCnt, math.MaxUint32)
		}
	}
	switch {
	case len(items) == 0:
		f.kind, f.hbits = scEnd, c
	case len(items) == 1 && items[0].kind == itNul:
		f.kind, f.it = scNul, items[0]
	case len(items) == 1:
		f.kind, f.it = scLen, items[0]
	default:
		f.kind, f.it, f.more = scMore, items[0], items[1:]
	}
	if f.kind != scEnd {
		f.hbits = f.it.pre
	}
	return f
}

// Scan advances to the next event record as Next does, checking it as
// fully (sizes, class ids, selectors, lengths, string terminators, limits,
// clock updates: Scan and Next fail on the same records with the same
// errors) but without decoding its fields: Event.Fields is nil and the
// scope roots -1 until Event.Decode.
//
// Its body is the fast path for LTTng's headers (scanfast.go): the
// selector (and the class id) name the record's form (Stream.scTab), whose
// positions it checks against the packet's limit (Stream.scLim); the
// record's state (the event, the clock, the position, the count) is
// written once it is read whole. Elsewhere, scanSel.
func (s *Stream) Scan() bool {
	tab := s.scTab // (set: sel is set, the packet's start aligned to the header)
	if len(tab) == 0 {
		return s.scanSel()
	}
	h := s.sel
	start, lim := s.pos, s.scLim
	// (the header's start, base + (start-base+am)&^am, is (start+am)&^am:
	// scTab is set for a packet whose start is aligned to am+1 only;
	// hs < lim: at the packet's end, start ≥ end ≥ lim, scanSel starts
	// the next one)
	hs := (start + h.am) & h.nam
	if hs >= lim {
		return s.scanSel()
	}
	dp := unsafe.Pointer(unsafe.SliceData(s.data))
	hp := unsafe.Add(dp, hs>>3) // (16 bytes from it within data: hs ≤ scLim)
	a := &s.scAt
	sel := le64(hp, uint64(a.b)) & a.mask // (a.s is 0: compileScan)
	if sel >= uint64(len(tab)) {
		return s.scanSel()
	}
	e := &tab[sel]
	f := e.f
	if f == nil {
		x := e.x
		if x == nil {
			return s.scanSel()
		}
		id := le64(hp, uint64(x.id.b)) >> (x.id.s & 63) & x.id.mask
		if id >= uint64(len(x.ids)) {
			return s.scanSel()
		}
		if f = x.ids[id]; f == nil {
			return s.scanSel()
		}
	}
	pos := hs + f.hbits
	if pos > lim {
		return s.scanSel()
	}
	switch f.kind {
	case scEnd:
	case scNul:
		// the string at pos (on a byte), from one word when it is
		// short, else a word at a time, each from a position ≤ lim
		w := le64(dp, pos>>3)
		z := (w - 0x0101010101010101) &^ w & 0x8080808080808080
		if z == 0 {
			var ok bool
			if pos, z, ok = s.scanNul(pos, lim); !ok {
				return s.scanSel()
			}
		}
		pos += uint64(bits.TrailingZeros64(z)&^7) + 8 + f.post
		if pos > lim {
			return s.scanSel()
		}
	case scLen:
		// n elements of 2^e bits at pos, n read from the header's
		// bytes (before pos ≤ lim); n ≤ maxN: the sum does not wrap
		it := &f.it
		n := le64(hp, it.lb) >> (it.lsh & 63) & it.lmask
		if n > it.maxN {
			return s.scanSel()
		}
		pos += n<<(it.e&63) + f.post
		if pos > lim {
			return s.scanSel()
		}
	default:
		var ok bool
		if pos, ok = s.scanItems(f, hs, lim); !ok {
			return s.scanSel()
		}
	}
	clock0 := s.clock
	m := f.clk.mask
	clock := clock0 + (le64(hp, uint64(f.clk.b))>>(f.clk.s&63)&m-clock0)&m
	ev := &s.ev
	ev.Class, ev.Cycles, ev.Offset = f.ec, clock, start+uint64(s.dataOff)*8
	*(*[4]int32)(unsafe.Pointer(&ev.Header)) = [4]int32{-1, -1, -1, -1} // (Header … Payload)
	if ev.Fields != nil {
		ev.Fields = nil
	}
	s.evStart, s.evClock, s.scanned = start, clock0, true
	s.clock, s.pos = clock, pos
	s.scEvents++ // (the one count of the records read here: Stream.events)
	return true
}

// scanNul goes on with the string whose first word, at pos (on a byte,
// ≤ lim), holds no null byte: the position of the word that holds it and
// its flags (as Scan computes them), false when it lies past lim or the
// string is longer than 2^32 − 1 bytes.
func (s *Stream) scanNul(pos, lim uint64) (uint64, uint64, bool) {
	data := s.data
	p0 := pos
	for {
		pos += 64
		if pos > lim || pos-p0 > 8*math.MaxUint32-64 {
			return 0, 0, false
		}
		w := binary.LittleEndian.Uint64(data[pos>>3:])
		if z := (w - 0x0101010101010101) &^ w & 0x8080808080808080; z != 0 {
			return pos, z, true
		}
	}
}

// scanItems reads the items of form f (kind scMore) of the record whose
// header starts at hs, returning the position after its last fixed-size
// fields; false where Scan's checks fail (see above).
func (s *Stream) scanItems(f *scForm, hs, lim uint64) (uint64, bool) {
	data := s.data
	anchor, cnt := hs, uint64(0)
	for i := -1; i < len(f.more); i++ {
		it := &f.it
		if i >= 0 {
			it = &f.more[i]
		}
		pos := anchor + it.pre
		if pos > lim {
			return 0, false
		}
		switch it.kind {
		case itNul:
			w := binary.LittleEndian.Uint64(data[pos>>3:])
			z := (w - 0x0101010101010101) &^ w & 0x8080808080808080
			if z == 0 {
				var ok bool
				if pos, z, ok = s.scanNul(pos, lim); !ok {
					return 0, false
				}
			}
			pos += uint64(bits.TrailingZeros64(z)&^7) + 8
		default:
			n := binary.LittleEndian.Uint64(data[anchor>>3+it.lb:]) >> (it.lsh & 63) & it.lmask
			if n > it.maxN {
				return 0, false
			}
			if it.cnt {
				cnt += n
			}
			pos += n << (it.e & 63)
		}
		anchor = pos // (checked with what follows it: ≥ anchor)
	}
	pos := anchor + f.post
	if pos > lim || cnt > f.maxCnt {
		return 0, false
	}
	return pos, true
}
