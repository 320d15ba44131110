package ctf

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
)

// The skimming programs Stream.Scan runs: the same checks as the decoding
// programs (prog.go) without producing fields. Consecutive fields of a
// fixed size that no length, selector or role needs — integers, booleans,
// floats, structures and static-length arrays of them — are one opSkip: an
// alignment, a bit count and a field count. A skimming program is
// conservative: wherever it is unsure (a bound, a limit, a selector), it
// fails, and Scan decodes the record with the decoding program instead,
// which reports exactly what Next reports. A class with a field that has no
// skimming op (variable-length integers, optionals, a UUID) is decoded.
// Faster forms of the same: an event record header at fixed offsets
// (hdrShape: Scan, scanShaped; Next: selHeader), a class of fixed-size
// fields (EventClass.fixed), a lean program (leanProgram, skimLean).

// maxSkipBits bounds the size of one opSkip (2^40 bits).
const maxSkipBits = 1 << 40

// staticItem returns the alignment, size in bits and field count of a
// field class whose fields have a fixed size and that nothing refers to.
func staticItem(fc *FieldClass, depth int) (align, bits, cnt uint64, ok bool) {
	if depth > 64 {
		return 0, 0, 0, false
	}
	switch fc.Kind {
	case KindUint, KindSint, KindBool, KindFloat:
		if fc.slot >= 0 || fc.roles != 0 {
			return 0, 0, 0, false
		}
		return uint64(fc.Align), uint64(fc.Bits), 1, true
	case KindStruct:
		off, c := uint64(0), uint64(1)
		for _, m := range fc.Members {
			ma, mb, mc, ok := staticItem(m, depth+1)
			if !ok {
				return 0, 0, 0, false
			}
			off = (off+ma-1)&^(ma-1) + mb
			c += mc
			if off > maxSkipBits || c > 1<<30 {
				return 0, 0, 0, false
			}
		}
		return uint64(fc.Align), off, c, true
	case KindArray:
		if fc.dynamic || len(fc.Members) == 0 {
			return 0, 0, 0, false
		}
		ea, eb, ec, ok := staticItem(fc.Members[0], depth+1)
		if !ok {
			return 0, 0, 0, false
		}
		n := fc.Length
		if n == 0 {
			return uint64(fc.Align), 0, 1, true
		}
		stride := (eb + ea - 1) &^ (ea - 1)
		if n > 1<<30 || stride > 0 && n-1 > maxSkipBits/stride || ec*n > 1<<30 {
			return 0, 0, 0, false
		}
		return uint64(fc.Align), (n-1)*stride + eb, 1 + ec*n, true
	}
	return 0, 0, 0, false
}

type skimCompiler struct{ ok bool }

// item appends a fixed-size item, merging it into the previous opSkip when
// its alignment is at most that op's first alignment (its offset from the
// op's start is then fixed).
func (sc *skimCompiler) item(out []op, align, bits, cnt uint64) []op {
	if k := len(out) - 1; k >= 0 && out[k].code == opSkip && align-1 <= out[k].am {
		o := &out[k]
		off := (o.size+align-1)&^(align-1) + bits
		if off <= maxSkipBits {
			o.size, o.n = off, o.n+int32(cnt)
			return out
		}
	}
	return append(out, op{code: opSkip, am: align - 1, size: bits, n: int32(cnt)})
}

// add appends o to out, folding a preceding zero-size opSkip (the start
// of a structure: an alignment and a field) into it. Ops count their
// fields in n.
func (sc *skimCompiler) add(out []op, o op) []op {
	if k := len(out) - 1; k >= 0 && out[k].code == opSkip && out[k].size == 0 {
		o.am = max(o.am, out[k].am)
		o.n += out[k].n
		out[k] = o
		return out
	}
	return append(out, o)
}

// compile appends the skimming ops of fc to out.
func (sc *skimCompiler) compile(fc *FieldClass, out []op, depth int) []op {
	if !sc.ok || depth > 64 {
		sc.ok = false
		return out
	}
	if a, b, c, ok := staticItem(fc, 0); ok {
		return sc.item(out, a, b, c)
	}
	am := uint64(fc.Align) - 1
	switch fc.Kind {
	case KindUint, KindSint, KindBool, KindFloat:
		if fc.roles&^(roleClock|roleERCID) != 0 {
			break // packet roles: decoded
		}
		o := fixedOp(fc)
		o.n = 1
		return sc.add(out, o)
	case KindStruct:
		out = sc.item(out, uint64(fc.Align), 0, 1)
		for _, m := range fc.Members {
			out = sc.compile(m, out, depth+1)
		}
		return out
	case KindArray:
		if len(fc.Members) == 0 {
			break
		}
		el := fc.Members[0]
		o := op{code: opArray, am: am, fc: fc, n: 1}
		if ea, eb, ec, ok := staticItem(el, 0); ok {
			o.fast, o.eam, o.bits, o.size, o.ecls = true, ea-1, uint32(min(eb, math.MaxUint32)), (eb+ea-1)&^(ea-1), int32(ec)
			if eb > math.MaxUint32 {
				break
			}
		} else {
			o.sub = sc.compile(el, nil, depth+1)
		}
		return sc.add(out, o)
	case KindVariant:
		v := op{code: opVariant, am: am, fc: fc, tab: selectorTable(fc), n: 1, src: int32(fc.src)}
		k := len(out) - 1
		if k >= 0 && am == 0 && v.tab != nil && out[k].code == opFixed && out[k].slot == v.src && out[k].tab == nil {
			// the selector just before the variant (LTTng's id and v): one op
			out[k].tab, out[k].n = v.tab, out[k].n+1
		} else {
			out = sc.add(out, v)
			k = len(out) - 1
		}
		var jumps []int
		opts := make([]int32, len(fc.Members))
		for i, m := range fc.Members {
			opts[i] = int32(len(out))
			out = sc.compile(m, out, depth+1)
			jumps = append(jumps, len(out))
			out = append(out, op{code: opJump})
		}
		for _, j := range jumps {
			out[j].target = int32(len(out))
		}
		out[k].opts = opts
		return out
	case KindString, KindBlob:
		if fc.enc != encUTF8 {
			break // UTF-16/UTF-32 text is checked by the full decoder
		}
		if fc.nulStr {
			return sc.add(out, op{code: opString, am: am, fc: fc, n: 1})
		}
		if fc.roles == 0 {
			return sc.add(out, op{code: opBytes, am: am, fc: fc, n: 1})
		}
	}
	sc.ok = false
	return out
}

// compileSkims gives each data stream class's event record header and each
// event record class their skimming programs (nil, skippable false: Scan
// decodes them).
func (t *Trace) compileSkims() {
	prog := func(out []op, fcs ...*FieldClass) ([]op, bool) {
		sc := &skimCompiler{ok: true}
		for _, fc := range fcs {
			if fc != nil {
				out = sc.compile(fc, out, 0)
			}
		}
		return out, sc.ok
	}
	for _, sc := range t.dscs {
		if p, ok := prog(nil, sc.Header); ok && sc.Header != nil {
			p = append(p, op{code: opClass})
			targets := map[int]bool{}
			for i := range p {
				if p[i].code == opJump && int(p[i].target) == len(p)-1 {
					p[i] = op{code: opClass}
				}
				for _, t := range p[i].opts {
					targets[int(t)] = true
				}
			}
			for i := 1; i < len(p); i++ {
				// an integer just before the end of the header (its
				// timestamp) goes on with the class itself
				if p[i].code == opClass && !targets[i] && p[i-1].code == opFixed && p[i-1].tab == nil {
					p[i-1].class = true
				}
			}
			sc.hdrSkip = p
			sc.hdrShape = headerShape(sc.Header)
			if sc.hdrShape != nil && sc.hdrShape.selID {
				sc.selShape = sc.hdrShape
			}
		}
		cc, ccOK := prog(nil, sc.CommonContext)
		for _, ec := range sc.events {
			var start []op
			switch {
			case !ccOK:
				continue
			case len(cc) <= maxInlineOps:
				start = relocate(nil, cc)
			default:
				start = []op{{code: opCall, sub: cc}}
			}
			ec.skip, ec.skippable = prog(start, ec.SpecificContext, ec.Payload)
			if !ec.skippable {
				ec.skip = nil
			}
			ec.lean, ec.leanTail = leanProgram(ec.skip)
			switch {
			case !ec.skippable:
			case len(ec.skip) == 0:
				ec.fixed = true
			case len(ec.skip) == 1 && ec.skip[0].code == opSkip:
				o := &ec.skip[0]
				ec.fixed, ec.fixAM, ec.fixBits, ec.fixN = true, o.am, o.size, int(o.n)
			}
			switch {
			case !ec.skippable:
			case ec.fixed:
				ec.how = skimFixed
			case ec.lean != nil:
				ec.how = skimLean
			default:
				ec.how = skimProg
			}
		}
	}
}

// leanProgram returns skimming program p as a lean program, or nil when p
// holds ops a lean program has not: a lean program is only fixed-length
// fields that a slot holds, strings, BLOBs, arrays of fixed-size elements
// and fixed-size fields (each opSkip folded into the op after it, as its
// pam and pre, or, at the end, into tail; a fast array whose length is the
// unsigned field just before it into that field's op, as its sub), and
// skimLean runs it with fewer instructions per op than skim.
func leanProgram(p []op) (lean []op, tail op) {
	var out []op
	var pend *op // an opSkip not folded yet
	for _, o := range p {
		switch {
		case o.code == opSkip:
			if pend != nil {
				out = append(out, *pend)
			}
			pend = &op{code: opSkip, pam: o.am, pre: o.size, n: o.n}
		case o.code == opArray && o.fast && o.fc.dynamic && len(out) > 0 && pend == nil && out[len(out)-1].code == opFixed &&
			out[len(out)-1].sub == nil && out[len(out)-1].slot == int32(o.fc.src) && !out[len(out)-1].sign:
			// a sequence just after its length (LTTng's __x_length and
			// x): one op
			out[len(out)-1].sub = []op{o}
			out[len(out)-1].n += o.n
		case o.code == opFixed && o.roles == 0 && o.tab == nil && !o.class,
			o.code == opString, o.code == opBytes, o.code == opArray && o.fast:
			if pend != nil {
				o.pam, o.pre, o.n = pend.pam, pend.pre, o.n+pend.n
				pend = nil
			}
			out = append(out, o)
		default:
			return nil, op{}
		}
	}
	if pend != nil {
		tail = *pend
	}
	// the ops' field counts are all added to the tail's (skimLean adds
	// counts only, and checks them after the tail)
	total := int64(tail.n)
	for i := range out {
		total += int64(out[i].n)
		out[i].n = 0
	}
	if total > math.MaxInt32 {
		return nil, op{}
	}
	tail.n = int32(total)
	return out, tail
}

// how Scan skims an event record class (classCode.how)
const (
	skimFixed = 1 + iota // in one step (fixed)
	skimLean             // with skimLean
	skimProg             // with skim
)

// skimLean runs a lean program (leanProgram) with tail at bit pos, n
// fields counted, as skim runs the program it comes from, returning the
// position and count after it. A folded opSkip is not checked against the
// packet content at once: the position only grows, every op checks its
// own bounds before it reads, and Scan checks the end position. The
// callers have checked pos ≤ s.end. leanRun runs the ops without a call
// (the loop's values stay in registers); leanRest reads the fields it
// cannot read inline.
func (s *Stream) skimLean(prog []op, tail *op, pos uint64, n int) (uint64, int, bool) {
	i, r, n, st := s.leanRun(prog, 0, pos-s.base, n)
	if st != leanDone {
		var ok bool
		if r, n, ok = s.leanRest(prog, i, r, n, st); !ok {
			return 0, 0, false
		}
	}
	return s.base + (r+tail.pam)&^tail.pam + tail.pre, n + int(tail.n), true
}

// leanRest goes on with lean program prog where leanRun stopped with st
// at op i (r, n: its position and count), reading each field leanRun
// cannot read (fixedValue), to the program's end.
//
//go:noinline
func (s *Stream) leanRest(prog []op, i int, r uint64, n int, st int) (uint64, int, bool) {
	lim := s.end - s.base
	maxLn := s.maxLn
	for st == leanSlow {
		// the fixed-length field of prog[i] at r (aligned and in bounds)
		o := &prog[i]
		var ok bool
		if r, n, ok = s.leanFixed(o, fixedValue(s.data, s.base+r, o), r, lim, maxLn, n); !ok {
			return 0, 0, false
		}
		i, r, n, st = s.leanRun(prog, i+1, r, n)
	}
	return r, n, st == leanDone
}

// leanRun results
const (
	leanDone = iota // the program's end
	leanFail        // the walk might fail
	leanSlow        // the field of prog[i] at r needs fixedValue
)

// leanRun runs lean program prog from op i at bit r from the packet's
// start (positions are relative to it: the alignments are), n fields
// counted. It calls nothing, so the loop's values stay in registers.
func (s *Stream) leanRun(prog []op, i int, r uint64, n int) (int, uint64, int, int) {
	// the data's cap cut to its length: one register fewer (data[k:]
	// needs no cap of its own), fewer values spilled
	data, base, end := s.data[:len(s.data):len(s.data)], s.base, s.end
	lim := end - base
	maxLn := s.maxLn
	for ; i < len(prog); i++ {
		o := &prog[i]
		r = (r+o.pam)&^o.pam + o.pre
		r = (r + o.am) &^ o.am
		switch o.code {
		case opFixed:
			if r+uint64(o.bits) > lim {
				return i, r, n, leanFail
			}
			v, ok := fastLE(data, base+r, o)
			if !ok {
				return i, r, n, leanSlow
			}
			// leanFixed, inline (it is too large to be inlined)
			r += uint64(o.bits)
			if o.slot >= 0 {
				s.slots[o.slot] = v
			}
			if o.sub != nil {
				a := &o.sub[0]
				r = (r + a.am) &^ a.am
				if r, ok = arraySpan(a, v, r, lim, maxLn); !ok {
					return i, r, n, leanFail
				}
				n += int(v) * int(a.ecls)
			}
		case opString:
			// the first null byte from j on, eight bytes at a time (the
			// lowest byte the test flags is the first null one), the last
			// fewer than eight one at a time
			j, e := (base+r)>>3, end>>3
			k := j
			for {
				if k >= e {
					return i, r, n, leanFail
				}
				if k+8 > uint64(len(data)) {
					for k < e && k < uint64(len(data)) && data[k] != 0 {
						k++
					}
					if k >= e || k >= uint64(len(data)) {
						return i, r, n, leanFail
					}
					break
				}
				w := binary.LittleEndian.Uint64(data[k:])
				if z := (w - 0x0101010101010101) &^ w & 0x8080808080808080; z != 0 {
					k += uint64(bits.TrailingZeros64(z) >> 3)
					if k >= e {
						return i, r, n, leanFail
					}
					break
				}
				k += 8
			}
			if k-j > math.MaxUint32 {
				return i, r, n, leanFail
			}
			r = (k+1)*8 - base
		case opBytes:
			ln := o.fc.Length
			if o.fc.dynamic {
				ln = s.slots[o.fc.src]
			}
			if r > lim || ln > (lim-r)/8 || ln > math.MaxUint32 {
				return i, r, n, leanFail
			}
			r += ln * 8
		case opArray:
			ln := o.fc.Length
			if o.fc.dynamic {
				ln = s.slots[o.fc.src]
			}
			var ok bool
			if r, ok = arraySpan(o, ln, r, lim, maxLn); !ok {
				return i, r, n, leanFail
			}
			n += int(ln) * int(o.ecls)
		}
	}
	return i, r, n, leanDone
}

// leanFixed ends the fixed-length field of lean op o at bit r, of value v:
// its slot, and the sequence of this length after it (o.sub), returning
// the position and count after them.
func (s *Stream) leanFixed(o *op, v, r, lim, maxLn uint64, n int) (uint64, int, bool) {
	r += uint64(o.bits)
	if o.slot >= 0 {
		s.slots[o.slot] = v
	}
	if o.sub != nil {
		a := &o.sub[0]
		r = (r + a.am) &^ a.am
		var ok bool
		if r, ok = arraySpan(a, v, r, lim, maxLn); !ok {
			return 0, 0, false
		}
		n += int(v) * int(a.ecls)
	}
	return r, n, true
}

// arraySpan skims the fast array of o (lean: its field counted
// already) of ln elements at bit r of the packet (aligned to o.am+1) (lim: the end of its
// content), returning the position after it. Above maxLn (the field
// limit, at most 2^31) it fails (the walk may fail there; Scan checks the total too), so the
// products below stay small; there is no division. Small enough to be
// inlined into skimLean (no call there: fewer values spilled).
func arraySpan(o *op, ln, r, lim, maxLn uint64) (uint64, bool) {
	if ln > maxLn {
		return 0, false
	}
	if ln == 0 {
		return r, true
	}
	first := (r + o.eam) &^ o.eam
	hi, total := bits.Mul64(ln-1, o.size)
	total += uint64(o.bits)
	if hi != 0 || total < uint64(o.bits) || first > lim || total > lim-first {
		return 0, false
	}
	return first + total, true
}

// hdrShape is an event record header whose fields all lie at fixed bit
// offsets from its aligned start, with at most one variant, its last
// member, whose options are such fields too: LTTng's compact and large
// headers (a selector id, then a timestamp or an id and a timestamp), a
// CTF 2 header of an id and a timestamp. Scan reads it with one bounds
// check per part (scanHeader) instead of running its skimming program.
type hdrShape struct {
	am   uint64      // alignment minus 1 (a whole number of bytes)
	nam  uint64      // ^am (Next)
	pre  hdrPart     // the members before the variant (every member without one)
	src  int         // the variant's selector slot (-1: no variant)
	v    *FieldClass // the variant
	tab  []int8      // the variant's option of each selector value (selectorTable), when it has one
	opts []hdrPart
	// selID: the members before the variant are one field, its selector,
	// which is also the class id (LTTng's compact and large headers), and
	// no option's field has a slot
	selID bool
	// idOnly: no variant; the selector (pre.slot) is the class id field
	// (no slot: pre.slot.slot is -1), opts the whole header (pre holds no
	// clock): a selID shape of one option
	idOnly bool
	tmpl   []hdrTmpl // selID: each option's decoded header (Next), when templates made them
	selAt  hdrAt     // the selector (pre.slot) read with one load (Next; selTable sets it)
}

// option returns the variant's option for selector value sel, or -1
// (idOnly: 0).
func (h *hdrShape) option(sel uint64) int {
	if h.idOnly {
		return 0
	}
	if sel < uint64(len(h.tab)) {
		return int(h.tab[sel])
	}
	if h.tab != nil {
		return -1 // above every range
	}
	for k, rs := range h.v.optRange {
		if inRanges(rs, sel, h.v.srcSign) {
			return k
		}
	}
	return -1
}

// hdrPart is a run of header fields: bits is the header's size up to the
// part's end, n its field count up to there; slot is its field that a
// slot holds, id its event record class id field and clk its clock field
// (at most one of each; mask 0: none).
type hdrPart struct {
	bits          uint64
	n             int
	slot, id, clk hdrField
}

// hdrField is an unsigned little-endian field within the header's first
// 16 bytes, at bit sh < 64: its value is the 128-bit w1:w0 >> sh, & mask.
type hdrField struct {
	sh   uint8
	mask uint64
	slot int32
}

// get returns the value of f from the header's first 16 bytes, w0 and w1
// (little-endian words). w1<<1<<(63-sh) is w1<<(64-sh) for sh > 0 and 0
// for sh = 0 (Go's w1<<64 is 0 too, but costs a test); mask cuts the bits
// of w1 above the field. A field from bit 64 on (Score-P's timestamp,
// after a 64-bit id) lies in w1 alone.
func (f *hdrField) get(w0, w1 uint64) uint64 {
	if f.sh >= 64 {
		return w1 >> (f.sh & 63) & f.mask
	}
	return (w0>>(f.sh&63) | w1<<1<<(^f.sh&63)) & f.mask
}

// maxShapeBits bounds the size of a header read by scanHeader.
const maxShapeBits = 1 << 16

// headerShape returns the fixed-offset form of the event record header
// fc, or nil when it has none.
func headerShape(fc *FieldClass) *hdrShape {
	if fc == nil || fc.Kind != KindStruct || fc.Align%8 != 0 {
		return nil
	}
	h := &hdrShape{am: uint64(fc.Align) - 1, nam: ^(uint64(fc.Align) - 1), src: -1}
	ms := fc.Members
	var v *FieldClass
	if k := len(ms) - 1; k >= 0 && ms[k].Kind == KindVariant {
		v, ms = ms[k], ms[:k]
	}
	h.pre.n = 1 // the structure
	for _, m := range ms {
		if !h.lay(&h.pre, m, 0) {
			return nil
		}
	}
	if v == nil {
		// a header of fixed fields only: with a class id field and a
		// clock field (and no slot: no length or selector in it), as
		// DPDK's, Score-P's and CTF 2 headers of an id and a timestamp,
		// the class id is the selector of one option, the whole header
		// (idOnly): Next's templates and Scan's forms read it as they
		// read LTTng's headers
		if pre := &h.pre; pre.id.mask != 0 && pre.clk.mask != 0 && pre.slot.mask == 0 {
			h.opts = []hdrPart{{bits: pre.bits, n: pre.n, clk: pre.clk}}
			pre.slot, pre.clk = pre.id, hdrField{}
			h.idOnly, h.selID = true, true
			h.templates(fc)
		}
		return h
	}
	if len(v.Members) == 0 || len(v.Members) != len(v.optRange) || uint64(v.Align) > h.am+1 {
		return nil
	}
	h.src, h.v, h.tab = v.src, v, selectorTable(v)
	a := uint64(v.Align)
	start := (h.pre.bits + a - 1) &^ (a - 1)
	for _, m := range v.Members {
		o := hdrPart{bits: start, n: h.pre.n + 1} // with the variant
		if !h.lay(&o, m, 0) {
			return nil
		}
		h.opts = append(h.opts, o)
	}
	pre := &h.pre
	h.selID = pre.slot.mask != 0 && pre.slot == pre.id && pre.slot.slot == int32(h.src) && pre.clk.mask == 0
	for _, o := range h.opts {
		h.selID = h.selID && o.slot.mask == 0
	}
	if h.selID {
		h.templates(fc)
	}
	return h
}

// shapeField returns the hdrField of unsigned integer field class fc at
// bit offset off from the header's start, false when it is not one.
func shapeField(fc *FieldClass, off uint64) (hdrField, bool) {
	if fc.Kind != KindUint || fc.BigEndian || fc.Bits == 0 || off+uint64(fc.Bits) > 128 {
		return hdrField{}, false
	}
	f := hdrField{sh: uint8(off), mask: math.MaxUint64, slot: int32(fc.slot)}
	if fc.Bits < 64 {
		f.mask = 1<<fc.Bits - 1
	}
	return f, true
}

// hdrTmpl is the decoded header of one option of a selID shape: its
// fields with every value but the integers' (vals: their index in fields
// and where they lie). Next copies it and fills the integers in.
type hdrTmpl struct {
	fields []Field
	vals   []hdrVal
}

type hdrVal struct {
	idx int
	f   hdrField
}

// templates gives h (selID) the header fields of each option as the
// decoding program builds them, when every field of the header is a
// structure, the variant or an unsigned integer (else h.tmpl stays nil).
func (h *hdrShape) templates(hdr *FieldClass) {
	var t hdrTmpl
	var rec func(fc *FieldClass, k int, off uint64, depth int) (uint64, bool)
	rec = func(fc *FieldClass, k int, off uint64, depth int) (uint64, bool) {
		if depth > 16 {
			return 0, false
		}
		a := uint64(fc.Align)
		off = (off + a - 1) &^ (a - 1)
		idx := len(t.fields)
		switch fc.Kind {
		case KindUint:
			f, ok := shapeField(fc, off)
			t.fields = append(t.fields, Field{End: int32(idx + 1), cls: fc.id})
			t.vals = append(t.vals, hdrVal{idx, f})
			return off + uint64(fc.Bits), ok
		case KindStruct, KindVariant:
			t.fields = append(t.fields, Field{V: uint64(len(fc.Members)), cls: fc.id})
			ms := fc.Members
			if fc.Kind == KindVariant {
				if k < 0 || k >= len(ms) {
					return 0, false
				}
				t.fields[idx].V, ms = uint64(k), ms[k:k+1]
			}
			for _, m := range ms {
				var ok bool
				if off, ok = rec(m, k, off, depth+1); !ok {
					return 0, false
				}
			}
			t.fields[idx].End = int32(len(t.fields))
			return off, true
		}
		return 0, false
	}
	var ts []hdrTmpl
	for k := range h.opts {
		t = hdrTmpl{}
		if end, ok := rec(hdr, k, 0, 0); !ok || end != h.opts[k].bits || len(t.fields) != h.opts[k].n {
			return
		}
		ts = append(ts, t)
	}
	h.tmpl = ts
}

// lay appends field class fc to part o; false when fc is not at a fixed
// offset or holds what scanShaped does not read.
func (h *hdrShape) lay(o *hdrPart, fc *FieldClass, depth int) bool {
	a := uint64(fc.Align)
	if a > h.am+1 || depth > 16 {
		return false
	}
	off := (o.bits + a - 1) &^ (a - 1)
	if _, b, c, ok := staticItem(fc, 0); ok {
		o.bits, o.n = off+b, o.n+int(c)
		return o.bits <= maxShapeBits
	}
	switch fc.Kind {
	case KindUint:
		f, ok := shapeField(fc, off)
		if !ok || fc.roles != 0 && fc.roles != roleClock && fc.roles != roleERCID {
			return false
		}
		switch fc.roles {
		case roleClock:
			if o.clk.mask != 0 {
				return false
			}
			o.clk = f
		case roleERCID:
			if o.id.mask != 0 {
				return false
			}
			o.id = f
		}
		if f.slot >= 0 {
			if o.slot.mask != 0 {
				return false
			}
			o.slot = f
		}
		o.bits, o.n = off+uint64(fc.Bits), o.n+1
		return o.bits <= maxShapeBits
	case KindStruct:
		o.bits, o.n = off, o.n+1
		for _, m := range fc.Members {
			if !h.lay(o, m, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// selHeader decodes the event record header at bit start (Next), whose
// shape h has selID and templates (LTTng's headers), as the decoding
// program does: the selector, which is the class id, picks the option,
// whose id and clock fields follow; its fields are appended from the
// option's template. False where the decoding program might fail (Next
// then runs it). scanSel reads the same header inline (skimming the class
// after it).
func (s *Stream) selHeader(h *hdrShape, start uint64) bool {
	hs, w0, w1, ok := h.words(s.data, s.base, start)
	if !ok {
		return false
	}
	f := &h.pre.slot
	id := f.get(w0, w1)
	if f.slot >= 0 {
		s.slots[f.slot] = id
	}
	k := h.option(id)
	if k < 0 {
		return false
	}
	p := &h.opts[k]
	pos := hs + p.bits
	if pos > s.end {
		return false
	}
	if p.id.mask != 0 {
		id = p.id.get(w0, w1)
	}
	s.pos, s.clock, s.ercID, s.haveERCID = pos, p.clock(s.clock, w0, w1), id, true
	s.selFields(&h.tmpl[k], w0, w1)
	return true
}

// words returns the bit position of the header of shape h at bit start
// of data (packet at bit base) and its first 16 bytes as two
// little-endian words; false when fewer than 16 bytes follow.
func (h *hdrShape) words(data []byte, base, start uint64) (hs, w0, w1 uint64, ok bool) {
	hs = base + (start-base+h.am)&^h.am
	j := hs >> 3
	if j+16 > uint64(len(data)) || j+16 < j {
		return 0, 0, 0, false
	}
	w := data[j : j+16 : j+16]
	return hs, binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:]), true
}

// clock returns the clock after the clock field of p (if any) in the
// header's first 16 bytes w0, w1, from clock (updateClock: the low bits,
// plus 2^bits when they went back).
func (p *hdrPart) clock(clock, w0, w1 uint64) uint64 {
	if m := p.clk.mask; m != 0 {
		// the clock advanced by (v − clock) mod m+1 (m is 2^bits − 1):
		// the clock's bits of the field replaced by v, plus m+1 when v
		// is below them (the new value below the clock: its higher bits
		// are the same)
		return clock + (p.clk.get(w0, w1)-clock)&m
	}
	return clock
}

// scanSel is Scan where its body (scanfast.go) does not skim the
// record.
//
// Here is its path for headers of a shape with selID (LTTng's headers),
// while the packet's shape is current (s.sel): the whole record in this
// function (no call but to skim the class where it is not fixed): the
// selector, which is the class id, picks the option, whose id and clock
// fields follow; then the class it names. It does what scanShaped and
// scanGeneral do. Where the decoding program might fail, replay decodes
// the record (the slot written is written again). scanGeneral is the
// rest.
func (s *Stream) scanSel() bool {
	h := s.sel
	if h == nil || s.pos >= s.end {
		return s.scanGeneral()
	}
	start, clock0 := s.pos, s.clock
	sc := s.pkt.Class
	base, end, data := s.base, s.end, s.data
	hs := base + (start-base+h.am)&^h.am
	j := hs >> 3
	if j+16 > uint64(len(data)) || j+16 < j {
		return s.replay(start, clock0)
	}
	w := data[j : j+16 : j+16] // one bounds check for both words
	w0, w1 := binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
	f := &h.pre.slot
	id := f.get(w0, w1)
	if f.slot >= 0 {
		s.slots[f.slot] = id
	}
	k := h.option(id)
	if k < 0 {
		return s.replay(start, clock0)
	}
	p := &h.opts[k]
	pos := hs + p.bits
	if pos > end {
		return s.replay(start, clock0)
	}
	if p.id.mask != 0 {
		id = p.id.get(w0, w1)
	}
	clock := p.clock(clock0, w0, w1)
	var ec *EventClass
	if id < uint64(len(sc.small)) {
		ec = sc.small[id]
	} else {
		ec = sc.events[id]
	}
	if ec == nil || ec.how == 0 {
		return s.replay(start, clock0)
	}
	// the event and the clock before the class is skimmed (fewer values
	// live across the calls below): where it fails, replay restores the
	// clock and decodes the record, writing the event again
	ev := &s.ev
	ev.Class, ev.Cycles, ev.Offset = ec, clock, start+uint64(s.dataOff)*8
	ev.Header, ev.CommonContext, ev.SpecificContext, ev.Payload = -1, -1, -1, -1
	if ev.Fields != nil {
		ev.Fields = nil
	}
	s.evStart, s.evClock, s.scanned, s.clock = start, clock0, true, clock
	nf := p.n
	switch c := ec.classCode; c.how {
	case skimFixed:
		pos = base + (pos-base+c.fixAM)&^c.fixAM + c.fixBits
		nf += c.fixN
	case skimLean:
		// skimLean, inline
		i, r, n, st := s.leanRun(c.lean, 0, pos-base, nf)
		if st != leanDone {
			var ok bool
			if r, n, ok = s.leanRest(c.lean, i, r, n, st); !ok {
				return s.replay(start, clock0)
			}
		}
		t := &c.leanTail
		pos, nf = base+(r+t.pam)&^t.pam+t.pre, n+int(t.n)
	default:
		s.pos = pos
		if !s.skim(c.skip, &nf) {
			return s.replay(start, clock0)
		}
		pos, s.clock = s.pos, clock
	}
	// the walk checks the field limit at arrays only: above it, decode
	// (the selector has bits: pos is past start)
	if pos > s.end || nf > s.limit {
		return s.replay(start, clock0)
	}
	s.pos = pos
	s.events++
	return true
}

// selFields appends the header's fields from the option's template t
// (Next), with the values of the header's words w0, w1.
func (s *Stream) selFields(t *hdrTmpl, w0, w1 uint64) {
	n := len(s.fields)
	fs := append(s.fields, t.fields...)
	for i := range t.vals {
		v := &t.vals[i]
		fs[n+v.idx].V = v.f.get(w0, w1)
	}
	s.fields = fs
}

// scanShaped skims an event record whose header has shape h at s.pos:
// the header as the decoding program reads it (slots, clock, class id; the
// class id is not kept: Next and Decode read it again), then the class it
// names, adding the field count to *nf. False where the decoding program
// might fail (Scan then decodes the record), or where fewer than 16 bytes
// follow the header's start.
func (s *Stream) scanShaped(h *hdrShape, nf *int) bool {
	start := s.base + (s.pos-s.base+h.am)&^h.am
	j, data, end := start>>3, s.data, s.end
	if j+16 > uint64(len(data)) || j+16 < j {
		return false
	}
	w0, w1 := binary.LittleEndian.Uint64(data[j:]), binary.LittleEndian.Uint64(data[j+8:])
	p := &h.pre
	if start+p.bits > end {
		return false
	}
	clock, id, haveID := s.clock, uint64(0), false
	for {
		// what decoding the fields of p does to the stream
		if p.slot.mask != 0 && p.slot.slot >= 0 {
			s.slots[p.slot.slot] = p.slot.get(w0, w1)
		}
		if p.id.mask != 0 {
			id, haveID = p.id.get(w0, w1), true
		}
		if m := p.clk.mask; m != 0 {
			// updateClock: the low bits, plus 2^bits when they went back
			v := p.clk.get(w0, w1)
			if v < clock&m {
				clock += m + 1
			}
			clock = clock&^m | v
		}
		if p != &h.pre || h.src < 0 {
			break
		}
		k := h.option(s.slots[h.src])
		if k < 0 {
			return false
		}
		p = &h.opts[k]
		if start+p.bits > end {
			return false
		}
	}
	s.clock, s.pos, *nf = clock, start+p.bits, *nf+p.n
	sc := s.pkt.Class
	ec := sc.only
	if haveID {
		if id < uint64(len(sc.small)) {
			ec = sc.small[id]
		} else {
			ec = sc.events[id]
		}
	} else if ec == nil {
		ec = sc.EventClass(0)
	}
	if ec == nil || !ec.skippable {
		return false
	}
	s.evCycles, s.ev.Class = clock, ec
	// the class: in one step when its fields all have a fixed size
	switch {
	case ec.fixed:
		pos := s.base + (s.pos-s.base+ec.fixAM)&^ec.fixAM + ec.fixBits
		if pos > end {
			return false
		}
		s.pos, *nf = pos, *nf+ec.fixN
		return true
	case ec.lean != nil:
		pos, n, ok := s.skimLean(ec.lean, &ec.leanTail, s.pos, *nf)
		s.pos, *nf = pos, n
		return ok
	}
	return s.skim(ec.skip, nf)
}

// skimClass ends a skimmed event record header: the clock value is the
// event's, the class it names (if skimmable) is s.ev.Class.
func (s *Stream) skimClass() bool {
	s.evCycles = s.clock
	sc := s.pkt.Class
	ec := sc.only
	if s.haveERCID {
		ec = sc.EventClass(s.ercID)
	} else if ec == nil {
		ec = sc.EventClass(0)
	}
	if ec == nil || !ec.skippable {
		return false
	}
	s.ev.Class = ec
	return true
}

// skim runs a skimming program at s.pos; nf counts the fields the record
// would have. It returns false where the decoding program might fail.
func (s *Stream) skim(prog []op, nf *int) bool {
	pos, data, base, end := s.pos, s.data, s.base, s.end
	n, limit := *nf, s.limit
	for i := 0; i < len(prog); i++ {
		o := &prog[i]
		if o.am != 0 {
			pos = base + (pos-base+o.am)&^o.am
		}
		switch o.code {
		case opSkip:
			// field counts matter at arrays only (the walk checks the
			// limit there)
			pos += o.size
			if pos > end {
				return false
			}
			n += int(o.n)
		case opFixed:
			if pos+uint64(o.bits) > end {
				return false
			}
			v, ok := fastLE(data, pos, o)
			if !ok {
				v = fixedValue(data, pos, o)
			}
			pos += uint64(o.bits)
			if o.slot >= 0 {
				s.slots[o.slot] = v
			}
			switch o.roles {
			case 0:
			case roleClock:
				s.updateClock(v, o.bits)
			case roleERCID:
				s.ercID, s.haveERCID = v, true
			default:
				if !s.apply(o, v, pos) {
					return false
				}
			}
			n += int(o.n)
			if o.class {
				if !s.skimClass() {
					return false
				}
				prog, i = s.ev.Class.skip, -1
				continue
			}
			if o.tab != nil {
				// fused with the variant it selects (unsigned selector)
				if v >= uint64(len(o.tab)) || o.tab[v] < 0 {
					return false
				}
				i = int(o.opts[o.tab[v]]) - 1
			}
		case opString:
			j, e := pos>>3, end>>3
			if j > e {
				return false
			}
			// short strings: a plain loop; longer: IndexByte
			k, z := j, min(e, j+16)
			for k < z && data[k] != 0 {
				k++
			}
			if k == z {
				x := bytes.IndexByte(data[k:e], 0)
				if x < 0 || uint64(k-j)+uint64(x) > math.MaxUint32 {
					return false
				}
				k += uint64(x)
			}
			pos = (k + 1) * 8
			n += int(o.n)
		case opBytes:
			fc := o.fc
			ln := fc.Length
			if fc.dynamic {
				ln = s.slots[fc.src]
			}
			if pos > end || ln > (end-pos)/8 || ln > math.MaxUint32 {
				return false
			}
			pos += ln * 8
			n += int(o.n)
		case opVariant:
			opt := -1
			if sel := s.slots[o.src]; sel < uint64(len(o.tab)) {
				opt = int(o.tab[sel])
			} else {
				opt = s.variantOption(o)
			}
			if opt < 0 {
				return false
			}
			n += int(o.n)
			i = int(o.opts[opt]) - 1
		case opJump:
			i = int(o.target) - 1
		case opClass:
			// the header is skimmed: the class it names goes on in the
			// same loop
			if !s.skimClass() {
				return false
			}
			prog, i = s.ev.Class.skip, -1
		case opCall:
			s.pos = pos
			if !s.skim(o.sub, &n) {
				return false
			}
			pos = s.pos
		case opArray:
			fc := o.fc
			ln := fc.Length
			if fc.dynamic {
				ln = s.slots[fc.src]
			}
			n += int(o.n) // with the array's field
			if ln > uint64(limit-n+1) {
				return false
			}
			if o.fast {
				if ln == 0 {
					break
				}
				first := base + (pos-base+o.eam)&^o.eam
				if first > end {
					return false
				}
				room := end - first
				if o.size > 0 && ln-1 > room/o.size {
					return false
				}
				total := (ln-1)*o.size + uint64(o.bits)
				if total > room || ln > uint64(limit-n)/max(uint64(o.ecls), 1) {
					return false
				}
				pos = first + total
				n += int(ln) * int(o.ecls)
				break
			}
			s.pos = pos
			for k := uint64(0); k < ln; k++ {
				if !s.skim(o.sub, &n) || n > limit {
					return false
				}
			}
			pos = s.pos
		default:
			return false
		}
	}
	s.pos, *nf = pos, n
	return true
}
