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
	open    map[*wtfcff.Zone]*wtfStack
	lastZ   *wtfcff.Zone // the zone of lastS
	lastS   *wtfStack
	inChunk bool
	closeFn func() error
	e       error

	zones   map[*wtfcff.Zone]*Track // track IDs from 1; 0 is "no zone"
	names   map[string]string
	maxName int

	cur    *wtfcff.Event
	closed *wtfcff.Scope // the scope the current wtf.scope#leave closed

	lastZone  *wtfcff.Zone
	lastTrack *Track

	n int64 // events delivered, for Recovery
}

func openWTF(ra io.ReaderAt, size int64, d Detection, o *options, closeFn func() error) (source, error) {
	// The reader picks the container (binary, JSON, legacy) by the first
	// bytes; damaged files named .wtf-trace get its error. A torn last chunk
	// is read as far as it goes (Reader.Recovered reports it).
	src, err := wtfcff.NewReader(bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 256<<10), wtfcff.WithRecovery())
	if err != nil {
		return nil, err
	}
	var scopes *wtfcff.ScopeTracker
	if o.scopeData {
		scopes = wtfcff.NewScopeTracker()
	}
	return &wtfSource{scopes: scopes,
		chunks: src, dec: wtfcff.NewDecoder(), closeFn: closeFn, open: map[*wtfcff.Zone]*wtfStack{},
		zones: map[*wtfcff.Zone]*Track{}, names: map[string]string{}, maxName: o.maxNames,
	}, nil
}

func (s *wtfSource) next(e *Event) bool {
	for s.e == nil {
		if s.inChunk {
			if s.dec.Next() {
				s.fill(e, s.dec.Event())
				s.n++
				return true
			}
			if err := s.dec.Err(); err != nil {
				s.e = err
				return false
			}
			s.inChunk = false
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
		s.inChunk = s.dec.SetChunk(c)
	}
	return false
}

func (s *wtfSource) fill(e *Event, ev *wtfcff.Event) {
	s.cur = ev
	e.reset()
	s.closed = nil
	if s.scopes != nil {
		if scope, closed := s.scopes.Add(ev); closed {
			s.closed = scope
		}
	}
	switch {
	case ev.IsInternal():
		e.kind, e.name = KindMetadata, ev.Name()
		// A zone record may rename a zone (the first wtf.zone#create
		// renames the default zone in place): look the track up again.
		s.lastZone = nil
	case ev.IsScopeEnter():
		e.kind, e.name = KindBegin, ev.Name()
		if e.name == "wtf.scope#enter" && ev.NumArgs() > 0 {
			e.name = s.intern(ev.Arg(0).Bytes())
		}
		s.stack(ev.Zone).push(e.name)
	case ev.IsScopeLeave():
		// wtf.scope#leave closes the innermost open scope of the current
		// zone, as the reference's database (and wtfcff.ScopeTracker) pair
		// them; with nothing open it keeps its own name.
		e.kind, e.name = KindEnd, ev.Name()
		if n, ok := s.stack(ev.Zone).pop(); ok {
			e.name = n
		}
	default:
		e.kind, e.name = KindInstant, ev.Name()
	}
	e.hasTime, e.time = true, int64(ev.Time)*1000
	e.track = s.track(ev.Zone)
}

// intern returns b as a string, kept for the next time (up to maxName
// names).
func (s *wtfSource) intern(b []byte) string {
	if n, ok := s.names[string(b)]; ok {
		return n
	}
	n := string(b)
	if len(s.names) < s.maxName {
		s.names[n] = n
	}
	return n
}

// track is the zone's track: IDs from 1 in order of first use, the zone's
// name ("default zone" before a zone is created, "no zone" after a set to a
// zone never created).
func (s *wtfSource) track(z *wtfcff.Zone) *Track {
	if z == nil {
		return wtfNoZone
	}
	if z == s.lastZone {
		return s.lastTrack
	}
	t, ok := s.zones[z]
	if !ok {
		t = &Track{Kind: TrackZone, ID: uint64(len(s.zones) + 1)}
		s.zones[z] = t
	}
	// The first wtf.zone#create renames the default zone in place.
	t.Name = z.Name
	if t.Name == "" {
		t.Name = "default zone"
	}
	s.lastZone, s.lastTrack = z, t
	return t
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

func (s *wtfSource) numArgs() int { return s.cur.NumArgs() }

func (s *wtfSource) arg(i int) (string, Value) {
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

func (s *wtfSource) appendArgJSON(b []byte, i int) []byte { return s.cur.Arg(i).AppendJSON(b) }

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

// stack returns zone z's open scopes (zones are bounded by the decoder).
func (s *wtfSource) stack(z *wtfcff.Zone) *wtfStack {
	if z == s.lastZ && s.lastS != nil {
		return s.lastS
	}
	st, ok := s.open[z]
	if !ok {
		st = &wtfStack{}
		s.open[z] = st
	}
	s.lastZ, s.lastS = z, st
	return st
}
