package ctf

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// largeHdrTSDL returns trace text tsdl (nxShapesTSDL's, scanShapesTSDL's)
// with LTTng's large event record header (lttng-ust's: a 16-bit id,
// compact 0 … 65534, extended 65535) instead of the compact one, class
// shape_5's id 300 (a selector above 255, within the table) and the
// extended option's class (id 31) id 65535 (the selector beyond every
// table: Next and Scan leave their bodies).
func largeHdrTSDL(tsdl string) string {
	for _, p := range [][2]string{
		{"enum : uint5_t { compact = 0 ... 30, extended = 31 } id;",
			"enum : integer { size = 16; align = 8; signed = false; } { compact = 0 ... 65534, extended = 65535 } id;"},
		{"struct { uint27_clock_monotonic_t timestamp; } compact;",
			"struct { integer { size = 32; align = 8; signed = false; map = clock.monotonic.value; } timestamp; } compact;"},
		{`name = "shape_5"; id = 5;`, `name = "shape_5"; id = 300;`},
		{`id = 31;`, `id = 65535;`},
	} {
		tsdl = strings.Replace(tsdl, p[0], p[1], 1)
	}
	return tsdl
}

// largeBody counts, of the records Next (scan: Scan) reads from data,
// those from its body (Stream.fxEvents; Scan's: scEvents) by class id,
// and all of them (in all).
func largeBody(t *testing.T, tr *Trace, data []byte, scan bool, all map[uint64]int) map[uint64]int {
	t.Helper()
	s := tr.AddStream("count", data)
	defer func() { tr.Streams = tr.Streams[:0] }()
	n := map[uint64]int{}
	for {
		fx, sc := s.fxEvents, s.scEvents
		ok := false
		if scan {
			ok = s.Scan()
		} else {
			ok = s.Next()
		}
		if !ok {
			break
		}
		if s.fxEvents != fx || s.scEvents != sc {
			n[s.Event().Class.ID]++
		}
		all[s.Event().Class.ID]++
	}
	return n
}

// The selector tables of LTTng's large header (a 16-bit selector, no
// variant selector table: hdrShape.tab nil) cover the class ids present,
// not the 65536 values: the option of each value below the stream
// class's ids (the compact option's), nil for a signed selector or too
// many ranges.
func TestSelOptionsLarge(t *testing.T) {
	tr := traceFromTSDL(t, largeHdrTSDL(nxShapesTSDL(0, 14, false)))
	sc := tr.dscs[0]
	h := sc.selShape
	if h == nil || h.tab != nil || h.tmpl == nil {
		t.Fatalf("large header shape %+v: want no variant table, templates", h)
	}
	opts := selOptions(sc, h)
	if len(opts) != 301 || len(opts) != len(sc.small) {
		t.Fatalf("%d options, want 301 (ids 0 … 300)", len(opts))
	}
	for sel, k := range opts {
		if int(k) != h.option(uint64(sel)) || k != 0 {
			t.Fatalf("selector %d: option %d, the walk's %d", sel, k, h.option(uint64(sel)))
		}
	}
	if len(sc.fxSel) != 301 || sc.fxSel[300].t == nil || len(sc.scSel) == 0 {
		t.Fatalf("fxSel of %d entries, scSel of %d: want 301 (ids 0 … 300), 300 with a template", len(sc.fxSel), len(sc.scSel))
	}
	// ids from maxFxIDs on (not in sc.small) leave the table as it is:
	// ids 0 and 1 (and 65535, 5000 beyond it)
	big := traceFromTSDL(t, largeHdrTSDL(nxShapesTSDL(0, 3, false))+`event { name = "far"; id = 5000; fields := struct { uint32_t x; }; };`)
	if opts := selOptions(big.dscs[0], big.dscs[0].selShape); len(opts) != 2 {
		t.Fatalf("%d options with classes 0, 1, 5000 and 65535, want 2", len(opts))
	}
	// (and the class ids that sc.small holds, below maxFxIDs, bound it)
	far := traceFromTSDL(t, largeHdrTSDL(nxShapesTSDL(0, 3, false))+`event { name = "far"; id = 4095; fields := struct { uint32_t x; }; };`)
	if opts := selOptions(far.dscs[0], far.dscs[0].selShape); len(opts) != maxFxIDs {
		t.Fatalf("%d options with a class of id 4095, want %d", len(opts), maxFxIDs)
	}
	// a value in two options' ranges: the first's, as the walk's
	two := strings.Replace(largeHdrTSDL(nxShapesTSDL(0, 6, false)), "{ compact = 0 ... 65534, extended = 65535 }", "{ compact = 1 ... 65534, extended = 0 ... 2, extended = 65535 }", 1)
	tr2 := traceFromTSDL(t, two)
	h2 := tr2.dscs[0].selShape
	for sel, k := range selOptions(tr2.dscs[0], h2) {
		if int(k) != h2.option(uint64(sel)) {
			t.Fatalf("overlapping ranges: selector %d: option %d, the walk's %d", sel, k, h2.option(uint64(sel)))
		}
	}
	// (records of classes 0 to 2, the extended option's: not from
	// Next's body; classes 3 and 4 from it)
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	compareNextFast(t, tr2, "overlapping", everyStream(tr2, 1, 600, 0), st)
	if st.flat == 0 || st.fast < st.templated*9/10 {
		t.Fatalf("overlapping ranges: %d of %d records from Next's body", st.flat, st.events)
	}
	// too many ranges: no table
	var rs []string
	for i := 0; i <= maxSelRanges; i++ {
		rs = append(rs, fmt.Sprintf("compact = %d", 2*i))
	}
	many := strings.Replace(largeHdrTSDL(nxShapesTSDL(0, 3, false)), "{ compact = 0 ... 65534, extended = 65535 }", "{ "+strings.Join(rs, ", ")+", extended = 65535 }", 1)
	tr3 := traceFromTSDL(t, many)
	if opts := selOptions(tr3.dscs[0], tr3.dscs[0].selShape); opts != nil {
		t.Fatalf("%d ranges: %d options, want none", len(rs)+1, len(opts))
	}
}

// Next's body reads records with LTTng's large header (ctfgen's
// large-header trace, nxShapesTSDL's classes with it: largeHdrTSDL) as the
// field walk does, intact, damaged, in packets cut short; its paths run:
// records whose selector is a class id within the table (a compact
// option's: selector 300 above the variant tables' 255 among them) from
// the body, the extended option's (selector 65535, beyond the table)
// elsewhere.
func TestNextFastLargeHeader(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	gen := traceFromTSDL(t, ctfgen.LargeMetadata(40))
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	for seed := 0; seed < 4; seed++ {
		data, _ := ctfgen.LargeStream(seed, 3000, 40, 512+seed*4096)
		compareNextFast(t, gen, "large-gen", data, st)
		for k := 0; k < 40; k++ {
			compareNextFast(t, gen, "large-gen-damaged", damaged(r, data, k), &nextFastStats{classes: map[*EventClass]bool{}})
		}
	}
	if st.flat < st.events*3/4 || len(st.classes) != 40 {
		t.Fatalf("large-header generated streams: %d of %d records from Next's body (%d classes)", st.flat, st.events, len(st.classes))
	}
	all := &nextFastStats{classes: map[*EventClass]bool{}}
	body, recs := map[uint64]int{}, map[uint64]int{}
	for seed := uint64(0); seed < 12; seed++ {
		for _, packets := range []bool{false, true} {
			tr := traceFromTSDL(t, largeHdrTSDL(nxShapesTSDL(seed, 14, packets)+nxTextShapesTSDL(seed)))
			pkt := 0
			if packets {
				pkt = 200 + int(seed)*50
			}
			name := fmt.Sprintf("large-shapes-%d-%v", seed, packets)
			data := everyStream(tr, seed, 1500, pkt)
			compareNextFast(t, tr, name, data, all)
			for id, n := range largeBody(t, tr, data, false, recs) {
				body[id] += n
			}
			for k := 0; k < 12; k++ {
				compareNextFast(t, tr, name+"-damaged", damaged(r, data, k), &nextFastStats{classes: map[*EventClass]bool{}})
			}
			if !packets {
				continue
			}
			checkModes(t, tr, data)
			comparePacketCuts(t, tr, name, data)
		}
	}
	t.Logf("large-header shapes: %d records, %d from templates, %d from Next's body; from the body: %d of %d of class 300, %d of %d of class 65535", all.events, all.fast, all.flat, body[300], recs[300], body[65535], recs[65535])
	if all.flat < all.fast/10 || body[300] < 10 || body[65535] != 0 || recs[65535] < 10 {
		t.Fatalf("large-header shapes: %d of %d records from Next's body, %d of class 300 (want ≥ 10), %d of %d of class 65535 (extended: want 0 of ≥ 10)", all.flat, all.events, body[300], body[65535], recs[65535])
	}
	if all.fast < all.templated*9/10 {
		t.Fatalf("large-header shapes: %d of %d records of templated classes from templates", all.fast, all.templated)
	}
}

// Scan's body reads the same records as Next (compareScanNext) with the
// large header, and runs on them.
func TestScanFastLargeHeader(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	gen := traceFromTSDL(t, ctfgen.LargeMetadata(40))
	st := newScanStats()
	for seed := 0; seed < 4; seed++ {
		data, _ := ctfgen.LargeStream(seed, 3000, 40, 512+seed*4096)
		compareScanNext(t, gen, "large-gen", data, st, r)
		for k := 0; k < 40; k++ {
			compareScanNext(t, gen, "large-gen-damaged", damaged(r, data, k), newScanStats(), r)
		}
	}
	if st.body < st.events*9/10 {
		t.Fatalf("large-header generated streams: %d of %d records from Scan's body", st.body, st.events)
	}
	all := newScanStats()
	body, recs := map[uint64]int{}, map[uint64]int{}
	for seed := uint64(0); seed < 12; seed++ {
		for _, packets := range []bool{false, true} {
			tr := traceFromTSDL(t, largeHdrTSDL(scanShapesTSDL(seed, packets)))
			pkt := 0
			if packets {
				pkt = 200 + int(seed)*50
			}
			name := fmt.Sprintf("large-shapes-%d-%v", seed, packets)
			data := everyStream(tr, seed, 1500, pkt)
			compareScanNext(t, tr, name, data, all, r)
			for id, n := range largeBody(t, tr, data, true, recs) {
				body[id] += n
			}
			for k := 0; k < 12; k++ {
				compareScanNext(t, tr, name+"-damaged", damaged(r, data, k), newScanStats(), r)
			}
		}
	}
	t.Logf("large-header shapes: %d records, %d from Scan's body; %d of %d of class 300, %d of %d of class 65535", all.events, all.body, body[300], recs[300], body[65535], recs[65535])
	if all.body < all.events/10 || body[300] < 10 || body[65535] != 0 || recs[65535] < 10 {
		t.Fatalf("large-header shapes: %d of %d records from Scan's body, %d of class 300 (want ≥ 10), %d of %d of class 65535 (extended: want 0 of ≥ 10)", all.body, all.events, body[300], body[65535], recs[65535])
	}
}
