package parquetexport

import (
	"fmt"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/wire"
)

// colKind is the Parquet type of a typed argument column.
type colKind uint8

const (
	colInt    colKind = iota + 1 // INT64
	colUint                      // INT64 annotated UINT(64)
	colFloat                     // DOUBLE
	colBool                      // BOOLEAN
	colString                    // BYTE_ARRAY annotated STRING
	colBytes                     // BYTE_ARRAY
)

// span locates bytes in a batch's arena.
type span struct{ off, n uint32 }

// bitmap is a validity bitmap: bit r%64 of word r/64 is set when row r
// holds a value.
type bitmap []uint64

func (m bitmap) has(r int) bool {
	w := r >> 6
	return w < len(m) && m[w]>>(uint(r)&63)&1 != 0
}

// count is the number of set bits.
func (m bitmap) count() int {
	n := 0
	for _, w := range m {
		n += bits.OnesCount64(w)
	}
	return n
}

// argCol is one typed argument column of a batch: a value slot per row up
// to the last row that holds a value (slots of rows without a value hold
// garbage) and the validity bitmap; rows beyond the slots are nulls.
type argCol struct {
	name string
	kind colKind
	bits bitmap
	nums []uint64 // int, uint, float bits, bool
	strs []span   // string, bytes
	n    int      // values set
	b    *batch   // the batch whose rows the slots are (bounds their growth)
}

// has reports whether row r holds a value.
func (c *argCol) has(r int) bool { return c.bits.has(r) }

// slot makes row r addressable and reports whether it already holds a
// value.
func (c *argCol) slot(r int) bool {
	w := r >> 6
	if w >= len(c.bits) {
		c.growBits(w)
	}
	if c.kind == colString || c.kind == colBytes {
		if r >= len(c.strs) {
			c.b.size += int64(r-len(c.strs)) * 8 // null slots before r
			if r < cap(c.strs) {
				c.strs = c.strs[:r+1] // slots without a value hold garbage
			} else {
				c.strs = growRows(c.strs, r+1, c.b)
			}
		}
	} else if r >= len(c.nums) {
		c.b.size += int64(r-len(c.nums)) * 8 // null slots before r
		if r < cap(c.nums) {
			c.nums = c.nums[:r+1]
		} else {
			c.nums = growRows(c.nums, r+1, c.b)
		}
	}
	m := uint64(1) << (uint(r) & 63)
	if c.bits[w]&m != 0 {
		return true
	}
	c.bits[w] |= m
	c.n++
	return false
}

// putNum sets row r's value to v and reports true, unless the row holds a
// value already (then it reports false and leaves it): slot and the store
// in one step, for a numeric column.
func (c *argCol) putNum(r int, v uint64) bool {
	w := r >> 6
	if w >= len(c.bits) {
		c.growBits(w)
	}
	m := uint64(1) << (uint(r) & 63)
	if c.bits[w]&m != 0 {
		return false
	}
	c.bits[w] |= m
	c.n++
	if r >= len(c.nums) {
		c.b.size += int64(r-len(c.nums)) * 8 // null slots before r
		if r < cap(c.nums) {
			c.nums = c.nums[:r+1] // slots without a value hold garbage
		} else {
			c.nums = growRows(c.nums, r+1, c.b)
		}
	}
	c.nums[r] = v
	return true
}

// growBits extends the bitmap with cleared words up to word w.
func (c *argCol) growBits(w int) {
	for len(c.bits) <= w {
		c.bits = append(c.bits, 0)
	}
}

func (c *argCol) setNum(r int, v uint64) {
	c.slot(r)
	c.nums[r] = v
}

func (c *argCol) setStr(r int, s span) {
	c.slot(r)
	c.strs[r] = s
}

// growTo returns s extended to length n (n > len(s)), doubling its capacity
// when it must grow (append grows large slices by only a quarter, copying
// them many times over).
func growTo[T any](s []T, n int) []T {
	if n > cap(s) {
		// Grow, not make: only the new part is cleared.
		s = slices.Grow(s, max(n-len(s), cap(s), 1024))
	}
	return s[:n]
}

// minColGrow is the least growth of an argument column's slots: a column
// with few values (one of thousands of distinct field names) holds little.
const minColGrow = 64

// growRows is growTo for the slots of an argument column: it grows them
// at most to the batch's row capacity (slots never pass the rows), so that
// a column created after presize does not double beyond the row group.
func growRows[T any](s []T, n int, b *batch) []T {
	// What it asks for, and its size class's rounding (< 1/8).
	want := len(s) + max(n-len(s), cap(s), minColGrow)
	if n > cap(s) && b != nil && cap(b.ts) >= n && want+want/8 >= cap(b.ts) {
		// make, not Grow: append's growth would pass the row capacity.
		g := make([]T, len(s), cap(b.ts))
		copy(g, s)
		return g[:n]
	}
	if n > cap(s) {
		s = slices.Grow(s, max(n-len(s), cap(s), minColGrow))
	}
	return s[:n]
}

// reserve makes room for one more element without append's reallocation.
func reserve[T any](s []T) []T {
	if len(s) == cap(s) {
		return growTo(s, len(s)+1)[:len(s)]
	}
	return s
}

// strDict interns the strings of one dictionary column of a batch.
type strDict struct {
	ids  map[string]uint32
	strs []string
	// last is a one-entry cache: the string most recently interned.
	last   string
	lastID uint32
	ok     bool
}

func (d *strDict) id(s string) uint32 {
	if d.ok && s == d.last {
		return d.lastID
	}
	id, ok := d.ids[s]
	if !ok {
		id = uint32(len(d.strs))
		d.ids[s] = id
		// The dictionary columns are STRING: valid UTF-8 (validText).
		d.strs = append(d.strs, validText(s))
	}
	d.last, d.lastID, d.ok = s, id, true
	return id
}

func (d *strDict) reset() {
	clear(d.ids)
	d.strs = d.strs[:0]
	d.ok = false
}

// batch is one row group being filled, column by column, for one format.
type batch struct {
	format string
	rows   int
	size   int64 // Parquet plain-encoded size of the values so far
	// carried is the size of the open begins carried into this row
	// group from the last (converter.flush), which do not count towards
	// its limit.
	carried int64
	gen     uint64 // incremented at every reset: rows of older generations are gone

	source    []uint32 // srcDict ids
	trackKind []uint8
	trackID   []int64
	trackName []uint32 // tnDict ids
	ts        []int64
	hasTs     bitmap
	dur       []int64
	hasDur    bitmap
	name      []uint32 // nameDict ids
	kind      []uint8
	json      []span  // n == 0: null
	skip      []int32 // rows not to write (carried to the next batch)

	srcDict, tnDict, nameDict strDict

	arena  []byte
	cols   []*argCol
	byName map[string]*argCol

	// maxCols bounds the columns (0: no bound); err is set when an input
	// asks for more, and the read loop stops with ErrLimit.
	maxCols int
	err     error
	over    argCol // what column returns beyond maxCols: no kind matches
}

func newBatch(format string) *batch {
	b := &batch{format: format, byName: map[string]*argCol{}}
	for _, d := range []*strDict{&b.srcDict, &b.tnDict, &b.nameDict} {
		d.ids = map[string]uint32{}
	}
	return b
}

// startFile prepares the batch for a new shard's files: no rows, no
// columns (the row buffers are kept).
func (b *batch) startFile(o *options) {
	b.reset()
	b.cols = nil
	clear(b.byName)
	b.maxCols, b.err = o.maxColumns, nil
}

// reset empties the batch for the next row group, keeping its buffers and
// its columns.
func (b *batch) reset() {
	b.rows, b.size, b.carried = 0, 0, 0
	b.gen++
	b.source, b.trackKind, b.trackID, b.trackName = b.source[:0], b.trackKind[:0], b.trackID[:0], b.trackName[:0]
	b.ts, b.hasTs, b.dur, b.hasDur = b.ts[:0], b.hasTs[:0], b.dur[:0], b.hasDur[:0]
	b.name, b.kind, b.json = b.name[:0], b.kind[:0], b.json[:0]
	b.skip = b.skip[:0]
	b.arena = b.arena[:0]
	b.srcDict.reset()
	b.tnDict.reset()
	b.nameDict.reset()
	for _, c := range b.cols {
		// A column keeps its buffers for the next row group only when
		// this one used half of them: the buffers of a column that
		// filled one row group and is sparse or absent in the next are
		// not held on to (they were counted against the row group size
		// while they were used, not after).
		if cap(c.nums) > 2*len(c.nums)+minColGrow || cap(c.strs) > 2*len(c.strs)+minColGrow {
			c.nums, c.strs, c.bits = nil, nil, nil
		}
		c.bits, c.nums, c.strs, c.n = c.bits[:0], c.nums[:0], c.strs[:0], 0
	}
}

// presize grows the batch's columns, once they hold enough rows to tell
// the size of a row, to the rows a row group of limit bytes will hold, so
// that the first row group does not grow them by doubling (each doubling
// copies the column into fresh memory; the capacity is kept by reset).
// Argument columns with values in the later half of the rows so far grow
// with them (their slots run to their last value, however sparse).
func (b *batch) presize(limit int64) {
	const minRows = 1 << 15
	if b.rows < minRows || b.size <= 0 || b.rows > cap(b.ts)/2 {
		return
	}
	// Rows are at least 32 bytes (addRow counts 56 and more).
	est := min(limit*int64(b.rows)/b.size, limit/32)
	n := int(est + est/8)
	if n <= cap(b.ts) {
		return
	}
	b.source, b.trackKind, b.trackID, b.trackName = growCap(b.source, n), growCap(b.trackKind, n), growCap(b.trackID, n), growCap(b.trackName, n)
	b.ts, b.dur, b.name, b.kind, b.json = growCap(b.ts, n), growCap(b.dur, n), growCap(b.name, n), growCap(b.kind, n), growCap(b.json, n)
	b.hasTs, b.hasDur = growCap(b.hasTs, n/64+1), growCap(b.hasDur, n/64+1)
	b.arena = growCap(b.arena, int(int64(len(b.arena))*int64(n)/int64(b.rows)))
	for _, c := range b.cols {
		// A column's slots run to its last value: a column with values
		// in the later half of the rows (even a sparse one) will run to
		// about the last row.
		if max(len(c.nums), len(c.strs)) < b.rows/2 {
			continue
		}
		if c.kind == colString || c.kind == colBytes {
			c.strs = growCap(c.strs, n)
		} else {
			c.nums = growCap(c.nums, n)
		}
		c.bits = growCap(c.bits, n/64+1)
	}
}

// growCap returns s with a capacity of at least n.
func growCap[T any](s []T, n int) []T {
	if n > cap(s) {
		s = slices.Grow(s, n-len(s))
	}
	return s
}

// column returns the typed column called name, creating it with kind; ok
// is false when the column exists with another kind (the value then goes to
// args_json).
func (b *batch) column(name string, kind colKind) (c *argCol, ok bool) {
	if c, found := b.byName[name]; found {
		return c, c.kind == kind
	}
	if b.maxCols > 0 && len(b.cols) >= b.maxCols {
		if b.err == nil {
			b.err = fmt.Errorf("more than %d typed argument columns in one %s file (the %d-th is %s; WithMaxColumns, tracecat export --max-columns)",
				b.maxCols, b.format, len(b.cols)+1, name)
		}
		return &b.over, false
	}
	c = &argCol{name: name, kind: kind, b: b}
	b.byName[name] = c
	b.cols = append(b.cols, c)
	return c, true
}

// newRow appends a row (common columns zero, no arguments) and returns its
// index.
func (b *batch) newRow() int {
	r := b.rows
	b.rows++
	if r == cap(b.ts) {
		b.source, b.trackKind, b.trackID, b.trackName = reserve(b.source), reserve(b.trackKind), reserve(b.trackID), reserve(b.trackName)
		b.ts, b.dur, b.name, b.kind, b.json = reserve(b.ts), reserve(b.dur), reserve(b.name), reserve(b.kind), reserve(b.json)
	}
	if r&63 == 0 {
		b.hasTs = append(b.hasTs, 0)
		b.hasDur = append(b.hasDur, 0)
	}
	return r
}

// addRow appends the common columns of a new row and returns its index;
// nameID is the event name's id in nameDict, trackName the track name's in
// tnDict.
func (b *batch) addRow(source uint32, e *events.Event, t *events.Track, trackName, nameID uint32, nameLen int) int {
	r := b.newRow()
	kind := e.Kind()
	b.source = append(b.source, source)
	b.trackKind = append(b.trackKind, uint8(t.Kind))
	b.trackID = append(b.trackID, int64(t.ID))
	b.trackName = append(b.trackName, trackName)
	b.ts = append(b.ts, e.Time())
	if e.HasTime() {
		b.hasTs[r>>6] |= 1 << (uint(r) & 63)
	}
	b.dur = append(b.dur, e.Duration())
	if kind == events.KindComplete {
		b.hasDur[r>>6] |= 1 << (uint(r) & 63)
	}
	b.name = append(b.name, nameID)
	b.kind = append(b.kind, uint8(kind))
	b.json = append(b.json, span{})
	// format, source, track_kind, track_name, name, kind as dictionary
	// indexes are counted at their plain size: 4-byte length + text.
	b.size += int64(24+len(b.format)+len(t.Name)+nameLen+len(kindBytes[kind&15])+len(trackKindBytes[t.Kind&15])) + 8*3 + 8
	return r
}

func setBit(m bitmap, r int, on bool) {
	if on {
		m[r>>6] |= 1 << (uint(r) & 63)
	} else {
		m[r>>6] &^= 1 << (uint(r) & 63)
	}
}

// putString stores s, text of a STRING column, in the arena: valid UTF-8
// as it is, else with each invalid byte sequence replaced by U+FFFD
// (Parquet's STRING is UTF-8, and strict readers refuse anything else).
func (b *batch) putString(s []byte) span {
	if utf8.Valid(s) {
		return b.putBytes(s)
	}
	off := len(b.arena)
	b.arena = appendValidUTF8(wire.Room(b.arena, len(s)), s)
	return span{uint32(off), uint32(len(b.arena) - off)}
}

// appendValidUTF8 appends s with each invalid byte sequence replaced by
// U+FFFD (what strings.ToValidUTF8 does, without the string).
func appendValidUTF8(dst, s []byte) []byte {
	invalid := false
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r == utf8.RuneError && n == 1 {
			// A run of invalid bytes becomes one replacement.
			if !invalid {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			}
			invalid = true
		} else {
			dst = append(dst, s[:n]...)
			invalid = false
		}
		s = s[n:]
	}
	return dst
}

// validText returns s, or (not valid UTF-8) s with each invalid byte
// sequence replaced by U+FFFD.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// putBytes stores s in the arena.
func (b *batch) putBytes(s []byte) span {
	off := len(b.arena)
	b.arena = append(wire.Room(b.arena, len(s)), s...)
	return span{uint32(off), uint32(len(s))}
}

func (b *batch) bytes(s span) []byte { return b.arena[s.off : s.off+s.n] }

// copyRow appends row r of src to b (re-interning its strings) and returns
// its index in b.
func (b *batch) copyRow(src *batch, r int) int {
	d := b.newRow()
	b.source = append(b.source, b.srcDict.id(src.srcDict.strs[src.source[r]]))
	b.trackKind = append(b.trackKind, src.trackKind[r])
	b.trackID = append(b.trackID, src.trackID[r])
	b.trackName = append(b.trackName, b.tnDict.id(src.tnDict.strs[src.trackName[r]]))
	b.ts = append(b.ts, src.ts[r])
	setBit(b.hasTs, d, src.hasTs.has(r))
	b.dur = append(b.dur, src.dur[r])
	setBit(b.hasDur, d, src.hasDur.has(r))
	b.name = append(b.name, b.nameDict.id(src.nameDict.strs[src.name[r]]))
	b.kind = append(b.kind, src.kind[r])
	j := span{}
	if src.json[r].n > 0 {
		j = b.putBytes(src.bytes(src.json[r]))
	}
	b.json = append(b.json, j)
	b.size += 64 + int64(j.n)
	for _, c := range src.cols {
		if !c.has(r) {
			continue
		}
		dc, ok := b.column(c.name, c.kind)
		if !ok {
			continue
		}
		if c.kind == colString || c.kind == colBytes {
			v := src.bytes(c.strs[r])
			dc.setStr(d, b.putBytes(v))
			b.size += 5 + int64(len(v))
		} else {
			dc.setNum(d, c.nums[r])
			b.size += 9
		}
	}
	return d
}

// skipRow marks row r as not to be written.
func (b *batch) skipRow(r int) { b.skip = append(b.skip, int32(r)) }

// dropSkipped removes the rows marked by skipRow, moving the rows after
// them down (the skipped rows are few: the open begins carried to the next
// row group).
func (b *batch) dropSkipped() {
	if len(b.skip) == 0 {
		return
	}
	sort.Slice(b.skip, func(i, j int) bool { return b.skip[i] < b.skip[j] })
	sk := slices.Compact(b.skip)
	b.source = compactSlice(b.source, sk)
	b.trackKind = compactSlice(b.trackKind, sk)
	b.trackID = compactSlice(b.trackID, sk)
	b.trackName = compactSlice(b.trackName, sk)
	b.ts = compactSlice(b.ts, sk)
	b.dur = compactSlice(b.dur, sk)
	b.name = compactSlice(b.name, sk)
	b.kind = compactSlice(b.kind, sk)
	b.json = compactSlice(b.json, sk)
	b.hasTs = compactBits(b.hasTs, b.rows, sk)
	b.hasDur = compactBits(b.hasDur, b.rows, sk)
	for _, c := range b.cols {
		c.nums = compactSlice(c.nums, sk)
		c.strs = compactSlice(c.strs, sk)
		c.bits = compactBits(c.bits, b.rows, sk)
		c.n = c.bits.count()
	}
	b.rows -= len(sk)
	b.skip = b.skip[:0]
}

// compactSlice removes the elements at the sorted indexes sk (those at or
// beyond len(s) do not exist).
func compactSlice[T any](s []T, sk []int32) []T {
	if len(sk) == 0 || int(sk[0]) >= len(s) {
		return s
	}
	w := int(sk[0])
	for i, r := range sk {
		if int(r) >= len(s) {
			break
		}
		next := len(s)
		if i+1 < len(sk) {
			next = min(int(sk[i+1]), len(s))
		}
		w += copy(s[w:], s[int(r)+1:next])
	}
	removed := 0
	for _, r := range sk {
		if int(r) < len(s) {
			removed++
		}
	}
	return s[:len(s)-removed]
}

// compactBits removes the bits of the sorted rows sk from a bitmap of rows
// rows, leaving it the length for rows-len(sk) rows.
func compactBits(m bitmap, rows int, sk []int32) bitmap {
	if len(sk) == 0 {
		return m
	}
	w := int(sk[0])
	k := 0
	for r := w; r < rows; r++ {
		if k < len(sk) && int(sk[k]) == r {
			k++
			continue
		}
		setBitGrow(m, w, m.has(r))
		w++
	}
	n := (w + 63) >> 6
	m = m[:min(n, len(m))]
	if len(m) > 0 && w&63 != 0 {
		m[len(m)-1] &= 1<<(uint(w)&63) - 1
	}
	return m
}

func setBitGrow(m bitmap, r int, on bool) {
	if r>>6 >= len(m) {
		if !on {
			return
		}
	}
	setBit(m, r, on)
}
