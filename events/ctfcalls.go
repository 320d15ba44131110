package events

import (
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
)

// ctfCall is what WithCTFCallSlices needs of an event record class, found
// in its plan (ctfSource.callPlan): its role, the name of its slice (a
// system call's), and the top-level fields it reads.
type ctfCall struct {
	role ctfCallRole
	name string // the system call's name ("" for an exit_syscall)
	// tid is the thread: the vtid context of a function entry or exit,
	// the tid context of a system call (nil: none, the CPU's current
	// thread), sched_switch's next_tid; pid the vpid context of a
	// function's; comm the procname context, sched_switch's next_comm;
	// addr the function's address
	tid, pid, comm, addr *ctfTop
}

// ctfCalls is the state of WithCTFCallSlices.
type ctfCalls struct {
	// threads are the thread tracks by ID (at most maxPairTracks)
	threads map[uint64]*Track
	// cur holds by CPU track (an index in ctfSource.tracks) the track of
	// the thread running there since its last sched_switch, nil while
	// unknown
	cur []*Track
	// slot caches threads by ID (direct-mapped)
	slot [ctfSlots]*Track
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
	c := &ctfCalls{threads: map[uint64]*Track{}, cur: make([]*Track, tracks),
		oldSys: map[*ctf2meta.EventRecordClass]bool{}, names: map[uint64]string{}, maxNames: maxNames}
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
		if k.tid == nil {
			return
		}
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
	switch k.role {
	case ctfCallFunEntry, ctfCallFunExit:
		k.tid, k.pid = p.contextTop("vtid"), p.contextTop("vpid")
		if k.tid == nil || k.role == ctfCallFunEntry && k.addr == nil {
			return // no thread, or no name: left an instant
		}
		k.comm = p.contextTop("procname")
	case ctfCallSysEntry, ctfCallSysExit:
		k.tid, k.comm = p.contextTop("tid"), p.contextTop("procname")
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

// ctfMaxThreadName bounds the process name in a thread track's name.
const ctfMaxThreadName = 64

// call makes the current event, of call role k, on CPU track cpu, a begin
// or an end on its thread's track when its thread is known; a sched_switch
// notes the CPU's thread.
func (s *ctfSource) call(e *Event, k *ctfCall, cpu int) {
	c := s.calls
	switch k.role {
	case ctfCallSwitch:
		c.cur[cpu] = nil
		if tid, ok := s.argUint(k.tid); ok && tid < 1<<32 {
			c.cur[cpu] = c.thread(s, tid, "tid ", k.comm)
		}
		return
	case ctfCallSysEntry, ctfCallSysExit:
		var t *Track
		if tid, ok := s.argUint(k.tid); ok {
			if tid < 1<<32 {
				t = c.thread(s, tid, "tid ", k.comm)
			}
		} else if k.tid == nil {
			t = c.cur[cpu]
		}
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
		id := ctfUSTTrack | vtid
		if k.pid != nil {
			vpid, ok := s.argUint(k.pid)
			if !ok || vpid >= 1<<31 {
				return
			}
			id |= vpid << 31
		}
		t := c.thread(s, id, "vtid ", k.comm)
		if t == nil {
			return
		}
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

// thread returns the track of thread id (a kernel tid, or ctfUSTTrack,
// vpid and vtid), made at its first event, named by prefix, its tid (vtid,
// vpid) and the process name the current event's field comm holds; nil
// once maxPairTracks tracks are made.
func (c *ctfCalls) thread(s *ctfSource, id uint64, prefix string, comm *ctfTop) *Track {
	slot := &c.slot[(id^id>>31)%ctfSlots]
	if t := *slot; t != nil && t.ID == id {
		return t
	}
	if t, ok := c.threads[id]; ok {
		*slot = t
		return t
	}
	if len(c.threads) >= maxPairTracks {
		return nil
	}
	b := append(c.text[:0], prefix...)
	if id&ctfUSTTrack != 0 {
		b = strconv.AppendUint(b, id&(1<<31-1), 10)
		if pid := id >> 31 & (1<<31 - 1); pid != 0 {
			b = append(b, ", vpid "...)
			b = strconv.AppendUint(b, pid, 10)
		}
	} else {
		b = strconv.AppendUint(b, id, 10)
	}
	if n := s.argText(comm); len(n) > 0 {
		b = append(b, " ("...)
		b = append(b, n[:min(len(n), ctfMaxThreadName)]...)
		b = append(b, ')')
	}
	c.text = b
	t := &Track{Kind: TrackThread, ID: id, Name: string(b)}
	c.threads[id] = t
	*slot = t
	return t
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
