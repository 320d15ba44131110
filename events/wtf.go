package events

import (
	"bufio"
	"io"
	"strconv"

	"github.com/tracecodec/tracecodec/wtfcff"
)

// wtfSource yields every event record of a WTF trace, chunk after chunk:
// definitions and zone records as KindMetadata, scope enters (class-1 events,
// wtf.scope#enter named by its name argument) as KindBegin, wtf.scope#leave
// as KindEnd named by the scope it closes (paired per zone as the reference's
// database does), everything else as KindInstant, on the zone's track.
type wtfSource struct {
	chunks  *wtfcff.Reader
	dec     *wtfcff.Decoder
	scopes  *wtfcff.ScopeTracker // WithScopeData only
	closeFn func() error
	e       error

	// Per-zone state, with the last zone's in front of the map (lastZone
	// is &noZoneYet when the next event must go through the map).
	zones    map[*wtfcff.Zone]*wtfZone
	lastZone *wtfcff.Zone
	last     *wtfZone
	prev     *wtfZone // the state of the zone before last, or nil
	nTracks  int      // zone tracks so far; IDs from 1, 0 is "no zone"

	enterType *wtfcff.EventType // the last wtf.scope#enter type seen
	names     map[string]string // interned scope names
	cache     [256]string       // in front of names (see enterName)
	maxName   int

	cur      *wtfcff.Event // dec.Event(), the current event
	closed   *wtfcff.Scope // the scope the current wtf.scope#leave closed (WithScopeData)
	pairArgs bool          // WithScopeData and WithPairing: closed's arguments are the event's
	parsed   bool          // members holds closed's arguments
	members  []scopeArg
	keys     map[string]string // member keys as written → names
	unq      []byte            // unescaped strings of members

	n int64 // events delivered, for Reader.Recovery
}

// noZoneYet is a wtfSource's lastZone before the first event and after a
// zone record: no event's zone.
var noZoneYet wtfcff.Zone

// wtfZone is what a wtfSource keeps per zone: its track and the names of its
// open scopes.
type wtfZone struct {
	zone  *wtfcff.Zone
	track Track
	open  wtfStack
}

func openWTF(ra io.ReaderAt, size int64, d Detection, o *options, closeFn func() error) (source, error) {
	// The reader picks the container (binary, JSON, legacy) by the first
	// bytes; damaged files named .wtf-trace get its error. A torn last chunk
	// is read as far as it goes (Reader.Recovered reports it).
	src, err := wtfcff.NewReader(bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 256<<10), wtfcff.WithRecovery())
	if err != nil {
		return nil, err
	}
	return newWTFSource(src, o, closeFn), nil
}

// openWTFBytes is openWTF over a file in memory: chunks are views of b.
func openWTFBytes(b []byte, o *options) (source, error) {
	src, err := wtfcff.NewBytesReader(b, wtfcff.WithRecovery())
	if err != nil {
		return nil, err
	}
	return newWTFSource(src, o, nil), nil
}

func newWTFSource(src *wtfcff.Reader, o *options, closeFn func() error) *wtfSource {
	var scopes *wtfcff.ScopeTracker
	if o.scopeData {
		scopes = wtfcff.NewScopeTracker()
	}
	dec := wtfcff.NewDecoder()
	return &wtfSource{scopes: scopes, pairArgs: o.scopeData && o.pairing, cur: dec.Event(), lastZone: &noZoneYet,
		chunks: src, dec: dec, closeFn: closeFn,
		zones: map[*wtfcff.Zone]*wtfZone{}, names: map[string]string{}, maxName: o.maxNames,
	}
}

func (s *wtfSource) next(e *Event) bool {
	// Without a chunk (or at its end, or after an error) the decoder's
	// Next is false: nextChunk sorts it out.
	if !s.dec.Next() && !s.nextChunk() {
		return false
	}
	s.n++
	ev := s.cur // the decoder's event: s.dec.Event()
	z := s.last
	if ev.Zone != s.lastZone {
		z = s.zone(ev.Zone)
	}
	e.hasTime, e.time = true, int64(ev.Time)*1000
	e.track = &z.track
	switch {
	case ev.IsInternal():
		e.kind, e.name = KindMetadata, ev.Name()
		// Writers stamp the definitions and zone records they put
		// ahead of the trace with time 0, which is no time of the
		// trace's clock (a span from it would start at 0): such a
		// record has no time. One stamped when it happened keeps it.
		e.hasTime = ev.Time != 0
		// Internal events are wtf.event#define, wtf.zone#set and
		// wtf.zone#create and #delete, the two of 15 bytes. A zone record
		// may rename a zone (the first wtf.zone#create renames the default
		// zone in place, and this record is on the renamed track): the
		// track is renamed now, and the next event looks its zone up
		// again, which renames that one's.
		if len(e.name) == len("wtf.zone#create") {
			s.zoneRecord(z, ev.Zone)
		}
	case ev.IsScopeEnter():
		e.kind, e.name = KindBegin, ev.Name()
		if ev.Type == s.enterType || e.name == "wtf.scope#enter" {
			s.enterType = ev.Type
			e.name = s.enterName(ev)
		}
		z.open.push(e.name)
	case ev.IsScopeLeave():
		// wtf.scope#leave closes the innermost open scope of the current
		// zone, as the reference's database (and wtfcff.ScopeTracker) pair
		// them; with nothing open it keeps its own name.
		e.kind, e.name = KindEnd, ev.Name()
		if n, ok := z.open.pop(); ok {
			e.name = n
		}
	default:
		e.kind, e.name = KindInstant, ev.Name()
	}
	return true
}

// nextChunk is next at the end of a chunk (or before the first): it stops
// at the decoder's error, else moves the decoder to the first event of the
// next chunk that has one.
func (s *wtfSource) nextChunk() bool {
	for s.e == nil {
		if err := s.dec.Err(); err != nil {
			s.e = err
			return false
		}
		if !s.chunks.Next() {
			s.e = s.chunks.Err()
			return false
		}
		c := s.chunks.Chunk()
		if c.Type == wtfcff.ChunkFileHeader {
			if _, err := c.FileHeader(); err != nil {
				s.e = err
				return false
			}
		}
		if s.dec.SetChunk(c) && s.dec.Next() {
			return true
		}
	}
	return false
}

// wtfScoped is a wtfSource's next with WithScopeData: each event also goes
// through the scope tracker.
type wtfScoped struct{ s *wtfSource }

func (w wtfScoped) next(e *Event) bool {
	s := w.s
	if !s.next(e) {
		return false
	}
	s.closed, s.parsed = nil, false
	if scope, closed := s.scopes.Add(s.cur); closed {
		s.closed = scope
	}
	// A tracker over its memory budget ignores every later event: the
	// scopes' data would be lost without a word, so the read stops there
	// with its ErrLimit error.
	if err := s.scopes.Err(); err != nil {
		s.e = err
		return false
	}
	return true
}

// enterName is the name of a wtf.scope#enter: its name argument, interned
// (kept for the next time, up to maxName names). A direct-mapped cache,
// indexed by a hash of the name's length and three of its bytes, sits in
// front of the map: a repeated scope name costs a compare rather than a map
// lookup.
func (s *wtfSource) enterName(ev *wtfcff.Event) string {
	if ev.NumArgs() == 0 {
		return ev.Name()
	}
	b := ev.Arg(0).Bytes()
	h := uint(len(b))
	if len(b) > 0 {
		h = h*0x9e37 ^ uint(b[0])<<5 ^ uint(b[len(b)/2])<<2 ^ uint(b[len(b)-1])
	}
	slot := &s.cache[h%uint(len(s.cache))]
	if *slot == string(b) {
		return *slot
	}
	n, ok := s.names[string(b)]
	if !ok {
		n = string(b)
		if len(s.names) < s.maxName {
			s.names[n] = n
		}
	}
	*slot = n
	return n
}

// zone returns zone z's state, its track named after the zone as it stands
// ("default zone" before a zone is created, "no zone" for events before
// any zone or after a set to a zone never created), and makes it the last
// zone. Zones are bounded by the decoder.
func (s *wtfSource) zone(z *wtfcff.Zone) *wtfZone {
	// The zone before the last one answers without the map: traces switch
	// back and forth between few zones.
	if p := s.prev; p != nil && p.zone == z {
		p.rename(z)
		s.prev, s.lastZone, s.last = s.last, z, p
		return p
	}
	st, ok := s.zones[z]
	if !ok {
		st = &wtfZone{zone: z, track: Track{Kind: TrackZone}}
		if z == nil {
			st.track.Name = wtfNoZone.Name
		} else {
			s.nTracks++
			st.track.ID = uint64(s.nTracks)
		}
		s.zones[z] = st
	}
	st.rename(z)
	s.prev, s.lastZone, s.last = s.last, z, st
	return st
}

// zoneRecord follows a zone record on zone z's state st.
func (s *wtfSource) zoneRecord(st *wtfZone, z *wtfcff.Zone) {
	st.rename(z)
	s.lastZone = &noZoneYet
}

// rename names the track after zone z as it stands.
func (st *wtfZone) rename(z *wtfcff.Zone) {
	if z != nil {
		st.track.Name = z.Name
		if st.track.Name == "" {
			st.track.Name = "default zone"
		}
	}
}

var wtfNoZone = &Track{Kind: TrackZone, ID: 0, Name: "no zone"}

func (s *wtfSource) err() error { return s.e }

func (s *wtfSource) close() error {
	if s.closeFn != nil {
		return s.closeFn()
	}
	return nil
}

func (s *wtfSource) underlying() any { return s.chunks }

func (s *wtfSource) numArgs() int {
	if s.closed != nil && s.pairArgs {
		return len(s.scopeArgs())
	}
	return s.cur.NumArgs()
}

func (s *wtfSource) arg(i int) (string, Value) {
	if s.closed != nil && s.pairArgs {
		a := &s.scopeArgs()[i]
		return a.name, a.v
	}
	name := s.cur.Type.Args[i].Name
	v := s.cur.Arg(i)
	if v.IsNull() {
		return name, Value{}
	}
	switch v.Type {
	case wtfcff.ArgBool:
		return name, boolValue(v.Bool())
	case wtfcff.ArgInt8, wtfcff.ArgInt16, wtfcff.ArgInt32:
		return name, intValue(v.Int())
	case wtfcff.ArgUint8, wtfcff.ArgUint16, wtfcff.ArgUint32, wtfcff.ArgFlowID, wtfcff.ArgTime32:
		return name, uintValue(v.Uint())
	case wtfcff.ArgFloat32:
		return name, floatValue(v.Float())
	case wtfcff.ArgASCII, wtfcff.ArgUTF8:
		return name, stringValue(v.Bytes())
	}
	return name, compositeValue(s, i) // char, wchar, any, arrays: their JSON shape
}

func (s *wtfSource) appendArgJSON(b []byte, i int) []byte {
	if s.closed != nil && s.pairArgs {
		return append(b, s.scopeArgs()[i].raw...)
	}
	return s.cur.Arg(i).AppendJSON(b)
}

// appendRecord: {"chunk": chunk id, "offset": absolute file offset of the
// record, "wire_id": the record's wire type id, "type": event type name}.
func (s *wtfSource) appendRecord(b []byte) []byte {
	b = append(b, `{"chunk":`...)
	b = strconv.AppendUint(b, uint64(s.cur.Chunk), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, s.cur.Offset, 10)
	b = append(b, `,"wire_id":`...)
	b = strconv.AppendUint(b, uint64(s.cur.WireID), 10)
	b = append(b, `,"type":`...)
	b = AppendJSONString(b, s.cur.Name())
	return append(b, '}')
}

// recovered reports a binary file whose last chunk is torn.
func (s *wtfSource) recovered() bool { return s.chunks.Recovery().Torn }

// maxWTFScopeDepth bounds the open scopes remembered per zone; deeper
// enters are counted, and their leaves keep the name wtf.scope#leave.
const maxWTFScopeDepth = 1 << 16

// wtfStack is one zone's open scope names.
type wtfStack struct {
	names    []string
	overflow int
}

func (st *wtfStack) push(name string) {
	if st.overflow > 0 || len(st.names) >= maxWTFScopeDepth {
		st.overflow++
		return
	}
	st.names = append(st.names, name)
}

func (st *wtfStack) pop() (string, bool) {
	if st.overflow > 0 {
		st.overflow--
		return "", false
	}
	if len(st.names) == 0 {
		return "", false
	}
	n := st.names[len(st.names)-1]
	st.names = st.names[:len(st.names)-1]
	return n, true
}
