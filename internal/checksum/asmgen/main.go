// Command asmgen writes blocks_amd64.s, the BLAKE2b compression functions of
// package checksum in amd64 assembly, with avo (github.com/mmcloughlin/avo):
// the scalar one-message function described here, and an eight-lane AVX-512
// one (see avx512x8).
// It is its own module so that the tracecodec module does not depend on avo.
// Run it through go generate in internal/checksum.
//
// The function is scalar: the sixteen 64-bit working words live in fourteen
// general registers and two stack slots, assigned per G step by a look-ahead
// allocator (the word needed again last is the one kept on the stack), and
// the twelve rounds are unrolled with the message schedule resolved here.
// It needs only baseline amd64 (no AVX2, no BMI2). On the Zen 5 class
// machines this project runs on, the AVX2 code of golang.org/x/crypto/blake2b
// is slower than plain scalar code: its rounds spend their time gathering
// message words into vectors, which scalar code reads as memory operands.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var sigma = [10][16]int{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
	{11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
	{7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
	{9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
	{2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
	{12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
	{13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
	{6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
	{10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
}

var iv = [8]uint64{
	0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
	0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
}

// gstep is one G application: working words a, b, c, d and message words x, y.
type gstep struct{ a, b, c, d, x, y int }

func schedule() []gstep {
	var s []gstep
	for r := 0; r < 12; r++ {
		m := sigma[r%10]
		s = append(s,
			gstep{0, 4, 8, 12, m[0], m[1]}, gstep{1, 5, 9, 13, m[2], m[3]},
			gstep{2, 6, 10, 14, m[4], m[5]}, gstep{3, 7, 11, 15, m[6], m[7]},
			gstep{0, 5, 10, 15, m[8], m[9]}, gstep{1, 6, 11, 12, m[10], m[11]},
			gstep{2, 7, 8, 13, m[12], m[13]}, gstep{3, 4, 9, 14, m[14], m[15]})
	}
	return s
}

// alloc tracks which working word is in which register.
type alloc struct {
	regs  []GPPhysical
	in    [16]int // register index holding word v, or -1 when it is in its slot
	owner []int   // word held by each register, or -1
	slots Mem     // 16 spill slots, one per word
	steps []gstep
}

// nextUse is the index of the first step at or after k that uses word v
// (len(steps) if none: the final feed-forward uses every word).
func (al *alloc) nextUse(v, k int) int {
	for i := k; i < len(al.steps); i++ {
		s := al.steps[i]
		if s.a == v || s.b == v || s.c == v || s.d == v {
			return i
		}
	}
	return len(al.steps)
}

// get returns the register holding word v for step k, loading it and
// spilling the word used furthest in the future if needed. keep lists the
// words step k needs, which may not be spilled.
func (al *alloc) get(v, k int, keep [4]int) GPPhysical {
	if r := al.in[v]; r >= 0 {
		return al.regs[r]
	}
	victim, far := -1, -1
	for r, w := range al.owner {
		if w < 0 {
			victim, far = r, 1<<30
			break
		}
		if w == keep[0] || w == keep[1] || w == keep[2] || w == keep[3] {
			continue
		}
		if n := al.nextUse(w, k); n > far {
			victim, far = r, n
		}
	}
	if w := al.owner[victim]; w >= 0 {
		Comment(fmt.Sprintf("spill v%d", w))
		MOVQ(al.regs[victim], al.slots.Offset(8*w))
		al.in[w] = -1
	}
	MOVQ(al.slots.Offset(8*v), al.regs[victim])
	al.owner[victim], al.in[v] = v, victim
	return al.regs[victim]
}

func main() {
	ConstraintExpr("amd64,gc,!purego")
	TEXT("blocksAMD64", NOSPLIT, "func(h *[8]uint64, c *[2]uint64, flag uint64, p []byte)")
	Pragma("noescape")
	Doc("blocksAMD64 compresses the whole 128-byte blocks of p into h, adding",
		"128 to the 128-bit byte count c per block and using flag (^0 for the",
		"final block, else 0) as BLAKE2b's finalisation flag.")

	msg := AllocLocal(128)
	slots := AllocLocal(128)
	vars := AllocLocal(6 * 8)
	hp, c0, c1, fl, ptr, n := vars.Offset(0), vars.Offset(8), vars.Offset(16), vars.Offset(24), vars.Offset(32), vars.Offset(40)

	Load(Param("h"), RAX)
	MOVQ(RAX, hp)
	Load(Param("c"), RAX)
	MOVQ(Mem{Base: RAX}, RBX)
	MOVQ(RBX, c0)
	MOVQ(Mem{Base: RAX, Disp: 8}, RBX)
	MOVQ(RBX, c1)
	Load(Param("flag"), RAX)
	MOVQ(RAX, fl)
	Load(Param("p").Base(), RAX)
	MOVQ(RAX, ptr)
	Load(Param("p").Len(), RAX)
	MOVQ(RAX, n)

	Label("loop")
	MOVQ(n, RAX)
	CMPQ(RAX, U32(128))
	JB(LabelRef("done"))
	SUBQ(U32(128), RAX)
	MOVQ(RAX, n)
	Comment("count the block's bytes in the 128-bit counter")
	MOVQ(c0, RAX)
	MOVQ(c1, RBX)
	ADDQ(U32(128), RAX)
	ADCQ(U32(0), RBX)
	MOVQ(RAX, c0)
	MOVQ(RBX, c1)
	Comment("copy the block to the frame, where it is read as memory operands")
	MOVQ(ptr, RSI)
	for i := 0; i < 8; i++ {
		MOVOU(Mem{Base: RSI, Disp: 16 * i}, X0)
		MOVOU(X0, msg.Offset(16*i))
	}
	ADDQ(U32(128), RSI)
	MOVQ(RSI, ptr)

	Comment("v12..v15 = iv4..iv7 ^ (c0, c1, flag, 0), v14 and v15 kept in their slots")
	MOVQ(U64(iv[6]), RCX)
	XORQ(fl, RCX)
	MOVQ(RCX, slots.Offset(8*14))
	MOVQ(U64(iv[7]), RCX)
	MOVQ(RCX, slots.Offset(8*15))
	regs := []GPPhysical{RAX, RBX, RCX, RDX, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15}
	al := &alloc{regs: regs, owner: make([]int, len(regs)), slots: slots, steps: schedule()}
	for i := range al.in {
		al.in[i] = -1
	}
	for i := range al.owner {
		al.owner[i] = -1
	}
	// v0..v13 start in the fourteen registers, word v in regs[13-v]
	// (v0 in R15, ..., v12 in RBX, v13 in RAX); RCX, which v11 gets, serves
	// as a scratch register until v11 is loaded last.
	place := func(v int) GPPhysical {
		r := len(regs) - 1 - v
		al.owner[r], al.in[v] = v, r
		return regs[r]
	}
	r13 := place(13) // RAX
	r12 := place(12) // RBX
	MOVQ(c0, r12)
	MOVQ(c1, r13)
	MOVQ(U64(iv[4]), RCX)
	XORQ(RCX, r12)
	MOVQ(U64(iv[5]), RCX)
	XORQ(RCX, r13)
	MOVQ(hp, RCX)
	for v := 0; v < 8; v++ {
		if v == 0 {
			continue
		}
		MOVQ(Mem{Base: RCX, Disp: 8 * v}, place(v))
	}
	MOVQ(Mem{Base: RCX}, place(0))
	for v := 8; v < 12; v++ {
		MOVQ(U64(iv[v-8]), place(v))
	}
	if place(11) != RCX || place(0) != R15 {
		panic("register assignment changed: hp must be read before v11 overwrites RCX")
	}

	for k, s := range al.steps {
		if k%8 == 0 {
			Comment(fmt.Sprintf("round %d", k/8))
		}
		keep := [4]int{s.a, s.b, s.c, s.d}
		a := al.get(s.a, k, keep)
		b := al.get(s.b, k, keep)
		c := al.get(s.c, k, keep)
		d := al.get(s.d, k, keep)
		ADDQ(msg.Offset(8*s.x), a)
		ADDQ(b, a)
		XORQ(a, d)
		RORQ(U8(32), d)
		ADDQ(d, c)
		XORQ(c, b)
		RORQ(U8(24), b)
		ADDQ(msg.Offset(8*s.y), a)
		ADDQ(b, a)
		XORQ(a, d)
		RORQ(U8(16), d)
		ADDQ(d, c)
		XORQ(c, b)
		RORQ(U8(63), b)
	}

	Comment("h[i] ^= v[i] ^ v[i+8]")
	for v, r := range al.in {
		if r >= 0 {
			MOVQ(regs[r], slots.Offset(8*v))
		}
	}
	MOVQ(hp, RCX)
	for i := 0; i < 8; i++ {
		MOVQ(slots.Offset(8*i), RAX)
		XORQ(slots.Offset(8*(i+8)), RAX)
		XORQ(RAX, Mem{Base: RCX, Disp: 8 * i})
	}
	JMP(LabelRef("loop"))

	Label("done")
	Load(Param("c"), RAX)
	MOVQ(c0, RBX)
	MOVQ(RBX, Mem{Base: RAX})
	MOVQ(c1, RBX)
	MOVQ(RBX, Mem{Base: RAX, Disp: 8})
	RET()

	avx512x8()
	Generate()
}
