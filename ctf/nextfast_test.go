package ctf

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// nextFastStats counts what compareNextFast saw.
type nextFastStats struct {
	events, fast, templated int64 // events; those Next built from templates; those whose class has one
	flat                    int64 // those of fast nextFlat built (the rest: nextFast, after it gave up or where it does not run)
	classes                 map[*EventClass]bool
}

// compareNextFast decodes data with Next (its fast path where the class
// has a template) and with the field walk, side by side, and compares
// every event field by field (value, length, End, class), its class,
// clock, offset and scope roots, then the error, losses and recovery.
func compareNextFast(t testing.TB, tr *Trace, name string, data []byte, st *nextFastStats) {
	t.Helper()
	compareNextFastRoom(t, tr, name, data, st, maxNxKeptFields)
}

// compareNextFastRoom is compareNextFast with room fields kept by the
// stream (Stream.nxRoom); it returns the stream Next decoded.
func compareNextFastRoom(t testing.TB, tr *Trace, name string, data []byte, st *nextFastStats, room int) *Stream {
	t.Helper()
	walk := tr.AddStream(name, data)
	walk.generic = true
	fast := tr.AddStream(name, data)
	fast.nxRoom = room
	defer func() { tr.Streams = tr.Streams[:0] }()
	for n := 0; ; n++ {
		wok, fok := walk.Next(), fast.Next()
		if wok != fok {
			t.Fatalf("%s: event %d: walk %v (%v), Next %v (%v)", name, n, wok, walk.Err(), fok, fast.Err())
		}
		if !wok {
			break
		}
		we, fe := walk.Event(), fast.Event()
		if we.Class != fe.Class || we.Cycles != fe.Cycles || we.Offset != fe.Offset ||
			we.Header != fe.Header || we.CommonContext != fe.CommonContext || we.SpecificContext != fe.SpecificContext || we.Payload != fe.Payload {
			t.Fatalf("%s: event %d: class %s/%s cycles %d/%d offset %d/%d roots %d %d %d %d / %d %d %d %d", name, n, we.Class.Name, fe.Class.Name,
				we.Cycles, fe.Cycles, we.Offset, fe.Offset, we.Header, we.CommonContext, we.SpecificContext, we.Payload,
				fe.Header, fe.CommonContext, fe.SpecificContext, fe.Payload)
		}
		if len(we.Fields) != len(fe.Fields) {
			t.Fatalf("%s: event %d (%s): %d fields, the walk %d", name, n, fe.Class.Name, len(fe.Fields), len(we.Fields))
		}
		for i := range we.Fields {
			if we.Fields[i] != fe.Fields[i] {
				t.Fatalf("%s: event %d (%s): field %d (%s) %+v, the walk %+v", name, n, fe.Class.Name, i, fe.FieldClass(i).Name, fe.Fields[i], we.Fields[i])
			}
		}
		st.events++
		if len(fe.Class.nx) > 0 {
			st.templated++
			st.classes[fe.Class] = true
		}
		// the entries of the class's templates in the stream's copy of
		// the selector table: t's bits where the stream keeps its
		// fields whole, else fxNone's (Next's body writes there with no
		// check of their length: keep)
		for k := range fe.Class.nx {
			q := &fe.Class.nx[k]
			if q.num < 0 || int(q.num) >= len(fast.nxEnt) {
				continue
			}
			if e := fast.nxEnt[q.num]; e != nil && (e.t != q || e.kp != &fast.nxKept[q.num] || e.hbits != entBits(q, fast.nxKept[q.num])) {
				t.Fatalf("%s: event %d (%s): option %d's entry %+v: %d fields kept of %d", name, n, fe.Class.Name, k, *e, len(fast.nxKept[q.num]), len(q.fields))
			}
		}
	}
	if we, fe := walk.Err(), fast.Err(); (we == nil) != (fe == nil) || we != nil && we.Error() != fe.Error() {
		t.Fatalf("%s: error %v, the walk %v", name, fe, we)
	}
	wr, fr := walk.Recovery(), fast.Recovery()
	if len(walk.Losses()) != len(fast.Losses()) || wr.String() != fr.String() {
		t.Fatalf("%s: losses %v / %v, recovery %v / %v", name, fast.Losses(), walk.Losses(), fast.Recovery(), walk.Recovery())
	}
	st.fast += fast.nxEvents + fast.fxEvents
	st.flat += fast.fxEvents
	return fast
}

// Next's fast path (templates: nextfast.go) builds exactly the fields
// the field walk builds, on every class of every real trace (babeltrace's
// CTF test traces with CTF_BT_TRACES, the interop vectors with
// TRACECODEC_VECTORS) and on the generated LTTng-shaped streams, intact,
// cut and damaged; and it runs: most records of classes with a template
// come from it.
func TestNextFastMatchesWalk(t *testing.T) {
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	tr := traceFromTSDL(t, genMetadata(40))
	r := rand.New(rand.NewPCG(3, 4))
	for seed := uint64(0); seed < 4; seed++ {
		data, _ := genStreamBytes(int(seed), 3000, 40, 512+int(seed)*4096)
		compareNextFast(t, tr, "gen", data, st)
		for k := 0; k < 40; k++ {
			d := damaged(r, data, k)
			compareNextFast(t, tr, "gen-damaged", d, st)
		}
	}
	// streams without event record headers (nextBare), intact, cut and
	// damaged
	bare := &nextFastStats{classes: map[*EventClass]bool{}}
	for kind := 0; kind < 3; kind++ {
		tr := traceFromTSDL(t, genBareMetadata(kind))
		data := ctfgen.BareStream(kind, 2000, 1024, 0)
		compareNextFast(t, tr, "bare", data, bare)
		for k := 0; k < 30; k++ {
			d := append([]byte(nil), data...)
			if k%2 == 0 {
				d = d[:r.IntN(len(d))]
			} else {
				d[r.IntN(len(d))] ^= byte(1 << r.IntN(8))
			}
			compareNextFast(t, tr, "bare-damaged", d, bare)
		}
	}
	if bare.fast < bare.templated*9/10 || len(bare.classes) != 3 {
		t.Fatalf("streams without headers: %d of %d records of templated classes (%d classes) from the fast path", bare.fast, bare.templated, len(bare.classes))
	}
	// field limits around the generated records' sizes (the walk checks
	// them at arrays only): the fast path falls back where the walk fails
	for _, l := range []int{9, 10, 11, 12, 13} {
		lim := traceFromTSDL(t, genMetadata(40), WithLimits(Limits{MaxFieldsPerEvent: l}))
		data, _ := genStreamBytes(1, 600, 40, 4096)
		compareNextFast(t, lim, fmt.Sprintf("gen-limit-%d", l), data, &nextFastStats{classes: map[*EventClass]bool{}})
	}
	if st.fast < st.templated*9/10 || len(st.classes) != 40 {
		t.Fatalf("generated streams: %d of %d records of templated classes (%d classes) from the fast path", st.fast, st.templated, len(st.classes))
	}
	// nextFlat builds most of them (and nextFast the rest: a class's
	// first record, a cut)
	if st.flat < st.fast*3/4 || st.flat == st.fast {
		t.Fatalf("generated streams: %d of %d fast-path records from nextFlat", st.flat, st.fast)
	}
	dirs := realTraceDirs()
	if len(dirs) == 0 {
		t.Log("neither CTF_BT_TRACES nor TRACECODEC_VECTORS set: real traces not compared")
		return
	}
	real := &nextFastStats{classes: map[*EventClass]bool{}}
	streams := eachStreamFile(t, dirs, func(dir string, tr *Trace, name string, b []byte) {
		compareNextFast(t, tr, dir+"/"+name, b, real)
	})
	t.Logf("%d data streams of %d traces: %d events, %d of classes with a template (%d classes), %d from the fast path",
		streams, len(dirs), real.events, real.templated, len(real.classes), real.fast)
	if real.fast == 0 || real.fast < real.templated*9/10 {
		t.Fatalf("real traces: %d of %d records of templated classes from the fast path", real.fast, real.templated)
	}
}

// damaged returns a copy of data cut short (k%3 == 0), with one bit
// flipped (1) or 8 bytes overwritten (2) at random.
func damaged(r *rand.Rand, data []byte, k int) []byte {
	d := append([]byte(nil), data...)
	switch k % 3 {
	case 0:
		d = d[:r.IntN(len(d))]
	case 1:
		d[r.IntN(len(d))] ^= byte(1 << r.IntN(8))
	default:
		i := r.IntN(len(d))
		for j := i; j < min(len(d), i+8); j++ {
			d[j] = byte(r.Uint32())
		}
	}
	return d
}

// FuzzNextFastMatchesWalk: Next's fast path and the field walk agree on
// any bytes decoded as the generated LTTng-shaped trace, as the
// kernel-shaped one (kernelSpec: process names in place) and as both
// with LTTng's large header (the generated trace's, nxShapesTSDL's
// classes'), and as recountTSDL's trace (arrays whose counts change from
// one record to the next).
func FuzzNextFastMatchesWalk(f *testing.F) {
	data, _ := genStreamBytes(1, 60, 40, 1024)
	f.Add(data)
	f.Add(data[:700])
	kt, kdata := kernelStream(f, 1, 60, 1024)
	f.Add(kdata)
	f.Add(kdata[:700])
	// LTTng's large header (lttng-ust's): ctfgen's trace, nxShapesTSDL's
	// classes with it (largeHdrTSDL)
	lt := traceFromTSDL(f, ctfgen.LargeMetadata(40))
	ldata, _ := ctfgen.LargeStream(1, 60, 40, 1024)
	f.Add(ldata)
	f.Add(ldata[:700])
	st := traceFromTSDL(f, largeHdrTSDL(nxShapesTSDL(0, 14, false)+nxTextShapesTSDL(0)))
	sdata := everyStream(st, 0, 40, 0)
	f.Add(sdata)
	f.Add(sdata[:len(sdata)/2])
	// floating-point numbers and big-endian integers (nxFloatsTSDL); a
	// header without a variant (everyTSDL's: idOnly)
	ft := traceFromTSDL(f, nxFloatsTSDL(0))
	fdata := everyStream(ft, 0, 40, 0)
	f.Add(fdata)
	f.Add(fdata[:len(fdata)/2])
	et := traceFromTSDL(f, everyTSDL)
	edata := everyStream(et, 0, 40, 0)
	f.Add(edata)
	f.Add(edata[:len(edata)/2])
	// arrays whose counts change at every record (recounted in place:
	// nxRecount)
	rt := traceFromTSDL(f, recountTSDL())
	rdata := recountStream(60, 3)
	f.Add(rdata)
	f.Add(rdata[:len(rdata)/2])
	tr := traceFromTSDL(f, genMetadata(40))
	f.Fuzz(func(t *testing.T, b []byte) {
		compareNextFast(t, tr, "fuzz", b, &nextFastStats{classes: map[*EventClass]bool{}})
		compareNextFast(t, kt, "fuzz-kernel", b, &nextFastStats{classes: map[*EventClass]bool{}})
		compareNextFast(t, lt, "fuzz-large", b, &nextFastStats{classes: map[*EventClass]bool{}})
		compareNextFast(t, st, "fuzz-large-shapes", b, &nextFastStats{classes: map[*EventClass]bool{}})
		compareNextFast(t, ft, "fuzz-floats", b, &nextFastStats{classes: map[*EventClass]bool{}})
		compareNextFast(t, et, "fuzz-id-only", b, &nextFastStats{classes: map[*EventClass]bool{}})
		compareNextFast(t, rt, "fuzz-recount", b, &nextFastStats{classes: map[*EventClass]bool{}})
	})
}

// FuzzNextBareMatchesWalk: Next's fast path without event record headers
// (nextBare) and the field walk agree on any bytes decoded as each of the
// generated traces without headers.
func FuzzNextBareMatchesWalk(f *testing.F) {
	var trs [3]*Trace
	for kind := range trs {
		trs[kind] = traceFromTSDL(f, genBareMetadata(kind))
		data := ctfgen.BareStream(kind, 40, 512, 0)
		f.Add(data)
		f.Add(data[:300])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, tr := range trs {
			compareNextFast(t, tr, "fuzz-bare", b, &nextFastStats{classes: map[*EventClass]bool{}})
		}
	})
}

// A common context copied into every class's template cannot make the
// templates of hostile metadata large: they hold at most nxPerClass
// fields per compiled field class plus nxBase; the classes left without
// one decode with the decoding program.
func TestNextFastTemplateBudget(t *testing.T) {
	var b, cc strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&cc, "\t\tuint8_t _c%d;\n", i)
	}
	b.WriteString(strings.Replace(genMetadata(0), "_vtid;", "_vtid;\n"+cc.String(), 1))
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "event { name = \"e%d\"; id = %d; stream_id = 0; fields := struct { uint32_t _x; }; };\n", i, i)
	}
	tr := traceFromTSDL(t, b.String())
	total, with := 0, 0
	for _, sc := range tr.dscs {
		for _, ec := range sc.events {
			for _, p := range ec.nx {
				total += len(p.fields)
			}
			if ec.nx != nil {
				with++
			}
		}
	}
	if budget := nxPerClass*len(tr.classes) + nxBase; total > budget || with == 0 || with == 400 {
		t.Fatalf("%d template fields (budget %d) for %d classes of 400", total, budget, with)
	}
}

// Next keeps the fields of a template without arrays in the stream
// (nxKept, nxArena) and writes only the values per event: every value a
// caller overwrites is written again by the next event of the class (the
// events still equal the walk's), End values a caller breaks cannot make
// Pretty read past Fields or loop, and a stream whose budget of kept fields
// is spent copies the other templates per event (same events).
func TestNextFastKeptFields(t *testing.T) {
	tr := traceFromTSDL(t, genMetadata(40))
	data, _ := genStreamBytes(2, 3000, 40, 4096)
	for _, room := range []int{maxNxKeptFields, 40, 0} {
		walk := tr.AddStream("walk", data)
		walk.generic = true
		fast := tr.AddStream("fast", data)
		fast.nxRoom = room
		var pw, pf Pretty
		kept, copied := 0, 0
		for n := 0; ; n++ {
			nx := fast.nxEvents + fast.fxEvents
			wok, fok := walk.Next(), fast.Next()
			if wok != fok {
				t.Fatalf("room %d: event %d: walk %v, Next %v", room, n, wok, fok)
			}
			if !wok {
				break
			}
			we, fe := walk.Event(), fast.Event()
			if len(we.Fields) != len(fe.Fields) {
				t.Fatalf("room %d: event %d: %d fields, the walk %d", room, n, len(fe.Fields), len(we.Fields))
			}
			for i := range we.Fields {
				if we.Fields[i] != fe.Fields[i] {
					t.Fatalf("room %d: event %d (%s): field %d %+v, the walk %+v", room, n, fe.Class.Name, i, fe.Fields[i], we.Fields[i])
				}
			}
			if want, got := string(pw.Append(nil, we)), string(pf.Append(nil, fe)); want != got {
				t.Fatalf("room %d: event %d: Pretty %q, the walk's %q", room, n, got, want)
			}
			inArena, static := false, false
			for _, q := range fe.Class.nx {
				static = true
				if q.num >= 0 && int(q.num) < len(fast.nxKept) && cap(fast.nxKept[q.num]) > 0 && len(fe.Fields) > 0 {
					inArena = inArena || &fe.Fields[0] == &fast.nxKept[q.num][:1][0]
				}
			}
			if inArena {
				kept++
			} else if static && fast.nxEvents+fast.fxEvents > nx {
				copied++
			}
			// a caller scribbling over the view's values and lengths
			// (Event.Fields says not to): the class's next event
			// writes them again, but for the structure and, in a kept
			// template's fields, the header's selector and class id
			// (the template's values: selTable)
			skip := map[int32]bool{}
			for _, q := range fe.Class.nx {
				if inArena && q.hot && cap(fast.nxKept[q.num]) > 0 && &fe.Fields[0] == &fast.nxKept[q.num][:1][0] {
					skip[q.hSel], skip[q.hID] = true, true
				}
			}
			for i := range fe.Fields {
				if skip[int32(i)] {
					continue
				}
				switch fe.FieldClass(i).Kind {
				case KindStruct, KindVariant:
				case KindString, KindBlob:
					fe.Fields[i].V, fe.Fields[i].N = 0xdeadbeefdeadbeef^uint64(i), 0xfffffff0
				default:
					fe.Fields[i].V = 0xdeadbeefdeadbeef ^ uint64(i)
				}
			}
		}
		tr.Streams = tr.Streams[:0]
		if fast.Err() != nil || walk.Err() != nil {
			t.Fatalf("room %d: %v / %v", room, fast.Err(), walk.Err())
		}
		if used := keptLen(fast); used > fast.nxUsed || fast.nxUsed > room {
			t.Errorf("room %d: %d fields kept, counted %d", room, used, fast.nxUsed)
		}
		switch {
		case room == maxNxKeptFields && (kept == 0 || copied != 0),
			room == 40 && (kept == 0 || copied == 0),
			room == 0 && kept != 0:
			t.Errorf("room %d: %d events from kept fields, %d copied", room, kept, copied)
		}
	}
}

// A caller that breaks the End values of Event.Fields changes the later
// events of the class (Next keeps their structure) but cannot make Pretty
// read past Fields, go back or loop.
func TestNextFastBrokenEnds(t *testing.T) {
	tr := traceFromTSDL(t, genMetadata(40))
	data, _ := genStreamBytes(1, 600, 40, 4096)
	for _, end := range []func(i, n int) int32{
		func(i, n int) int32 { return -1 },
		func(i, n int) int32 { return int32(i) },
		func(i, n int) int32 { return int32(n + 5) },
		func(i, n int) int32 { return int32((i*7 + 3) % (n + 2)) },
		func(i, n int) int32 { return 1 << 30 },
	} {
		s := tr.AddStream("broken", data)
		var p Pretty
		var line []byte
		events := 0
		for s.Next() {
			e := s.Event()
			line = p.Append(line[:0], e)
			for i := range e.Fields {
				f := &e.Fields[i]
				f.End = end(i, len(e.Fields))
				f.V, f.N = 0, 0 // (Bytes: within the data)
			}
			line = p.Append(line[:0], e)
			events++
		}
		tr.Streams = tr.Streams[:0]
		if s.Err() != nil || events != 600 || s.nxEvents+s.fxEvents < 500 {
			t.Fatalf("%d events, %d from templates: %v", events, s.nxEvents+s.fxEvents, s.Err())
		}
	}
}

// keptLen returns the fields s keeps of templates (their capacities).
func keptLen(s *Stream) int {
	n := 0
	for _, b := range s.nxKept {
		n += cap(b)
	}
	return n
}

// A template with arrays keeps its buffer in the stream (its first
// segment written once) while its arrays fit the budget, grows it within
// the budget, and is copied per event once it outgrows the budget: the
// events equal the walk's in every case.
func TestNextFastKeptArrays(t *testing.T) {
	tr := traceFromTSDL(t, genBareMetadata(2))
	data := ctfgen.BareStream(2, 1500, 4096, 60)
	ec := tr.dscs[0].bare
	if ec == nil || len(ec.nx) != 1 || !ec.nx[0].arrays || ec.nx[0].num < 0 {
		t.Fatal("no template with arrays")
	}
	num := ec.nx[0].num
	for _, c := range []struct {
		room     int
		kept     bool // a buffer at the end
		min, max int  // its capacity
	}{
		{maxNxKeptFields, true, 60 + 7, maxNxKeptFields},
		{40, false, 0, 0}, // made (25 fields), outgrown
		{10, false, 0, 0}, // never made
	} {
		st := &nextFastStats{classes: map[*EventClass]bool{}}
		s := compareNextFastRoom(t, tr, "arrays", data, st, c.room)
		if st.fast < st.templated*9/10 {
			t.Fatalf("room %d: %d of %d records from the fast path", c.room, st.fast, st.templated)
		}
		var b []Field
		if int(num) < len(s.nxKept) {
			b = s.nxKept[num]
		}
		if c.kept != (cap(b) > 0) || cap(b) < c.min || cap(b) > c.max || keptLen(s) > s.nxUsed || s.nxUsed > c.room {
			t.Errorf("room %d: buffer of %d fields (nil %v), %d counted", c.room, cap(b), b == nil, s.nxUsed)
		}
		if c.room == 40 && b == nil {
			t.Errorf("room 40: the buffer was never made")
		}
	}
}

// The compact header's selector table (StreamClass.fxSel) names, for each
// selector value whose option has no class id field, the class of that id
// and its template after that option, up to the last such value; the
// extended option (31: its id field names the class) is not in it.
func TestNextFlatSelectorTable(t *testing.T) {
	tr := traceFromTSDL(t, genMetadata(40))
	sc := tr.dscs[0]
	h := sc.selShape
	if h == nil || len(h.tab) != 32 {
		t.Fatalf("selector shape %v", h)
	}
	if len(sc.fxSel) != 32 {
		t.Fatalf("%d selector entries, want 32 (0 … 31)", len(sc.fxSel))
	}
	for sel, e := range sc.fxSel {
		k := h.tab[sel]
		if sel == 31 {
			// the extended option: its class id field names the class
			if e.t != nil || len(e.ids) != 40 || e.id.mask != h.opts[k].id.mask || 8*uint64(e.id.b)+uint64(e.id.s) != uint64(h.opts[k].id.sh) {
				t.Fatalf("selector 31: %+v, want 40 ids", e)
			}
			for id, x := range e.ids {
				ec := sc.EventClass(uint64(id))
				if x != &ec.nx[k] || !x.hot || x.ec != ec {
					t.Fatalf("selector 31, id %d: %+v, want class %v option %d", id, x, ec.Name, k)
				}
			}
			continue
		}
		ec := sc.EventClass(uint64(sel))
		if e.ids != nil || e.t != &ec.nx[k] || !e.t.hot || !e.t.flat || e.t.ec != ec {
			t.Fatalf("selector %d: %+v, want class %v option %d", sel, e, ec.Name, k)
		}
	}
	// a class without a template leaves its selector and id empty, and
	// the tables end at the last one that names a template
	for _, ec := range sc.events {
		if ec.ID >= 20 {
			ec.nx = nil
		}
	}
	if tab := selTable(sc, h); len(tab) != 32 || tab[19].t == nil || tab[20].t != nil || len(tab[31].ids) != 20 {
		t.Fatalf("%d entries without the classes from 20 on", len(tab))
	}
	sc.events[5].nx = nil
	if tab := selTable(sc, h); len(tab) != 32 || tab[5].t != nil || tab[31].ids[5] != nil || tab[31].ids[4] == nil {
		t.Fatalf("class 5 without a template: %+v", tab[5])
	}
	// without the extended option's templates, the table ends at 19
	for _, ec := range sc.events {
		if k := h.tab[31]; int(k) < len(ec.nx) {
			ec.nx[k].hot = false
		}
	}
	if tab := selTable(sc, h); len(tab) != 20 {
		t.Fatalf("%d entries without the extended option's templates", len(tab))
	}
}

// hdrAt reads a header field with one 8-byte load: the value hdrField.get
// gives from the two words, for every bit position and width that fits
// (and at refuses those that do not).
func TestHdrAtMatchesGet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var b [16]byte
	for sh := 0; sh < 64; sh++ {
		for w := 1; w <= 64; w++ {
			mask := uint64(1)<<w - 1
			if w == 64 {
				mask = ^uint64(0)
			}
			f := hdrField{sh: uint8(sh), mask: mask}
			a, ok := f.at()
			if want := sh%8+w <= 64; ok != want {
				t.Fatalf("sh %d width %d: at says %v", sh, w, ok)
			}
			if !ok {
				continue
			}
			for range 8 {
				for i := range b {
					b[i] = byte(r.Uint32())
				}
				w0, w1 := binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:])
				if got, want := a.get(unsafe.Pointer(&b[0])), f.get(w0, w1); got != want {
					t.Fatalf("sh %d width %d: %#x, get %#x", sh, w, got, want)
				}
			}
		}
	}
}
