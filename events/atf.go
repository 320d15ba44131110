package events

import (
	"io"
	"strconv"

	"github.com/tracecodec/tracecodec/atf"
)

// atfSource yields the index events of a session, thread folder or index file
// in the cross-thread merge order (timestamp, thread position, sequence): a
// call begins a slice named by the function, a return ends it, anything else
// (exceptions) is an instant, on the thread's track.
type atfSource struct {
	session *atf.Session
	merger  *atf.Merger
	tracks  []*Track // by thread position
	symbols map[uint64]string
	names   map[uint64]string // every name derived so far (symbol or hex)
	cache   [256]atfName      // direct-mapped in front of names
	maxName int
	closeFn func() error
	clamped int64 // times at or past 2^63, saturated (clampTime)

	// The current event's detail record, read on demand (see detail).
	dLoaded   bool
	dPos      int
	dSeq      uint32
	dIndexSeq uint64
	dEv       atf.DetailEvent
	dOK       bool
	dbuf      []byte
	dtype     []byte
}

// atfName is one entry of the name cache.
type atfName struct {
	id   uint64
	name string // "" for an empty slot
}

// atfKinds maps atf.EventKind values below 4 to kinds.
var atfKinds = [4]Kind{KindInstant, KindBegin, KindEnd, KindInstant}

func openATFDir(dir string, d Detection, o *options) (source, error) {
	if d.Variant == "thread" {
		t, err := atf.OpenThread(dir)
		if err != nil {
			return nil, err
		}
		return newATFSource(&atf.Session{Dir: dir, Threads: []*atf.Thread{t}}, o, t.Close), nil
	}
	s, err := atf.OpenSession(dir)
	if err != nil {
		return nil, err
	}
	return newATFSource(s, o, s.Close), nil
}

func openATFFile(ra io.ReaderAt, size int64, d Detection, o *options, closeFn func() error) (source, error) {
	if d.Variant == "detail" {
		return nil, noEvents(d)
	}
	ir, err := atf.OpenIndex(ra, size)
	if err != nil {
		return nil, err
	}
	return newATFSource(&atf.Session{Threads: []*atf.Thread{atf.NewThread(ir.Header().ThreadID, ir, nil)}}, o, closeFn), nil
}

func openATFBytes(b []byte, d Detection, o *options) (source, error) {
	if d.Variant == "detail" {
		return nil, noEvents(d)
	}
	ir, err := atf.OpenIndexBytes(b)
	if err != nil {
		return nil, err
	}
	return newATFSource(&atf.Session{Threads: []*atf.Thread{atf.NewThread(ir.Header().ThreadID, ir, nil)}}, o, nil), nil
}

func newATFSource(s *atf.Session, o *options, closeFn func() error) *atfSource {
	src := &atfSource{session: s, merger: s.Merge(), names: map[uint64]string{}, maxName: o.maxNames, closeFn: closeFn}
	if s.Manifest != nil {
		src.symbols = s.Manifest.SymbolNames()
	}
	for _, t := range s.Threads {
		src.tracks = append(src.tracks, &Track{Kind: TrackThread, ID: uint64(t.ID), Name: "thread_" + strconv.FormatUint(uint64(t.ID), 10)})
	}
	return src
}

func (s *atfSource) next(e *Event) bool {
	if !s.merger.Next() {
		return false
	}
	// The merger's current event stays put until its next Next: the
	// record's other fields (ATF, Args, AppendRecord) are read from it.
	m := s.merger.Event()
	e.kind = KindInstant
	if m.Kind < atf.EventKind(len(atfKinds)) {
		e.kind = atfKinds[m.Kind]
	}
	e.setUnsignedTime(m.Timestamp, &s.clamped)
	id := m.FunctionID
	if c := &s.cache[(id^id>>32)&255]; c.id == id && c.name != "" {
		e.name = c.name
	} else {
		e.name = s.functionName(id)
		c.id, c.name = id, e.name
	}
	e.track = s.tracks[m.Thread]
	return true
}

// cur is the merger's current event.
func (s *atfSource) cur() atf.MergedEvent { return s.merger.Event() }

// functionName is the manifest's symbol name, else "0x" and 16 hex digits.
func (s *atfSource) functionName(id uint64) string {
	if n, ok := s.names[id]; ok {
		return n
	}
	n, ok := s.symbols[id]
	if !ok {
		n = string(appendHex16(nil, id))
	}
	if len(s.names) < s.maxName {
		s.names[id] = n
	}
	return n
}

func appendHex16(b []byte, v uint64) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '0', 'x')
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, hex[(v>>uint(shift))&15])
	}
	return b
}

func (s *atfSource) err() error { return s.merger.Err() }

func (s *atfSource) close() error {
	if s.closeFn != nil {
		return s.closeFn()
	}
	return nil
}

// underlying is the session (folder-less for a single index file).
func (s *atfSource) underlying() any { return s.session }

// ATF arguments: function_id and depth (the call depth), then, for an event
// linked to a record of its thread's detail.atf, detail_type (the record's
// type: "FUNCTION_CALL", "FUNCTION_RETURN", else "TYPE(n)") and detail (its
// payload as bytes). The detail record is read when one of these two is asked
// for, once per event; if reading it fails (an I/O error), both are null.
func (s *atfSource) numArgs() int {
	m := s.cur()
	if m.HasDetail() {
		if t := s.session.Threads[m.Thread]; t.Detail != nil && uint64(m.DetailSeq) < t.Detail.Len() {
			return 4
		}
	}
	return 2
}

func (s *atfSource) arg(i int) (string, Value) {
	switch i {
	case 0:
		return "function_id", uintValue(s.cur().FunctionID)
	case 1:
		return "depth", uintValue(uint64(s.cur().CallDepth))
	case 2:
		d, ok := s.detail()
		if !ok {
			return "detail_type", Value{}
		}
		s.dtype = appendDetailType(s.dtype[:0], d.Type)
		return "detail_type", stringValue(s.dtype)
	}
	d, ok := s.detail()
	if !ok {
		return "detail", Value{}
	}
	return "detail", bytesValue(d.Payload)
}

// detail reads the current event's detail record, once per event: the
// record is cached under its thread position and sequence number, and
// read into a buffer kept for the next records (payloads of files in
// memory or mapped are views of the file).
func (s *atfSource) detail() (atf.DetailEvent, bool) {
	m := s.cur()
	if !m.HasDetail() {
		return atf.DetailEvent{}, false
	}
	if s.dLoaded && s.dPos == m.Thread && s.dSeq == m.DetailSeq && s.dIndexSeq == m.Seq {
		return s.dEv, s.dOK
	}
	d, ok, err := s.session.Threads[m.Thread].DetailFor(m.IndexEvent, s.dbuf)
	if n := atf.DetailEventHeaderSize + len(d.Payload); ok && cap(s.dbuf) < n {
		// d was read into a new buffer: grow ours for the next records.
		s.dbuf = make([]byte, 0, max(n, 2*cap(s.dbuf)))
	}
	s.dLoaded, s.dPos, s.dSeq, s.dIndexSeq = true, m.Thread, m.DetailSeq, m.Seq
	s.dEv, s.dOK = d, ok && err == nil
	return s.dEv, s.dOK
}

// appendDetailType appends the name of a detail record type.
func appendDetailType(b []byte, t atf.DetailType) []byte {
	switch t {
	case atf.DetailFunctionCall, atf.DetailFunctionReturn:
		return append(b, t.String()...)
	}
	b = append(b, "TYPE("...)
	b = strconv.AppendUint(b, uint64(t), 10)
	return append(b, ')')
}

func (s *atfSource) appendArgJSON(b []byte, _ int) []byte { return append(b, "null"...) }

// appendRecord: {"thread": thread id of the folder (or index header),
// "seq": sequence number in its index.atf, "kind": call|return|exception|…,
// "thread_id": the record's own thread_id, "detail_seq": link into
// detail.atf or null}.
func (s *atfSource) appendRecord(b []byte) []byte {
	m := s.cur()
	b = append(b, `{"thread":`...)
	b = strconv.AppendUint(b, uint64(s.session.Threads[m.Thread].ID), 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, m.Seq, 10)
	b = append(b, `,"kind":"`...)
	b = append(b, m.Kind.String()...)
	b = append(b, `","thread_id":`...)
	b = strconv.AppendUint(b, uint64(m.ThreadID), 10)
	b = append(b, `,"detail_seq":`...)
	if m.HasDetail() {
		b = strconv.AppendUint(b, uint64(m.DetailSeq), 10)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}
