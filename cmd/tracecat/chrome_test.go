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
