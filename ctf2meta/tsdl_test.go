package ctf2meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// tsdlText returns the plain TSDL text of a metadata file, packetized or not.
func tsdlText(tb testing.TB, raw []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := ToPlain(&buf, bytes.NewReader(raw)); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func TestParseTSDLVectors(t *testing.T) {
	cases := []struct {
		dir    string
		events int
	}{
		{"lttng-2.13.9-ust-ctf1.8-packetized-1pkt/trace/metadata", 2},
		{"lttng-2.15.1-ust-ctf1.8-plaintext/trace/metadata", 40},
		{"mutated-from-lttng-ctf1.8/all-headers-big-endian/trace/metadata", 40},
		{"third-party/babeltrace-2.1.2-tests-data/1/succeed/2packets/metadata", 1},
		{"third-party/babeltrace-2.1.2-tests-data/1/succeed/multi-domains/ust/metadata", 1},
		{"third-party/babeltrace-2.1.2-tests-data/1/succeed/multi-domains/kernel/metadata", 1},
		{"third-party/babeltrace-2.1.2-tests-data/1/succeed/lttng-tracefile-rotation/kernel/metadata", 19},
		{"third-party/babeltrace-2.1.2-tests-data/1/fail/invalid-packet-size/trace/metadata", 27},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			raw := vectortest.Read(t, "ctf", c.dir)
			m, err := ParseTSDL(tsdlText(t, raw))
			if err != nil {
				t.Fatal(err)
			}
			if len(m.EventRecordClasses) != c.events {
				t.Fatalf("%d event record classes, want %d", len(m.EventRecordClasses), c.events)
			}
			if m.Source.Kind != KindTSDL {
				t.Errorf("Source.Kind = %v", m.Source.Kind)
			}
		})
	}
}

// The TSDL of LTTng 2.15.1's ctf-1.8 session and the CTF 2 metadata of its
// default session describe the same trace: the translation must give the
// same data stream class (roles, byte orders, the header variant) and the
// same event record classes as LTTng's own CTF 2 writer.
func TestParseTSDLMatchesLTTngCTF2(t *testing.T) {
	tsdl := vectortest.Read(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext/trace/metadata")
	js := vectortest.Read(t, "ctf", "lttng-2.15.1-ust-ctf2-json/trace/metadata")
	a, err := ParseTSDL(tsdl)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode(js)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(f Fragment) string {
		out, err := MarshalFragment(f)
		if err != nil {
			t.Fatal(err)
		}
		// Mapping order (TSDL's enumerator order, LTTng's sorted JSON) is
		// not a difference: re-encode with sorted keys.
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		if out, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
		// Defaults written explicitly by LTTng are not a difference.
		return defaults.ReplaceAllString(string(out), "")
	}
	if x, y := enc(a.DataStreamClasses[0]), enc(b.DataStreamClasses[0]); x != y {
		t.Errorf("data stream class differs:\nTSDL: %s\nCTF2: %s", x, y)
	}
	for i := range b.EventRecordClasses {
		ea, eb := *a.EventRecordClasses[i], *b.EventRecordClasses[i]
		// the log level: babeltrace2's attribute from TSDL's loglevel = 13,
		// LTTng's in its CTF 2
		la, oka := EventLogLevel(&ea)
		lb, okb := EventLogLevel(&eb)
		if !oka || !okb || la != lb || la != 13 {
			t.Errorf("event record class %d: log level %d %v (TSDL), %d %v (CTF 2)", i, la, oka, lb, okb)
		}
		ea.Attributes, eb.Attributes = nil, nil
		if x, y := enc(&ea), enc(&eb); x != y {
			t.Fatalf("event record class %d differs:\nTSDL: %s\nCTF2: %s", i, x, y)
		}
	}
	ta, tb := *a.TraceClass, *b.TraceClass
	ta.Environment, tb.Environment, ta.UID, tb.UID, tb.Namespace, tb.NameSet = nil, nil, "", "", "", false
	ta.Common, tb.Common = Common{}, Common{}
	if x, y := enc(&ta), enc(&tb); x != y {
		t.Errorf("packet header differs:\nTSDL: %s\nCTF2: %s", x, y)
	}
}

func TestParseTSDLErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"trace {\n  major = 1;\n  minor = 8;\n  byte_order = xx;\n};", "line 4, column"},
		{"typealias integer { size = 8; } := u8;\nstruct s { u9 a; };", "line 2, column 12: unknown type \"u9\""},
		{"event {\n name = \"x\";\n fields := struct { integer { size = 8; } a[len]; };\n};", "no such field"},
		{"typealias integer { size = 0; } := x;", "size 0"},
		{"/* open", "unterminated comment"},
		{"trace { byte_order = le; }; @", "invalid character"},
		{"typealias floating_point { exp_dig = 5; mant_dig = 11; } := half;", "only binary32"},
		{"stream { event.header := struct { integer { size = 8; } x; variant <x> { integer { size = 8; } a; } v; }; };", "not an enumeration"},
		// babeltrace2 2.1 refuses metadata without a trace block (an
		// empty metadata file, a signature alone) and a trace block
		// without major, minor or byte_order; they were read as an
		// implicit trace, and a trace folder with an empty metadata file
		// validated "ok".
		{"", "line 1, column 1: no trace block"},
		{"/* CTF 1.8 */\n", "line 2, column 1: no trace block"},
		{"/* CTF 1.8 */\ntypealias integer { size = 8; } := u8;\nevent { name = \"e\"; fields := struct { u8 a; }; };\n", "line 4, column 1: no trace block"},
		{"/* CTF 1.8 */\n\ntrace {\n\tminor = 8;\n\tbyte_order = le;\n};", "line 3, column 1: trace block without the major attribute"},
		{"trace { major = 1; byte_order = le; };", "trace block without the minor attribute"},
		{"trace { major = 1; minor = 8; };", "trace block without the byte_order attribute"},
	}
	for _, c := range cases {
		_, err := ParseTSDL([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.text, err, c.want)
			continue
		}
		if !errors.Is(err, ErrTSDL) && !errors.Is(err, ErrSchema) {
			t.Errorf("%q: %v does not wrap ErrTSDL", c.text, err)
		}
	}
}

// Hostile TSDL: deep nesting and exponential alias instantiation end in
// ErrLimit, never in unbounded work.
func TestParseTSDLHostile(t *testing.T) {
	deep := strings.Repeat("struct { ", 200) + strings.Repeat("} x;", 200)
	if _, err := ParseTSDL([]byte("typealias " + deep + " := y;")); !errors.Is(err, ErrLimit) && !errors.Is(err, ErrTSDL) {
		t.Errorf("deep nesting: %v", err)
	}
	var b strings.Builder
	b.WriteString("typealias integer { size = 8; } := t0;\n")
	for i := 1; i < 40; i++ {
		p := "t" + itoa(i-1)
		b.WriteString("typealias struct { " + p + " a; " + p + " b; } := t" + itoa(i) + ";\n")
	}
	b.WriteString("event { fields := struct { t39 x; }; };")
	if _, err := ParseTSDL([]byte(b.String())); !errors.Is(err, ErrLimit) {
		t.Errorf("exponential aliases: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

var defaults = regexp.MustCompile(`"preferred-display-base":10,|"attributes":\{\},|"data-stream-class-id":0,|"id":0,`)

// TestParseTSDLEnv points at a directory of .tsdl or metadata files given
// by CTF_TSDL_DIR and parses each (a quick way to try a corpus).
func TestParseTSDLEnv(t *testing.T) {
	dir := os.Getenv("CTF_TSDL_DIR")
	if dir == "" {
		t.Skip("CTF_TSDL_DIR not set")
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || fi.Name() != "metadata" {
			return nil
		}
		raw, _ := os.ReadFile(p)
		if Detect(raw) == KindCTF2 {
			return nil
		}
		var buf bytes.Buffer
		if _, err := ToPlain(&buf, bytes.NewReader(raw)); err != nil {
			t.Logf("%s: depacketize: %v", p, err)
			return nil
		}
		if _, err := ParseTSDL(buf.Bytes()); err != nil {
			t.Logf("%s: %v", p, err)
		}
		return nil
	})
}

// FuzzParseTSDL: any text ends in a clean error or metadata whose fragments
// encode as CTF 2.
func FuzzParseTSDL(f *testing.F) {
	for _, p := range []string{
		"lttng-2.13.9-ust-ctf1.8-packetized-1pkt/babeltrace2-2.0.4-ctf-metadata.tsdl",
		"lttng-2.15.1-ust-ctf1.8-plaintext/trace/metadata",
	} {
		if b, err := os.ReadFile(filepath.Join(vectortest.Dir(f, "ctf"), p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("typealias integer { size = 8; } := u8;\nevent { name = \"e\"; fields := struct { u8 n; u8 s[n]; }; };"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseTSDL(b)
		if err != nil {
			if !errors.Is(err, ErrTSDL) && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrSchema) && !errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		for _, fr := range m.Fragments {
			if _, err := MarshalFragment(fr); err != nil {
				t.Fatalf("marshal %s: %v", fr.FragmentType(), err)
			}
		}
	})
}

func TestWriteCheck(t *testing.T) {
	tsdl := []byte("/* CTF 1.8 */\ntrace { };")
	ctf2 := []byte("\x1e{\"type\":\"preamble\",\"version\":2}")
	for _, c := range []struct {
		plain  []byte
		l      Layout
		reject bool
	}{
		{tsdl, LayoutCTF18, false},
		{tsdl, LayoutPMETA, true},
		{tsdl, LayoutV20Short, true},
		{ctf2, LayoutCTF18, true},
		{ctf2, LayoutPMETA, true},
		{append([]byte("\n"), ctf2...), LayoutV20Short, true},
	} {
		err := WriteCheck(c.plain, c.l)
		if (err != nil) != c.reject || err != nil && !errors.Is(err, ErrReadersReject) {
			t.Errorf("%.12q in %v: %v", c.plain, c.l, err)
		}
	}
	if got := string(AppendPlainForReaders(nil, []byte("typealias x;"))); got != TSDLSignature+"typealias x;" {
		t.Errorf("unsigned TSDL: %q", got)
	}
	for _, s := range []string{"/* CTF 1.8 */ x", "\x1e{}", "\n\x1e{}", ""} {
		if got := string(AppendPlainForReaders(nil, []byte(s))); got != s {
			t.Errorf("%q became %q", s, got)
		}
	}
}

// A packet header's uuid[16] takes the metadata-stream-uuid role (a BLOB)
// only when the trace block has a uuid to compare it with: CTF 2 allows the
// role only with a preamble uuid, and babeltrace2 2.1 reads a trace whose
// packets hold a UUID its metadata does not declare (ParseTSDL refused it:
// "role metadata-stream-uuid needs a preamble `uuid`").
func TestParseTSDLPacketUUIDWithoutTraceUUID(t *testing.T) {
	const tsdl = `/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
trace {
	major = 1; minor = 8; byte_order = le;%s
	packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; };
};
stream { packet.context := struct { uint32_t content_size; uint32_t packet_size; }; };
event { name = "e"; fields := struct { uint32_t x; }; };
`
	for _, c := range []struct {
		uuid string
		blob bool
	}{{"", false}, {"\n\tuuid = \"5fce9cb8-7b77-4e3b-a0f4-55d4d1e7b0a1\";", true}} {
		m, err := ParseTSDL([]byte(fmt.Sprintf(tsdl, c.uuid)))
		if err != nil {
			t.Fatalf("uuid %q: %v", c.uuid, err)
		}
		st, ok := m.Resolve(m.TraceClass.PacketHeaderFieldClass).(*Structure)
		if !ok || len(st.MemberClasses) != 3 || st.MemberClasses[1].Name != "uuid" {
			t.Fatalf("uuid %q: packet header %#v", c.uuid, m.TraceClass.PacketHeaderFieldClass)
		}
		switch fc := m.Resolve(st.MemberClasses[1].FieldClass).(type) {
		case *StaticLengthBlob:
			if !c.blob || len(fc.Roles) != 1 || fc.Roles[0] != RoleMetadataStreamUUID {
				t.Errorf("uuid %q: the packet's uuid is a BLOB with roles %v", c.uuid, fc.Roles)
			}
		case *StaticLengthArray:
			if c.blob || fc.Length != 16 {
				t.Errorf("uuid %q: the packet's uuid is an array of %d", c.uuid, fc.Length)
			}
		default:
			t.Errorf("uuid %q: the packet's uuid is %T", c.uuid, fc)
		}
		for _, fr := range m.Fragments {
			if _, err := MarshalFragment(fr); err != nil {
				t.Fatalf("uuid %q: marshal %s: %v", c.uuid, fr.FragmentType(), err)
			}
		}
	}
}
