package schema7

import (
	"encoding/binary"
	"sync/atomic"

	"github.com/tinylib/msgp/msgp"
)

// Decoded rows repeat a few short strings on every tick (pool kinds, phase
// names, caller addresses, mode functions). The generated decoders read
// strings through readString (rewritten by internal/strictgen), which
// returns a shared copy of short strings from a small lock-free table
// instead of allocating each time. Strings are immutable, so sharing them is
// invisible to callers.

const (
	internSlots  = 4096
	internMaxLen = 48
)

// internEntry is one interned string with the two words it was hashed
// from: for strings of up to 16 bytes they hold every byte, so a lookup
// compares them and the length without reading the string's bytes (one
// memory access fewer on the hot path, and no call to compare memory).
type internEntry struct {
	lo, hi uint64
	s      string
}

var internTable [internSlots]atomic.Pointer[internEntry]

// intern returns a shared copy of b when it is short (see above).
func intern(b []byte) string {
	lo, hi := internWords(b)
	return internWith(b, lo, hi)
}

// internAt is intern(buf[:n]) for 0 ≤ n ≤ len(buf): where buf holds eight
// bytes or more it reads the first word in one load instead of byte by byte.
func internAt(buf []byte, n int) string {
	b := buf[:n]
	if n < 8 && len(buf) >= 8 {
		lo := binary.LittleEndian.Uint64(buf) & (1<<(8*uint(n)) - 1)
		return internWith(b, lo, 0)
	}
	lo, hi := internWords(b)
	return internWith(b, lo, hi)
}

func internWith(b []byte, lo, hi uint64) string {
	n := len(b)
	if n > internMaxLen {
		return string(b)
	}
	slot := &internTable[internHash(lo, hi, n)%internSlots]
	if e := slot.Load(); e != nil && e.lo == lo && e.hi == hi && len(e.s) == n && (n <= 16 || e.s == string(b)) {
		return e.s
	}
	e := &internEntry{lo: lo, hi: hi, s: string(b)}
	slot.Store(e)
	return e.s
}

// internWords returns the first and the last eight bytes of b as
// little-endian words (b zero-padded in lo and hi 0 when shorter than
// eight): together they hold all of b when it has at most 16 bytes.
func internWords(b []byte) (lo, hi uint64) {
	if n := len(b); n >= 8 {
		return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	}
	for i, c := range b {
		lo |= uint64(c) << (8 * i)
	}
	return lo, 0
}

// internHash mixes the length and the first and last eight bytes of b:
// cheaper than hashing every byte, and a collision only costs an
// allocation, never a wrong string.
func internHash(lo, hi uint64, n int) uint32 {
	h := (lo*0x9e3779b97f4a7c15 ^ hi*0xc2b2ae3d27d4eb4f ^ uint64(n)) * 0x165667b19e3779f9
	return uint32(h >> 32)
}

// keyLen returns 1 + the length of the fixstr at the start of b (the form
// every schema key takes) when b holds all of it, else 0. The generated
// decoders read map keys through it (internal/strictgen) and fall back to
// msgp.ReadMapKeyZC for every other form; it is small enough to inline.
func keyLen(b []byte) int {
	if len(b) > 0 && b[0]&0xe0 == 0xa0 && int(b[0]&0x1f) < len(b) {
		return int(b[0]&0x1f) + 1
	}
	return 0
}

// readString is msgp.ReadStringBytes with interning of short strings.
func readString(b []byte) (string, []byte, error) {
	if len(b) > 0 && b[0]&0xe0 == 0xa0 {
		if n := int(b[0]&0x1f) + 1; n <= len(b) {
			return internAt(b[1:], n-1), b[n:], nil
		}
	}
	v, o, err := msgp.ReadStringZC(b)
	if err != nil {
		return "", b, err
	}
	return intern(v), o, nil
}
