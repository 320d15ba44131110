package schema7

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/cdt"
)

// The golden files in testdata/inspect were derived from the reference
// vectors' decoded JSON by testdata/inspect/derive.py, an implementation of
// the reference's semantics that shares nothing with this package; their
// names say what produced them: tick_<trace>_<n>, entity_<trace>_<uid>_<range>,
// focus_<golden>_<candidate>_<n>, query_<trace>_<i> (expression and limit
// inside).

var goldenTraces = map[string]string{"small": "v7_small_300ticks", "A": "v7_diverge_A", "B": "v7_diverge_B"}

func goldenReader(t *testing.T, cache map[string]*cdt.File, short string) *cdt.File {
	t.Helper()
	if r, ok := cache[short]; ok {
		return r
	}
	name, ok := goldenTraces[short]
	if !ok {
		t.Fatalf("unknown trace %q in a golden file name", short)
	}
	r, _ := openVector(t, name)
	cache[short] = r
	return r
}

func TestInspectGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "inspect", "*.json"))
	if err != nil || len(files) < 20 {
		t.Fatalf("golden files missing: %v %d", err, len(files))
	}
	cache := map[string]*cdt.File{}
	for short := range goldenTraces {
		goldenReader(t, cache, short) // opened by the parent test: its cleanup closes them
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(name, "_")
			num := func(s string) int64 {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			var got []byte
			switch parts[0] {
			case "tick":
				s, err := Tick(goldenReader(t, cache, parts[1]), num(parts[2]))
				if err != nil {
					t.Fatal(err)
				}
				got = s.JSON()
			case "entity":
				from, to, err := ParseTickRange(parts[3])
				if err != nil {
					t.Fatal(err)
				}
				h, err := Entity(goldenReader(t, cache, parts[1]), num(parts[2]), from, to)
				if err != nil {
					t.Fatal(err)
				}
				got = h.JSON()
			case "focus":
				f, err := Focus(goldenReader(t, cache, parts[1]), goldenReader(t, cache, parts[2]), num(parts[3]))
				if err != nil {
					t.Fatal(err)
				}
				got = f.JSON()
			case "query":
				var q struct {
					Expression string
					Limit      int
				}
				if err := json.Unmarshal(want, &q); err != nil {
					t.Fatal(err)
				}
				res, err := Query(goldenReader(t, cache, parts[1]), q.Expression, q.Limit)
				if err != nil {
					t.Fatal(err)
				}
				got = res.JSON()
			default:
				t.Fatalf("unknown golden kind %q", parts[0])
			}
			if err := jsonValuesEqual(got, want); err != nil {
				t.Fatalf("differs from %s: %v\n%s", file, err, got)
			}
			if !bytes.Equal(append(got, '\n'), want) {
				t.Errorf("values equal but bytes differ from %s", file)
			}
		})
	}
}
