// Package events is the one layer above the five codecs of this module: it
// detects the format of a file or folder, opens it with the right codec and
// yields uniform events — a time in nanoseconds, a name, a kind, a track and
// typed arguments — whatever the format. Sinks (tracecat's JSON Lines, Chrome
// export and stats, the Parquet exporter) consume these events and never a
// codec's internals; the codec packages stay unaware of each other and of
// this package.
//
// # Detecting
//
// Detect, DetectFile, DetectDir and DetectBytes name a format by its magic
// bytes, like image.RegisterFormat's table: every variant of the five formats
// registers its leading bytes here (cdt v1/v2, dial9 plain and gzip, ATF index
// and detail, CTF packetized/JSON/TSDL metadata, data streams and packet
// indexes, WTF binary/JSON/legacy). Folders are recognised by their layout (ATF
// session, pid and thread folders; CTF trace folders with a metadata file),
// damaged files by their extension; CTFSession recognises a folder whose
// only traces are CTF trace folders (an LTTng session folder).
//
// # Reading
//
// Open(path) takes a file or a folder; OpenReaderAt(ra, size) and
// OpenBytes(b) take a file's contents (WithName supplies the file name for
// detection by extension); NewReader(r) takes a stream such as a pipe, with
// bounded memory (dial9 is decoded as it comes, the other formats are
// spooled to a temporary file of at most WithSpoolLimit bytes). Iteration follows the module's API:
//
//	r, err := events.Open("trace.dial9.bin")
//	if err != nil { … }
//	defer r.Close()
//	for r.Next() {
//		ev := r.Event() // valid until the next call to Next
//		fmt.Println(ev.Time(), ev.Kind(), ev.Track().Name, ev.Name())
//	}
//	if err := r.Err(); err != nil { … } // the codec's *traceerr.FormatError
//
// What each format yields:
//
//   - dial9: every event in stream order. The schema name is the name; an
//     event with a worker_id field is on that worker's track ("worker 3",
//     "blocking" for 254, "unknown worker" for 255), others on one trace
//     track; PollStart/PollEnd on a worker are the begin and end of a slice
//     named "poll"; everything else is an instant. Time is the timestamp
//     (ns); events of a schema without timestamps have none. Arguments are
//     the fields in schema order, pooled strings and stacks resolved.
//   - ATF (index file, thread folder or session folder): index events in the
//     cross-thread merge order of atf.Merger. A call begins, a return ends, an
//     exception is an instant, on the thread's track ("thread_7"), named by
//     the manifest's symbol name or "0x" and the 16 hex digits of the function
//     id. Time is the timestamp (ns). Arguments: function_id, depth and,
//     for an event linked to a record of its thread's detail.atf,
//     detail_type ("FUNCTION_CALL", "FUNCTION_RETURN") and detail (the
//     record's payload as bytes, hexadecimal in JSON; the record is read
//     only when these are asked for).
//   - WTF (binary, JSON or legacy): every event record, definitions and zone
//     records included as KindMetadata. Scope enters begin (wtf.scope#enter
//     named by its name argument), wtf.scope#leave ends and is named by the
//     scope it closes, other events are instants, on the zone's track. Time is
//     the record's µs × 1000; a definition or zone record stamped 0 (as
//     writers put them ahead of the trace) has no time (HasTime false,
//     ts_ns null), so that no time range starts at 0. Arguments are the event's arguments. Scopes
//     are paired per zone by a stack of names (at most 65 536 deep per
//     zone); WithScopeData pairs them with wtfcff.ScopeTracker instead, so
//     that Event.WTFScope gives each closed scope's arguments and appended
//     data, and with WithPairing each complete scope carries them as its
//     arguments (wtf.scope#appendData records stay instants too).
//   - CDT: one KindCounter event per tick row named "tick" on one trace track;
//     Tick is the tick_index; the time is elapsed_ms × 1 000 000 when the row
//     has elapsed_ms. Arguments are the row's top-level entries (channels and
//     phase_markers as composites).
//   - CTF: a trace folder (metadata and data streams, package ctf), or a
//     folder whose only traces are CTF trace folders (CTFSession: an LTTng
//     session folder, read as one trace as babeltrace2 reads it; errors
//     name the trace folder before the file): one KindInstant event per
//     event record, merged by time as babeltrace2 merges them, named by
//     its event record class, timed in ns from its clock's origin, on its
//     data stream's track: a stream whose packet context has a cpu_id is
//     on its CPU's track (ID the cpu_id, named "cpu N"; every stream of
//     that CPU shares it; in a session of several hosts — the traces'
//     hostname — each CPU is named "cpu N (HOST)", and one of a host
//     after the first is a track of its own, ID as below), another on its
//     own (ID 2^32 + the position of
//     its first file, never a CPU number; named by the file; a stream's
//     rotated files share it). Arguments
//     are the top-level fields of the common context, specific context and
//     payload (structures, arrays and variants as composites). An
//     enumeration or bit map is followed by FIELD_label, its labels as
//     babeltrace2 prints them (several joined by "|", null when none
//     matches); an array of them by an array of labels, a variant or
//     optional by its selected option's; a structure member by a member.
//     A label's name never takes a field's: when the scope (the event's
//     arguments, or the structure's members) has a field named FIELD_label,
//     or an earlier label took it, "_label" is appended again (x_label_label
//     beside a payload field x_label). A metadata file, data stream or
//     packet index alone holds no events: Open returns an error wrapping
//     ErrNoEvents that says so (as for a lone ATF detail.atf).
//     WithCTFCallSlices makes LTTng's calls begins and ends on the track
//     of their thread instead (TrackThread): user-space functions of
//     liblttng-ust-cyg-profile (lttng_ust_cyg_profile[_fast]:func_entry
//     and func_exit, named "0x" and the address in hex, on the track of
//     their vtid context, told apart by vpid) and kernel system calls
//     (syscall_entry_NAME and syscall_exit_NAME, before LTTng 2.7 sys_NAME
//     and exit_syscall, named NAME, on the track of their tid context or
//     else of the thread their CPU's last sched_switch switched to), with
//     what is known of each thread (Track.Thread: ids, latest name,
//     process) from LTTng's state dump, scheduler and process events; the
//     Chrome export turns it on, dump and the Parquet export do not.
//
// The format's own record stays reachable: Event.Dial9, ATF, WTF, CDT and
// Record return it, and Reader.Underlying the codec's reader.
//
// Damaged or unfinished inputs are read as far as each codec recovers them
// (a CDT trace without footer, a dial9 stream cut or corrupted mid-frame,
// an ATF file without footer or a session without manifest, a WTF file with
// a torn last chunk): Next delivers what was recovered, Err stays nil, and
// Reader.Recovery gives the module's uniform summary (traceerr.Recovery) of
// what was read, what was lost and why.
//
// Format names are FormatCDT, FormatDial9, FormatATF, FormatCTF and
// FormatWTF ("cdt", "dial9", "atf", "ctf", "wtf") everywhere this package
// and tracecat name a format; the codecs' errors carry their package name
// ("wtfcff", "ctf2meta"), which FormatName maps.
//
// What tracecat dump prints — filters, time bounds in ns, text lines — is
// package events/inspect, over this one.
//
// # Pairing
//
// WithPairing turns each begin and the end that closes it on the same track
// into one KindComplete event with a Duration, with a per-track stack of
// bounded depth (see WithPairing for what happens to unmatched events).
//
// # JSON Lines
//
// Event.AppendJSON writes the schema tracecat dump --json prints, the same
// keys for every format: format, record, kind, name, ts_ns, dur_ns,
// track_kind, track, track_name, args. The record object's keys per format:
//
//	dial9  {"offset": frame offset, "type_id": wire type id, "type": schema name}
//	atf    {"thread": thread id (of the thread_<ID> folder, else the index
//	        header's; not the merge position atf.MergedEvent.Thread),
//	        "seq": sequence number in its index.atf,
//	        "kind": "call"|"return"|"exception"|…, "thread_id": the record's
//	        thread_id, "detail_seq": link into detail.atf or null}
//	wtf    {"chunk": chunk id, "offset": file offset, "wire_id": wire type id,
//	        "type": event type name}
//	cdt    {"tick_index": tick}
//
// # Allocation and limits
//
// After warm-up (schemas, names, zones and tracks seen) Next allocates
// nothing per event, nor do Time, Name, Track, Kind and the arguments' typed
// accessors (pinned by tests); rendering composite CDT arguments as JSON
// allocates. Derived names (hex function ids, WTF scope names, worker track
// names) are interned up to DefaultMaxNames per Reader; beyond that they are
// built per event. Pairing keeps at most its depth limit of open begins per
// track, for at most 65 536 tracks; WithCTFCallSlices knows at most 65 536
// threads (named or with a track) and keeps no stack. The codecs bound everything read from the
// input (each package documents its Limits).
package events
