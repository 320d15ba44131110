package events

import (
	"math/bits"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/ctf2meta"
)

// The per-value table of narrow enumerations and the interval tree of wide
// ones give the same labels, signed and unsigned.
func TestCTFEnumDenseEqualsScan(t *testing.T) {
	neg := func(v int64) uint64 { return uint64(v) }
	for _, kind := range []ctf.Kind{ctf.KindSint, ctf.KindUint, ctf.KindVarSint} {
		fc := &ctf.FieldClass{Name: "x", Kind: kind, Mappings: []ctf.Mapping{
			{Name: "NEG", Ranges: []ctf.Range{{Lo: neg(-5), Hi: neg(-1)}}},
			{Name: "ZERO", Ranges: []ctf.Range{{Lo: 0, Hi: 0}, {Lo: 7, Hi: 9}}},
			{Name: "SMALL", Ranges: []ctf.Range{{Lo: neg(-2), Hi: 200}}},
		}}
		if kind == ctf.KindUint {
			fc.Mappings[0].Ranges[0] = ctf.Range{Lo: 200, Hi: 250}
			fc.Mappings[2].Ranges[0] = ctf.Range{Lo: 2, Hi: 220}
		}
		dense := newCTFEnum(fc)
		if dense.dense == nil {
			t.Fatalf("%v: not tabulated", kind)
		}
		scan := *dense
		scan.dense = nil
		scan.index()
		s := &ctfSource{}
		for v := int64(-1000); v <= 1000; v++ {
			s.text = s.text[:0]
			a, b := s.label(dense, uint64(v)), s.label(&scan, uint64(v))
			if a.Kind() != b.Kind() || string(a.Bytes()) != string(b.Bytes()) {
				t.Fatalf("%v: value %d: table %v %q, scan %v %q", kind, v, a.Kind(), a.Bytes(), b.Kind(), b.Bytes())
			}
		}
		if kind == ctf.KindSint {
			if v := s.label(dense, neg(-1)); string(v.Bytes()) != "NEG|SMALL" {
				t.Errorf("-1: %q", v.Bytes())
			}
		}
	}
	// Too many labels to tabulate: scanned.
	many := &ctf.FieldClass{Name: "m", Kind: ctf.KindUint}
	for k := range ctfDenseRanges + 1 {
		many.Mappings = append(many.Mappings, ctf.Mapping{Name: "L" + string(rune('a'+k%26)), Ranges: []ctf.Range{{Lo: uint64(k), Hi: uint64(k)}}})
	}
	if en := newCTFEnum(many); en.dense != nil {
		t.Errorf("%d labels tabulated", len(many.Mappings))
	} else if v := (&ctfSource{}).label(en, 27); string(v.Bytes()) != "Lb" {
		t.Errorf("27: %q", v.Bytes())
	}
	wide := &ctf.FieldClass{Name: "w", Kind: ctf.KindSint, Mappings: []ctf.Mapping{
		{Name: "ALL", Ranges: []ctf.Range{{Lo: neg(-100000), Hi: 100000}}},
		{Name: "ONE", Ranges: []ctf.Range{{Lo: 1, Hi: 1}}},
	}}
	en := newCTFEnum(wide)
	if en.dense != nil {
		t.Fatalf("wide enumeration tabulated (%d entries)", len(en.dense))
	}
	s := &ctfSource{}
	for v, want := range map[int64]string{-100000: "ALL", 1: "ALL|ONE", 100001: "", -100001: ""} {
		got := s.label(en, uint64(v))
		if string(got.Bytes()) != want || (want == "") != (got.Kind() == ValueNull) {
			t.Errorf("%d: %v %q, want %q", v, got.Kind(), got.Bytes(), want)
		}
	}
}

// The interval tree (and a bit map's flags by bit) finds the labels the
// scan of every mapping finds, in the same order, on enumerations of many
// overlapping, nested, duplicated and single-value ranges, signed and
// unsigned, and on bit maps.
func TestCTFEnumTreeEqualsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		kind := []ctf.Kind{ctf.KindUint, ctf.KindSint}[round%2]
		fc := &ctf.FieldClass{Name: "x", Kind: kind}
		for q := range 1 + rng.IntN(60) {
			m := ctf.Mapping{Name: "L" + strconv.Itoa(q)}
			for range 1 + rng.IntN(3) {
				lo := rng.Int64N(400) - 200
				hi := lo + rng.Int64N([]int64{1, 5, 100, 1000}[rng.IntN(4)])
				if kind == ctf.KindUint {
					lo, hi = lo+200, hi+200
				}
				m.Ranges = append(m.Ranges, ctf.Range{Lo: uint64(lo), Hi: uint64(hi)})
			}
			fc.Mappings = append(fc.Mappings, m)
		}
		en := newCTFEnum(fc)
		en.dense = nil
		en.index()
		s := &ctfSource{}
		for v := int64(-1300); v <= 1300; v++ {
			s.text = s.text[:0]
			got := s.label(en, uint64(v))
			want, n := en.appendLabels(nil, uint64(v))
			if (n == 0) != (got.Kind() == ValueNull) || string(got.Bytes()) != string(want) {
				t.Fatalf("round %d (%v, %d mappings): value %d: tree %q, scan %q", round, kind, len(fc.Mappings), v, got.Bytes(), want)
			}
		}
		if d := treeDepth(en, 0); len(en.tree) > 0 && d > bits.Len(uint(len(en.tree)))+1 {
			t.Errorf("round %d: depth %d for %d nodes", round, d, len(en.tree))
		}
	}
	bm := &ctf.FieldClass{Name: "b", Kind: ctf.KindUint, Model: &ctf2meta.FixedLengthBitMap{}}
	for q := range 40 {
		lo := uint64(rng.IntN(64))
		bm.Mappings = append(bm.Mappings, ctf.Mapping{Name: "F" + strconv.Itoa(q), Ranges: []ctf.Range{{Lo: lo, Hi: min(lo+uint64(rng.IntN(3)), 63)}}})
	}
	en := newCTFEnum(bm)
	s := &ctfSource{}
	for range 5000 {
		v := rng.Uint64() & rng.Uint64()
		s.text = s.text[:0]
		got := s.label(en, v)
		want, n := en.appendLabels(nil, v)
		if (n == 0) != (got.Kind() == ValueNull) || string(got.Bytes()) != string(want) {
			t.Fatalf("bit map %#x: %q, scan %q", v, got.Bytes(), want)
		}
	}
}

func treeDepth(en *ctfEnum, i int32) int {
	if i < 0 {
		return 0
	}
	return 1 + max(treeDepth(en, en.tree[i].left), treeDepth(en, en.tree[i].right))
}

// BenchmarkCTFEnumLabelWide looks labels up in an enumeration of 100 000
// single-value labels and one range over them all (hostile metadata's
// shape): the interval tree's cost grows with log(ranges), where scanning
// every mapping grew with their number. One lookup per op.
func BenchmarkCTFEnumLabelWide(b *testing.B) {
	const n = 100000
	fc := &ctf.FieldClass{Name: "x", Kind: ctf.KindUint, Mappings: []ctf.Mapping{{Name: "ALL", Ranges: []ctf.Range{{Lo: 0, Hi: n}}}}}
	for q := range n {
		fc.Mappings = append(fc.Mappings, ctf.Mapping{Name: "V" + strconv.Itoa(q), Ranges: []ctf.Range{{Lo: uint64(q), Hi: uint64(q)}}})
	}
	en := newCTFEnum(fc)
	s := &ctfSource{}
	b.ReportAllocs()
	v := uint64(0)
	for b.Loop() {
		s.text = s.text[:0]
		if s.label(en, v).Kind() != ValueString {
			b.Fatal("no label")
		}
		v = (v + 7919) % n
	}
}

// FuzzCTFEnumTree: for any enumeration (mappings and ranges from the
// input, signed or unsigned, bounds anywhere, inverted ranges too) and bit
// map, the interval tree and per-bit lists find the labels the scan of
// every mapping finds, in its order.
func FuzzCTFEnumTree(f *testing.F) {
	f.Add([]byte{0, 3, 1, 0, 5, 0, 2, 1, 2, 0, 2, 9, 7})
	f.Add([]byte{1, 200, 10, 255, 255, 0, 0, 0, 128, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 || len(b) > 4096 {
			return
		}
		kind := []ctf.Kind{ctf.KindUint, ctf.KindSint}[b[0]&1]
		fc := &ctf.FieldClass{Name: "x", Kind: kind}
		if b[0]&2 != 0 {
			fc.Model = &ctf2meta.FixedLengthBitMap{}
			fc.Kind = ctf.KindUint
		}
		val := func(x, y byte) uint64 { return uint64(int64(int8(x))*int64(1+int(y)%64)) ^ uint64(y)<<40*uint64(x&1) }
		rest := b[1:]
		for len(rest) >= 4 {
			m := ctf.Mapping{Name: "L" + strconv.Itoa(len(fc.Mappings))}
			m.Ranges = append(m.Ranges, ctf.Range{Lo: val(rest[0], rest[1]), Hi: val(rest[2], rest[3])})
			if fc.Model != nil {
				m.Ranges[0] = ctf.Range{Lo: uint64(rest[0] % 64), Hi: uint64(rest[2] % 70)}
			}
			fc.Mappings = append(fc.Mappings, m)
			rest = rest[4:]
		}
		if len(fc.Mappings) == 0 {
			return
		}
		en := newCTFEnum(fc)
		en.dense = nil
		en.tree = nil
		en.byBit = [64][]int32{}
		en.index()
		s := &ctfSource{}
		check := func(v uint64) {
			s.text = s.text[:0]
			got := s.label(en, v)
			want, n := en.appendLabels(nil, v)
			if (n == 0) != (got.Kind() == ValueNull) || string(got.Bytes()) != string(want) {
				t.Fatalf("value %#x: tree %q, scan %q", v, got.Bytes(), want)
			}
		}
		for _, m := range fc.Mappings {
			for _, r := range m.Ranges {
				for _, v := range []uint64{r.Lo - 1, r.Lo, r.Lo + 1, r.Hi - 1, r.Hi, r.Hi + 1, 0, 1 << 63, ^uint64(0)} {
					check(v)
				}
			}
		}
	})
}
