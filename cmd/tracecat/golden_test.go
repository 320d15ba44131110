package main

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/golden")

// goldenCases are small vectors of every format whose dump, dump --json and
// stats --json outputs are kept as readable text in testdata/golden, so any
// change in what tracecat prints shows up as a diff.
var goldenCases = []struct {
	name   string
	format string
	path   []string
}{
	{"dial9-all-field-types", "dial9", []string{"v0.2.0", "02_all_field_types.bin"}},
	{"atf-thread1-index", "atf", []string{"normal", "session_20250101_120000", "pid_12345", "thread_1", "index.atf"}},
	{"atf-crashed-session", "atf", []string{"crash_flushed", "session_20250101_120500"}},
	{"cdt-tiny", "cdt", []string{"v7_tiny_3ticks_chunk2.cdt"}},
	{"ctf-pmeta-le-single", "ctf", []string{"constructed-from-bt2.1-json", "pmeta-le-single", "trace", "metadata"}},
	{"wtf-det-resources", "wtf", []string{"det_resources.wtf-trace"}},
}

func TestGoldenOutputs(t *testing.T) {
	for _, gc := range goldenCases {
		p := vectortest.Path(t, gc.format, gc.path...)
		for _, cmd := range [][]string{{"dump"}, {"dump", "--json"}, {"stats", "--json"}} {
			args := append(append([]string{}, cmd...), p)
			code, out, errOut := run(t, nil, args...)
			if code != exitOK {
				t.Errorf("%s %v: exit %d: %s", gc.name, cmd, code, errOut)
				continue
			}
			// Outputs name no paths, except where a format reports a file:
			// keep golden files independent of where the vectors live.
			out = strings.ReplaceAll(out, filepath.Dir(p), "$DIR")
			golden := filepath.Join("testdata", "golden", gc.name+"."+strings.Join(cmd, "")+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Errorf("%s: %v (run go test ./cmd/tracecat -run TestGoldenOutputs -update)", golden, err)
				continue
			}
			if string(want) != out {
				t.Errorf("%s %v differs from %s:\n%s", gc.name, cmd, golden, firstDiff(string(want), out))
			}
		}
	}
}

// firstDiff shows the first differing line of two outputs.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(identical lines, different line endings)"
}
