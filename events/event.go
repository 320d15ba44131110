package events

import (
	"math"
	"strconv"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// Kind says what an event marks on its track.
type Kind uint8

// Event kinds.
const (
	// KindInstant is a point in time (a dial9 event, an ATF exception, a WTF
	// instance event or mark).
	KindInstant Kind = iota + 1
	// KindBegin opens a slice on its track (ATF call, dial9 PollStart, WTF
	// scope enter, with WithCTFCallSlices an LTTng function or system call
	// entry).
	KindBegin
	// KindEnd closes the innermost open slice of its track (ATF return,
	// dial9 PollEnd, WTF scope leave, with WithCTFCallSlices an LTTng
	// function or system call exit); Name is the name of the slice it
	// closes where the format tells.
	KindEnd
	// KindComplete is a begin and its end paired into one slice: Time is the
	// begin's, Duration the distance to the end. Only WithPairing yields it.
	KindComplete
	// KindCounter is a sample of numeric values (a CDT tick); the values are
	// its arguments.
	KindCounter
	// KindMetadata is a record that describes the trace rather than something
	// that happened in it (WTF event definitions and zone records).
	KindMetadata
)

var kindNames = [...]string{"", "instant", "begin", "end", "complete", "counter", "metadata"}

// String is the kind's name as JSON Lines writes it: "instant", "begin",
// "end", "complete", "counter" or "metadata".
func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// TrackKind says what a track stands for.
type TrackKind uint8

// Track kinds.
const (
	// TrackTrace is the whole trace: events that belong to no thread, worker
	// or zone (CDT ticks, dial9 events without a worker_id).
	TrackTrace TrackKind = iota + 1
	// TrackThread is an OS thread (ATF: one index file per thread; CTF with
	// WithCTFCallSlices: a kernel tid or a user-space vtid).
	TrackThread
	// TrackWorker is a runtime worker (dial9: the worker_id field).
	TrackWorker
	// TrackZone is a WTF zone of execution.
	TrackZone
	// TrackStream is a CTF data stream (LTTng: one per CPU and channel).
	TrackStream
)

var trackKindNames = [...]string{"", "trace", "thread", "worker", "zone", "stream"}

// String is the track kind's name: "trace", "thread", "worker", "zone" or
// "stream".
func (k TrackKind) String() string {
	if int(k) < len(trackKindNames) && k != 0 {
		return trackKindNames[k]
	}
	return "TrackKind(" + strconv.Itoa(int(k)) + ")"
}

// Track is where an event happens: a thread, a worker, a zone or the whole
// trace. (Kind, ID) identifies it within one Reader; Name is for display
// ("thread_7", "worker 3", the zone's name).
type Track struct {
	Kind TrackKind
	ID   uint64
	Name string
	// Thread is, for a TrackThread track of a CTF trace opened
	// WithCTFCallSlices, what the Reader knows of its OS thread: ids,
	// latest name, process (see Thread); nil for other tracks.
	Thread *Thread
}

// Event is one uniform event: a view filled by Reader.Next and valid until the
// next call to Next. Accessors that only make sense for some formats or kinds
// say so; the format's own record stays reachable through Dial9, ATF, WTF,
// CDT and Record.
type Event struct {
	format  string
	kind    Kind
	time    int64
	hasTime bool
	utime   uint64 // the stored time when it is past math.MaxInt64, else 0
	dur     int64  // meaningful for KindComplete only
	tick    int64
	hasTick bool
	name    string
	track   *Track
	args    argSource
	rec     recordSource
}

// Kind is what the event marks.
func (e *Event) Kind() Kind { return e.kind }

// Format is the name of the format the event was read from (FormatCDT,
// FormatDial9, FormatATF, FormatWTF).
func (e *Event) Format() string { return e.format }

// Time is the event's time in nanoseconds on the trace's own clock (ATF and
// dial9 timestamps as stored, WTF microseconds × 1000, CDT elapsed_ms ×
// 1 000 000); 0 when HasTime is false. Timestamps beyond math.MaxInt64
// saturate to it, and Reader.Recovery then notes how many did. For a KindComplete event it is the begin's time.
func (e *Event) Time() int64 { return e.time }

// TimePastInt64 returns a dial9 or ATF event's stored timestamp when it is
// at or past 2^63 ns (a valid u64 there, which Time saturates to
// math.MaxInt64), and true; 0 and false for every other event. dump --json
// (AppendJSON) writes this exact value as ts_ns. A KindComplete event
// carries its begin's saturated time only.
func (e *Event) TimePastInt64() (uint64, bool) { return e.utime, e.utime != 0 }

// HasTime reports whether the record carries a time (a dial9 schema without
// timestamps, a CDT row without elapsed_ms do not).
func (e *Event) HasTime() bool { return e.hasTime }

// Duration is a KindComplete event's length in nanoseconds (end − begin); 0
// for other kinds.
func (e *Event) Duration() int64 {
	if e.kind != KindComplete {
		return 0
	}
	return e.dur
}

// Tick is a CDT row's tick_index; ok is false for other formats.
func (e *Event) Tick() (tick int64, ok bool) { return e.tick, e.hasTick }

// Name is the event's name: the dial9 schema name ("poll" for PollStart and
// PollEnd, so that a slice has one name), the ATF function's symbol name from
// the session manifest (else its id as "0x" and 16 hex digits), the WTF event
// type's name (for wtf.scope#enter the scope's name, for wtf.scope#leave the
// name of the scope it closes), "tick" for CDT rows.
func (e *Event) Name() string { return e.name }

// Track is the thread, worker or zone the event belongs to.
func (e *Event) Track() Track {
	if e.track == nil {
		return Track{}
	}
	return *e.track
}

// NumArgs is the number of typed arguments.
func (e *Event) NumArgs() int {
	if e.args == nil {
		return 0
	}
	return e.args.numArgs()
}

// Arg returns argument i (0 ≤ i < NumArgs): its name and value, views valid
// until the next event.
func (e *Event) Arg(i int) (name string, v Value) {
	return e.args.arg(i)
}

// ArgByName returns the first argument called name.
func (e *Event) ArgByName(name string) (Value, bool) {
	for i := range e.NumArgs() {
		if n, v := e.args.arg(i); n == name {
			return v, true
		}
	}
	return Value{}, false
}

// Args iterates over the arguments in record order.
func (e *Event) Args(yield func(name string, v Value) bool) {
	for i := range e.NumArgs() {
		if !yield(e.args.arg(i)) {
			return
		}
	}
}

// Dial9 returns the dial9 event behind e (nil for other formats), valid until
// the next event.
func (e *Event) Dial9() *dial9.Event {
	if r, ok := e.rec.(*dial9Source); ok {
		return r.dec.Event()
	}
	return nil
}

// ATF returns the ATF index event behind e, the position of its thread in the
// session (or 0 for a single thread) and its sequence number in that thread's
// index file; ok is false for other formats.
func (e *Event) ATF() (ev atf.IndexEvent, thread *atf.Thread, seq uint64, ok bool) {
	if r, ok := e.rec.(*atfSource); ok {
		m := r.cur()
		return m.IndexEvent, r.session.Threads[m.Thread], m.Seq, true
	}
	return atf.IndexEvent{}, nil, 0, false
}

// WTF returns the WTF event record behind e (nil for other formats), valid
// until the next event.
func (e *Event) WTF() *wtfcff.Event {
	if r, ok := e.rec.(*wtfSource); ok {
		return r.cur
	}
	return nil
}

// WTFScope returns, for a WTF wtf.scope#leave that closed a scope, that scope
// as the reference's database pairs it (its begin and end in µs, its
// arguments and the scope data appended while it was open), when the Reader
// was opened WithScopeData; nil otherwise. It is valid until the next event.
func (e *Event) WTFScope() *wtfcff.Scope {
	if r, ok := e.rec.(*wtfSource); ok && e.kind == KindEnd {
		return r.closed
	}
	return nil
}

// CDT returns the CDT row behind e (its tick_index and raw msgpack TickRecord,
// which schema7.TickRecord.Decode reads); ok is false for other formats.
// Row.Raw is valid until the next event.
func (e *Event) CDT() (row cdt.Row, ok bool) {
	if r, ok := e.rec.(*cdtSource); ok {
		return r.row, true
	}
	return cdt.Row{}, false
}

// Record returns the format's own record behind e: a *dial9.Event, an
// atf.IndexEvent, a *wtfcff.Event or a cdt.Row. Prefer the typed accessors
// on hot paths: boxing the ATF and CDT values allocates.
func (e *Event) Record() any {
	switch r := e.rec.(type) {
	case *dial9Source:
		return r.dec.Event()
	case *atfSource:
		return r.cur().IndexEvent
	case *wtfSource:
		return r.cur
	case *cdtSource:
		return r.row
	}
	return nil
}

// AppendRecord appends the JSON object that locates e's record in its file
// and carries the record fields the uniform model has no place for (see the
// package doc for the keys of each format).
func (e *Event) AppendRecord(b []byte) []byte {
	if e.rec == nil {
		return append(b, "{}"...)
	}
	return e.rec.appendRecord(b)
}

// clampTime converts an unsigned nanosecond time (dial9 and ATF store u64)
// to the int64 the layer carries, saturating at math.MaxInt64 and counting
// each saturation in *n, which Reader.Recovery reports: a time at or past
// 2^63 is never clamped silently.
func clampTime(ns uint64, n *int64) int64 {
	if ns > math.MaxInt64 {
		*n++
		return math.MaxInt64
	}
	return int64(ns)
}

// setUnsignedTime sets e's time from a stored u64 (clampTime), keeping the
// exact value when it saturates (TimePastInt64).
func (e *Event) setUnsignedTime(ns uint64, n *int64) {
	e.time, e.hasTime, e.utime = clampTime(ns, n), true, 0
	if ns > math.MaxInt64 {
		e.utime = ns
	}
}

// reset clears the per-event fields a source sets. (dur is read only for
// KindComplete, which the pairer sets with it.)
func (e *Event) reset() {
	e.time, e.hasTime, e.tick, e.hasTick, e.utime = 0, false, 0, false, 0
}

// argSource is a format adapter's view of the current record's arguments.
type argSource interface {
	numArgs() int
	arg(i int) (string, Value)
	// appendArgJSON writes argument i when its value is composite.
	appendArgJSON(b []byte, i int) []byte
}

// recordSource writes the format-specific "record" object of JSON Lines.
type recordSource interface {
	appendRecord(b []byte) []byte
}
