// Package checksum holds the two checksums the formats share: CRC-32 (IEEE) of a
// section written incrementally, and BLAKE2b with an 8-byte digest read as a
// little-endian uint64 (CDT's checksum64). Both are allocation-free after
// construction.
package checksum

import (
	"encoding/binary"
	"hash"
	"hash/crc32"

	"golang.org/x/crypto/blake2b"
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

// Blake2b64 computes BLAKE2b-64 (BLAKE2b with digest size 8, unkeyed) and returns
// the digest read as a little-endian uint64. Reuse one value: after New64 a Sum
// allocates nothing. Not safe for concurrent use.
type Blake2b64 struct {
	h   hash.Hash
	out [blake2b.Size]byte
}

// NewBlake2b64 returns a reusable BLAKE2b-64 hasher.
func NewBlake2b64() *Blake2b64 {
	h, err := blake2b.New(8, nil)
	if err != nil { // only possible for an invalid size or key
		panic("checksum: blake2b.New(8, nil): " + err.Error())
	}
	return &Blake2b64{h: h}
}

// Sum returns the BLAKE2b-64 of p as a little-endian uint64.
func (b *Blake2b64) Sum(p []byte) uint64 {
	b.h.Reset()
	b.h.Write(p)
	return b.sum()
}

// Reset starts a new incremental digest; Write adds data and Sum64 finishes it.
func (b *Blake2b64) Reset() { b.h.Reset() }

// Write adds p to the incremental digest.
func (b *Blake2b64) Write(p []byte) (int, error) { return b.h.Write(p) }

// Sum64 is the digest of everything written since Reset.
func (b *Blake2b64) Sum64() uint64 { return b.sum() }

func (b *Blake2b64) sum() uint64 {
	d := b.h.Sum(b.out[:0])
	return binary.LittleEndian.Uint64(d)
}
