package ctf

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// babeltrace2Lines returns the event lines of a babeltrace2 pretty log.
func babeltrace2Lines(tb testing.TB, path string) []string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "[") {
			out = append(out, sc.Text())
		}
	}
	return out
}

// renderTrace renders every event of a trace directory in babeltrace2's
// pretty text.
func renderTrace(tb testing.TB, dir string) []string {
	tb.Helper()
	out, err := prettyTrace(dir)
	if err != nil {
		tb.Fatalf("after %d events: %v", len(out), err)
	}
	return out
}

// Every event of the vector traces with data streams equals babeltrace2's
// output: count, order, names, timestamps, deltas, every field value.
func TestVectorsMatchBabeltrace2(t *testing.T) {
	cases := []struct{ dir, ref string }{
		{"lttng-2.13.9-ust-ctf1.8-packetized-1pkt", "babeltrace2-2.0.4.txt"},
		{"lttng-2.15.1-ust-ctf1.8-plaintext", "babeltrace2-2.1.2.txt"},
		{"lttng-2.15.1-ust-ctf1.8-plaintext", "babeltrace2-2.0.4.txt"},
		{"lttng-2.15.1-ust-ctf2-json", "babeltrace2-2.1.2.txt"},
		{"mutated-from-lttng-ctf1.8/all-headers-big-endian", "babeltrace2-2.1.2.txt"},
		{"mutated-from-lttng-ctf1.8/trailing-10-bytes", "babeltrace2-2.1.2.txt"},
		{"mutated-ctf2-framing/LF-after-each-fragment", "babeltrace2-2.1.2.txt"},
	}
	for _, c := range cases {
		t.Run(c.dir+"/"+c.ref, func(t *testing.T) {
			dir := vectortest.Path(t, "ctf", c.dir)
			want := babeltrace2Lines(t, filepath.Join(dir, c.ref))
			got := renderTrace(t, filepath.Join(dir, "trace"))
			if len(want) == 0 {
				t.Fatal("no event lines in the reference")
			}
			if len(got) != len(want) {
				t.Errorf("%d events, babeltrace2 printed %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("event %d:\n got  %s\n want %s", i, got[i], want[i])
				}
			}
		})
	}
}

// babeltrace2 2.1.2's sink.ctf.fs output (CTF 2 metadata, its own data
// streams) of the LTTng 2.13.9 anchors_many trace, wrapped in each packet
// layout: babeltrace2 itself cannot read these metadata files, so the
// reference is its output for the original LTTng trace (the
// mutated-from-lttng-ctf1.8 folders hold the same data streams).
func TestVectorsSinkCTFFS(t *testing.T) {
	want := babeltrace2Lines(t, vectortest.Path(t, "ctf", "mutated-from-lttng-ctf1.8/trailing-10-bytes/babeltrace2-2.1.2.txt"))
	for _, d := range []string{"pmeta-le-multi", "pmeta-be-multi", "pmeta-le-single", "v2.0-37byte-le-multi", "v1.8-37byte-json-content-le"} {
		t.Run(d, func(t *testing.T) {
			got := renderTrace(t, vectortest.Path(t, "ctf", "constructed-from-bt2.1-json", d, "trace"))
			if len(got) != len(want) {
				t.Fatalf("%d events, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("event %d:\n got  %s\n want %s", i, got[i], want[i])
				}
			}
		})
	}
}
