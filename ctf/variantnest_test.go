package ctf

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// TestVariantInVariantOption: an event record whose payload holds a
// variant in an option of another variant, tagged by a member of that
// option (LTTng's net_if_rx, as Trace Compass's uneven-streams trace
// holds it), decodes each record's selected options. With BABELTRACE2 set,
// babeltrace2 prints the same text.
func TestVariantInVariantOption(t *testing.T) {
	const meta = `/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; }; };
stream { };
event { name = "net_if_rx"; fields := struct {
	enum : uint8_t { "_unknown" = 0, "_ipv4" = 1 } _type;
	variant <_type> {
		struct { } _unknown;
		struct {
			enum : uint8_t { "_udp" = 17, "_tcp" = 6 } _protocol;
			variant <_protocol> { struct { uint8_t _p; } _udp; struct { uint8_t _q; } _tcp; } _transport;
		} _ipv4;
	} _network_header;
}; };
`
	dir := t.TempDir()
	data := binary.LittleEndian.AppendUint32(nil, 0xc1fc1fc1)
	data = append(data, 1, 6, 7, 1, 17, 9, 0)
	writeFiles(t, dir, map[string][]byte{"metadata": []byte(meta), "s": data})
	lines, err := prettyReader(openDirT(t, dir).NewReader())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`net_if_rx: { type = ( "_ipv4" : container = 1 ), network_header = { { protocol = ( "_tcp" : container = 6 ), transport = { { q = 7 } } } } }`,
		`net_if_rx: { type = ( "_ipv4" : container = 1 ), network_header = { { protocol = ( "_udp" : container = 17 ), transport = { { p = 9 } } } } }`,
		`net_if_rx: { type = ( "_unknown" : container = 0 ), network_header = { { } } }`,
	}
	if !slices.Equal(lines, want) {
		t.Errorf("we print:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if bt, ok, ran := babeltrace2Text(t, dir); ran && (!ok || !slices.Equal(bt, lines)) {
		t.Errorf("babeltrace2 (ok %v) prints:\n%s", ok, strings.Join(bt, "\n"))
	}
}
