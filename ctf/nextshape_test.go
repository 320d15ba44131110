package ctf

import (
	"encoding/binary"
	"fmt"
	"github.com/tracecodec/tracecodec/ctf2meta"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// nxShapesTSDL returns a trace with LTTng's compact/extended event record
// header (no packet header or context: everyStream's single packet) and
// classes of random shapes: integers of every width 1..64, signed and
// unsigned, aligned to 1..64 bits, little- and (in some classes)
// big-endian; null-terminated and static-length strings; sequences of
// integers of 8 to 64 bits, static arrays, sequences inside structures,
// several arrays in one class, in every third class of seeds 0 mod 4 a
// sequence of bytes after a length of 3 bits at the end, in every third
// other one a sequence of bytes and a static-length string; for odd seeds a
// sequence in the event
// record common context; for seeds 2 mod 3 a common context aligned to 64
// bits. Class 31 takes the extended header. With
// packets, everyStream's packet header and context (and for seeds 2 mod
// 4 the event record header aligned to 64 bits).
func nxShapesTSDL(seed uint64, classes int, packets bool) string {
	r := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	b.WriteString(`/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
trace { major = 1; minor = 8; byte_order = le;%s };
clock { name = monotonic; freq = 1000000000; };
typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
struct event_header_compact {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> {
		struct { uint27_clock_monotonic_t timestamp; } compact;
		struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended;
	} v;
} align(8);
stream {%s
	event.header := struct event_header_compact;
	event.context := struct { integer { size = 32; align = 8; signed = 1; } _vtid;%s };
};
`)
	h := b.String()
	if seed%3 == 2 {
		// the context aligned beyond the header: its start is not at a
		// fixed place after the header's fields (Next checks the first
		// segment apart)
		h = strings.Replace(h, "size = 32; align = 8; signed = 1; } _vtid", "size = 32; align = 64; signed = 1; } _vtid", 1)
	}
	if packets && seed%4 == 2 {
		// the header aligned to 64 bits: most packets (everyStream's
		// sizes are any number of bytes) start off its alignment, and
		// Next's body, which aligns headers from 0, leaves them to
		// nextFast (Stream.fxTab)
		h = strings.Replace(h, "} align(8);", "} align(64);", 1)
	}
	b.Reset()
	ctx := "" // odd seeds: an array before the payload (its root moves)
	if seed%2 == 1 {
		ctx = " uint8_t _cn; integer { size = 16; align = 16; signed = false; } _cq[_cn];"
	}
	if packets {
		b.WriteString(fmt.Sprintf(h, " packet.header := struct { uint32_t magic; };",
			"\n\tpacket.context := struct { integer { size = 64; align = 8; signed = false; } content_size; integer { size = 64; align = 8; signed = false; } packet_size; };", ctx))
	} else {
		b.WriteString(fmt.Sprintf(h, "", "", ctx))
	}
	aligns := []int{1, 1, 8, 8, 8, 16, 32, 64}
	integer := func(bo string) string {
		w := 1 + r.IntN(64)
		switch r.IntN(3) {
		case 0:
			w = []int{8, 16, 32, 64}[r.IntN(4)]
		}
		return fmt.Sprintf("integer { size = %d; align = %d; signed = %v;%s }", w, aligns[r.IntN(len(aligns))], r.IntN(2) == 0, bo)
	}
	for c := 0; c < classes; c++ {
		id := c
		if c == classes-1 {
			id = 31
		}
		bo := ""
		if c%7 == 6 {
			bo = " byte_order = be;"
		}
		fmt.Fprintf(&b, "event { name = \"shape_%d\"; id = %d; fields := struct {\n", c, id)
		for m := 0; m < 2+r.IntN(9); m++ {
			switch k := r.IntN(10); {
			case k < 5:
				fmt.Fprintf(&b, "\t%s i%d;\n", integer(bo), m)
			case k == 5:
				fmt.Fprintf(&b, "\tstring s%d;\n", m)
			case k == 6:
				fmt.Fprintf(&b, "\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } t%d[%d];\n", m, r.IntN(6))
			case k == 7:
				w := []int{8, 16, 32, 64}[r.IntN(4)]
				fmt.Fprintf(&b, "\tuint8_t n%d;\n\tinteger { size = %d; align = %d; signed = %v; } q%d[n%d];\n", m, w, []int{8, w}[r.IntN(2)], r.IntN(2) == 0, m, m)
			case k == 8:
				fmt.Fprintf(&b, "\tstruct { uint8_t n; %s x; uint32_t q[n]; %s y; } st%d;\n", integer(bo), integer(bo), m)
			default:
				fmt.Fprintf(&b, "\tinteger { size = 16; align = 16; signed = true; } a%d[%d];\n", m, 1+r.IntN(3))
			}
		}
		// (last, a static-length string: cutting a packet's content
		// by 1 to 5 bytes cuts it or what follows it)
		b.WriteString("\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } tz[5];\n")
		if seed%4 == 0 && c%3 == 1 {
			// then a sequence of bytes whose length of 3 bits leaves
			// the position inside a byte (the array aligned past it),
			// and an integer after it
			b.WriteString("\tuint8_t zb;\n\tinteger { size = 3; align = 1; signed = false; } zn;\n\tinteger { size = 8; align = 8; signed = true; } zq[zn];\n\tinteger { size = 16; align = 8; signed = false; } zr;\n")
		}
		if seed%4 == 0 && c%3 == 2 {
			// then a sequence of bytes and a static-length string
			b.WriteString("\tuint8_t zm;\n\tuint8_t zs[zm];\n\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } zt[3];\n")
		}
		if seed%4 == 2 && c%3 == 0 {
			// then a length, a string and the sequence of that length
			// after it, in the string's next segment (fxIntSl: the
			// length's slot read there)
			b.WriteString("\tuint8_t ln;\n\tstring ls;\n\tuint8_t lq[ln];\n")
		}
		b.WriteString("}; };\n")
	}
	if classes >= 14 && seed%2 == 0 {
		// (even seeds: no array in the common context) classes whose
		// payload ends, after integers, with a string and an integer,
		// with a sequence of bytes and a short static-length string, or
		// there: Next runs them after its head integers without its
		// loop (nxProg.tail)
		rt := rand.New(rand.NewPCG(seed, 13))
		ints := func() string {
			var x strings.Builder
			for m := rt.IntN(4); m > 0; m-- {
				fmt.Fprintf(&x, "\tinteger { size = %d; align = 8; signed = %v; } h%d;\n", []int{8, 16, 32, 64}[rt.IntN(4)], rt.IntN(2) == 0, m)
			}
			return x.String()
		}
		for k := 0; k < 6; k++ {
			fmt.Fprintf(&b, "event { name = \"tail_%d\"; id = %d; fields := struct {\n%s", k, 13+k, ints())
			if k >= 4 {
				// (integers only: nothing after them)
			} else if k < 2 {
				fmt.Fprintf(&b, "\tstring s;\n\tinteger { size = %d; align = 8; signed = %v; } x;\n", []int{8, 16, 32, 64}[rt.IntN(4)], rt.IntN(2) == 0)
			} else {
				fmt.Fprintf(&b, "\tinteger { size = %d; align = 8; signed = false; } n;\n\tinteger { size = 8; align = 8; signed = %v; } q[n];\n", []int{8, 16, 32}[rt.IntN(3)], rt.IntN(2) == 0)
				fmt.Fprintf(&b, "\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } t[%d];\n", 1+rt.IntN(8))
			}
			b.WriteString("}; };\n")
		}
	}
	return b.String()
}

// nxTextShapesTSDL returns event record classes (ids 20 to 29: none of
// nxShapesTSDL's) to add to nxShapesTSDL's trace whose static-length
// strings of 9 to 64 bytes (half of them at most 16) Next reads in place in
// their segment (fxTxt, fxTxtL): first, among and after integers of every
// width and alignment (one aligned to a bit before: the string starts a
// segment), after a null-terminated string or a sequence (a segment of
// its own, after an item), inside a structure.
func nxTextShapesTSDL(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 17))
	var b strings.Builder
	text := func(m int) string {
		n := minTxt + r.IntN(maxTxt-minTxt+1)
		if r.IntN(2) == 0 {
			n = min(n, 16)
		}
		return fmt.Sprintf("\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } u%d[%d];\n", m, n)
	}
	for c := 0; c < 10; c++ {
		fmt.Fprintf(&b, "event { name = \"text_%d\"; id = %d; fields := struct {\n", c, 20+c)
		for m := 0; m < 2+r.IntN(6); m++ {
			switch k := r.IntN(8); {
			case k < 3:
				b.WriteString(text(m))
			case k < 6:
				fmt.Fprintf(&b, "\tinteger { size = %d; align = %d; signed = %v; } i%d;\n", 1+r.IntN(64), []int{1, 8, 8, 16, 32, 64}[r.IntN(6)], r.IntN(2) == 0, m)
			case k == 6:
				fmt.Fprintf(&b, "\tstring s%d;\n", m)
			default:
				fmt.Fprintf(&b, "\tuint8_t n%d;\n\tuint8_t q%d[n%d];\n\tstruct { uint8_t a; %s } st%d;\n", m, m, m, strings.TrimSpace(text(m)), m)
			}
		}
		b.WriteString(text(99))
		b.WriteString("\tuint8_t z;\n}; };\n")
	}
	return b.String()
}

// Next's fast path (templates, the kept structure of arrays whose counts
// repeat) builds exactly what the field walk builds on classes of every
// shape (nxShapesTSDL), with counts that repeat and change at random
// between events of a class (everyStream: counts 0 to 3), intact, cut and
// damaged; and in packets (their content cut short), read whole (compareNextFast) and through the
// packet buffer (checkModes: where fewer than 8 bytes follow a value in
// the buffer, the decoding program takes the record, and the next record
// of its class finds the structure Next kept).
func TestNextFastShapesMatchWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	all := &nextFastStats{classes: map[*EventClass]bool{}}
	arrays := 0
	var fused, unfused int                                 // hot templates whose first segment Next checks with the header, and the others
	var intSl, nulB, nulBX, arrF, arr8, arr8X, skipped int // the joined ops of hot programs (hotOps) and the fxSegB left out
	var txt, txtL int                                      // static-length strings in place (fxTxt, fxTxtL) of hot programs
	var tails [6]int                                       // hot templates by nxProg.tail
	nclasses := 0                                          // the classes of the traces compared
	for seed := uint64(0); seed < 12; seed++ {
		tr := traceFromTSDL(t, nxShapesTSDL(seed, 14, false)+nxTextShapesTSDL(seed))
		for _, sc := range tr.dscs {
			for _, ec := range sc.events {
				if len(ec.nx) > 0 && ec.nx[0].arrays {
					arrays++
				}
				for k := range ec.nx {
					if x := &ec.nx[k]; x.hot {
						joins := 0
						for _, o := range x.hops {
							switch o.code {
							case fxIntSl:
								intSl++
								joins++
							case fxNulB:
								nulB++
								joins++
							case fxArrF:
								arrF++
								joins++ // (its fxSlot left out)
							case fxNulBX:
								nulBX++
								joins++ // (its fxInt stays)
							case fxArr8:
								arr8++
								joins++ // (its fxSlot left out)
							case fxArr8X:
								arr8X++
								joins++ // (its fxSlot left out, its fxFix stays)
							case fxTxt:
								txt++
							case fxTxtL:
								txtL++
							}
						}
						skipped += len(x.ops) - len(x.hops) - joins
						tails[x.tail]++
					}
					switch x := &ec.nx[k]; {
					case !x.hot:
					case x.op0 == unsafe.Pointer(&x.hops[1]):
						fused++
					case x.op0 == unsafe.Pointer(&x.hops[0]):
						unfused++
					default:
						t.Fatalf("%s: template %d starts at no first op", ec.Name, k)
					}
				}
			}
		}
		nclasses += len(tr.dscs[0].events)
		data := everyStream(tr, seed, 1500, 0)
		compareNextFast(t, tr, fmt.Sprintf("shapes-%d", seed), data, all)
		for k := 0; k < 12; k++ {
			d := damaged(r, data, k)
			compareNextFast(t, tr, fmt.Sprintf("shapes-%d-damaged", seed), d, &nextFastStats{classes: map[*EventClass]bool{}})
		}
	}
	for seed := uint64(0); seed < 12; seed++ {
		tr := traceFromTSDL(t, nxShapesTSDL(seed, 14, true)+nxTextShapesTSDL(seed))
		nclasses += len(tr.dscs[0].events)
		data := everyStream(tr, seed, 1500, 200+int(seed)*50)
		compareNextFast(t, tr, fmt.Sprintf("shapes-packets-%d", seed), data, all)
		checkModes(t, tr, data)
		comparePacketCuts(t, tr, fmt.Sprintf("shapes-packets-%d", seed), data)
	}
	t.Logf("%d events, %d of %d classes with a template (%d with arrays), %d from the fast path; %d hot templates fused, %d not", all.events, len(all.classes), nclasses, arrays, all.fast, fused, unfused)
	tails[tailNulBX] += tails[tailNulBX3]
	tails[tailArr8X] += tails[tailArr8X3]
	t.Logf("hot templates by what follows their head integers: %d the loop, %d nothing, %d a string and an integer, %d a sequence of bytes and a short string", tails[tailLoop], tails[tailEnd], tails[tailNulBX], tails[tailArr8X])
	if min(tails[tailLoop], tails[tailEnd], tails[tailNulBX], tails[tailArr8X]) < 10 {
		t.Fatalf("hot templates by tail %v: each kind is to be compared", tails)
	}
	if fused < 20 || unfused < 20 {
		t.Fatalf("%d hot templates fused, %d not: both kinds are to be compared", fused, unfused)
	}
	t.Logf("hot programs: %d fxIntSl, %d fxNulB, %d fxNulBX, %d fxArrF, %d fxArr8, %d fxArr8X, %d fxSegB left out", intSl, nulB, nulBX, arrF, arr8, arr8X, skipped)
	if intSl < 10 || nulB < 10 || nulBX < 10 || arrF < 10 || arr8 < 10 || arr8X < 10 || skipped < 10 {
		t.Fatalf("hot programs: %d fxIntSl, %d fxNulB, %d fxNulBX, %d fxArrF, %d fxArr8, %d fxArr8X, %d fxSegB left out: each is to be compared", intSl, nulB, nulBX, arrF, arr8, arr8X, skipped)
	}
	t.Logf("hot programs: %d fxTxt, %d fxTxtL", txt, txtL)
	if txt < 10 || txtL < 10 {
		t.Fatalf("hot programs: %d fxTxt, %d fxTxtL: each is to be compared", txt, txtL)
	}
	if all.fast < all.templated*9/10 || len(all.classes) < nclasses/2 || arrays < 20 || all.flat < all.fast/10 || all.flat == all.fast {
		t.Fatalf("%d of %d records of templated classes from the fast path (%d from nextFlat), %d classes with a template, %d with arrays", all.fast, all.templated, all.flat, len(all.classes), arrays)
	}
}

// When the fast path gives up on a record after an array whose count
// differs from the kept event's (here: a value fewer than 8 bytes before
// the end of the loaded bytes, minBuffer, after the structure was
// rewritten), the stream forgets the kept counts from that array on: the
// next record of the class with the old counts (in the next packet) does
// not find a half-rewritten structure.
func TestNextFastKeptCountsAfterFallback(t *testing.T) {
	tsdl := nxShapesTSDL(0, 0, true) + `event { name = "two"; id = 0; fields := struct {
	uint8_t n; integer { size = 8; align = 8; signed = true; } q[n]; uint8_t m;
	integer { size = 16; align = 8; signed = true; } r[m]; uint8_t z; }; };
`
	tr := traceFromTSDL(t, tsdl)
	if ec := tr.dscs[0].EventClass(0); ec == nil || len(ec.nx) == 0 || ec.nx[0].nArr != 2 {
		t.Fatal("no template with two arrays")
	}
	// packets of records (n, m) without padding, the first minBuffer
	// bytes ending with a record (3, 3) after records (1, 1): 20 bytes
	// of packet header and context, 11 + n + 2m bytes per record
	var data []byte
	clock := uint64(0)
	packet := func(recs ...[2]int) {
		var w bitWriter
		w.put(0xc1fc1fc1, 32, false)
		w.put(0, 64, false)
		w.put(0, 64, false)
		for k, r := range recs {
			clock += 10
			w.put(0, 5, false)
			w.put(clock, 27, false)
			w.put(7, 32, false) // vtid
			w.put(uint64(r[0]), 8, false)
			for i := 0; i < r[0]; i++ {
				w.put(uint64(10*k+i), 8, false)
			}
			w.put(uint64(r[1]), 8, false)
			for i := 0; i < r[1]; i++ {
				w.put(uint64(0x10000-1-i), 16, false)
			}
			w.put(uint64(k), 8, false)
		}
		binary.LittleEndian.PutUint64(w.b[4:], uint64(w.pos))
		binary.LittleEndian.PutUint64(w.b[12:], uint64(w.pos))
		data = append(data, w.b...)
	}
	ones := func(n int) [][2]int {
		r := make([][2]int, n)
		for i := range r {
			r[i] = [2]int{1, 1}
		}
		return r
	}
	for len(data)+20+14*40+2000 < minBuffer {
		packet(ones(40)...)
	}
	rest := minBuffer - len(data) - 20 - 20 // the last record: (3, 3)
	packet(append(append([][2]int{{1, 1 + rest%14/2}}, ones(rest/14-1)...), [2]int{3, 3})...)
	if len(data) != minBuffer {
		t.Fatalf("%d bytes", len(data))
	}
	packet(ones(3)...)
	checkModes(t, tr, data)
	walk := tr.AddStream("w", data)
	walk.generic = true
	s := tr.AddStreamReader("r", smallReader{data}, int64(len(data)))
	n := 0
	for s.Next() {
		if !walk.Next() {
			t.Fatalf("record %d: the walk ends: %v", n, walk.Err())
		}
		we, fe := walk.Event(), s.Event()
		if len(we.Fields) != len(fe.Fields) {
			t.Fatalf("record %d: %d fields, the walk %d", n, len(fe.Fields), len(we.Fields))
		}
		for i := range we.Fields {
			if we.Fields[i] != fe.Fields[i] {
				t.Fatalf("record %d: field %d %+v, the walk %+v", n, i, fe.Fields[i], we.Fields[i])
			}
		}
		n++
	}
	if walk.Next() || s.Err() != nil || walk.Err() != nil || s.nxEvents+s.fxEvents < int64(n)*9/10 {
		t.Fatalf("%d records, %d from templates: %v", n, s.nxEvents+s.fxEvents, s.Err())
	}
}

// nxBlobsCTF2 is CTF 2 metadata of a data stream class without event
// record headers whose one class holds what TSDL cannot: static-length
// BLOBs (N is their length: a null byte does not end them) and
// static-length strings of at most and more than 8 bytes (and more than 16:
// read in place, fxTxt and fxTxtL), dynamic-length ones, beside integers.
func nxBlobsCTF2() []byte {
	u8 := `{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian","alignment":8}`
	frags := []string{`{"type":"preamble","version":2}`, `{"type":"data-stream-class"}`,
		`{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[
			{"name":"n","field-class":` + u8 + `},
			{"name":"b3","field-class":{"type":"static-length-blob","length":3}},
			{"name":"b8","field-class":{"type":"static-length-blob","length":8}},
			{"name":"x","field-class":{"type":"fixed-length-signed-integer","length":13,"byte-order":"little-endian"}},
			{"name":"b0","field-class":{"type":"static-length-blob","length":0}},
			{"name":"s5","field-class":{"type":"static-length-string","length":5}},
			{"name":"b9","field-class":{"type":"static-length-blob","length":9}},
			{"name":"s8","field-class":{"type":"static-length-string","length":8}},
			{"name":"b16","field-class":{"type":"static-length-blob","length":16}},
			{"name":"s30","field-class":{"type":"static-length-string","length":30}},
			{"name":"b40","field-class":{"type":"static-length-blob","length":40}},
			{"name":"s12","field-class":{"type":"static-length-string","length":12}},
			{"name":"db","field-class":{"type":"dynamic-length-blob","length-field-location":{"path":["n"]}}},
			{"name":"z","field-class":{"type":"null-terminated-string"}},
			{"name":"y","field-class":` + u8 + `}]}}`}
	var b []byte
	for _, f := range frags {
		b = append(b, 0x1e)
		b = append(b, f...)
		b = append(b, '\n')
	}
	return b
}

// Next's fast path without event record headers (nextBare) reads
// static-length BLOBs and strings as the walk does, intact, cut and
// damaged.
func TestNextFastBlobsMatchWalk(t *testing.T) {
	m, err := ctf2meta.Decode(nxBlobsCTF2())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrace(m)
	if err != nil {
		t.Fatal(err)
	}
	if tr.dscs[0].bare == nil {
		t.Fatal("no template")
	}
	r := rand.New(rand.NewPCG(8, 9))
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	for seed := uint64(0); seed < 6; seed++ {
		data := everyStream(tr, seed, 800, 0)
		compareNextFast(t, tr, "blobs", data, st)
		for k := 0; k < 12; k++ {
			d := append([]byte(nil), data...)
			if k%2 == 0 {
				d = d[:r.IntN(len(d))]
			} else {
				d[r.IntN(len(d))] ^= byte(1 << r.IntN(8))
			}
			compareNextFast(t, tr, "blobs-damaged", d, &nextFastStats{classes: map[*EventClass]bool{}})
		}
	}
	if st.fast < st.templated*9/10 {
		t.Fatalf("%d of %d records from the fast path", st.fast, st.templated)
	}
}

// A class whose sequence's length is the event record header's selector
// (LTTng's compact header: the class id) is decoded as the field walk
// decodes it: Next's body leaves such a class to nextFast (it writes no
// slot of the header's), whose program reads the length the selector
// holds.
func TestNextFastSelectorLength(t *testing.T) {
	tsdl := strings.Replace(nxShapesTSDL(0, 2, false), "event { name = \"shape_0\"; id = 0; fields := struct {\n",
		"event { name = \"shape_0\"; id = 3; fields := struct {\n\tuint8_t bysel[stream.event.header.id];\n", 1)
	if !strings.Contains(tsdl, "bysel") {
		t.Fatal("no class with a sequence of the selector's length")
	}
	tr := traceFromTSDL(t, tsdl)
	ec := tr.dscs[0].EventClass(3)
	if ec == nil || len(ec.nx) == 0 || ec.nx[0].hot {
		t.Fatalf("class 3: a template, not hot: %v", ec)
	}
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	compareNextFast(t, tr, "selector-length", everyStream(tr, 3, 2000, 0), st)
	if !st.classes[ec] || st.fast < st.templated*9/10 {
		t.Fatalf("%d of %d records of templated classes from templates", st.fast, st.templated)
	}
}

// Next's body writes the integers at the head of a class's first segment
// (fused with the header) one by one for up to 3, in pairs and an odd one
// for more: classes with 1 to 8 of them, every one compared with the
// field walk's.
func TestNextFastHeadIntegers(t *testing.T) {
	var b strings.Builder
	b.WriteString(nxShapesTSDL(0, 0, false))
	for c := 0; c < 8; c++ {
		// (the context's _vtid, then c bytes: 1 + c integers)
		fmt.Fprintf(&b, "event { name = \"head_%d\"; id = %d; fields := struct {", c, c)
		for k := 0; k < c; k++ {
			fmt.Fprintf(&b, " uint8_t h%d;", k)
		}
		b.WriteString(" }; };\n")
	}
	tr := traceFromTSDL(t, b.String())
	heads := map[int]bool{}
	for _, ec := range tr.dscs[0].events {
		if len(ec.nx) > 0 && ec.nx[0].hot {
			heads[ec.nx[0].nHead] = true
		}
	}
	for n := 1; n <= 8; n++ {
		if !heads[n] {
			t.Fatalf("no hot template with %d integers at its head: %v", n, heads)
		}
	}
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	compareNextFast(t, tr, "head-integers", everyStream(tr, 9, 4000, 0), st)
	if st.flat < st.events*9/10 {
		t.Fatalf("%d of %d records from Next's body", st.flat, st.events)
	}
}

// comparePacketCuts compares Next with the field walk (compareNextFast)
// on data, a stream of everyStream's packets (content size at byte 4,
// packet size at 12), with the content of each of its first 8 packets cut
// short by 1 to 16 bytes (its padding and the next packet beyond it).
func comparePacketCuts(t *testing.T, tr *Trace, name string, data []byte) {
	t.Helper()
	for p, off := 0, 0; p < 8 && off+20 <= len(data); p++ {
		content := binary.LittleEndian.Uint64(data[off+4:])
		for k := uint64(1); k <= 16 && k*8 < content-160; k++ {
			d := append([]byte(nil), data...)
			binary.LittleEndian.PutUint64(d[off+4:], content-k*8)
			compareNextFast(t, tr, fmt.Sprintf("%s-cut-%d-%d", name, p, k), d, &nextFastStats{classes: map[*EventClass]bool{}})
		}
		off += int(binary.LittleEndian.Uint64(data[off+12:]) / 8)
	}
}

// hotOps joins a sequence's length and the sequence of its segment
// (fxArrF, fxArr8) where a null-terminated string comes before them too:
// it counts the segment of the fxSegB it joins to the string (fxNulB).
func TestHotOpsArrayAfterString(t *testing.T) {
	tsdl := strings.Replace(nxShapesTSDL(0, 0, false), "stream {", `event { name = "after_string"; id = 3; fields := struct {
	integer { size = 32; align = 8; signed = false; } a;
	string s;
	uint8_t n;
	uint8_t q[n];
	uint32_t z;
}; };
stream {`, 1)
	tr := traceFromTSDL(t, tsdl)
	ec := tr.dscs[0].EventClass(3)
	if ec == nil || len(ec.nx) == 0 || !ec.nx[0].hot {
		t.Fatal("after_string: no hot template")
	}
	var codes []uint8
	for _, o := range ec.nx[0].hops {
		codes = append(codes, o.code)
	}
	if !slices.Contains(codes, fxArr8) || slices.Contains(codes, fxIntSl) {
		t.Fatalf("after_string: hot ops %v: the sequence of bytes is no fxArr8, or its length an fxIntSl", codes)
	}
	data := everyStream(tr, 3, 600, 0)
	compareNextFast(t, tr, "after-string", data, &nextFastStats{classes: map[*EventClass]bool{}})
}
