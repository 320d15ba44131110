package wtfcff

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// StringTable reads a string table part (0x30000): UTF-8 strings each
// followed by a NUL. Ordinals index the strings in order; NullString reads as
// null, EmptyString as "", and an out-of-range ordinal or an empty entry reads
// as null (the reference's `values[ordinal] || null`). The zero value is an
// empty table (every ordinal null, as for a chunk without a table).
type StringTable struct {
	data []byte
	// starts holds the start offset of each entry and then one sentinel:
	// entry i is data[starts[i] : starts[i+1]-1] (the -1 drops its NUL; a
	// last entry without a NUL gets the sentinel len(data)+1). Empty for a
	// table without entries.
	starts []uint32
}

// Reset indexes data (kept, not copied). After warm-up it does not allocate.
// It finds the NULs eight bytes at a time.
func (t *StringTable) Reset(data []byte) {
	t.data = data
	st := append(t.starts[:0], 0)
	p := 0
	for ; len(data)-p >= 8; p += 8 {
		x := binary.LittleEndian.Uint64(data[p:])
		// The high bit of each zero byte (exact: no carry crosses a byte).
		z := ^((x&0x7f7f7f7f7f7f7f7f + 0x7f7f7f7f7f7f7f7f) | x) & 0x8080808080808080
		for z != 0 {
			st = append(st, uint32(p+bits.TrailingZeros64(z)>>3+1))
			z &= z - 1
		}
	}
	for ; p < len(data); p++ {
		if data[p] == 0 {
			st = append(st, uint32(p+1))
		}
	}
	if n := len(st); st[n-1] != uint32(len(data)) {
		// The last entry has no NUL: it ends with the data.
		st = append(st, uint32(len(data)+1))
	}
	if len(st) == 1 {
		st = st[:0] // no entries
	}
	t.starts = st
}

// Len is the number of entries.
func (t *StringTable) Len() int { return max(len(t.starts)-1, 0) }

// Lookup returns the bytes of ordinal ord (a view into the table) and false
// when the value is null.
func (t *StringTable) Lookup(ord uint32) ([]byte, bool) {
	if uint64(ord)+1 < uint64(len(t.starts)) {
		s := t.data[t.starts[ord] : t.starts[ord+1]-1]
		return s, len(s) != 0
	}
	if ord == EmptyString {
		return []byte{}, true
	}
	return nil, false // NullString, or past the table
}

// entryLen is the length of entry ord and whether ord is in the table.
func (t *StringTable) entryLen(ord uint32) (int, bool) {
	if uint64(ord)+1 < uint64(len(t.starts)) {
		return int(t.starts[ord+1] - 1 - t.starts[ord]), true
	}
	return 0, false
}

// Strings returns every entry as a string (allocates).
func (t *StringTable) Strings() []string {
	out := make([]string, t.Len())
	for i := range out {
		out[i] = string(t.data[t.starts[i] : t.starts[i+1]-1])
	}
	return out
}

// StringTableBuilder builds a chunk's string table with de-duplication: the
// same text always gets the same ordinal (the JS writer adds a new entry each
// time; both read the same). Keys are xxhash digests, so adding a string that
// is already present does not allocate.
type StringTableBuilder struct {
	data  []byte
	ords  map[uint64]uint32 // digest → ordinal of the first string with it
	offs  []uint32
	count uint32
}

// Reset empties the table, keeping its memory.
func (b *StringTableBuilder) Reset() {
	b.data = b.data[:0]
	b.offs = b.offs[:0]
	b.count = 0
	clear(b.ords)
}

// Add returns the ordinal of s, adding it if needed. "" gives EmptyString.
// s must not contain a NUL byte (the table's separator); such strings return
// ok=false.
func (b *StringTableBuilder) Add(s []byte) (ord uint32, ok bool) {
	if len(s) == 0 {
		return EmptyString, true
	}
	if bytes.IndexByte(s, 0) >= 0 {
		return NullString, false
	}
	if b.ords == nil {
		b.ords = make(map[uint64]uint32)
	}
	h := xxhash.Sum64(s)
	for {
		o, found := b.ords[h]
		if !found {
			break
		}
		if bytes.Equal(b.entry(o), s) {
			return o, true
		}
		h++ // digest collision with a different string: probe on
	}
	o := b.count
	b.ords[h] = o
	b.offs = append(b.offs, uint32(len(b.data)))
	b.data = append(b.data, s...)
	b.data = append(b.data, 0)
	b.count++
	return o, true
}

func (b *StringTableBuilder) entry(o uint32) []byte {
	start := b.offs[o]
	end := uint32(len(b.data)) - 1
	if int(o)+1 < len(b.offs) {
		end = b.offs[o+1] - 1
	}
	return b.data[start:end]
}

// Bytes returns the table part's body (valid until the next Add or Reset).
func (b *StringTableBuilder) Bytes() []byte { return b.data }

// Len is the number of entries.
func (b *StringTableBuilder) Len() int { return int(b.count) }

// AppendStringTable appends strings in the part layout (each followed by
// NUL). It reports false if a string contains a NUL.
func AppendStringTable(dst []byte, strs []string) ([]byte, bool) {
	for _, s := range strs {
		if bytes.IndexByte([]byte(s), 0) >= 0 {
			return dst, false
		}
		dst = append(dst, s...)
		dst = append(dst, 0)
	}
	return dst, true
}
