package parquetexport

import (
	"github.com/tracecodec/tracecodec/events"
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

// argCol is one typed argument column of a batch. Its slices are padded
// lazily: an index at or beyond their length is a null.
type argCol struct {
	name  string
	kind  colKind
	valid []bool
	nums  []uint64 // int, uint, float bits, bool
	strs  []span   // string, bytes
}

// has reports whether row r holds a value.
func (c *argCol) has(r int) bool { return r < len(c.valid) && c.valid[r] }

// pad extends the column with nulls up to n rows.
func (c *argCol) pad(n int) {
	for len(c.valid) < n {
		c.valid = append(c.valid, false)
		if c.kind == colString || c.kind == colBytes {
			c.strs = append(c.strs, span{})
		} else {
			c.nums = append(c.nums, 0)
		}
	}
}

func (c *argCol) setNum(r int, v uint64) {
	c.pad(r)
	if r == len(c.valid) {
		c.valid, c.nums = append(c.valid, true), append(c.nums, v)
		return
	}
	c.valid[r], c.nums[r] = true, v
}

func (c *argCol) setStr(r int, s span) {
	c.pad(r)
	if r == len(c.valid) {
		c.valid, c.strs = append(c.valid, true), append(c.strs, s)
		return
	}
	c.valid[r], c.strs[r] = true, s
}

// strDict interns the low-cardinality strings of a batch (sources, track
// names, event names).
type strDict struct {
	ids  map[string]uint32
	strs [][]byte
}

func (d *strDict) id(s string) uint32 {
	if id, ok := d.ids[s]; ok {
		return id
	}
	id := uint32(len(d.strs))
	d.ids[s] = id
	d.strs = append(d.strs, []byte(s))
	return id
}

// batch is one row group being filled, column by column, for one format.
type batch struct {
	format string
	rows   int
	size   int64  // Parquet plain-encoded size of the values so far
	gen    uint64 // incremented at every reset: rows of older generations are gone

	source    []uint32
	trackKind []uint8
	trackID   []uint64
	trackName []uint32
	ts        []int64
	hasTs     []bool
	dur       []int64
	hasDur    []bool
	name      []uint32
	kind      []uint8
	json      []span // n == 0: null
	skip      []bool // rows not to write (carried to the next batch); nil if none
	skipped   int

	dict   strDict
	arena  []byte
	cols   []*argCol
	byName map[string]*argCol
}

func newBatch(format string) *batch {
	return &batch{format: format, dict: strDict{ids: map[string]uint32{}}, byName: map[string]*argCol{}}
}

// reset empties the batch for the next row group, keeping its buffers.
func (b *batch) reset() {
	b.rows, b.size = 0, 0
	b.gen++
	b.source, b.trackKind, b.trackID, b.trackName = b.source[:0], b.trackKind[:0], b.trackID[:0], b.trackName[:0]
	b.ts, b.hasTs, b.dur, b.hasDur = b.ts[:0], b.hasTs[:0], b.dur[:0], b.hasDur[:0]
	b.name, b.kind, b.json = b.name[:0], b.kind[:0], b.json[:0]
	b.skip, b.skipped = b.skip[:0], 0
	b.arena = b.arena[:0]
	clear(b.dict.ids)
	b.dict.strs = b.dict.strs[:0]
	for _, c := range b.cols {
		c.valid, c.nums, c.strs = c.valid[:0], c.nums[:0], c.strs[:0]
	}
}

// column returns the typed column called name, creating it with kind; ok
// is false when the column exists with another kind (the value then goes to
// args_json).
func (b *batch) column(name string, kind colKind) (c *argCol, ok bool) {
	if c, found := b.byName[name]; found {
		return c, c.kind == kind
	}
	c = &argCol{name: name, kind: kind}
	b.byName[name] = c
	b.cols = append(b.cols, c)
	return c, true
}

// addRow appends the common columns of a new row and returns its index.
func (b *batch) addRow(source uint32, e *events.Event) int {
	r := b.rows
	b.rows++
	t := e.Track()
	b.source = append(b.source, source)
	b.trackKind = append(b.trackKind, uint8(t.Kind))
	b.trackID = append(b.trackID, t.ID)
	b.trackName = append(b.trackName, b.dict.id(t.Name))
	b.ts = append(b.ts, e.Time())
	b.hasTs = append(b.hasTs, e.HasTime())
	b.dur = append(b.dur, e.Duration())
	b.hasDur = append(b.hasDur, e.Kind() == events.KindComplete)
	b.name = append(b.name, b.dict.id(e.Name()))
	b.kind = append(b.kind, uint8(e.Kind()))
	b.json = append(b.json, span{})
	// format, source, track_kind, track_name, name, kind as dictionary
	// indexes are counted at their plain size: 4-byte length + text.
	b.size += int64(24+len(b.format)+len(t.Name)+len(e.Name())+len(e.Kind().String())+len(t.Kind.String())) + 8*3 + 8
	return r
}

// putBytes stores s in the arena.
func (b *batch) putBytes(s []byte) span {
	off := len(b.arena)
	b.arena = append(b.arena, s...)
	return span{uint32(off), uint32(len(s))}
}

func (b *batch) bytes(s span) []byte { return b.arena[s.off : s.off+s.n] }

// padAll pads every typed column to the batch's row count.
func (b *batch) padAll() {
	for _, c := range b.cols {
		c.pad(b.rows)
	}
}

// copyRow appends row r of src to b (re-interning its strings) and returns
// its index in b.
func (b *batch) copyRow(src *batch, r int) int {
	d := b.rows
	b.rows++
	b.source = append(b.source, b.dict.id(string(src.dict.strs[src.source[r]])))
	b.trackKind = append(b.trackKind, src.trackKind[r])
	b.trackID = append(b.trackID, src.trackID[r])
	b.trackName = append(b.trackName, b.dict.id(string(src.dict.strs[src.trackName[r]])))
	b.ts, b.hasTs = append(b.ts, src.ts[r]), append(b.hasTs, src.hasTs[r])
	b.dur, b.hasDur = append(b.dur, src.dur[r]), append(b.hasDur, src.hasDur[r])
	b.name = append(b.name, b.dict.id(string(src.dict.strs[src.name[r]])))
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
func (b *batch) skipRow(r int) {
	for len(b.skip) < b.rows {
		b.skip = append(b.skip, false)
	}
	if !b.skip[r] {
		b.skip[r] = true
		b.skipped++
	}
}

// skips reports whether row r is not to be written.
func (b *batch) skips(r int) bool { return b.skipped > 0 && r < len(b.skip) && b.skip[r] }
