package events

import "bytes"

// Thread is what a Reader of a CTF trace opened WithCTFCallSlices knows of
// the OS thread of a TrackThread track (Track.Thread): its ids, its latest
// name and its process. LTTng names threads in its kernel events —
// lttng_statedump_process_state (tid, pid, name), sched_switch (prev_comm,
// next_comm), sched_process_fork (parent's and child's comm, tid and pid),
// sched_process_exec (the new program's file name, whose base name the
// kernel makes the thread's name), sched_process_free — and in the
// procname, tid, pid, vtid and vpid contexts of its events; each of them
// updates the thread it names, so that the name is the latest one read,
// as babeltrace2's and Trace Compass's thread views show it.
//
// The Reader updates a Thread as it reads: Name, PID and ProcessName say
// what is known up to the current event, and after the last one the latest
// of the whole trace. A Thread stays valid after Close.
//
// Threads are keyed by host (the hostname environment entry of their
// trace) and tid: in a session of several traces (a session folder), the
// threads of two hosts are apart, and the user-space threads of a host
// that has a kernel trace in the session are its kernel threads (LTTng's
// vtid and vpid are the tid and pid outside PID namespaces); those of a
// host without kernel trace are keyed by vpid and vtid (UST is true). At
// most 65 536 threads are known per Reader: past that, a thread met for
// the first time is neither named nor given a track (its system and
// function calls stay instants on their CPU's track).
type Thread struct {
	// TID is the thread's id: its tid, or its vtid when UST.
	TID int64
	// PID is its process's id (the tgid; the vpid when UST), -1 while
	// unknown.
	PID int64
	// Host is its trace's hostname environment entry ("" when it has
	// none).
	Host string
	// UST is true for a user-space thread of a host without kernel trace
	// in the Reader: TID and PID are LTTng's vtid and vpid.
	UST bool

	key   ctfThreadKey
	comm  [ctfMaxComm]byte
	ncomm uint8
	track *Track
	tab   *ctfCalls
}

// ctfMaxComm bounds a thread's name (LTTng's comm and procname have 16
// bytes).
const ctfMaxComm = 32

// Name is the thread's latest name ("" while none is known).
func (t *Thread) Name() string { return string(t.comm[:t.ncomm]) }

// ProcessName is the latest name of the thread whose tid is the thread's
// PID (the process's main thread, whose name is the process's as ps and
// babeltrace2 show it), "" when either is unknown.
func (t *Thread) ProcessName() string {
	if t.PID < 0 {
		return ""
	}
	k := t.key
	k.tid = uint32(t.PID)
	if p := t.tab.threads[k]; p != nil {
		return p.Name()
	}
	return ""
}

// ctfThreadKey identifies a thread of the table: its host (an index in
// ctfCalls.hostNames), its tid; or, ust, its vpid and vtid.
type ctfThreadKey struct {
	host uint32
	ust  bool
	pid  uint32
	tid  uint32
}

// lookup returns the thread of key k: through slot, else the table; a new
// one when add and the table has fewer than maxPairTracks threads, else
// nil.
func (c *ctfCalls) lookup(k ctfThreadKey, add bool) *Thread {
	slot := &c.slot[(k.tid^k.pid*0x9e3779b1^k.host*0x85ebca6b)%ctfSlots]
	if t := *slot; t != nil && t.key == k {
		return t
	}
	t, ok := c.threads[k]
	if !ok {
		if !add || len(c.threads) >= maxPairTracks {
			return nil
		}
		t = &Thread{TID: int64(k.tid), PID: -1, Host: c.hostNames[k.host], UST: k.ust, key: k, tab: c}
		if k.ust && k.pid != 0 {
			t.PID = int64(k.pid)
		}
		c.threads[k] = t
	}
	*slot = t
	return t
}

// setComm makes name the thread's name, when not empty (at most
// ctfMaxComm bytes; an LTTng comm ends at its first NUL).
func (t *Thread) setComm(name []byte) {
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	if len(name) == 0 {
		return
	}
	n := copy(t.comm[:], name)
	t.ncomm = uint8(n)
}
