// Package leb128 encodes and decodes unsigned LEB128 integers as used by dial9
// (and any other format that needs them).
//
// A value takes 1 to 10 bytes. Decoding rejects an encoding longer than 10 bytes
// and a 10th byte that would overflow 64 bits (anything above 0x01), exactly as
// encoding/binary.Uvarint does. A hand-written decoder with a one-byte fast path
// was measured against encoding/binary (BenchmarkDecode, BenchmarkAppend) and
// gained nothing on amd64 (within ±10% either way), so both directions delegate
// to encoding/binary; the benchmarks stay to re-check that on other machines.
package leb128

import "encoding/binary"

// MaxLen is the longest valid encoding of a 64-bit value.
const MaxLen = 10

// Result codes returned in n by Decode when decoding fails.
const (
	// Truncated: the input ended inside the value.
	Truncated = 0
	// Overflow: more than 10 bytes, or a 10th byte above 0x01.
	Overflow = -1
)

// Append appends v to dst and returns the extended slice.
func Append(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }

// Size is the number of bytes Append writes for v.
func Size(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Decode reads one value from the start of b. It returns the value and the number
// of bytes consumed (n > 0), or n == Truncated when b ends inside the value, or
// n == Overflow when the encoding is longer than 10 bytes or overflows 64 bits.
func Decode(b []byte) (v uint64, n int) {
	v, n = binary.Uvarint(b)
	switch {
	case n < 0:
		return 0, Overflow
	case n == 0 && len(b) >= MaxLen:
		// encoding/binary calls a 10th byte with its continuation bit set
		// "truncated" when the input ends there; it can never be valid.
		return 0, Overflow
	}
	return v, n
}

// naiveDecode is the hand-written decoder kept for the benchmark comparison.
func naiveDecode(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	var shift uint
	for i := 0; i < len(b); i++ {
		c := b[i]
		if i == MaxLen-1 {
			if c > 1 {
				return 0, Overflow
			}
			return v | uint64(c)<<shift, i + 1
		}
		if c < 0x80 {
			return v | uint64(c)<<shift, i + 1
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, Truncated
}
