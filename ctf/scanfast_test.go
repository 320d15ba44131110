package ctf

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// scanStats counts what compareScanNext saw.
type scanStats struct {
	events, body int64 // records; those Scan's body read (scanfast.go)
	// kinds: the classes Scan's body read, by the kind of their forms
	kinds   [4]map[*EventClass]bool
	decoded int64 // records decoded after Scan (Event.Decode)
}

func newScanStats() *scanStats {
	st := &scanStats{}
	for k := range st.kinds {
		st.kinds[k] = map[*EventClass]bool{}
	}
	return st
}

// formKinds adds the kinds of the forms of ec (every option) to st.
func (st *scanStats) formKinds(sc *StreamClass, ec *EventClass) {
	for i := range sc.scSel {
		e := &sc.scSel[i]
		if e.f != nil && e.f.ec == ec {
			st.kinds[e.f.kind][ec] = true
		}
		if e.x != nil && ec.ID < uint64(len(e.x.ids)) {
			if f := e.x.ids[ec.ID]; f != nil && f.ec == ec {
				st.kinds[f.kind][ec] = true
			}
		}
	}
}

// compareScanNext reads data with Scan and with Next side by side: each
// record is accepted by both or by neither, of the same class, clock and
// offset, Scan's without fields (roots -1); Event.Decode (on most records:
// seed r; the others are left undecoded) then gives exactly Next's fields
// and roots; the error, losses and recovery are the same.
func compareScanNext(t testing.TB, tr *Trace, name string, data []byte, st *scanStats, r *rand.Rand) {
	t.Helper()
	next := tr.AddStream(name, data)
	scan := tr.AddStream(name, data)
	defer func() { tr.Streams = tr.Streams[:0] }()
	for n := 0; ; n++ {
		body := scan.scEvents
		nok, sok := next.Next(), scan.Scan()
		if nok != sok {
			t.Fatalf("%s: record %d: Next %v (%v), Scan %v (%v)", name, n, nok, next.Err(), sok, scan.Err())
		}
		if !nok {
			break
		}
		ne, se := next.Event(), scan.Event()
		if ne.Class != se.Class || ne.Cycles != se.Cycles || ne.Offset != se.Offset {
			t.Fatalf("%s: record %d: class %s/%s cycles %d/%d offset %d/%d", name, n, ne.Class.Name, se.Class.Name, ne.Cycles, se.Cycles, ne.Offset, se.Offset)
		}
		st.events++
		if scan.scEvents != body {
			// (elsewhere Scan may have decoded the record: replay)
			if se.Fields != nil || se.Header != -1 || se.CommonContext != -1 || se.SpecificContext != -1 || se.Payload != -1 {
				t.Fatalf("%s: record %d: Scan's body left fields (%d) or roots %d %d %d %d", name, n, len(se.Fields), se.Header, se.CommonContext, se.SpecificContext, se.Payload)
			}
			st.body++
			st.formKinds(scan.pkt.Class, se.Class)
		}
		if r != nil && r.IntN(4) == 0 {
			continue // not decoded: the next Scan starts from Scan's state alone
		}
		se.Decode()
		st.decoded++
		if ne.Header != se.Header || ne.CommonContext != se.CommonContext || ne.SpecificContext != se.SpecificContext || ne.Payload != se.Payload {
			t.Fatalf("%s: record %d: roots %d %d %d %d, Next's %d %d %d %d", name, n, se.Header, se.CommonContext, se.SpecificContext, se.Payload, ne.Header, ne.CommonContext, ne.SpecificContext, ne.Payload)
		}
		if len(ne.Fields) != len(se.Fields) {
			t.Fatalf("%s: record %d (%s): %d fields, Next's %d", name, n, se.Class.Name, len(se.Fields), len(ne.Fields))
		}
		for i := range ne.Fields {
			if ne.Fields[i] != se.Fields[i] {
				t.Fatalf("%s: record %d (%s): field %d (%s) %+v, Next's %+v", name, n, se.Class.Name, i, se.FieldClass(i).Name, se.Fields[i], ne.Fields[i])
			}
		}
	}
	if ne, se := next.Err(), scan.Err(); (ne == nil) != (se == nil) || ne != nil && ne.Error() != se.Error() {
		t.Fatalf("%s: Scan's error %v, Next's %v", name, se, ne)
	}
	nr, sr := next.Recovery(), scan.Recovery()
	if fmt.Sprint(next.Losses()) != fmt.Sprint(scan.Losses()) || nr.String() != sr.String() || nr.Read != sr.Read {
		t.Fatalf("%s: losses %v / %v, recovery %v / %v", name, scan.Losses(), next.Losses(), sr, nr)
	}
}

// scanShapesTSDL: nxShapesTSDL's classes and, for Scan's forms of more
// than one item, classes of several strings and sequences (their lengths
// anywhere before them since the item before), and a class whose string
// is longer than a word (everyStream's strings: up to 39 bytes).
func scanShapesTSDL(seed uint64, packets bool) string {
	return nxShapesTSDL(seed, 14, packets) + scanItemsTSDL
}

// scanItemsTSDL: scanShapesTSDL's classes of several items.
const scanItemsTSDL = `event { name = "two_strings"; id = 20; fields := struct { uint8_t a; string s; integer { size = 16; align = 8; signed = false; } b; string t; uint8_t c; }; };
event { name = "seq_str_seq"; id = 21; fields := struct { uint8_t n; uint8_t x; uint8_t q[n]; string s; uint32_t m; uint8_t y; integer { size = 16; align = 8; signed = true; } r[m]; uint8_t z; }; };
event { name = "blob_str"; id = 22; fields := struct { uint8_t n; integer { size = 8; align = 8; signed = false; encoding = UTF8; } t[n]; uint8_t k; string s; }; };
event { name = "seq64"; id = 23; fields := struct { uint32_t n; integer { size = 64; align = 8; signed = false; } q[n]; uint8_t k; }; };
event { name = "str_only"; id = 24; fields := struct { string s; }; };
`

// Scan's body (scanfast.go) reads exactly what Next reads, and Decode
// after it gives Next's fields, on the generated LTTng traces (ctfgen:
// intact, damaged, with field limits around their records' sizes) and on
// classes of every shape (nxShapesTSDL's, TestNextFastShapesMatchWalk's,
// and scanShapesTSDL's of several items), intact, damaged and in packets
// whose content is cut short; and it runs: most records come from it,
// classes of each kind of form among them.
func TestScanFastMatchesNext(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	gen := newScanStats()
	tr := traceFromTSDL(t, genMetadata(40))
	for seed := 0; seed < 4; seed++ {
		data, _ := genStreamBytes(seed, 3000, 40, 512+seed*4096)
		compareScanNext(t, tr, "gen", data, gen, r)
		for k := 0; k < 40; k++ {
			compareScanNext(t, tr, "gen-damaged", damaged(r, data, k), newScanStats(), r)
		}
	}
	if gen.body < gen.events*9/10 || len(gen.kinds[scEnd]) == 0 || len(gen.kinds[scNul]) == 0 || len(gen.kinds[scLen]) == 0 {
		t.Fatalf("generated streams: %d of %d records from Scan's body, classes by form kind %d %d %d %d", gen.body, gen.events,
			len(gen.kinds[scEnd]), len(gen.kinds[scNul]), len(gen.kinds[scLen]), len(gen.kinds[scMore]))
	}
	// field limits around the records' sizes: the forms of classes above
	// the limit are not made; sequences above it leave the body
	for _, l := range []int{8, 9, 10, 11, 12, 13} {
		lim := traceFromTSDL(t, genMetadata(40), WithLimits(Limits{MaxFieldsPerEvent: l}))
		data, _ := genStreamBytes(1, 600, 40, 4096)
		compareScanNext(t, lim, fmt.Sprintf("gen-limit-%d", l), data, newScanStats(), r)
	}
	// and around the sizes of scanShapesTSDL's records of several
	// sequences (their sum counts against the limit: seq_str_seq's two
	// of 0 to 3 elements, 14 fields before the second, 16 without them;
	// the classes of several items only)
	for l := 12; l <= 24; l++ {
		for _, seed := range []uint64{0, 4} {
			lim := traceFromTSDL(t, nxShapesTSDL(seed, 0, false)+scanItemsTSDL, WithLimits(Limits{MaxFieldsPerEvent: l}))
			compareScanNext(t, lim, fmt.Sprintf("shapes-limit-%d-%d", l, seed), everyStream(lim, seed, 1500, 0), newScanStats(), r)
		}
	}
	all := newScanStats()
	for seed := uint64(0); seed < 12; seed++ {
		for _, packets := range []bool{false, true} {
			tr := traceFromTSDL(t, scanShapesTSDL(seed, packets))
			pkt := 0
			if packets {
				pkt = 200 + int(seed)*50
			}
			name := fmt.Sprintf("shapes-%d-%v", seed, packets)
			data := everyStream(tr, seed, 1500, pkt)
			compareScanNext(t, tr, name, data, all, r)
			for k := 0; k < 12; k++ {
				compareScanNext(t, tr, name+"-damaged", damaged(r, data, k), newScanStats(), r)
			}
			if !packets {
				continue
			}
			// the content of each of the first 8 packets cut short by 1
			// to 16 bytes
			for p, off := 0, 0; p < 8 && off+20 <= len(data); p++ {
				content := binary.LittleEndian.Uint64(data[off+4:])
				for k := uint64(1); k <= 16 && k*8 < content-160; k++ {
					d := append([]byte(nil), data...)
					binary.LittleEndian.PutUint64(d[off+4:], content-k*8)
					compareScanNext(t, tr, fmt.Sprintf("%s-cut-%d-%d", name, p, k), d, newScanStats(), r)
				}
				off += int(binary.LittleEndian.Uint64(data[off+12:]) / 8)
			}
		}
	}
	t.Logf("shapes: %d records, %d from Scan's body, %d decoded; classes by form kind: %d end, %d string, %d length, %d more",
		all.events, all.body, all.decoded, len(all.kinds[scEnd]), len(all.kinds[scNul]), len(all.kinds[scLen]), len(all.kinds[scMore]))
	// (nxShapesTSDL's classes are mostly of fields aligned beyond a byte
	// after an item, or within bytes: no form; Scan skims them as before)
	if all.body < all.events/10 || min(len(all.kinds[scEnd]), len(all.kinds[scNul]), len(all.kinds[scLen]), len(all.kinds[scMore])) < 5 {
		t.Fatalf("shapes: %d of %d records from Scan's body, classes by form kind %d %d %d %d: each kind is to be compared", all.body, all.events,
			len(all.kinds[scEnd]), len(all.kinds[scNul]), len(all.kinds[scLen]), len(all.kinds[scMore]))
	}
}

// The forms Scan's body takes for the generated trace's classes (ctfgen:
// small, str, seq) and scanShapesTSDL's classes of several items; none
// for a class above the field limit.
func TestScanForms(t *testing.T) {
	tr := traceFromTSDL(t, genMetadata(40))
	sc := tr.dscs[0]
	if len(sc.scSel) != 32 || sc.scSel[31].x == nil || len(sc.scSel[31].x.ids) != 40 {
		t.Fatalf("selector table: %d entries", len(sc.scSel))
	}
	for id := 0; id < 40; id++ {
		want := []uint8{scEnd, scNul, scLen}[id%3]
		f := sc.scSel[31].x.ids[id]
		if id < 31 && sc.scSel[id].f == nil || f == nil || f.kind != want || id < 31 && sc.scSel[id].f.kind != want {
			t.Fatalf("class %d: forms %+v %+v, want kind %d", id, sc.scSel[min(id, 31)].f, f, want)
		}
		// the compact header: 32 bits, the extended one 104; then the
		// context's _vtid and the first fields
		if id < 31 {
			hb := []uint64{32 + 32 + 32 + 64, 32 + 32 + 32, 32 + 32 + 32}[id%3]
			if g := sc.scSel[id].f; g.hbits != hb {
				t.Fatalf("class %d: hbits %d, want %d", id, g.hbits, hb)
			}
		}
	}
	// seq: its length 64 bits from the header's start, bytes, then the
	// 4 bytes of _txt; 11 fields (the header's 5, the context's 2)
	if f := sc.scSel[2].f; f.it.lb != 8 || f.it.lsh != 0 || f.it.lmask != 1<<32-1 || f.it.e != 3 || f.post != 32 || !f.it.cnt ||
		f.maxCnt != uint64(tr.o.limits.MaxFieldsPerEvent-11) || f.it.maxN != f.maxCnt {
		t.Fatalf("seq: form %+v", f)
	}
	s2 := traceFromTSDL(t, scanShapesTSDL(0, false)).dscs[0]
	for id, items := range map[int]int{20: 2, 21: 3, 22: 2, 24: 1} {
		f := s2.scSel[id].f
		if f == nil || 1+len(f.more) != items {
			t.Fatalf("class %d: form %+v, want %d items", id, f, items)
		}
	}
	// the ops read to make forms are bounded: none once they are spent
	h := sc.selShape
	n := len(sc.small[1].skip)
	ops := n - 1
	if n == 0 || scanForm(h, &h.opts[0], sc.small[1], 100, &ops) != nil || ops != n-1 {
		t.Fatalf("a form of %d ops made with %d left (%d left)", n, n-1, ops)
	}
	if ops = n; scanForm(h, &h.opts[0], sc.small[1], 100, &ops) == nil || ops != 0 {
		t.Fatalf("no form of %d ops made with %d left (%d left)", n, n, ops)
	}
	lim := traceFromTSDL(t, genMetadata(40), WithLimits(Limits{MaxFieldsPerEvent: 10})).dscs[0]
	// small: the header's 5 fields, the context's 2, the payload's 3;
	// str and seq: 11
	if lim.scSel[0].f == nil || lim.scSel[1].f != nil || lim.scSel[2].f != nil || lim.scSel[0].f.maxCnt != 0 {
		t.Fatalf("limit 10: forms %+v %+v %+v", lim.scSel[0].f, lim.scSel[1].f, lim.scSel[2].f)
	}
}

// FuzzScanMatchesNext: Scan (then Decode) and Next agree on any bytes
// read as the generated LTTng trace or as scanShapesTSDL's classes, with
// LTTng's compact header and with its large one.
func FuzzScanMatchesNext(f *testing.F) {
	gen := traceFromTSDL(f, genMetadata(40))
	shapes := traceFromTSDL(f, scanShapesTSDL(0, false))
	data, _ := genStreamBytes(1, 60, 40, 1024)
	f.Add(false, data)
	f.Add(false, data[:700])
	sd := everyStream(shapes, 0, 40, 0)
	f.Add(true, sd)
	f.Add(true, sd[:len(sd)/2])
	// LTTng's large header: ctfgen's trace, scanShapesTSDL's classes with
	// it (each read as both: with sh, as the shapes)
	lgen := traceFromTSDL(f, ctfgen.LargeMetadata(40))
	lshapes := traceFromTSDL(f, largeHdrTSDL(scanShapesTSDL(0, false)))
	ld, _ := ctfgen.LargeStream(1, 60, 40, 1024)
	f.Add(false, ld)
	f.Add(false, ld[:700])
	lsd := everyStream(lshapes, 0, 40, 0)
	f.Add(true, lsd)
	f.Add(true, lsd[:len(lsd)/2])
	// a header without a variant, of a class id and a timestamp
	// (everyTSDL's: idOnly)
	et := traceFromTSDL(f, everyTSDL)
	ed := everyStream(et, 0, 40, 0)
	f.Add(true, ed)
	f.Add(true, ed[:len(ed)/2])
	f.Fuzz(func(t *testing.T, sh bool, b []byte) {
		tr, lt := gen, lgen
		if sh {
			tr, lt = shapes, lshapes
		}
		compareScanNext(t, tr, "fuzz", b, newScanStats(), rand.New(rand.NewPCG(uint64(len(b)), 1)))
		compareScanNext(t, lt, "fuzz-large", b, newScanStats(), rand.New(rand.NewPCG(uint64(len(b)), 1)))
		compareScanNext(t, et, "fuzz-id-only", b, newScanStats(), rand.New(rand.NewPCG(uint64(len(b)), 1)))
	})
}

// A static-length string aligned past the end of the content (after a
// field that ends inside a byte) is cut short, as the field walk finds
// it: the position past the end is no length to subtract it from (the
// decoding program sliced the data past its length, a panic where the
// data's capacity is its length: here shape_8, cut).
func TestStringAlignedPastEnd(t *testing.T) {
	tr := traceFromTSDL(t, scanShapesTSDL(3, false))
	data := everyStream(tr, 3, 200, 0)
	data = data[: len(data)-291 : len(data)-291]
	for _, scan := range []bool{false, true} {
		s := tr.AddStream("x", data)
		next := s.Next
		if scan {
			next = s.Scan
		}
		for next() {
		}
		if s.Err() == nil || !strings.Contains(s.Err().Error(), `string field "t0" overruns the packet content (bit 68800 of 68792)`) || s.Recovery().Read != 195 {
			t.Fatalf("scan %v: %d records, %v", scan, s.Recovery().Read, s.Err())
		}
	}
}

// Scan (then Decode) reads the real traces as Next does (babeltrace's CTF
// test traces with CTF_BT_TRACES, the interop vectors with
// TRACECODEC_VECTORS, Trace Compass's LTTng and CTF 2 traces with
// CTF_TC_TRACES), each data stream file read whole; most of their
// records come from Scan's body.
func TestScanFastRealTraces(t *testing.T) {
	dirs := realTraceDirs()
	if root := os.Getenv("CTF_TC_TRACES"); root != "" {
		dirs = append(dirs, traceDirs(root)...)
	}
	if len(dirs) == 0 {
		t.Skip("none of CTF_BT_TRACES, TRACECODEC_VECTORS, CTF_TC_TRACES set")
	}
	st := newScanStats()
	r := rand.New(rand.NewPCG(9, 10))
	streams := eachStreamFile(t, dirs, func(dir string, tr *Trace, name string, b []byte) {
		compareScanNext(t, tr, dir+"/"+name, b, st, r)
	})
	t.Logf("%d data streams of %d traces: %d records, %d from Scan's body", streams, len(dirs), st.events, st.body)
	// (Trace Compass's LTTng traces: 4.47 M of 4.97 M records with all
	// three set)
	if st.events > 0 && st.body == 0 || os.Getenv("CTF_TC_TRACES") != "" && st.body < st.events*3/4 {
		t.Fatalf("real traces: %d of %d records from Scan's body", st.body, st.events)
	}
}

// wrapTSDL: LTTng's compact header and classes of sequences whose 64-bit
// lengths (one, or two of a form of several items) could make a position
// or a count wrap.
const wrapTSDL = `/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
trace { major = 1; minor = 8; byte_order = le; };
clock { name = monotonic; freq = 1000000000; };
typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
struct event_header_compact {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> { struct { uint27_clock_monotonic_t timestamp; } compact; struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended; } v;
} align(8);
stream { event.header := struct event_header_compact; };
event { name = "two"; id = 0; fields := struct { uint64_t n; uint64_t q[n]; uint64_t m; uint8_t r[m]; uint8_t z; }; };
event { name = "one"; id = 1; fields := struct { uint64_t n; uint64_t q[n]; uint8_t z; }; };
`

// Lengths of 2^63 (their elements' bits a multiple of 2^64, their sum
// 2^64) leave Scan's body, which refuses them as Next does: no position or
// count wraps to one that passes its checks.
func TestScanLengthsDoNotWrap(t *testing.T) {
	tr := traceFromTSDL(t, wrapTSDL)
	sc := tr.dscs[0]
	if f := sc.scSel[0].f; f == nil || f.kind != scMore || len(f.more) != 1 {
		t.Fatalf("two: form %+v", f)
	}
	if f := sc.scSel[1].f; f == nil || f.kind != scLen {
		t.Fatalf("one: form %+v", f)
	}
	le := binary.LittleEndian
	for id, rec := range [][]byte{
		le.AppendUint64(le.AppendUint64(le.AppendUint64([]byte{0, 0, 0, 0}, 1<<63), 1<<63), 0x7f),
		le.AppendUint64(le.AppendUint64([]byte{1, 0, 0, 0}, 1<<63), 0x7f),
	} {
		data := append(rec, make([]byte, 32)...)
		compareScanNext(t, tr, fmt.Sprintf("wrap-%d", id), data, newScanStats(), nil)
		s := tr.AddStream("x", data)
		if s.Scan() || s.Err() == nil || s.scEvents != 0 {
			t.Fatalf("class %d: Scan %v, body %d", id, s.Err(), s.scEvents)
		}
		tr.Streams = tr.Streams[:0]
	}
}
