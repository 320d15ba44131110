package ctf

import (
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bt2Case is a hand-made CTF 2 trace (one data stream class without
// packet header or context, one event record class "ev" whose payload holds
// members) with babeltrace2 2.1.2's reading of it: the text it prints
// (TZ=UTC, default text.pretty sink), or a refusal (want nil), then the
// sentinel and error text this package gives.
type bt2Case struct {
	name    string
	members string // JSON structure members of the payload
	stream  string // the data stream, hex
	want    []string
	err     error
	errText string
}

func fl(name, typ string, props string) string {
	return `{"name":"` + name + `","field-class":{"type":"` + typ + `"` + props + `}}`
}

func nts(name, enc string) string {
	return fl(name, "null-terminated-string", `,"encoding":"`+enc+`"`)
}

var bt2Cases = []bt2Case{
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
	meta := "\x1e" + `{"type":"preamble","version":2}` + "\n\x1e" + `{"type":"data-stream-class"}` + "\n\x1e" +
		`{"type":"event-record-class","name":"ev","payload-field-class":{"type":"structure","member-classes":[` + c.members + `]}}` + "\n"
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
