package ctf

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// nxHeadsTSDL returns a trace with LTTng's compact/extended header and no
// event context (a class's head integers are its payload's own: none, one
// or more), whose classes exercise what Next's body runs after the
// header with no branch: the three head integers (fillers for fewer),
// then each tail (tailEnd, tailNulBX, tailArr8X, the latter two after
// 3 head integers, tailLoop with the integers after the first three in
// pairs and an odd one), after the
// compact and the extended header; extended names the selector values
// ext (LTTng: "31"; "30 ... 31": two values share its class id table).
func nxHeadsTSDL(ext string) string { return nxHeadsOf(ext, -1) }

// nxHeadsOf is nxHeadsTSDL with only its classes of body k (k ≥ 0).
func nxHeadsOf(ext string, only int) string {
	h := strings.Replace(nxShapesTSDL(0, 0, false), "\tevent.context := struct { integer { size = 32; align = 8; signed = 1; } _vtid; };\n", "", 1)
	h = strings.Replace(h, "compact = 0 ... 30, extended = 31", "compact = 0 ... "+map[string]string{"31": "30", "30 ... 31": "29"}[ext]+", extended = "+ext, 1)
	if strings.Contains(h, "_vtid") || !strings.Contains(h, "extended = "+ext+" }") {
		panic("nxHeadsTSDL: the header or context changed")
	}
	var b strings.Builder
	b.WriteString(h)
	bodies := []string{
		"",                      // nothing: tailEnd, no head integer
		"string s; uint32_t x;", // tailNulBX, none
		"uint8_t n; uint8_t q[n]; integer { size = 8; align = 8; signed = false; encoding = UTF8; } t[3];",                                                    // tailArr8X, one (its length)
		"uint32_t a; string s; integer { size = 16; align = 8; signed = true; } x;",                                                                           // tailNulBX, one
		"uint32_t a; integer { size = 8; align = 8; signed = true; } b;",                                                                                      // tailEnd, two
		"uint8_t a; uint8_t b; uint8_t c; uint8_t d;",                                                                                                         // tailLoop: 3, then one
		"uint8_t a; uint8_t b; uint8_t c; uint8_t d; uint8_t e;",                                                                                              // 3, a pair
		"uint8_t a; uint8_t b; uint8_t c; uint8_t d; uint8_t e; uint8_t f;",                                                                                   // 3, a pair and one
		"uint8_t a; uint8_t n; integer { size = 8; align = 8; signed = true; } q[n]; integer { size = 8; align = 8; signed = false; encoding = UTF8; } t[8];", // tailArr8X, two; a string of 8 bytes
		"uint8_t a; uint8_t b; uint8_t n; uint8_t q[n]; integer { size = 8; align = 8; signed = false; encoding = UTF8; } t[1];",                              // tailArr8X3
		"integer { size = 16; align = 8; signed = false; } a; uint8_t b; uint32_t c; string s; uint8_t x;",                                                    // tailNulBX3
		"uint8_t a; integer { size = 16; align = 8; signed = true; } b; integer { size = 8; align = 8; signed = true; } c;",                                   // tailEnd, three
	}
	ids := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 30, 31}
	for k, id := range ids {
		if only >= 0 && k%len(bodies) != only {
			continue
		}
		fmt.Fprintf(&b, "event { name = \"head_%d\"; id = %d; fields := struct { %s }; };\n", k, id, bodies[k%len(bodies)])
	}
	return b.String()
}

// Next's body decodes classes of every tail with 0 to 6 integers at their
// head (fillers for fewer than 3) after the compact and the extended
// header as the field walk does, intact and cut at each of the last bytes
// before a page that cannot be read (a filler reads the 8 bytes from the
// segment's start: nxProg.hneed covers them), and most records there
// (all but a class's first and those whose sequence's count changed).
func TestNextBodyHeadsAndTails(t *testing.T) {
	for _, ext := range []string{"31", "30 ... 31"} {
		tr := traceFromTSDL(t, nxHeadsTSDL(ext))
		sc := tr.dscs[0]
		tails := map[[2]int]bool{}
		for _, ec := range sc.events {
			for k := range ec.nx {
				if x := &ec.nx[k]; x.hot {
					tails[[2]int{int(x.tail), min(x.nHead, 4)}] = true
				}
			}
		}
		for _, want := range [][2]int{{tailEnd, 0}, {tailEnd, 2}, {tailEnd, 3}, {tailNulBX, 0}, {tailNulBX, 1}, {tailNulBX3, 3}, {tailArr8X, 1}, {tailArr8X, 2}, {tailArr8X3, 3}, {tailLoop, 4}} {
			if !tails[want] {
				t.Fatalf("extended = %s: no hot template with tail %d and %d head integers: %v", ext, want[0], want[1], tails)
			}
		}
		st := &nextFastStats{classes: map[*EventClass]bool{}}
		for seed := uint64(0); seed < 3; seed++ {
			data := everyStream(tr, seed, 2000, 0)
			compareNextFast(t, tr, fmt.Sprintf("heads-%s-%d", ext, seed), data, st)
			if seed == 0 {
				for cut := 0; cut <= 120; cut++ {
					compareNextFast(t, tr, fmt.Sprintf("heads-%s-cut-%d", ext, cut), guarded(t, data[:len(data)-cut]), &nextFastStats{classes: map[*EventClass]bool{}})
				}
			}
		}
		// (everyStream's sequences change their counts at random: a
		// count that differs from the kept event's goes to nextFast)
		if len(st.classes) != 14 || st.flat < st.events*2/3 {
			t.Fatalf("extended = %s: %d of %d records from Next's body, %d classes", ext, st.flat, st.events, len(st.classes))
		}
	}
	// classes of no payload only, ids 0 and 30 (compact) and 31
	// (extended): the stream's fxNeed is the extended header's 13 bytes
	// and the 8 its fillers read from the 13th on
	tr := traceFromTSDL(t, nxHeadsOf("31", 0)+"event { name = \"head_x\"; id = 31; fields := struct { }; };\n")
	if n := tr.dscs[0].fxNeed; n != 21 {
		t.Fatalf("fxNeed %d, want 21", n)
	}
	data := everyStream(tr, 5, 400, 0)
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	for cut := 0; cut <= 60; cut++ {
		compareNextFast(t, tr, fmt.Sprintf("empty-cut-%d", cut), guarded(t, data[:len(data)-cut]), st)
	}
	if st.flat < st.events*3/4 {
		t.Fatalf("classes of no payload: %d of %d records from Next's body", st.flat, st.events)
	}
}

// The stream's copy of a selector table (fxEnts) has an entry for each
// selector value up to its mask: for a value whose option has no class
// id field, the class's template and kept fields; for one with a class
// id field, no template, that field and the stream's copy of the
// option's class id table, where the option is named by that value
// alone (else fxNone: selTable); fxNone where no template is. Every
// entry with a template is the one Stream.nxEnt names, and holds its
// template's bits (hbits) once the stream keeps its fields whole,
// fxNone's before; an entry is 64 bytes on a 64-bit machine. The table
// is made once.
func TestNextBodySelectorEntries(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) == 8 {
		var e fxEnt
		if fxEntSize != 64 {
			t.Fatalf("an fxEnt is %d bytes: Next indexes fxTab by a shift only at 64", fxEntSize)
		}
		if unsafe.Offsetof(e.hbits)+8 > 24 || unsafe.Offsetof(e.kp)+8 > 24 {
			t.Fatalf("fxEnt's t, kp and hbits not in its first 24 bytes (one cache line 8 bytes past one)")
		}
	}
	for _, ext := range []string{"31", "30 ... 31"} {
		tr := traceFromTSDL(t, nxHeadsTSDL(ext))
		sc := tr.dscs[0]
		h := sc.selShape
		s := tr.AddStream("s", everyStream(tr, 1, 100, 0))
		if !s.Next() {
			t.Fatal(s.Err())
		}
		tab := s.fxTab
		if len(tab) != int(h.selAt.mask)+1 || &tab[0] != &s.fxEnts(sc.fxSel, h)[0] {
			t.Fatalf("extended = %s: %d entries (mask %d), or made again", ext, len(tab), h.selAt.mask)
		}
		var shared []fxEnt
		for sel := range tab {
			e := &tab[sel]
			k := -1
			if sel < len(h.tab) {
				k = int(h.tab[sel])
			}
			switch {
			case k >= 0 && h.opts[k].id.mask != 0 && ext != "31":
				// an option with a class id field named by several
				// selector values: no entry (the selector's value is
				// not the template's: selTable)
				if e.t != &fxNone || e.ids != nil || e.hbits != fxNone.hbits {
					t.Fatalf("extended = %s: selector %d of an option of several: %+v", ext, sel, e)
				}
			case k >= 0 && h.opts[k].id.mask != 0:
				if e.t != nil || e.id.mask != h.opts[k].id.mask || len(e.ids) <= 31 {
					t.Fatalf("extended = %s: selector %d: %+v", ext, sel, e)
				}
				if shared != nil && &shared[0] != &e.ids[0] {
					t.Fatalf("extended = %s: selector %d: a class id table of its own", ext, sel)
				}
				shared = e.ids
				for id := range e.ids {
					x := &e.ids[id]
					ec := sc.EventClass(uint64(id))
					if ec == nil {
						if x.t != &fxNone || x.hbits != fxNone.hbits {
							t.Fatalf("extended = %s: id %d without a class: %+v", ext, id, x)
						}
						continue
					}
					if x.t != &ec.nx[k] || x.kp != &s.nxKept[x.t.num] || x.hbits != entBits(x.t, s.nxKept[x.t.num]) {
						t.Fatalf("extended = %s: id %d: %+v, want class %s option %d", ext, id, x, ec.Name, k)
					}
				}
			default:
				if e.ids != nil {
					t.Fatalf("extended = %s: selector %d: a class id table", ext, sel)
				}
				ec := sc.EventClass(uint64(sel))
				if k < 0 || ec == nil {
					if e.t != &fxNone || e.kp != &fxNoFields || e.hbits != fxNone.hbits {
						t.Fatalf("extended = %s: selector %d without a class: %+v", ext, sel, e)
					}
					continue
				}
				if e.t != &ec.nx[k] || e.kp != &s.nxKept[e.t.num] || e.hbits != entBits(e.t, s.nxKept[e.t.num]) {
					t.Fatalf("extended = %s: selector %d: %+v, want class %s option %d", ext, sel, e, ec.Name, k)
				}
			}
		}
		if (shared == nil) == (ext == "31") {
			t.Fatalf("extended = %s: a class id table: %v", ext, shared != nil)
		}
		// the rest of the stream: every entry with a template is the
		// one nxEnt names, its bits the template's once the stream
		// keeps its fields, fxNone's before (entBits)
		for s.Next() {
		}
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
		real := 0
		for _, x := range [2][]fxEnt{s.fxOwn, s.fxIDs} {
			for i := range x {
				e := &x[i]
				if e.t == nil || e.t == &fxNone {
					continue
				}
				if s.nxEnt[e.t.num] != e || e.hbits != entBits(e.t, s.nxKept[e.t.num]) {
					t.Fatalf("extended = %s: entry %+v: nxEnt %p, %d fields kept", ext, *e, s.nxEnt[e.t.num], len(s.nxKept[e.t.num]))
				}
				if e.hbits == e.t.hbits {
					real++
				}
			}
		}
		if real < 12 {
			t.Fatalf("extended = %s: %d entries with their template's bits", ext, real)
		}
		tr.Streams = tr.Streams[:0]
	}
}

// Scan, Next and Event.Decode mixed at random decode every record as Next
// alone does: Next's body leaves Stream.scanned as Scan set it (the
// event's Fields, not nil, tell Decode that Next filled them), and an
// error after a scanned record stands through Decode.
func TestNextBodyAfterScan(t *testing.T) {
	tr := traceFromTSDL(t, genMetadata(40))
	r := rand.New(rand.NewPCG(9, 10))
	data, _ := genStreamBytes(0, 3000, 40, 4096)
	for k := 0; k < 12; k++ {
		d := data
		if k > 0 {
			d = damaged(r, data, k)
		}
		want := tr.AddStream("want", d)
		mixed := tr.AddStream("mixed", d)
		for n := 0; ; n++ {
			wok := want.Next()
			scan := r.IntN(3) == 0
			var mok bool
			if scan {
				mok = mixed.Scan()
			} else {
				mok = mixed.Next()
			}
			mixed.Event().Decode()
			if wok != mok {
				t.Fatalf("damaged %d: event %d: Next %v, mixed (scan %v) %v (%v)", k, n, wok, scan, mok, mixed.Err())
			}
			if !wok {
				break
			}
			we, me := want.Event(), mixed.Event()
			if we.Class != me.Class || we.Cycles != me.Cycles || we.Offset != me.Offset || len(we.Fields) != len(me.Fields) {
				t.Fatalf("damaged %d: event %d (scan %v): %s %d %d, want %s %d %d", k, n, scan, me.Class.Name, me.Cycles, me.Offset, we.Class.Name, we.Cycles, we.Offset)
			}
			for i := range we.Fields {
				if we.Fields[i] != me.Fields[i] {
					t.Fatalf("damaged %d: event %d (scan %v): field %d %+v, want %+v", k, n, scan, i, me.Fields[i], we.Fields[i])
				}
			}
		}
		if we, me := want.Err(), mixed.Err(); (we == nil) != (me == nil) || we != nil && we.Error() != me.Error() {
			t.Fatalf("damaged %d: error %v, want %v", k, me, we)
		}
		tr.Streams = tr.Streams[:0]
	}
	// every record of the first packet scanned, then Next at the second,
	// whose header is broken: its error stands through Decode
	data, _ = genStreamBytes(1, 3000, 40, 4096)
	binary.LittleEndian.PutUint64(data[4096+48:], 1<<40) // (its content size: beyond its size)
	want := tr.AddStream("want", data)
	n := 0
	for want.Next() {
		n++
	}
	if want.Err() == nil || n == 0 {
		t.Fatalf("%d records, then %v: want an error after the first packet", n, want.Err())
	}
	mixed := tr.AddStream("mixed", data)
	for range n {
		if !mixed.Scan() {
			t.Fatal(mixed.Err())
		}
	}
	if mixed.Next() {
		t.Fatal("Next after the first packet: a record")
	}
	mixed.Event().Decode()
	if we, me := want.Err(), mixed.Err(); me == nil || we.Error() != me.Error() {
		t.Fatalf("after Decode: error %v, want %v", me, we)
	}
}

// What Next's body reads of a hot template fills 3 cache lines of
// nxProg (fields … hd), the tail's constants (tl) a fourth of their own:
// the template is a whole number of lines long, allocated 8 bytes past a
// line (the Go allocator's header of an object of over 512 bytes with
// pointers), so the hot fields start 56 bytes in. Checked on the
// templates of a generated trace as allocated. BenchmarkStream under
// callgrind's cache simulation (48 KiB 12-way L1, as this machine's):
// 1.66 M L1 read misses per 1 M records with the fields in their old
// order, 0.39 M with this layout (0.35 M are the data stream's lines).
func TestNxProgLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the layout is laid out for 64-bit pointers")
	}
	var p nxProg
	const from, to = 56, 56 + 192
	hot := []struct {
		name     string
		off, len uintptr
	}{
		{"fields", unsafe.Offsetof(p.fields), unsafe.Sizeof(p.fields)},
		{"ec", unsafe.Offsetof(p.ec), unsafe.Sizeof(p.ec)},
		{"clk", unsafe.Offsetof(p.clk), unsafe.Sizeof(p.clk)},
		{"hbits", unsafe.Offsetof(p.hbits), unsafe.Sizeof(p.hbits)},
		{"hClkFo", unsafe.Offsetof(p.hClkFo), unsafe.Sizeof(p.hClkFo)},
		{"tail", unsafe.Offsetof(p.tail), unsafe.Sizeof(p.tail)},
		{"eroots", unsafe.Offsetof(p.eroots), unsafe.Sizeof(p.eroots)},
		{"hd", unsafe.Offsetof(p.hd), unsafe.Sizeof(p.hd)},
	}
	for _, f := range hot {
		if f.off < from || f.off+f.len > to {
			t.Errorf("nxProg.%s at bytes %d–%d: outside the 3 lines from byte %d", f.name, f.off, f.off+f.len, from)
		}
	}
	if o := unsafe.Offsetof(p.tl); o != to || unsafe.Sizeof(p.tl) > 64 {
		t.Errorf("nxProg.tl at byte %d, %d bytes: not the fourth line", o, unsafe.Sizeof(p.tl))
	}
	if n := unsafe.Sizeof(p); n%64 != 0 || n <= 512 {
		t.Errorf("nxProg is %d bytes: not a whole number of cache lines over 512 bytes", n)
	}
	tr := genTraceMem(t, 1000, 1)
	n := 0
	for _, sc := range tr.dscs {
		for _, ec := range sc.events {
			for i := range ec.nx {
				if a := uintptr(unsafe.Pointer(&ec.nx[i])) + from; a%64 != 0 {
					t.Fatalf("class %s option %d: its hot fields start %d bytes past a cache line (has the Go allocator's header changed?)", ec.Name, i, a%64)
				}
				n++
			}
		}
	}
	if n < 40 {
		t.Fatalf("%d templates", n)
	}
}

// A selector that does not start a byte (3 bits of padding before
// LTTng's 5-bit id, of 5 and of 8 bits): Next's body reads selectors at
// the header's first byte only (wideSel), Scan's at the start of a byte
// (compileScan); these decode and scan as the walk does.
// (The padding is a header value Next's body does not write: no
// template is hot.)
func TestNextBodySelectorShifted(t *testing.T) {
	for _, c := range []struct{ name, sel, clk string }{
		{"5 bits at bit 3", "integer { size = 5; align = 1; signed = false; }", "24"},
		{"8 bits at bit 3", "integer { size = 8; align = 1; signed = false; }", "21"},
	} {
		tsdl := nxHeadsTSDL("31")
		for _, r := range [][2]string{
			{"enum : uint5_t { compact", "integer { size = 3; align = 1; signed = false; } _pad; enum : " + c.sel + " { compact"},
			{"size = 27; align = 1; signed = false; map", "size = " + c.clk + "; align = 1; signed = false; map"},
		} {
			if !strings.Contains(tsdl, r[0]) {
				t.Fatalf("%s: no %q in the metadata", c.name, r[0])
			}
			tsdl = strings.Replace(tsdl, r[0], r[1], 1)
		}
		tr := traceFromTSDL(t, tsdl)
		if h := tr.dscs[0].selShape; h == nil || h.selAt.s != 3 || !wideSel(h.selAt) {
			t.Fatalf("%s: no selector shape at bit 3", c.name)
		}
		if len(tr.dscs[0].scSel) != 0 {
			t.Fatalf("%s: Scan's body has a table (it reads selectors at the start of a byte only)", c.name)
		}
		st := &nextFastStats{classes: map[*EventClass]bool{}}
		for seed := uint64(0); seed < 3; seed++ {
			data := everyStream(tr, seed, 2000, 0)
			compareNextFast(t, tr, fmt.Sprintf("%s-%d", c.name, seed), data, st)
			checkModes(t, tr, data)
		}
		if st.events < 6000 {
			t.Fatalf("%s: %d records", c.name, st.events)
		}
	}
}
