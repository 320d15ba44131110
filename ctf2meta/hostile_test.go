package ctf2meta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Hostile inputs, generated here (no stored blobs). Each runs under a memory
// and a time assertion: the bytes the decoder allocates in total (MemStats
// TotalAlloc, an upper bound of its peak heap) stay within the documented
// budget of 64 × input + 16 MiB, and the process CPU time within a linear
// bound.

const (
	hostileMemPerByte = 64
	hostileMemBase    = 16 << 20
	// hostileCPUPerByte is generous (decoding runs at 7–150 ns per byte)
	// so a loaded machine passes, while a quadratic path does not.
	hostileCPUPerByte = 1e-6 // seconds
	hostileCPUBase    = 1.0
)

// hostileSize scales the big inputs: smaller under the race detector and
// with -short.
func hostileSize(n int) int {
	if raceEnabled || testing.Short() {
		return n / 8
	}
	return n
}

// bounded runs f, which decodes an input of size bytes, checks its total
// allocation and CPU time, and returns the bytes it allocated.
func bounded(t *testing.T, name string, size int, f func()) uint64 {
	t.Helper()
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	cpu0, cpuOK := processCPU()
	f()
	cpu1, _ := processCPU()
	runtime.ReadMemStats(&b)
	alloc := b.TotalAlloc - a.TotalAlloc
	limit := uint64(hostileMemPerByte*size + hostileMemBase)
	if alloc > limit {
		t.Errorf("%s: %d-byte input allocated %d bytes (%.1f× input), over the budget of %d", name, size, alloc, float64(alloc)/float64(size), limit)
	}
	if cpuOK && !raceEnabled {
		if cpu, max := cpu1-cpu0, hostileCPUBase+hostileCPUPerByte*float64(size); cpu > max {
			t.Errorf("%s: %d-byte input took %.2fs of CPU, over the linear bound of %.2fs", name, size, cpu, max)
		}
	}
	t.Logf("%s: %d bytes in, %d allocated (%.1f×), CPU %.3fs", name, size, alloc, float64(alloc)/float64(size), cpu1-cpu0)
	return alloc
}

// inAttributes wraps a JSON value as a preamble attribute of a valid stream.
func inAttributes(value string) []byte {
	return []byte("\x1e{\"type\":\"preamble\",\"version\":2,\"attributes\":{\"x\":" + value + "}}\x1e{\"type\":\"data-stream-class\"}")
}

func repeatJSON(open, elem, close string, size int) string {
	n := max(1, (size-len(open)-len(close))/(len(elem)+1))
	var b strings.Builder
	b.Grow(len(open) + n*(len(elem)+1) + len(close))
	b.WriteString(open)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(elem)
	}
	b.WriteString(close)
	return b.String()
}

// decodeBoth decodes in from memory and from a packetized stream.
func decodeBoth(t *testing.T, name string, in []byte, opts ...ReaderOption) error {
	t.Helper()
	_, err := decodeBothAlloc(t, name, in, opts...)
	return err
}

// decodeBothAlloc is decodeBoth that also returns the bytes the plain
// decoding allocated.
func decodeBothAlloc(t *testing.T, name string, in []byte, opts ...ReaderOption) (uint64, error) {
	t.Helper()
	var err error
	alloc := bounded(t, name, len(in), func() { _, err = Decode(in, opts...) })
	var packets bytes.Buffer
	pw, _ := NewWriter(&packets, WithPacketSize(4096))
	pw.Write(in)
	pw.Close()
	var perr error
	bounded(t, name+" (packetized)", packets.Len(), func() { _, perr = DecodeMetadata(&packets, opts...) })
	if (err == nil) != (perr == nil) || (err != nil && !errors.Is(perr, errors.Unwrap(err))) {
		t.Errorf("%s: plain %v, packetized %v", name, err, perr)
	}
	return alloc, err
}

func TestHostileHugeArrays(t *testing.T) {
	big := Limits{MaxFragmentBytes: 64 << 20}
	// The case: 7 M numbers in one array took 624 MB and 9 s.
	if err := decodeBoth(t, "7 M numbers", inAttributes(repeatJSON("[", "1", "]", hostileSize(14_000_000)))); err != nil {
		t.Errorf("7 M numbers: %v", err)
	}
	size := hostileSize(4 << 20)
	for _, c := range []struct {
		name, elem string
		limit      bool // the memory budget refuses it
	}{
		{"one-digit numbers", "1", false}, // the 7 M numbers: 624 MB, 9 s before
		{"seven-digit numbers", "1234567", false},
		{"negative numbers", "-1", false},
		{"empty arrays", "[]", false},
		{"empty objects", "{}", true},
		{"one-member objects", `{"a":1}`, true},
		{"nested empty arrays", "[[[]]]", true},
		{"nulls", "null", false},
		{"empty strings", `""`, false},
		{"booleans", "true", false},
	} {
		in := inAttributes(repeatJSON("[", c.elem, "]", size))
		err := decodeBoth(t, c.name, in, WithLimits(big))
		if c.limit != (err != nil) || (err != nil && (!errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "would take more than"))) {
			t.Errorf("%s: got %v, want ErrLimit %v", c.name, err, c.limit)
		}
	}
	// An object with many distinct keys.
	var b strings.Builder
	b.WriteString("{")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"key` + strconv.Itoa(i) + `":"value"`)
	}
	b.WriteString("}")
	if err := decodeBoth(t, "many keys", inAttributes(b.String()), WithLimits(big)); err != nil {
		t.Errorf("many keys: %v", err)
	}
	// A caller's fixed cap is lower than the ratio.
	err := decodeBoth(t, "MaxMemory", inAttributes(repeatJSON("[", "1234567", "]", 1<<20)), WithLimits(Limits{MaxMemory: 1 << 20}))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "more than 1048576 bytes") {
		t.Errorf("MaxMemory: %v", err)
	}
}

func TestHostileDeepNesting(t *testing.T) {
	n := hostileSize(4 << 20)
	// JSON nesting: refused at 3 × MaxDepth + 8 = 200 levels, whatever the
	// input's depth.
	for _, open := range []string{"[", `{"a":`} {
		in := inAttributes(strings.Repeat(open, n/len(open)))
		err := decodeBoth(t, "nesting "+open, in, WithLimits(Limits{MaxFragmentBytes: 64 << 20}))
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "JSON values nested deeper than 200 (3 × Limits.MaxDepth + 8)") {
			t.Errorf("nesting %s: %v", open, err)
		}
	}
	// Field classes: structures nested MaxDepth deep are accepted, one
	// more level is refused with the same number as Limits documents.
	nest := func(depth int) []byte {
		fc := `{"type":"null-terminated-string"}`
		for range depth - 1 {
			fc = `{"type":"structure","member-classes":[{"name":"m","field-class":` + fc + `}]}`
		}
		return []byte("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\"}" +
			"\x1e{\"type\":\"event-record-class\",\"payload-field-class\":" + fc + "}")
	}
	if _, err := Decode(nest(DefaultLimits().MaxDepth)); err != nil {
		t.Errorf("structures nested MaxDepth deep: %v", err)
	}
	_, err := Decode(nest(DefaultLimits().MaxDepth + 1))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "field classes nested deeper than 64 (Limits.MaxDepth)") {
		t.Errorf("structures nested MaxDepth+1 deep: %v", err)
	}
	_, err = Decode(nest(11), WithLimits(Limits{MaxDepth: 10}))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "deeper than 10 (Limits.MaxDepth)") {
		t.Errorf("MaxDepth 10: %v", err)
	}
	// Arrays of arrays nest one JSON level per field class.
	fc := `{"type":"null-terminated-string"}`
	for range 100 {
		fc = `{"type":"static-length-array","length":1,"element-field-class":` + fc + `}`
	}
	_, err = Decode([]byte("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\"}\x1e{\"type\":\"event-record-class\",\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":[{\"name\":\"a\",\"field-class\":" + fc + "}]}}"))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "field classes nested deeper than 64") {
		t.Errorf("arrays nested 101 deep: %v", err)
	}
}

func TestHostileLongStrings(t *testing.T) {
	size := hostileSize(15 << 20)
	long := strings.Repeat("x", size)
	if err := decodeBoth(t, "long string", inAttributes(`"`+long+`"`)); err != nil {
		t.Errorf("long string: %v", err)
	}
	esc := strings.Repeat(`\u00e9`, size/6)
	if err := decodeBoth(t, "escaped string", inAttributes(`"`+esc+`"`)); err != nil {
		t.Errorf("escaped string: %v", err)
	}
	// Longer than MaxFragmentBytes (16 MiB): refused before it is all read.
	if raceEnabled {
		return
	}
	err := decodeBoth(t, "string over the fragment limit", inAttributes(`"`+strings.Repeat("x", 17<<20)+`"`))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "JSON text longer than the limit of 16777216 bytes") {
		t.Errorf("17 MiB string: %v", err)
	}
	// An unterminated string is truncation, found in linear time.
	err = decodeBoth(t, "unterminated string", []byte("\x1e{\"type\":\"preamble\",\"version\":2,\"attributes\":{\"x\":\""+long))
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("unterminated string: %v", err)
	}
}

func TestHostileManyFragments(t *testing.T) {
	n := hostileSize(200_000)
	var b bytes.Buffer
	b.WriteString("\x1e{\"type\":\"preamble\",\"version\":2}")
	for i := range n {
		b.WriteString("\x1e{\"type\":\"clock-class\",\"id\":\"c" + strconv.Itoa(i) + "\",\"frequency\":1}")
	}
	b.WriteString("\x1e{\"type\":\"data-stream-class\"}")
	if err := decodeBoth(t, "many clock classes", b.Bytes()); err != nil {
		t.Fatal(err)
	}
	// Many empty texts between RS bytes are skipped; many fragments over
	// the limit are refused.
	err := decodeBoth(t, "fragment count limit", b.Bytes(), WithLimits(Limits{MaxFragments: 1000}))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "fragment #1001: more fragments than the limit of 1000") {
		t.Errorf("MaxFragments: %v", err)
	}
	rs := append([]byte("\x1e{\"type\":\"preamble\",\"version\":2}"), bytes.Repeat([]byte{RS}, hostileSize(8<<20))...)
	rs = append(rs, "\x1e{\"type\":\"data-stream-class\"}"...)
	if err := decodeBoth(t, "runs of RS", rs); err != nil {
		t.Errorf("runs of RS: %v", err)
	}
	// Fragments that each fail would stop at the first.
	bad := bytes.Repeat([]byte("\x1e{}"), hostileSize(4<<20)/3)
	err = decodeBoth(t, "invalid fragments", bad)
	if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "fragment #1: ") || strings.Contains(err.Error(), "::") {
		t.Errorf("invalid fragments: %v", err)
	}
}

// lyingPacket returns a PMETA packet with content declaring contentBytes of
// content and totalBytes in all, whatever it holds.
func lyingPacket(content []byte, contentBytes, totalBytes uint32) []byte {
	h, _ := NewHeader(LayoutPMETA, LittleEndian, UUID{1}, len(content), 0)
	b, _ := AppendPacket(nil, h, content, 0)
	binary.LittleEndian.PutUint32(b[24:], contentBytes*8)
	binary.LittleEndian.PutUint32(b[28:], totalBytes*8)
	return b
}

// trickle hands out at most n bytes per Read, as a pipe might.
type trickle struct {
	r io.Reader
	n int
}

func (t *trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), t.n)]) }

func TestHostileLyingPacketSizes(t *testing.T) {
	delivered := hostileSize(8 << 20)
	for _, c := range []struct {
		name           string
		content, total uint32
		sentinel       error
	}{
		{"content 64 MiB declared", 64<<20 - 8, 64<<20 - 8, ErrTruncated},
		{"total over the packet limit", 1 << 20, 256 << 20, ErrLimit},
		{"content over the total", 8 << 20, 1 << 20, ErrCorrupt},
	} {
		raw := lyingPacket(bytes.Repeat([]byte("x"), delivered), c.content, c.total)
		var err error
		bounded(t, c.name, len(raw), func() {
			r, _ := NewReader(&trickle{bytes.NewReader(raw), 4096})
			for r.Next() {
			}
			err = r.Err()
		})
		if !errors.Is(err, c.sentinel) {
			t.Errorf("%s: Reader: %v, want %v", c.name, err, c.sentinel)
		}
		bounded(t, c.name+" (Depacketize)", len(raw), func() { _, _, err = Depacketize(nil, raw) })
		if !errors.Is(err, c.sentinel) {
			t.Errorf("%s: Depacketize: %v, want %v", c.name, err, c.sentinel)
		}
		bounded(t, c.name+" (DecodeMetadata)", len(raw), func() { _, err = DecodeMetadata(&trickle{bytes.NewReader(raw), 4096}) })
		if !errors.Is(err, c.sentinel) {
			t.Errorf("%s: DecodeMetadata: %v, want %v", c.name, err, c.sentinel)
		}
	}
	// Many tiny packets: one content byte each.
	var b bytes.Buffer
	w, _ := NewWriter(&b, WithContentSize(1, 0))
	w.Write(inAttributes(`"` + strings.Repeat("y", hostileSize(1<<20)) + `"`))
	w.Close()
	var err error
	bounded(t, "one-byte packets", b.Len(), func() { _, err = DecodeMetadata(&b) })
	if err != nil {
		t.Errorf("one-byte packets: %v", err)
	}
}

// TestErrorTexts pins the shape of error messages: "fragment #N (type):
// .path: what", one colon after each part.
func TestErrorTexts(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{"\x1e{}", "ctf2meta: offset 0: fragment #1: missing required property `type`"},
		{"\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"clock-class\"}", "ctf2meta: offset 32: fragment #2 (clock-class): missing required property `id`"},
		{"\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\",\"packet-context-field-class\":{\"type\":\"structure\",\"member-classes\":[{\"name\":\"a\",\"field-class\":{\"type\":\"fixed-length-unsigned-integer\",\"length\":0,\"byte-order\":\"little-endian\"}}]}}",
			"ctf2meta: offset 32: fragment #2 (data-stream-class): .packet-context-field-class.member-classes[0].field-class: property `length` must be > 0"},
		{"\x1e{\"type\":\"preamble\",\"version\":2,}", "ctf2meta: offset 32: fragment #1: invalid JSON text: invalid character '}' looking for an object key"},
		{"\x1e{\"type\":\"preamble\",\"version\":2}x", "ctf2meta: offset 32: fragment #1: invalid JSON text: data after the JSON text"},
		{"/* CTF 1.8 */", "ctf2meta: offset 0: metadata stream does not start with RS (0x1E) but with byte 0x2f: not a CTF 2 JSON text sequence (CTF 1.8 TSDL text is read by ParseTSDL)"},
	} {
		_, err := Decode([]byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "::") {
			t.Errorf("%q:\n got  %v\n want %s…", c.in, err, c.want)
		}
	}
	// Sentinels carry the package prefix; FormatError does not repeat it.
	for _, s := range []error{ErrBadMagic, ErrUnsupportedVersion, ErrUnsupported, ErrTruncated, ErrCorrupt, ErrFraming, ErrSchema, ErrLimit, ErrClosed} {
		if !strings.HasPrefix(s.Error(), "ctf2meta: ") {
			t.Errorf("sentinel %q lacks the package prefix", s)
		}
		if e := (&FormatError{Format: formatName, Offset: 3, Err: s}).Error(); strings.Count(e, "ctf2meta: ") != 1 {
			t.Errorf("%q repeats the prefix", e)
		}
	}
}

// TestHostileDenseFieldClasses: many members, locations, event record
// classes and variant options (whose ranges were once compared pairwise:
// 40 000 options took 5 s).
func TestHostileDenseFieldClasses(t *testing.T) {
	for _, n := range []int{hostileSize(40000)} {
		var b strings.Builder
		b.WriteString("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"field-class-alias\",\"name\":\"x\",\"field-class\":{\"type\":\"null-terminated-string\"}}\x1e{\"type\":\"data-stream-class\"}\x1e{\"type\":\"event-record-class\",\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":[")
		b.WriteString(`{"name":"len","field-class":{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian"}}`)
		for i := 0; i < n; i++ {
			b.WriteString(`,{"name":"m` + strconv.Itoa(i) + `","field-class":{"type":"dynamic-length-string","length-field-location":{"path":["len"]}}}`)
		}
		b.WriteString("]}}")
		in := []byte(b.String())
		bounded(t, "locations "+strconv.Itoa(n), len(in), func() {
			_, err := Decode(in)
			if err != nil {
				t.Error(err)
			}
		})
		b.Reset()
		b.WriteString("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"field-class-alias\",\"name\":\"x\",\"field-class\":{\"type\":\"null-terminated-string\"}}\x1e{\"type\":\"data-stream-class\"}\x1e{\"type\":\"event-record-class\",\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":[")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":"m` + strconv.Itoa(i) + `","field-class":"x"}`)
		}
		b.WriteString("]}}")
		in = []byte(b.String())
		bounded(t, "alias members "+strconv.Itoa(n), len(in), func() {
			_, err := Decode(in)
			if err != nil {
				t.Error(err)
			}
		})
		b.Reset()
		b.WriteString("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\"}")
		for i := 0; i < n; i++ {
			b.WriteString("\x1e{\"type\":\"event-record-class\",\"id\":" + strconv.Itoa(i) + "}")
		}
		in = []byte(b.String())
		bounded(t, "ercs "+strconv.Itoa(n), len(in), func() {
			_, err := Decode(in)
			if err != nil {
				t.Error(err)
			}
		})
		b.Reset()
		b.WriteString("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\"}\x1e{\"type\":\"event-record-class\",\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":[")
		b.WriteString(`{"name":"sel","field-class":{"type":"fixed-length-unsigned-integer","length":32,"byte-order":"little-endian"}},{"name":"v","field-class":{"type":"variant","selector-field-location":{"path":["sel"]},"options":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"selector-field-ranges":[[` + strconv.Itoa(i) + `,` + strconv.Itoa(i) + `]],"field-class":{"type":"null-terminated-string"}}`)
		}
		b.WriteString("]}}]}}")
		in = []byte(b.String())
		bounded(t, "variant options "+strconv.Itoa(n), len(in), func() {
			_, err := Decode(in)
			if err != nil {
				t.Error(err)
			}
		})
	}
}

// TestIntersectingOptions compares the sweep with the pairwise check.
func TestIntersectingOptions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		opts := make([]VariantOption, 1+rng.IntN(6))
		for i := range opts {
			for range 1 + rng.IntN(3) {
				lo := rng.Int64N(40) - 20
				opts[i].SelectorFieldRanges = append(opts[i].SelectorFieldRanges, Range{Int(lo), Int(lo + rng.Int64N(4))})
			}
		}
		want := false
		for i := range opts {
			for j := range i {
				want = want || opts[i].SelectorFieldRanges.Intersects(opts[j].SelectorFieldRanges)
			}
		}
		a, b, got := intersectingOptions(opts)
		if got != want || (got && (a >= b || !opts[a].SelectorFieldRanges.Intersects(opts[b].SelectorFieldRanges))) {
			t.Fatalf("%+v: got %v (%d, %d), want %v", opts, got, a, b, want)
		}
	}
}

// A name of 2 M \u0000 escapes ending in a lone surrogate (issue 21): the
// lone surrogate is not text (RFC 8259 §8.2, I-JSON) and is refused with
// its offset, in linear time and within the budget, where it was read as
// U+FFFD without a word; a surrogate pair and \u0000 are text.
func TestHostileLoneSurrogate(t *testing.T) {
	nuls := strings.Repeat(`\u0000`, hostileSize(2<<20))
	for _, s := range []string{nuls + `\uD800`, `\uDC00x`, `\uD800\u0041`} {
		in := []byte("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\",\"name\":\"" + s + "\"}")
		err := decodeBoth(t, "lone surrogate", in)
		if !errors.Is(err, ErrFraming) || !strings.Contains(err.Error(), "lone UTF-16 surrogate") {
			t.Errorf("%.20s…: got %v, want ErrFraming naming the lone surrogate", s[max(0, len(s)-12):], err)
		}
	}
	for _, s := range []string{nuls, `\uD83D\uDE00`} {
		in := []byte("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\",\"name\":\"" + s + "\"}")
		if err := decodeBoth(t, "surrogate pair", in); err != nil {
			t.Errorf("%.20s: %v", s, err)
		}
	}
}

// TestHostileDirectDecoder: the shapes the direct decoder reads (event
// record class fragments) stay within the budget, including those it reads
// to the end and then leaves to the generic path, which reads them again
// for the error: a syntax error or a duplicate name after megabytes of
// members. Each case has its own tighter allocation bound (within × input,
// about a quarter above what it takes, plus 1 MiB), which a shape that falls off the direct
// decoder or starts allocating per element exceeds: an object of many
// distinct unknown keys, which the direct decoder keeps in its set (8.9×
// input), took 18.8× when the generic path read it.
func TestHostileDirectDecoder(t *testing.T) {
	size := hostileSize(4 << 20)
	head := "\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\"}\x1e{\"type\":\"event-record-class\",\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":["
	u8 := `{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian"`
	members := func(n int, last string) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString(`{"name":"m` + strconv.Itoa(i) + `","field-class":` + u8 + `}},`)
		}
		return head + b.String() + last
	}
	ranges := repeatJSON("[", "[1,1]", "]", size)
	unknownKeys := func(n int) string { // "k0":[1],"k1":[1],… (distinct: a repeated key is refused)
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"k` + strconv.Itoa(i) + `":[1]`)
		}
		return b.String()
	}
	unknown := []ReaderOption{WithUnknownProperties(true)}
	for _, c := range []struct {
		name   string
		in     string
		want   error // nil: valid
		opts   []ReaderOption
		within float64 // allocation bound, × input
	}{
		{"members", members(size, `{"name":"z","field-class":`+u8+`}}]}}`), nil, nil, 10},
		{"members, then a syntax error", members(size, `{"name":"z","field-class":`+u8+`}}]}}x`), ErrFraming, nil, 20},
		{"members, then a duplicate name", members(size, `{"name":"m0","field-class":`+u8+`}}]}}`), ErrSchema, nil, 22},
		{"members, then truncated", members(size, `{"name":"z","field-class":`+u8), ErrTruncated, nil, 19},
		{"one mapping of many ranges", head + `{"name":"e","field-class":` + u8 + `,"mappings":{"a":` + ranges + `}}}]}}`, nil, nil, 18},
		{"many ranges, one reversed at the end", head + `{"name":"e","field-class":` + u8 + `,"mappings":{"a":` + ranges[:len(ranges)-1] + `,[2,1]]}}}]}}`, ErrSchema, nil, 37},
		{"many unknown keys allowed", head + `{"name":"e","field-class":` + u8 + "," + unknownKeys(size) + `}}]}}`, nil, unknown, 11},
		{"many unknown keys, the first again at the end", head + `{"name":"e","field-class":` + u8 + "," + unknownKeys(size) + `,"k0":1}}]}}`, ErrFraming, unknown, 30},
		{"one unknown key many times", head + `{"name":"e","field-class":` + u8 + "," + repeatJSON("", `"k":[1]`, "", size) + `}}]}}`, ErrFraming, unknown, 5},
	} {
		alloc, err := decodeBothAlloc(t, c.name, []byte(c.in), append(c.opts, WithLimits(Limits{MaxFragmentBytes: 64 << 20}))...)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if limit := c.within*float64(len(c.in)) + 1<<20; float64(alloc) > limit {
			t.Errorf("%s: allocated %.1f× input, over this shape's bound of %.0f×", c.name, float64(alloc)/float64(len(c.in)), c.within)
		}
	}
}
