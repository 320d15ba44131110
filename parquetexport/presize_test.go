package parquetexport

import (
	"reflect"
	"testing"

	"github.com/tracecodec/tracecodec/events"
)

// TestPresize: presize grows the columns of a first row group to the rows
// its limit will hold, once, and leaves the rows as they are.
func TestPresize(t *testing.T) {
	dir := t.TempDir()
	in := genDial9(t, dir, 40000)
	o, _ := buildOptions(nil)
	fill := func(presize bool, limit int64) *batch {
		c := newConverter(&o)
		b := newBatch(events.FormatDial9)
		r, err := events.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		c.start(b, events.FormatDial9, in)
		for r.Next() {
			c.add(r.Event())
			if presize && b.rows&0x3fff == 0 {
				b.presize(limit)
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return b
	}
	plain := fill(false, 0)
	if plain.rows < 1<<15 {
		t.Fatalf("%d rows, want at least %d", plain.rows, 1<<15)
	}
	limit := plain.size * 4
	sized := fill(true, limit)
	if want := int(int64(sized.rows) * limit / sized.size); cap(sized.ts) < want || cap(sized.source) < want || cap(sized.json) < want {
		t.Errorf("capacity %d after presize, want at least %d rows", cap(sized.ts), want)
	}
	if cap(sized.ts) > int(limit/32)*2 {
		t.Errorf("capacity %d beyond the limit's %d rows", cap(sized.ts), limit/32)
	}
	// Every argument column of the stream is sparse (a third of the
	// rows), with values up to the last rows: each grows with the rows.
	sparse := 0
	for _, c := range sized.cols {
		if c.n < sized.rows/2 {
			sparse++
		}
		if cap(c.nums)+cap(c.strs) < cap(sized.ts) {
			t.Errorf("column %s: capacity %d, %d, want %d", c.name, cap(c.nums), cap(c.strs), cap(sized.ts))
		}
	}
	if sparse < 4 {
		t.Errorf("%d sparse columns, want the stream's", sparse)
	}
	if plain.rows != sized.rows || plain.size != sized.size || !reflect.DeepEqual(plain.ts, sized.ts) ||
		!reflect.DeepEqual(plain.json, sized.json) || !reflect.DeepEqual(plain.hasTs, sized.hasTs) || len(plain.cols) != len(sized.cols) {
		t.Fatal("presize changed the rows")
	}
	for i, c := range plain.cols {
		d := sized.cols[i]
		if c.name != d.name || c.n != d.n || !reflect.DeepEqual(c.bits, d.bits) || !reflect.DeepEqual(c.nums, d.nums) || !reflect.DeepEqual(c.strs, d.strs) {
			t.Errorf("column %s differs after presize", c.name)
		}
	}
	// Too few rows to tell a row's size: nothing grows.
	small := newBatch(events.FormatDial9)
	small.presize(1 << 30)
	if cap(small.ts) != 0 {
		t.Errorf("presize of an empty batch: capacity %d", cap(small.ts))
	}
}

// TestColumnGrowsToRows: an argument column's slots grow at most to the
// batch's row capacity, not by doubling beyond it.
func TestColumnGrowsToRows(t *testing.T) {
	b := newBatch(events.FormatDial9)
	b.ts = make([]int64, 0, 5000)
	cl, _ := b.column("x", colUint)
	cl.setNum(3000, 1)
	cl.setNum(4500, 2)
	if cap(cl.nums) != 5000 || cl.nums[3000] != 1 || cl.nums[4500] != 2 || cl.n != 2 || !cl.has(3000) || cl.has(3001) {
		t.Errorf("capacity %d (want 5000), n %d", cap(cl.nums), cl.n)
	}
	s, _ := b.column("s", colString)
	s.setStr(4999, span{1, 2})
	if cap(s.strs) != 5000 || s.strs[4999] != (span{1, 2}) {
		t.Errorf("string column capacity %d (want 5000)", cap(s.strs))
	}
}
