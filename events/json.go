package events

import "strconv"

// AppendJSON appends e as one line of the JSON Lines schema (without the
// newline): always the same keys, in this order —
//
//	format      "cdt", "dial9", "atf" or "wtf"
//	record      object: where the record is in its file and the fields the
//	            uniform model has no place for (keys per format, see the
//	            package doc)
//	kind        "instant", "begin", "end", "complete", "counter", "metadata"
//	name        string
//	ts_ns       integer ns on the trace's own clock, or null (a dial9 or
//	            ATF time at or past 2^63 exactly, as a uint64)
//	dur_ns      integer ns for "complete" events, else null
//	track_kind  "trace", "thread", "worker" or "zone"
//	track       integer id of the track within the trace
//	track_name  string
//	args        object: argument name → value (see Value.AppendJSON)
//
// It does not allocate beyond growing b, except for composite CDT arguments.
func (e *Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"format":`...)
	b = AppendJSONString(b, e.format)
	b = append(b, `,"record":`...)
	b = e.AppendRecord(b)
	b = append(b, `,"kind":"`...)
	b = append(b, e.kind.String()...)
	b = append(b, `","name":`...)
	b = AppendJSONString(b, e.name)
	b = append(b, `,"ts_ns":`...)
	if e.utime != 0 {
		b = strconv.AppendUint(b, e.utime, 10) // exact past 2^63
	} else if e.hasTime {
		b = strconv.AppendInt(b, e.time, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"dur_ns":`...)
	if e.kind == KindComplete {
		b = strconv.AppendInt(b, e.dur, 10)
	} else {
		b = append(b, "null"...)
	}
	t := e.Track()
	b = append(b, `,"track_kind":"`...)
	b = append(b, t.Kind.String()...)
	b = append(b, `","track":`...)
	b = strconv.AppendUint(b, t.ID, 10)
	b = append(b, `,"track_name":`...)
	b = AppendJSONString(b, t.Name)
	b = append(b, `,"args":{`...)
	for i := range e.NumArgs() {
		if i > 0 {
			b = append(b, ',')
		}
		name, v := e.args.arg(i)
		b = AppendJSONString(b, name)
		b = append(b, ':')
		b = v.AppendJSON(b)
	}
	return append(b, "}}"...)
}
