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

var internTable [internSlots]atomic.Pointer[string]

func intern(b []byte) string {
	if len(b) > internMaxLen {
		return string(b)
	}
	slot := &internTable[internHash(b)%internSlots]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}

// internHash mixes the length and the first and last eight bytes of b (all
// of it when shorter): cheaper than hashing every byte, and a collision only
// costs an allocation, never a wrong string.
func internHash(b []byte) uint32 {
	var lo, hi uint64
	if n := len(b); n >= 8 {
		lo = binary.LittleEndian.Uint64(b)
		hi = binary.LittleEndian.Uint64(b[n-8:])
	} else {
		for i, c := range b {
			lo |= uint64(c) << (8 * i)
		}
	}
	h := (lo*0x9e3779b97f4a7c15 ^ hi*0xc2b2ae3d27d4eb4f ^ uint64(len(b))) * 0x165667b19e3779f9
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
			return intern(b[1:n]), b[n:], nil
		}
	}
	v, o, err := msgp.ReadStringZC(b)
	if err != nil {
		return "", b, err
	}
	return intern(v), o, nil
}
