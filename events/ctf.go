package events

import (
	"cmp"
	"math/bits"
	"slices"
	"strconv"
	"unsafe"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/traceerr"
)

// ctfSource adapts a CTF trace folder (ctf.Reader: the data streams merged
// by time), or the CTF trace folders below a folder (ctf.Session: an LTTng
// session folder, all their data streams merged by time), to the event
// layer. Each event record is a KindInstant event named by its event
// record class, timed in ns from its clock's origin, on the track of its
// data stream: a stream whose packet context has a cpu_id is on the track
// of that CPU (ID the cpu_id, named "cpu N"), which the streams of that
// CPU share — several channels, several traces of a session, the files
// LTTng's tracefile rotation splits a CPU's stream into (CHANNEL_CPU_0,
// CHANNEL_CPU_1, …); a stream without one is on its own track (ID
// ctfFileTrack + the position of its first file among the data stream
// files, sorted by name per trace, traces in session order: never a CPU
// number; named by its file name, after its trace's folder in a session),
// which the files of the same data stream class and stream_instance_id of
// its trace share (of the traces of its identity in a session, which
// babeltrace2 reads as one), as babeltrace2 groups them. A cpu_id of 2^32 or more is
// no CPU number: its stream is on a track of its own. Its arguments are the
// top-level fields of the common context, the specific context and the
// payload, in that order, without the fields the CTF reader consumes
// (unsigned integers with a role); structures, arrays and variants are
// composite values.
//
// An enumeration (an integer field class with mappings) keeps its integer
// argument and is followed by a string argument named after it plus
// "_label": the label whose ranges contain the value, several labels joined
// by "|" in the order babeltrace2 lists them, null when no label matches. A
// bit map's argument is followed the same way by its active flags, in name
// order. Inside composite values a structure member that is an enumeration
// or a bit map is followed by such a member too. An array of enumerations
// (or of arrays of them) is followed by its labels as an array of the same
// shape, null where none matches; a variant or optional whose selected
// option is an enumeration or such an array by that option's labels (null
// when the option has none or the optional is absent), as babeltrace2
// prints them. An enumeration inside a structure inside an array or variant
// has its label member in that structure.
//
// With WithCTFCallSlices, LTTng's function and system call entries and
// exits are begins and ends on the track of their thread instead
// (ctfcalls.go).
type ctfSource struct {
	r  *ctf.Reader
	ev *ctf.Event
	// traces are the trace or the session's traces; recovery and closer
	// the trace's or the session's
	traces   []*ctf.Trace
	recovery func() *traceerr.Recovery
	closer   func() error
	// tracks are the tracks of the streams that had an event, in the
	// order met (at most one per stream: the array is never reallocated,
	// so a *Track stays valid)
	tracks []Track
	// byS holds a stream's track (an index in tracks) once it had an
	// event, else −1 − its position; streamSlot caches it by the stream's
	// address
	byS        map[*ctf.Stream]int
	streamSlot [ctfSlots]ctfStreamSlot
	groups     map[ctfStreamKey]int // track of a CPU or of a data stream's files
	names      []string             // by position: the track name of a stream without cpu_id
	traceOf    []int                // by position: the stream's trace group (ctf.Session.Group: traces read as one share it)
	hostOf     []uint32             // by position: the stream's host (ctfHosts), in a session
	hostNames  []string             // the session's hosts by index
	// paths holds, in a session, each stream's file name after its
	// trace's folder (its record's "stream")
	paths map[*ctf.Stream]string
	// args are the arguments of the current event: its plan's (a plan
	// whose fields are at fixed places), else own's
	args []ctfArg
	own  []ctfArg
	// roots are the current event's scope roots (common context, specific
	// context, payload): an argument's field is roots[scope] + its j
	roots [3]int32
	// plans holds what reading an event of each event record class seen
	// needs (ctfPlan), made at its first event; planSlot caches them by
	// class id, so that an event's plan costs no map lookup.
	plans    map[*ctf.EventClass]*ctfPlan
	planSlot [ctfSlots]*ctfPlan
	// infos holds the ctfInfo of every field class seen, made with the
	// first plan holding it.
	infos map[*ctf.FieldClass]*ctfInfo
	// enums holds the labels of the enumeration and bit map field
	// classes seen.
	enums map[*ctf.FieldClass]*ctfEnum
	// matched holds the labels a value matched (ctfEnum.matches)
	matched []int32
	// calls is the state of WithCTFCallSlices (nil: off)
	calls *ctfCalls
	// text holds the UTF-8 form of the current event's UTF-16/UTF-32
	// strings: appended to, reset at the next event (a value keeps the
	// array it was cut from when text grows).
	text []byte
}

// ctfSlots is the size of ctfSource's direct-mapped caches of plans and
// tracks: a class or stream whose slot another one holds costs a map
// lookup.
const ctfSlots = 256

// ctfStreamSlot caches the track of a data stream file.
type ctfStreamSlot struct {
	st    *ctf.Stream
	track int    // an index in ctfSource.tracks
	tk    *Track // &tracks[track]
}

// ctfPlan is what reading an event of an event record class needs, made
// at its first event: the field classes of the top-level fields of its
// common context, specific context and payload, in member order, and
// the arguments (fixed when every argument's field is at a fixed place from
// its scope's root: no dynamic-length array, variant or optional before it
// in its scope; otherwise those at fixed places, and where the others
// start: vary) and the scopes they are in (a bit per scope).
type ctfPlan struct {
	class  *ctf.EventClass
	tops   [3][]ctfTop
	args   []ctfArg
	fixed  bool
	scopes uint8
	// vary holds, when the class is not fixed, where each scope's
	// arguments stop being at fixed places (ctfSource.fixArgs): args has
	// the arguments of every member, those at varying places with the
	// places of the class's last event (-1 before its first).
	vary    [3]ctfVary
	varying uint8   // the scopes with arguments at varying places (a bit per scope)
	call    ctfCall // WithCTFCallSlices: what the class is to it
}

// ctfVary is where the arguments of a scope stop being at fixed places:
// from top-level member top (-1: none do), whose field follows the field
// of the member at place prev (fixed, from the scope's root), and whose
// argument, if any, is args[arg].
type ctfVary struct {
	top, prev, arg int32
}

// ctfTop is a top-level field of an event record class: its class and,
// when it has a label argument, the argument's name (ctfSource.labelNames).
type ctfTop struct {
	*ctfInfo
	name string
}

// ctfInfo is what the event layer derives from a field class, once per
// class: whether it is an argument (hidden), whether it has a label
// argument or member (label: an enumeration or bit map, an array of them,
// or a variant or optional one of whose options is one of these — an
// enumeration in a structure has its label member in the structure, not
// one of the array or variant holding it), its labels (en: when it is an
// enumeration or bit map), the same for its members (elements, options),
// and for a structure the names of its members' label members.
type ctfInfo struct {
	fc     *ctf.FieldClass
	hidden bool
	label  bool
	utf8   bool // a string in UTF-8: its bytes are its text
	// fields is the number of event fields a field of the class takes
	// (itself and those below it), -1 when it varies
	fields  int32
	en      *ctfEnum
	members []*ctfInfo
	names   []string // structures: by member, the label member's name ("": none)
}

// ctfFileTrack is added to the position of a data stream without cpu_id to
// make its track ID: above every CPU number (LTTng's cpu_id has 32 bits; a
// wider value is not taken as one), so --thread N selects CPU N or that
// stream, never both.
const ctfFileTrack = 1 << 32

func openCTFDir(path string, o *options) (source, error) {
	tr, err := ctf.OpenDir(path)
	if err != nil {
		return nil, err
	}
	s := newCTFSource(tr.NewReader(), tr.Recovery, tr.Close)
	s.traces = []*ctf.Trace{tr}
	for _, st := range tr.Streams {
		s.addStream(st, st.Name, 0)
	}
	s.tracks = make([]Track, 0, len(s.names))
	s.withCalls(o)
	return s, nil
}

// openCTFSession opens the CTF trace folders dirs below folder path (see
// CTFSession) as one trace.
func openCTFSession(path string, dirs []string, o *options) (source, error) {
	ss, err := ctf.OpenSession(path, dirs)
	if err != nil {
		return nil, err
	}
	s := newCTFSource(ss.NewReader(), ss.Recovery, ss.Close)
	s.traces = ss.Traces
	s.paths = map[*ctf.Stream]string{}
	var hostOf []uint32
	s.hostNames, hostOf, _ = ctfHosts(ss.Traces)
	for i, tr := range ss.Traces {
		for _, st := range tr.Streams {
			s.paths[st] = ss.Dirs[i] + "/" + st.Name
			s.addStream(st, s.paths[st], ss.Group(i))
			s.hostOf = append(s.hostOf, hostOf[i])
		}
	}
	s.tracks = make([]Track, 0, len(s.names))
	s.withCalls(o)
	return s, nil
}

// withCalls sets up WithCTFCallSlices when o asks for it.
func (s *ctfSource) withCalls(o *options) {
	if o != nil && o.ctfCalls {
		s.calls = newCTFCalls(s.traces, cap(s.tracks), o.maxNames)
	}
}

func newCTFSource(r *ctf.Reader, recovery func() *traceerr.Recovery, closer func() error) *ctfSource {
	return &ctfSource{r: r, recovery: recovery, closer: closer, byS: map[*ctf.Stream]int{}, groups: map[ctfStreamKey]int{},
		plans: map[*ctf.EventClass]*ctfPlan{}, infos: map[*ctf.FieldClass]*ctfInfo{},
		enums: map[*ctf.FieldClass]*ctfEnum{}}
}

// addStream adds the data stream file st, whose track name is name, of
// trace k, at the next position.
func (s *ctfSource) addStream(st *ctf.Stream, name string, k int) {
	s.byS[st] = -1 - len(s.names)
	s.names = append(s.names, name)
	s.traceOf = append(s.traceOf, k)
}

// ctfStreamKey identifies the track of a CPU (by 'c': id is the cpu_id),
// or a data stream across its files (by 'i': its trace, class and
// stream_instance_id).
type ctfStreamKey struct {
	trace int
	class uint64
	by    byte
	id    uint64
}

// streamSlotOf is the streamSlot of stream st.
func (s *ctfSource) streamSlotOf(st *ctf.Stream) *ctfStreamSlot {
	h := uintptr(unsafe.Pointer(st))
	return &s.streamSlot[(h>>6^h>>14)%ctfSlots]
}

// planSlotOf is the planSlot of event record class c.
func (s *ctfSource) planSlotOf(c *ctf.EventClass) **ctfPlan {
	return &s.planSlot[(c.ID+c.StreamClassID*97)%ctfSlots]
}

// track returns the track of stream st, whose current packet is p (an
// index in s.tracks), through streamSlot, as next finds it (next does it
// by hand: track is too big to be inlined).
func (s *ctfSource) track(st *ctf.Stream, p *ctf.Packet) int {
	if slot := s.streamSlotOf(st); slot.st == st {
		return slot.track
	}
	return s.trackMiss(st, p)
}

// trackMiss fills st's streamSlot with its track (trackIndex) and returns
// it.
func (s *ctfSource) trackMiss(st *ctf.Stream, p *ctf.Packet) int {
	slot := s.streamSlotOf(st)
	i := s.trackIndex(st, p)
	*slot = ctfStreamSlot{st, i, &s.tracks[i]}
	return i
}

// trackIndex returns the index in s.tracks of the track of stream st: on
// the stream's first event, the track of its CPU (p's cpu_id) or of an
// earlier file of the same data stream, else a new one.
func (s *ctfSource) trackIndex(st *ctf.Stream, p *ctf.Packet) int {
	i := s.byS[st]
	if i >= 0 {
		return i
	}
	pos := -1 - i
	var key ctfStreamKey
	cpu, hasCPU := ctfPacketUint(p, p.ContextRoot, "cpu_id")
	hasCPU = hasCPU && cpu < ctfFileTrack // a wider one is no CPU number
	host := 0
	if s.hostOf != nil {
		host = int(s.hostOf[pos])
	}
	if hasCPU {
		key = ctfStreamKey{trace: host, by: 'c', id: cpu}
	} else if id, ok := ctfPacketUint(p, p.HeaderRoot, "stream_instance_id"); ok {
		key = ctfStreamKey{s.traceOf[pos], p.Class.ID, 'i', id}
	}
	if key.by != 0 {
		if g, ok := s.groups[key]; ok {
			s.byS[st] = g
			return g
		}
	}
	tk := Track{Kind: TrackStream, ID: ctfFileTrack + uint64(pos), Name: s.names[pos]}
	if hasCPU {
		// a CPU of a session's host after the first: a track apart, with
		// the ID of its first file's; named by its host when there are
		// several
		if host == 0 {
			tk.ID = cpu
		}
		tk.Name = "cpu " + strconv.FormatUint(cpu, 10)
		if len(s.hostNames) > 1 {
			tk.Name += " (" + s.hostNames[host] + ")"
		}
	}
	i = len(s.tracks)
	s.tracks = append(s.tracks, tk) // within its capacity: a track per stream at most
	s.byS[st] = i
	if key.by != 0 {
		s.groups[key] = i
	}
	return i
}

func (s *ctfSource) next(e *Event) bool {
	if !s.r.Next() {
		return false
	}
	ev := s.r.Event()
	s.ev = ev
	s.text = s.text[:0]
	e.reset()
	e.kind = KindInstant
	c := ev.Class
	e.name = c.Name
	st := ev.Stream
	p := st.Packet()
	if p.Class.Clock != nil {
		e.time, e.hasTime = ev.NS(), true
	}
	// the track and the plan through their slots (track and plan, by hand)
	ti := 0
	if slot := s.streamSlotOf(st); slot.st == st {
		ti, e.track = slot.track, slot.tk
	} else {
		ti = s.trackMiss(st, p)
		e.track = &s.tracks[ti]
	}
	pl := *s.planSlotOf(c)
	if pl == nil || pl.class != c {
		pl = s.planMiss(ev)
	}
	cc, sc, pc := ev.CommonContext, ev.SpecificContext, ev.Payload
	s.roots = [3]int32{cc, sc, pc}
	// a scope of the plan's arguments absent from the event (root < 0)?
	absent := uint8(uint32(cc)>>31 | uint32(sc)>>31<<1 | uint32(pc)>>31<<2)
	if pl.scopes&absent != 0 {
		s.walkArgs(pl)
	} else if s.args = pl.args; pl.varying != 0 {
		s.fixArgs(pl)
	}
	if pl.call.role != ctfCallNone {
		s.call(e, &pl.call, ti)
	}
	return true
}

// walkArgs makes the current event's argument list, of plan pl, in s.own
// by walking the top-level fields of each scope present.
func (s *ctfSource) walkArgs(pl *ctfPlan) {
	ev := s.ev
	s.own = s.own[:0]
	for r, root := range s.roots {
		if root < 0 {
			continue
		}
		tops := pl.tops[r]
		k := 0
		for j := root + 1; j < ev.Fields[root].End && k < len(tops); j, k = ev.Fields[j].End, k+1 {
			t := &tops[k]
			if t.hidden {
				continue
			}
			s.own = append(s.own, ctfArg{t: t, j: j - root, scope: uint8(r)})
			if t.label {
				s.own = append(s.own, ctfArg{t: t, j: j - root, scope: uint8(r), label: true})
			}
		}
	}
	s.args = s.own
}

// fixArgs makes the current event's argument list, s.args, of plan pl
// (not fixed, its scopes present) right: pl.args, whose places are right
// up to each scope's first top-level field at a varying place, gets the
// places from there on, found by walking the fields (it is the list of
// the class's last event: nothing is copied).
func (s *ctfSource) fixArgs(pl *ctfPlan) {
	ev := s.ev
	for m := pl.varying; m != 0; m &= m - 1 {
		r := bits.TrailingZeros8(m) % 3
		v := &pl.vary[r]
		root := s.roots[r]
		end := ev.Fields[root].End
		tops := pl.tops[r]
		args := pl.args
		i := int(v.arg)
		j := ev.Fields[root+v.prev].End // the field after the one at a fixed place before it
		k := int(v.top)
		for ; j < end && k < len(tops); j, k = ev.Fields[j].End, k+1 {
			t := &tops[k]
			if t.hidden {
				continue
			}
			args[i].j = j - root
			i++
			if t.label {
				args[i].j = j - root
				i++
			}
		}
		if k < len(tops) { // fewer fields than members (not reached: the decoder reads every member)
			s.walkArgs(pl)
			return
		}
	}
}

// plan returns the plan of the event record class of ev: through
// planSlot, else planMiss, as next finds it (next does it by hand: plan
// is too big to be inlined).
func (s *ctfSource) plan(ev *ctf.Event) *ctfPlan {
	c := ev.Class
	if p := *s.planSlotOf(c); p != nil && p.class == c {
		return p
	}
	return s.planMiss(ev)
}

// planMiss returns the plan of the event record class of ev from s.plans,
// else made (newPlan), and puts it in its planSlot.
func (s *ctfSource) planMiss(ev *ctf.Event) *ctfPlan {
	c := ev.Class
	p, ok := s.plans[c]
	if !ok {
		p = s.newPlan(c, ev.Stream.Packet().Class.CommonContext)
		if s.calls != nil {
			s.callPlan(p, c)
		}
		s.plans[c] = p
	}
	*s.planSlotOf(c) = p
	return p
}

// newPlan makes the plan of event record class c, whose data stream
// class's common context is common: the infos of the members of its scopes
// (common, its specific context and its payload) and the names of their
// label arguments (labelNames).
func (s *ctfSource) newPlan(c *ctf.EventClass, common *ctf.FieldClass) *ctfPlan {
	p := &ctfPlan{class: c}
	var fields [3][]*ctf.FieldClass
	for k, fc := range [3]*ctf.FieldClass{common, c.SpecificContext, c.Payload} {
		if fc != nil {
			fields[k] = fc.Members
		}
	}
	names := s.labelNames(fields)
	p.fixed = true
	for k, ms := range fields {
		p.tops[k] = make([]ctfTop, len(ms))
		p.vary[k] = ctfVary{top: -1}
		j, prev := int32(1), int32(0) // from the scope's root
		for q, m := range ms {
			t := &p.tops[k][q]
			*t = ctfTop{s.info(m), names[k][q]}
			if j < 0 && p.vary[k].top < 0 {
				p.vary[k] = ctfVary{top: int32(q), prev: prev, arg: int32(len(p.args))}
			}
			if !t.hidden {
				p.fixed = p.fixed && j >= 0
				p.scopes |= 1 << k
				p.args = append(p.args, ctfArg{t: t, j: j, scope: uint8(k)})
				if t.label {
					p.args = append(p.args, ctfArg{t: t, j: j, scope: uint8(k), label: true})
				}
			}
			if j >= 0 {
				prev = j
			}
			j = ctfAddFields(j, t.fields)
		}
		if p.vary[k].top >= 0 && int(p.vary[k].arg) == len(p.args) {
			p.vary[k].top = -1 // only hidden fields at varying places: no argument to place
		}
		if p.vary[k].top >= 0 {
			p.varying |= 1 << k
		}
	}
	return p
}

// ctfMaxFields bounds the fields counted at fixed places (ctf.Limits'
// default MaxFieldsPerEvent).
const ctfMaxFields = 1 << 20

// ctfAddFields returns a + b, event field counts, -1 when either is (it
// varies) or the sum exceeds ctfMaxFields.
func ctfAddFields(a, b int32) int32 {
	if a < 0 || b < 0 || a+b > ctfMaxFields {
		return -1
	}
	return a + b
}

// info returns the ctfInfo of field class fc: made at its first use, with
// its members' (as deep as compiled classes nest: ctf.Limits.MaxDepth),
// read from s.infos after.
func (s *ctfSource) info(fc *ctf.FieldClass) *ctfInfo {
	if in, ok := s.infos[fc]; ok {
		return in
	}
	in := &ctfInfo{fc: fc, hidden: ctf.Hidden(fc), fields: 1, utf8: fc.Encoding() == "utf-8"}
	s.infos[fc] = in
	if ctfLabelled(fc) {
		in.label, in.en = true, s.enum(fc)
	}
	in.members = make([]*ctfInfo, len(fc.Members))
	for k, m := range fc.Members {
		in.members[k] = s.info(m)
	}
	switch fc.Kind {
	case ctf.KindArray, ctf.KindVariant, ctf.KindOptional:
		// an enumeration or bit map in its elements or options outside
		// structures (a structure's label is never set), through arrays,
		// variants and optionals
		for _, m := range in.members {
			in.label = in.label || m.label
		}
		in.fields = -1
		if _, static := fc.Model.(*ctf2meta.StaticLengthArray); static && len(in.members) == 1 {
			if n := in.members[0].fields; n > 0 && fc.Length <= uint64(ctfMaxFields/n) {
				in.fields = ctfAddFields(1, int32(fc.Length)*n)
			}
		}
	case ctf.KindStruct:
		in.names = s.labelNames([3][]*ctf.FieldClass{fc.Members})[0]
		for _, m := range in.members {
			in.fields = ctfAddFields(in.fields, m.fields)
		}
	}
	return in
}

// option returns the info of the option that field j (a variant or an
// optional of class info in, present: j+1 < its End) holds.
func (s *ctfSource) option(in *ctfInfo, j int) *ctfInfo {
	v := s.ev.Fields[j].V
	if in.fc.Kind == ctf.KindOptional {
		v = 0
	}
	if v < uint64(len(in.members)) {
		return in.members[v]
	}
	return s.info(s.ev.FieldClass(j + 1))
}

// member returns the info of the k-th member (element) of a field of
// class info in whose k-th member field is field i.
func (s *ctfSource) member(in *ctfInfo, k, i int) *ctfInfo {
	if k < len(in.members) {
		return in.members[k]
	}
	return s.info(s.ev.FieldClass(i))
}

// ctfPacketUint returns the unsigned integer field name at the top of the
// packet header or context structure root.
func ctfPacketUint(p *ctf.Packet, root int32, name string) (uint64, bool) {
	if root < 0 {
		return 0, false
	}
	f := &p.Fields[root]
	for j := root + 1; j < f.End; j = p.Fields[j].End {
		if fc := p.FieldClass(int(j)); fc.Name == name && fc.Kind == ctf.KindUint {
			return p.Fields[j].V, true
		}
	}
	return 0, false
}

func (s *ctfSource) err() error      { return s.r.Err() }
func (s *ctfSource) close() error    { return s.closer() }
func (s *ctfSource) underlying() any { return s.r }
func (s *ctfSource) numArgs() int    { return len(s.args) }

func (s *ctfSource) arg(i int) (string, Value) {
	a := s.args[i]
	j := int(a.j + s.roots[a.scope])
	ev := s.ev
	f := &ev.Fields[j]
	fc := a.t.fc
	if a.label {
		if en := a.t.en; en != nil {
			return a.t.name, s.label(en, f.V)
		}
		if fc.Kind == ctf.KindArray {
			return a.t.name, compositeValue(s, i)
		}
		// a variant or optional: the label of its selected option (through
		// variants and optionals selecting variants and optionals)
		in := a.t.ctfInfo
		for k := j; in.fc.Kind == ctf.KindVariant || in.fc.Kind == ctf.KindOptional; k++ {
			if k+1 >= int(ev.Fields[k].End) {
				return a.t.name, Value{}
			}
			in = s.option(in, k)
			if in.en != nil {
				return a.t.name, s.label(in.en, ev.Fields[k+1].V)
			} else if in.fc.Kind == ctf.KindArray && in.label {
				return a.t.name, compositeValue(s, i)
			}
		}
		return a.t.name, Value{}
	}
	switch fc.Kind {
	case ctf.KindSint, ctf.KindVarSint:
		return fc.Name, intValue(f.Int())
	case ctf.KindUint, ctf.KindVarUint:
		return fc.Name, uintValue(f.V)
	case ctf.KindFloat:
		return fc.Name, floatValue(f.Float())
	case ctf.KindBool:
		return fc.Name, boolValue(f.V != 0)
	case ctf.KindString:
		return fc.Name, stringValue(s.str(a.t.ctfInfo, j))
	case ctf.KindBlob:
		return fc.Name, bytesValue(ev.Bytes(j))
	}
	return fc.Name, compositeValue(s, i)
}

// str returns the UTF-8 text of the string field j of the current event,
// of class info in: its bytes, or for UTF-16/UTF-32 their conversion, valid
// until the next event.
func (s *ctfSource) str(in *ctfInfo, j int) []byte {
	ev := s.ev
	if in.utf8 {
		return ev.Bytes(j)
	}
	k := len(s.text)
	s.text = ev.AppendText(s.text, j)
	return s.text[k:len(s.text):len(s.text)]
}

// appendArgJSON renders a composite argument: structures as objects,
// arrays as arrays, variants as their selected option, optionals as the
// field or null.
func (s *ctfSource) appendArgJSON(b []byte, i int) []byte {
	a := s.args[i]
	if j := int(a.j + s.roots[a.scope]); a.label {
		return s.appendLabelJSON(b, j, a.t.ctfInfo)
	} else {
		return s.appendJSON(b, j, a.t.ctfInfo)
	}
}

// appendLabelJSON renders the labels of field j, of class info in, one
// with a label (or an option of one): an enumeration's or bit map's label
// (null when none matches), an array's as an array, a variant's or
// optional's as its selected option's (null when it has none).
func (s *ctfSource) appendLabelJSON(b []byte, j int, in *ctfInfo) []byte {
	ev := s.ev
	f := &ev.Fields[j]
	switch {
	case in.en != nil:
		return s.label(in.en, f.V).AppendJSON(b)
	case in.fc.Kind == ctf.KindArray:
		b = append(b, '[')
		for k := j + 1; k < int(f.End); k = int(ev.Fields[k].End) {
			if k > j+1 {
				b = append(b, ',')
			}
			b = s.appendLabelJSON(b, k, s.member(in, 0, k))
		}
		return append(b, ']')
	case (in.fc.Kind == ctf.KindVariant || in.fc.Kind == ctf.KindOptional) && j+1 < int(f.End):
		if o := s.option(in, j); o.label {
			return s.appendLabelJSON(b, j+1, o)
		}
	}
	return append(b, "null"...)
}

// labelNames names the label arguments of a scope's fields (the members
// of up to three structures, in order; hidden ones are no arguments), by
// structure and member ("": none): a field's name + "_label", with
// "_label" appended again while that name is taken — by a field of the
// scope (a payload field literally named x_label beside an enumeration x
// keeps its name; x's labels are x_label_label) or by an earlier label.
func (s *ctfSource) labelNames(fields [3][]*ctf.FieldClass) [3][]string {
	taken := map[string]bool{}
	for _, ms := range fields {
		for _, m := range ms {
			if !ctf.Hidden(m) {
				taken[m.Name] = true
			}
		}
	}
	var names [3][]string
	for k, ms := range fields {
		names[k] = make([]string, len(ms))
		for q, m := range ms {
			if in := s.info(m); in.hidden || !in.label {
				continue
			}
			name := m.Name + "_label"
			for taken[name] {
				name += "_label"
			}
			taken[name] = true
			names[k][q] = name
		}
	}
	return names
}

func (s *ctfSource) appendJSON(b []byte, j int, in *ctfInfo) []byte {
	ev := s.ev
	fc := in.fc
	f := &ev.Fields[j]
	switch fc.Kind {
	case ctf.KindStruct:
		b = append(b, '{')
		n := 0
		for k, q := j+1, 0; k < int(f.End); k, q = int(ev.Fields[k].End), q+1 {
			c := s.member(in, q, k)
			if c.hidden {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, c.fc.Name)
			b = append(b, ':')
			b = s.appendJSON(b, k, c)
			n++
			if c.label {
				b = append(b, ',')
				if q < len(in.names) {
					b = AppendJSONString(b, in.names[q])
				} else { // not reached: a structure field has its class's members
					b = AppendJSONString(b, c.fc.Name+"_label")
				}
				b = append(b, ':')
				b = s.appendLabelJSON(b, k, c)
			}
		}
		return append(b, '}')
	case ctf.KindArray:
		b = append(b, '[')
		for k := j + 1; k < int(f.End); k = int(ev.Fields[k].End) {
			if k > j+1 {
				b = append(b, ',')
			}
			b = s.appendJSON(b, k, s.member(in, 0, k))
		}
		return append(b, ']')
	case ctf.KindVariant, ctf.KindOptional:
		if j+1 < int(f.End) {
			return s.appendJSON(b, j+1, s.option(in, j))
		}
		return append(b, "null"...)
	case ctf.KindSint, ctf.KindVarSint:
		return intValue(f.Int()).AppendJSON(b)
	case ctf.KindUint, ctf.KindVarUint:
		return uintValue(f.V).AppendJSON(b)
	case ctf.KindFloat:
		return floatValue(f.Float()).AppendJSON(b)
	case ctf.KindBool:
		return boolValue(f.V != 0).AppendJSON(b)
	case ctf.KindString:
		return stringValue(s.str(in, j)).AppendJSON(b)
	}
	return bytesValue(ev.Bytes(j)).AppendJSON(b)
}

// appendRecord locates the event record: its stream file (after its
// trace's folder in a session), packet index,
// byte offset and event record class id.
func (s *ctfSource) appendRecord(b []byte) []byte {
	ev := s.ev
	b = append(b, `{"stream":`...)
	if name, ok := s.paths[ev.Stream]; ok {
		b = AppendJSONString(b, name)
	} else {
		b = AppendJSONString(b, ev.Stream.Name)
	}
	b = append(b, `,"packet":`...)
	b = strconv.AppendInt(b, int64(ev.Stream.Packet().Index), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendUint(b, ev.Offset/8, 10)
	b = append(b, `,"event_class_id":`...)
	b = strconv.AppendUint(b, ev.Class.ID, 10)
	return append(b, '}')
}

// ctfArg is an argument of a CTF event: field j from the root of its
// scope (0: common context, 1: specific context, 2: payload), top-level
// field t of its class, or its label.
type ctfArg struct {
	t     *ctfTop
	j     int32
	label bool
	scope uint8
}

// ctfLabelled reports whether a field of class fc has a label argument:
// an integer field class with mappings (an enumeration or a bit map).
func ctfLabelled(fc *ctf.FieldClass) bool {
	if len(fc.Mappings) == 0 {
		return false
	}
	switch fc.Kind {
	case ctf.KindUint, ctf.KindSint, ctf.KindVarUint, ctf.KindVarSint:
		return true
	}
	return false
}

// ctfEnum holds what the label argument of an enumeration or bit map field
// class needs, made once per class so that finding a value's labels
// allocates nothing.
type ctfEnum struct {
	bitMap bool
	// flip is 1<<63 for signed classes: bounds and values with it flipped
	// compare as unsigned numbers in the signed order.
	flip   uint64
	labels []ctfLabel // in ctf.FieldClass.Mappings order
	// An enumeration tabulated (ctfDenseSpan) looks its labels up in
	// dense: for v^flip − base, 0 when no label matches, else 1 + the
	// index in combos of the label argument's text.
	base   uint64
	dense  []uint16
	combos [][]byte
	// Otherwise an enumeration's ranges are a centered interval tree
	// (tree[0] the root, when any) and a bit map's flags are listed per
	// bit (byBit): a value's labels are found in O(log ranges + matches),
	// not by scanning every mapping (hostile metadata may hold huge
	// enumerations).
	tree  []ctfNode
	byBit [64][]int32
}

// ctfScanFlags: a bit map of at most this many flags has its flags tested
// one by one (cheaper than byBit's sort for the few flags bit maps have).
const ctfScanFlags = 16

// ctfNode is a node of an enumeration's interval tree: the ranges holding
// center, by lowest bound ascending and by highest bound descending, and
// the subtrees of the ranges below and above center (-1: none).
type ctfNode struct {
	center      uint64
	byLo, byHi  []ctfSpan
	left, right int32
}

// ctfSpan is a range of label (an index in ctfEnum.labels), bounds flipped.
type ctfSpan struct {
	lo, hi uint64
	label  int32
}

type ctfLabel struct {
	name   []byte
	ranges []ctf.Range // enumerations: bounds with flip applied
	mask   uint64      // bit maps: the flag's bits
}

// ctfLabelSep joins the labels of a value that several mappings contain.
const ctfLabelSep = '|'

// An enumeration's labels are tabulated per value when it is at most
// ctfDenseSpan values wide (highest bound − lowest + 1), with at most
// ctfDenseRanges labels and as many ranges, its label names take at most
// ctfDenseNames bytes and the table's texts at most ctfDenseBytes: the
// table of a field class costs a bounded time and memory, whatever the
// metadata.
const (
	ctfDenseSpan   = 256
	ctfDenseRanges = 32
	ctfDenseNames  = 4 << 10
	ctfDenseBytes  = 64 << 10
)

// enum returns the labels of field class fc, one that ctfLabelled
// accepts: made at its first use, read from s.enums after.
func (s *ctfSource) enum(fc *ctf.FieldClass) *ctfEnum {
	en, ok := s.enums[fc]
	if !ok {
		en = newCTFEnum(fc)
		s.enums[fc] = en
	}
	return en
}

func newCTFEnum(fc *ctf.FieldClass) *ctfEnum {
	en := &ctfEnum{labels: make([]ctfLabel, len(fc.Mappings))}
	_, en.bitMap = fc.Model.(*ctf2meta.FixedLengthBitMap)
	if fc.Kind == ctf.KindSint || fc.Kind == ctf.KindVarSint {
		en.flip = 1 << 63
	}
	lo, hi, ranges, names := ^uint64(0), uint64(0), 0, 0
	for k, m := range fc.Mappings {
		l := &en.labels[k]
		l.name = []byte(m.Name)
		names += len(m.Name)
		if en.bitMap {
			for _, r := range m.Ranges {
				for b := r.Lo; b <= r.Hi && b < 64; b++ {
					l.mask |= 1 << b
				}
			}
			continue
		}
		l.ranges = make([]ctf.Range, len(m.Ranges))
		for q, r := range m.Ranges {
			l.ranges[q] = ctf.Range{Lo: r.Lo ^ en.flip, Hi: r.Hi ^ en.flip}
			lo, hi = min(lo, l.ranges[q].Lo), max(hi, l.ranges[q].Hi)
		}
		ranges += len(m.Ranges)
	}
	if en.bitMap || lo > hi || hi-lo >= ctfDenseSpan || len(en.labels) > ctfDenseRanges ||
		ranges > ctfDenseRanges || names > ctfDenseNames {
		en.index()
		return en
	}
	en.base = lo
	en.dense = make([]uint16, hi-lo+1)
	index := map[string]uint16{}
	var text []byte
	size := 0
	for x := range en.dense {
		var n int
		text, n = en.appendLabels(text[:0], (lo+uint64(x))^en.flip)
		if n == 0 {
			continue
		}
		k, ok := index[string(text)]
		if !ok {
			if size += len(text); size > ctfDenseBytes {
				en.base, en.dense, en.combos = 0, nil, nil
				en.index()
				return en
			}
			en.combos = append(en.combos, append([]byte(nil), text...))
			k = uint16(len(en.combos))
			index[string(text)] = k
		}
		en.dense[x] = k
	}
	return en
}

// index builds what label looks a value's labels up in when en is not
// tabulated: the flags of each bit of a bit map, or the interval tree of
// an enumeration's ranges.
func (en *ctfEnum) index() {
	if en.bitMap {
		for q := range en.labels {
			for b := range 64 {
				if en.labels[q].mask&(1<<b) != 0 {
					en.byBit[b] = append(en.byBit[b], int32(q))
				}
			}
		}
		return
	}
	var spans []ctfSpan
	for q := range en.labels {
		for _, r := range en.labels[q].ranges {
			if r.Lo <= r.Hi {
				spans = append(spans, ctfSpan{r.Lo, r.Hi, int32(q)})
			}
		}
	}
	en.tree = make([]ctfNode, 0, len(spans)/4+1)
	en.build(spans, make([]uint64, 0, 2*len(spans)))
}

// build adds the interval tree of spans to en.tree and returns its root's
// index (-1 when spans is empty). Its center is the median of the spans'
// bounds, so each subtree holds at most half of the spans: the depth is
// at most log2(spans) + 1.
func (en *ctfEnum) build(spans []ctfSpan, bounds []uint64) int32 {
	if len(spans) == 0 {
		return -1
	}
	bounds = bounds[:0]
	for _, sp := range spans {
		bounds = append(bounds, sp.lo, sp.hi)
	}
	slices.Sort(bounds)
	center := bounds[len(bounds)/2]
	var below, above, here []ctfSpan
	for _, sp := range spans {
		switch {
		case sp.hi < center:
			below = append(below, sp)
		case sp.lo > center:
			above = append(above, sp)
		default:
			here = append(here, sp)
		}
	}
	i := int32(len(en.tree))
	en.tree = append(en.tree, ctfNode{center: center, byLo: here, byHi: slices.Clone(here)})
	n := &en.tree[i]
	slices.SortFunc(n.byLo, func(a, b ctfSpan) int { return cmp.Compare(a.lo, b.lo) })
	slices.SortFunc(n.byHi, func(a, b ctfSpan) int { return cmp.Compare(b.hi, a.hi) })
	left := en.build(below, bounds)
	right := en.build(above, bounds)
	en.tree[i].left, en.tree[i].right = left, right
	return i
}

// matches appends to out the labels (indices in en.labels) holding v, in
// en.labels order, each once.
func (en *ctfEnum) matches(out []int32, v uint64) []int32 {
	if en.bitMap && len(en.labels) <= ctfScanFlags {
		for q := range en.labels {
			if v&en.labels[q].mask != 0 {
				out = append(out, int32(q))
			}
		}
		return out
	}
	if en.bitMap {
		for m := v; m != 0; m &= m - 1 {
			out = append(out, en.byBit[bits.TrailingZeros64(m)]...)
		}
	} else {
		v ^= en.flip
		for i := int32(0); i >= 0 && int(i) < len(en.tree); {
			n := &en.tree[i]
			switch {
			case v < n.center:
				for _, sp := range n.byLo {
					if sp.lo > v {
						break
					}
					out = append(out, sp.label)
				}
				i = n.left
			case v > n.center:
				for _, sp := range n.byHi {
					if sp.hi < v {
						break
					}
					out = append(out, sp.label)
				}
				i = n.right
			default:
				for _, sp := range n.byLo {
					out = append(out, sp.label)
				}
				i = -1
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// appendLabels appends the labels that contain v, joined by ctfLabelSep,
// and returns how many there were (scanning every label: what tabulating
// a narrow enumeration runs, and the reference matches is checked by).
func (en *ctfEnum) appendLabels(b []byte, v uint64) ([]byte, int) {
	n := 0
	for q := range en.labels {
		l := &en.labels[q]
		if !l.has(v, en) {
			continue
		}
		if n > 0 {
			b = append(b, ctfLabelSep)
		}
		b = append(b, l.name...)
		n++
	}
	return b, n
}

// label returns the label argument of value v of a field of en's class:
// the label that matches, the matching labels joined by ctfLabelSep (for
// enumerations not tabulated and bit maps in s.text, valid until the next
// event), or null when none does.
func (s *ctfSource) label(en *ctfEnum, v uint64) Value {
	if en.dense != nil {
		x := v ^ en.flip - en.base
		if x >= uint64(len(en.dense)) || en.dense[x] == 0 {
			return Value{}
		}
		return stringValue(en.combos[en.dense[x]-1])
	}
	s.matched = en.matches(s.matched[:0], v)
	if len(s.matched) == 0 {
		return Value{}
	}
	k := len(s.text)
	for n, q := range s.matched {
		if n > 0 {
			s.text = append(s.text, ctfLabelSep)
		}
		s.text = append(s.text, en.labels[q].name...)
	}
	return stringValue(s.text[k:len(s.text):len(s.text)])
}

// has reports whether label l holds value v.
func (l *ctfLabel) has(v uint64, en *ctfEnum) bool {
	if en.bitMap {
		return v&l.mask != 0
	}
	v ^= en.flip
	for _, r := range l.ranges {
		if v >= r.Lo && v <= r.Hi {
			return true
		}
	}
	return false
}
