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
	e.setTimeU64(m.Timestamp)
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

// ATF arguments: function_id and depth (the call depth).
func (s *atfSource) numArgs() int { return 2 }

func (s *atfSource) arg(i int) (string, Value) {
	m := s.cur()
	if i == 0 {
		return "function_id", uintValue(m.FunctionID)
	}
	return "depth", uintValue(uint64(m.CallDepth))
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
