package ctf

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

// Scan's shortcuts (skim.go): event record headers at fixed offsets
// (hdrShape, with the LTTng selector path selID, whose templates Next
// decodes too), classes of fixed-size
// fields in one step (fixed), lean class programs (folded skips, a tail, a
// sequence fused with its length, strings, BLOBs). Each test checks that
// the shortcut is taken, then that Scan reports what the field walk
// reports on valid, damaged and over-limit streams.

// shapesTSDL: an LTTng-style compact event record header whose 11-bit
// timestamp wraps every few events, and one class per lean shape.
const shapesTSDL = `/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
clock { name = c; freq = 1000000000; };
typealias integer { size = 11; align = 1; signed = false; map = clock.c.value; } := ts11_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := ts64_t;
stream {
	packet.context := struct { uint64_t content_size; uint64_t packet_size; };
	event.header := struct {
		enum : integer { size = 5; align = 1; signed = false; } { compact = 0 ... 30, extended = 31 } id;
		variant <id> { struct { ts11_t timestamp; } compact; struct { uint32_t id; ts64_t timestamp; } extended; } v;
	} align(8);
};
event { name = "fixed"; id = 0; fields := struct { uint32_t a; uint64_t b; uint8_t c[3]; }; };
event { name = "str"; id = 1; fields := struct { uint32_t a; string s; uint16_t e; }; };
event { name = "seq"; id = 2; fields := struct { uint32_t len; uint16_t vals[len]; integer { size = 8; align = 8; signed = false; encoding = UTF8; } txt[4]; }; };
event { name = "bits"; id = 3; fields := struct { integer { size = 3; align = 1; signed = false; } x; uint8_t y[x]; uint8_t m; integer { size = 8; align = 8; signed = false; encoding = UTF8; } d[m]; }; };
event { name = "seqlast"; id = 5; fields := struct { uint32_t len; uint8_t s[len]; }; };
event { name = "seqbe"; id = 6; fields := struct { integer { size = 16; align = 8; signed = false; byte_order = be; } len; uint8_t s[len]; string t; }; };
event { name = "var"; id = 4; fields := struct { enum : uint8_t { A = 0, B = 1 ... 255 } tag; variant <tag> { uint32_t A; string B; } v; }; };
`

// largeTSDL: shapesTSDL with LTTng's large header (a 16-bit selector whose
// ranges no table holds).
var largeTSDL = strings.Replace(shapesTSDL, `enum : integer { size = 5; align = 1; signed = false; } { compact = 0 ... 30, extended = 31 } id;
		variant <id> { struct { ts11_t timestamp; } compact;`, `enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
		variant <id> { struct { ts11_t timestamp; } compact;`, 1)

func shapeClass(t *testing.T, tr *Trace, name string) *EventClass {
	t.Helper()
	for _, ec := range tr.dscs[0].events {
		if ec.Name == name {
			return ec
		}
	}
	t.Fatalf("no class %s", name)
	return nil
}

func TestScanShapes(t *testing.T) {
	if largeTSDL == shapesTSDL {
		t.Fatal("largeTSDL: replacement failed")
	}
	for _, c := range []struct {
		name, tsdl string
		table      bool
	}{{"compact", shapesTSDL, true}, {"large", largeTSDL, false}} {
		t.Run(c.name, func(t *testing.T) {
			tr := traceFromTSDL(t, c.tsdl)
			h := tr.dscs[0].hdrShape
			if h == nil || !h.selID || (h.tab != nil) != c.table || len(h.opts) != 2 {
				t.Fatalf("header shape %+v", h)
			}
			// Next builds the header from templates: struct, id, variant,
			// struct, timestamp (compact); with the extended id (extended)
			if len(h.tmpl) != 2 || len(h.tmpl[0].fields) != 5 || len(h.tmpl[0].vals) != 2 || len(h.tmpl[1].fields) != 6 || len(h.tmpl[1].vals) != 3 {
				t.Fatalf("header templates %+v", h.tmpl)
			}
			if ec := shapeClass(t, tr, "fixed"); !ec.fixed || ec.fixBits != 32+64+24 || ec.fixN != 7 {
				t.Errorf("fixed: %v %d bits %d fields", ec.fixed, ec.fixBits, ec.fixN)
			}
			if ec := shapeClass(t, tr, "str"); ec.fixed || len(ec.lean) != 1 || ec.lean[0].code != opString || ec.lean[0].pre != 32 || ec.leanTail.pre != 16 {
				t.Errorf("str: lean %+v tail %+v", ec.lean, ec.leanTail)
			}
			// a sequence fused with its length, then a static- or a
			// dynamic-length string
			if l := shapeClass(t, tr, "seq").lean; len(l) != 2 || l[0].code != opFixed || len(l[0].sub) != 1 || l[0].pre != 0 || l[1].code != opBytes {
				t.Errorf("seq: lean %+v", l)
			}
			if l := shapeClass(t, tr, "seqlast").lean; len(l) != 1 || len(l[0].sub) != 1 {
				t.Errorf("seqlast: lean %+v", l)
			}
			// a big-endian length: not read inline (leanRun stops at it,
			// leanRest reads it)
			if l := shapeClass(t, tr, "seqbe").lean; len(l) != 2 || l[0].code != opFixed || l[0].le || len(l[0].sub) != 1 || l[1].code != opString {
				t.Errorf("seqbe: lean %+v", l)
			}
			if l := shapeClass(t, tr, "bits").lean; len(l) != 3 || l[0].code != opFixed || len(l[0].sub) != 1 || l[1].code != opFixed || l[1].sub != nil || l[2].code != opBytes {
				t.Errorf("bits: lean %+v", l)
			}
			if ec := shapeClass(t, tr, "var"); !ec.skippable || ec.lean != nil || ec.fixed {
				t.Errorf("var: skippable %v lean %v fixed %v", ec.skippable, ec.lean != nil, ec.fixed)
			}
			r := rand.New(rand.NewPCG(3, 4))
			for seed := uint64(0); seed < 4; seed++ {
				data := everyStream(tr, seed, 400, 300+int(seed)*150)
				checkModes(t, tr, data)
				s := tr.AddStream("x", data)
				n := 0
				for s.Scan() {
					n++
				}
				tr.Streams = tr.Streams[:0]
				if s.Err() != nil || n != 400 {
					t.Fatalf("seed %d: %d events, %v", seed, n, s.Err())
				}
				// every class skimmed in its own way (fixed, lean, skim),
				// none decoded instead but the stream's last record, where
				// fewer than the 16 bytes Scan loads at once may follow
				// its header's start
				if s.replays > 1 {
					t.Errorf("seed %d: %d of %d records decoded after skimming failed", seed, s.replays, n)
				}
				checkDamaged(t, tr, data, r, 60)
			}
			m, err := ctf2meta.ParseTSDL([]byte(c.tsdl))
			if err != nil {
				t.Fatal(err)
			}
			for l := 4; l <= 24; l++ {
				lim, err := NewTrace(m, WithLimits(Limits{MaxFieldsPerEvent: l}))
				if err != nil {
					t.Fatal(err)
				}
				t.Run(fmt.Sprint("limit", l), func(t *testing.T) { checkModes(t, lim, everyStream(lim, uint64(l), 200, 400)) })
			}
		})
	}
}

// Headers of other shapes: a header without a variant of a class id and
// a clock field (everyTSDL: an id and a 64-bit timestamp) is a selID
// shape of one option (idOnly: the id is the selector, the option the
// whole header), read as LTTng's are; one without a clock field takes
// the general fixed-offset path (and Next its program); one with a
// big-endian field has no shape (the skimming program reads it).
func TestScanShapeGeneral(t *testing.T) {
	tr := traceFromTSDL(t, everyTSDL)
	if h := tr.dscs[0].hdrShape; h == nil || !h.idOnly || !h.selID || h.tmpl == nil || tr.dscs[0].selShape != h || h.src >= 0 ||
		h.pre.slot.mask != 0xff || h.pre.slot.slot != -1 || h.pre.clk.mask != 0 || len(h.opts) != 1 || h.opts[0].clk.mask != 1<<64-1 || h.opts[0].bits != 72 || h.option(200) != 0 {
		t.Fatalf("everyTSDL header shape %+v", h)
	}
	noClk := strings.Replace(everyTSDL, "event.header := struct { uint8_t id; ts_t timestamp; };", "event.header := struct { uint8_t id; uint64_t stamp; };", 1)
	if noClk == everyTSDL {
		t.Fatal("replacement failed")
	}
	tn := traceFromTSDL(t, noClk)
	if h := tn.dscs[0].hdrShape; h == nil || h.idOnly || h.selID || h.tmpl != nil || h.src >= 0 || h.pre.id.mask != 0xff || h.pre.clk.mask != 0 || h.pre.bits != 72 {
		t.Fatalf("header without a clock field: shape %+v", h)
	}
	be := strings.Replace(shapesTSDL, "typealias integer { size = 11; align = 1; signed = false; map", "typealias integer { size = 11; align = 1; signed = false; byte_order = be; map", 1)
	if be == shapesTSDL {
		t.Fatal("replacement failed")
	}
	tb := traceFromTSDL(t, be)
	if tb.dscs[0].hdrShape != nil || tb.dscs[0].hdrSkip == nil {
		t.Fatalf("big-endian header: shape %v, skimming program %v", tb.dscs[0].hdrShape, tb.dscs[0].hdrSkip)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, x := range []*Trace{tr, tn, tb} {
		data := everyStream(x, 9, 300, 400)
		checkModes(t, x, data)
		checkDamaged(t, x, data, r, 30)
	}
}

// Score-P's header, a 64-bit class id and a 64-bit timestamp (here
// before nxHeadsTSDL's classes): the timestamp lies past the header's
// first 64 bits (hdrField.get reads it from the second word alone; Next's
// and Scan's bodies 8 bytes from byte 8). Its records decode as the
// walk's; Next's body builds and Scan's body skims most of them.
func TestScanShapeScoreP(t *testing.T) {
	heads := nxHeadsTSDL("31")
	sp := strings.Replace(heads, "event.header := struct event_header_compact;", "event.header := struct { integer { size = 64; align = 8; signed = false; } id; uint64_clock_monotonic_t timestamp; };", 1)
	if sp == heads {
		t.Fatal("replacement failed")
	}
	tr := traceFromTSDL(t, sp)
	h := tr.dscs[0].hdrShape
	if h == nil || !h.idOnly || !h.selID || h.tmpl == nil || h.pre.slot.mask != 1<<64-1 || len(h.opts) != 1 || h.opts[0].clk.sh != 64 || h.opts[0].bits != 128 {
		t.Fatalf("Score-P header shape %+v", h)
	}
	if clk, ok := h.opts[0].clk.at(); !ok || clk.b != 8 || clk.s != 0 {
		t.Fatalf("the timestamp read from byte %d, bit %d (%v)", clk.b, clk.s, ok)
	}
	r := rand.New(rand.NewPCG(7, 8))
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	for seed := uint64(0); seed < 3; seed++ {
		data := everyStream(tr, seed, 400, 0)
		checkModes(t, tr, data)
		checkDamaged(t, tr, data, r, 30)
		compareNextFast(t, tr, fmt.Sprint("scorep-", seed), data, st)
	}
	if st.templated != st.events || st.flat < st.events*3/4 {
		t.Fatalf("%d records, %d of classes with templates, %d from Next's body", st.events, st.templated, st.flat)
	}
	s := tr.AddStream("s", everyStream(tr, 1, 400, 0))
	n := 0
	for s.Scan() {
		n++
	}
	if s.Err() != nil || n != 400 || s.scEvents < 300 {
		t.Fatalf("Scan: %d records, %d from its body (%v)", n, s.scEvents, s.Err())
	}
	tr.Streams = tr.Streams[:0]
}

// After an event record fails, Scan (whose LTTng fast path skips the
// stream-state checks while the packet's shape is current) keeps failing
// with the same error, after a failed Scan or a failed Next alike; Reset
// reads the stream again up to the damaged record.
func TestScanErrorSticky(t *testing.T) {
	data, _ := genStreamBytes(0, 300, 40, 4096)
	tr := traceFromTSDL(t, genMetadata(40))
	s := tr.AddStream("probe", data)
	for i := 0; i < 10; i++ {
		if !s.Scan() {
			t.Fatal(s.Err())
		}
	}
	if s.sel == nil {
		t.Fatal("Scan's fast path is not taken")
	}
	// the 11th record: an extended header naming class 0xffffffff
	off := int64(s.pos/8) + s.dataOff
	data[off] |= 31
	for k := int64(1); k <= 4; k++ {
		data[off+k] = 0xff
	}
	for _, first := range []struct {
		name string
		next func(*Stream) bool
	}{{"Scan", (*Stream).Scan}, {"Next", (*Stream).Next}} {
		s := tr.AddStream("damaged", data)
		n := 0
		for first.next(s) {
			n++
		}
		err := s.Err()
		if n != 10 || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: %d records, then %v; want 10, then ErrCorrupt", first.name, n, err)
		}
		for i := 0; i < 3; i++ {
			if s.Scan() || s.Err() != err {
				t.Fatalf("%s failed, then Scan: true or another error (%v)", first.name, s.Err())
			}
		}
		s.Reset()
		if n := countAll(s.Scan); n != 10 || s.Err() == nil {
			t.Fatalf("%s, Reset, Scan: %d records, %v", first.name, n, s.Err())
		}
	}
}
