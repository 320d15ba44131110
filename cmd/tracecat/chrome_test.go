package main

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// TestChromeBalancedOnEveryVector converts every vector of the four event
// formats that reads cleanly to Chrome trace-event JSON and checks, per
// thread: every E closes an open B, carries that B's name and is not earlier
// than it, and nothing is left open at the end.
func TestChromeBalancedOnEveryVector(t *testing.T) {
	root := filepath.Dir(vectortest.Dir(t, "dial9"))
	converted := map[string]int{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root || sidecar(d.Name()) {
			return err
		}
		if d.IsDir() && !events.DetectDir(p).Known() {
			return nil
		}
		r, err := events.Open(p)
		if err != nil {
			return nil
		}
		format := r.Format()
		for r.Next() {
		}
		clean := r.Err() == nil
		r.Close()
		if !clean {
			return nil
		}
		code, out, errOut := run(t, nil, "convert", "--to", "chrome", p, "-")
		if code != exitOK {
			t.Errorf("%s: convert: exit %d: %s", p, code, errOut)
			return nil
		}
		checkChromeBalance(t, p, []byte(out))
		converted[format]++
		return nil
	})
	for _, f := range []string{"dial9", "atf", "wtf", "cdt"} {
		if converted[f] == 0 {
			t.Errorf("no %s vector converted", f)
		}
	}
	t.Logf("converted: %v", converted)
}

func checkChromeBalance(t *testing.T, p string, out []byte) {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Name string   `json:"name"`
			Ph   string   `json:"ph"`
			Pid  uint64   `json:"pid"`
			Tid  uint64   `json:"tid"`
			Ts   *float64 `json:"ts"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Errorf("%s: %v", p, err)
		return
	}
	type slice struct {
		name string
		ts   float64
	}
	open := map[[2]uint64][]slice{}
	for i, ev := range doc.TraceEvents {
		k := [2]uint64{ev.Pid, ev.Tid}
		if ev.Ph != "M" && ev.Ts == nil {
			t.Errorf("%s: event %d has no ts", p, i)
			return
		}
		switch ev.Ph {
		case "B":
			open[k] = append(open[k], slice{ev.Name, *ev.Ts})
		case "E":
			st := open[k]
			if len(st) == 0 {
				t.Errorf("%s: event %d: E %q with nothing open on tid %d", p, i, ev.Name, ev.Tid)
				return
			}
			top := st[len(st)-1]
			if ev.Name != top.name || *ev.Ts < top.ts {
				t.Errorf("%s: event %d: E %q at %v closes B %q at %v", p, i, ev.Name, *ev.Ts, top.name, top.ts)
				return
			}
			open[k] = st[:len(st)-1]
		}
	}
	for k, st := range open {
		if len(st) > 0 {
			t.Errorf("%s: tid %d: %d slices left open", p, k[1], len(st))
		}
	}
}

// TestChromeOuterEndClosesInnerSlices: in the ATF vector "normal", thread_1's
// helper throws (an EXCEPTION, then no RETURN of its own) and worker_loop
// returns at 1700 ns. The export must end helper and then worker_loop at that
// return, so lib_init (called at 1800 ns) sits at depth 0, not under
// worker_loop, in a viewer (speedscope showed it nested before the fix).
func TestChromeOuterEndClosesInnerSlices(t *testing.T) {
	session := vectortest.Path(t, "atf", "normal/session_20250101_120000/pid_12345")
	code, out, errOut := run(t, nil, "convert", "--to", "chrome", session, "-")
	if code != exitOK {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	var doc struct {
		TraceEvents []struct {
			Name string          `json:"name"`
			Ph   string          `json:"ph"`
			Tid  uint64          `json:"tid"`
			Ts   json.Number     `json:"ts"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var tid uint64
	found := false
	for _, e := range doc.TraceEvents {
		if e.Ph == "B" && e.Name == "worker_loop" {
			tid, found = e.Tid, true
		}
	}
	if !found {
		t.Fatal("no worker_loop slice in the export")
	}
	var seq []string
	depth := 0
	for _, e := range doc.TraceEvents {
		if e.Tid != tid || (e.Ph != "B" && e.Ph != "E") {
			continue
		}
		if e.Ph == "B" {
			if e.Name == "lib_init" && depth != 0 {
				t.Errorf("lib_init begins at depth %d, want 0", depth)
			}
			depth++
		} else {
			depth--
		}
		seq = append(seq, e.Ph+" "+e.Name+" "+e.Ts.String())
	}
	want := []string{
		"B worker_loop 1000000001.050",
		"B compute 1000000001.200",
		"E compute 1000000001.400",
		"B helper 1000000001.500",
		"E helper 1000000001.700",
		"E worker_loop 1000000001.700",
		"B lib_init 1000000001.800",
		"E lib_init 1000000001.900",
	}
	if len(seq) != len(want) {
		t.Fatalf("thread %d slices:\n%v\nwant\n%v", tid, seq, want)
	}
	for i := range want {
		if seq[i] != want[i] {
			t.Fatalf("thread %d slices:\n%v\nwant\n%v", tid, seq, want)
		}
	}
}
