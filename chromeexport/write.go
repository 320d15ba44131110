package chromeexport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/cdt/schema7"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// maxSafeInt is the largest integer a float64 (a JSON number in JavaScript)
// holds exactly, 2⁵³−1.
const maxSafeInt = 1<<53 - 1

// maxTid is the largest pid or tid written as it is: Perfetto and
// chrome://tracing read pids and tids as 32-bit signed integers.
const maxTid = 1<<31 - 1

// firstSyntheticTid is where tids (and pids) of tracks whose id cannot be
// the tid start: above Linux's largest pid (2²²), below maxTid.
const firstSyntheticTid = 1 << 30

// Result says what Write wrote.
type Result struct {
	// Events is the number of trace events written (metadata included).
	Events int64
	// Threads is the number of threads (tracks) written.
	Threads int
	// TimeBase is the time in ns that ts 0 stands for, when HasTimeBase
	// (no event of the trace had a time, and WithTimeBase was not given,
	// otherwise).
	TimeBase    int64
	HasTimeBase bool
	// Slices counts the slice events written ("B" and "X": what
	// speedscope, which reads only slices, draws), Instants the instant
	// events ("i": Perfetto UI and chrome://tracing draw them, speedscope
	// does not).
	Slices, Instants int64
}

// Convert opens the trace at path (events.Open, with events.WithScopeData so
// that WTF scope data reaches the slices, and events.WithCTFCallSlices so
// that LTTng's function and system calls are slices on their threads'
// tracks) and writes it with Write.
func Convert(ctx context.Context, w io.Writer, path string, opts ...Option) (Result, error) {
	r, err := events.Open(path, events.WithScopeData(), events.WithCTFCallSlices())
	if err != nil {
		return Result{}, err
	}
	defer r.Close()
	return Write(ctx, w, r, opts...)
}

// Write reads r to its end and writes its events to w as one Chrome
// trace-event JSON document (see the package doc). Open r with
// events.WithScopeData for WTF scope data on the slices, and without
// events.WithPairing (complete events are written as arguments-less X events
// with their arguments on an instant). It stops with ctx's cause when ctx is
// cancelled (checked every 65 536 events), with r's error when reading fails
// (what was written until then is not a complete document), and with an
// option's error wrapping ErrOption before writing anything.
func Write(ctx context.Context, w io.Writer, r *events.Reader, opts ...Option) (Result, error) {
	o, err := newOptions(opts)
	if err != nil {
		return Result{}, err
	}
	x := &writer{
		w:       bufio.NewWriterSize(w, 256<<10),
		o:       o,
		pid:     1,
		cat:     r.Format(),
		base:    o.base,
		hasBase: o.hasBase,
		threads: map[trackKey]*thread{},
		tids:    map[uint64]struct{}{},
		nextTid: firstSyntheticTid,
		procs:   map[procKey]*process{},
		pids:    map[uint64]struct{}{},
		nextPid: firstSyntheticTid,
		ranges:  map[uint64]string{},
	}
	if s, ok := r.Underlying().(*atf.Session); ok {
		if p, ok := strings.CutPrefix(filepath.Base(s.Dir), "pid_"); ok {
			if n, err := strconv.ParseUint(p, 10, 32); err == nil {
				x.pid = n
			}
		}
	}
	if _, err := x.w.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`); err != nil {
		return Result{}, err
	}
	done := ctx.Done()
	for i := 0; r.Next(); i++ {
		if i&0xffff == 0 && done != nil {
			select {
			case <-done:
				return x.result(), context.Cause(ctx)
			default:
			}
		}
		if err := x.event(r.Event()); err != nil {
			return x.result(), err
		}
	}
	if err := r.Err(); err != nil {
		return x.result(), err
	}
	if !x.hasBase && x.seenTime {
		if err := x.decideBase(x.firstTime); err != nil {
			return x.result(), err
		}
	}
	if err := x.names(); err != nil {
		return x.result(), err
	}
	for _, t := range x.order {
		for len(t.open) > 0 {
			x.extra = append(x.extra[:0], `"closed_at_end":true`...)
			if err := x.close(t, t.last, nil); err != nil {
				return x.result(), err
			}
		}
	}
	if err := x.trailer(r); err != nil {
		return x.result(), err
	}
	return x.result(), x.w.Flush()
}

type trackKey struct {
	kind events.TrackKind
	id   uint64
}

// slice is an open slice of a thread.
type slice struct {
	name string
	ts   int64 // ns, absolute
	// args holds the begin's arguments as JSON object members without the
	// braces; keys locates each member in it.
	args    []byte
	keys    []member
	written bool // its B event is written; those not written are the top of the stack
	tick    bool // a CDT tick slice
}

type member struct{ start, keyEnd, end int }

type thread struct {
	tid, pid uint64
	// os is, for an OS thread track of a CTF trace, what the Reader
	// knows of the thread (its names are written at the end)
	os       *events.Thread
	track    string // the track's name
	kind     events.TrackKind
	id       uint64
	open     []slice
	overflow int   // begins beyond the depth limit whose end is still to come
	last     int64 // the latest time seen on the thread (ns, absolute)
	hasLast  bool
}

// openIndex is the position of the innermost open slice called name, or -1
// when none is (or name is empty: the end does not say what it closes).
func (t *thread) openIndex(name string) int {
	if name == "" {
		return -1
	}
	for i := len(t.open) - 1; i >= 0; i-- {
		if t.open[i].name == name {
			return i
		}
	}
	return -1
}

type writer struct {
	w        *bufio.Writer
	o        options
	pid      uint64
	cat      string
	base     int64
	hasBase  bool
	threads  map[trackKey]*thread
	order    []*thread
	tids     map[uint64]struct{}
	nextTid  uint64
	procs    map[procKey]*process // the processes of OS threads (CTF)
	porder   []*process
	pids     map[uint64]struct{}
	nextPid  uint64
	streams  *process          // CTF: the process of the streams' tracks
	ranges   map[uint64]string // open WTF time ranges by id
	open     int               // open slices of all threads
	slices   int64             // B and X events written (Result.Slices)
	instants int64             // i events written (Result.Instants)
	n        int64             // events written
	b        []byte            // the event being written
	args     []byte            // a slice's merged arguments
	extra    []byte            // members the closing adds (closed_at_end, WTF scope data)
	scratch  []byte
	rec      schema7.TickRecord

	timed     bool  // x.b is an event started by head, at x.ts
	ts        int64 // ns, absolute
	seenTime  bool  // an event with a time was read: firstTime
	firstTime int64
	held      []heldEvent // events waiting for the time base
	heldBytes []byte
}

// heldEvent is an event written before the time base was decided: its JSON
// (without "ts" and the closing brace) ends at end in writer.heldBytes.
type heldEvent struct {
	end int
	ts  int64
}

// The events held while the time base is decided: at most this many, and
// this many bytes of them.
const (
	maxHeldEvents = 1 << 16
	maxHeldBytes  = 16 << 20
)

func (x *writer) result() Result {
	return Result{Events: x.n, Threads: len(x.order), TimeBase: x.base, HasTimeBase: x.hasBase, Slices: x.slices, Instants: x.instants}
}

// emit writes x.b as the next trace event. An event started by head gets its
// "ts" last (x.b ends with the object's closing brace, which emit moves after
// it); while the time base is still to be decided it waits in x.held.
func (x *writer) emit() error {
	if !x.timed {
		return x.write(x.b)
	}
	x.timed = false
	body := x.b[:len(x.b)-1]
	if !x.hasBase && x.seenTime {
		x.heldBytes = append(x.heldBytes, body...)
		x.held = append(x.held, heldEvent{len(x.heldBytes), x.ts})
		if len(x.held) >= maxHeldEvents || len(x.heldBytes) >= maxHeldBytes {
			return x.decideBase(x.firstTime)
		}
		return nil
	}
	x.b = x.appendTS(body, x.ts)
	return x.write(x.b)
}

func (x *writer) appendTS(b []byte, ts int64) []byte {
	b = append(b, `,"ts":`...)
	b = appendMicros(b, x.rel(ts))
	return append(b, '}')
}

func (x *writer) write(b []byte) error {
	if x.n > 0 {
		x.w.WriteByte(',')
	}
	x.n++
	x.w.WriteByte('\n')
	_, err := x.w.Write(b)
	return err
}

// decideBase sets the time base and writes the events that waited for it.
func (x *writer) decideBase(base int64) error {
	x.base, x.hasBase = base, true
	start := 0
	for _, h := range x.held {
		x.scratch = x.appendTS(append(x.scratch[:0], x.heldBytes[start:h.end]...), h.ts)
		start = h.end
		if err := x.write(x.scratch); err != nil {
			return err
		}
	}
	x.held, x.heldBytes = x.held[:0], x.heldBytes[:0]
	return nil
}

// procKey identifies a process of OS threads: its host, whether it is a
// user-space one of LTTng (vpid) and its pid.
type procKey struct {
	host string
	ust  bool
	pid  int64
}

// process is a Chrome process: its pid, and a thread of it whose
// process name names it (nil: the CTF streams).
type process struct {
	key procKey
	pid uint64
	rep *events.Thread
}

// freeID returns id when it is at most maxTid and not in taken, else the
// first number from *next that is not; it takes it.
func freeID(id uint64, taken map[uint64]struct{}, next *uint64) uint64 {
	if _, ok := taken[id]; ok || id > maxTid {
		for {
			id = *next
			*next++
			if _, ok := taken[id]; !ok {
				break
			}
		}
	}
	taken[id] = struct{}{}
	return id
}

// proc returns the process of OS thread th: the one of its pid (its tid
// while its pid is unknown: a process of its own, as a main thread's).
func (x *writer) proc(th *events.Thread) *process {
	k := procKey{th.Host, th.UST, th.PID}
	if k.pid < 0 {
		k.pid = th.TID
	}
	if p, ok := x.procs[k]; ok {
		return p
	}
	p := &process{key: k, pid: freeID(uint64(k.pid), x.pids, &x.nextPid), rep: th}
	x.procs[k] = p
	x.porder = append(x.porder, p)
	return p
}

// thread returns tr's thread, writing its thread_name event on first sight
// (at the end for an OS thread, whose name can change until then).
func (x *writer) thread(tr events.Track) (*thread, error) {
	k := trackKey{tr.Kind, tr.ID}
	if t, ok := x.threads[k]; ok {
		return t, nil
	}
	t := &thread{pid: x.pid, os: tr.Thread, track: tr.Name, kind: tr.Kind, id: tr.ID}
	switch {
	case tr.Thread != nil:
		p := x.proc(tr.Thread)
		t.pid, t.tid = p.pid, freeID(uint64(tr.Thread.TID), x.tids, &x.nextTid)
	case x.cat == events.FormatCTF:
		// CPUs' and streams' tracks: a process of their own, tids that
		// no thread has.
		if x.streams == nil {
			x.streams = &process{pid: freeID(firstSyntheticTid, x.pids, &x.nextPid)}
			x.porder = append(x.porder, x.streams)
		}
		t.pid, t.tid = x.streams.pid, freeID(firstSyntheticTid, x.tids, &x.nextTid)
	default:
		t.tid = freeID(tr.ID, x.tids, &x.nextTid)
	}
	x.threads[k] = t
	x.order = append(x.order, t)
	if t.os != nil {
		return t, nil
	}
	return t, x.threadName(t, tr.Name)
}

// threadName writes t's thread_name event: its name, its track's kind and
// id.
func (x *writer) threadName(t *thread, name string) error {
	b := append(x.b[:0], `{"name":"thread_name","ph":"M","pid":`...)
	b = strconv.AppendUint(b, t.pid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, t.tid, 10)
	b = append(b, `,"args":{"name":`...)
	b = events.AppendJSONString(b, name)
	b = append(b, `,"track_kind":"`...)
	b = append(b, t.kind.String()...)
	b = append(b, `","track_id":"`...)
	b = strconv.AppendUint(b, t.id, 10)
	x.b = append(b, `"}}`...)
	return x.emit()
}

// names writes, once the input is read, the thread_name events of OS
// threads (their latest names; the track's name when none is known) and
// the process_name events of their processes (the latest name of the
// main thread, and the host when the threads are of several; none when
// unknown) and of the CTF streams' process.
func (x *writer) names() error {
	for _, t := range x.order {
		if t.os == nil {
			continue
		}
		name := t.os.Name()
		if name == "" {
			name = t.track
		}
		if err := x.threadName(t, name); err != nil {
			return err
		}
	}
	hosts := map[string]bool{}
	for _, p := range x.porder {
		if p.rep != nil {
			hosts[p.key.host] = true
		}
	}
	for _, p := range x.porder {
		var name string
		switch {
		case p.rep == nil:
			name = "CTF streams"
		case p.rep.PID == p.key.pid:
			name = p.rep.ProcessName()
		case p.rep.TID == p.key.pid:
			name = p.rep.Name() // its pid was unknown when it was met
		}
		if name == "" {
			continue
		}
		if len(hosts) > 1 && p.rep != nil {
			name += " (" + p.key.host + ")"
		}
		b := append(x.b[:0], `{"name":"process_name","ph":"M","pid":`...)
		b = strconv.AppendUint(b, p.pid, 10)
		b = append(b, `,"args":{"name":`...)
		b = events.AppendJSONString(b, name)
		x.b = append(b, `}}`...)
		if err := x.emit(); err != nil {
			return err
		}
	}
	return nil
}

func (x *writer) event(ev *events.Event) error {
	if ev.Kind() == events.KindMetadata {
		return nil // WTF definitions and zone records are not events in a viewer
	}
	t, err := x.thread(ev.Track())
	if err != nil {
		return err
	}
	var ts int64
	switch {
	case ev.HasTime():
		ts = ev.Time()
		if !x.seenTime {
			x.firstTime, x.seenTime = ts, true
		}
		if !x.hasBase && ev.Track().Kind != events.TrackTrace {
			if err := x.decideBase(ts); err != nil {
				return err
			}
		}
	case t.hasLast:
		ts = t.last
	default:
		// No time on a thread that has none yet: the time base (ts 0).
		if !x.hasBase && x.seenTime {
			if err := x.decideBase(x.firstTime); err != nil {
				return err
			}
		}
		ts = x.base
	}
	err = x.dispatch(ev, t, ts)
	if x.seenTime && (!t.hasLast || ts > t.last) { // untimed events before the first time stay at ts 0
		t.last, t.hasLast = ts, true
	}
	return err
}

func (x *writer) dispatch(ev *events.Event, t *thread, ts int64) error {
	if x.cat == events.FormatWTF {
		if handled, err := x.wtfSpecial(ev, t, ts); handled || err != nil {
			return err
		}
	}
	switch ev.Kind() {
	case events.KindBegin:
		if n := len(t.open); n > 0 && !t.open[n-1].written && t.open[n-1].ts != ts {
			// The slices waiting for their B do not end at their begin.
			if err := x.flush(t); err != nil {
				return err
			}
		}
		if t.overflow > 0 || len(t.open) >= x.o.maxDepth || x.open >= maxOpenTotal {
			t.overflow++
			return x.instant(t, ev.Name(), ts, ev)
		}
		x.push(t, ev.Name(), ts).addArgs(ev)
		return nil
	case events.KindEnd:
		if t.overflow > 0 || len(t.open) == 0 {
			if t.overflow > 0 {
				t.overflow--
			}
			return x.instant(t, ev.Name(), ts, ev)
		}
		// An end that names a slice deeper in the stack (an ATF return whose
		// callee never returned, e.g. after an exception) closes the slices
		// above that one first, at the end's time, so the named slice ends
		// where the trace says it does.
		if i := t.openIndex(ev.Name()); i >= 0 {
			for len(t.open) > i+1 {
				x.extra = append(x.extra[:0], `"closed_by_outer_end":true`...)
				if err := x.close(t, ts, nil); err != nil {
					return err
				}
			}
		}
		x.extra = x.extra[:0]
		if s := ev.WTFScope(); s != nil && len(s.Appended) > 2 {
			// Data appended to a WTF scope while it was open.
			x.extra = append(x.extra, s.Appended[1:len(s.Appended)-1]...)
		}
		return x.close(t, ts, ev)
	case events.KindComplete:
		if err := x.flush(t); err != nil {
			return err
		}
		x.b = x.head(x.b[:0], ev.Name(), "X", t, ts)
		x.b = append(x.b, `,"dur":`...)
		x.b = appendMicros(x.b, ev.Duration())
		x.b = append(x.b, '}')
		if err := x.emit(); err != nil {
			return err
		}
		if ev.NumArgs() == 0 {
			return nil
		}
		return x.instant(t, ev.Name(), ts, ev)
	case events.KindCounter:
		return x.counter(t, ev, ts)
	}
	return x.instant(t, ev.Name(), ts, ev)
}

// push opens a slice on t. Its B is written once the slice is known not to
// end at its begin (flush): a slice of zero duration, and the zero-duration
// slices inside it, are written as instants, which speedscope leaves out
// (it draws nothing of a zero-duration slice anyway) and Perfetto draws as
// it draws a zero-duration slice.
func (x *writer) push(t *thread, name string, ts int64) *slice {
	if len(t.open) < cap(t.open) {
		t.open = t.open[:len(t.open)+1]
	} else {
		t.open = append(t.open, slice{})
	}
	s := &t.open[len(t.open)-1]
	s.name, s.ts, s.written, s.tick = name, ts, false, false
	s.args, s.keys = s.args[:0], s.keys[:0]
	x.open++
	return s
}

// addArgs records ev's arguments as the slice's.
func (s *slice) addArgs(ev *events.Event) {
	for i := range ev.NumArgs() {
		k, v := ev.Arg(i)
		if len(s.args) > 0 {
			s.args = append(s.args, ',')
		}
		start := len(s.args)
		s.args = events.AppendJSONString(s.args, k)
		keyEnd := len(s.args)
		s.args = append(s.args, ':')
		s.args = appendValue(s.args, v)
		s.keys = append(s.keys, member{start, keyEnd, len(s.args)})
	}
}

// flush writes the B events of t's slices that do not have theirs yet,
// outermost first.
func (x *writer) flush(t *thread) error {
	i := len(t.open)
	for i > 0 && !t.open[i-1].written {
		i--
	}
	for ; i < len(t.open); i++ {
		s := &t.open[i]
		s.written = true
		x.b = x.head(x.b[:0], s.name, "B", t, s.ts)
		x.b = append(x.b, '}')
		if err := x.emit(); err != nil {
			return err
		}
	}
	return nil
}

// close ends t's innermost slice at ts (or at its begin, if ts is earlier):
// its arguments are the begin's, then ev's (a name the begin has with another
// value as "end.NAME"), then x.extra.
func (x *writer) close(t *thread, ts int64, ev *events.Event) error {
	s := &t.open[len(t.open)-1]
	ts = max(ts, s.ts)
	x.args = append(x.args[:0], s.args...)
	if ev != nil {
		x.args = x.mergeEnd(x.args, s, ev)
	}
	if len(x.extra) > 0 {
		if len(x.args) > 0 {
			x.args = append(x.args, ',')
		}
		x.args = append(x.args, x.extra...)
	}
	written := s.written
	name := s.name
	t.open = t.open[:len(t.open)-1]
	x.open--
	switch {
	case ts == s.ts && !written:
		// A zero-duration slice: one instant.
		return x.instantArgs(t, name, ts, x.args)
	case ts == s.ts:
		// Zero duration, with slices inside that began later (time went
		// back on the thread): an E without args, keyed as its B in
		// speedscope, and the arguments on an instant.
		x.b = x.head(x.b[:0], name, "E", t, ts)
		x.b = append(x.b, '}')
		if err := x.emit(); err != nil {
			return err
		}
		if len(x.args) == 0 {
			return nil
		}
		return x.instantArgs(t, name, ts, x.args)
	}
	if !written {
		t.open = t.open[:len(t.open)+1] // it and the slices around it that wait for their B
		err := x.flush(t)
		t.open = t.open[:len(t.open)-1]
		if err != nil {
			return err
		}
	}
	// The E always has args, even {}: speedscope then keys it apart from a B
	// of the same name at the same time and closes this slice first.
	x.b = x.head(x.b[:0], name, "E", t, ts)
	x.b = append(x.b, `,"args":{`...)
	x.b = append(x.b, x.args...)
	x.b = append(x.b, "}}"...)
	return x.emit()
}

// mergeEnd appends ev's arguments to b, the members of s's: those s has with
// the same value are left out, those it has with another value are named
// "end.NAME".
func (x *writer) mergeEnd(b []byte, s *slice, ev *events.Event) []byte {
	for i := range ev.NumArgs() {
		k, v := ev.Arg(i)
		x.scratch = events.AppendJSONString(x.scratch[:0], k)
		keyEnd := len(x.scratch)
		x.scratch = appendValue(x.scratch, v)
		key, val := x.scratch[:keyEnd], x.scratch[keyEnd:]
		prefix := false
		for _, m := range s.keys {
			if bytes.Equal(s.args[m.start:m.keyEnd], key) {
				if bytes.Equal(s.args[m.keyEnd+1:m.end], val) {
					goto next
				}
				prefix = true
				break
			}
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		if prefix {
			b = append(b, `"end.`...)
			b = append(b, key[1:]...)
		} else {
			b = append(b, key...)
		}
		b = append(b, ':')
		b = append(b, val...)
	next:
	}
	return b
}

// instant writes ev's arguments as a thread-scoped instant named name.
func (x *writer) instant(t *thread, name string, ts int64, ev *events.Event) error {
	x.args = x.args[:0]
	for i := range ev.NumArgs() {
		k, v := ev.Arg(i)
		if i > 0 {
			x.args = append(x.args, ',')
		}
		x.args = events.AppendJSONString(x.args, k)
		x.args = append(x.args, ':')
		x.args = appendValue(x.args, v)
	}
	return x.instantArgs(t, name, ts, x.args)
}

func (x *writer) instantArgs(t *thread, name string, ts int64, args []byte) error {
	x.b = x.head(x.b[:0], name, "i", t, ts)
	x.b = append(x.b, `,"args":{`...)
	x.b = append(x.b, args...)
	x.b = append(x.b, "}}"...)
	return x.emit()
}

// counter writes a counter event: for a CDT tick one "C" event per field of
// WithCDTFields and a "tick" slice up to the next tick; otherwise one "C"
// event with the numeric arguments.
func (x *writer) counter(t *thread, ev *events.Event, ts int64) error {
	row, ok := ev.CDT()
	if !ok {
		x.b = x.head(x.b[:0], ev.Name(), "C", t, ts)
		x.b = append(x.b, `,"args":{`...)
		k := 0
		for i := range ev.NumArgs() {
			name, v := ev.Arg(i)
			if !v.Number() || (v.Kind() == events.ValueFloat && !finite(v.Float())) {
				continue // counters plot numbers only
			}
			if k > 0 {
				x.b = append(x.b, ',')
			}
			k++
			x.b = events.AppendJSONString(x.b, name)
			x.b = append(x.b, ':')
			x.b = strconv.AppendFloat(x.b, v.Float(), 'g', -1, 64)
		}
		x.b = append(x.b, "}}"...)
		return x.emit()
	}
	if err := x.rec.Decode(row.Raw); err != nil {
		return fmt.Errorf("tick %d: %w", row.Tick, err)
	}
	if ev.HasTime() {
		if n := len(t.open); n > 0 && t.open[n-1].tick {
			x.extra = x.extra[:0]
			if err := x.close(t, ts, nil); err != nil {
				return err
			}
		}
		if len(t.open) < x.o.maxDepth && x.open < maxOpenTotal {
			s := x.push(t, ev.Name(), ts)
			s.tick = true
			s.args = append(s.args, `"tick":`...)
			s.args = strconv.AppendInt(s.args, row.Tick, 10)
			s.keys = append(s.keys, member{0, len(`"tick"`), len(s.args)})
		}
	}
	for _, f := range x.o.cdtFields {
		v, ok := schema7.LookupNumber(&x.rec, f)
		if !ok || !finite(v) {
			continue
		}
		x.b = x.head(x.b[:0], f, "C", t, ts)
		x.b = append(x.b, `,"args":{"value":`...)
		x.b = strconv.AppendFloat(x.b, v, 'g', -1, 64)
		x.b = append(x.b, "}}"...)
		if err := x.emit(); err != nil {
			return err
		}
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// head starts one trace event object (without its closing brace); emit adds
// its "ts".
func (x *writer) head(b []byte, name, ph string, t *thread, ts int64) []byte {
	b = append(b, `{"name":`...)
	b = events.AppendJSONString(b, name)
	b = append(b, `,"cat":"`...)
	b = append(b, x.cat...)
	b = append(b, `","ph":"`...)
	b = append(b, ph...)
	b = append(b, '"')
	switch ph {
	case "i":
		b = append(b, `,"s":"t"`...)
		x.instants++
	case "B", "X":
		x.slices++
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendUint(b, t.pid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, t.tid, 10)
	x.timed, x.ts = true, ts
	return b
}

// rel is ts − base, saturated to the int64 range.
func (x *writer) rel(ts int64) int64 {
	if !x.hasBase {
		return 0
	}
	d := ts - x.base
	if (x.base > 0 && d > ts) || (x.base < 0 && d < ts) {
		if x.base > 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return d
}

// appendMicros writes ns as µs with three decimals ("1234.567").
func appendMicros(b []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/1000, 10)
	frac := u % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// appendValue writes v as JSON, integers beyond 2⁵³−1 in magnitude as decimal
// strings.
func appendValue(b []byte, v events.Value) []byte {
	switch v.Kind() {
	case events.ValueInt:
		if n := v.Int(); n > maxSafeInt || n < -maxSafeInt {
			b = append(b, '"')
			b = strconv.AppendInt(b, n, 10)
			return append(b, '"')
		}
	case events.ValueUint:
		if n := v.Uint(); n > maxSafeInt {
			b = append(b, '"')
			b = strconv.AppendUint(b, n, 10)
			return append(b, '"')
		}
	}
	return v.AppendJSON(b)
}

// trailer ends the event array and writes otherData.
func (x *writer) trailer(r *events.Reader) error {
	b := append(x.b[:0], "\n],\"otherData\":{\"format\":"...)
	b = events.AppendJSONString(b, x.cat)
	b = append(b, `,"ts_unit":"µs since time_base_ns"`...)
	if x.hasBase {
		b = append(b, `,"time_base_ns":"`...)
		b = strconv.AppendInt(b, x.base, 10)
		b = append(b, '"')
	}
	if rec := r.Recovery(); rec != nil {
		j, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		b = append(b, `,"recovery":`...)
		b = append(b, j...)
	}
	b = append(b, "}}\n"...)
	x.b = b
	_, err := x.w.Write(b)
	return err
}

// wtfSpecial writes what WTF says that the uniform model does not: time
// ranges (wtf.timeRange#begin/end) become async b/e events matched by id,
// and scope data (wtf.scope#appendData, APPEND_SCOPE_DATA events inside a
// scope) is left out here because it is written with the scope's arguments.
// It reports whether ev was handled.
func (x *writer) wtfSpecial(ev *events.Event, t *thread, ts int64) (bool, error) {
	w := ev.WTF()
	if w == nil {
		return false, nil
	}
	switch {
	case w.Type.Flags&wtfcff.FlagAppendScopeData != 0 && (w.Name() == "wtf.scope#appendData" || len(t.open) > 0):
		return true, nil
	case w.Name() == "wtf.timeRange#begin" && w.NumArgs() == 3:
		id := w.Arg(0).Uint()
		if _, ok := x.ranges[id]; !ok && len(x.ranges) >= maxOpenTotal {
			return false, nil // too many open ranges: an instant
		}
		x.ranges[id] = string(w.Arg(1).Bytes())
		x.b = x.async(x.b[:0], x.ranges[id], "b", id, t, ts)
		x.b = append(x.b, `,"args":{"value":`...)
		x.b = w.Arg(2).AppendJSON(x.b)
		x.b = append(x.b, "}}"...)
		return true, x.emit()
	case w.Name() == "wtf.timeRange#end" && w.NumArgs() == 1:
		id := w.Arg(0).Uint()
		name, ok := x.ranges[id]
		if !ok {
			return false, nil // an end without a begin: an instant
		}
		delete(x.ranges, id)
		x.b = x.async(x.b[:0], name, "e", id, t, ts)
		x.b = append(x.b, '}')
		return true, x.emit()
	}
	return false, nil
}

func (x *writer) async(b []byte, name, ph string, id uint64, t *thread, ts int64) []byte {
	b = append(b, `{"name":`...)
	b = events.AppendJSONString(b, name)
	b = append(b, `,"cat":"wtf.timeRange","ph":"`...)
	b = append(b, ph...)
	b = append(b, `","id":"0x`...)
	b = strconv.AppendUint(b, id, 16)
	b = append(b, `","pid":`...)
	b = strconv.AppendUint(b, t.pid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, t.tid, 10)
	x.timed, x.ts = true, ts
	return b
}
