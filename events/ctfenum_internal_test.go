package events

import (
	"testing"

	"github.com/tracecodec/tracecodec/ctf"
)

// The per-value table of narrow enumerations and the range scan of wide
// ones (and of bit maps) give the same labels, signed and unsigned.
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
