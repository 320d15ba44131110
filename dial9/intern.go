package dial9

import (
	"slices"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// internTable maps content to pool ids, keyed by the xxhash of the content
// and confirmed by comparing the stored content, so a hit allocates nothing.
type internTable[T byte | uint64] struct {
	index   map[uint64]int32 // hash → first entry with that hash
	entries []internEntry
	data    []T
	next    uint32 // next id to assign
}

type internEntry struct {
	off, n int
	id     uint32
	next   int32 // next entry with the same hash, -1 at the end
}

func (t *internTable[T]) reset() {
	if t.index == nil {
		t.index = map[uint64]int32{}
	}
	clear(t.index)
	t.entries = t.entries[:0]
	t.data = t.data[:0]
	t.next = 0
}

func (t *internTable[T]) find(h uint64, v []T) (uint32, bool) {
	i, ok := t.index[h]
	if !ok {
		return 0, false
	}
	for i >= 0 {
		e := &t.entries[i]
		if slices.Equal(t.data[e.off:e.off+e.n], v) {
			return e.id, true
		}
		i = e.next
	}
	return 0, false
}

func (t *internTable[T]) add(h uint64, v []T, id uint32) {
	prev, ok := t.index[h]
	if !ok {
		prev = -1
	}
	t.entries = append(t.entries, internEntry{off: len(t.data), n: len(v), id: id, next: prev})
	t.data = append(t.data, v...)
	t.index[h] = int32(len(t.entries) - 1)
}

func hashString(s string) uint64 { return xxhash.Sum64String(s) }

func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// hashStack hashes the addresses' in-memory bytes (only used in-process).
func hashStack(frames []uint64) uint64 {
	if len(frames) == 0 {
		return xxhash.Sum64(nil)
	}
	return xxhash.Sum64(unsafe.Slice((*byte)(unsafe.Pointer(&frames[0])), 8*len(frames)))
}

func xxhashBytes(b []byte) uint64 { return xxhash.Sum64(b) }
