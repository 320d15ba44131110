package schema7

import (
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
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &internTable[h%internSlots]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}

// readString is msgp.ReadStringBytes with interning of short strings.
func readString(b []byte) (string, []byte, error) {
	v, o, err := msgp.ReadStringZC(b)
	if err != nil {
		return "", b, err
	}
	return intern(v), o, nil
}
