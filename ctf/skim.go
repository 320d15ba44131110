package ctf

import (
	"bytes"
	"math"
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

const (
	opSkip  uint8 = 64 + iota // skip size bits (after aligning to am), counting n fields
	opBytes                   // static- or dynamic-length string or BLOB
)

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
		return append(out, op{code: opFixed, bits: fc.Bits, am: am, fc: fc, kind: fc.Kind, be: fc.BigEndian, slot: int32(fc.slot), roles: fc.roles})
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
		o := op{code: opArray, am: am, fc: fc}
		if ea, eb, ec, ok := staticItem(el, 0); ok {
			o.fast, o.eam, o.bits, o.size, o.n = true, ea-1, uint32(min(eb, math.MaxUint32)), (eb+ea-1)&^(ea-1), int32(ec)
			if eb > math.MaxUint32 {
				break
			}
		} else {
			o.sub = sc.compile(el, nil, depth+1)
		}
		return append(out, o)
	case KindVariant:
		k := len(out)
		out = append(out, op{code: opVariant, am: am, fc: fc})
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
		if fc.nulStr {
			return append(out, op{code: opString, am: am, fc: fc})
		}
		if fc.roles == 0 {
			return append(out, op{code: opBytes, am: am, fc: fc})
		}
	}
	sc.ok = false
	return out
}

// compileSkims gives each data stream class's event record header and each
// event record class their skimming programs (nil, skippable false: Scan
// decodes them).
func (t *Trace) compileSkims() {
	prog := func(fcs ...*FieldClass) ([]op, bool) {
		sc := &skimCompiler{ok: true}
		var out []op
		for _, fc := range fcs {
			if fc != nil {
				out = sc.compile(fc, out, 0)
			}
		}
		return out, sc.ok
	}
	for _, sc := range t.dscs {
		if p, ok := prog(sc.Header); ok && sc.Header != nil {
			sc.hdrSkip = p
		}
		for _, ec := range sc.events {
			ec.skip, ec.skippable = prog(sc.CommonContext, ec.SpecificContext, ec.Payload)
			if !ec.skippable || len(ec.skip) > 1<<20 {
				ec.skip, ec.skippable = nil, false
			}
		}
	}
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
			pos += o.size
			if pos > end {
				return false
			}
			if n += int(o.n); n > limit {
				return false
			}
		case opFixed:
			if pos+uint64(o.bits) > end {
				return false
			}
			v := fixedValue(data, pos, o)
			pos += uint64(o.bits)
			if !s.apply(o, v, pos) {
				return false
			}
			n++
		case opString:
			j, e := pos>>3, end>>3
			if j > e {
				return false
			}
			k := bytes.IndexByte(data[j:e], 0)
			if k < 0 || uint64(k) > math.MaxUint32 {
				return false
			}
			pos = (j + uint64(k) + 1) * 8
			n++
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
			n++
		case opVariant:
			fc := o.fc
			sel := s.slots[fc.src]
			opt := -1
			for k, rs := range fc.optRange {
				if inRanges(rs, sel, fc.srcSign) {
					opt = k
					break
				}
			}
			if opt < 0 {
				return false
			}
			n++
			i = int(o.opts[opt]) - 1
		case opJump:
			i = int(o.target) - 1
		case opArray:
			fc := o.fc
			ln := fc.Length
			if fc.dynamic {
				ln = s.slots[fc.src]
			}
			if ln > uint64(limit-n) {
				return false
			}
			n++
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
				if total > room || ln > uint64(limit-n)/max(uint64(o.n), 1) {
					return false
				}
				pos = first + total
				n += int(ln) * int(o.n)
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
