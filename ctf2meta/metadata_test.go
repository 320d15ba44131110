package ctf2meta

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// ctf2Valid lists valid CTF 2 metadata (plain, or packetized when marked)
// with their fragment types in order ("E" abbreviates the event-record-class
// tail of length n).
var ctf2Valid = []struct {
	path       string
	packetized bool
	types      []string
	ercs       int
	leading    int
}{
	{"lttng-2.15.1-ust-ctf2-json/trace/metadata", false, []string{"preamble", "trace-class", "clock-class", "data-stream-class"}, 40, 0},
	{"mutated-ctf2-framing/LF-after-each-fragment/trace/metadata", false, []string{"preamble", "trace-class", "clock-class", "data-stream-class"}, 40, 0},
	{"mutated-ctf2-framing/leading-LF-before-RS/trace/metadata", false, []string{"preamble", "trace-class", "clock-class", "data-stream-class"}, 40, 1},
	{"constructed-from-bt2.1-json/pmeta-le-multi/trace/metadata", true, []string{"preamble", "trace-class", "clock-class", "data-stream-class"}, 40, 0},
	{"constructed-from-bt2.1-json/pmeta-be-multi/trace/metadata", true, []string{"preamble", "trace-class", "clock-class", "data-stream-class"}, 40, 0},
	{"constructed-from-bt2.1-json/v2.0-37byte-le-multi/trace/metadata", true, []string{"preamble", "trace-class", "clock-class", "data-stream-class"}, 40, 0},
	{"constructed-from-bt2.1-json/v1.8-37byte-json-content-le/trace/metadata", true, []string{"preamble", "trace-class", "clock-class", "data-stream-class"}, 40, 0},
	{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-le/metadata", true, []string{"preamble", "data-stream-class"}, 1, 0},
	{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-be/metadata", true, []string{"preamble", "data-stream-class"}, 1, 0},
	{"third-party/babeltrace-2.1.2-tests-data/2/succeed/smalltrace/metadata", false, []string{"preamble", "trace-class", "data-stream-class"}, 1, 0},
	{"third-party/babeltrace-2.1.2-tests-data/2/succeed/fl-bm/metadata", false, []string{"preamble", "data-stream-class"}, 1, 0},
	{"third-party/babeltrace-2.1.2-tests-data/2/succeed/multi-domains/kernel/metadata", false, []string{"preamble", "trace-class", "clock-class", "data-stream-class"}, 1, 0},
	{"third-party/babeltrace-2.1.2-tests-data/2/fail/empty-event-record/metadata", false, []string{"preamble", "data-stream-class"}, 1, 0},
}

func readCTF2(t *testing.T, path string, packetized bool) []byte {
	raw := vectortest.Read(t, "ctf", path)
	if !packetized {
		return raw
	}
	plain, _, err := Depacketize(nil, raw)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

func TestDecodeCTF2Vectors(t *testing.T) {
	for _, v := range ctf2Valid {
		t.Run(v.path, func(t *testing.T) {
			// One call reads either form: the raw file, packetized or not.
			raw := vectortest.Read(t, "ctf", v.path)
			d, _ := NewFragmentReader(bytes.NewReader(raw))
			var types []string
			for f, err := range d.All() {
				if err != nil {
					t.Fatal(err)
				}
				types = append(types, f.FragmentType())
			}
			want := append([]string(nil), v.types...)
			for range v.ercs {
				want = append(want, "event-record-class")
			}
			if !reflect.DeepEqual(types, want) {
				t.Errorf("fragment types %v, want %v", types, want)
			}
			src := d.Source()
			if src.LeadingWhitespace != v.leading {
				t.Errorf("leading whitespace %d", src.LeadingWhitespace)
			}
			wantKind := KindCTF2
			if v.packetized {
				wantKind = KindPacketized
			}
			if src.Kind != wantKind || (src.Stream.Packets > 0) != v.packetized {
				t.Errorf("source %+v, want kind %v", src, wantKind)
			}
			m := d.Metadata()
			if m.Source != src {
				t.Errorf("Metadata.Source %+v, FragmentReader.Source %+v", m.Source, src)
			}
			// The depacketized text decodes to the same fragments.
			if m2, err := Decode(readCTF2(t, v.path, v.packetized)); err != nil || !reflect.DeepEqual(m.Fragments, m2.Fragments) {
				t.Errorf("plain form: %v", err)
			}
			// Round trip: decode → encode → decode gives identical values, with
			// and without the RFC 7464 LF.
			for _, lf := range []bool{false, true} {
				var buf bytes.Buffer
				if err := m.Encode(&buf, WithLF(lf)); err != nil {
					t.Fatal(err)
				}
				m2, err := Decode(buf.Bytes())
				if err != nil {
					t.Fatalf("re-decoding our encoding: %v", err)
				}
				if !reflect.DeepEqual(m.Fragments, m2.Fragments) {
					t.Fatalf("round trip (lf=%v) changed the fragments", lf)
				}
				var buf2 bytes.Buffer
				m2.Encode(&buf2, WithLF(lf))
				if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
					t.Fatal("encoding is not stable")
				}
			}
		})
	}
}

func TestLTTng215Metadata(t *testing.T) {
	m, err := Decode(vectortest.Read(t, "ctf", "lttng-2.15.1-ust-ctf2-json/trace/metadata"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Fragments) != 44 || len(m.EventRecordClasses) != 40 || len(m.DataStreamClasses) != 1 {
		t.Fatalf("%d fragments", len(m.Fragments))
	}
	if got := m.Preamble.UUID.String(); got != "624812db-465e-464f-9ecc-a215d07bc420" {
		t.Errorf("preamble uuid %s", got)
	}
	tc := m.TraceClass
	if tc.Namespace != "lttng.org,2009" || tc.Environment["domain"] != "ust" || tc.Environment["tracer_name"] != "lttng-ust" ||
		tc.Environment["tracer_major"] != Int(2) || tc.Environment["tracer_minor"] != Int(15) || tc.Environment["trace_name"] != "a215-ctf2" {
		t.Errorf("trace class %+v", tc)
	}
	cc := m.ClockClasses["monotonic"]
	if cc == nil || cc.Frequency != 1e9 || cc.Origin == nil || !cc.Origin.UnixEpoch || cc.OffsetFromOrigin.Seconds != 1795288693 {
		t.Errorf("clock class %+v", cc)
	}
	if m.DataStreamClasses[0].DefaultClockClassID != "monotonic" {
		t.Error("default clock class")
	}
	e := m.EventRecordClasses[39]
	if e.Name != "anchors_many:event_039" || e.ID != 39 {
		t.Errorf("last event record class %q id %d", e.Name, e.ID)
	}
	st, ok := m.Resolve(e.PayloadFieldClass).(*Structure)
	if !ok || len(st.MemberClasses) != 4 || st.MemberClasses[0].Name != "field_a_39" {
		t.Fatalf("payload %+v", e.PayloadFieldClass)
	}
	// Compare with the same metadata after LF insertion.
	m2, err := Decode(vectortest.Read(t, "ctf", "mutated-ctf2-framing/LF-after-each-fragment/trace/metadata"))
	if err != nil || !reflect.DeepEqual(m.Fragments, m2.Fragments) {
		t.Errorf("LF-after-each-fragment differs: %v", err)
	}
}

func TestRejectedCTF2Vectors(t *testing.T) {
	for _, c := range []struct {
		path       string
		packetized bool
		sentinel   error
		contains   string
		opts       []ReaderOption
	}{
		{"mutated-ctf2-framing/preamble-not-first/trace/metadata", false, ErrSchema, "fragment #1 (trace-class): expecting the preamble fragment first", nil},
		{"mutated-ctf2-framing/declared-extension/trace/metadata", false, ErrUnsupported, "declares extension `ext` of namespace `my.ns`", nil},
		{"mutated-ctf2-framing/no-data-stream-class/trace/metadata", false, ErrSchema, "missing data-stream-class fragment", nil},
		{"mutated-ctf2-framing/leading-LF-before-RS/trace/metadata", false, ErrFraming, "1 byte(s) of whitespace before the first RS", []ReaderOption{WithStrict(true)}},
		{"third-party/babeltrace-2.1.2-tests-data/2/fail/meta-no-stream-cls/metadata", false, ErrSchema, "missing data-stream-class fragment", nil},
		{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-be_partial_data_nok/metadata", true, ErrTruncated, "fragment #3: JSON text ends prematurely", nil},
		{"lttng-2.15.1-ust-ctf1.8-plaintext/trace/metadata", false, ErrFraming, "does not start with RS", nil},
	} {
		// The raw file (packetized or not) fails alike in one call; errors in
		// the content of packetized input say so.
		_, err := Decode(vectortest.Read(t, "ctf", c.path), c.opts...)
		if !errors.Is(err, c.sentinel) || !strings.Contains(err.Error(), c.contains) ||
			c.packetized != strings.Contains(err.Error(), "depacketized content: ") {
			t.Errorf("%s (raw): got %v, want %v containing %q", c.path, err, c.sentinel, c.contains)
		}
		plain := readCTF2(t, c.path, c.packetized)
		_, err = Decode(plain, c.opts...)
		var fe *FormatError
		if !errors.Is(err, c.sentinel) || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.contains) {
			t.Errorf("%s: got %v, want %v containing %q", c.path, err, c.sentinel, c.contains)
		}
	}
	// A declared extension is accepted on request.
	m, err := Decode(vectortest.Read(t, "ctf", "mutated-ctf2-framing/declared-extension/trace/metadata"), WithExtensions(true))
	if err != nil || len(m.Fragments) != 44 {
		t.Errorf("WithExtensions: %v", err)
	}
}

// TestTruncatedLastFragment cuts the last 100 bytes as in the notes' babeltrace
// observation ("Invalid fragment #44").
func TestTruncatedLastFragment(t *testing.T) {
	raw := vectortest.Read(t, "ctf", "lttng-2.15.1-ust-ctf2-json/trace/metadata")
	_, err := Decode(raw[:len(raw)-100])
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "fragment #44") {
		t.Fatalf("got %v", err)
	}
}

func TestFramingEdgeCases(t *testing.T) {
	pre := `{"type":"preamble","version":2}`
	dsc := `{"type":"data-stream-class"}`
	for _, c := range []struct {
		in   string
		err  error
		frag int
	}{
		{"\x1e" + pre + "\x1e" + dsc, nil, 2},
		{"\x1e\x1e" + pre + "\n\x1e\n" + dsc + "\n", nil, 2},
		{"\x1e" + pre + "\x1e \n\x1e" + dsc, ErrFraming, 0},
		{"\x1e" + pre + "\x1e" + dsc + "\x1e", ErrFraming, 0},
		{"\x1e" + pre + " x\x1e" + dsc, ErrFraming, 0},
		{"\x1e[1]\x1e" + dsc, ErrSchema, 0},
		{"\x1e" + `{"type":"preamble","version":3}`, ErrUnsupportedVersion, 0},
		{"\x1e" + `{"type":"preamble","version":2,"x":1}` + "\x1e" + dsc, ErrSchema, 0},
		{"", ErrSchema, 0},
		{"\x1e" + pre, ErrSchema, 0},
	} {
		m, err := Decode([]byte(c.in))
		if c.err == nil {
			if err != nil || len(m.Fragments) != c.frag {
				t.Errorf("%q: %v", c.in, err)
			}
		} else if !errors.Is(err, c.err) {
			t.Errorf("%q: got %v, want %v", c.in, err, c.err)
		}
	}
	// Unknown properties may be ignored on request.
	if _, err := Decode([]byte("\x1e"+`{"type":"preamble","version":2,"x":1}`+"\x1e"+dsc), WithUnknownProperties(true)); err != nil {
		t.Error(err)
	}
}

func TestSeqReaderAll(t *testing.T) {
	s, _ := NewSeqReader(strings.NewReader("\x1e{\"a\":1}\n\x1e [2] \x1e"))
	var texts []string
	var last error
	for txt, err := range s.All() {
		if err != nil {
			last = err
			break
		}
		texts = append(texts, string(txt))
	}
	if len(texts) != 2 || texts[0] != `{"a":1}` || texts[1] != "[2]" || !errors.Is(last, ErrFraming) {
		t.Errorf("%q %v", texts, last)
	}
}

// TestRebuildReferenceJSON re-encodes decoded metadata and compares bytes
// with what the reference writers wrote: babeltrace 2.1.2 (compact, no LF)
// and LTTng 2.15.1 (two-space indent, no LF).
func TestRebuildReferenceJSON(t *testing.T) {
	for _, c := range []struct {
		path       string
		packetized bool
		indent     string
	}{
		{"constructed-from-bt2.1-json/pmeta-le-single/trace/metadata", true, ""},
		{"lttng-2.15.1-ust-ctf2-json/trace/metadata", false, "  "},
	} {
		plain := readCTF2(t, c.path, c.packetized)
		m, err := Decode(plain)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		e, err := NewFragmentWriter(&b, WithIndent(c.indent))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Fragments {
			if err := e.WriteFragment(f); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil || e.Fragments() != len(m.Fragments) {
			t.Fatalf("Close %v, %d fragments written", err, e.Fragments())
		}
		if err := e.WriteFragment(m.Fragments[0]); !errors.Is(err, ErrClosed) {
			t.Errorf("write after Close: %v", err)
		}
		got := b.Bytes()
		if !bytes.Equal(got, plain) {
			i := 0
			for i < min(len(got), len(plain)) && got[i] == plain[i] {
				i++
			}
			t.Errorf("%s: rebuilt %d bytes differ from the original %d at byte %d:\n got  %q\n want %q", c.path, len(got), len(plain), i,
				got[max(0, i-80):min(len(got), i+80)], plain[max(0, i-80):min(len(plain), i+80)])
		}
	}
}

// TestDecodeMetadataPacketErrors: a packet error met while decoding
// packetized metadata is the packet reader's own, with its input offset; a
// fragment error says it counts depacketized content.
func TestDecodeMetadataPacketErrors(t *testing.T) {
	text := "\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\"}"
	h, _ := NewHeader(LayoutPMETA, LittleEndian, UUID{1}, 40, 0)
	raw, _ := AppendPacket(nil, h, []byte(text[:40]), 0)
	h.UUID[0] = 2
	raw, _ = AppendPacket(raw, h, []byte(text[40:]), 0)
	_, _, want := Depacketize(nil, raw)
	_, err := DecodeMetadata(bytes.NewReader(raw))
	if want == nil || err == nil || err.Error() != want.Error() || !errors.Is(err, ErrCorrupt) {
		t.Errorf("packet error: got %v, want %v", err, want)
	}
	h.UUID[0] = 1
	raw, _ = AppendPacket(raw[:84], h, []byte(text[40:45]), 0)
	_, err = DecodeMetadata(bytes.NewReader(raw))
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "depacketized content: fragment #2") {
		t.Errorf("fragment error: %v", err)
	}
}
