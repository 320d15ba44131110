package ctf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/traceerr"
)

// Trace is the compiled metadata of a CTF trace and its data streams. It is
// safe to open several Streams of one Trace concurrently; each Stream is
// used by one goroutine.
type Trace struct {
	// Meta is the metadata model (CTF 2, or CTF 1.8 TSDL translated by
	// ctf2meta.ParseTSDL).
	Meta *ctf2meta.Metadata
	// TSDL says the metadata was CTF 1.8 TSDL text.
	TSDL bool
	// Streams are the data stream files added (OpenDir: sorted by name).
	Streams []*Stream
	// Skipped names the files OpenDir left out: files with the extension of
	// a text sidecar (.txt, .md, .json, .idx, .tsdl, .sha256, .log), and
	// symbolic links that lead to no regular file.
	Skipped []string

	o      options
	header *FieldClass
	dscs   map[uint64]*StreamClass
	only   *StreamClass // the data stream class when there is one
	slots  int
	// classes holds every compiled field class; Field.cls indexes it.
	classes    []*FieldClass
	headerProg []op // packet header program (prog.go)
	regs       int  // registers the programs use
	nxKept     int  // the templates of Next's fast path a stream may keep (nextfast.go)
	nxLens     int  // the arrays of those templates (Stream.nxLens)
	textBytes  int  // the bytes of constant text Pretty keeps (setText, ≤ textBudget)
}

// StreamClass is a compiled data stream class.
type StreamClass struct {
	ID    uint64
	Model *ctf2meta.DataStreamClass
	// Clock is the default clock class (nil: none).
	Clock                  *ctf2meta.ClockClass
	PacketContext, Header  *FieldClass
	CommonContext          *FieldClass
	events                 map[uint64]*EventClass
	small                  []*EventClass // by id, ids < 4096
	fxSel                  []fxHead      // by selector value: nextFlat's class and template (nextfast.go)
	fxNeed                 uint64        // the most bytes Next's body reads from a position it checks against Stream.fxLim: ≥ 16, nxProg.need of fxSel's templates
	scSel                  []scHead      // by selector value: Scan's form of the class (scanfast.go)
	scAt                   hdrAt         // the selector (scSel set)
	only                   *EventClass
	clockOffNS, clockOffCy uint64    // offset from origin: ns of the seconds, and cycles
	clockNeg               int64     // seconds when negative
	clockBase              int64     // clock frequency other than 1 GHz: the offset in ns as babeltrace2 computes it (bt2Base)
	clockErr               string    // why the clock's offset has no int64 ns from origin ("" when it has)
	ctxProg, hdrProg       []op      // packet context, event record header programs
	hdrSkip                []op      // event record header skimming program (skim.go)
	hdrShape               *hdrShape // event record header at fixed offsets, when it is (skim.go)
	selShape               *hdrShape // hdrShape when selID
	// bare: without an event record header, the event record class every
	// record is (only, or id 0) when it has a template (nextfast.go)
	bare *EventClass
	// NS's inlined part: a 1 GHz clock's values below ghzEnd (0: none),
	// whose sum with clockOffCy does not carry, plus ghzAdd (clockOffCy +
	// clockOffNS + clockNeg·1e9, two's complement) are their ns
	ghzEnd, ghzAdd uint64
}

// EventClass is a compiled event record class.
type EventClass struct {
	ID, StreamClassID uint64
	Name              string
	Model             *ctf2meta.EventRecordClass
	SpecificContext   *FieldClass
	Payload           *FieldClass
	*classCode        // its programs (kept behind a pointer: EventClass stays comparable)
}

// classCode holds the programs of an event record class.
type classCode struct {
	prog      []op // common context, specific context and payload program (prog.go)
	skip      []op // its skimming program (skim.go), when skippable
	lean      []op // skip as a lean program (skimLean), when it is one
	leanTail  op   // its last fixed-size fields (an opSkip)
	skippable bool
	how       uint8 // how Scan skims it: skimFixed, skimLean, skimProg (0: it decodes)
	// fixed: skip is one opSkip (every field of a fixed size, nothing
	// referred to): Scan aligns to fixAM+1 and advances fixBits, counting
	// fixN fields
	fixed          bool
	fixAM, fixBits uint64
	fixN           int
	nx             []nxProg // its templates for Next's fast path after each header option (nextfast.go), nil: none
	head           string   // what Pretty prints before its fields: "HOSTNAME:PROCNAME:(VPID) NAME: " ("": not kept, text.go)
}

// NewTrace compiles metadata for decoding data streams.
func NewTrace(m *ctf2meta.Metadata, opts ...Option) (*Trace, error) {
	t := &Trace{Meta: m, dscs: map[uint64]*StreamClass{}}
	for _, f := range opts {
		if f == nil {
			continue
		}
		if err := f(&t.o); err != nil {
			return nil, err
		}
	}
	t.o.limits = t.o.limits.withDefaults()
	t.TSDL = m.Source.Kind == ctf2meta.KindTSDL
	c := &compiler{m: m, budget: t.o.limits.MaxFieldClasses, maxDep: t.o.limits.MaxDepth}
	var roots [6]*FieldClass
	if m.TraceClass != nil && m.TraceClass.PacketHeaderFieldClass != nil {
		c.scope = 0
		t.header = c.compile(m.TraceClass.PacketHeaderFieldClass, "")
		roots[0] = t.header
		c.resolve(&roots)
	}
	if len(m.DataStreamClasses) == 0 {
		return nil, newErr(0, ErrMetadata, "metadata has no data stream class")
	}
	for _, d := range m.DataStreamClasses {
		sc := &StreamClass{ID: d.ID, Model: d, events: map[uint64]*EventClass{}}
		if d.DefaultClockClassID != "" {
			sc.Clock = m.ClockClasses[d.DefaultClockClassID]
		}
		if sc.Clock != nil {
			off := sc.Clock.OffsetFromOrigin
			if off.Seconds < 0 {
				sc.clockNeg = off.Seconds
			} else {
				sc.clockOffNS = uint64(off.Seconds) * 1e9
			}
			sc.clockOffCy = off.Cycles
			if sc.Clock.Frequency == 1e9 {
				sc.ghzEnd = math.MaxUint64 - sc.clockOffCy
				sc.ghzAdd = sc.clockOffCy + sc.clockOffNS + uint64(sc.clockNeg*1e9)
			}
			if !offsetFits(off, sc.Clock.Frequency) {
				sc.clockErr = fmt.Sprintf("clock %q's offset from origin (%d s and %d cycles at %d Hz) is beyond the int64 nanoseconds from origin (±292 years) that times are counted in; babeltrace2 2.1 refuses such a trace too",
					sc.Clock.Name, off.Seconds, off.Cycles, sc.Clock.Frequency)
			} else {
				sc.clockBase = bt2Base(off, sc.Clock.Frequency)
			}
		}
		r := roots
		for i, fc := range []ctf2meta.FieldClass{d.PacketContextFieldClass, d.EventRecordHeaderFieldClass, d.EventRecordCommonContextFieldClass} {
			c.scope = i + 1
			r[i+1] = c.compile(fc, "")
		}
		c.resolve(&r)
		sc.PacketContext, sc.Header, sc.CommonContext = r[1], r[2], r[3]
		for _, e := range m.EventRecordClasses {
			if e.DataStreamClassID != d.ID || c.err != nil {
				continue
			}
			ec := &EventClass{ID: e.ID, StreamClassID: d.ID, Name: e.Name, Model: e, classCode: &classCode{}}
			r2 := r
			c.scope = 4
			r2[4] = c.compile(e.SpecificContextFieldClass, "")
			c.scope = 5
			r2[5] = c.compile(e.PayloadFieldClass, "")
			c.resolve(&r2)
			ec.SpecificContext, ec.Payload = r2[4], r2[5]
			sc.events[e.ID] = ec
			if e.ID < 4096 {
				for uint64(len(sc.small)) <= e.ID {
					sc.small = append(sc.small, nil)
				}
				sc.small[e.ID] = ec
			}
		}
		if len(sc.events) == 1 {
			for _, ec := range sc.events {
				sc.only = ec
			}
		}
		t.dscs[d.ID] = sc
		if c.err != nil {
			return nil, c.err
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	if len(t.dscs) == 1 {
		t.only = t.dscs[m.DataStreamClasses[0].ID]
	}
	t.slots = c.slots
	t.classes = c.classes
	setFlat(t.classes)
	t.textBytes = t.setText()
	t.compilePrograms()
	t.compileSkims()
	t.compileNext()
	t.compileScan()
	return t, nil
}

// StreamClass returns the compiled data stream class with id, or nil.
func (t *Trace) StreamClass(id uint64) *StreamClass { return t.dscs[id] }

// EventClass returns the event record class with id, or nil.
func (sc *StreamClass) EventClass(id uint64) *EventClass {
	if id < uint64(len(sc.small)) {
		return sc.small[id]
	}
	return sc.events[id]
}

// offsetFits reports whether a clock's offset from origin, seconds·10⁹ +
// cycles·10⁹/freq, is an int64 count of nanoseconds (babeltrace2 2.1
// refuses to convert any value of a clock whose offset is not).
func offsetFits(off ctf2meta.ClockOffset, freq uint64) bool {
	const maxS = math.MaxInt64 / 1_000_000_000
	if off.Seconds > maxS || off.Seconds < -maxS || freq == 0 {
		return false
	}
	hi, lo := bits.Mul64(off.Cycles, 1e9)
	if hi >= freq {
		return false
	}
	cyNS, _ := bits.Div64(hi, lo, freq)
	if cyNS > math.MaxInt64 {
		return false
	}
	sum := off.Seconds*1e9 + int64(cyNS)
	return !(off.Seconds > 0 && sum < 0) // the seconds' ns plus the cycles' may overflow
}

// NS converts a value of the stream class's default clock to nanoseconds
// from the clock's origin (babeltrace2's "ns from origin").
func (sc *StreamClass) NS(cycles uint64) int64 {
	// a 1 GHz clock's value whose sum with the offset's cycles does not
	// carry, inlined (the rest: ns): ns's int64(cycles+clockOffCy+
	// clockOffNS) + clockNeg·1e9, the same two's complement sum
	if cycles < sc.ghzEnd {
		return int64(cycles + sc.ghzAdd)
	}
	return sc.ns(cycles)
}

// ns is NS.
func (sc *StreamClass) ns(cycles uint64) int64 {
	if sc.Clock == nil {
		return int64(cycles)
	}
	if f := sc.Clock.Frequency; f != 1e9 {
		// babeltrace2 2.1's arithmetic (its bt_util_ns_from_value): the
		// value's nanoseconds, 1e9·cycles/freq in float64 truncated,
		// added to the offset's (bt2Base): each part rounded on its own,
		// as babeltrace2 prints and orders them (not the exact
		// 1e9·(offset cycles + cycles)/freq, which can be 1 ns later)
		v := 1e9 * float64(cycles) / float64(f)
		if v >= 1<<63 {
			return math.MaxInt64 // (babeltrace2: no ns from origin)
		}
		ns := int64(v)
		if sc.clockBase > 0 && ns > math.MaxInt64-sc.clockBase {
			return math.MaxInt64
		}
		return sc.clockBase + ns
	}
	ns := cycles + sc.clockOffCy
	if ns < cycles {
		ns += 1 << 63 // carried: beyond any meaningful time; keep monotonic
	}
	return int64(ns+sc.clockOffNS) + sc.clockNeg*1e9
}

// bt2Base is a clock's offset from origin in ns as babeltrace2 2.1
// computes it (an offset that offsetFits): the cycles of whole seconds
// moved to the seconds, then seconds·10⁹ plus 1e9·cycles/freq in float64,
// truncated.
func bt2Base(off ctf2meta.ClockOffset, freq uint64) int64 {
	s, cy := off.Seconds, off.Cycles
	if cy >= freq {
		s += int64(cy / freq)
		cy %= freq
	}
	return s*1e9 + int64(1e9*float64(cy)/float64(freq))
}

// ReadMetadata reads a trace's metadata file (packetized or plain; CTF 2
// JSON or CTF 1.8 TSDL) into the model.
func ReadMetadata(raw []byte) (*ctf2meta.Metadata, error) {
	if ctf2meta.Detect(raw) == ctf2meta.KindCTF2 {
		return ctf2meta.Decode(raw)
	}
	var buf bytes.Buffer
	info, err := ctf2meta.ToPlain(&buf, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if ctf2meta.ContentVersion(buf.Bytes()) == "2.0" {
		return ctf2meta.Decode(raw)
	}
	m, err := ctf2meta.ParseTSDL(buf.Bytes())
	if err != nil {
		return nil, err
	}
	if info.Packets > 0 {
		m.Source.Stream = info
	}
	return m, nil
}

// OpenDir opens a CTF trace directory: its `metadata` file and every other
// regular file beside it as a data stream (hidden files, directories such as
// `index`, and the files Trace.Skipped lists excepted), sorted by name. LTTng packet indexes
// (index/NAME.idx) are read when present: Stream.Index holds them; one that
// cannot be read or parsed is left out and noted in Stream.Recovery, as
// babeltrace2 2.1 reads the stream without it.
func OpenDir(dir string, opts ...Option) (*Trace, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "metadata"))
	if err != nil {
		return nil, err
	}
	// errors name the file, as the data streams' do
	m, err := ReadMetadata(raw)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	t, err := NewTrace(m, opts...)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	names, skipped, err := DataStreamFiles(dir)
	if err != nil {
		return nil, err
	}
	t.Skipped = append(t.Skipped, skipped...)
	for _, n := range names {
		f := &lazyFile{path: filepath.Join(dir, n)}
		size, err := f.open()
		if err != nil {
			return nil, err
		}
		s := t.AddStreamReader(n, f, size)
		idx, err := os.ReadFile(filepath.Join(dir, "index", n+".idx"))
		switch {
		case err == nil:
			// An index is a sidecar: a damaged one leaves the stream
			// readable, as babeltrace2 2.1 reads it (it warns and indexes
			// the stream itself). Stream.Recovery notes it.
			if s.Index, err = ParseIndex(idx); err != nil {
				s.Index, s.indexErr = nil, err
			}
			s.notePacketsPastEnd()
		case !errors.Is(err, fs.ErrNotExist):
			s.indexErr = err
		}
	}
	return t, nil
}

// DataStreamFiles lists, sorted, the files of trace folder dir that OpenDir
// reads as data streams — the regular files (and symbolic links to regular
// files) other than "metadata", hidden files and the text sidecars tools
// leave beside them (.txt, .md, .json, .idx, .tsdl, .sha256, .log), which it
// returns as skipped with the links that lead to no regular file. A listed file is read
// as a data stream whatever its first bytes, as babeltrace2 2.1 reads it: a
// packet whose magic number is wrong is read and noted (Stream.Recovery),
// a file that is no data stream fails as it decodes. A folder with none
// holds metadata only: no events.
func DataStreamFiles(dir string) (streams, skipped []string, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		n := e.Name()
		if n == "metadata" || strings.HasPrefix(n, ".") {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			// A link to a regular file is read as one, as babeltrace2 2.1
			// reads it; any other link (dangling, to a folder or a
			// device) is skipped, and said so.
			if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || !fi.Mode().IsRegular() {
				skipped = append(skipped, n)
				continue
			}
		} else if !e.Type().IsRegular() {
			continue
		}
		if ext := filepath.Ext(n); sidecarExt[ext] {
			skipped = append(skipped, n)
			continue
		}
		streams = append(streams, n)
	}
	sort.Strings(streams)
	return streams, skipped, nil
}

// sidecarExt are extensions of files that sit in trace folders but are not
// data streams (logs, listings, checksums, metadata dumps).
var sidecarExt = map[string]bool{".txt": true, ".md": true, ".json": true, ".idx": true, ".tsdl": true, ".sha256": true, ".log": true}

// Recovery summarises the Recovery of the trace's data streams once they
// have been read (by a Reader or each Stream): nil when every one was read
// cleanly. Read adds up the event records read, ReadBytes the bytes read
// (a stream's lost bytes excepted), LostBytes the bytes lost (Lost, the
// event records, is then unknown: -1); Reason is the first cut last
// packet's ErrTruncated error after its stream's file name (an error that
// stopped a stream is not recovered: Reader.Err and Stream.Err say it);
// Notes are the streams' notes, each after its file's name, and where each
// stream that lost bytes stopped. StopOffset is -1: offsets are per file.
func (t *Trace) Recovery() *traceerr.Recovery {
	var rec *traceerr.Recovery
	for _, s := range t.Streams {
		sr := s.Recovery()
		sr.Reason = s.cut // an error that stopped a stream is Err's, not recovered
		if len(sr.Notes) == 0 && sr.LostBytes == 0 && sr.Reason == nil {
			continue
		}
		if rec == nil {
			rec = &traceerr.Recovery{Format: formatName, Unit: "events", StopOffset: -1}
		}
		rec.LostBytes += sr.LostBytes
		if sr.Reason != nil && rec.Reason == nil {
			rec.Reason = fmt.Errorf("%s: %w", s.Name, sr.Reason)
		}
		for _, n := range sr.Notes {
			rec.Notes = append(rec.Notes, s.Name+": "+n)
		}
		if sr.LostBytes > 0 && sr.StopOffset >= 0 {
			rec.Notes = append(rec.Notes, fmt.Sprintf("%s: read up to offset %d", s.Name, sr.StopOffset))
		}
	}
	// packets the index lists past the end of a file: lost (the file was
	// cut at a packet boundary), events unknown
	for _, s := range t.Streams {
		if s.indexPast > 0 {
			if rec == nil {
				rec = &traceerr.Recovery{Format: formatName, Unit: "events", StopOffset: -1}
			}
			// saturating: a hostile index may claim 2^62 bytes per stream
			rec.LostBytes += min(s.pastBytes, math.MaxInt64-rec.LostBytes)
			rec.Notes = append(rec.Notes, s.Name+": "+s.pastEndNote())
		}
	}
	if rec != nil {
		rec.Notes = groupNotes(rec.Notes)
		if rec.LostBytes > 0 {
			rec.Lost = -1 // the bytes of an incomplete event record, if any
		}
		for _, s := range t.Streams {
			sr := s.Recovery()
			rec.Read += sr.Read
			rec.ReadBytes += sr.ReadBytes - sr.LostBytes
		}
	}
	return rec
}

// AddStream adds a data stream held in data (not copied: the Stream's
// string and BLOB views point into it).
func (t *Trace) AddStream(name string, data []byte) *Stream {
	s := newStream(t, name, data)
	t.Streams = append(t.Streams, s)
	return s
}

// AddStreamReader adds a data stream of size bytes read through r: packet
// by packet into a buffer the stream reuses, as large as its largest
// packet (at most size), so memory does not grow with the stream. String
// and BLOB views point into that buffer (valid until the next Next).
// OpenDir adds its files this way.
func (t *Trace) AddStreamReader(name string, r io.ReaderAt, size int64) *Stream {
	s := newStream(t, name, nil)
	s.src, s.size = r, max(size, 0)
	t.Streams = append(t.Streams, s)
	return s
}

// Close closes the data stream files OpenDir opened that are still open
// (a stream closes its file when it reaches its end or fails; Reset and
// SeekPacket reopen it). Streams are not usable after Close.
func (t *Trace) Close() error {
	var first error
	for _, s := range t.Streams {
		if f, ok := s.src.(*lazyFile); ok {
			if err := f.close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// lazyFile is a data stream file opened when read and closed when its
// stream is done with it.
type lazyFile struct {
	path string
	f    *os.File
}

// open opens the file to return its size, and closes it.
func (l *lazyFile) open() (int64, error) {
	f, err := os.Open(l.path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%s: not a regular file (%s)", l.path, st.Mode().Type())
	}
	return st.Size(), nil
}

func (l *lazyFile) ReadAt(p []byte, off int64) (int, error) {
	if l.f == nil {
		f, err := os.Open(l.path)
		if err != nil {
			return 0, err
		}
		l.f = f
	}
	return l.f.ReadAt(p, off)
}

func (l *lazyFile) release() { l.close() }

func (l *lazyFile) close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
