package wtfcff

import (
	"bytes"

	"github.com/cespare/xxhash/v2"
)

// StringTable reads a string table part (0x30000): UTF-8 strings each
// followed by a NUL. Ordinals index the strings in order; NullString reads as
// null, EmptyString as "", and an out-of-range ordinal or an empty entry reads
// as null (the reference's `values[ordinal] || null`). The zero value is an
// empty table (every ordinal null, as for a chunk without a table).
type StringTable struct {
	data []byte
	ends []uint32 // end offset (exclusive, before the NUL) of each entry
	offs []uint32 // start offset of each entry
}

// Reset indexes data (kept, not copied). After warm-up it does not allocate.
func (t *StringTable) Reset(data []byte) {
	t.data = data
	t.offs = t.offs[:0]
	t.ends = t.ends[:0]
	start := 0
	for start <= len(data) {
		i := bytes.IndexByte(data[start:], 0)
		if i < 0 {
			if start < len(data) {
				t.offs = append(t.offs, uint32(start))
				t.ends = append(t.ends, uint32(len(data)))
			}
			break
		}
		t.offs = append(t.offs, uint32(start))
		t.ends = append(t.ends, uint32(start+i))
		start += i + 1
	}
}

// Len is the number of entries.
func (t *StringTable) Len() int { return len(t.offs) }

// Lookup returns the bytes of ordinal ord (a view into the table) and false
// when the value is null.
func (t *StringTable) Lookup(ord uint32) ([]byte, bool) {
	switch ord {
	case NullString:
		return nil, false
	case EmptyString:
		return []byte{}, true
	}
	if uint64(ord) >= uint64(len(t.offs)) {
		return nil, false
	}
	s := t.data[t.offs[ord]:t.ends[ord]]
	if len(s) == 0 {
		return nil, false
	}
	return s, true
}

// Strings returns every entry as a string (allocates).
func (t *StringTable) Strings() []string {
	out := make([]string, len(t.offs))
	for i := range t.offs {
		out[i] = string(t.data[t.offs[i]:t.ends[i]])
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
