package main

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// TestChromeATFEndClosesItsCall pins what speedscope showed for the ATF
// vector (tools/viewercheck): in thread_1, helper is called at 1500 ns (depth
// 2), leaves by EXCEPTION at 1550 (an instant in the event layer), and
// worker_loop RETURNs at 1700 (depth 1). The Chrome export must close helper
// and worker_loop there; lib_init (1800..1900, depth 1) is then a top-level
// slice. (Before the fix the export closed only the innermost slice (helper)
// at 1700, so worker_loop ran to 1900 and lib_init was drawn inside it.)
// helper may end at 1550 or 1700.
func TestChromeATFEndClosesItsCall(t *testing.T) {
	code, out, errOut := run(t, nil, "convert", "--to", "chrome", vectortest.Path(t, "atf", atfNormal), "-")
	if code != exitOK {
		t.Fatal(errOut)
	}
	var doc struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			TS   float64 `json:"ts"`
			Tid  int     `json:"tid"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	type slice struct {
		name       string
		start, end float64
		depth      int
	}
	var open, got []slice
	for _, e := range doc.TraceEvents {
		if e.Tid != 1 {
			continue
		}
		switch e.Ph {
		case "B":
			open = append(open, slice{name: e.Name, start: e.TS, depth: len(open)})
		case "E":
			if len(open) == 0 {
				t.Fatalf("E %q at %v with nothing open", e.Name, e.TS)
			}
			s := open[len(open)-1]
			open = open[:len(open)-1]
			s.end = e.TS
			got = append(got, s)
		}
	}
	const base = 1000000000.0 // µs
	want := map[string]slice{
		"worker_loop": {"worker_loop", base + 1.050, base + 1.700, 0},
		"lib_init":    {"lib_init", base + 1.800, base + 1.900, 0},
		"helper":      {"helper", base + 1.500, base + 1.700, 1},
		"compute":     {"compute", base + 1.200, base + 1.400, 1},
	}
	if len(got) != len(want) {
		t.Errorf("%d slices on thread_1, want %d: %+v", len(got), len(want), got)
	}
	for _, s := range got {
		w, ok := want[s.name]
		if !ok {
			t.Errorf("unexpected slice %+v", s)
			continue
		}
		end := s.end
		if s.name == "helper" && math.Abs(end-(base+1.550)) <= 5e-4 {
			end = w.end // ending helper at its EXCEPTION is as right as at worker_loop's RETURN
		}
		if s.depth != w.depth || math.Abs(s.start-w.start) > 5e-4 || math.Abs(end-w.end) > 5e-4 {
			t.Errorf("slice %q: depth %d %.3f..%.3f µs, want depth %d %.3f..%.3f µs",
				s.name, s.depth, s.start-base, s.end-base, w.depth, w.start-base, w.end-base)
		}
	}
}
