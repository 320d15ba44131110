package ctf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

// Differential tests of the compiled decoder (prog.go), the skimming
// programs (skim.go) and the packet buffer (AddStreamReader) against the
// recursive field walk, on traces whose metadata uses every field class
// the package decodes, valid and corrupted.

// everyTSDL: CTF 1.8 metadata with bit fields in both byte orders, floats,
// enumerations, nested structures, static and dynamic arrays of integers,
// strings and structures, static- and dynamic-length strings, variants
// with unsigned and signed selectors, a packet header and context, an
// event record header with a class id and a clock, a common context.
const everyTSDL = `/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
clock { name = c; freq = 1000000000; };
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := ts_t;
stream {
	packet.context := struct { uint64_t content_size; uint64_t packet_size; };
	event.header := struct { uint8_t id; ts_t timestamp; };
	event.context := struct { integer { size = 3; align = 1; signed = true; } ctx_bits; string ctx_s; };
};
event { name = "ints"; id = 0; fields := struct {
	integer { size = 5; align = 1; signed = false; } a;
	integer { size = 11; align = 1; signed = true; byte_order = be; } b;
	integer { size = 64; align = 1; signed = false; byte_order = be; } c;
	integer { size = 16; align = 16; signed = true; } d;
	integer { size = 8; align = 8; signed = false; } e;
	integer { size = 63; align = 1; signed = true; } f;
	floating_point { exp_dig = 8; mant_dig = 24; align = 32; byte_order = be; } g;
	floating_point { exp_dig = 11; mant_dig = 53; align = 8; } h;
	enum : integer { size = 7; align = 1; signed = false; } { A = 0, B = 1 ... 100 } i;
	struct { uint32_t x; uint8_t y; integer { size = 16; align = 8; signed = true; } z; } j;
	struct { uint32_t x; uint64_t y; } k[3];
	uint8_t l[2];
}; };
event { name = "dyn"; id = 1; fields := struct {
	integer { size = 3; align = 1; signed = false; } n;
	uint8_t seq[n];
	string strs[n];
	struct { uint8_t a; string s; integer { size = 4; align = 1; signed = false; } bits; } recs[n];
	integer { size = 8; align = 8; signed = false; encoding = UTF8; } txt[6];
	integer { size = 8; align = 8; signed = false; encoding = UTF8; } dtxt[n];
	integer { size = 16; align = 16; signed = true; } i16s[n];
	struct { integer { size = 3; align = 1; signed = false; } b; uint32_t w; } bs[n];
}; };
event { name = "var"; id = 2; fields := struct {
	enum : integer { size = 2; align = 1; signed = false; } { X = 0, Y = 1, Z = 2 ... 3 } tag;
	variant <tag> { uint32_t X; string Y; struct { uint8_t m; string s; } Z; } v;
	enum : integer { size = 8; align = 8; signed = true; } { M = -128 ... -1, P = 0 ... 127 } stag;
	variant <stag> { integer { size = 13; align = 1; signed = false; } M; struct { uint64_t q; } P; } w;
}; };
event { name = "fixed"; id = 3; fields := struct { uint32_t a; uint64_t b; uint8_t c; }; };
`

// everyCTF2: CTF 2 metadata with booleans, bit maps, bit arrays in
// big-endian first-to-last order, LEB128 integers, null-terminated,
// static- and dynamic-length strings (UTF-8, UTF-16, UTF-32), static- and
// dynamic-length BLOBs, arrays of strings, an optional and a variant.
func everyCTF2() []byte {
	frags := []string{`{"type":"preamble","version":2}`, `{"type":"data-stream-class"}`,
		`{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[{"name":"f","field-class":{"type":"structure","minimum-alignment":8,"member-classes":[
			{"name":"a","field-class":{"type":"fixed-length-bit-array","length":3,"byte-order":"big-endian"}},
			{"name":"b","field-class":{"type":"fixed-length-boolean","length":8,"byte-order":"little-endian","alignment":8}},
			{"name":"c","field-class":{"type":"fixed-length-bit-map","length":8,"byte-order":"little-endian","flags":{"x":[[0,0]],"y":[[1,7]]}}},
			{"name":"d","field-class":{"type":"fixed-length-signed-integer","length":16,"byte-order":"big-endian","preferred-display-base":16,"mappings":{"neg":[[-5,-1]]}}},
			{"name":"e","field-class":{"type":"fixed-length-floating-point-number","length":64,"byte-order":"little-endian"}},
			{"name":"f","field-class":{"type":"variable-length-unsigned-integer","mappings":{"big":[[0,18446744073709551615]]}}},
			{"name":"g","field-class":{"type":"variable-length-signed-integer","preferred-display-base":2}},
			{"name":"h","field-class":{"type":"null-terminated-string"}},
			{"name":"i","field-class":{"type":"static-length-string","length":4}},
			{"name":"j","field-class":{"type":"dynamic-length-string","length-field-location":{"path":["f"]}}},
			{"name":"k","field-class":{"type":"static-length-blob","length":3,"media-type":"image/png"}},
			{"name":"l","field-class":{"type":"dynamic-length-blob","length-field-location":{"origin":"event-record-payload","path":["f","f"]}}},
			{"name":"m","field-class":{"type":"static-length-array","length":2,"element-field-class":{"type":"null-terminated-string"}}},
			{"name":"n","field-class":{"type":"dynamic-length-array","length-field-location":{"path":["f"]},"element-field-class":{"type":"null-terminated-string"}}},
			{"name":"o","field-class":{"type":"optional","selector-field-location":{"path":["b"]},"field-class":{"type":"null-terminated-string"}}},
			{"name":"r","field-class":{"type":"null-terminated-string","encoding":"utf-16le"}},
			{"name":"s","field-class":{"type":"null-terminated-string","encoding":"utf-32be"}},
			{"name":"t","field-class":{"type":"static-length-string","length":6,"encoding":"utf-16be"}},
			{"name":"p","field-class":{"type":"variant","selector-field-location":{"path":["d"]},"options":[
				{"name":"x","selector-field-ranges":[[-5,-1]],"field-class":{"type":"null-terminated-string"}},
				{"selector-field-ranges":[[0,9]],"field-class":{"type":"structure","member-classes":[{"name":"q","field-class":{"type":"fixed-length-unsigned-integer","length":32,"byte-order":"little-endian","alignment":8}}]}}]}}]}}]}}`}
	var b []byte
	for _, f := range frags {
		b = append(b, ctf2meta.RS)
		b = append(b, f...)
		b = append(b, '\n')
	}
	return b
}

// encoder writes valid event records for a compiled trace, at random:
// length and selector fields small, the class id and clock as asked.
type encoder struct {
	w     bitWriter
	slots []uint64
	r     *rand.Rand
	ercID uint64
	clock uint64
}

func (e *encoder) align(a uint32) {
	for e.w.pos%int(a) != 0 {
		e.w.put(0, 1, false)
	}
}

func (e *encoder) str(n int, nul bool) {
	for i := 0; i < n; i++ {
		c := byte('a' + e.r.IntN(26))
		if !nul && e.r.IntN(5) == 0 {
			c = 0
		}
		e.w.put(uint64(c), 8, false)
	}
	if nul {
		e.w.put(0, 8, false)
	}
}

func (e *encoder) field(fc *FieldClass) {
	e.align(fc.Align)
	small := uint64(e.r.IntN(4))
	if fc.Kind == KindSint || fc.Kind == KindVarSint {
		small = uint64(int64(e.r.IntN(4)) - 2)
	}
	switch fc.Kind {
	case KindUint, KindSint, KindBool, KindFloat:
		v := e.r.Uint64()
		switch {
		case fc.roles&roleERCID != 0:
			v = e.ercID
		case fc.roles&roleClock != 0:
			v = e.clock
		case fc.slot >= 0:
			v = small
		}
		if fc.Bits < 64 {
			v &= 1<<fc.Bits - 1
		}
		e.w.put(v, int(fc.Bits), fc.BigEndian)
		if fc.slot >= 0 {
			e.slots[fc.slot] = v
			if fc.Kind == KindSint {
				e.slots[fc.slot] = signExtend(v, fc.Bits)
			}
		}
	case KindVarUint, KindVarSint:
		v := e.r.Uint64() >> e.r.IntN(64)
		if fc.slot >= 0 {
			v = small
		}
		if fc.Kind == KindVarUint {
			for u := v; ; {
				c := u & 0x7f
				if u >>= 7; u != 0 {
					c |= 0x80
				}
				e.w.put(c, 8, false)
				if u == 0 {
					break
				}
			}
		} else {
			for x := int64(v); ; {
				c := uint64(x & 0x7f)
				x >>= 7
				done := x == 0 && c&0x40 == 0 || x == -1 && c&0x40 != 0
				if !done {
					c |= 0x80
				}
				e.w.put(c, 8, false)
				if done {
					break
				}
			}
		}
		if fc.slot >= 0 {
			e.slots[fc.slot] = small
		}
	case KindString, KindBlob:
		switch {
		case fc.nulStr && fc.enc != encUTF8:
			// code units of letters (UTF-16: a letter in each byte, a
			// BMP code point): valid text
			u := unitSize(fc.enc)
			for range e.r.IntN(4) {
				c := uint64('a' + e.r.IntN(26))
				e.w.put(c|c<<8, 8*u, fc.enc == encUTF32BE)
			}
			e.w.put(0, 8*unitSize(fc.enc), false)
		case fc.nulStr:
			n := e.r.IntN(6)
			if e.r.IntN(4) == 0 {
				n = e.r.IntN(40) // beyond a word: Scan reads strings eight bytes at a time
			}
			e.str(n, true)
		case fc.dynamic:
			e.str(int(e.slots[fc.src]), false)
		default:
			e.str(int(fc.Length), false)
		}
	case KindStruct:
		for _, m := range fc.Members {
			e.field(m)
		}
	case KindArray:
		n := fc.Length
		if fc.dynamic {
			n = e.slots[fc.src]
		}
		for i := uint64(0); i < n; i++ {
			e.field(fc.Members[0])
		}
	case KindVariant:
		for k, rs := range fc.optRange {
			if inRanges(rs, e.slots[fc.src], fc.srcSign) {
				e.field(fc.Members[k])
				break
			}
		}
	case KindOptional:
		sel := e.slots[fc.src]
		if fc.optBool && sel != 0 || !fc.optBool && inRanges(fc.optRange[0], sel, fc.srcSign) {
			e.field(fc.Members[0])
		}
	}
}

// everyStream encodes n event records of tr in packets of at most pktSize
// bytes (pktSize 0: no packet header or context, one packet).
func everyStream(tr *Trace, seed uint64, n, pktSize int) []byte {
	e := &encoder{r: rand.New(rand.NewPCG(seed, 7)), slots: make([]uint64, tr.slots), clock: 1000}
	sc := tr.dscs[0]
	var ids []uint64
	for id := range sc.events {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the same stream for the same seed
	var out []byte
	flush := func() {
		if pktSize == 0 {
			out = append(out, e.w.b...)
			return
		}
		content := e.w.pos
		b := append([]byte(nil), e.w.b...)
		size := max(len(b)+e.r.IntN(8), 1)
		b = append(b, make([]byte, size-len(b))...)
		binary.LittleEndian.PutUint64(b[4:], uint64(content))
		binary.LittleEndian.PutUint64(b[12:], uint64(size)*8)
		out = append(out, b...)
	}
	start := func() {
		e.w = bitWriter{}
		if pktSize > 0 {
			e.w.put(0xc1fc1fc1, 32, false)
			e.w.put(0, 64, false)
			e.w.put(0, 64, false)
		}
	}
	start()
	for i := 0; i < n; i++ {
		ec := sc.events[ids[e.r.IntN(len(ids))]]
		e.ercID = ec.ID
		e.clock += uint64(e.r.IntN(1000))
		mark := e.w
		mark.b = append([]byte(nil), e.w.b...)
		for _, fc := range []*FieldClass{sc.Header, sc.CommonContext, ec.SpecificContext, ec.Payload} {
			if fc != nil {
				e.field(fc)
			}
		}
		if pktSize > 0 && len(e.w.b) > pktSize && mark.pos > 20*8 {
			e.w = mark
			flush()
			start()
			i--
		}
	}
	flush()
	return out
}

// transcript renders everything a stream reports: each event's class,
// clock, offset, roots and fields (string and BLOB contents, not offsets),
// the packets' fields, then the error, losses and recovery.
func transcript(s *Stream, scan, decode bool) string {
	var b strings.Builder
	n := 0
	for {
		ok := false
		if scan {
			ok = s.Scan()
			if ok && decode {
				s.Event().Decode()
			}
		} else {
			ok = s.Next()
		}
		if !ok {
			break
		}
		e := s.Event()
		p := s.Packet()
		fmt.Fprintf(&b, "%d %s %d %d pkt %d@%d", n, e.Class.Name, e.Cycles, e.Offset, p.Index, p.Offset)
		if !scan || decode {
			fmt.Fprintf(&b, " roots %d %d %d %d:", e.Header, e.CommonContext, e.SpecificContext, e.Payload)
			for i, f := range e.Fields {
				fc := e.FieldClass(i)
				if fc.Kind == KindString || fc.Kind == KindBlob {
					fmt.Fprintf(&b, " %q/%d", e.Bytes(i), f.End)
				} else {
					fmt.Fprintf(&b, " %s=%d/%d", fc.Name, f.V, f.End)
				}
			}
			for i, f := range p.Fields {
				if k := p.FieldClass(i).Kind; k == KindString || k == KindBlob {
					fmt.Fprintf(&b, " p%d=%q/%d", i, p.Bytes(i), f.End)
				} else {
					fmt.Fprintf(&b, " p%d=%d/%d", i, f.V, f.End)
				}
			}
		}
		b.WriteByte('\n')
		n++
	}
	fmt.Fprintf(&b, "err %v\nlosses %v\nrecovery %+v\n", s.Err(), s.Losses(), s.Recovery())
	return b.String()
}

// smallReader is an io.ReaderAt that returns short reads without error
// only at the end, like a file.
type smallReader struct{ b []byte }

func (r smallReader) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(r.b).ReadAt(p, off)
}

// checkModes decodes data with every mode and compares them with the
// recursive walk.
func checkModes(t testing.TB, tr *Trace, data []byte) {
	walk := tr.AddStream("w", data)
	walk.generic = true
	want := transcript(walk, false, false)
	type mode struct {
		name         string
		reader, scan bool
		decode       bool
	}
	for _, m := range []mode{{"compiled", false, false, false}, {"scan+decode", false, true, true}, {"reader", true, false, false}, {"reader scan+decode", true, true, true}} {
		var s *Stream
		if m.reader {
			s = tr.AddStreamReader("w", smallReader{data}, int64(len(data)))
		} else {
			s = tr.AddStream("w", data)
		}
		if got := transcript(s, m.scan, m.decode); got != want {
			t.Fatalf("%s differs from the field walk on %d bytes:\n%s", m.name, len(data), firstDiff(got, want))
		}
	}
	// Scan without Decode: the same records, clocks and outcome
	s := tr.AddStream("w", data)
	got := transcript(s, true, false)
	var short []string
	for _, l := range strings.Split(want, "\n") {
		if i := strings.Index(l, " roots "); i >= 0 {
			l = l[:i]
		}
		short = append(short, l)
	}
	if w := strings.Join(short, "\n"); got != w {
		t.Fatalf("scan differs from the field walk on %d bytes:\n%s", len(data), firstDiff(got, w))
	}
	tr.Streams = tr.Streams[:0]
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got  %.600s\n want %.600s", i, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

func everyTraces(t testing.TB) map[string]*Trace {
	m2, err := ctf2meta.Decode(everyCTF2())
	if err != nil {
		t.Fatal(err)
	}
	tr2, err := NewTrace(m2)
	if err != nil {
		t.Fatal(err)
	}
	m1, err := ctf2meta.ParseTSDL([]byte(everyTSDL))
	if err != nil {
		t.Fatal(err)
	}
	// a field limit that some "dyn" records exceed
	lim, err := NewTrace(m1, WithLimits(Limits{MaxFieldsPerEvent: 44}))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Trace{"tsdl": traceFromTSDL(t, everyTSDL), "tsdl-limit": lim, "ctf2": tr2, "lttng": traceFromTSDL(t, genMetadata(40))}
}

func everyData(name string, tr *Trace, seed uint64, n int) []byte {
	switch name {
	case "lttng":
		d, _ := genStreamBytes(int(seed%4), n, 40, 512+int(seed%3)*1024)
		return d
	case "tsdl", "tsdl-limit":
		return everyStream(tr, seed, n, 300+int(seed%5)*200)
	}
	return everyStream(tr, seed, n, 0)
}

// The compiled decoder, the skimming Scan (with and without Decode) and
// the packet buffer of AddStreamReader report exactly what the recursive
// field walk reports — every field, clock, offset, error, loss and
// recovery — on valid streams of every field class, their truncations and
// corruptions.
func TestCompiledMatchesWalk(t *testing.T) {
	for name, tr := range everyTraces(t) {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			for seed := uint64(0); seed < 3; seed++ {
				data := everyData(name, tr, seed, 300)
				if !strings.Contains(name, "ctf2") && len(data) < 2000 {
					t.Fatalf("seed %d: %d bytes", seed, len(data))
				}
				checkModes(t, tr, data)
				s := tr.AddStream("x", data)
				n := 0
				for s.Next() {
					n++
				}
				tr.Streams = tr.Streams[:0]
				if name != "tsdl-limit" && (s.Err() != nil || n != 300) {
					t.Fatalf("seed %d: %d events, %v", seed, n, s.Err())
				}
				checkDamaged(t, tr, data, r, 24)
			}
		})
	}
}

// checkDamaged runs checkModes on k cut, bit-flipped or overwritten
// copies of data.
func checkDamaged(t testing.TB, tr *Trace, data []byte, r *rand.Rand, k int) {
	for i := 0; i < k; i++ {
		c := append([]byte(nil), data...)
		switch i % 3 {
		case 0:
			c = c[:r.IntN(len(c)+1)]
		case 1:
			c[r.IntN(len(c))] ^= byte(1 << r.IntN(8))
		default:
			for j := 0; j < 4; j++ {
				c[r.IntN(len(c))] = byte(r.IntN(256))
			}
		}
		checkModes(t, tr, c)
	}
}

// FuzzCompiledMatchesWalk: on any bytes, the compiled decoder, Scan and the
// packet buffer agree with the recursive field walk.
func FuzzCompiledMatchesWalk(f *testing.F) {
	trs := everyTraces(f)
	names := []string{"tsdl", "ctf2", "lttng", "tsdl-limit"}
	for i, name := range names {
		f.Add(uint8(i), everyData(name, trs[name], 1, 20))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		checkModes(t, trs[names[int(which)%len(names)]], data)
	})
}

// Scan performs no allocations per event after warm-up.
func TestScanAllocs(t *testing.T) {
	tr := genTraceMem(t, 200000, 2)
	s := tr.Streams[0]
	for i := 0; i < 1000; i++ {
		s.Scan()
	}
	if a := testing.AllocsPerRun(10000, func() {
		if !s.Scan() {
			t.Fatal(s.Err())
		}
	}); a != 0 {
		t.Errorf("Stream.Scan: %v allocations per event", a)
	}
	if a := testing.AllocsPerRun(10000, func() {
		if !s.Scan() {
			t.Fatal(s.Err())
		}
		s.Event().Decode()
	}); a != 0 {
		t.Errorf("Stream.Scan + Event.Decode: %v allocations per event", a)
	}
}

// On real traces — babeltrace's CTF test traces (CTF_BT_TRACES: its
// tests/data/ctf-traces, succeed and fail) and the interop vectors — every
// data stream decodes the same with the compiled decoder, Scan and the
// packet buffer as with the field walk, errors included.
func TestRealTracesCompiledMatchesWalk(t *testing.T) {
	dirs := realTraceDirs()
	if len(dirs) == 0 {
		t.Skip("neither CTF_BT_TRACES nor TRACECODEC_VECTORS set")
	}
	streams := 0
	for _, dir := range dirs {
		tr, err := OpenDir(dir)
		if err != nil {
			continue // refused at open: nothing to compare
		}
		var datas [][]byte
		for _, s := range tr.Streams {
			b, err := os.ReadFile(filepath.Join(dir, s.Name))
			if err != nil {
				t.Fatal(err)
			}
			datas = append(datas, b)
		}
		for _, b := range datas {
			checkModes(t, tr, b)
			streams++
		}
	}
	t.Logf("%d data streams of %d traces", streams, len(dirs))
}

// realTraceDirs lists the trace folders of babeltrace's CTF test traces
// (CTF_BT_TRACES: its tests/data/ctf-traces) and of the interop vectors
// (TRACECODEC_VECTORS).
// eachStreamFile calls fn with each data stream file of the trace folders
// dirs that OpenDir accepts (the others are refused at open: nothing to
// compare), read whole, and its trace with no stream added; it returns
// how many it read.
func eachStreamFile(t testing.TB, dirs []string, fn func(dir string, tr *Trace, name string, data []byte)) int {
	t.Helper()
	n := 0
	for _, dir := range dirs {
		tr, err := OpenDir(dir)
		if err != nil {
			continue
		}
		var names []string
		for _, s := range tr.Streams {
			names = append(names, s.Name)
		}
		tr.Streams = tr.Streams[:0]
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			fn(dir, tr, name, b)
			n++
		}
	}
	return n
}

func realTraceDirs() []string {
	var dirs []string
	if root := os.Getenv("CTF_BT_TRACES"); root != "" {
		dirs = append(dirs, traceDirs(root)...)
	}
	if v := os.Getenv("TRACECODEC_VECTORS"); v != "" {
		dirs = append(dirs, traceDirs(filepath.Join(v, "ctf"))...)
	}
	return dirs
}

// Under small field limits Scan refuses (by decoding) the records Next
// refuses: a static array of fixed-size fields is skipped by Scan in one
// step, yet the walk checks the limit there.
func TestScanFieldLimit(t *testing.T) {
	m, err := ctf2meta.ParseTSDL([]byte(everyTSDL))
	if err != nil {
		t.Fatal(err)
	}
	for l := 4; l <= 48; l++ {
		tr, err := NewTrace(m, WithLimits(Limits{MaxFieldsPerEvent: l}))
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(0); seed < 8; seed++ {
			t.Run(fmt.Sprint(l, "/", seed), func(t *testing.T) {
				checkModes(t, tr, everyStream(tr, seed, 300, 500))
			})
		}
	}
}
