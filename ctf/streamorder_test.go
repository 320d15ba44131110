package ctf

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// TestGroupStreamsEqualTimes: two trace folders sharing a UUID (one trace
// to babeltrace2) each hold one data stream, of stream_instance_id 0 and
// 1 (cpu_id 0 and 1), whose event records have the same times: every time
// yields two records, one of each stream, in babeltrace2 2.1's muxer
// order, whichever folder holds which stream. With BABELTRACE2 set,
// babeltrace2 prints the same text.
func TestGroupStreamsEqualTimes(t *testing.T) {
	for _, swap := range []bool{false, true} {
		name := "a0-b1"
		if swap {
			name = "a1-b0"
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			const n, pkt = 60, 512
			for i, d := range []string{"a", "b"} {
				p := filepath.Join(root, d)
				if err := ctfgen.Write(p, n, 1, 4, pkt); err != nil {
					t.Fatal(err)
				}
				id := byte(i)
				if swap {
					id = 1 - id
				}
				if id == 0 {
					continue
				}
				if _, err := ctfgen.EditPackets(p, "channel0_0", pkt, 2, func(_ int, b []byte) {
					b[24], b[80] = id, id // stream_instance_id, cpu_id
				}); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(filepath.Join(p, "channel0_0"), filepath.Join(p, "channel0_1")); err != nil {
					t.Fatal(err)
				}
			}
			s, err := OpenSession(root, []string{"a", "b"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Group(0) != s.Group(1) {
				t.Fatalf("two traces; want one (their UUIDs are equal)")
			}
			lines, err := prettyReader(s.NewReader())
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != 2*n {
				t.Fatalf("%d events, want %d", len(lines), 2*n)
			}
			// each time: stream instance 0's record, then 1's
			for i := 0; i < len(lines); i += 2 {
				if lines[i][:20] != lines[i+1][:20] || !strings.Contains(lines[i], "cpu_id = 0") || !strings.Contains(lines[i+1], "cpu_id = 1") {
					t.Fatalf("events %d, %d:\n%s\n%s\nwant the same time, cpu 0 then cpu 1", i, i+1, lines[i], lines[i+1])
				}
			}
			if bt, ok, ran := babeltrace2Text(t, root); ran && (!ok || strings.Join(bt, "\n") != strings.Join(lines, "\n")) {
				t.Errorf("babeltrace2 (ok %v) prints other lines: %d vs our %d", ok, len(bt), len(lines))
			}
		})
	}
}

// TestStreamIDOrder: in one trace folder, twelve data streams of the same
// event records at the same times, stream_instance_id (and cpu_id) i in
// file channel0_i: each time yields them by stream id, 0, 1, 2, …, 11, as
// babeltrace2's muxer orders them — not in file-name order (channel0_10
// sorts before channel0_2). With BABELTRACE2 set, babeltrace2 prints the
// same text.
func TestStreamIDOrder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	const n, pkt, streams = 30, 512, 12
	if err := ctfgen.Write(dir, n, 1, 4, pkt); err != nil {
		t.Fatal(err)
	}
	data, err := ctfgen.EditPackets(dir, "channel0_0", pkt, 2, func(int, []byte) {})
	if err != nil {
		t.Fatal(err)
	}
	for id := 1; id < streams; id++ {
		b := slices.Clone(data)
		for o := 0; o < len(b); o += pkt {
			b[o+24], b[o+80] = byte(id), byte(id) // stream_instance_id, cpu_id
		}
		if err := os.WriteFile(filepath.Join(dir, "channel0_"+strconv.Itoa(id)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := prettyReader(openDirT(t, dir).NewReader())
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != streams*n {
		t.Fatalf("%d events, want %d", len(lines), streams*n)
	}
	for i, l := range lines {
		if want := "cpu_id = " + strconv.Itoa(i%streams) + " }"; !strings.Contains(l, want) {
			t.Fatalf("event %d: %s, want %s", i, l, want)
		}
	}
	if bt, ok, ran := babeltrace2Text(t, dir); ran && (!ok || strings.Join(bt, "\n") != strings.Join(lines, "\n")) {
		t.Errorf("babeltrace2 (ok %v) prints other lines: %d vs our %d", ok, len(bt), len(lines))
	}
}
