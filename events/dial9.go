package events

import (
	"io"
	"strconv"

	"github.com/tracecodec/tracecodec/dial9"
)

// dial9Source maps dial9 events: a schema's name is the event's name, a
// worker_id field puts the event on that worker's track, PollStart and
// PollEnd (also named PollStartEvent, PollEndEvent) on a worker are the begin
// and end of a "poll" slice; everything else is an instant.
type dial9Source struct {
	dec     *dial9.Reader
	closeFn func() error
	types   []dial9Type // by wire type id; checked against the schema pointer
	small   [256]*Track // worker tracks by id below 256
	workers map[uint64]*Track
	maxName int
	clamped int64 // times at or past 2^63, saturated (clampTime)
	n       int64 // events delivered
}

// dial9Type is what is derived once per schema.
type dial9Type struct {
	schema *dial9.Schema // nil for an unused slot
	name   string
	kind   Kind // KindBegin, KindEnd for polls; KindInstant otherwise
	hasTS  bool // the schema's events carry a timestamp
	opt    bool // worker_id is optional
	worker int  // index of the worker_id field, -1 if none
}

// Track IDs of dial9 events without a worker_id.
const dial9NoWorker = 1 << 20

func openDial9Stream(r io.Reader, o *options, closeFn func() error) (source, error) {
	d, err := dial9.NewReader(r, dial9.WithAnyVersion(), dial9.WithRecovery())
	if err != nil {
		return nil, err
	}
	return newDial9Source(d, o, closeFn), nil
}

func openDial9Bytes(b []byte, o *options) (source, error) {
	d, err := dial9.NewBytesReader(b, dial9.WithAnyVersion(), dial9.WithRecovery())
	if err != nil {
		return nil, err
	}
	return newDial9Source(d, o, nil), nil
}

func newDial9Source(d *dial9.Reader, o *options, closeFn func() error) *dial9Source {
	return &dial9Source{dec: d, closeFn: closeFn, workers: map[uint64]*Track{}, maxName: o.maxNames}
}

// newType derives what events of ev's schema map to.
func (s *dial9Source) newType(ev *dial9.Event) *dial9Type {
	id := int(ev.TypeID())
	sc := ev.Schema()
	if id >= len(s.types) {
		s.types = append(s.types, make([]dial9Type, id+1-len(s.types))...)
	}
	t := dial9Type{schema: sc, name: sc.Name, kind: KindInstant, hasTS: sc.HasTimestamp, worker: sc.FieldIndex("worker_id")}
	if t.worker >= 0 {
		t.opt = sc.Fields[t.worker].Type.IsOptional()
		switch sc.Name {
		case "PollStartEvent", "PollStart":
			t.kind, t.name = KindBegin, "poll"
		case "PollEndEvent", "PollEnd":
			t.kind, t.name = KindEnd, "poll"
		}
	}
	s.types[id] = t
	return &s.types[id]
}

func (s *dial9Source) next(e *Event) bool {
	if !s.dec.Next() {
		return false
	}
	s.n++
	ev := s.dec.Event()
	var t *dial9Type
	if id := int(ev.TypeID()); id < len(s.types) && s.types[id].schema == ev.Schema() {
		t = &s.types[id]
	} else {
		t = s.newType(ev)
	}
	e.kind, e.name = t.kind, t.name
	if t.hasTS {
		e.setUnsignedTime(ev.Timestamp(), &s.clamped)
	} else {
		e.time, e.hasTime = 0, false
	}
	if t.worker < 0 {
		e.track = dial9NoWorkerTrack
		return true
	}
	if t.opt && !ev.Field(t.worker).Present() {
		e.track = dial9NoWorkerTrack
		e.kind = KindInstant // a poll without a worker opens nothing
		e.name = ev.Name()
		return true
	}
	if w := ev.Uint(t.worker); w < uint64(len(s.small)) && s.small[w] != nil {
		e.track = s.small[w]
	} else {
		e.track = s.workerTrack(w)
	}
	return true
}

var dial9NoWorkerTrack = &Track{Kind: TrackTrace, ID: dial9NoWorker, Name: "events without a worker"}

func (s *dial9Source) workerTrack(w uint64) *Track {
	if t, ok := s.workers[w]; ok {
		return t
	}
	t := &Track{Kind: TrackWorker, ID: w}
	switch w {
	case 255:
		t.Name = "unknown worker"
	case 254:
		t.Name = "blocking"
	default:
		t.Name = "worker " + strconv.FormatUint(w, 10)
	}
	if w < uint64(len(s.small)) {
		s.small[w] = t
	} else if len(s.workers) < s.maxName {
		s.workers[w] = t
	}
	return t
}

func (s *dial9Source) err() error { return s.dec.Err() }

func (s *dial9Source) close() error {
	if s.closeFn != nil {
		return s.closeFn()
	}
	return nil
}

func (s *dial9Source) underlying() any { return s.dec }

func (s *dial9Source) numArgs() int { return s.dec.Event().NumFields() }

func (s *dial9Source) arg(i int) (string, Value) {
	ev := s.dec.Event()
	name := ev.Schema().Fields[i].Name
	v := ev.Field(i)
	if !v.Present() {
		return name, Value{}
	}
	switch v.Type().Base() {
	case dial9.TypeI64:
		return name, intValue(v.Int())
	case dial9.TypeF64:
		return name, floatValue(v.Float())
	case dial9.TypeBool:
		return name, boolValue(v.Bool())
	case dial9.TypeString:
		return name, stringValue(v.Bytes())
	case dial9.TypeBytes:
		return name, bytesValue(v.Bytes())
	case dial9.TypePooledString:
		if b, ok := s.dec.LookupString(v.PoolID()); ok {
			return name, stringValue(b)
		}
		return name, Value{}
	case dial9.TypePooledStackFrames:
		if _, ok := s.dec.LookupStack(v.PoolID()); ok {
			return name, compositeValue(s, i)
		}
		return name, Value{}
	case dial9.TypeStackFrames, dial9.TypeStringMap, dial9.TypeDynamicList, dial9.TypeDynamicMap:
		return name, compositeValue(s, i)
	}
	return name, uintValue(v.Uint())
}

func (s *dial9Source) appendArgJSON(b []byte, i int) []byte {
	return s.appendView(b, s.dec.Event().Field(i))
}

// appendView writes one dial9 value as JSON: pooled strings and stacks
// resolved (null when undefined), stacks as arrays of "0x…" strings, string
// maps, dynamic lists and maps as arrays ([key, value] pairs for maps).
func (s *dial9Source) appendView(b []byte, v dial9.View) []byte {
	if !v.Present() {
		return append(b, "null"...)
	}
	switch v.Type().Base() {
	case dial9.TypeI64:
		return strconv.AppendInt(b, v.Int(), 10)
	case dial9.TypeF64:
		return appendJSONFloat(b, v.Float())
	case dial9.TypeBool:
		return strconv.AppendBool(b, v.Bool())
	case dial9.TypeString:
		return AppendJSONBytes(b, v.Bytes())
	case dial9.TypeBytes:
		return bytesValue(v.Bytes()).AppendJSON(b)
	case dial9.TypePooledString:
		if str, ok := s.dec.LookupString(v.PoolID()); ok {
			return AppendJSONBytes(b, str)
		}
		return append(b, "null"...)
	case dial9.TypePooledStackFrames:
		if st, ok := s.dec.LookupStack(v.PoolID()); ok {
			return appendStack(b, st)
		}
		return append(b, "null"...)
	case dial9.TypeStackFrames:
		return appendStack(b, v.Stack())
	case dial9.TypeStringMap:
		b = append(b, '[')
		n := 0
		for k, val := range v.Pairs() {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = append(b, '[')
			b = AppendJSONBytes(b, k)
			b = append(b, ',')
			b = AppendJSONBytes(b, val)
			b = append(b, ']')
		}
		return append(b, ']')
	case dial9.TypeDynamicList:
		b = append(b, '[')
		n := 0
		for el := range v.Elems() {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = s.appendView(b, el)
		}
		return append(b, ']')
	case dial9.TypeDynamicMap:
		b = append(b, '[')
		n := 0
		for k, val := range v.Entries() {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = append(b, '[')
			b = s.appendView(b, k)
			b = append(b, ',')
			b = s.appendView(b, val)
			b = append(b, ']')
		}
		return append(b, ']')
	}
	return strconv.AppendUint(b, v.Uint(), 10)
}

func appendStack(b []byte, st dial9.Stack) []byte {
	b = append(b, '[')
	for i := 0; i < st.Len(); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"0x`...)
		b = strconv.AppendUint(b, st.At(i), 16)
		b = append(b, '"')
	}
	return append(b, ']')
}

// appendRecord: {"offset": the frame's byte offset (in the decompressed
// stream), "type_id": wire type id, "type": schema name}.
func (s *dial9Source) appendRecord(b []byte) []byte {
	ev := s.dec.Event()
	b = append(b, `{"offset":`...)
	b = strconv.AppendInt(b, s.dec.FrameOffset(), 10)
	b = append(b, `,"type_id":`...)
	b = strconv.AppendUint(b, uint64(ev.TypeID()), 10)
	b = append(b, `,"type":`...)
	b = AppendJSONString(b, ev.Name())
	return append(b, '}')
}
