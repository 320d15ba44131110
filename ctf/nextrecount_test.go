package ctf

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// recountTSDL is a trace with LTTng's compact header (nxShapesTSDL's, no
// packets) and classes whose arrays Next recounts in place (nxRecount):
// 0, three sequences, the first two inside structures (one nested in the
// other) before other fields, of bytes (fxArr8), 16-bit (the loop's
// general array) and 32-bit elements, then a string and an integer; 1, a
// sequence of bytes and a short string after the head integers
// (tailArr8X); 2, a sequence of bytes and a short string (the loop's
// fxArr8X), then an integer, a string and an integer.
func recountTSDL() string {
	return nxShapesTSDL(0, 0, false) + `event { name = "nest"; id = 0; fields := struct {
	uint8_t a;
	struct {
		uint8_t n;
		uint8_t q[n];
		struct { uint8_t m; integer { size = 16; align = 8; signed = true; } r[m]; uint8_t z; } in;
		uint32_t y;
	} st;
	uint8_t n2;
	integer { size = 32; align = 8; signed = false; } q2[n2];
	string s;
	integer { size = 16; align = 8; signed = false; } w;
}; };
event { name = "tailx"; id = 1; fields := struct {
	integer { size = 32; align = 8; signed = false; } n;
	uint8_t q[n];
	integer { size = 8; align = 8; signed = false; encoding = UTF8; } t[3];
}; };
event { name = "loopx"; id = 2; fields := struct {
	uint8_t a;
	uint8_t n;
	integer { size = 8; align = 8; signed = true; } q[n];
	integer { size = 8; align = 8; signed = false; encoding = UTF8; } t[2];
	uint8_t z;
	string s;
	uint8_t z2;
}; };
`
}

// recountCounts: the counts a class's arrays take one record after the
// other (cycling, each offset by its array): no two in a row the same,
// growing past the 16 elements of room a kept buffer starts with
// (nxArrKeep) and shrinking to 0.
var recountCounts = []int{2, 0, 5, 17, 1, 40, 0, 3, 16, 60, 4, 0, 33, 7}

// recountStream returns records of recountTSDL's classes, class i%3 for
// record i, the arrays' counts from recountCounts (their first count at
// offset off).
func recountStream(n, off int) []byte {
	var w bitWriter
	count := func(j, a int) int { return recountCounts[(j+off+5*a)%len(recountCounts)] }
	clock := uint64(0)
	for i := 0; i < n; i++ {
		c, j := i%3, i/3
		clock += 7
		w.put(uint64(c), 5, false)
		w.put(clock, 27, false)
		w.put(uint64(1000+i), 32, false) // _vtid
		str := func() {
			for k := 0; k < i%5; k++ {
				w.put(uint64('a'+k), 8, false)
			}
			w.put(0, 8, false)
		}
		switch c {
		case 0:
			w.put(uint64(i), 8, false)
			q := count(j, 0)
			w.put(uint64(q), 8, false)
			for k := 0; k < q; k++ {
				w.put(uint64(k+i), 8, false)
			}
			r := count(j, 1)
			w.put(uint64(r), 8, false)
			for k := 0; k < r; k++ {
				w.put(uint64(0x10000-1-k), 16, false)
			}
			w.put(0x5a, 8, false)
			w.put(uint64(i)*77, 32, false)
			q2 := count(j, 2)
			w.put(uint64(q2), 8, false)
			for k := 0; k < q2; k++ {
				w.put(uint64(k)<<20|uint64(i), 32, false)
			}
			str()
			w.put(uint64(i), 16, false)
		case 1:
			q := count(j, 0)
			w.put(uint64(q), 32, false)
			for k := 0; k < q; k++ {
				w.put(uint64(k^i), 8, false)
			}
			for _, b := range []byte("xy\x00") {
				w.put(uint64(b), 8, false)
			}
		case 2:
			w.put(uint64(i), 8, false)
			q := count(j, 0)
			w.put(uint64(q), 8, false)
			for k := 0; k < q; k++ {
				w.put(uint64(0x80+k), 8, false)
			}
			w.put('o', 8, false)
			w.put('k', 8, false)
			w.put(uint64(i), 8, false)
			str()
			w.put(uint64(i)>>8, 8, false)
		}
	}
	return w.b
}

// Next recounts the kept event of a class whose arrays' counts change
// from one record to the next, in place (nxRecount), in its body: in
// arrays inside structures (nested) before other fields, several in one
// class, sequences of bytes in the loop (fxArr8, fxArr8X) and in the tail
// (tailArr8X), of 16- and 32-bit elements; counts growing past the
// buffer's room (nxArrays then grows it), shrinking to 0. Every record
// equals the walk's (whole, cut short at every byte of its last records,
// damaged), and all but a few come from Next's body: nxArrays writes only
// a class's first record and those whose arrays outgrow the buffer.
func TestNextRecountMatchesWalk(t *testing.T) {
	tr := traceFromTSDL(t, recountTSDL())
	sc := tr.dscs[0]
	// (the shapes the test is for: hot templates, the tails and ops
	// named above)
	var arr8, arr8X, dyn int
	for id, want := range []uint8{tailLoop, tailArr8X, tailLoop} {
		ec := sc.EventClass(uint64(id))
		if ec == nil || len(ec.nx) == 0 || !ec.nx[0].hot || ec.nx[0].tail != want {
			t.Fatalf("class %d: no hot template with tail %d", id, want)
		}
		for _, o := range ec.nx[0].hops {
			switch {
			case o.code == fxArr8:
				arr8++
			case o.code == fxArr8X:
				arr8X++
			case o.code == fxArrF || o.code == fxDyn && ec.nx[0].segs[o.off].dyn.code == nxArray:
				dyn++
			}
		}
	}
	if arr8 != 1 || arr8X != 2 || dyn != 2 {
		t.Fatalf("hot programs: %d fxArr8, %d fxArr8X, %d other arrays", arr8, arr8X, dyn)
	}
	r := rand.New(rand.NewPCG(21, 22))
	for off := 0; off < len(recountCounts); off += 3 {
		data := recountStream(900, off)
		st := &nextFastStats{classes: map[*EventClass]bool{}}
		s := compareNextFastRoom(t, tr, fmt.Sprintf("recount-%d", off), data, st, maxNxKeptFields)
		// (per class: its first record, and each of the few growths
		// past the buffer's capacity)
		if st.events != 900 || st.flat < st.events*95/100 || s.nxBuilt > 3*8 {
			t.Fatalf("offset %d: %d records, %d from Next's body, %d written by nxArrays", off, st.events, st.flat, s.nxBuilt)
		}
		for k := 0; k < 24; k++ {
			compareNextFast(t, tr, fmt.Sprintf("recount-%d-damaged", off), damaged(r, data, k), &nextFastStats{classes: map[*EventClass]bool{}})
		}
		for cut := 1; cut <= 200; cut++ {
			compareNextFast(t, tr, fmt.Sprintf("recount-%d-cut-%d", off, cut), data[:len(data)-cut], &nextFastStats{classes: map[*EventClass]bool{}})
		}
	}
	// a stream whose budget has room for the first buffers only: their
	// counts outgrow them (copied per event from then on)
	for _, room := range []int{0, 40, 100, 200} {
		compareNextFastRoom(t, tr, fmt.Sprintf("recount-room-%d", room), recountStream(300, 1), &nextFastStats{classes: map[*EventClass]bool{}}, room)
	}
	// field limits around the records' sizes (the walk checks them at
	// each array): a count that fits the buffer but not the limit is the
	// walk's error
	for l := 8; l <= 90; l++ {
		lim := traceFromTSDL(t, recountTSDL(), WithLimits(Limits{MaxFieldsPerEvent: l}))
		compareNextFast(t, lim, fmt.Sprintf("recount-limit-%d", l), recountStream(300, 2), &nextFastStats{classes: map[*EventClass]bool{}})
	}
}

// ctfgen's stream of 3 classes (BenchmarkStreamCounts's): a sequence's
// count changes at every record of its class, and Next's body reads
// them all but the first of each class; the stream without event record
// headers whose counts run from 0 to 39 (ctfgen.BareStream, seqMod 40:
// past the buffer's room) is read from the kept buffer recounted by
// nxRun, nxArrays writing a few records only; random shapes
// (nxShapesTSDL: counts 0 to 3 at random, arrays in structures, several
// in a class) read the same as the walk, nxArrays writing few of their
// records.
func TestNextRecountStreams(t *testing.T) {
	tr := traceFromTSDL(t, genMetadata(40))
	for seed := 0; seed < 2; seed++ {
		data, _ := genStreamBytes(seed, 3000, 3, 4096)
		st := &nextFastStats{classes: map[*EventClass]bool{}}
		s := compareNextFastRoom(t, tr, "counts", data, st, maxNxKeptFields)
		if st.flat < st.events*99/100 || s.nxBuilt > 3 {
			t.Fatalf("seed %d: %d of %d records from Next's body, %d written by nxArrays", seed, st.flat, st.events, s.nxBuilt)
		}
	}
	bare := traceFromTSDL(t, genBareMetadata(2))
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	s := compareNextFastRoom(t, bare, "bare-counts", ctfgen.BareStream(2, 2000, 1024, 40), st, maxNxKeptFields)
	if st.fast < st.events*9/10 || s.nxBuilt > 4 {
		t.Fatalf("without headers: %d of %d records from templates, %d written by nxArrays", st.fast, st.events, s.nxBuilt)
	}
	var events, built, arrays int64
	for seed := uint64(0); seed < 12; seed++ {
		tr := traceFromTSDL(t, nxShapesTSDL(seed, 14, false))
		data := everyStream(tr, seed, 1500, 0)
		st := &nextFastStats{classes: map[*EventClass]bool{}}
		s := compareNextFastRoom(t, tr, fmt.Sprintf("shapes-%d", seed), data, st, maxNxKeptFields)
		events += st.events
		built += s.nxBuilt
		for _, ec := range tr.dscs[0].events {
			if len(ec.nx) > 0 && ec.nx[0].arrays {
				arrays++
			}
		}
	}
	t.Logf("random shapes: %d records, %d written by nxArrays (%d classes with arrays)", events, built, arrays)
	if built > 4*arrays {
		t.Fatalf("random shapes: %d of %d records written by nxArrays (%d classes with arrays)", built, events, arrays)
	}
}
