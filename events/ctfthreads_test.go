package events_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// threadSpec is kernelSpec's classes, then LTTng's sources of thread names
// and processes: a state dump (5), sched_process_fork (6), exec (7) and
// free (8).
func threadSpec(ctx ...ctfgen.Field) ctfgen.Spec {
	s := kernelSpec(ctx...)
	s.Classes = append(s.Classes,
		ctfgen.Class{Name: "lttng_statedump_process_state", Fields: []ctfgen.Field{{Name: "tid", Kind: ctfgen.S32},
			{Name: "vtid", Kind: ctfgen.S32}, {Name: "pid", Kind: ctfgen.S32}, {Name: "vpid", Kind: ctfgen.S32},
			{Name: "ppid", Kind: ctfgen.S32}, {Name: "name", Kind: ctfgen.Comm}, {Name: "type", Kind: ctfgen.S32}}},
		ctfgen.Class{Name: "sched_process_fork", Fields: []ctfgen.Field{{Name: "parent_comm", Kind: ctfgen.Comm},
			{Name: "parent_tid", Kind: ctfgen.S32}, {Name: "parent_pid", Kind: ctfgen.S32},
			{Name: "child_comm", Kind: ctfgen.Comm}, {Name: "child_tid", Kind: ctfgen.S32}, {Name: "child_pid", Kind: ctfgen.S32}}},
		ctfgen.Class{Name: "sched_process_exec", Fields: []ctfgen.Field{{Name: "filename", Kind: ctfgen.Str},
			{Name: "tid", Kind: ctfgen.S32}, {Name: "old_tid", Kind: ctfgen.S32}}},
		ctfgen.Class{Name: "sched_process_free", Fields: []ctfgen.Field{{Name: "comm", Kind: ctfgen.Comm},
			{Name: "tid", Kind: ctfgen.S32}, {Name: "prio", Kind: ctfgen.S32}}},
	)
	return s
}

// switchNamed is a sched_switch record from prev, named prevComm, to
// next, named nextComm.
func switchNamed(cpu int, ts uint64, prev int, prevComm string, next int, nextComm string) ctfgen.Record {
	return ctfgen.Record{CPU: cpu, Class: 0, TS: ts, Values: []any{prevComm, prev, 20, 0, nextComm, next, 20}}
}

func statedump(cpu int, ts uint64, tid, pid int, name string) ctfgen.Record {
	return ctfgen.Record{CPU: cpu, Class: 5, TS: ts, Values: []any{tid, tid, pid, pid, 1, name, 0}}
}

// threadsOf reads dir with WithCTFCallSlices to its end and returns the
// thread tracks by name of their first event, and at each begin what
// its Thread said then (name, pid).
func threadsOf(t *testing.T, dir string) (map[string]events.Track, []string) {
	t.Helper()
	r, err := events.Open(dir, events.WithCTFCallSlices())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tracks := map[string]events.Track{}
	var then []string
	for r.Next() {
		tk := r.Event().Track()
		if tk.Kind != events.TrackThread {
			continue
		}
		if tk.Thread == nil {
			t.Fatalf("track %q without Thread", tk.Name)
		}
		if _, ok := tracks[tk.Name]; !ok {
			tracks[tk.Name] = tk
		}
		if r.Event().Kind() == events.KindBegin {
			then = append(then, tk.Thread.Name())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return tracks, then
}

type threadWant struct {
	track         string
	id            uint64
	tid, pid      int64
	name, process string
	host          string
	ust           bool
}

func checkThreads(t *testing.T, tracks map[string]events.Track, want []threadWant) {
	t.Helper()
	if len(tracks) != len(want) {
		t.Errorf("%d thread tracks, want %d: %v", len(tracks), len(want), tracks)
	}
	for _, w := range want {
		tk, ok := tracks[w.track]
		if !ok {
			t.Errorf("no track %q", w.track)
			continue
		}
		th := tk.Thread
		if tk.ID != w.id || th.TID != w.tid || th.PID != w.pid || th.Name() != w.name || th.ProcessName() != w.process || th.Host != w.host || th.UST != w.ust {
			t.Errorf("%q: id %d tid %d pid %d name %q process %q host %q ust %v; want %+v",
				w.track, tk.ID, th.TID, th.PID, th.Name(), th.ProcessName(), th.Host, th.UST, w)
		}
	}
}

// TestCTFThreadNames: a thread's Thread has the latest name that a state
// dump, sched_switch (next and prev), fork or exec gave it, and its
// process (from the state dump or the fork) with its main thread's name;
// a free names only a thread already known.
func TestCTFThreadNames(t *testing.T) {
	dir := t.TempDir()
	recs := []ctfgen.Record{
		statedump(0, 10, 100, 100, "server"),
		statedump(0, 20, 101, 100, "server"),
		switchTo(0, 30, 0, 101, "srv-worker"),        // renamed (prctl) since the dump
		{CPU: 0, Class: 1, TS: 40, Values: []any{3}}, // 101 reads
		{CPU: 0, Class: 6, TS: 50, Values: []any{"srv-worker", 101, 100, "srv-worker", 200, 200}},
		switchTo(1, 60, 0, 200, "srv-worker"),
		{CPU: 1, Class: 7, TS: 70, Values: []any{"/usr/libexec/a-very-long-program-name", 200, 200}},
		{CPU: 1, Class: 3, TS: 80, Values: []any{1}}, // 200 writes
		{CPU: 1, Class: 4, TS: 90, Values: []any{1}},
		{CPU: 0, Class: 2, TS: 100, Values: []any{1}},
		switchNamed(0, 110, 101, "srv-io", 0, "swapper/0"), // prev_comm: renamed again
		{CPU: 0, Class: 8, TS: 120, Values: []any{"gone", 300, 20}},
		{CPU: 0, Class: 8, TS: 130, Values: []any{"server-old", 100, 20}},
		statedump(0, 140, 400, 300, "late"),
		switchTo(0, 150, 0, 400, "late"),
		{CPU: 0, Class: 1, TS: 160, Values: []any{3}},
	}
	if err := ctfgen.WriteRecords(dir, threadSpec(), recs); err != nil {
		t.Fatal(err)
	}
	tracks, then := threadsOf(t, dir)
	checkThreads(t, tracks, []threadWant{
		{track: "tid 101 (srv-worker)", id: 101, tid: 101, pid: 100, name: "srv-io", process: "server-old", host: "gen"},
		{track: "tid 200 (a-very-long-pro)", id: 200, tid: 200, pid: 200, name: "a-very-long-pro", process: "a-very-long-pro", host: "gen"},
		// the free of 300 added no thread: its process has no name
		{track: "tid 400 (late)", id: 400, tid: 400, pid: 300, name: "late", process: "", host: "gen"},
	})
	if got := fmt.Sprint(then); got != "[srv-worker a-very-long-pro late]" {
		t.Errorf("names at the begins: %s", got)
	}
}

// TestCTFThreadsSession: in a session folder, a host's user-space threads
// are its kernel threads (one track for a thread's system calls and
// function calls, named by the kernel), unless the session has no kernel
// trace of that host; two kernel traces of different hosts keep their
// threads (and what runs on their CPUs) apart.
func TestCTFThreadsSession(t *testing.T) {
	ust := ctfgen.Spec{Domain: "ust", Context: []ctfgen.Field{{Name: "vpid", Kind: ctfgen.S32}, {Name: "vtid", Kind: ctfgen.S32},
		{Name: "procname", Kind: ctfgen.Comm}}, Classes: []ctfgen.Class{ctfgen.FuncEntry, ctfgen.FuncExit}}
	ctx := []any{40, 42, "app"}
	urecs := []ctfgen.Record{
		{CPU: 0, Class: 0, TS: 15, Context: ctx, Values: []any{0x401000, 0}},
		{CPU: 0, Class: 1, TS: 25, Context: ctx, Values: []any{0x401000, 0}},
	}
	krecs := []ctfgen.Record{
		statedump(0, 5, 40, 40, "app"),
		switchTo(0, 10, 0, 42, "app-thread"),
		{CPU: 0, Class: 1, TS: 30, Values: []any{3}},
		{CPU: 0, Class: 2, TS: 40, Values: []any{0}},
	}
	write := func(dir, host string, s ctfgen.Spec, recs []ctfgen.Record) {
		t.Helper()
		if err := ctfgen.WriteRecords(dir, s, recs); err != nil {
			t.Fatal(err)
		}
		if host != "gen" {
			if err := ctfgen.EditMetadata(dir, `hostname = "gen"`, `hostname = "`+host+`"`); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Kernel and user space of one host: one track, its name the latest
	// (the procname context after the sched_switch), its pid the vpid.
	root := t.TempDir()
	write(filepath.Join(root, "kernel"), "gen", threadSpec(), krecs)
	write(filepath.Join(root, "ust", "uid", "1000", "64-bit"), "gen", ust, urecs)
	tracks, _ := threadsOf(t, root)
	if got := cpuTracks(t, root); got != "[cpu 0/0]" {
		t.Errorf("one host's CPU tracks: %s", got)
	}
	checkThreads(t, tracks, []threadWant{
		{track: "tid 42 (app)", id: 42, tid: 42, pid: 40, name: "app", process: "app", host: "gen"},
	})
	// The user-space trace of another host: apart, keyed by vpid and vtid.
	root = t.TempDir()
	write(filepath.Join(root, "kernel"), "gen", threadSpec(), krecs)
	write(filepath.Join(root, "ust"), "phone", ust, urecs)
	tracks, _ = threadsOf(t, root)
	checkThreads(t, tracks, []threadWant{
		{track: "vtid 42, vpid 40 (app)", id: 1<<63 | 1<<62 | 1, tid: 42, pid: 40, name: "app", process: "", host: "phone", ust: true},
		{track: "tid 42 (app-thread)", id: 42, tid: 42, pid: -1, name: "app-thread", process: "", host: "gen"},
	})
	// Two hosts' kernels: tid 42 on each, and CPU 0 of each runs its own.
	root = t.TempDir()
	write(filepath.Join(root, "a"), "gen", threadSpec(), krecs)
	write(filepath.Join(root, "b"), "b", threadSpec(), []ctfgen.Record{
		switchTo(0, 12, 0, 42, "other"),
		switchNamed(0, 20, 42, "other", 43, "b43"),
		{CPU: 0, Class: 3, TS: 35, Values: []any{3}},
		{CPU: 0, Class: 4, TS: 36, Values: []any{3}},
		switchNamed(0, 37, 43, "b43", 42, "other"),
		{CPU: 0, Class: 1, TS: 38, Values: []any{3}},
	})
	// (the muxer reads b's trace first: b is the first host)
	tracks, _ = threadsOf(t, root)
	if got := cpuTracks(t, root); got != fmt.Sprintf("[cpu 0 (b)/0 cpu 0 (gen)/%d]", int64(1<<32+1)) {
		t.Errorf("two hosts' CPU tracks: %s", got)
	}
	checkThreads(t, tracks, []threadWant{
		{track: "tid 42 (app-thread)", id: 1<<32 | 42, tid: 42, pid: -1, name: "app-thread", process: "", host: "gen"},
		{track: "tid 43 (b43)", id: 43, tid: 43, pid: -1, name: "b43", host: "b"},
		{track: "tid 42 (other)", id: 42, tid: 42, pid: -1, name: "other", host: "b"},
	})
}

// TestCTFThreadsZeroAllocs: once its threads are known, noting their names
// and processes costs no allocation per event, names changing at every
// event (state dumps, forks, execs, frees, sched_switch, the procname
// context of system calls).
func TestCTFThreadsZeroAllocs(t *testing.T) {
	dir := t.TempDir()
	s := threadSpec(ctfgen.Field{Name: "tid", Kind: ctfgen.S32}, ctfgen.Field{Name: "pid", Kind: ctfgen.S32},
		ctfgen.Field{Name: "procname", Kind: ctfgen.Comm})
	var recs []ctfgen.Record
	for i := range 6000 {
		ts := uint64(100 * i)
		cpu, tid := i%2, 10+i%40
		name := fmt.Sprintf("n%d", i%7)
		ctx := []any{tid, 10 + i%5, name}
		var r ctfgen.Record
		switch i % 8 {
		case 0:
			r = ctfgen.Record{Class: 5, Values: []any{tid, tid, 10 + i%5, 10 + i%5, 1, name, 0}}
		case 1:
			r = ctfgen.Record{Class: 6, Values: []any{name, tid, 10, name + "c", 10 + (i+1)%40, 10}}
		case 2:
			r = ctfgen.Record{Class: 7, Values: []any{"/bin/" + name, tid, tid}}
		case 3:
			r = ctfgen.Record{Class: 8, Values: []any{name, tid, 20}}
		case 4:
			r = switchNamed(cpu, ts, tid, name, 10+(i+3)%40, name+"x")
		case 5, 6:
			r = ctfgen.Record{Class: i%8 - 4, Values: []any{1}} // read entry, exit
		default:
			r = ctfgen.Record{Class: 3, Values: []any{1}}
		}
		r.CPU, r.TS, r.Context = cpu, ts, ctx
		recs = append(recs, r)
	}
	if err := ctfgen.WriteRecords(dir, s, recs); err != nil {
		t.Fatal(err)
	}
	r, err := events.Open(dir, events.WithCTFCallSlices())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var last *events.Thread
	for i := 0; i < 2000 && r.Next(); i++ {
		if th := r.Event().Track().Thread; th != nil {
			last = th
		}
	}
	if last == nil || last.PID < 0 {
		t.Fatalf("no thread with a process: %+v", last)
	}
	allocs := testing.AllocsPerRun(100, func() {
		for range 16 {
			if !r.Next() {
				t.Fatalf("ran out of events: %v", r.Err())
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%.2f allocations per 16 events", allocs)
	}
}

// cpuTracks lists the stream tracks of dir's events as "name/ID", sorted.
func cpuTracks(t *testing.T, dir string) string {
	t.Helper()
	r, err := events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	seen := map[string]bool{}
	for r.Next() {
		tk := r.Event().Track()
		seen[fmt.Sprintf("%s/%d", tk.Name, tk.ID)] = true
	}
	out := slices.Sorted(maps.Keys(seen))
	return fmt.Sprint(out)
}
