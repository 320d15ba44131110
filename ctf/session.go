package ctf

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/traceerr"
)

// Session is several CTF traces read as one, as babeltrace2 reads a folder
// holding them (an LTTng session folder: kernel/ beside
// ust/uid/1000/64-bit/, each a trace folder with its own metadata): its
// Reader merges the events of all their data streams by time.
type Session struct {
	// Traces are the traces in babeltrace2's muxer order (see
	// OpenSession); Dirs their folders, by trace, as given.
	Traces []*Trace
	Dirs   []string

	groups []int // by trace, its Group
}

// OpenSession opens the trace folders dirs (OpenDir each, with opts) below
// folder root (dirs are relative to root, as they name the traces in
// errors, notes and Reader errors) as one Session.
//
// Events of equal time go in babeltrace2's muxer order: by trace — its
// trace class's namespace, then the name babeltrace2 gives the trace
// (the environment's hostname, "/" and its folder; the hostname alone for
// traces sharing an identity), then its trace class's UID (for CTF 1.8 the
// trace UUID; present before absent) — and within a trace by data
// stream class id and stream id, as Trace.NewReader orders them. Traces of equal namespace, name
// and UID (LTTng rotation chunks of one trace) go in folder order. An
// error opening a trace names its folder.
//
// Traces sharing a trace identity (a name and a UID; for CTF 1.8 the
// UUID) are read as one trace, as babeltrace2 2.1 reads them: the files
// of one data stream (same data stream class and stream_instance_id) in
// them are read as one stream, in babeltrace2's packet order, packets
// equal to one already read (same size, beginning and end times and
// sequence number: a copy, as overlapping snapshots hold) left out
// (group.go says how; a Trace's Reader does the same with its files).
//
// OpenSession reads the first packet of every data stream file and
// refuses, with an error wrapping ErrClockCorrelation that names two
// files, their traces' folders and their clock classes, traces whose
// clock classes babeltrace2 2.1's muxer cannot correlate (clocks.go says
// the rule): a clock of an unknown origin beside one of the Unix epoch,
// clocks of unknown origin whose identities (name and UUID) differ or
// that have none (unless the very same clock class), a stream without a
// clock beside one with. A Reader (of a Session or of a Trace) checks the
// same when it starts.
func OpenSession(root string, dirs []string, opts ...Option) (*Session, error) {
	type entry struct {
		t    *Trace
		dir  string
		name string // babeltrace2's name of the trace (btTraceName)
	}
	es := make([]entry, 0, len(dirs))
	s := &Session{}
	for _, d := range dirs {
		t, err := OpenDir(filepath.Join(root, d), opts...)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		es = append(es, entry{t: t, dir: d})
		s.Traces = append(s.Traces, t)
	}
	for i := range es {
		alone := true
		for j := range es {
			if j != i && sameTrace(es[i].t, es[j].t) {
				alone = false
				break
			}
		}
		es[i].name = btTraceName(es[i].t, es[i].dir, alone)
	}
	slices.SortStableFunc(es, func(a, b entry) int {
		if c := compareTraces(a.t, b.t, a.name, b.name); c != 0 {
			return c
		}
		return cmp.Compare(a.dir, b.dir)
	})
	s.Dirs = make([]string, len(es))
	for i, e := range es {
		s.Traces[i], s.Dirs[i] = e.t, e.dir
	}
	r := &Reader{}
	r.addSession(s)
	if _, _, err := r.firstPackets(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// compareTraces orders traces a and b, named an and bn (btTraceName), as
// babeltrace2 2.1's muxer orders their messages of equal time (MIP 1):
// by the identity of the trace — its trace class's namespace, then the
// trace's name, then its trace class's UID — each present one before an
// absent one, present ones in byte order. A trace's name is not its
// class's but the one src.ctf.fs gives it (btTraceName), so traces of a
// folder order by name (their folders) before UUID; given as separate
// paths (or sharing an identity) they share the hostname and order by
// UUID.
func compareTraces(a, b *Trace, an, bn string) int {
	ai, bi := identity(a), identity(b)
	ai[1], bi[1] = &an, &bn
	return compareIdentities(ai, bi)
}

// sameTrace reports whether a and b share a trace identity that makes
// babeltrace2 read them as one trace (Session.Group): a name and a UID,
// and equal namespaces, names and UIDs.
func sameTrace(a, b *Trace) bool {
	ai, bi := identity(a), identity(b)
	return ai[1] != nil && ai[2] != nil && bi[1] != nil && bi[2] != nil && compareIdentities(ai, bi) == 0
}

// compareIdentities compares namespaces, names and UIDs in turn, each
// present one before an absent one, present ones in byte order.
func compareIdentities(ai, bi [3]*string) int {
	for k := range ai {
		switch {
		case ai[k] != nil && bi[k] == nil:
			return -1
		case ai[k] == nil && bi[k] != nil:
			return 1
		case ai[k] != nil:
			if c := cmp.Compare(*ai[k], *bi[k]); c != 0 {
				return c
			}
		}
	}
	return 0
}

// identity returns the namespace, name and UID of t's trace class (nil:
// absent; a CTF 2 name "" is present when the fragment has it:
// TraceClass.NameSet), as babeltrace2 2.1 gives them to a CTF 1.8 trace
// too.
func identity(t *Trace) [3]*string {
	var id [3]*string
	tc := t.Meta.TraceClass
	if tc == nil {
		return id
	}
	for k, v := range [3]string{tc.Namespace, tc.Name, tc.UID} {
		if v != "" || k == 1 && tc.NameSet {
			id[k] = &v
		}
	}
	if t.TSDL {
		// babeltrace2's translation of CTF 1.8: the LTTng namespace when
		// the environment's tracer_name starts with "lttng", the name ""
		// beside a UUID
		if n, ok := tc.Environment["tracer_name"].(string); ok && strings.HasPrefix(n, "lttng") && id[0] == nil {
			ns := ctf2meta.LTTngNamespace
			id[0] = &ns
		}
		if id[2] != nil && id[1] == nil {
			empty := ""
			id[1] = &empty
		}
	}
	return id
}

// btTraceName is the name babeltrace2 2.1's src.ctf.fs gives the trace in
// folder dir of a session folder: the environment's hostname, then, for a
// trace alone in its component (no other trace shares its identity:
// Session.Group), "/" and dir (the path from the folder given to the
// trace, which the babeltrace2 command passes as trace-name); without a
// hostname, dir alone.
func btTraceName(t *Trace, dir string, alone bool) string {
	var name string
	if tc := t.Meta.TraceClass; tc != nil {
		if h, ok := tc.Environment["hostname"].(string); ok {
			name = h
			if alone {
				name += "/"
			}
		}
	}
	if alone {
		name += dir
	}
	return name
}

// NewReader returns a Reader over the data streams of all the session's
// traces, merged by time (see OpenSession for equal times). A stream's
// error is wrapped with its trace's folder and its file name.
func (s *Session) NewReader() *Reader {
	r := &Reader{fills: true}
	r.addSession(s)
	return r
}

// NewScanner is NewReader with streams advancing by Stream.Scan (see
// Trace.NewScanner).
func (s *Session) NewScanner() *Reader {
	r := &Reader{}
	r.addSession(s)
	return r
}

func (r *Reader) addSession(s *Session) {
	for i, t := range s.Traces {
		for _, st := range t.Streams {
			r.streams = append(r.streams, st)
			r.dirs = append(r.dirs, s.Dirs[i])
			r.tgroup = append(r.tgroup, s.Group(i))
		}
	}
}

// Group returns the group of trace i (an index in Traces): the index of
// the first trace whose trace class has the same identity, with a name
// and a UID (for CTF 1.8 the UUID) — traces that babeltrace2 2.1 reads as
// one (LTTng rotation chunks, snapshots), their data streams joined (see
// OpenSession) — or i for a trace without such an identity or alone with
// it.
func (s *Session) Group(i int) int {
	if len(s.groups) != len(s.Traces) {
		s.groups = s.traceGroups()
	}
	return s.groups[i]
}

func (s *Session) traceGroups() []int {
	out := make([]int, len(s.Traces))
	for i, t := range s.Traces {
		out[i] = i
		for j := range i {
			if sameTrace(s.Traces[j], t) {
				out[i] = j
				break
			}
		}
	}
	return out
}

// Recovery sums the traces' Trace.Recovery summaries, nil when none has
// one: notes and the Reason name the trace folder before the file.
func (s *Session) Recovery() *traceerr.Recovery {
	var rec *traceerr.Recovery
	var clean []*Trace // read cleanly: their reads count too
	for i, t := range s.Traces {
		tr := t.Recovery()
		if tr == nil {
			clean = append(clean, t)
			continue
		}
		if rec == nil {
			rec = &traceerr.Recovery{Format: formatName, Unit: "events", StopOffset: -1}
		}
		rec.Read += tr.Read
		rec.ReadBytes += tr.ReadBytes
		rec.LostBytes += tr.LostBytes
		if tr.Lost < 0 {
			rec.Lost = -1
		}
		if tr.Reason != nil && rec.Reason == nil {
			rec.Reason = fmt.Errorf("%s/%w", s.Dirs[i], tr.Reason)
		}
		for _, n := range tr.Notes {
			rec.Notes = append(rec.Notes, s.Dirs[i]+"/"+n)
		}
	}
	if rec != nil {
		rec.Notes = groupNotes(rec.Notes)
		for _, t := range clean {
			for _, st := range t.Streams {
				sr := st.Recovery()
				rec.Read += sr.Read
				rec.ReadBytes += sr.ReadBytes
			}
		}
	}
	return rec
}

// Close closes every trace (Trace.Close); it returns the first error.
func (s *Session) Close() error {
	var first error
	for _, t := range s.Traces {
		if err := t.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
