package wtfcff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// smallTrace writes a valid trace with a few events.
func smallTrace(t testing.TB) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out, WithFileHeader(FileHeader{Timebase: 5}))
	if err != nil {
		t.Fatal(err)
	}
	w.Mark(1, "a", "1")
	w.EnterScope(2, "s")
	w.LeaveScope(3)
	w.Close()
	return out.Bytes()
}

func wantErr(t *testing.T, what string, err error, sentinel error, off int64, text string) {
	t.Helper()
	var fe *FormatError
	if !errors.Is(err, sentinel) || !errors.As(err, &fe) {
		t.Errorf("%s: got %v, want %v", what, err, sentinel)
		return
	}
	if off >= 0 && fe.Offset != off {
		t.Errorf("%s: offset %d, want %d (%v)", what, fe.Offset, off, err)
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("%s: %q does not say %q", what, err, text)
	}
}

func TestBinaryContainerErrors(t *testing.T) {
	good := smallTrace(t)
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	// The header chunk starts at 12; its part table entry at 36.
	cases := []struct {
		name     string
		data     []byte
		sentinel error
		off      int64
		text     string
	}{
		{"version 9", mod(func(b []byte) []byte { b[8] = 9; return b }), ErrUnsupportedVersion, 8, "data version 9 not supported"},
		{"short header", good[:7], ErrTruncated, 7, "file header needs 12 bytes"},
		{"trailing bytes", append(bytes.Clone(good), 0, 0, 0, 0, 0, 0, 0, 0), ErrTruncated, int64(len(good)), "chunk header too small: 8 bytes left"},
		{"part outside chunk", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[44:], 5000); return b }), ErrCorrupt, 36, "lies outside its chunk"},
		{"chunk shorter than part table", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20:], 30); return b }), ErrCorrupt, 20, "missing part lengths"},
		{"chunk past end", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20:], 1<<20); return b }), ErrTruncated, 12, "data does not contain the entire chunk"},
		{"wrong part in header chunk", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[36:], uint32(PartStringTable)); return b }), ErrCorrupt, -1, "does not belong in a file_header chunk"},
		{"missing timebase", mod(func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"timebase"`))
			copy(b[i:], `"timebasX"`)
			return b
		}), ErrCorrupt, -1, `missing required field "timebase"`},
		{"contextType not script", mod(func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"script"`))
			copy(b[i:], `"worker"`)
			return b
		}), ErrCorrupt, -1, "only \"script\""},
	}
	for _, c := range cases {
		err := decodeAny(c.data)
		wantErr(t, c.name, err, c.sentinel, c.off, c.text)
	}
	// Limits.
	_, err := func() (int, error) {
		r, err := NewReader(bytes.NewReader(good), WithLimits(Limits{MaxChunkSize: 100}))
		if err != nil {
			return 0, err
		}
		for r.Next() {
		}
		return 0, r.Err()
	}()
	wantErr(t, "chunk limit", err, ErrLimit, 20, "exceeds the limit of 100")
	// A file whose length is not a multiple of 4 is fine when its chunks are.
	var out bytes.Buffer
	cw, _ := NewChunkWriter(&out, WithWTFVersion(1))
	cw.WriteChunk(&Chunk{ID: 9, Type: 0x77, Parts: []Part{{Type: 0x5, Data: []byte{1}}}})
	b := out.Bytes()
	binary.LittleEndian.PutUint32(b[12+8:], uint32(len(b)-12-3)) // drop the padding
	if err := decodeAny(b[:len(b)-3]); err != nil {
		t.Errorf("odd-length file: %v", err)
	}
}

func TestErrorsAreSticky(t *testing.T) {
	good := smallTrace(t)
	bad := append(bytes.Clone(good), 1, 2, 3, 4)
	r, _ := NewReader(bytes.NewReader(bad))
	for r.Next() {
	}
	first := r.Err()
	if first == nil || r.Next() || r.Err() != first {
		t.Fatalf("not sticky: %v then %v", first, r.Err())
	}
	dec := NewDecoder()
	dec.SetBuffer([]byte{99, 0, 0, 0, 0, 0, 0, 0}, nil, 100, 1)
	if dec.Next() || !errors.Is(dec.Err(), ErrUndefinedEvent) || dec.Next() {
		t.Fatalf("decoder: %v", dec.Err())
	}
	wantErr(t, "decoder", dec.Err(), ErrUndefinedEvent, 100, "undefined event type 99")
}

func TestEventErrors(t *testing.T) {
	dec := NewDecoder()
	// Truncated header, then an event whose argument runs past the buffer.
	dec.SetBuffer([]byte{1, 0, 0, 0}, nil, 0, 1)
	if dec.Next() || !errors.Is(dec.Err(), ErrTruncated) {
		t.Errorf("short record: %v", dec.Err())
	}
	def := []byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}
	strs := []byte("x#y\x00uint32 a, bool[] b\x00z#w\x00uint32 a\x00")
	buf := append(bytes.Clone(def), 2, 0, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0)
	dec.SetBuffer(buf, strs, 0, 1)
	if !dec.Next() || dec.Next() || !errors.Is(dec.Err(), ErrUnsupportedType) {
		t.Errorf("unsupported type: %v", dec.Err())
	}
	def2 := []byte{1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}
	dec.SetBuffer(append(bytes.Clone(def2), 3, 0, 0, 0, 5, 0, 0, 0, 7, 0), strs, 0, 1)
	if !dec.Next() || dec.Next() || !errors.Is(dec.Err(), ErrTruncated) {
		t.Errorf("argument past end: %v", dec.Err())
	}
	// Definitions persist across buffers; a redefinition by name keeps the
	// first type and binds the new wire id to it.
	def3 := []byte{1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0}
	dec.SetBuffer(append(bytes.Clone(def3), 9, 0, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0), strs, 0, 2)
	defined := dec.Next() // the define record
	if !defined || !dec.Next() || dec.Event().Name() != "z#w" || dec.Event().Type.Class != ClassInstance || dec.Event().Arg(0).Uint() != 7 {
		t.Errorf("redefinition: %v %+v", dec.Err(), dec.Event().Type)
	}
}

func TestStringTable(t *testing.T) {
	var st StringTable
	st.Reset([]byte("a\x00\x00bc\x00"))
	for _, c := range []struct {
		ord  uint32
		want string
		ok   bool
	}{{0, "a", true}, {1, "", false}, {2, "bc", true}, {3, "", false}, {NullString, "", false}, {EmptyString, "", true}} {
		got, ok := st.Lookup(c.ord)
		if string(got) != c.want || ok != c.ok {
			t.Errorf("ordinal %#x: %q %v", c.ord, got, ok)
		}
	}
	st.Reset([]byte("no terminator"))
	if s, ok := st.Lookup(0); !ok || string(s) != "no terminator" {
		t.Errorf("%q", s)
	}
	var b StringTableBuilder
	for i, s := range []string{"x", "y", "x", "", "y"} {
		ord, _ := b.Add([]byte(s))
		want := []uint32{0, 1, 0, EmptyString, 1}[i]
		if ord != want {
			t.Errorf("%q: ordinal %d, want %d", s, ord, want)
		}
	}
	if string(b.Bytes()) != "x\x00y\x00" {
		t.Errorf("%q", b.Bytes())
	}
}

// TestStringTableSplitsLikeBytes checks Reset's eight-bytes-at-a-time NUL
// search against a plain split: NULs at every position of a word, runs of
// NULs, bytes 0x01 and 0x80 next to them (the carries of a word-wise zero
// test), with and without a final NUL, and the ordinals just past the table.
func TestStringTableSplitsLikeBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 1))
	alphabet := []byte{0, 0, 1, 'a', 0x7f, 0x80, 0xff, 0xc3}
	var st StringTable
	for n := 0; n < 2000; n++ {
		data := make([]byte, rng.IntN(40))
		for i := range data {
			data[i] = alphabet[rng.IntN(len(alphabet))]
		}
		st.Reset(data)
		var want [][]byte
		if len(data) > 0 {
			want = bytes.Split(data, []byte{0})
			if data[len(data)-1] == 0 {
				want = want[:len(want)-1] // the NUL ends the last entry
			}
		}
		if st.Len() != len(want) {
			t.Fatalf("%q: %d entries, want %d", data, st.Len(), len(want))
		}
		for i, w := range want {
			got, ok := st.Lookup(uint32(i))
			if !bytes.Equal(got, w) || ok != (len(w) > 0) {
				t.Fatalf("%q: entry %d = %q %v, want %q", data, i, got, ok, w)
			}
		}
		for _, ord := range []uint32{uint32(len(want)), uint32(len(want)) + 1, NullString} {
			if got, ok := st.Lookup(ord); ok || got != nil {
				t.Fatalf("%q: ordinal %d past the table = %q %v", data, ord, got, ok)
			}
		}
		if got, ok := st.Lookup(EmptyString); !ok || got == nil || len(got) != 0 {
			t.Fatalf("EmptyString = %q %v", got, ok)
		}
		if strs := st.Strings(); len(strs) != len(want) {
			t.Fatalf("%q: Strings has %d entries, want %d", data, len(strs), len(want))
		}
	}
}

// TestValueFloatMatchesInt checks Float's table against Int for every type
// byte and slot values around each width's sign bit.
func TestValueFloatMatchesInt(t *testing.T) {
	words := []uint32{0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678, 0x89abcdef, 0x3fc00000}
	for ty := 0; ty < 256; ty++ {
		for _, w := range words {
			v := Value{Type: ArgType(ty), word: w}
			want := float64(v.Int())
			if ArgType(ty) == ArgFloat32 {
				want = float64(math.Float32frombits(w))
			}
			if got := v.Float(); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("type %d word %#x: Float %v, want %v", ty, w, got, want)
			}
		}
	}
}

// TestAppendUint32LikeStrconv checks the decimal writers against strconv at
// every power-of-ten boundary, the extremes and random values.
func TestAppendUint32LikeStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2))
	vals := []uint32{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 1<<31 - 1, 1 << 31, 1<<32 - 1}
	for p := uint32(1); p < 1e9; p *= 10 {
		vals = append(vals, p-1, p, p+1, 10*p-1)
	}
	for range 5000 {
		vals = append(vals, rng.Uint32(), rng.Uint32N(1000))
	}
	for _, v := range vals {
		if got, want := string(appendUint32([]byte("x"), v)), "x"+strconv.FormatUint(uint64(v), 10); got != want {
			t.Fatalf("appendUint32(%d) = %q, want %q", v, got, want)
		}
		if got, want := string(appendInt32(nil, int32(v))), strconv.FormatInt(int64(int32(v)), 10); got != want {
			t.Fatalf("appendInt32(%d) = %q, want %q", int32(v), got, want)
		}
	}
}

func TestSignatures(t *testing.T) {
	name, args, err := ParseSignature("my.app#ev(byte a, octet b@2, short c, unsigned short d, long e, unsigned  long f, float g, DOMString h, sequence<octet> i, float32[] j, any k)")
	if err != nil || name != "my.app#ev" {
		t.Fatal(name, err)
	}
	if got := CanonicalArgs(args); got != "int8 a, uint8 b, int16 c, uint16 d, int32 e, uint32 f, float32 g, utf8 h, uint8[] i, float32[] j, any k" {
		t.Errorf("canonical %q", got)
	}
	for _, bad := range []string{"(uint32 a)", "x#y(uint32)", "x#y(uint32 a", "x y", "x#y(uint32 a-b)", "x#y(uint32 a@z)"} {
		if _, _, err := ParseSignature(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	_, args, _ = ParseSignature("x#y(bool[] a, int64 b)")
	if args[0].Type != ArgUnsupported || args[1].Type != ArgUnsupported || args[1].TypeName != "int64" {
		t.Errorf("%+v", args)
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf)
	if _, err := w.Define(0, "x#y(int64 a)", ClassInstance, 0); err == nil {
		t.Errorf("writer accepted int64")
	}
}

func TestJSONContainerErrors(t *testing.T) {
	hdr := `{"wtfVersion": 1, "formatVersion": 10}` + "\n"
	chunk := func(parts string) string {
		return `{"chunks": [{"id":2,"type":"event_data","startTime":-1,"endTime":5,"parts":[` + parts + `]}]}`
	}
	evbuf := `{"type":"binary_event_buffer","mode":"base64","byteLength":0,"value":""}`
	cases := []struct {
		name, doc string
		sentinel  error
		text      string
	}{
		{"no header", chunk(evbuf), ErrBadMagic, "before the WTF JSON header"},
		{"not an object", `[1,2]`, ErrBadMagic, "expected an object"},
		{"empty", ``, ErrBadMagic, "no WTF JSON header"},
		{"version 9", `{"wtfVersion":1,"formatVersion":9}`, ErrUnsupportedVersion, "data version 9"},
		{"second header", hdr + hdr, ErrCorrupt, "second header"},
		{"truncated", hdr + `{"chunks": [{"id":2,"ty`, ErrTruncated, "ends early"},
		{"syntax", hdr + `{"chunks": [}`, ErrCorrupt, "syntax"},
		{"byteLength", hdr + chunk(`{"type":"binary_event_buffer","mode":"base64","byteLength":3,"value":"AAAAAA=="}`), ErrCorrupt, "byteLength 3"},
		{"base64", hdr + chunk(`{"type":"binary_event_buffer","mode":"base64","value":"!!"}`), ErrCorrupt, "illegal base64"},
		{"mode", hdr + chunk(`{"type":"binary_event_buffer","mode":"hex","value":""}`), ErrCorrupt, "mode"},
		{"NUL string", hdr + chunk(evbuf+`,{"type":"string_table","value":["a\u0000b"]}`), ErrCorrupt, "NUL"},
		{"no event buffer", hdr + chunk(`{"type":"string_table","value":[]}`), ErrCorrupt, "no event buffer"},
		{"bad id", hdr + `{"chunks": [{"id":-5.5,"type":"event_data","parts":[]}]}`, ErrCorrupt, "chunk id"},
	}
	for _, c := range cases {
		jr, _ := NewJSONReader(strings.NewReader(c.doc))
		for jr.Next() {
		}
		wantErr(t, c.name, jr.Err(), c.sentinel, -1, c.text)
	}
	// PARTIAL mode with unknown chunk/part types skipped and times kept.
	doc := hdr + `{"chunks": [{"id":3,"type":"mystery","parts":[]}]}` + "\n" +
		chunk(evbuf+`,{"type":"weird_part"},{"type":"string_resource","value":"héllo"}`) + "\n"
	jr, _ := NewJSONReader(strings.NewReader(doc))
	n := 0
	for jr.Next() {
		c := jr.Chunk()
		n++
		if c.ID != 2 || c.StartTime != 0xFFFFFFFF || c.EndTime != 5 || len(c.Parts) != 2 || string(c.Resources()[0].Data) != "héllo" {
			t.Errorf("chunk %+v", c)
		}
		if r, ok := c.Resource(0); !ok || r.Type != PartStringResource {
			t.Errorf("resource 0: %+v", r)
		}
	}
	if n != 1 || jr.Err() != nil || jr.WTFVersion() != 1 {
		t.Errorf("%d chunks, %v", n, jr.Err())
	}
}

func TestLegacyErrors(t *testing.T) {
	data := vectortest.Read(t, "wtf", "mutated/legacy_v3_handmade.wtf-trace")
	v2 := bytes.Clone(data)
	v2[11] = 2
	_, err := NewLegacyBytesReader(v2)
	wantErr(t, "legacy v2", err, ErrUnsupportedVersion, 8, "legacy data version 2")
	for n := 0; n < 0x63; n += 7 { // every cut inside the header
		if _, err := NewLegacyBytesReader(data[:n]); err == nil {
			t.Errorf("prefix %d accepted", n)
		}
	}
	lr, _ := NewLegacyBytesReader(data[:len(data)-2]) // cut inside the last event
	got := decodeAll(lr)
	wantErr(t, "legacy truncated event", got.err, ErrTruncated, -1, "runs past the end")
}

// TestFileRandomAccess: Open indexes the chunks Reader streams, and
// concurrent ReadChunk calls agree.
func TestFileRandomAccess(t *testing.T) {
	for _, name := range []string{"api_public.wtf-trace", "mutated/unknown_chunk_type.wtf-trace"} {
		data := vectortest.Read(t, "wtf", name)
		f, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := NewReader(bytes.NewReader(data))
		var want []Chunk
		for r.Next() {
			c := *r.Chunk()
			c.Parts = append([]Part(nil), c.Parts...)
			for i := range c.Parts {
				c.Parts[i].Data = bytes.Clone(c.Parts[i].Data)
			}
			want = append(want, c)
		}
		if len(f.Chunks()) != len(want) || f.WTFVersion() != r.WTFVersion() {
			t.Fatalf("%s: %d chunks indexed, %d streamed", name, len(f.Chunks()), len(want))
		}
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var buf []byte
				for i := len(want) - 1; i >= 0; i-- {
					var c Chunk
					var err error
					c, buf, err = f.ReadChunk(i, buf)
					if err != nil || c.ID != want[i].ID || c.Offset != want[i].Offset || len(c.Parts) != len(want[i].Parts) {
						t.Errorf("chunk %d: %v %+v", i, err, c)
						return
					}
					for j := range c.Parts {
						if !bytes.Equal(c.Parts[j].Data, want[i].Parts[j].Data) {
							t.Errorf("chunk %d part %d differs", i, j)
						}
					}
				}
			}()
		}
		wg.Wait()
		h, err := f.FileHeader()
		if err != nil || h.Timebase == 0 {
			t.Errorf("header %v %v", h, err)
		}
		if _, _, err := f.ReadChunk(99, nil); err == nil {
			t.Errorf("out of range accepted")
		}
	}
}

func TestFileHeaderRoundTrip(t *testing.T) {
	for _, name := range []string{"api_public.wtf-trace", "det_resources.wtf-trace"} {
		data := vectortest.Read(t, "wtf", name)
		r, _ := NewReader(bytes.NewReader(data))
		r.Next()
		p, _ := r.Chunk().Part(PartFileHeader)
		h, err := ParseFileHeader(p.Data, p.Offset)
		if err != nil {
			t.Fatal(err)
		}
		// Typed re-serialization gives the JS writer's bytes back.
		if got := h.AppendJSON(nil); !bytes.Equal(got, p.Data) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, p.Data)
		}
	}
	h, err := ParseFileHeader([]byte(`{"timebase":1,"flags":null,"extra":[1],"metadata":{"b":1,"a":2}}`), 0)
	if err != nil || string(h.AppendJSON(nil)) != `{"type":"file_header","flags":[],"timebase":1,"metadata":{"b":1,"a":2},"extra":[1]}` {
		t.Errorf("%v %s", err, h.AppendJSON(nil))
	}
	for _, bad := range []string{``, `[]`, `{"timebase":"x"}`, `{"timebase":1,"flags":[1]}`, `{"timebase":1,"metadata":3}`, `{"timebase":1} x`} {
		if _, err := ParseFileHeader([]byte(bad), 0); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestEventsIteratorStopsAtError(t *testing.T) {
	data := vectortest.Read(t, "wtf", "mutated/undefined_wire_id.wtf-trace")
	src, _ := NewBytesReader(data)
	n := 0
	var last error
	for e, err := range Events(src) {
		if err != nil {
			last = err
			break
		}
		_ = e.Name()
		n++
	}
	if n != 24 || !errors.Is(last, ErrUndefinedEvent) {
		t.Errorf("%d events, %v", n, last)
	}
}

// TestPaddingIgnored: stale bytes left by JS ring buffers and the C++
// writer's sign extension in scalar slots do not change the values.
func TestPaddingIgnored(t *testing.T) {
	data := bytes.Clone(vectortest.Read(t, "wtf", "det_resources.wtf-trace"))
	// det#scalars at event-buffer offset 652; the buffer starts at 444+72+1248.
	rec := 444 + 72 + 1248 + 652
	slot := func(i int) []byte { return data[rec+8+4*i : rec+12+4*i] }
	copy(slot(0)[1:], []byte{0xe6, 0xaa, 0xaa})  // bool true
	copy(slot(1)[1:], []byte{0xff, 0xff, 0xff})  // int8 -5, C++ style
	copy(slot(2)[1:], []byte{0x12, 0x34, 0x56})  // uint8 250
	copy(slot(3)[2:], []byte{0xff, 0xff})        // int16 -1234
	copy(slot(4)[2:], []byte{0xde, 0xad})        // uint16 65000
	copy(slot(10)[1:], []byte{0x99, 0x99, 0x99}) // char 'Z'
	copy(slot(11)[2:], []byte{0x77, 0x77})       // wchar '⁂'
	src, _ := NewBytesReader(data)
	got := decodeAll(src)
	if got.err != nil {
		t.Fatal(got.err)
	}
	for _, e := range got.events {
		if e.offset != 652 {
			continue
		}
		want := `{"b":true,"i8":-5,"u8":250,"i16":-1234,"u16":65000,"i32":-123456789,"u32":4276993775,"f32":3.5,"a":"ascii str","u":"utf8 é世😀","c":"Z","wc":"⁂","j":{"k":[1,2]},"fl":0,"t":12345}`
		var b []byte
		b = append(b, '{')
		for j, a := range e.typ.Args {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, a.Name)
			b = append(b, ':')
			b = e.args[j].AppendJSON(b)
		}
		if b = append(b, '}'); string(b) != want {
			t.Errorf("got %s", b)
		}
		return
	}
	t.Fatal("record not found")
}

func TestJSONStringEscapingLikeJS(t *testing.T) {
	// JSON.stringify("a\"\\\b\f\n\r\t\x01\x7f\u2028é") in JavaScript:
	want := `"a\"\\\b\f\n\r\t\u0001` + "\x7f\u2028é" + `"`
	if got := string(appendJSONString(nil, "a\"\\\b\f\n\r\t\x01\x7f\u2028é")); got != want {
		t.Errorf("got %s want %s", got, want)
	}
	if got := string(appendJSONBytes(nil, []byte{'x', 0xff, 'y'})); got != "\"x\ufffdy\"" {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

func TestTypeAndZoneLimits(t *testing.T) {
	var out bytes.Buffer
	w, _ := NewWriter(&out)
	for i := range 5 {
		w.Define(0, "lim#e"+string(rune('a'+i)), ClassInstance, 0)
		w.CreateZone(0, "z"+string(rune('a'+i)), "script", "")
	}
	w.Close()
	for _, l := range []Limits{{MaxEventTypes: 20}, {MaxZones: 3}} {
		src, _ := NewBytesReader(out.Bytes())
		dec := NewDecoder(WithLimits(l))
		var err error
		for src.Next() {
			if dec.SetChunk(src.Chunk()) {
				for dec.Next() {
				}
				err = dec.Err()
			}
		}
		wantErr(t, "limits", err, ErrLimit, -1, "more than")
	}
}

// TestManyZones: tens of thousands of distinct zones (looked up by digest,
// not by a scan) are all kept.
func TestManyZones(t *testing.T) {
	var out bytes.Buffer
	w, _ := NewWriter(&out, WithChunkSize(1<<22))
	for i := range 30000 {
		if _, err := w.CreateZone(0, "zone"+strconv.Itoa(i), "script", ""); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	src, _ := NewBytesReader(out.Bytes())
	dec := NewDecoder()
	for src.Next() {
		if dec.SetChunk(src.Chunk()) {
			for dec.Next() {
			}
		}
	}
	if dec.Err() != nil || len(dec.Zones()) != 30000 {
		t.Fatalf("%v, %d zones", dec.Err(), len(dec.Zones()))
	}
}

// TestZoneSetEveryID switches between zones with ids on both sides of 256
// (the decoder's table and its map) and checks each event's zone.
func TestZoneSetEveryID(t *testing.T) {
	var out bytes.Buffer
	w, _ := NewWriter(&out, WithChunkSize(1<<22))
	var ids []uint16
	for i := range 600 {
		id, err := w.CreateZone(0, "zone"+strconv.Itoa(i), "script", "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	order := []int{0, 599, 254, 255, 256, 257, 3, 511, 300, 1}
	for _, i := range order {
		if err := w.SetZone(1, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	src, _ := NewBytesReader(out.Bytes())
	dec := NewDecoder()
	var got []string
	for src.Next() {
		if dec.SetChunk(src.Chunk()) {
			for dec.Next() {
				if e := dec.Event(); e.Type.Name == "wtf.zone#set" {
					got = append(got, e.Zone.Name)
				}
			}
		}
	}
	if dec.Err() != nil || len(got) != len(order) {
		t.Fatalf("%v, %d zone switches", dec.Err(), len(got))
	}
	for k, i := range order {
		if want := "zone" + strconv.Itoa(i); got[k] != want || dec.ZoneByID(ids[i]).Name != want {
			t.Errorf("switch %d to id %d: zone %q, want %q", k, ids[i], got[k], want)
		}
	}
}

func TestHeaderManyKeys(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"timebase":1,"metadata":{`)
	for i := range 50000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString(`,"k7":2}}`)
	h, err := ParseFileHeader(b.Bytes(), 0)
	if err != nil || len(h.Metadata) != 50000 {
		t.Fatalf("%v", err)
	}
	if v, _ := h.Metadata.Get("k7"); string(v) != "2" || h.Metadata[7].Key != "k7" {
		t.Errorf("repeated key: %s at %s", v, h.Metadata[7].Key)
	}
}
