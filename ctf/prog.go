package ctf

import (
	"bytes"
	"encoding/binary"
	"math"
)

// The compiled decoder. When a trace is compiled, the packet header, the
// packet context and the event record header of each data stream class,
// and each event record class (common context, specific context and
// payload together) become flat programs: slices of ops with the
// alignment, size, byte order, signedness, class and role of each field
// worked out. Runs of byte-aligned little-endian integers that nothing
// refers to are one op with one bounds check and members at fixed offsets;
// arrays of them are a loop with one bounds check; a structure whose field
// count is fixed gets its End at once; a variant jumps to its option's ops
// inside the same program; arrays run the program of their element.
// BLOBs, static- and dynamic-length strings, variable-length integers and
// optionals run the recursive field walk (Stream.read), which stays the
// reference: both give the same fields and the same errors
// (TestCompiledMatchesWalk, FuzzCompiledMatchesWalk).

const (
	opRead    uint8 = iota // anything else: the recursive walk
	opFixed                // fixed-length integer, boolean or float: any size, order, slot, role
	opFixedLE              // byte-aligned little-endian 8/16/32/64-bit integer, no slot, no role
	opRun                  // integers as opFixedLE at fixed offsets (hdr: a structure of them)
	opStruct               // a structure's field; its members' ops follow (then opEnd unless static)
	opEnd                  // sets the End of the field in register reg
	opArray                // static- or dynamic-length array
	opVariant              // variant: jumps to the selected option's ops
	opJump                 // continues at target
	opString               // null-terminated string
	opMark                 // the next field is the root of a scope (n: 1 common context, 2 specific context, 3 payload)
	opCall                 // runs the program sub
	opSkip                 // skimming: skip size bits (after aligning), counting n fields (skim.go)
	opBytes                // skimming: static- or dynamic-length string or BLOB
	opClass                // skimming: end of the event record header: continue with the event record class's program
)

type op struct {
	code   uint8
	sign   bool   // signed integer (sign-extend)
	hdr    bool   // opRun: the ops are a whole structure
	fast   bool   // opArray: elements as opFixedLE
	static bool   // opStruct: End is the field's index plus n
	be     bool   // opFixed: big-endian
	kind   Kind   // opFixed
	bits   uint32 // fixed-length size; opRun: size of the run; fast opArray: element size
	roles  uint16
	slot   int32
	reg    int32 // opStruct (not static), opVariant, opEnd: register of the field index
	cls    int32 // class id of the field
	ecls   int32 // fast opArray: element class id
	n      int32 // opStruct: field count (static); opMark: which scope
	target int32 // opJump
	am     uint64
	eam    uint64 // fast opArray: element alignment minus 1
	size   uint64 // opSkip: bits; skimming fast opArray: element stride
	pam    uint64 // lean skimming (skimLean): alignment minus 1 of the fixed-size fields before the op
	pre    uint64 // lean skimming: their size in bits (an opSkip folded into the op)
	mask   uint64 // opFixed: the value's bits
	le     bool   // opFixed: unsigned little-endian (the inline fast path)
	class  bool   // skimming opFixed: the header ends after it (see opClass)
	mark   int8   // opRun, opStruct: the field is the root of a scope (see opMark)
	src    int32  // opVariant: selector slot
	tab    []int8 // opVariant: option of each selector value below len(tab) (-1: none)
	fc     *FieldClass
	vfc    *FieldClass // opFixed fused with the variant it selects: the variant
	run    []runMember
	sub    []op    // opArray: element program; opCall: the program
	opts   []int32 // opVariant: index of each option's first op
}

type runMember struct {
	off  uint32 // bit offset from the run's start
	bits uint32
	sign bool
	cls  int32
	fc   *FieldClass
}

// plainLE says fc decodes as opFixedLE.
func plainLE(fc *FieldClass) bool { return fc.fixedLE && fc.slot < 0 && fc.roles == 0 }

// maxInlineOps: a common context of at most this many ops is copied into
// each event record class's program, a larger one called (bounding the
// programs by the compiled classes times this).
const maxInlineOps = 64

// staticCount returns the number of fields fc decodes to when it does not
// depend on the data.
func staticCount(fc *FieldClass, depth int) (int64, bool) {
	if depth > 64 {
		return 0, false
	}
	switch fc.Kind {
	case KindStruct:
		c := int64(1)
		for _, m := range fc.Members {
			k, ok := staticCount(m, depth+1)
			if !ok {
				return 0, false
			}
			if c += k; c > 1<<20 {
				return 0, false
			}
		}
		return c, true
	case KindArray, KindVariant, KindOptional:
		return 0, false
	}
	return 1, true
}

type progCompiler struct {
	regs int32
}

// compile appends the ops of fc to out (indices in out are the program's).
func (pc *progCompiler) compile(fc *FieldClass, out []op) []op {
	am := uint64(fc.Align) - 1
	switch fc.Kind {
	case KindUint, KindSint, KindBool, KindFloat:
		o := fixedOp(fc)
		o.cls = fc.id
		if plainLE(fc) {
			o.code = opFixedLE
		}
		return append(out, o)
	case KindStruct:
		if fc.flat && fc.flatBits < 1<<31 {
			o := op{code: opRun, hdr: true, bits: uint32(fc.flatBits), am: am, cls: fc.id, fc: fc}
			for _, m := range fc.Members {
				o.run = append(o.run, runMember{off: uint32(m.off), bits: m.Bits, sign: m.Kind == KindSint, cls: m.id, fc: m})
			}
			return append(out, o)
		}
		cnt, static := staticCount(fc, 0)
		o := op{code: opStruct, am: am, cls: fc.id, fc: fc, static: static, n: int32(cnt)}
		if !static {
			o.reg = pc.regs
			pc.regs++
		}
		out = append(out, o)
		ms := fc.Members
		for i := 0; i < len(ms); {
			// a run: consecutive plain integers whose alignment the first
			// one's implies, at fixed offsets from it
			j, off := i, uint64(0)
			for j < len(ms) && plainLE(ms[j]) && ms[j].Align <= ms[i].Align && off < 1<<30 {
				a := uint64(ms[j].Align)
				off = (off+a-1)&^(a-1) + uint64(ms[j].Bits)
				j++
			}
			if j-i < 2 {
				out = pc.compile(ms[i], out)
				i++
				continue
			}
			r := op{code: opRun, am: uint64(ms[i].Align) - 1, fc: fc, bits: uint32(off)}
			off = 0
			for _, m := range ms[i:j] {
				a := uint64(m.Align)
				off = (off + a - 1) &^ (a - 1)
				r.run = append(r.run, runMember{off: uint32(off), bits: m.Bits, sign: m.Kind == KindSint, cls: m.id, fc: m})
				off += uint64(m.Bits)
			}
			out = append(out, r)
			i = j
		}
		if !static {
			out = append(out, op{code: opEnd, reg: o.reg})
		}
		return out
	case KindArray:
		if len(fc.Members) == 0 {
			break
		}
		el := fc.Members[0]
		o := op{code: opArray, am: am, cls: fc.id, fc: fc, sub: pc.compile(el, nil)}
		if plainLE(el) && el.Align <= el.Bits {
			o.fast, o.bits, o.eam, o.ecls, o.sign = true, el.Bits, uint64(el.Align)-1, el.id, el.Kind == KindSint
		}
		return append(out, o)
	case KindVariant:
		k := len(out)
		v := op{code: opVariant, am: am, cls: fc.id, fc: fc, reg: pc.regs, tab: selectorTable(fc)}
		pc.regs++
		if k > 0 && am == 0 && v.tab != nil && out[k-1].code == opFixed && out[k-1].slot == int32(fc.src) && out[k-1].tab == nil {
			// the selector just before the variant (LTTng's id and v): the
			// selector's op also opens the variant (reg, ecls: its field)
			k--
			out[k].tab, out[k].reg, out[k].ecls, out[k].vfc = v.tab, v.reg, v.cls, fc
		} else {
			out = append(out, v)
		}
		var jumps []int
		opts := make([]int32, len(fc.Members))
		for i, m := range fc.Members {
			opts[i] = int32(len(out))
			out = pc.compile(m, out)
			jumps = append(jumps, len(out))
			out = append(out, op{code: opJump})
		}
		for _, j := range jumps {
			out[j].target = int32(len(out))
		}
		out[k].opts = opts
		return append(out, op{code: opEnd, reg: out[k].reg})
	case KindString:
		if fc.nulStr && fc.enc == encUTF8 {
			return append(out, op{code: opString, am: am, cls: fc.id, fc: fc})
		}
	}
	return append(out, op{code: opRead, fc: fc})
}

// fixedOp returns the opFixed of a fixed-length field class.
func fixedOp(fc *FieldClass) op {
	o := op{code: opFixed, bits: fc.Bits, am: uint64(fc.Align) - 1, fc: fc, sign: fc.Kind == KindSint,
		kind: fc.Kind, be: fc.BigEndian, slot: int32(fc.slot), roles: fc.roles, mask: math.MaxUint64,
		le: fc.Kind == KindUint && !fc.BigEndian}
	if fc.Bits < 64 {
		o.mask = 1<<fc.Bits - 1
	}
	return o
}

// selectorTable maps the selector values of a variant with an unsigned
// selector and options within 0..255 to their option (the first whose
// ranges hold the value, as the walk chooses).
func selectorTable(fc *FieldClass) []int8 {
	if fc.srcSign || len(fc.optRange) > 127 {
		return nil
	}
	top := uint64(0)
	for _, rs := range fc.optRange {
		for _, r := range rs {
			if r.Hi > 255 {
				return nil
			}
			top = max(top, r.Hi)
		}
	}
	tab := make([]int8, top+1)
	for v := range tab {
		tab[v] = -1
		for k, rs := range fc.optRange {
			if inRanges(rs, uint64(v), false) {
				tab[v] = int8(k)
				break
			}
		}
	}
	return tab
}

// variantOption returns the option of the variant of o for the current
// value of its selector, or -1.
func (s *Stream) variantOption(o *op) int {
	fc := o.fc
	sel := s.slots[fc.src]
	if sel < uint64(len(o.tab)) {
		return int(o.tab[sel])
	}
	if o.tab != nil {
		return -1 // above every range
	}
	for k, rs := range fc.optRange {
		if inRanges(rs, sel, fc.srcSign) {
			return k
		}
	}
	return -1
}

// relocate appends the ops of src to dst, moving their jump targets.
func relocate(dst, src []op) []op {
	d := int32(len(dst))
	for _, o := range src {
		if o.code == opJump {
			o.target += d
		}
		if o.opts != nil { // opVariant, or an opFixed fused with one
			opts := make([]int32, len(o.opts))
			for k, t := range o.opts {
				opts[k] = t + d
			}
			o.opts = opts
		}
		dst = append(dst, o)
	}
	return dst
}

// withMark appends the program of a scope root to p, its first op marking
// the root (scope 1, 2 or 3: see opMark) when it is a structure's, else an
// opMark before it.
func withMark(p, root []op, scope int8) []op {
	k := len(p)
	if len(root) == 0 || root[0].code != opRun && root[0].code != opStruct {
		p = append(p, op{code: opMark, n: int32(scope)})
		k++
	}
	p = relocate(p, root)
	if k < len(p) && (p[k].code == opRun || p[k].code == opStruct) {
		p[k].mark = scope
	}
	return p
}

// setRoot records field index k as the root of a scope (see opMark).
func (s *Stream) setRoot(scope int8, k int) {
	switch scope {
	case 1:
		s.ev.CommonContext = int32(k)
	case 2:
		s.ev.SpecificContext = int32(k)
	default:
		s.ev.Payload = int32(k)
	}
}

// compilePrograms gives the packet header, each data stream class's packet
// context and event record header, and each event record class their
// programs.
func (t *Trace) compilePrograms() {
	pc := &progCompiler{}
	prog := func(fc *FieldClass) []op {
		if fc == nil {
			return nil
		}
		return pc.compile(fc, nil)
	}
	t.headerProg = prog(t.header)
	for _, sc := range t.dscs {
		sc.ctxProg, sc.hdrProg = prog(sc.PacketContext), prog(sc.Header)
		cc := prog(sc.CommonContext)
		for _, ec := range sc.events {
			var p []op
			if cc != nil {
				if len(cc) <= maxInlineOps {
					p = withMark(p, cc, 1)
				} else {
					p = append(p, op{code: opMark, n: 1}, op{code: opCall, sub: cc})
				}
			}
			if ec.SpecificContext != nil {
				p = withMark(p, prog(ec.SpecificContext), 2)
			}
			if ec.Payload != nil {
				p = withMark(p, prog(ec.Payload), 3)
			}
			ec.prog = p
		}
	}
	t.regs = int(pc.regs)
}

func loadLE(d []byte, i uint64, bits uint32) uint64 {
	switch bits {
	case 8:
		return uint64(d[i])
	case 16:
		return uint64(binary.LittleEndian.Uint16(d[i:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(d[i:]))
	}
	return binary.LittleEndian.Uint64(d[i:])
}

func signExtend(v uint64, bits uint32) uint64 {
	if bits < 64 {
		sh := 64 - bits
		v = uint64(int64(v<<sh) >> sh)
	}
	return v
}

// exec runs a program at s.pos, appending to s.fields.
func (s *Stream) exec(prog []op) bool {
	fs, pos := s.fields, s.pos
	data, base, end := s.data, s.base, s.end
	for i := 0; i < len(prog); i++ {
		o := &prog[i]
		if o.am != 0 {
			pos = base + (pos-base+o.am)&^o.am
		}
		switch o.code {
		case opFixedLE:
			n := uint64(o.bits)
			if pos+n > end {
				s.pos, s.fields = pos, fs
				return s.truncated(o.fc)
			}
			v := loadLE(data, pos>>3, o.bits)
			if o.sign {
				v = signExtend(v, o.bits)
			}
			pos += n
			fs = append(fs, Field{V: v, End: int32(len(fs) + 1), cls: o.cls})
		case opRun:
			if pos+uint64(o.bits) > end {
				s.pos, s.fields = pos, fs
				return s.runFailed(o)
			}
			if o.mark != 0 {
				s.setRoot(o.mark, len(fs))
			}
			if o.hdr {
				fs = append(fs, Field{V: uint64(len(o.run)), cls: o.cls, End: int32(len(fs) + 1 + len(o.run))})
			}
			for k := range o.run {
				m := &o.run[k]
				v := loadLE(data, (pos+uint64(m.off))>>3, m.bits)
				if m.sign {
					v = signExtend(v, m.bits)
				}
				fs = append(fs, Field{V: v, End: int32(len(fs) + 1), cls: m.cls})
			}
			pos += uint64(o.bits)
		case opFixed:
			if pos+uint64(o.bits) > end {
				s.pos, s.fields = pos, fs
				return s.truncated(o.fc)
			}
			v, ok := fastLE(data, pos, o)
			if !ok {
				v = fixedValue(data, pos, o)
			}
			pos += uint64(o.bits)
			if o.slot >= 0 {
				s.slots[o.slot] = v
			}
			if o.roles != 0 && !s.apply(o, v, pos) {
				s.fields = fs
				return false
			}
			fs = append(fs, Field{V: v, End: int32(len(fs) + 1), cls: o.cls})
			if o.tab != nil {
				// fused with the variant it selects (unsigned selector)
				if v >= uint64(len(o.tab)) || o.tab[v] < 0 {
					s.pos, s.fields = pos, fs
					return s.noOption(o.vfc)
				}
				s.regs[o.reg] = int32(len(fs))
				fs = append(fs, Field{V: uint64(o.tab[v]), cls: o.ecls})
				i = int(o.opts[o.tab[v]]) - 1
			}
		case opStruct:
			k := int32(len(fs))
			if o.mark != 0 {
				s.setRoot(o.mark, int(k))
			}
			if o.static {
				fs = append(fs, Field{V: uint64(len(o.fc.Members)), cls: o.cls, End: k + o.n})
			} else {
				s.regs[o.reg] = k
				fs = append(fs, Field{V: uint64(len(o.fc.Members)), cls: o.cls})
			}
		case opEnd:
			fs[s.regs[o.reg]].End = int32(len(fs))
		case opVariant:
			opt := s.variantOption(o)
			if opt < 0 {
				s.pos, s.fields = pos, fs
				return s.noOption(o.fc)
			}
			s.regs[o.reg] = int32(len(fs))
			fs = append(fs, Field{V: uint64(opt), cls: o.cls})
			i = int(o.opts[opt]) - 1
		case opJump:
			i = int(o.target) - 1
		case opString:
			j, e := pos>>3, end>>3
			if j > e {
				s.pos, s.fields = pos, fs
				return s.truncated(o.fc)
			}
			k := bytes.IndexByte(data[j:e], 0)
			if k < 0 || uint64(k) > math.MaxUint32 {
				s.pos, s.fields = pos, fs
				return s.read(o.fc) // the walk reports it
			}
			fs = append(fs, Field{V: j, N: uint32(k), End: int32(len(fs) + 1), cls: o.cls})
			pos = (j + uint64(k) + 1) * 8
		case opMark:
			s.setRoot(int8(o.n), len(fs))
		default:
			s.pos, s.fields = pos, fs
			var ok bool
			switch o.code {
			case opArray:
				ok = s.array(o)
			case opCall:
				ok = s.exec(o.sub)
			default:
				ok = s.read(o.fc)
			}
			if !ok {
				return false
			}
			pos, fs = s.pos, s.fields
		}
	}
	s.pos, s.fields = pos, fs
	return true
}

// fastLE reads the fixed-length field of o at bit pos (in bounds) when it
// is an unsigned little-endian field within 8 readable bytes (small enough
// to be inlined; fixedValue reads the others).
func fastLE(data []byte, pos uint64, o *op) (uint64, bool) {
	if j, sh := pos>>3, pos&7; o.le && sh+uint64(o.bits) <= 64 && j+8 <= uint64(len(data)) {
		return binary.LittleEndian.Uint64(data[j:]) >> sh & o.mask, true
	}
	return 0, false
}

// fieldLimit fails: the event record has more fields than the limit.
func (s *Stream) fieldLimit() bool {
	s.err = newErr(s.at(s.pos), ErrLimit, "packet %d: event record has more than %d fields", s.pkt.Index, s.limit)
	return false
}

// arrayLimit fails: array fc of n elements exceeds the field limit.
func (s *Stream) arrayLimit(fc *FieldClass, n uint64) bool {
	s.err = newErr(s.at(s.pos), ErrLimit, "packet %d: array %s of %d elements exceeds the limit of %d fields per event record", s.pkt.Index, fc.Name, n, s.limit)
	return false
}

// noOption fails: the selector of variant fc selects no option.
func (s *Stream) noOption(fc *FieldClass) bool {
	s.err = newErr(s.at(s.pos), ErrCorrupt, "packet %d: variant %s: selector value %d selects no option", s.pkt.Index, fc.Name, int64(s.slots[fc.src]))
	return false
}

// fixedValue reads the fixed-length field of o at bit pos (in bounds).
func fixedValue(data []byte, pos uint64, o *op) uint64 {
	var v uint64
	j, sh := pos>>3, uint32(pos&7)
	if !o.be && sh+o.bits <= 64 && j+8 <= uint64(len(data)) {
		v = binary.LittleEndian.Uint64(data[j:]) >> sh
		if o.bits < 64 {
			v &= 1<<o.bits - 1
		}
	} else {
		v = bitsAt(data, pos, o.bits, o.be)
	}
	switch o.kind {
	case KindSint:
		v = signExtend(v, o.bits)
	case KindFloat:
		if o.bits == 32 {
			v = math.Float64bits(float64(math.Float32frombits(uint32(v))))
		}
	}
	return v
}

// apply applies the roles of the field of o, of value v; pos is the bit
// position after the field.
func (s *Stream) apply(o *op, v, pos uint64) bool {
	switch {
	case o.roles == roleClock && !s.inPkt:
		s.updateClock(v, o.bits)
	case o.roles == roleERCID:
		s.ercID, s.haveERCID = v, true
	default:
		s.pos = pos
		return s.role(o.fc, v)
	}
	return true
}

// runFailed reports the member of a run that overruns the packet content
// as the field walk does: the structure of a whole-structure run, else
// the first member that does not fit.
func (s *Stream) runFailed(o *op) bool {
	if o.hdr {
		return s.truncated(o.fc)
	}
	start := s.pos
	for k := range o.run {
		m := &o.run[k]
		s.pos = start + uint64(m.off)
		if s.pos+uint64(m.bits) > s.end {
			return s.truncated(m.fc)
		}
	}
	return s.truncated(o.fc) // not reached: the run does not fit
}

// array decodes a static- or dynamic-length array.
func (s *Stream) array(o *op) bool {
	fc := o.fc
	n := fc.Length
	if fc.dynamic {
		n = s.slots[fc.src]
	}
	if n > uint64(s.limit-len(s.fields)) {
		return s.arrayLimit(fc, n)
	}
	idx := len(s.fields)
	s.fields = append(s.fields, Field{V: n, cls: o.cls})
	if o.fast && n > 0 {
		// every element aligned once the first is: one bounds check (and
		// none above the field limit, which the walk checks after each
		// element, even when the fields before passed it already)
		pos := s.base + (s.pos-s.base+o.eam)&^o.eam
		eb := uint64(o.bits)
		if pos <= s.end && n <= (s.end-pos)/eb && len(s.fields) <= s.limit && n <= uint64(s.limit-len(s.fields)) {
			fs, data := s.fields, s.data
			for k := uint64(0); k < n; k++ {
				v := loadLE(data, pos>>3, o.bits)
				if o.sign {
					v = signExtend(v, o.bits)
				}
				fs = append(fs, Field{V: v, End: int32(len(fs) + 1), cls: o.ecls})
				pos += eb
			}
			fs[idx].End = int32(len(fs))
			s.fields, s.pos = fs, pos
			return true
		}
	}
	for k := uint64(0); k < n; k++ {
		if !s.exec(o.sub) {
			return false
		}
		if len(s.fields) > s.limit {
			return s.fieldLimit()
		}
	}
	s.fields[idx].End = int32(len(s.fields))
	return true
}
