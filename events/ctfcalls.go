package events

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/ctf2meta"
)

// Call slices of CTF traces (WithCTFCallSlices): LTTng's function and system
// call entries and exits become begins and ends on the track of their
// thread.

// ctfCallRole is what an event record class is to WithCTFCallSlices.
type ctfCallRole uint8

const (
	ctfCallNone     ctfCallRole = iota
	ctfCallFunEntry             // lttng_ust_cyg_profile[_fast]:func_entry
	ctfCallFunExit              // lttng_ust_cyg_profile[_fast]:func_exit
	ctfCallSysEntry             // syscall_entry_NAME, sys_NAME
	ctfCallSysExit              // syscall_exit_NAME, exit_syscall
	ctfCallSwitch               // sched_switch
	// the thread table's sources of names and processes alone (their
	// events stay instants)
	ctfCallStatedump // lttng_statedump_process_state
	ctfCallFork      // sched_process_fork
	ctfCallExec      // sched_process_exec
	ctfCallFree      // sched_process_free
)

// ctfCall is what WithCTFCallSlices needs of an event record class, found
// in its plan (ctfSource.callPlan): its role, the name of its slice (a
// system call's), the top-level fields it reads and the thread table's
// host and namespace of its trace.
type ctfCall struct {
	role ctfCallRole
	name string // the system call's name ("" for an exit_syscall)
	// tid is the thread: the vtid context of a function entry or exit,
	// the tid context of a system call (nil: none, the CPU's current
	// thread), sched_switch's next_tid, sched_process_fork's child_tid,
	// the tid of a state dump, exec or free; pid its process: the vpid
	// context of a function's, the pid context of a system call's, the
	// child_pid of a fork, the pid of a state dump; comm its name: the
	// procname context, sched_switch's next_comm, the child_comm of a
	// fork, the name of a state dump, the comm of a free, the filename of
	// an exec (its base name is the new comm); tid2, pid2 and comm2 a
	// second thread: sched_switch's prev_tid and prev_comm, the parent of
	// a fork; addr the function's address
	tid, pid, comm, tid2, pid2, comm2, addr *ctfTop
	// host is the thread table's host of the class's trace (ctfCalls.hosts),
	// ust whether its threads are user space ones keyed by vpid and vtid
	// (a user-space trace of a host without kernel trace)
	host uint32
	ust  bool
}

// ctfCalls is the state of WithCTFCallSlices.
type ctfCalls struct {
	// threads is the thread table (at most maxPairTracks threads): every
	// thread met in a sched_switch, fork, state dump, exec or call, with
	// its latest name and its process; slot caches it by key
	// (direct-mapped)
	threads map[ctfThreadKey]*Thread
	slot    [ctfSlots]*Thread
	// cur holds by CPU track (an index in ctfSource.tracks: a host's
	// own) the thread running there since its last sched_switch, nil
	// while unknown
	cur []*Thread
	// hostNames are the hosts (the traces' hostname environment entries)
	// by index; hostOf the index of each trace's host; kernel whether a
	// host has a kernel trace (its user-space threads are then its kernel
	// threads: same tid and pid); classHost the trace of each class when
	// there are several traces
	hostNames []string
	hostOf    []uint32
	kernel    []bool
	classHost map[*ctf2meta.EventRecordClass]int
	// ustIDs counts the user-space thread tracks of hosts after the first
	// not keyed by a kernel trace: their IDs
	ustIDs uint64
	// oldSys holds the sys_NAME and compat_sys_NAME classes of traces
	// that have an exit_syscall class (LTTng before 2.7)
	oldSys map[*ctf2meta.EventRecordClass]bool
	// names interns the function names ("0x" and the address in hex), at
	// most maxNames
	names    map[uint64]string
	maxNames int
	text     []byte
}

// ctfUSTTrack marks the ID of a user-space thread's track (a vtid, beside
// its vpid): above every kernel tid, which is an ID on its own.
const ctfUSTTrack = 1 << 63

func newCTFCalls(traces []*ctf.Trace, tracks, maxNames int) *ctfCalls {
	c := &ctfCalls{threads: map[ctfThreadKey]*Thread{}, cur: make([]*Thread, tracks),
		oldSys: map[*ctf2meta.EventRecordClass]bool{}, names: map[uint64]string{}, maxNames: maxNames}
	c.hostNames, c.hostOf, c.kernel = ctfHosts(traces)
	for i, tr := range traces {
		if len(traces) > 1 && tr.Meta != nil {
			if c.classHost == nil {
				c.classHost = map[*ctf2meta.EventRecordClass]int{}
			}
			for _, erc := range tr.Meta.EventRecordClasses {
				c.classHost[erc] = i
			}
		}
	}
	for _, tr := range traces {
		if tr.Meta == nil {
			continue
		}
		old := false
		for _, erc := range tr.Meta.EventRecordClasses {
			old = old || erc.Name == "exit_syscall"
		}
		if !old {
			continue
		}
		for _, erc := range tr.Meta.EventRecordClasses {
			if n, ok := ctfOldSyscall(erc.Name); ok && n != "" {
				c.oldSys[erc] = true
			}
		}
	}
	return c
}

// ctfHosts returns the hosts of traces (their environments' hostname
// entries; "" when none) by index in order of appearance, the index of
// each trace's, and whether each host has a kernel trace (domain
// "kernel").
func ctfHosts(traces []*ctf.Trace) (names []string, of []uint32, kernel []bool) {
	index := map[string]uint32{}
	for _, tr := range traces {
		var host, domain string
		if tr.Meta != nil && tr.Meta.TraceClass != nil {
			host, _ = tr.Meta.TraceClass.Environment["hostname"].(string)
			domain, _ = tr.Meta.TraceClass.Environment["domain"].(string)
		}
		h, ok := index[host]
		if !ok {
			h = uint32(len(names))
			index[host] = h
			names = append(names, host)
			kernel = append(kernel, false)
		}
		of = append(of, h)
		kernel[h] = kernel[h] || domain == "kernel"
	}
	return names, of, kernel
}

// ctfOldSyscall returns the system call of an LTTng < 2.7 entry class name
// (sys_NAME, compat_sys_NAME).
func ctfOldSyscall(name string) (string, bool) {
	if n, ok := strings.CutPrefix(name, "compat_sys_"); ok {
		return n, true
	}
	return strings.CutPrefix(name, "sys_")
}

// callPlan finds the role of event record class c, whose plan is p.
func (s *ctfSource) callPlan(p *ctfPlan, c *ctf.EventClass) {
	var k ctfCall
	name := c.Name
	switch {
	case name == "lttng_ust_cyg_profile:func_entry", name == "lttng_ust_cyg_profile_fast:func_entry":
		k.role, k.addr = ctfCallFunEntry, p.top(2, "addr", true)
	case name == "lttng_ust_cyg_profile:func_exit", name == "lttng_ust_cyg_profile_fast:func_exit":
		k.role, k.addr = ctfCallFunExit, p.top(2, "addr", true)
	case name == "sched_switch":
		k.role, k.tid, k.comm = ctfCallSwitch, p.top(2, "next_tid", true), p.top(2, "next_comm", false)
		k.tid2, k.comm2 = p.top(2, "prev_tid", true), p.top(2, "prev_comm", false)
		if k.tid == nil {
			return
		}
	case name == "lttng_statedump_process_state":
		k.role, k.tid, k.pid, k.comm = ctfCallStatedump, p.top(2, "tid", true), p.top(2, "pid", true), p.top(2, "name", false)
	case name == "sched_process_fork":
		k.role, k.tid, k.pid, k.comm = ctfCallFork, p.top(2, "child_tid", true), p.top(2, "child_pid", true), p.top(2, "child_comm", false)
		k.tid2, k.pid2, k.comm2 = p.top(2, "parent_tid", true), p.top(2, "parent_pid", true), p.top(2, "parent_comm", false)
	case name == "sched_process_exec":
		k.role, k.tid, k.comm = ctfCallExec, p.top(2, "tid", true), p.top(2, "filename", false)
	case name == "sched_process_free":
		k.role, k.tid, k.comm = ctfCallFree, p.top(2, "tid", true), p.top(2, "comm", false)
	case name == "exit_syscall":
		k.role = ctfCallSysExit
	case strings.HasPrefix(name, "syscall_entry_"), strings.HasPrefix(name, "compat_syscall_entry_"):
		_, k.name, _ = strings.Cut(name, "syscall_entry_")
		k.role = ctfCallSysEntry
	case strings.HasPrefix(name, "syscall_exit_"), strings.HasPrefix(name, "compat_syscall_exit_"):
		_, k.name, _ = strings.Cut(name, "syscall_exit_")
		k.role = ctfCallSysExit
	case s.calls.oldSys[c.Model]:
		k.name, _ = ctfOldSyscall(name)
		k.role = ctfCallSysEntry
	default:
		return
	}
	if k.role >= ctfCallStatedump && k.tid == nil {
		return
	}
	if cs := s.calls; cs.classHost != nil {
		k.host = cs.hostOf[cs.classHost[c.Model]]
	}
	switch k.role {
	case ctfCallFunEntry, ctfCallFunExit:
		k.tid, k.pid = p.contextTop("vtid"), p.contextTop("vpid")
		if k.tid == nil || k.role == ctfCallFunEntry && k.addr == nil {
			return // no thread, or no name: left an instant
		}
		k.comm = p.contextTop("procname")
		k.ust = !s.calls.kernel[k.host]
	case ctfCallSysEntry, ctfCallSysExit:
		k.tid, k.pid, k.comm = p.contextTop("tid"), p.contextTop("pid"), p.contextTop("procname")
		if k.name == "" {
			k.name = name // exit_syscall: the slice it closes is not named
		}
	}
	p.call = k
}

// top returns the top-level field called name of scope k (0: common
// context, 1: specific context, 2: payload) that is an argument, an
// integer when integer, else nil.
func (p *ctfPlan) top(k int, name string, integer bool) *ctfTop {
	for q := range p.tops[k] {
		t := &p.tops[k][q]
		if t.hidden || t.fc.Name != name {
			continue
		}
		switch t.fc.Kind {
		case ctf.KindSint, ctf.KindVarSint, ctf.KindUint, ctf.KindVarUint:
			return t
		}
		if !integer {
			return t
		}
		return nil
	}
	return nil
}

// contextTop is the integer or string context field called name: of the
// common context, else of the specific context.
func (p *ctfPlan) contextTop(name string) *ctfTop {
	if t := p.top(0, name, false); t != nil {
		return t
	}
	return p.top(1, name, false)
}

// argUint returns the value of the current event's argument of top-level
// field t, an integer: ok is false when the event has none (its scope is
// absent) or it is negative.
func (s *ctfSource) argUint(t *ctfTop) (uint64, bool) {
	if t == nil {
		return 0, false
	}
	for _, a := range s.args {
		if a.t != t || a.label {
			continue
		}
		f := &s.ev.Fields[a.j+s.roots[a.scope]]
		switch t.fc.Kind {
		case ctf.KindSint, ctf.KindVarSint:
			return f.V, f.Int() >= 0
		case ctf.KindUint, ctf.KindVarUint:
			return f.V, true
		}
		return 0, false
	}
	return 0, false
}

// argText returns the current event's argument of top-level field t as
// text ("" when it has none or it is not a string).
func (s *ctfSource) argText(t *ctfTop) []byte {
	if t == nil {
		return nil
	}
	for i, a := range s.args {
		if a.t == t && !a.label {
			if _, v := s.arg(i); v.Kind() == ValueString {
				return v.Bytes()
			}
			return nil
		}
	}
	return nil
}

// call makes the current event, of call role k, on CPU track cpu, a begin
// or an end on its thread's track when its thread is known; a sched_switch
// notes the CPU's thread; every role notes what its event says of threads'
// names and processes in the thread table.
func (s *ctfSource) call(e *Event, k *ctfCall, cpu int) {
	c := s.calls
	switch k.role {
	case ctfCallSwitch:
		if tid, ok := s.argUint(k.tid2); ok && tid < 1<<32 {
			if th := c.lookup(ctfThreadKey{host: k.host, tid: uint32(tid)}, false); th != nil {
				th.setComm(s.argText(k.comm2))
			}
		}
		var th *Thread
		if tid, ok := s.argUint(k.tid); ok && tid < 1<<32 {
			if th = c.lookup(ctfThreadKey{host: k.host, tid: uint32(tid)}, true); th != nil {
				th.setComm(s.argText(k.comm))
			}
		}
		c.cur[cpu] = th
		return
	case ctfCallStatedump, ctfCallFork, ctfCallExec, ctfCallFree:
		s.noteThread(k, k.tid, k.pid, k.comm)
		if k.role == ctfCallFork {
			s.noteThread(k, k.tid2, k.pid2, k.comm2)
		}
		return
	case ctfCallSysEntry, ctfCallSysExit:
		var th *Thread
		if tid, ok := s.argUint(k.tid); ok {
			if tid < 1<<32 {
				if th = c.lookup(ctfThreadKey{host: k.host, tid: uint32(tid)}, true); th != nil {
					th.setComm(s.argText(k.comm))
					if pid, ok := s.argUint(k.pid); ok && pid < 1<<32 {
						th.PID = int64(pid)
					}
				}
			}
		} else if k.tid == nil {
			th = c.cur[cpu]
		}
		t := c.track(th)
		if t == nil {
			return
		}
		e.track, e.name, e.kind = t, k.name, KindBegin
		if k.role == ctfCallSysExit {
			e.kind = KindEnd
		}
	case ctfCallFunEntry, ctfCallFunExit:
		vtid, ok := s.argUint(k.tid)
		if !ok || vtid >= 1<<31 {
			return
		}
		key := ctfThreadKey{host: k.host, ust: k.ust, tid: uint32(vtid)}
		vpid, hasPID := uint64(0), false
		if k.pid != nil {
			vpid, ok = s.argUint(k.pid)
			if !ok || vpid >= 1<<31 {
				return
			}
			hasPID = true
			if k.ust {
				key.pid = uint32(vpid)
			}
		}
		th := c.lookup(key, true)
		if th == nil {
			return
		}
		if hasPID {
			th.PID = int64(vpid)
		}
		th.setComm(s.argText(k.comm))
		t := c.track(th)
		addr, ok := s.argUint(k.addr)
		if k.role == ctfCallFunEntry {
			if !ok {
				return
			}
			e.kind, e.name = KindBegin, c.funcName(addr)
		} else {
			e.kind = KindEnd
			if ok {
				e.name = c.funcName(addr)
			}
		}
		e.track = t
	}
}

// noteThread notes in the thread table the kernel thread of field tid of
// the current event (of role k), its process (field pid) and its name
// (field comm; an exec's file name, whose base name is the new name): a
// free names a thread the table holds, the other roles add it.
func (s *ctfSource) noteThread(k *ctfCall, tidF, pidF, commF *ctfTop) {
	tid, ok := s.argUint(tidF)
	if !ok || tid >= 1<<32 {
		return
	}
	th := s.calls.lookup(ctfThreadKey{host: k.host, tid: uint32(tid)}, k.role != ctfCallFree)
	if th == nil {
		return
	}
	if pid, ok := s.argUint(pidF); ok && pid < 1<<32 {
		th.PID = int64(pid)
	}
	comm := s.argText(commF)
	if k.role == ctfCallExec {
		if i := bytes.LastIndexByte(comm, '/'); i >= 0 {
			comm = comm[i+1:]
		}
		comm = comm[:min(len(comm), ctfExecComm)]
	}
	th.setComm(comm)
}

// ctfExecComm is how much of an executable's file name Linux keeps as the
// thread's name (TASK_COMM_LEN − 1).
const ctfExecComm = 15

// track returns the track of thread th (nil: none), made at its first
// call: named by "tid" and its tid, or "vtid" and its vtid and vpid when
// it is a user-space thread of a host without kernel trace, and its
// name then; its ID is its tid (the host's index × 2³² added after the
// first host), ctfUSTTrack, vpid × 2³¹ and vtid for a user-space thread
// of the first host, ctfUSTTrack, 2⁶² and a count for one of another.
func (c *ctfCalls) track(th *Thread) *Track {
	if th == nil || th.track != nil {
		if th == nil {
			return nil
		}
		return th.track
	}
	return c.newTrack(th)
}

// newTrack makes thread th's track (track, which is inlined, does the
// rest).
func (c *ctfCalls) newTrack(th *Thread) *Track {
	k := th.key
	var id uint64
	b := c.text[:0]
	switch {
	case !k.ust:
		id = uint64(k.host)<<32 | uint64(k.tid)
		b = append(b, "tid "...)
		b = strconv.AppendUint(b, uint64(k.tid), 10)
	default:
		if k.host == 0 {
			id = ctfUSTTrack | uint64(k.pid)<<31 | uint64(k.tid)
		} else {
			c.ustIDs++
			id = ctfUSTTrack | 1<<62 | c.ustIDs
		}
		b = append(b, "vtid "...)
		b = strconv.AppendUint(b, uint64(k.tid), 10)
		if th.PID >= 0 {
			b = append(b, ", vpid "...)
			b = strconv.AppendInt(b, th.PID, 10)
		}
	}
	if th.ncomm > 0 {
		b = append(b, " ("...)
		b = append(b, th.comm[:th.ncomm]...)
		b = append(b, ')')
	}
	c.text = b
	th.track = &Track{Kind: TrackThread, ID: id, Name: string(b), Thread: th}
	return th.track
}

// funcName is the name of the function at addr: "0x" and its address in
// hexadecimal, interned up to maxNames.
func (c *ctfCalls) funcName(addr uint64) string {
	if n, ok := c.names[addr]; ok {
		return n
	}
	c.text = strconv.AppendUint(append(c.text[:0], "0x"...), addr, 16)
	n := string(c.text)
	if len(c.names) < c.maxNames {
		c.names[addr] = n
	}
	return n
}
