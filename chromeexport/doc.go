// Package chromeexport writes the events of one trace — read through package
// events, so ATF, dial9, WTF, CDT and CTF alike — as Chrome trace-event JSON, the
// format Perfetto UI (ui.perfetto.dev), chrome://tracing and speedscope
// (speedscope.app) open. tracecat convert --to chrome is a call of Write.
//
//	r, err := events.Open("trace.dial9.bin", events.WithScopeData())
//	if err != nil { … }
//	defer r.Close()
//	res, err := chromeexport.Write(ctx, w, r)
//
// Convert does the same for a path.
//
// # The document
//
// One JSON object: "traceEvents" (one event per line), "displayTimeUnit":"ns"
// and "otherData" (what the viewers show as the trace's metadata: the format,
// the time base and, for a damaged input, the recovery summary of
// events.Reader.Recovery).
//
// Every track of the event layer (thread, worker, zone, the whole trace) is
// one thread, named by a thread_name metadata event that also carries the
// track's kind and id. Its tid is the track id when that is at most 2³¹−1
// (Perfetto and chrome://tracing read pids and tids as 32-bit signed
// integers) and not taken by another track (a dial9 trace track and worker
// 0 are both id 0); otherwise the first free number from 2³⁰ (above
// Linux's pids). The pid is the ATF process id (from the pid_N folder),
// else 1.
//
// A CTF trace's threads (events.Track.Thread, with
// events.WithCTFCallSlices) are the OS's: the tid is the thread's tid (its
// vtid for a user-space trace without kernel trace of its host), the pid
// its process's (tgid or vpid; its own tid while the trace has not said
// it, as for a main thread), each the first free number from 2³⁰ when
// taken (another host's thread or process of the same number). Their
// thread_name events, written after the last event, carry each thread's
// latest name (LTTng's comm: state dump, sched_switch, fork, exec; the
// procname context), as babeltrace2 and Trace Compass show it — the name a
// thread had when its first slice began is the track's name, args
// "track_kind"/"track_id" say which track it is; a thread whose name the
// trace never says is named by its track ("tid 42"). Each process has a
// process_name event: its main thread's latest name (with the hostname
// when the trace has threads of several hosts), none when unknown. The
// CPUs' and streams' tracks are the threads of a process of their own
// ("CTF streams", pid and tids from 2³⁰), so that they neither take the
// tids of threads nor join pid 1.
//
// # Time
//
// "ts" and "dur" are microseconds with three decimals (exact nanoseconds) since
// the time base: WithTimeBase, else the time of the first event of a thread,
// worker or zone track, else (a trace of whole-trace events only, such as CDT
// ticks) of the first event that has a time. Events of the whole-trace track
// can be on another clock (dial9's wall-clock segment metadata, symbol entries
// at 0, before the first poll): the events before the base is known wait in
// memory, at most 65 536 of them or 16 MiB, beyond which the first time is the
// base. "ts" is the last key of each event.
// otherData.time_base_ns holds the base as a decimal string, so that
// absolute time is time_base_ns + ts × 1000. Relative times keep nanosecond
// resolution in a viewer, which parses ts as a float64: absolute
// epoch-scale times in µs (about 1.7·10¹⁵ for nanosecond Unix times) keep
// only a quarter of a µs. An event earlier than the base gets a negative ts.
//
// # Slices, and one frame per name
//
// Begins and ends become B/E slices, balanced per thread whatever the input:
// each thread keeps a stack of open slices; an E carries the name of the B it
// closes and is never earlier than it; an end that names a deeper open slice
// closes the slices above it first, at its time (their E has
// "closed_by_outer_end":true); an end with no open slice is an instant; what
// is still open at the end of the input is closed at its thread's last time
// ("closed_at_end":true). At most WithMaxDepth slices are open per thread
// (default DefaultMaxDepth); deeper begins and their ends are instants.
//
// speedscope keys a frame by its name and the JSON of its B's (or X's) args,
// so arguments on B events would split one function into as many frames as
// argument values (500 "poll {…task_id…}" frames in its sandwich view). So
// no B and no X carries args: a slice's arguments — the begin's, then what
// the end adds (a name the begin has with another value as "end.NAME") and,
// for a WTF scope, the data appended to it — go on its E, which Perfetto and
// chrome://tracing merge into the slice's arguments, and which speedscope
// only uses to close the frame. Every E of a slice that lasts carries args
// ({} when there are none), so that speedscope, which at equal times opens a
// B before an E with the same key, closes it before a slice of the same name
// that begins at its end.
//
// A slice of zero duration cannot carry them on its E (speedscope would take
// that E before the B at the same time and lose the slice), so the B of a
// slice is written only once the slice is known to last: a slice that ends at
// its begin is written as one instant ("i") with its arguments, as are the
// zero-duration slices inside it; speedscope draws nothing of such a slice
// anyway, and Perfetto draws an instant as it draws a zero-duration slice.
// Instants of a thread are not held back: one at the time of a B still waiting
// is written before it. Where time goes back on a thread (a slice ends before
// one begun inside it), the slice that ends at its begin is B, an E without
// args and an instant with its arguments.
//
// A CTF trace's event records have no duration: Convert opens it with
// events.WithCTFCallSlices, so that LTTng's user-space function calls
// (liblttng-ust-cyg-profile) and kernel system calls are begins and ends on
// the thread of each (its vtid, or its tid, from the session's contexts or
// from the CPU's last sched_switch: a system call whose thread changes CPU
// stays on its thread) and are balanced as above — a slice named by the
// function's address or the system call, an exit whose entry was not seen
// an instant; every other event record is an instant on its CPU's or
// stream's thread, which speedscope does not draw (Result.Slices says
// whether anything is left for it). Open the Reader with that option to
// get the same from Write.
//
// Instants are thread-scoped "i" events with their arguments. WTF time ranges
// (wtf.timeRange#begin/end) are async "b"/"e" events matched by id.
//
// # Counters (CDT)
//
// A CDT tick is a counter event: each numeric field of WithCDTFields (default
// DefaultCDTFields) is one counter track ("C" events, drawn by Perfetto and
// chrome://tracing). speedscope draws no counters, so each tick is also a
// slice named "tick" on the trace's thread, from its time to the next tick's
// (its E carries the tick index): a CDT export opens in speedscope as a
// row of ticks, and its counters are seen in Perfetto UI. Counter events of
// other kinds of input are one "C" event with their numeric arguments.
//
// # Numbers
//
// Integer arguments whose magnitude exceeds 2⁵³−1 (ATF function ids, dial9
// 64-bit ids) are written as decimal strings: a JavaScript viewer would round
// a JSON number (5970758153581625348 → 5970758153581625000). Integers inside
// composite arguments (dial9 lists and maps, CDT channels) are written as the
// event layer renders them. Async ids are strings of hexadecimal digits
// ("0x1f"), as Chrome writes them.
//
// # Memory
//
// Write streams: it holds per thread the open slices (name, time, the begin's
// arguments as JSON, whether its B is written) and, until the time base is
// known, the events before it (bounded as above), never the whole trace.
// It does not allocate per event once the threads, names and buffers have
// been seen, except where the event layer does (composite arguments).
package chromeexport
