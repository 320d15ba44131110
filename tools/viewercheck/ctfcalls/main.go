// Command ctfcalls writes two small LTTng-shaped CTF traces with calls (by
// testgen/ctfgen.WriteRecords) and, beside each, the slices a viewer must
// draw of them, as the generator scheduled them: tools/viewercheck opens
// their Chrome exports in speedscope and compares.
//
//	OUT/kernel               lttng-modules: sched_switch and syscall_entry_/exit_
//	                         on 2 CPUs, no tid context (the thread is the CPU's
//	                         last sched_switch's); threads block in a system call
//	                         and resume on the other CPU
//	OUT/ust                  liblttng-ust-cyg-profile: func_entry/func_exit
//	                         (and the _fast ones on one thread), vpid, vtid and
//	                         procname contexts, nested and recursive calls,
//	                         threads that change CPU in the middle of a call
//	OUT/NAME.slices.json     {"threads": {THREAD: [{"name", "depth", "begin_ns",
//	                         "end_ns"}]}}: THREAD is the name speedscope must
//	                         give the thread, from the export's process_name
//	                         and thread_name, its pid and tid
//	                         ("app (pid 1234), app-io (tid 1235)"), ns as
//	                         decimal strings (epoch-scale, above 2^53)
//
// Times are nanoseconds at Unix-epoch scale (1.77·10¹⁸), a few hundred ns
// apart, some equal (a call that begins where another ends). Slices last at
// least 1 ns. The traces are the same for the same STEPS.
//
// usage: go run ./tools/viewercheck/ctfcalls OUT [STEPS]
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ctfcalls:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("usage: ctfcalls OUT [STEPS]")
	}
	steps := defaultSteps
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 || n > 1_000_000 {
			return fmt.Errorf("STEPS: want a number from 1 to 1000000, not %q", args[1])
		}
		steps = n
	}
	for _, g := range []struct {
		name string
		gen  func(int) (ctfgen.Spec, []ctfgen.Record, map[string][]Slice)
	}{{"kernel", kernel}, {"ust", ust}} {
		spec, recs, want := g.gen(steps)
		if err := ctfgen.WriteRecords(filepath.Join(args[0], g.name), spec, recs); err != nil {
			return err
		}
		b, err := json.MarshalIndent(struct {
			Threads map[string][]Slice `json:"threads"`
		}{want}, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(args[0], g.name+".slices.json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// defaultSteps is STEPS when not given (what tools/viewercheck runs).
const defaultSteps = 300

// Slice is a slice a viewer must draw on a thread.
type Slice struct {
	Name  string `json:"name"`
	Depth int    `json:"depth"`
	Begin uint64 `json:"begin_ns,string"`
	End   uint64 `json:"end_ns,string"`
}

// t0 is the first time: 2026-03-28, in ns since 1970.
const t0 = uint64(1_774_658_386_068_912_347)

// clock hands out increasing times: steps of 1..997 ns, 0 one time in 8.
type clock struct {
	r *rand.Rand
	t uint64
}

func (c *clock) next() uint64 {
	if c.r.IntN(8) != 0 {
		c.t += 1 + c.r.Uint64N(997)
	}
	return c.t
}

// after returns the next time, later than t.
func (c *clock) after(t uint64) uint64 {
	n := c.next()
	if n <= t {
		c.t = t + 1
		n = c.t
	}
	return n
}

type kthread struct {
	tid, pid   int
	comm       string
	cpu        int // -1: not running
	sys        int // index of the open system call in syscalls, -1: none
	begin      uint64
	switchedIn uint64
}

var syscalls = []string{"read", "write", "futex", "openat", "close", "poll"}

// profileName is the name speedscope gives the thread tid of process pid
// (its "evented" profile, in its thread selector), as it makes it from
// the export's process_name and thread_name events.
func profileName(process string, pid int, thread string, tid int) string {
	return fmt.Sprintf("%s (pid %d), %s (tid %d)", process, pid, thread, tid)
}

// kernel: 2 CPUs, 5 threads of 4 processes (a state dump says which: 1234
// and 1235 are threads of app), 1235 renamed app-io half way (its next
// sched_switch says so: its latest name is its row's); each step, a CPU's thread enters or exits a
// system call, or the CPU switches to another thread (one blocked in a
// system call goes on with it, maybe on the other CPU).
func kernel(steps int) (ctfgen.Spec, []ctfgen.Record, map[string][]Slice) {
	spec := ctfgen.Spec{Domain: "kernel", Classes: []ctfgen.Class{ctfgen.SchedSwitch}}
	for _, n := range syscalls {
		spec.Classes = append(spec.Classes, ctfgen.SyscallEntry(n, ctfgen.Field{Name: "fd", Kind: ctfgen.S32}), ctfgen.SyscallExit(n))
	}
	dump := len(spec.Classes)
	spec.Classes = append(spec.Classes, ctfgen.Class{Name: "lttng_statedump_process_state", Fields: []ctfgen.Field{
		{Name: "tid", Kind: ctfgen.S32}, {Name: "pid", Kind: ctfgen.S32}, {Name: "name", Kind: ctfgen.Comm}}})
	r := rand.New(rand.NewPCG(1, 2))
	c := &clock{r: r, t: t0}
	ths := []*kthread{{tid: 42, pid: 42, comm: "bash"}, {tid: 7, pid: 7, comm: "kworker/0:1"}, {tid: 1234, pid: 1234, comm: "app"},
		{tid: 1235, pid: 1234, comm: "app"}, {tid: 99, pid: 99, comm: "sshd"}}
	running := [2]*kthread{}
	want := map[*kthread][]Slice{}
	var recs []ctfgen.Record
	for _, th := range ths {
		th.cpu, th.sys = -1, -1
		recs = append(recs, ctfgen.Record{CPU: 0, Class: dump, TS: c.next(), Values: []any{th.tid, th.pid, th.comm}})
	}
	// A system call on CPU 1 before its first sched_switch: its thread is
	// unknown, an instant on the CPU's row (nothing drawn).
	recs = append(recs, ctfgen.Record{CPU: 1, Class: 1, TS: c.t, Values: []any{3}})
	swtch := func(cpu int, next *kthread) {
		prev, prevTid, prevComm := running[cpu], 0, "swapper/"+strconv.Itoa(cpu)
		if prev != nil {
			prev.cpu, prevTid, prevComm = -1, prev.tid, prev.comm
		}
		ts := c.next()
		recs = append(recs, ctfgen.Record{CPU: cpu, Class: 0, TS: ts, Values: []any{prevComm, prevTid, 20, 1, next.comm, next.tid, 20}})
		next.cpu, next.switchedIn = cpu, ts
		running[cpu] = next
	}
	exit := func(th *kthread) {
		ts := c.after(max(th.begin, th.switchedIn))
		recs = append(recs, ctfgen.Record{CPU: th.cpu, Class: 2 + 2*th.sys, TS: ts, Values: []any{r.IntN(100)}})
		want[th] = append(want[th], Slice{Name: syscalls[th.sys], Begin: th.begin, End: ts})
		th.sys = -1
	}
	swtch(0, ths[0])
	swtch(1, ths[1])
	for i := range steps {
		if i == steps/2 {
			ths[3].comm = "app-io"
		}
		cpu := r.IntN(2)
		th := running[cpu]
		switch k := r.IntN(10); {
		case k < 3: // switch to a thread not running
			var idle []*kthread
			for _, o := range ths {
				if o.cpu < 0 {
					idle = append(idle, o)
				}
			}
			swtch(cpu, idle[r.IntN(len(idle))])
		case th.sys < 0:
			th.sys = r.IntN(len(syscalls))
			th.begin = c.next()
			recs = append(recs, ctfgen.Record{CPU: cpu, Class: 1 + 2*th.sys, TS: th.begin, Values: []any{r.IntN(64)}})
		default:
			exit(th)
		}
	}
	// Each open system call ends on its thread, switched in where needed.
	for _, th := range ths {
		if th.sys < 0 {
			continue
		}
		if th.cpu < 0 {
			swtch(r.IntN(2), th)
		}
		exit(th)
	}
	named := map[string][]Slice{}
	for th, s := range want {
		named[profileName(ths[slices.IndexFunc(ths, func(o *kthread) bool { return o.tid == th.pid })].comm, th.pid, th.comm, th.tid)] = s
	}
	return spec, recs, named
}

type uthread struct {
	vtid  int
	fast  bool
	stack []ucall
	cpu   int
	last  uint64 // the time of its last record
}

type ucall struct {
	addr  int64
	begin uint64
}

// ust: 3 threads of process 100 ("glxgears"; vtid 102 traced by
// liblttng-ust-cyg-profile-fast) on 2 CPUs; each step a thread, on either
// CPU, calls one of 6 functions (maybe itself again) or returns, at most 5
// deep.
func ust(steps int) (ctfgen.Spec, []ctfgen.Record, map[string][]Slice) {
	spec := ctfgen.Spec{Domain: "ust",
		Context: []ctfgen.Field{{Name: "vpid", Kind: ctfgen.S32}, {Name: "vtid", Kind: ctfgen.S32}, {Name: "procname", Kind: ctfgen.Comm}},
		Classes: []ctfgen.Class{ctfgen.FuncEntry, ctfgen.FuncExit, ctfgen.FastFuncEntry, ctfgen.FastFuncExit}}
	r := rand.New(rand.NewPCG(3, 4))
	c := &clock{r: r, t: t0 + 5_000}
	ths := []*uthread{{vtid: 100}, {vtid: 101}, {vtid: 102, fast: true}}
	addrs := []int64{0x401000, 0x4011a0, 0x402c40, 0x7f3a10e0, 0x7f3a2200, 0x403000}
	want := map[string][]Slice{}
	var recs []ctfgen.Record
	rec := func(th *uthread, entry bool, addr int64, ts uint64) {
		th.last = ts
		ctx := []any{100, th.vtid, "glxgears"}
		switch {
		case th.fast && entry:
			recs = append(recs, ctfgen.Record{CPU: th.cpu, Class: 2, TS: ts, Context: ctx, Values: []any{addr}})
		case th.fast:
			recs = append(recs, ctfgen.Record{CPU: th.cpu, Class: 3, TS: ts, Context: ctx})
		case entry:
			recs = append(recs, ctfgen.Record{CPU: th.cpu, Class: 0, TS: ts, Context: ctx, Values: []any{addr, int64(0x400500)}})
		default:
			recs = append(recs, ctfgen.Record{CPU: th.cpu, Class: 1, TS: ts, Context: ctx, Values: []any{addr, int64(0x400500)}})
		}
	}
	ret := func(th *uthread) {
		top := th.stack[len(th.stack)-1]
		th.stack = th.stack[:len(th.stack)-1]
		ts := c.after(top.begin)
		rec(th, false, top.addr, ts)
		name := profileName("glxgears", 100, "glxgears", th.vtid)
		want[name] = append(want[name], Slice{Name: "0x" + strconv.FormatInt(top.addr, 16), Depth: len(th.stack), Begin: top.begin, End: ts})
	}
	for range steps {
		th := ths[r.IntN(len(ths))]
		if r.IntN(4) == 0 {
			// The thread runs on the other CPU from now, later than its
			// last record (at an equal time the CPUs' streams would go
			// by stream id, not by the thread's order).
			th.cpu = 1 - th.cpu
			c.after(th.last)
		}
		if n := len(th.stack); n == 0 || n < 5 && r.IntN(2) == 0 {
			a := addrs[r.IntN(len(addrs))]
			ts := c.next()
			rec(th, true, a, ts)
			th.stack = append(th.stack, ucall{a, ts})
		} else {
			ret(th)
		}
	}
	for _, th := range ths {
		for len(th.stack) > 0 {
			ret(th)
		}
	}
	return spec, recs, want
}
