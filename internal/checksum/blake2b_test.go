package checksum

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"golang.org/x/crypto/blake2b"
)

// refSum is golang.org/x/crypto/blake2b's BLAKE2b-64, the reference every
// output of this package is checked against.
func refSum(t testing.TB, p []byte) uint64 {
	h, err := blake2b.New(8, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Write(p)
	return binary.LittleEndian.Uint64(h.Sum(nil))
}

func testData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

// TestBlake2b64MatchesXCrypto compares every length 0..4096, one-shot and
// in pieces, with x/crypto, on the compression function this build uses
// (assembly or Go, see blocks) and on the Go one directly.
func TestBlake2b64MatchesXCrypto(t *testing.T) {
	data := testData(4096+BlockSize, 1)
	h := NewBlake2b64()
	for n := 0; n <= 4096; n++ {
		for _, off := range []int{0, 3} { // aligned and unaligned input
			p := data[off : off+n]
			want := refSum(t, p)
			if got := h.Sum(p); got != want {
				t.Fatalf("len %d off %d: Sum = %#x, x/crypto %#x", n, off, got, want)
			}
			if got := sumWith(blocksGeneric, p); got != want {
				t.Fatalf("len %d off %d: Go compression function gives %#x, x/crypto %#x", n, off, got, want)
			}
		}
		p := data[:n]
		want := refSum(t, p)
		h.Reset()
		step := 1 + n%131
		for i := 0; i < n; i += step {
			h.Write(p[i:min(i+step, n)])
		}
		if got := h.Sum64(); got != want {
			t.Fatalf("len %d written in pieces of %d: %#x, x/crypto %#x", n, step, got, want)
		}
		if got := h.Sum64(); got != want { // Sum64 leaves the state alone
			t.Fatalf("len %d: second Sum64 differs", n)
		}
	}
}

// sumWith is Sum with a given compression function.
func sumWith(f func(*[8]uint64, *[2]uint64, uint64, []byte), p []byte) uint64 {
	var b Blake2b64
	b.Reset()
	if len(p) > BlockSize {
		n := (len(p) - 1) &^ (BlockSize - 1)
		f(&b.h, &b.c, 0, p[:n])
		p = p[n:]
	}
	var last [BlockSize]byte
	copy(last[:], p)
	c := b.c
	var borrow uint64
	c[0], borrow = bits.Sub64(c[0], uint64(BlockSize-len(p)), 0)
	c[1] -= borrow
	f(&b.h, &c, ^uint64(0), last[:])
	return b.h[0]
}

// TestBlake2b64CounterCarry starts from a byte counter just below 2^64, so
// that the 128-bit counter carries, and compares the two compression
// functions (x/crypto cannot be started there).
func TestBlake2b64CounterCarry(t *testing.T) {
	data := testData(1024, 2)
	for _, start := range []uint64{1<<64 - 128, 1<<64 - 256, 1<<64 - 64} {
		var a, b Blake2b64
		a.Reset()
		b.Reset()
		a.c[0], b.c[0] = start, start
		blocks(&a.h, &a.c, 0, data)
		blocksGeneric(&b.h, &b.c, 0, data)
		if a.h != b.h || a.c != b.c || a.c[1] != 1 {
			t.Fatalf("start %#x: state %x/%x counter %x/%x", start, a.h, b.h, a.c, b.c)
		}
	}
}

// FuzzBlake2b64 compares arbitrary input, written whole and split at an
// arbitrary point, with x/crypto.
func FuzzBlake2b64(f *testing.F) {
	f.Add([]byte("abc"), uint16(1))
	f.Add(testData(300, 3), uint16(128))
	f.Add(testData(1000, 4), uint16(999))
	h := NewBlake2b64()
	f.Fuzz(func(t *testing.T, p []byte, split uint16) {
		want := refSum(t, p)
		if got := h.Sum(p); got != want {
			t.Fatalf("len %d: Sum = %#x, x/crypto %#x", len(p), got, want)
		}
		s := min(int(split), len(p))
		h.Reset()
		h.Write(p[:s])
		h.Write(p[s:])
		if got := h.Sum64(); got != want {
			t.Fatalf("len %d split %d: %#x, x/crypto %#x", len(p), s, got, want)
		}
	})
}

// sumsCheck runs Sums on ps and compares every result with x/crypto.
func sumsCheck(t *testing.T, h *Blake2b64, ps [][]byte, what string) {
	t.Helper()
	sums := make([]uint64, len(ps))
	h.Sums(ps, sums)
	for i, p := range ps {
		if want := refSum(t, p); sums[i] != want {
			t.Fatalf("%s: input %d of %d (len %d): Sums = %#x, x/crypto %#x", what, i, len(ps), len(p), sums[i], want)
		}
	}
}

// TestSumsMatchesXCrypto checks the multi-lane hashing on every length
// 0..4096 in each lane, with a different length in every other lane (so
// that the lanes share different numbers of whole blocks and finish in the
// one-message function at different points), unaligned inputs, every group
// size 1..8 and groups of more than eight. Where the CPU has no AVX-512 (and
// under -tags purego) the multi-lane bookkeeping runs on the Go function.
func TestSumsMatchesXCrypto(t *testing.T) {
	for _, lanes := range []int{Lanes, 8} {
		t.Run(fmt.Sprintf("lanes=%d", lanes), func(t *testing.T) {
			defer func(l int) { Lanes = l }(Lanes)
			Lanes = lanes
			data := testData(4096+64*17, 7)
			h := NewBlake2b64()
			ps := make([][]byte, 8)
			for n := 0; n <= 4096; n++ {
				for l := range ps {
					m := n
					if l > 0 { // other lanes: lengths around and far from n
						m = (n + 613*l + (l%3)*n/2) % 4097
					}
					off := (l * 5) % 64
					ps[l] = data[off : off+m]
				}
				k := 2 + n%7 // group sizes 2..8
				sumsCheck(t, h, ps[:k], fmt.Sprintf("n %d", n))
			}
			var many [][]byte
			for i := range 17 {
				many = append(many, data[i:i+1000+250*i])
			}
			sumsCheck(t, h, many, "17 inputs")
			// three inputs that drop out of the eight-lane passes one by
			// one (after 10 and 30 blocks), the last with 20 blocks alone
			big := testData(60*BlockSize, 14)
			three := [][]byte{big[:10*BlockSize+1], big[1 : 1+30*BlockSize+5], big[2 : 2+50*BlockSize+7]}
			sumsCheck(t, h, three, "three lengths")
			sumsCheck(t, h, many[:1], "1 input")
			sumsCheck(t, h, nil, "no input")
		})
	}
}

// TestBlocks8MatchesOneMessage compares the eight-lane compression function
// with the one-message one from a random state and counter.
func TestBlocks8MatchesOneMessage(t *testing.T) {
	data := testData(8*40*BlockSize, 8)
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 2, 5, 40} {
		var h, want [8][8]uint64
		for w := range h {
			for l := range h[w] {
				h[w][l] = r.Uint64()
			}
		}
		want = h
		c0 := r.Uint64() >> 1
		var ptr [8]*byte
		for l := range ptr {
			ptr[l] = &data[l*40*BlockSize]
		}
		blocks8(&h, c0, &ptr, n)
		blocks8Generic(&want, c0, &ptr, n)
		if h != want {
			t.Fatalf("%d blocks: eight-lane state differs from one lane at a time", n)
		}
	}
}

// FuzzSums compares the digests of up to eight parts of arbitrary input,
// hashed together by Sums, with x/crypto.
func FuzzSums(f *testing.F) {
	f.Add(testData(3000, 10), []byte{0, 200, 255, 17, 90})
	f.Add(testData(9000, 11), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	h := NewBlake2b64()
	f.Fuzz(func(t *testing.T, p []byte, cuts []byte) {
		defer func(l int) { Lanes = l }(Lanes)
		Lanes = 8
		var ps [][]byte
		for i, c := range cuts {
			if i == 12 {
				break
			}
			// lane i hashes a window of p starting at c and of a length
			// derived from the next cut
			start := int(c) % (len(p) + 1)
			n := len(p) - start
			if i+1 < len(cuts) {
				n = min(n, int(cuts[i+1])*29)
			}
			ps = append(ps, p[start:start+n])
		}
		sumsCheck(t, h, ps, "fuzz")
	})
}
