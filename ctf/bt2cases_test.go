package ctf

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

// bt2Case is a hand-made CTF 2 trace (a trace class, one data stream class
// without a packet header or context, one event record class "ev" whose
// payload holds members) with babeltrace2 2.1.2's reading of it: the text it prints
// (TZ=UTC, default text.pretty sink), or a refusal (want nil), then the
// sentinel and error text this package gives.
type bt2Case struct {
	name     string
	metadata string // the whole metadata, when not built from members
	members  string // JSON structure members of the payload
	stream   string // the data stream, hex
	want     []string
	err      error
	errText  string
}

func fl(name, typ string, props string) string {
	return `{"name":"` + name + `","field-class":{"type":"` + typ + `"` + props + `}}`
}

func nts(name, enc string) string {
	return fl(name, "null-terminated-string", `,"encoding":"`+enc+`"`)
}

// enumLabels are n labels of various lengths, all mapping 0..2.
func enumLabels(n int) []string {
	var l []string
	for i := range n {
		l = append(l, fmt.Sprintf("L%d%s", i, strings.Repeat("_x", i%11)))
	}
	return l
}

// enumLine is the text of an event whose x holds v, a value of all n
// enumLabels, listed in the order of the label indexes.
func enumLine(n int, order []int, v int) string {
	l := enumLabels(n)
	var q []string
	for _, i := range order {
		q = append(q, `"`+l[i]+`"`)
	}
	return fmt.Sprintf("ev: { x = ( { %s } : container = %d ) }", strings.Join(q, ", "), v)
}

// enumCTF2 is an 8-bit integer member "x" whose mappings (text order)
// are labels, each [[0, 2]].
func enumCTF2(labels []string) string {
	var m []string
	for _, l := range labels {
		m = append(m, `"`+l+`":[[0,2]]`)
	}
	return fl("x", "fixed-length-unsigned-integer", `,"length":8,"byte-order":"little-endian","mappings":{`+strings.Join(m, ",")+`}`)
}

// enumTSDL is TSDL metadata of one event "ev" holding an enumeration x
// of labels (in that order), each 0 ... 2.
func enumTSDL(labels []string) string {
	var m []string
	for _, l := range labels {
		m = append(m, l+" = 0 ... 2")
	}
	return "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; };\n" +
		"event { name = \"ev\"; fields := struct { enum : integer { size = 8; align = 8; signed = false; } { " + strings.Join(m, ", ") + " } x; }; };\n"
}

var bt2Cases = []bt2Case{
	// Labels sharing a value, listed in babeltrace2's order: that of
	// libstdc++ unordered_maps filled in text order (two for CTF 2, one for
	// TSDL), across their rehashes at 14 and 30 entries.
	{name: "enum-ctf2-20", members: enumCTF2(enumLabels(20)), stream: "00", want: []string{
		enumLine(20, []int{12, 16, 11, 0, 9, 7, 8, 19, 18, 15, 13, 1, 6, 3, 14, 17, 4, 10, 2, 5}, 0)}},
	{name: "enum-ctf2-45", members: enumCTF2(enumLabels(45)), stream: "0001", want: []string{
		enumLine(45, []int{22, 17, 20, 25, 12, 28, 19, 18, 6, 15, 27, 39, 13, 21, 16, 29, 33, 36, 32, 8, 37, 34, 44, 42, 40, 41, 38, 43, 5, 2, 1, 30, 31, 11, 0, 9, 7, 10, 24, 4, 14, 35, 23, 3, 26}, 0),
		enumLine(45, []int{22, 17, 20, 25, 12, 28, 19, 18, 6, 15, 27, 39, 13, 21, 16, 29, 33, 36, 32, 8, 37, 34, 44, 42, 40, 41, 38, 43, 5, 2, 1, 30, 31, 11, 0, 9, 7, 10, 24, 4, 14, 35, 23, 3, 26}, 1)}},
	{name: "enum-tsdl-45", metadata: enumTSDL(enumLabels(45)), stream: "02", want: []string{
		enumLine(45, []int{43, 42, 41, 40, 38, 37, 36, 44, 34, 33, 32, 29, 16, 11, 0, 9, 7, 8, 5, 2, 10, 24, 4, 14, 35, 23, 3, 26, 31, 30, 1, 21, 13, 39, 27, 15, 6, 18, 19, 28, 12, 25, 20, 17, 22}, 2)}},
	// "hié😀" in the four encodings, null-terminated; a BOM and a
	// noncharacter are text like any other code point; C escapes apply
	// after conversion.
	{name: "utf-nul", members: strings.Join([]string{nts("a", "utf-16le"), nts("b", "utf-16be"), nts("c", "utf-32le"), nts("d", "utf-32be"), nts("e", "utf-16le"), nts("f", "utf-8")}, ","),
		stream: "68006900e9003dd800de0000" + "0068006900e9d83dde000000" + "6800000069000000e900000000f6010000000000" + "0000006800000069000000e90001f60000000000" + "fffe0100feff22000000" + "00",
		want:   []string{"ev: { a = \"hié😀\", b = \"hié😀\", c = \"hié😀\", d = \"hié😀\", e = \"\uFEFF\\x01\uFFFE\\\"\", f = \"\" }"}},
	// Static-length strings end at their first null code unit (counted
	// from the string's start: the odd zero bytes of "\x00A" are not one),
	// what follows it is not checked; dynamic-length the same.
	{name: "utf-static-dynamic", members: strings.Join([]string{
		fl("s", "static-length-string", `,"length":8,"encoding":"utf-16le"`),
		fl("t", "static-length-string", `,"length":6,"encoding":"utf-16be"`),
		fl("n", "fixed-length-unsigned-integer", `,"length":8,"byte-order":"little-endian"`),
		fl("u", "dynamic-length-string", `,"length-field-location":{"path":["n"]},"encoding":"utf-32le"`),
		fl("v", "static-length-string", `,"length":4,"encoding":"utf-32be"`)}, ","),
		stream: "410000000000ffd8" + "410000410000" + "0c" + "41000000000000000000ffff" + "0001f600",
		want:   []string{`ev: { s = "A", t = "䄀A", n = 12, u = "A", v = "😀" }`}},
	// Invalid code points babeltrace2's iconv conversion refuses.
	{name: "utf16-lone-high", members: nts("s", "utf-16le"), stream: "00d841000000", err: ErrCorrupt, errText: "invalid utf-16le at byte 0"},
	{name: "utf16-lone-low", members: nts("s", "utf-16be"), stream: "0041dc000000", err: ErrCorrupt, errText: "invalid utf-16be at byte 2"},
	{name: "utf16-high-at-end", members: fl("s", "static-length-string", `,"length":4,"encoding":"utf-16le"`), stream: "410000d8", err: ErrCorrupt, errText: "invalid utf-16le at byte 2"},
	{name: "utf16-odd-length", members: fl("s", "static-length-string", `,"length":3,"encoding":"utf-16le"`), stream: "410042", err: ErrCorrupt, errText: "invalid utf-16le at byte 2"},
	{name: "utf32-surrogate", members: nts("s", "utf-32le"), stream: "00d8000000000000", err: ErrCorrupt, errText: "invalid utf-32le at byte 0"},
	{name: "utf32-above-max", members: nts("s", "utf-32be"), stream: "0011000000000000", err: ErrCorrupt, errText: "invalid utf-32be at byte 0"},
	{name: "utf16-unterminated", members: nts("s", "utf-16le"), stream: "410042", err: ErrCorrupt, errText: `string field "s" overruns the packet content`},
	// Fixed-length fields wider than 64 bits: babeltrace2 refuses the
	// metadata ("Integer 128 is too large: expecting at most 64").
	{name: "uint128", members: fl("x", "fixed-length-unsigned-integer", `,"length":128,"byte-order":"little-endian"`), stream: "0102030405060708090a0b0c0d0e0f10", err: ErrUnsupported, errText: `field "x": fixed-length-unsigned-integer of 128 bits`},
	{name: "sint65", members: fl("x", "fixed-length-signed-integer", `,"length":65,"byte-order":"big-endian"`), stream: "0102030405060708090a", err: ErrUnsupported, errText: `field "x": fixed-length-signed-integer of 65 bits`},
	{name: "bitarray96", members: fl("x", "fixed-length-bit-array", `,"length":96,"byte-order":"little-endian"`), stream: "0102030405060708090a0b0c", err: ErrUnsupported, errText: `field "x": fixed-length-bit-array of 96 bits`},
	// Floating-point numbers of 16 and 128 bits: babeltrace2 aborts on
	// the first (length in [1, 64] passes its metadata check, its decoder
	// knows 32 and 64 only) and refuses the metadata of the second.
	{name: "float16", members: fl("x", "fixed-length-floating-point-number", `,"length":16,"byte-order":"little-endian"`), stream: "003c", err: ErrUnsupported, errText: `field "x": 16-bit floating-point number`},
	{name: "float128", members: fl("x", "fixed-length-floating-point-number", `,"length":128,"byte-order":"little-endian"`), stream: "00000000000000000000000000000000", err: ErrUnsupported, errText: `field "x": fixed-length-floating-point-number of 128 bits`},
}

// writeBT2Case writes the trace of c into a new folder under dir.
func writeBT2Case(tb testing.TB, dir string, c bt2Case) string {
	tb.Helper()
	d := filepath.Join(dir, c.name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		tb.Fatal(err)
	}
	meta := "\x1e" + `{"type":"preamble","version":2}` + "\n\x1e" + `{"type":"trace-class"}` + "\n\x1e" + `{"type":"data-stream-class"}` + "\n\x1e" +
		`{"type":"event-record-class","name":"ev","payload-field-class":{"type":"structure","member-classes":[` + c.members + `]}}` + "\n"
	if c.metadata != "" {
		meta = c.metadata
	}
	data, err := hex.DecodeString(c.stream)
	if err != nil {
		tb.Fatalf("%s: %v", c.name, err)
	}
	if err := os.WriteFile(filepath.Join(d, "metadata"), []byte(meta), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "stream"), data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return d
}

// TestBabeltraceCases reads each hand-made trace of bt2Cases: the text
// babeltrace2 2.1.2 prints for it, or the refusal.
func TestBabeltraceCases(t *testing.T) {
	dir := t.TempDir()
	for _, c := range bt2Cases {
		got, err := prettyTrace(writeBT2Case(t, dir, c))
		if c.err != nil {
			if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.errText) {
				t.Errorf("%s: %v; want %v with %q", c.name, err, c.err, c.errText)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got  %q\n want %q", c.name, got, c.want)
		}
	}
}

// TestBabeltraceCasesLive runs babeltrace2 (BABELTRACE2 names it; 2.1.2)
// on each hand-made trace of bt2Cases: it prints the expected text, or
// fails where this package refuses.
func TestBabeltraceCasesLive(t *testing.T) {
	bt := os.Getenv("BABELTRACE2")
	if bt == "" {
		t.Skip("BABELTRACE2 not set")
	}
	dir := t.TempDir()
	for _, c := range bt2Cases {
		cmd := exec.Command(bt, writeBT2Case(t, dir, c))
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if c.err != nil {
			if err == nil {
				t.Errorf("%s: babeltrace2 reads it:\n%s", c.name, out)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: babeltrace2: %v", c.name, err)
			continue
		}
		if got := strings.TrimSuffix(string(out), "\n"); got != strings.Join(c.want, "\n") {
			t.Errorf("%s: babeltrace2 prints\n%s\nwant\n%s", c.name, got, strings.Join(c.want, "\n"))
		}
	}
}

// The label order survives conversion: the CTF 2 metadata of enum-ctf2-45
// re-encoded (ctf2meta.Metadata.Encode, what tracecat convert --to plain
// writes) and written as TSDL (ctf2meta.AppendTSDL) prints the same text
// here, and, with BABELTRACE2 set, in babeltrace2.
func TestEnumOrderThroughConversions(t *testing.T) {
	var c bt2Case
	for _, x := range bt2Cases {
		if x.name == "enum-ctf2-45" {
			c = x
		}
	}
	dir := t.TempDir()
	src := writeBT2Case(t, dir, c)
	raw, err := os.ReadFile(filepath.Join(src, "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ctf2meta.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if err := m.Encode(&plain); err != nil {
		t.Fatal(err)
	}
	tsdl, _, err := ctf2meta.AppendTSDL(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	for name, meta := range map[string][]byte{"plain": plain.Bytes(), "tsdl": tsdl} {
		c2 := c
		c2.name, c2.metadata = "enum-"+name, string(meta)
		d := writeBT2Case(t, dir, c2)
		got, err := prettyTrace(d)
		if err != nil || strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: %v\n got  %q\n want %q", name, err, got, c.want)
		}
		if bt := os.Getenv("BABELTRACE2"); bt != "" {
			cmd := exec.Command(bt, d)
			cmd.Env = append(os.Environ(), "TZ=UTC")
			out, err := cmd.Output()
			if err != nil || strings.TrimSuffix(string(out), "\n") != strings.Join(c.want, "\n") {
				t.Errorf("%s: babeltrace2: %v\n%s", name, err, out)
			}
		}
	}
}
