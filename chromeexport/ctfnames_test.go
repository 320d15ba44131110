package chromeexport

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// namesSpec is a kernel trace's classes: sched_switch (0), read's entry
// and exit (1, 2), write's (3, 4), a state dump (5), sched_process_fork
// (6) and exec (7).
var namesSpec = ctfgen.Spec{Domain: "kernel", Classes: []ctfgen.Class{
	ctfgen.SchedSwitch,
	ctfgen.SyscallEntry("read"), ctfgen.SyscallExit("read"),
	ctfgen.SyscallEntry("write"), ctfgen.SyscallExit("write"),
	{Name: "lttng_statedump_process_state", Fields: []ctfgen.Field{{Name: "tid", Kind: ctfgen.S32},
		{Name: "pid", Kind: ctfgen.S32}, {Name: "name", Kind: ctfgen.Comm}}},
	{Name: "sched_process_fork", Fields: []ctfgen.Field{{Name: "parent_comm", Kind: ctfgen.Comm},
		{Name: "parent_tid", Kind: ctfgen.S32}, {Name: "parent_pid", Kind: ctfgen.S32},
		{Name: "child_comm", Kind: ctfgen.Comm}, {Name: "child_tid", Kind: ctfgen.S32}, {Name: "child_pid", Kind: ctfgen.S32}}},
	{Name: "sched_process_exec", Fields: []ctfgen.Field{{Name: "filename", Kind: ctfgen.Str},
		{Name: "tid", Kind: ctfgen.S32}, {Name: "old_tid", Kind: ctfgen.S32}}},
}}

// namesKernel is a kernel trace of process 100 ("server", threads 100 and
// 101): 101, renamed srv-worker, reads, forks 200, which execs ls and
// writes; 101 is renamed srv-io before it is switched out.
var namesKernel = []ctfgen.Record{
	{CPU: 0, Class: 5, TS: 10, Values: []any{100, 100, "server"}},
	{CPU: 0, Class: 5, TS: 20, Values: []any{101, 100, "server"}},
	{CPU: 0, Class: 0, TS: 30, Values: []any{"swapper/0", 0, 20, 0, "srv-worker", 101, 20}},
	{CPU: 0, Class: 1, TS: 40},
	{CPU: 0, Class: 6, TS: 50, Values: []any{"srv-worker", 101, 100, "srv-worker", 200, 200}},
	{CPU: 1, Class: 0, TS: 60, Values: []any{"swapper/1", 0, 20, 0, "srv-worker", 200, 20}},
	{CPU: 1, Class: 7, TS: 70, Values: []any{"/usr/bin/ls", 200, 200}},
	{CPU: 1, Class: 3, TS: 80},
	{CPU: 1, Class: 4, TS: 90, Values: []any{0}},
	{CPU: 0, Class: 2, TS: 100, Values: []any{0}},
	{CPU: 0, Class: 0, TS: 140, Values: []any{"srv-io", 101, 20, 0, "swapper/0", 0, 20}},
}

// namesUST is a user-space trace of thread 101 of process 100 calling a
// function.
var namesUST = []ctfgen.Record{
	{CPU: 0, Class: 0, TS: 45, Context: []any{100, 101, "srv-worker"}, Values: []any{0x401000, 0}},
	{CPU: 0, Class: 1, TS: 55, Context: []any{100, 101, "srv-worker"}, Values: []any{0x401000, 0}},
}

var namesUSTSpec = ctfgen.Spec{Domain: "ust", Context: []ctfgen.Field{{Name: "vpid", Kind: ctfgen.S32},
	{Name: "vtid", Kind: ctfgen.S32}, {Name: "procname", Kind: ctfgen.Comm}}, Classes: []ctfgen.Class{ctfgen.FuncEntry, ctfgen.FuncExit}}

// rows checks that every thread (pid, tid) of d's events has one
// thread_name, every tid one pid, every pid at most one process_name and
// that pids and tids are 32-bit signed integers; it returns the rows as
// "process/thread: slice names" (a pid or tid that is not the name's
// own id — a synthetic one — as "≈"), sorted.
func rows(t *testing.T, d traceDoc) []string {
	t.Helper()
	type id struct{ pid, tid uint64 }
	name := func(e traceEvent) string {
		var a struct{ Name string }
		if err := json.Unmarshal(e.Args, &a); err != nil {
			t.Fatal(err)
		}
		return a.Name
	}
	threads, procs := map[id]string{}, map[uint64]string{}
	pidOf := map[uint64]uint64{}
	slicesOf := map[id][]string{}
	for _, e := range d.TraceEvents {
		if e.Pid > maxTid || e.Tid > maxTid {
			t.Errorf("%s %s: pid %d tid %d", e.Ph, e.Name, e.Pid, e.Tid)
		}
		switch {
		case e.Ph == "M" && e.Name == "process_name":
			if _, ok := procs[e.Pid]; ok {
				t.Errorf("pid %d: two process_name", e.Pid)
			}
			procs[e.Pid] = name(e)
			continue
		case e.Ph == "M" && e.Name == "thread_name":
			if _, ok := threads[id{e.Pid, e.Tid}]; ok {
				t.Errorf("pid %d tid %d: two thread_name", e.Pid, e.Tid)
			}
			threads[id{e.Pid, e.Tid}] = name(e)
		case e.Ph == "B":
			slicesOf[id{e.Pid, e.Tid}] = append(slicesOf[id{e.Pid, e.Tid}], e.Name)
		}
		if p, ok := pidOf[e.Tid]; ok && p != e.Pid {
			t.Errorf("tid %d in pids %d and %d", e.Tid, p, e.Pid)
		}
		pidOf[e.Tid] = e.Pid
	}
	var out []string
	for k := range pidOf {
		th, ok := threads[id{pidOf[k], k}]
		if !ok {
			t.Errorf("pid %d tid %d: no thread_name", pidOf[k], k)
		}
		pid, tid := fmt.Sprint(pidOf[k]), fmt.Sprint(k)
		if pidOf[k] >= firstSyntheticTid {
			pid = "≈"
		}
		if k >= firstSyntheticTid {
			tid = "≈"
		}
		out = append(out, fmt.Sprintf("%s %s/%s %s: %s", procs[pidOf[k]], pid, th, tid, strings.Join(slicesOf[id{pidOf[k], k}], " ")))
	}
	slices.Sort(out)
	return out
}

// TestConvertCTFNames: the rows of a kernel trace are named by each
// thread's latest name (a prctl rename seen in sched_switch, an exec's
// program) and grouped by process (from the state dump and the fork),
// named by its main thread; the CPUs' rows are a process of their own,
// with pids and tids no thread has; the user-space trace of the same host
// in the session puts its function calls on the kernel thread's row.
func TestConvertCTFNames(t *testing.T) {
	dir := t.TempDir()
	if err := ctfgen.WriteRecords(dir, namesSpec, namesKernel); err != nil {
		t.Fatal(err)
	}
	d, _, _ := convertCTF(t, dir)
	want := []string{
		"CTF streams ≈/cpu 0 ≈: ",
		"CTF streams ≈/cpu 1 ≈: ",
		"ls 200/ls 200: write",
		"server 100/srv-io 101: read",
	}
	if got := rows(t, d); !slices.Equal(got, want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A session: the kernel trace and a user-space trace of its host.
	root := t.TempDir()
	if err := ctfgen.WriteRecords(filepath.Join(root, "kernel"), namesSpec, namesKernel); err != nil {
		t.Fatal(err)
	}
	if err := ctfgen.WriteRecords(filepath.Join(root, "ust"), namesUSTSpec, namesUST); err != nil {
		t.Fatal(err)
	}
	d, _, _ = convertCTF(t, root)
	want[3] = "server 100/srv-io 101: read 0x401000"
	if got := rows(t, d); !slices.Equal(got, want) {
		t.Errorf("session rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The user-space trace of another host: its own process and thread,
	// whose pid and tid the kernel's took (its process has no name: its
	// main thread, vtid 100, is not in the trace); process names say the
	// host, and so do the CPUs' rows (phone's has only calls: no row).
	if err := ctfgen.EditMetadata(filepath.Join(root, "ust"), `hostname = "gen"`, `hostname = "phone"`); err != nil {
		t.Fatal(err)
	}
	d, _, _ = convertCTF(t, root)
	want = []string{
		" ≈/srv-worker ≈: 0x401000",
		"CTF streams ≈/cpu 0 (gen) ≈: ",
		"CTF streams ≈/cpu 1 (gen) ≈: ",
		"ls (gen) 200/ls 200: write",
		"server (gen) 100/srv-io 101: read",
	}
	if got := rows(t, d); !slices.Equal(got, want) {
		t.Errorf("two hosts' rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
