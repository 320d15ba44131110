package main

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracecodec/tracecodec/events"
)

// TestCTFCalls: the slices the generator writes in NAME.slices.json are
// the ones the event layer's call slices (events.WithCTFCallSlices) pair
// in its traces, at the same ns, on threads of the same latest names,
// processes and ids; and the
// traces have what they are for: calls whose thread changed CPU between
// entry and exit, nested calls, slices that begin at the end of another.
func TestCTFCalls(t *testing.T) {
	dir := t.TempDir()
	if err := run([]string{dir}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kernel", "ust"} {
		var doc struct {
			Threads map[string][]Slice `json:"threads"`
		}
		b, err := os.ReadFile(filepath.Join(dir, name+".slices.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		got := paired(t, filepath.Join(dir, name))
		n, nested, touching := 0, 0, 0
		for th, want := range doc.Threads {
			n += len(want)
			sortSlices(want)
			if !slices.Equal(got[th], want) {
				t.Errorf("%s: %s: the event layer pairs\n%v\nthe generator wrote\n%v", name, th, got[th], want)
			}
			for _, s := range want {
				if s.Depth > 0 {
					nested++
				}
				if s.End <= s.Begin || s.Begin < t0 {
					t.Errorf("%s: %s: slice %+v", name, th, s)
				}
				if slices.ContainsFunc(want, func(o Slice) bool { return o.End == s.Begin }) {
					touching++
				}
			}
		}
		if len(got) != len(doc.Threads) {
			t.Errorf("%s: the event layer has slices on %d threads, the generator %d", name, len(got), len(doc.Threads))
		}
		if n < 100 || touching == 0 || name == "ust" && nested == 0 {
			t.Errorf("%s: %d slices, %d nested, %d beginning where another ends", name, n, nested, touching)
		}
		t.Logf("%s: %d slices on %d threads, %d nested, %d beginning where another ends", name, n, len(doc.Threads), nested, touching)
	}
	for _, bad := range [][]string{nil, {dir, "0"}, {dir, "x"}, {dir, "1", "2"}} {
		if run(bad) == nil {
			t.Errorf("run(%q) accepted", bad)
		}
	}
}

func sortSlices(s []Slice) {
	slices.SortFunc(s, func(a, b Slice) int {
		return cmp.Or(cmp.Compare(a.Begin, b.Begin), cmp.Compare(a.Depth, b.Depth))
	})
}

// paired reads trace folder dir with the call slices and pairs each thread
// track's begins and ends (an end closes the innermost open begin, whose
// name it has when it names one: a fast func_exit has no address, its end
// is named by its class).
func paired(t *testing.T, dir string) map[string][]Slice {
	t.Helper()
	r, err := events.Open(dir, events.WithCTFCallSlices())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	type open struct {
		name  string
		begin uint64
	}
	stacks := map[string][]open{}
	out := map[string][]Slice{}
	threads := map[string]*events.Thread{}
	for r.Next() {
		ev := r.Event()
		tr := ev.Track()
		if tr.Thread != nil {
			threads[tr.Name] = tr.Thread
		}
		switch ev.Kind() {
		case events.KindBegin:
			stacks[tr.Name] = append(stacks[tr.Name], open{ev.Name(), uint64(ev.Time())})
		case events.KindEnd:
			st := stacks[tr.Name]
			named := slices.ContainsFunc(st, func(o open) bool { return o.name == ev.Name() })
			if len(st) == 0 || named && ev.Name() != st[len(st)-1].name {
				t.Fatalf("%s: end %q at %d on %s closes no open begin (%v)", dir, ev.Name(), ev.Time(), tr.Name, st)
			}
			o := st[len(st)-1]
			stacks[tr.Name] = st[:len(st)-1]
			out[tr.Name] = append(out[tr.Name], Slice{Name: o.name, Depth: len(st) - 1, Begin: o.begin, End: uint64(ev.Time())})
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for th, st := range stacks {
		if len(st) > 0 {
			t.Errorf("%s: %s: %d begins never end", dir, th, len(st))
		}
	}
	// Keyed by the thread's latest names and ids, as speedscope names its
	// row.
	named := map[string][]Slice{}
	for name, s := range out {
		sortSlices(s)
		th := threads[name]
		if th == nil {
			t.Fatalf("%s: slices on %s, a track without Thread", dir, name)
		}
		named[profileName(th.ProcessName(), int(th.PID), th.Name(), int(th.TID))] = s
	}
	return named
}

// TestMigrations: in both traces (as tools/viewercheck runs them) some call's thread is on another CPU at
// its exit than at its entry.
func TestMigrations(t *testing.T) {
	_, recs, _ := kernel(defaultSteps)
	var running [2]int
	entered := map[int]int{} // tid: CPU of its open system call's entry
	moved := 0
	for _, r := range recs {
		switch {
		case r.Class == 0:
			running[r.CPU] = r.Values[5].(int)
		case running[r.CPU] == 0: // before the CPU's first sched_switch
		case r.Class%2 == 1:
			entered[running[r.CPU]] = r.CPU
		default:
			if c, ok := entered[running[r.CPU]]; ok && c != r.CPU {
				moved++
			}
		}
	}
	_, urecs, _ := ust(defaultSteps)
	stacks := map[int][]int{} // vtid: CPUs of its open calls' entries
	umoved := 0
	for _, r := range urecs {
		vtid := r.Context[1].(int)
		if r.Class == 0 || r.Class == 2 {
			stacks[vtid] = append(stacks[vtid], r.CPU)
			continue
		}
		st := stacks[vtid]
		if st[len(st)-1] != r.CPU {
			umoved++
		}
		stacks[vtid] = st[:len(st)-1]
	}
	if moved == 0 || umoved == 0 {
		t.Errorf("system calls ended on another CPU: %d, function calls: %d", moved, umoved)
	}
	t.Logf("system calls ended on another CPU: %d, function calls: %d", moved, umoved)
}
