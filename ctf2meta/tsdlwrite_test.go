package ctf2meta

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// fragmentsJSON is the CTF 2 JSON of every fragment of m, one per line: a
// model compared as text.
func fragmentsJSON(tb testing.TB, m *Metadata) string {
	tb.Helper()
	var b strings.Builder
	for _, f := range m.Fragments {
		out, err := MarshalFragment(f)
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(out)
		b.WriteByte('\n')
	}
	return b.String()
}

// metadataFiles returns every metadata file under root, by path.
func metadataFiles(root string) map[string][]byte {
	out := map[string][]byte{}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Name() == "metadata" {
			if b, err := os.ReadFile(p); err == nil {
				rel, _ := filepath.Rel(root, p)
				out[rel] = b
			}
		}
		return nil
	})
	return out
}

// TSDL → model → TSDL → model gives the same model, and the written TSDL
// is a fixed point, for every TSDL metadata of the vectors that ParseTSDL
// reads (the interop traces and part of babeltrace's test traces); CTF 2
// metadata converts, or is refused with ErrUnsupported, and its TSDL is a
// fixed point too.
func TestTSDLRoundTripVectors(t *testing.T) {
	tsdl, ctf2, _ := tsdlRoundTrip(t, vectortest.Dir(t, "ctf"))
	if tsdl < 8 || ctf2 < 3 {
		t.Errorf("too few metadata streams read: %d TSDL, %d CTF 2", tsdl, ctf2)
	}
}

// The same for every metadata stream of babeltrace's CTF test traces
// (tests/data/ctf-traces of babeltrace v2.1.2) when CTF_BT_TRACES names
// them.
func TestTSDLRoundTripBabeltrace(t *testing.T) {
	root := os.Getenv("CTF_BT_TRACES")
	if root == "" {
		t.Skip("CTF_BT_TRACES not set")
	}
	if tsdl, ctf2, _ := tsdlRoundTrip(t, root); tsdl < 50 || ctf2 < 30 {
		t.Errorf("only %d TSDL and %d CTF 2 metadata streams read", tsdl, ctf2)
	}
}

// tsdlRoundTrip checks every metadata file under root; it returns how many
// TSDL and CTF 2 streams round-trip and how many CTF 2 were refused.
func tsdlRoundTrip(t *testing.T, root string) (tsdl, ctf2, refused int) {
	for rel, raw := range metadataFiles(root) {
		var buf bytes.Buffer
		if _, err := ToPlain(&buf, bytes.NewReader(raw)); err != nil {
			continue // the vectors every reader rejects
		}
		plain := buf.Bytes()
		var m1 *Metadata
		var err error
		isTSDL := ContentVersion(plain) != "2.0"
		if isTSDL {
			m1, err = ParseTSDL(plain)
		} else {
			m1, err = Decode(plain)
		}
		if err != nil {
			continue // fail/ traces
		}
		t1, notes, err := AppendTSDL(nil, m1)
		if err != nil {
			if isTSDL || !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: %v", rel, err)
			} else {
				t.Logf("%s: refused: %v", rel, err)
				refused++
			}
			continue
		}
		m2, err := ParseTSDL(t1)
		if err != nil {
			t.Errorf("%s: the written TSDL does not parse: %v\n%s", rel, err, t1)
			continue
		}
		if isTSDL {
			if a, b := fragmentsJSON(t, m1), fragmentsJSON(t, m2); a != b {
				t.Errorf("%s: the model differs after TSDL → model → TSDL → model:\n%s\n%s", rel, a, b)
			}
			if len(notes) > 0 {
				t.Errorf("%s: notes %q for a model from TSDL", rel, notes)
			}
			tsdl++
		} else {
			ctf2++
			t.Logf("%s: notes %q", rel, notes)
		}
		t2, _, err := AppendTSDL(nil, m2)
		if err != nil || !bytes.Equal(t1, t2) {
			t.Errorf("%s: the TSDL is not a fixed point (%v):\n%s\n---\n%s", rel, err, t1, t2)
		}
	}
	t.Logf("%d TSDL and %d CTF 2 metadata round-trip, %d CTF 2 refused", tsdl, ctf2, refused)
	return tsdl, ctf2, refused
}

// babeltrace2 2.1.2 reads every trace the same way with its metadata
// replaced by AppendTSDL's text: same exit status, same text output, event
// for event. BABELTRACE2 names the babeltrace2 binary; the traces are the
// vectors with data streams and, when CTF_BT_TRACES names babeltrace's
// tests/data/ctf-traces, every succeed/ trace there (fl-bm's bit map has no
// TSDL form: refused).
func TestTSDLBabeltraceAccepts(t *testing.T) {
	bt := os.Getenv("BABELTRACE2")
	if bt == "" {
		t.Skip("BABELTRACE2 not set")
	}
	var dirs []string
	for _, d := range []string{"lttng-2.13.9-ust-ctf1.8-packetized-1pkt", "lttng-2.15.1-ust-ctf1.8-plaintext", "lttng-2.15.1-ust-ctf2-json",
		"mutated-from-lttng-ctf1.8/all-headers-big-endian", "mutated-from-lttng-ctf1.8/trailing-10-bytes", "mutated-ctf2-framing/LF-after-each-fragment"} {
		dirs = append(dirs, vectortest.Path(t, "ctf", d, "trace"))
	}
	if root := os.Getenv("CTF_BT_TRACES"); root != "" {
		for _, v := range []string{"1", "2"} {
			for p := range metadataFiles(filepath.Join(root, v, "succeed")) {
				dirs = append(dirs, filepath.Dir(filepath.Join(root, v, "succeed", p)))
			}
		}
	}
	run := func(dir string) (string, error) {
		cmd := exec.Command(bt, dir)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		return string(out), err
	}
	same, refused := 0, 0
	for _, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, "metadata"))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := ToPlain(&buf, bytes.NewReader(raw)); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		var m *Metadata
		if ContentVersion(buf.Bytes()) == "2.0" {
			m, err = Decode(buf.Bytes())
		} else {
			m, err = ParseTSDL(buf.Bytes())
		}
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		text, _, err := AppendTSDL(nil, m)
		if err != nil {
			if strings.HasSuffix(dir, "fl-bm") && errors.Is(err, ErrUnsupported) {
				refused++
				continue
			}
			t.Errorf("%s: %v", dir, err)
			continue
		}
		conv := t.TempDir()
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Name() != "metadata" {
				if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(conv, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := os.WriteFile(filepath.Join(conv, "metadata"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := run(dir)
		got, gerr := run(conv)
		if werr != nil {
			t.Errorf("%s: babeltrace2 does not read the original: %v", dir, werr)
			continue
		}
		if gerr != nil || got != want {
			t.Errorf("%s: babeltrace2 on the original: %v, %d bytes; with the written TSDL: %v, %d bytes", dir, werr, len(want), gerr, len(got))
			continue
		}
		same++
	}
	t.Logf("%d of %d traces read identically by babeltrace2 through the written TSDL, %d refused", same, len(dirs), refused)
}

const tsdlWriteBase = `/* CTF 1.8 */
trace { major = 1; minor = 8; byte_order = le; packet.header := struct {
	integer { size = 32; align = 8; signed = false; } magic;
	integer { size = 32; align = 8; signed = false; } stream_id;
}; };
clock { name = c; freq = 1000; };
stream { id = 0;
	packet.context := struct {
		integer { size = 64; align = 8; signed = false; map = clock.c.value; } timestamp_begin;
		integer { size = 64; align = 8; signed = false; } content_size;
	};
	event.header := struct {
		integer { size = 32; align = 8; signed = false; } id;
		integer { size = 64; align = 8; signed = false; map = clock.c.value; } timestamp;
	};
};
event { name = "e"; id = 0; stream_id = 0; fields := struct {
	integer { size = 8; align = 8; signed = false; } len;
	integer { size = 8; align = 8; signed = false; } seq[len];
	enum : integer { size = 8; align = 8; signed = false; } { A = 0, B = 1 } tag;
	variant <tag> { string A; integer { size = 8; align = 8; signed = true; } B; } v;
	integer { size = 8; align = 8; signed = false; } _string;
	struct { integer { size = 8; align = 8; signed = false; } n; integer { size = 8; align = 8; signed = false; } s[n]; } inner[2];
}; };
`

// AppendTSDL refuses, with ErrUnsupported and the place, every model
// feature TSDL cannot express; the unchanged model round-trips (a keyword
// member name, a sequence inside array elements, a variant).
func TestAppendTSDLRefuses(t *testing.T) {
	base := func() *Metadata {
		m, err := ParseTSDL([]byte(tsdlWriteBase))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := base()
	text, notes, err := AppendTSDL(nil, m)
	if err != nil || len(notes) != 0 {
		t.Fatalf("%v %q", err, notes)
	}
	if !strings.Contains(string(text), " _string;") {
		t.Errorf("the keyword member is not written _string:\n%s", text)
	}
	m2, err := ParseTSDL(text)
	if err != nil || fragmentsJSON(t, m) != fragmentsJSON(t, m2) {
		t.Fatalf("round trip: %v\n%s", err, text)
	}
	payload := func(m *Metadata) *Structure { return m.EventRecordClasses[0].PayloadFieldClass.(*Structure) }
	u8 := BitArray{Length: 8, ByteOrder: "little-endian", Alignment: 8}
	cases := []struct {
		name   string
		mutate func(m *Metadata)
		want   string
	}{
		{"boolean", func(m *Metadata) { payload(m).MemberClasses[0].FieldClass = &FixedLengthBoolean{BitArray: u8} }, "field len: a boolean"},
		{"bit map", func(m *Metadata) {
			payload(m).MemberClasses[0].FieldClass = &FixedLengthBitMap{BitArray: u8, Flags: map[string]RangeSet{"f": {{Uint(0), Uint(0)}}}}
		}, "a bit map"},
		{"bit array", func(m *Metadata) { payload(m).MemberClasses[0].FieldClass = &FixedLengthBitArray{BitArray: u8} }, "a bit array"},
		{"varint", func(m *Metadata) { payload(m).MemberClasses[0].FieldClass = &VariableLengthUnsignedInteger{} }, "variable-length"},
		{"optional", func(m *Metadata) {
			payload(m).MemberClasses[4].FieldClass = &Optional{FieldClass: &NullTerminatedString{}, SelectorFieldLocation: FieldLocation{Path: []PathElement{{Name: "len"}}}}
		}, "an optional"},
		{"blob", func(m *Metadata) { payload(m).MemberClasses[4].FieldClass = &StaticLengthBlob{Length: 4} }, "a BLOB"},
		{"name", func(m *Metadata) { payload(m).MemberClasses[4].Name = "a b" }, `name "a b" is not a C identifier`},
		{"role", func(m *Metadata) {
			payload(m).MemberClasses[0].FieldClass.(*FixedLengthUnsignedInteger).Roles = []string{RolePacketMagicNumber}
		}, "roles [packet-magic-number]: TSDL readers give this member []"},
		{"lost role", func(m *Metadata) {
			m.DataStreamClasses[0].PacketContextFieldClass.(*Structure).MemberClasses[1].FieldClass.(*FixedLengthUnsignedInteger).Roles = nil
		}, "field content_size: roles []: TSDL readers give this member [packet-content-length]"},
		{"selector", func(m *Metadata) {
			payload(m).MemberClasses[3].FieldClass.(*Variant).Options[1].SelectorFieldRanges = RangeSet{{Uint(5), Uint(5)}}
		}, `variant option "B"`},
		{"origin", func(m *Metadata) { m.ClockClasses["c"].Origin = &ClockOrigin{Name: "boot"} }, "origin"},
		{"default clock", func(m *Metadata) { m.DataStreamClasses[0].DefaultClockClassID = "" }, "without a default clock"},
		{"extension", func(m *Metadata) { m.Preamble.Extensions = Extensions{"ns": map[string]any{"x": true}} }, "extensions [ns]"},
		{"float16", func(m *Metadata) {
			payload(m).MemberClasses[4].FieldClass = &FixedLengthFloatingPointNumber{BitArray: BitArray{Length: 16, ByteOrder: "little-endian", Alignment: 8}}
		}, "16-bit floating point"},
		{"utf-16", func(m *Metadata) {
			payload(m).MemberClasses[4].FieldClass = &NullTerminatedString{Encoding: "utf-16be"}
		}, "a utf-16be string"},
		{"array alignment", func(m *Metadata) { payload(m).MemberClasses[5].FieldClass.(*StaticLengthArray).MinimumAlignment = 64 }, "minimum alignment of 64"},
		{"bit order", func(m *Metadata) {
			payload(m).MemberClasses[0].FieldClass.(*FixedLengthUnsignedInteger).BitOrder = "last-to-first"
		}, "bit order last-to-first"},
	}
	for _, c := range cases {
		m := base()
		c.mutate(m)
		_, _, err := AppendTSDL(nil, m)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrUnsupported with %q", c.name, err, c.want)
		}
	}
}

// What does not change decoding is left out and listed; a model whose
// aliases expand past the size cap fails with ErrLimit instead of growing
// without bound.
func TestAppendTSDLNotesAndLimit(t *testing.T) {
	m, err := ParseTSDL([]byte(tsdlWriteBase))
	if err != nil {
		t.Fatal(err)
	}
	m.TraceClass.Namespace = "lttng.org,2009"
	for _, e := range m.EventRecordClasses {
		e.Attributes = Attributes{"lttng.org,2009": map[string]any{"log-level": "debug:line", "other": "x"}}
	}
	m.ClockClasses["c"].UID = "not a uuid"
	text, notes, err := AppendTSDL(nil, m)
	want := []string{"clock class UID that is not a UUID left out (1)", "event record class attributes left out (1)", "trace class namespace left out (1)"}
	if err != nil || strings.Join(notes, "|") != strings.Join(want, "|") || !bytes.Contains(text, []byte("\tloglevel = 13;\n")) {
		t.Errorf("%v, notes %q, want %q\n%s", err, notes, want, text)
	}

	m, _ = ParseTSDL([]byte(tsdlWriteBase))
	m.Aliases = map[string]*FieldClassAlias{"a0": {Name: "a0", FieldClass: &NullTerminatedString{}}}
	for i := 1; i <= 40; i++ {
		prev := AliasRef("a" + strconv.Itoa(i-1))
		m.Aliases["a"+strconv.Itoa(i)] = &FieldClassAlias{FieldClass: &Structure{MemberClasses: []StructureMember{{Name: "p", FieldClass: prev}, {Name: "q", FieldClass: prev}}}}
	}
	m.EventRecordClasses[0].PayloadFieldClass.(*Structure).MemberClasses[4].FieldClass = AliasRef("a40")
	if _, _, err := AppendTSDL(nil, m); !errors.Is(err, ErrLimit) {
		t.Errorf("2^40 inline expansions: %v, want ErrLimit", err)
	}
}

// Log levels and EMF URIs cross between CTF 2 and TSDL as babeltrace2 2.1
// maps them: the log-level and emf-uri attributes of the babeltrace.org,2020
// namespace, else of the lttng.org,2009 one (where LTTng writes its log
// level), become TSDL's loglevel (0 emergency … 14 debug) and
// model.emf.uri, which ParseTSDL turns into babeltrace.org,2020 attributes
// again; a level babeltrace2 does not know (TSDL 15, an unknown name) is left
// out, a non-integer loglevel is an error.
func TestTSDLLogLevelRoundTrip(t *testing.T) {
	for i, name := range LogLevels {
		for _, ns := range []string{LTTngNamespace, BabeltraceNamespace} {
			m, err := ParseTSDL([]byte(tsdlWriteBase))
			if err != nil {
				t.Fatal(err)
			}
			e := m.EventRecordClasses[0]
			e.Attributes = Attributes{ns: map[string]any{"log-level": name, "emf-uri": "http://x/\"y\""}}
			text, notes, err := AppendTSDL(nil, m)
			line := fmt.Sprintf("\tmodel.emf.uri = \"http://x/\\\"y\\\"\";\n\tloglevel = %d;\n", i)
			if err != nil || len(notes) != 0 || !bytes.Contains(text, []byte(line)) {
				t.Fatalf("%s %s: %v %q, want %q in\n%s", ns, name, err, notes, line, text)
			}
			m2, err := ParseTSDL(text)
			if err != nil {
				t.Fatal(err)
			}
			e2 := m2.EventRecordClasses[0]
			want := Attributes{BabeltraceNamespace: map[string]any{"log-level": name, "emf-uri": `http://x/"y"`}}
			if !reflect.DeepEqual(e2.Attributes, want) {
				t.Errorf("%s %s: parsed back as %v, want %v", ns, name, e2.Attributes, want)
			}
			if l, ok := EventLogLevel(e2); !ok || l != i {
				t.Errorf("%s %s: EventLogLevel = %d %v", ns, name, l, ok)
			}
			text2, _, err := AppendTSDL(nil, m2)
			if err != nil || !bytes.Equal(text, text2) {
				t.Errorf("%s %s: TSDL not a fixed point (%v)", ns, name, err)
			}
		}
	}
	// babeltrace2's namespace first
	e := &EventRecordClass{Common: Common{Attributes: Attributes{LTTngNamespace: map[string]any{"log-level": "info"}, BabeltraceNamespace: map[string]any{"log-level": "debug"}}}}
	if l, ok := EventLogLevel(e); !ok || l != 14 {
		t.Errorf("both namespaces: %d %v, want 14", l, ok)
	}
	for _, c := range []struct{ text, attrs, err string }{
		{"loglevel = 15;", "map[]", ""},
		{"loglevel = 0; model.emf.uri = \"\";", "map[babeltrace.org,2020:map[log-level:emergency]]", ""},
		{"loglevel = x;", "", "loglevel"},
		{"model.emf.uri = 3;", "", "model.emf.uri"},
	} {
		m, err := ParseTSDL([]byte(strings.Replace(tsdlWriteBase, "event {", "event { "+c.text, 1)))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error naming %s", c.text, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if got := fmt.Sprint(m.EventRecordClasses[0].Attributes); got != c.attrs {
			t.Errorf("%s: attributes %s, want %s", c.text, got, c.attrs)
		}
	}
}

// babeltrace2 2.1.2 gives the LTTng 2.15 CTF 2 trace's event record
// classes the same log levels through AppendTSDL's text as through the
// original metadata (its sink.text.details "Log level" lines).
func TestTSDLBabeltraceLogLevels(t *testing.T) {
	bt := os.Getenv("BABELTRACE2")
	if bt == "" {
		t.Skip("BABELTRACE2 not set")
	}
	dir := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace")
	m, err := Decode(vectortest.Read(t, "ctf", "lttng-2.15.1-ust-ctf2-json/trace/metadata"))
	if err != nil {
		t.Fatal(err)
	}
	text, _, err := AppendTSDL(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	conv := t.TempDir()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "metadata" && !e.IsDir() {
			if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(conv, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(conv, "metadata"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	levels := func(d string) []string {
		out, err := exec.Command(bt, d, "-c", "sink.text.details", "-p", "with-data=no").Output()
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		var l []string
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "Log level:") || strings.Contains(line, "EMF URI:") {
				l = append(l, strings.TrimSpace(line))
			}
		}
		return l
	}
	want, got := levels(dir), levels(conv)
	if len(want) != 40 || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("original: %d lines %q…; through TSDL: %d lines %q…", len(want), want[:min(len(want), 2)], len(got), got[:min(len(got), 2)])
	}
}

// Whatever TSDL ParseTSDL accepts, AppendTSDL writes TSDL that ParseTSDL
// reads back into the same model (or refuses with ErrUnsupported/ErrLimit),
// without panicking.
func FuzzTSDLRoundTrip(f *testing.F) {
	for _, p := range []string{
		"lttng-2.13.9-ust-ctf1.8-packetized-1pkt/babeltrace2-2.0.4-ctf-metadata.tsdl",
		"lttng-2.15.1-ust-ctf1.8-plaintext/trace/metadata",
	} {
		if b, err := os.ReadFile(filepath.Join(vectortest.Dir(f, "ctf"), p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(tsdlWriteBase))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseTSDL(b)
		if err != nil {
			return
		}
		text, _, err := AppendTSDL(nil, m)
		if err != nil {
			if !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrLimit) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		m2, err := ParseTSDL(text)
		if err != nil {
			t.Fatalf("the written TSDL does not parse: %v\n%s", err, text)
		}
		if m.TraceClass == nil {
			// TSDL without trace and env blocks gains an empty trace
			// block (babeltrace2 refuses TSDL without one).
			if tc := m2.TraceClass; tc == nil || tc.UID != "" || tc.Environment != nil || tc.PacketHeaderFieldClass != nil {
				t.Fatalf("no trace class read: %+v read back\ntext:\n%s", tc, text)
			}
			m2 = dropTraceClass(m2)
		}
		if a, b := fragmentsJSON(t, m), fragmentsJSON(t, m2); a != b {
			t.Fatalf("models differ:\n%s\n%s\ntext:\n%s", a, b, text)
		}
	})
}

// dropTraceClass is m's fragments without the trace class.
func dropTraceClass(m *Metadata) *Metadata {
	out := &Metadata{}
	for _, f := range m.Fragments {
		if _, ok := f.(*TraceClass); !ok {
			out.Fragments = append(out.Fragments, f)
		}
	}
	return out
}

// noTraceClassCTF2 is CTF 2 metadata without a trace-class fragment whose
// one data stream has no packet header or context: one event of two 16-bit
// integers in byte order order, then a string.
func noTraceClassCTF2(order string) string {
	u16 := `{"type":"fixed-length-unsigned-integer","length":16,"byte-order":"` + order + `","alignment":8}`
	return "\x1e" + `{"type":"preamble","version":2}` + "\n" +
		"\x1e" + `{"type":"data-stream-class"}` + "\n" +
		"\x1e" + `{"type":"event-record-class","name":"ev","payload-field-class":{"type":"structure","member-classes":[` +
		`{"name":"a","field-class":` + u16 + `},{"name":"b","field-class":` + u16 + `},` +
		`{"name":"s","field-class":{"type":"null-terminated-string"}}]}}` + "\n"
}

// CTF 2 metadata without a trace class becomes TSDL with a minimal trace
// block in the byte order of its fields, which ParseTSDL reads back into
// the same streams and events.
func TestAppendTSDLWithoutTraceClass(t *testing.T) {
	for _, c := range []struct{ order, want string }{{"little-endian", "le"}, {"big-endian", "be"}} {
		m, err := Decode([]byte(noTraceClassCTF2(c.order)))
		if err != nil {
			t.Fatal(err)
		}
		if m.TraceClass != nil {
			t.Fatal("a trace class decoded")
		}
		text, notes, err := AppendTSDL(nil, m)
		if err != nil || len(notes) != 0 {
			t.Fatalf("%s: %v %q", c.order, err, notes)
		}
		block := "trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = " + c.want + ";\n};\n"
		if !bytes.Contains(text, []byte(block)) {
			t.Errorf("%s: no %q in\n%s", c.order, block, text)
		}
		m2, err := ParseTSDL(text)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.order, err, text)
		}
		if a, b := fragmentsJSON(t, m), fragmentsJSON(t, dropTraceClass(m2)); a != b {
			t.Errorf("%s: models differ:\n%s\n%s", c.order, a, b)
		}
	}
}

// babeltrace2 reads a data stream without packet header through the TSDL
// written for CTF 2 metadata without a trace class as it reads it through
// the CTF 2 metadata (it refuses TSDL without a trace block).
func TestTSDLBabeltraceNoTraceClass(t *testing.T) {
	bt := os.Getenv("BABELTRACE2")
	if bt == "" {
		t.Skip("BABELTRACE2 not set")
	}
	run := func(dir string) (string, error) {
		cmd := exec.Command(bt, dir)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, c := range []struct {
		order  string
		stream []byte
	}{
		{"little-endian", []byte{1, 2, 3, 4, 'h', 'i', 0, 0xff, 0, 0, 1, 0}},
		{"big-endian", []byte{1, 2, 3, 4, 'h', 'i', 0, 0xff, 0, 0, 1, 0}},
	} {
		meta := noTraceClassCTF2(c.order)
		m, err := Decode([]byte(meta))
		if err != nil {
			t.Fatal(err)
		}
		text, _, err := AppendTSDL(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		var outs [2]string
		for i, md := range []string{meta, string(text)} {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "metadata"), []byte(md), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "stream"), c.stream, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(dir)
			if err != nil {
				t.Fatalf("%s, metadata %d: babeltrace2: %v\n%s\n%s", c.order, i, err, out, md)
			}
			outs[i] = out
		}
		if outs[0] != outs[1] || strings.Count(outs[0], "ev: ") != 2 {
			t.Errorf("%s: CTF 2:\n%s\nTSDL:\n%s", c.order, outs[0], outs[1])
		}
	}
}
