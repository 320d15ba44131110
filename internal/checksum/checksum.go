//go:generate go run gengo.go
//go:generate sh -c "cd asmgen && go run . -out ../blocks_amd64.s -stubs ../blocks_amd64_decl.go -pkg checksum"

// Package checksum holds the two checksums the formats share: CRC-32 (IEEE) of a
// section written incrementally, and BLAKE2b with an 8-byte digest read as a
// little-endian uint64 (CDT's checksum64). Both are allocation-free after
// construction.
//
// The BLAKE2b compression function is this package's own, generated: on
// amd64 (without the purego tag) scalar assembly written by asmgen, an avo
// program in its own module, elsewhere unrolled Go written by gengo.go; go
// generate reproduces both. Scalar code is used on amd64 because one BLAKE2b
// message is a serial chain of G steps: vector code adds shuffles and
// message gathers to that chain, and golang.org/x/crypto/blake2b's AVX2
// version hashes about half as fast as this one on the project's machines
// (see BenchmarkBlake2b64). Where the CPU has AVX-512, Sums hashes up to
// eight inputs at once with a generated eight-lane function (one message per
// 64-bit vector lane), ≈4.5 times the bytes per second of one message at a
// time (BenchmarkBlake2b64Sums). Tests compare every function with x/crypto
// on every length up to 4 KiB (for Sums in every lane, each lane with its own
// length) and under fuzzing.
package checksum

import (
	"hash/crc32"
	"math/bits"
	"unsafe"
)

// CRC32 accumulates the IEEE CRC-32 of a section fed in pieces. The zero value is
// ready to use and equals the CRC of no bytes.
type CRC32 struct{ sum uint32 }

// Write adds p to the checksum. It never fails.
func (c *CRC32) Write(p []byte) (int, error) {
	c.sum = crc32.Update(c.sum, crc32.IEEETable, p)
	return len(p), nil
}

// Sum32 is the CRC-32 of everything written so far.
func (c *CRC32) Sum32() uint32 { return c.sum }

// Reset forgets everything written.
func (c *CRC32) Reset() { c.sum = 0 }

// CRC32IEEE is the CRC-32 (IEEE) of p in one call.
func CRC32IEEE(p []byte) uint32 { return crc32.ChecksumIEEE(p) }

// Blake2b64 computes BLAKE2b-64 (BLAKE2b with digest size 8, unkeyed, RFC
// 7693) and returns the digest read as a little-endian uint64. Reuse one
// value: nothing allocates after NewBlake2b64. Not safe for concurrent use.
//
// The compression function is this package's own (see blocks): on amd64 an
// assembly version where the CPU has it, else unrolled Go; every output is
// checked against golang.org/x/crypto/blake2b in the tests.
type Blake2b64 struct {
	h   [8]uint64
	c   [2]uint64 // bytes compressed so far, 128-bit
	n   int       // bytes in buf
	buf [BlockSize]byte
}

// BlockSize is BLAKE2b's block size in bytes.
const BlockSize = 128

// The BLAKE2b initialisation vector (SHA-512's).
const (
	iv0 uint64 = 0x6a09e667f3bcc908
	iv1 uint64 = 0xbb67ae8584caa73b
	iv2 uint64 = 0x3c6ef372fe94f82b
	iv3 uint64 = 0xa54ff53a5f1d36f1
	iv4 uint64 = 0x510e527fade682d1
	iv5 uint64 = 0x9b05688c2b3e6c1f
	iv6 uint64 = 0x1f83d9abfb41bd6b
	iv7 uint64 = 0x5be0cd19137e2179
)

// NewBlake2b64 returns a reusable BLAKE2b-64 hasher, ready for Write.
func NewBlake2b64() *Blake2b64 {
	b := new(Blake2b64)
	b.Reset()
	return b
}

// Sum returns the BLAKE2b-64 of p as a little-endian uint64. It discards any
// incremental state: afterwards the hasher is as after Reset.
func (b *Blake2b64) Sum(p []byte) uint64 {
	b.Reset()
	return b.sumRest(p)
}

// sumRest finishes a one-shot digest whose state holds everything before p
// (whole blocks only) and resets the hasher.
func (b *Blake2b64) sumRest(p []byte) uint64 {
	if len(p) > BlockSize {
		n := (len(p) - 1) &^ (BlockSize - 1) // keep 1..128 bytes for the final block
		blocks(&b.h, &b.c, 0, p[:n])
		p = p[n:]
	}
	b.n = copy(b.buf[:], p)
	d := b.Sum64()
	b.Reset()
	return d
}

// Reset starts a new incremental digest; Write adds data and Sum64 finishes it.
func (b *Blake2b64) Reset() {
	// Parameter block: digest length 8, no key, fanout 1, depth 1.
	b.h = [8]uint64{iv0 ^ 0x01010008, iv1, iv2, iv3, iv4, iv5, iv6, iv7}
	b.c = [2]uint64{}
	b.n = 0
}

// Write adds p to the incremental digest. It never fails.
func (b *Blake2b64) Write(p []byte) (int, error) {
	n := len(p)
	if b.n > 0 {
		k := copy(b.buf[b.n:], p)
		b.n += k
		p = p[k:]
		if len(p) == 0 { // the buffered block may be the final one
			return n, nil
		}
		blocks(&b.h, &b.c, 0, b.buf[:])
		b.n = 0
	}
	if len(p) > BlockSize {
		k := (len(p) - 1) &^ (BlockSize - 1)
		blocks(&b.h, &b.c, 0, p[:k])
		p = p[k:]
	}
	b.n = copy(b.buf[:], p)
	return n, nil
}

// Sum64 is the digest of everything written since Reset; it does not change
// the state, so writing may go on.
func (b *Blake2b64) Sum64() uint64 {
	h, c := b.h, b.c
	var last [BlockSize]byte
	copy(last[:], b.buf[:b.n])
	// blocks adds 128 to the counter; the final block counts only its n bytes.
	var borrow uint64
	c[0], borrow = bits.Sub64(c[0], uint64(BlockSize-b.n), 0)
	c[1] -= borrow
	blocks(&h, &c, ^uint64(0), last[:])
	return h[0]
}

// Lanes is the number of inputs Sums hashes at once on this machine:
// MaxLanes where the CPU has AVX-512 (amd64 builds without the purego tag),
// else 1.
var Lanes = lanes()

// MaxLanes is the largest value Lanes takes.
const MaxLanes = 8

// minShared is the number of whole blocks an input must have left to take
// part in a pass of the multi-lane function.
const minShared = 4

// Sums sets sums[i] to the BLAKE2b-64 of ps[i] (as Sum does) for every i
// < len(ps); len(sums) must be at least len(ps). Where Lanes is 8, up to eight
// inputs are hashed together, one in each 64-bit lane of the vector
// registers (see sums8), the final block and whatever is too short to share
// a pass with another input by the one-message function. On the project's
// machines that hashes about 4.5 times as many bytes per second as Sum on
// each input, whose one message is a serial chain of steps. Sums discards
// any incremental state, as Sum does; it allocates nothing.
func (b *Blake2b64) Sums(ps [][]byte, sums []uint64) {
	_ = sums[:len(ps)]
	for len(ps) > 0 {
		k := min(Lanes, len(ps))
		if k < 2 {
			sums[0] = b.Sum(ps[0])
		} else {
			b.sums8(ps[:k], sums[:k])
		}
		ps, sums = ps[k:], sums[k:]
	}
}

// sums8 hashes 2..8 inputs. Passes of the eight-lane function run the whole
// blocks (before each input's final one) that all inputs still have; an
// input that has none left drops out, and the others go on in the next pass
// while at least two remain with minShared blocks each. The rest of every
// input goes through the one-message function.
func (b *Blake2b64) sums8(ps [][]byte, sums []uint64) {
	var st [8][8]uint64 // chaining value of each input
	var done [8]int     // whole blocks hashed of each input
	b.Reset()
	for i := range ps {
		st[i] = b.h
	}
	var h [8][8]uint64
	var ptr [8]*byte
	var act [8]int
	for {
		// the inputs with whole blocks left, and how many all of them have
		na, shared := 0, 0
		for i, p := range ps {
			left := 0
			if len(p) > 0 {
				left = (len(p)-1)/BlockSize - done[i] // keep the final block for the tail
			}
			if left >= minShared {
				if na == 0 || left < shared {
					shared = left
				}
				act[na] = i
				na++
			}
		}
		if na < 2 {
			break
		}
		for l := range 8 {
			i := act[l%na] // spare lanes repeat an input, their result unused
			for w := range h {
				h[w][l] = st[i][w]
			}
			ptr[l] = &ps[i][done[i]*BlockSize]
		}
		// every active input has hashed the same number of blocks: those
		// that dropped out of an earlier pass are not active any more
		blocks8(&h, uint64(done[act[0]])*BlockSize, &ptr, shared)
		for l, i := range act[:na] {
			for w := range h {
				st[i][w] = h[w][l]
			}
			done[i] += shared
		}
	}
	for i, p := range ps {
		b.h = st[i]
		b.c = [2]uint64{uint64(done[i]) * BlockSize, 0}
		sums[i] = b.sumRest(p[done[i]*BlockSize:])
	}
}

// blocks8Generic is blocks8 one lane at a time with the one-message function.
func blocks8Generic(h *[8][8]uint64, c0 uint64, p *[8]*byte, n int) {
	for l := range p {
		var hl [8]uint64
		for w := range hl {
			hl[w] = h[w][l]
		}
		c := [2]uint64{c0, 0}
		blocks(&hl, &c, 0, unsafe.Slice(p[l], n*BlockSize))
		for w := range hl {
			h[w][l] = hl[w]
		}
	}
}
