package chromeexport

// A Go transcription of what speedscope's importer for the trace-event format
// does with B, E and X events (src/import/trace-event.ts at jlfwong/speedscope
// 3613918, the code of speedscope 1.25.0): events partitioned by pid and tid,
// ts rebased on the thread's earliest, X split into a B and an E, B and E
// queues stably sorted by ts; at equal ts a B goes first only when its key
// (name + " " + JSON of args, or the name alone without args) equals the E's;
// an E prefers, among the E events at its ts, one whose key and then whose
// name matches the top of the stack; an E whose name differs from the top's
// is dropped ("Doing nothing instead"), and what stays open at the end is
// closed there. Tests use it to check what speedscope would draw without a
// browser; tools/viewercheck checks the real thing.

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"
)

type traceEvent struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	Pid  uint64          `json:"pid"`
	Tid  uint64          `json:"tid"`
	Ts   *float64        `json:"ts"`
	Dur  float64         `json:"dur"`
	ID   json.RawMessage `json:"id"`
	Args json.RawMessage `json:"args"`
}

type traceDoc struct {
	TraceEvents []traceEvent   `json:"traceEvents"`
	OtherData   map[string]any `json:"otherData"`
}

func parseDoc(t testing.TB, b []byte) traceDoc {
	t.Helper()
	var d traceDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("not JSON: %v\n%.400s", err, b)
	}
	return d
}

// frameKey is speedscope's getEventId: the name, and the args' JSON when the
// event has args.
func frameKey(e *traceEvent) string {
	if e.Args == nil {
		return e.Name
	}
	var v any
	if err := json.Unmarshal(e.Args, &v); err != nil {
		return e.Name + " <bad args>"
	}
	j, _ := json.Marshal(v) // a canonical form: equal args give equal keys
	return e.Name + " " + string(j)
}

type ssSlice struct {
	Name       string
	Start, End float64 // µs from the thread's earliest event
	Depth      int
}

type ssThread struct {
	Slices   []ssSlice
	Warnings []string // ends refused, frames closed at the end of the profile
}

type ssEv struct {
	e  *traceEvent
	ts float64
}

// speedscope imports d as speedscope does and returns, per tid, the slices
// it draws.
func speedscope(d traceDoc) map[uint64]*ssThread {
	byTid := map[uint64][]*traceEvent{}
	var order []uint64
	for i := range d.TraceEvents {
		e := &d.TraceEvents[i]
		if e.Ph != "B" && e.Ph != "E" && e.Ph != "X" {
			continue
		}
		if _, ok := byTid[e.Tid]; !ok {
			order = append(order, e.Tid)
		}
		byTid[e.Tid] = append(byTid[e.Tid], e)
	}
	out := map[uint64]*ssThread{}
	for _, tid := range order {
		evs := byTid[tid]
		first := *evs[0].Ts
		for _, e := range evs {
			first = min(first, *e.Ts)
		}
		var bq, eq, xs []ssEv
		for _, e := range evs {
			switch e.Ph {
			case "B":
				bq = append(bq, ssEv{e, *e.Ts - first})
			case "E":
				eq = append(eq, ssEv{e, *e.Ts - first})
			case "X":
				xs = append(xs, ssEv{e, *e.Ts - first})
			}
		}
		sort.SliceStable(xs, func(i, j int) bool {
			if xs[i].ts != xs[j].ts {
				return xs[i].ts < xs[j].ts
			}
			return xs[i].e.Dur > xs[j].e.Dur
		})
		for _, x := range xs {
			bq = append(bq, x)
			eq = append(eq, ssEv{x.e, x.ts + x.e.Dur})
		}
		byTs := func(q []ssEv) { sort.SliceStable(q, func(i, j int) bool { return q[i].ts < q[j].ts }) }
		byTs(bq)
		byTs(eq)
		th := &ssThread{}
		type open struct {
			ev    ssEv
			depth int
		}
		var stack []open
		for len(bq) > 0 || len(eq) > 0 {
			takeB := len(eq) == 0 || (len(bq) > 0 && (bq[0].ts < eq[0].ts ||
				(bq[0].ts == eq[0].ts && frameKey(bq[0].e) == frameKey(eq[0].e))))
			if takeB {
				stack = append(stack, open{bq[0], len(stack)})
				bq = bq[1:]
				continue
			}
			if len(stack) > 0 {
				top := stack[len(stack)-1].ev.e
				swapped := false
				for i := 1; i < len(eq) && eq[i].ts <= eq[0].ts; i++ {
					if frameKey(eq[i].e) == frameKey(top) {
						eq[0], eq[i] = eq[i], eq[0]
						swapped = true
						break
					}
				}
				if !swapped {
					for i := 1; i < len(eq) && eq[i].ts <= eq[0].ts; i++ {
						if eq[i].e.Name == top.Name {
							eq[0], eq[i] = eq[i], eq[0]
							break
						}
					}
				}
			}
			e := eq[0]
			eq = eq[1:]
			if len(stack) == 0 {
				th.Warnings = append(th.Warnings, fmt.Sprintf("end %q at %v: stack empty", e.e.Name, e.ts))
				continue
			}
			top := stack[len(stack)-1]
			if e.e.Name != top.ev.e.Name {
				th.Warnings = append(th.Warnings, fmt.Sprintf("end %q at %v with %q on top: ignored", e.e.Name, e.ts, top.ev.e.Name))
				continue
			}
			stack = stack[:len(stack)-1]
			th.Slices = append(th.Slices, ssSlice{top.ev.e.Name, top.ev.ts, e.ts, top.depth})
		}
		for i := len(stack) - 1; i >= 0; i-- {
			th.Warnings = append(th.Warnings, fmt.Sprintf("%q still open at the end", stack[i].ev.e.Name))
		}
		out[tid] = th
	}
	return out
}

// fileSlices pairs the B and E events of d per tid in file order, as the
// export means them, with times relative to the thread's earliest B/E/X.
func fileSlices(t testing.TB, d traceDoc) map[uint64][]ssSlice {
	t.Helper()
	first := map[uint64]float64{}
	for _, e := range d.TraceEvents {
		if e.Ph == "B" || e.Ph == "E" || e.Ph == "X" {
			if f, ok := first[e.Tid]; !ok || *e.Ts < f {
				first[e.Tid] = *e.Ts
			}
		}
	}
	type open struct {
		e     traceEvent
		depth int
	}
	stacks := map[uint64][]open{}
	out := map[uint64][]ssSlice{}
	for _, e := range d.TraceEvents {
		switch e.Ph {
		case "B":
			stacks[e.Tid] = append(stacks[e.Tid], open{e, len(stacks[e.Tid])})
		case "E":
			st := stacks[e.Tid]
			if len(st) == 0 {
				t.Fatalf("tid %d: E %q at %v with nothing open", e.Tid, e.Name, *e.Ts)
			}
			b := st[len(st)-1]
			stacks[e.Tid] = st[:len(st)-1]
			out[e.Tid] = append(out[e.Tid], ssSlice{b.e.Name, *b.e.Ts - first[e.Tid], *e.Ts - first[e.Tid], b.depth})
		case "X":
			out[e.Tid] = append(out[e.Tid], ssSlice{e.Name, *e.Ts - first[e.Tid], *e.Ts + e.Dur - first[e.Tid], len(stacks[e.Tid])})
		}
	}
	return out
}

// checkSpeedscope checks that speedscope would draw exactly the slices the
// export writes: same names, depths, starts and ends, no end refused and
// nothing closed at the end of the profile.
func checkSpeedscope(t testing.TB, what string, d traceDoc) {
	t.Helper()
	want := fileSlices(t, d)
	got := speedscope(d)
	last := map[uint64]float64{}
	for _, e := range d.TraceEvents {
		if e.Ph != "B" && e.Ph != "E" && e.Ph != "X" {
			continue
		}
		if l, ok := last[e.Tid]; ok && *e.Ts < l && want[e.Tid] != nil {
			// speedscope orders a thread's events by time; a trace whose time
			// goes back on a thread (the ATF vector's thread_2 holds its calls
			// twice) is drawn in time order, not as the file nests it.
			t.Logf("%s: tid %d: time goes back at %v µs: not compared", what, e.Tid, *e.Ts)
			delete(want, e.Tid)
		}
		last[e.Tid] = max(last[e.Tid], *e.Ts)
	}
	key := func(s ssSlice) string { return fmt.Sprintf("%s@%d %.3f..%.3f", s.Name, s.Depth, s.Start, s.End) }
	for tid, w := range want {
		g := got[tid]
		if g == nil {
			t.Errorf("%s: tid %d: speedscope draws nothing", what, tid)
			continue
		}
		for _, warn := range g.Warnings[:min(len(g.Warnings), 5)] {
			t.Errorf("%s: tid %d: speedscope: %s", what, tid, warn)
		}
		ws, gs := make([]string, len(w)), make([]string, len(g.Slices))
		for i, s := range w {
			ws[i] = key(s)
		}
		for i, s := range g.Slices {
			gs[i] = key(s)
		}
		slices.Sort(ws)
		slices.Sort(gs)
		if !slices.Equal(ws, gs) {
			t.Errorf("%s: tid %d: speedscope draws\n%v\nthe export means\n%v", what, tid, gs[:min(len(gs), 20)], ws[:min(len(ws), 20)])
		}
	}
}

// TestSpeedscopeModel pins the model on the cases that made the export what it
// is: arguments on an E are harmless, the same on a B split the frame, a
// zero-duration B/E whose E has args loses the slice, and an E keyed like the
// next B of the same name at the same time closes the wrong slice.
func TestSpeedscopeModel(t *testing.T) {
	ts := func(f float64) *float64 { return &f }
	ev := func(name, ph string, at float64, args string) traceEvent {
		e := traceEvent{Name: name, Ph: ph, Tid: 1, Ts: ts(at)}
		if args != "" {
			e.Args = json.RawMessage(args)
		}
		return e
	}
	good := traceDoc{TraceEvents: []traceEvent{
		ev("f", "B", 0, ""), ev("f", "E", 1, `{"a":1}`), ev("f", "B", 1, ""), ev("f", "E", 2, `{}`),
	}}
	if th := speedscope(good)[1]; len(th.Warnings) != 0 || len(th.Slices) != 2 || th.Slices[0].Depth != 0 || th.Slices[1].Depth != 0 {
		t.Errorf("back-to-back with args on E: %+v", th)
	}
	sameKey := traceDoc{TraceEvents: []traceEvent{
		ev("f", "B", 0, ""), ev("f", "E", 1, ""), ev("f", "B", 1, ""), ev("f", "E", 2, ""),
	}}
	if th := speedscope(sameKey)[1]; th.Slices[0].Depth != 1 {
		t.Errorf("back-to-back with equal keys: want the second nested in the first (speedscope's behaviour), got %+v", th)
	}
	zero := traceDoc{TraceEvents: []traceEvent{
		ev("p", "B", 0, ""), ev("f", "B", 1, ""), ev("f", "E", 1, `{"a":1}`), ev("p", "E", 2, `{}`),
	}}
	if th := speedscope(zero)[1]; len(th.Warnings) == 0 {
		t.Errorf("zero-duration slice with args on its E: want it lost, got %+v", th)
	}
}
