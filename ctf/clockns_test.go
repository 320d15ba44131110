package ctf

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClockNSAsBabeltrace: a clock of another frequency than 1 GHz
// converts to ns from origin as babeltrace2 2.1 converts it — the offset's
// ns and the value's ns each computed in float64 and truncated, then added
// — not exactly (1e9·(offset cycles + cycles)/freq), which is 1 ns later
// for these values (the clock of Trace Compass's OTF2-converted
// double_counters trace, 2 800 130 166 Hz; the times are babeltrace2
// 2.1.2's). With BABELTRACE2 set, babeltrace2 prints the same text for a
// trace of these events.
func TestClockNSAsBabeltrace(t *testing.T) {
	const meta = `/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; uint8_t stream_id; }; };
clock { name = "c"; freq = 2800130166; offset_s = 1651437635; offset = 370127861; };
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := clk_t;
stream { id = 0; packet.context := struct { clk_t timestamp_begin; clk_t timestamp_end; };
	event.header := struct { clk_t timestamp; }; };
event { stream_id = 0; name = "a"; fields := struct { uint8_t v; }; };
`
	cases := []struct {
		cycles uint64
		ns     int64 // babeltrace2 2.1.2's
	}{
		{4536688456365976, 1653057805691198444},
		{4536688456365983, 1653057805691198446},
		{4536688456365990, 1653057805691198449},
		{4536688456366004, 1653057805691198454},
	}
	dir := t.TempDir()
	data := binary.LittleEndian.AppendUint32(nil, 0xc1fc1fc1)
	data = append(data, 0) // (align = 8 is in bits: no padding)
	data = binary.LittleEndian.AppendUint64(data, cases[0].cycles)
	data = binary.LittleEndian.AppendUint64(data, cases[len(cases)-1].cycles)
	for i, c := range cases {
		data = binary.LittleEndian.AppendUint64(data, c.cycles)
		data = append(data, byte(i))
	}
	writeFiles(t, dir, map[string][]byte{"metadata": []byte(meta), "s": data})
	tr := openDirT(t, dir)
	sc := tr.Streams[0]
	if !sc.Next() {
		t.Fatal(sc.Err())
	}
	cls := sc.Packet().Class
	for _, c := range cases {
		if got := cls.NS(c.cycles); got != c.ns {
			t.Errorf("NS(%d) = %d, want %d (babeltrace2's)", c.cycles, got, c.ns)
		}
	}
	lines, err := prettyReader(tr.NewReader())
	if err != nil || len(lines) != len(cases) {
		t.Fatalf("%d events, %v", len(lines), err)
	}
	if !strings.HasPrefix(lines[0], "[14:43:25.691198444]") {
		t.Errorf("first event %s, want [14:43:25.691198444]", lines[0])
	}
	if bt, ok, ran := babeltrace2Text(t, dir); ran && (!ok || !slices.Equal(bt, lines)) {
		t.Errorf("babeltrace2 (ok %v) prints:\n%s\nwe print:\n%s", ok, strings.Join(bt, "\n"), strings.Join(lines, "\n"))
	}
}

// writeFiles writes files (name: bytes) into folder dir.
func writeFiles(tb testing.TB, dir string, files map[string][]byte) {
	tb.Helper()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
