package ctf

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"

	"github.com/tracecodec/tracecodec/traceerr"
)

// Field is one decoded field. Fields of an event record are a flat slice
// in pre-order: a structure, array, variant or optional is followed by its
// children, and End is the index just after its last descendant. A Field
// holds no pointers (the garbage collector never scans the slice): its
// class and, for strings and BLOBs, its bytes are looked up through the
// Event or Packet that holds it (FieldClass, Bytes).
type Field struct {
	// V is the value: integer bits (signed integers sign-extended: read
	// int64(V)), 0/1 for booleans, the float64 bits of floating-point
	// numbers (Float), the byte offset of a string or BLOB in the stream's
	// current buffer (read it with Event.Bytes or Packet.Bytes; for a stream
	// added with AddStream, its offset in the data stream), the element
	// count of an array, the option index of a variant, 0/1 for an
	// optional, the member count of a structure.
	V uint64
	// N is the byte length of a string (without its terminating null) or
	// BLOB.
	N   uint32
	End int32
	cls int32
}

// Int returns the value of a signed integer field.
func (f *Field) Int() int64 { return int64(f.V) }

// Float returns the value of a floating-point field.
func (f *Field) Float() float64 { return math.Float64frombits(f.V) }

// FieldClass returns the class of f (a field of one of this trace's
// events or packets).
func (t *Trace) FieldClass(f *Field) *FieldClass { return t.classes[f.cls] }

// Packet describes one packet of a data stream.
type Packet struct {
	Index      int   // 0-based index in the stream
	Offset     int64 // byte offset of the packet in the data stream file
	TotalBits  uint64
	ContentBit uint64 // content size in bits
	// Class is the data stream class of the packet.
	Class *StreamClass
	// StreamID is the data stream id (packet header), or -1.
	StreamID int64
	// Begin and End are the default clock values of the packet context
	// (HasBegin/HasEnd say whether present).
	Begin, End       uint64
	HasBegin, HasEnd bool
	// Discarded is the discarded event record counter snapshot, SeqNum the
	// packet sequence number (HasDiscarded/HasSeqNum).
	Discarded, SeqNum       uint64
	HasDiscarded, HasSeqNum bool
	// Cut says the data ends before the packet's declared total size: the
	// packet was recovered up to the last complete event record.
	Cut bool
	// Fields holds the packet header and packet context fields (roots at
	// HeaderRoot and ContextRoot, -1 when absent), valid until the next
	// packet.
	Fields                  []Field
	HeaderRoot, ContextRoot int32
	// textOK: Stream.ctxText holds Pretty's text of the packet context
	// (cleared with the packet)
	textOK bool

	data []byte
	t    *Trace
}

// FieldClass returns the class of Fields[i].
func (p *Packet) FieldClass(i int) *FieldClass { return p.t.classes[p.Fields[i].cls] }

// Bytes returns the bytes of the string or BLOB Fields[i] (a view into the
// data stream).
func (p *Packet) Bytes(i int) []byte {
	f := &p.Fields[i]
	return p.data[f.V : f.V+uint64(f.N) : f.V+uint64(f.N)]
}

// Loss is a gap the tracer reported: event records it discarded (from the
// discarded event record counter) or whole packets it lost (from the packet
// sequence number).
type Loss struct {
	Packet  int    // index of the packet after the gap
	Events  uint64 // discarded event records
	Packets uint64 // lost packets
	// Begin and End are the default clock values bounding the gap (the
	// previous packet's end, this packet's end for events; for packets,
	// the previous packet's end and this packet's beginning).
	Begin, End uint64
	// From is, when the packet before the gap was read from another file
	// of the same data stream (a Reader reads them as one), that file's
	// Stream; nil when it was this stream's.
	From *Stream
}

// Event is the current event record of a Stream: a view valid until the
// stream's next Next.
//
// Fields is read-only. For the classes it builds from templates, Next
// keeps each class's fields in a buffer of the stream and writes per
// event only what varies (integer values, string and BLOB offsets and
// lengths); the structure (End values, member counts of structures,
// option indices of variants, classes) is written once. A caller that
// changes Fields may therefore change what later events of the same class
// report (values excepted); Pretty and the package's other readers of
// Fields stay within the slice whatever End values it holds. Copy Fields
// to keep or change it.
type Event struct {
	Class  *EventClass
	Stream *Stream
	// Cycles is the default clock value after the event record header.
	Cycles uint64
	// Fields is every field in pre-order; the scope roots are at Header,
	// CommonContext, SpecificContext and Payload (-1 when absent). It is
	// the stream's, to read, not to write: the stream keeps the fields
	// of a class's last event and writes only what can change (values,
	// lengths; not the structure, nor the header's selector and class
	// id, which name the class).
	Fields                                          []Field
	Header, CommonContext, SpecificContext, Payload int32
	// Offset is the event record's bit offset in the data stream file.
	Offset uint64
}

// FieldClass returns the class of Fields[i].
func (e *Event) FieldClass(i int) *FieldClass { return e.Stream.t.classes[e.Fields[i].cls] }

// Bytes returns the bytes of the string or BLOB Fields[i] (a view into the
// data stream, or into the stream's packet buffer when it reads a file:
// valid until the next Next).
func (e *Event) Bytes(i int) []byte {
	f := &e.Fields[i]
	return e.Stream.data[f.V : f.V+uint64(f.N) : f.V+uint64(f.N)]
}

// NS returns the event's time in nanoseconds from its clock's origin.
func (e *Event) NS() int64 { return e.Stream.pkt.Class.NS(e.Cycles) }

// Name returns the event record class name.
func (e *Event) Name() string { return e.Class.Name }

// Stream decodes one data stream file: packets, then event records. It is
// not safe for concurrent use.
type Stream struct {
	// Name is the file name of the data stream.
	Name string
	// Index is the LTTng packet index of the stream (nil when none).
	Index []IndexEntry
	// indexErr: OpenDir found index/NAME.idx but could not read or parse
	// it (Index is then nil; Recovery notes it)
	indexErr error
	// indexPast index entries, from entry indexPastAt, end past the end
	// of the file, pastBytes after it (notePacketsPastEnd; Trace.Recovery
	// counts them lost)
	indexPast, indexPastAt int
	pastBytes              int64

	t    *Trace
	data []byte // the bytes loaded: the whole stream (AddStream) or a window of it
	pkt  Packet
	// ctxText is Pretty's text of the current packet's context while
	// pkt.textOK (text.go)
	ctxText []byte
	// reading through src (AddStreamReader, OpenDir): data is buf[:n],
	// holding the stream's bytes from dataOff; size is the stream's size.
	src     io.ReaderAt
	buf     []byte
	dataOff int64
	size    int64
	hdrOnly bool // Packets: read packet headers and contexts only
	generic bool // decode with the recursive field walk (tests: the reference)
	// the fast paths of Scan (scanSel; its body: scTab) and Next: the
	// current packet's class's selShape (not
	// generic), set by begin when it starts a packet, nil once an event
	// record fails or the stream is moved: while it is set and pos < end,
	// no error stands, the stream is started and not done
	sel *hdrShape
	// Next's body: the stream's copy of the current packet's class's
	// fxSel (nextFlat's templates, fxEnts) while sel is set, when the
	// packet's start is aligned to the header's alignment (base&sel.am
	// is 0; else nil: nextFast reads its records)
	fxTab []fxEnt
	// fxOwn, fxIDs: the buffers of that copy (its selector table, its
	// class id tables), made for the table fxFor (StreamClass.fxSel's
	// first entry) and kept while the packets' class has it
	fxOwn, fxIDs []fxEnt
	fxFor        *fxHead
	// fxLim, while fxTab is set: min(end, 8·(len(data) − fxNeed)), 0 when
	// data holds fewer than the packet's class's fxNeed bytes, and 0
	// whenever fxTab is empty (Next's body then finds every position
	// beyond it, which spares it a check of fxTab): a position
	// p ≤ fxLim lies within the content, and the fxNeed bytes from byte
	// p>>3 on within data (set with fxTab by begin, once data and end are
	// the packet's: whatever changes them clears fxTab first)
	fxLim uint64
	// while fxLim is not 0: sel's am, nam and selAt (Next's body reads
	// them from the stream, one load less; its b and s are 0, its mask
	// 0 for a wideSel: fxEnts)
	fxAM, fxNAM uint64
	fxSelAt     hdrAt
	// Scan's body (scanfast.go): the current packet's class's scSel
	// while sel is set, when the packet's start is aligned to the
	// header's alignment; scAt its selector; scLim: min(end, 8·(len(data)
	// − 16)): a position p ≤ scLim lies within the content and the 16
	// bytes from byte p>>3 on within data (set with scTab by begin, once
	// data and end are the packet's: whatever changes them clears scTab
	// first)
	scTab []scHead
	scAt  hdrAt
	scLim uint64
	// Next's fast path without an event record header: the current
	// packet's class's bare (not generic), set and cleared as sel is
	bare *EventClass
	// replays counts the records Scan decoded with Next's decoder after
	// its skimming failed (tests: valid records never need it)
	replays int
	// skipped counts the packets WithSkipDamagedPackets cut short at an
	// undecodable event record, skipBytes their bytes from it on, skipErr
	// the first record's error.
	skipped   int
	skipBytes int64
	skipErr   error
	// hdrSkipped counts the packets WithSkipDamagedPackets skipped whole,
	// their header or context damaged, past to the index's next packet
	// (skipHeader), hdrSkipBytes their bytes, hdrSkipErr the first error
	hdrSkipped   int
	hdrSkipBytes int64
	hdrSkipErr   error
	// pkts counts the packets started since the stream was last moved
	// (SeekPacket; a group's packets read through resume add up), rbytes
	// their bytes in the file (ReadBytes), with the bytes of the packets
	// skipped whole
	pkts   int
	rbytes int64
	// skipAt lists the packets skipHeader skipped while walkPackets read
	// packet headers only: the packet's number and its index entry
	skipAt []skipEntry
	// starts counts the packets nextPacket started (tests: a group reads
	// each of its packets once)
	starts int
	// Scan: the current event record was skimmed, from bit evStart with
	// the clock at evClock before it
	scanned                    bool
	evStart, evClock, evCycles uint64
	regs                       []int32
	next                       int64 // byte offset of the next packet
	// stop, when > 0: no packet at or past this byte offset is started
	// (the stream is done there): a Reader's group reads one packet of
	// the stream at a time (resume)
	stop int64
	pos  uint64
	base uint64 // bit offset of the current packet
	end  uint64 // end of the packet content (bits)
	lim  uint64 // end of the readable bytes of the packet (bits)

	clock     uint64
	slots     []uint64
	fields    []Field
	ev        Event
	err       error
	started   bool
	done      bool
	ercID     uint64
	haveERCID bool
	inPkt     bool // decoding a packet header or context
	limit     int
	maxLn     uint64 // min(limit, 2^31): the longest array Scan skims (arraySpan)

	prevDisc, prevSeq, prevEnd uint64
	havePrev                   bool
	// prevFrom: the previous packet (prevDisc, …) was read from that
	// other file of the stream's group (follow), nil: from this one
	prevFrom *Stream
	// hold is, while holding, the time (ns) from which babeltrace2's
	// muxer lets the stream's next event through after a packet boundary:
	// the previous packet's end and this packet's beginning are messages
	// of their own, merged at those times, that the stream's later
	// messages wait behind (held; Reader). lastEnd (hasLastEnd) is the
	// end of the packet read before, in ns.
	hold                int64
	lastEnd             int64
	holding, hasLastEnd bool
	losses              []Loss
	rec                 traceerr.Recovery
	// events counts the records read since the stream's start (SeekPacket)
	// less those Next's body read (nextFlat, fxEvents: one count per
	// record there) and those Scan's body read (scEvents): Recovery's
	// Read is events + fxEvents + scEvents
	events   int64
	nxEvents int64 // the records nextFast and nextBare decoded from templates (nextfast.go; tests)
	fxEvents int64 // the records nextFlat decoded (never reset)
	nxBuilt  int64 // the records whose arrays nxArrays wrote field by field (tests)
	scEvents int64 // the records Scan's body read (scanfast.go; never reset)
	// the fields of the templates this stream has used, by their num,
	// kept with their structure (nil: not yet; nxNoKeep: copied per
	// event), in chunks (nxChunk, the last) that never move: without
	// arrays, all of them; with arrays, the first segment, with room for
	// elements (a buffer of its own once they outgrow it)
	nxKept [][]Field
	// nxEnt: the entry of each template (by num) in the stream's copy
	// of the selector table (fxOwn, fxIDs), nil: none (keep sets its
	// bits)
	nxEnt   []*fxEnt
	nxChunk []Field
	// nxLens holds, for each kept template with arrays (from its
	// nxProg.lens on, one per array), 1 + the element count of the
	// array in its kept fields when they hold a whole event up to past
	// that array's elements (the structure of the next event with the
	// same counts is in place; nxRecount makes it that of another count),
	// else 0
	nxLens []uint32
	// nxUsed counts the capacities of the chunks and of the buffers
	// arrays outgrew, at most nxRoom (maxNxKeptFields; tests: fewer)
	nxUsed, nxRoom int
	// packet headers whose UUID differs from the metadata's: how many,
	// the first one's index and UUID, the last one's index (a header
	// decoded again once its packet is loaded whole counts once)
	uuidBad  int64
	uuidPkt  int
	uuidLast int
	uuidVal  [16]byte
	// packet headers whose magic number is not 0xc1fc1fc1, counted as
	// uuidBad is: how many, the first one's index and value, the last
	// one's index
	magicBad  int64
	magicPkt  int
	magicLast int
	magicVal  uint64
	// cut: why the stream stopped short, its last packet cut (Recovery's
	// Reason when no error stands)
	cut error
}

func newStream(t *Trace, name string, data []byte) *Stream {
	s := &Stream{Name: name, t: t, data: data, size: int64(len(data)), slots: make([]uint64, t.slots), regs: make([]int32, t.regs), limit: t.o.limits.MaxFieldsPerEvent}
	s.maxLn = min(uint64(s.limit), 1<<31)
	s.nxRoom = maxNxKeptFields
	s.ev.Stream = s
	s.rec = traceerr.Recovery{Format: formatName, Unit: "events", StopOffset: -1}
	return s
}

// Packet returns the current packet (valid until the next packet starts).
func (s *Stream) Packet() *Packet { return &s.pkt }

// Event returns the current event record.
func (s *Stream) Event() *Event { return &s.ev }

// Err returns the error that stopped the stream, or nil.
func (s *Stream) Err() error { return s.err }

// Losses returns the gaps reported so far.
func (s *Stream) Losses() []Loss { return s.losses }

// PacketsRead is the number of packets the stream has started reading
// since its Reset or SeekPacket (a cut last packet counts, a packet
// WithSkipDamagedPackets skipped whole does not). For the files of one
// data stream read as a group (Reader), each file counts the packets the
// group read from it: a packet equal to one of another file, read once,
// counts once, in the file it was read from.
func (s *Stream) PacketsRead() int { return s.pkts }

// Recovery summarises what was read and what a cut last packet lost: its
// Reason is the error that stopped the stream, else, for a cut last
// packet, an ErrTruncated error saying which packet and how many bytes the
// file lacks. Read counts the event records read, ReadBytes the bytes of
// the packets read (PacketsRead; with those skipped whole and a last
// packet cut inside its header, whose bytes LostBytes counts): for a file of
// a group (Reader), those of its packets the group read, so that the
// files of a group sum to each of the group's packets once, even where
// copies hold equal packets.
func (s *Stream) Recovery() traceerr.Recovery {
	r := s.rec
	if s.uuidBad > 0 {
		r.Notes = append(r.Notes[:len(r.Notes):len(r.Notes)], fmt.Sprintf("%d packet headers hold a UUID other than the metadata's %s (the first: packet %d, %x); read as babeltrace2 2.1 does (WithStrictUUID refuses them)",
			s.uuidBad, s.t.Meta.Preamble.UUID.String(), s.uuidPkt, s.uuidVal))
	}
	if s.magicBad > 0 {
		r.Notes = append(r.Notes[:len(r.Notes):len(r.Notes)], fmt.Sprintf("%d packet headers hold a magic number other than 0xc1fc1fc1 (the first: packet %d, %#x); read as babeltrace2 2.1 does (WithStrictMagic refuses them)",
			s.magicBad, s.magicPkt, s.magicVal))
	}
	if s.indexErr != nil {
		r.Notes = append(r.Notes[:len(r.Notes):len(r.Notes)], fmt.Sprintf("%s cannot be used (%v): the stream is read without it, as babeltrace2 2.1 reads it",
			s.indexName(), s.indexErr))
	}
	if s.hdrSkipped > 0 {
		r.LostBytes += s.hdrSkipBytes
		what := "1 packet whose header or context cannot be decoded skipped whole"
		if s.hdrSkipped > 1 {
			what = itoa(s.hdrSkipped) + " packets whose header or context cannot be decoded skipped whole"
		}
		r.Notes = append(r.Notes[:len(r.Notes):len(r.Notes)], fmt.Sprintf("%s, the next packet's place taken from %s (%d bytes in all; the first: %v)", what, s.indexName(), s.hdrSkipBytes, s.hdrSkipErr))
	}
	if s.skipped > 0 {
		r.LostBytes += s.skipBytes
		what := "1 damaged packet read up to its first undecodable event record, its rest"
		if s.skipped > 1 {
			what = itoa(s.skipped) + " damaged packets read up to their first undecodable event record, the rest of each"
		}
		r.Notes = append(r.Notes[:len(r.Notes):len(r.Notes)], fmt.Sprintf("%s (%d bytes in all) skipped (the first: %v)", what, s.skipBytes, s.skipErr))
	}
	r.Read = s.events + s.fxEvents + s.scEvents
	r.ReadBytes = s.rbytes
	if s.err != nil {
		r.Reason = s.err
	} else if s.cut != nil {
		r.Reason = s.cut
	}
	return r
}

// Reset restarts the stream at its first packet.
func (s *Stream) Reset() { s.SeekPacket(0, 0) }

// SeekPacket makes the next Next read from the packet at byte offset off,
// numbered index (offsets come from Index or Packets). Loss tracking and
// the Recovery summary (events read, notes, lost bytes) restart there, so a
// stream read again — after Packets or CheckIndex, which walk its packets
// and seek back — reports each cut packet once.
func (s *Stream) SeekPacket(index int, off int64) {
	s.err, s.done, s.started, s.havePrev, s.prevFrom = nil, false, true, false, nil
	s.holding, s.hasLastEnd = false, false
	s.stop = 0
	s.rec = traceerr.Recovery{Format: formatName, Unit: "events", StopOffset: -1}
	s.events = -s.fxEvents - s.scEvents // (Read, events + fxEvents + scEvents, is 0)
	s.skipped, s.skipBytes, s.skipErr = 0, 0, nil
	s.hdrSkipped, s.hdrSkipBytes, s.hdrSkipErr = 0, 0, nil
	s.pkts, s.rbytes = 0, 0
	s.sel, s.fxTab, s.fxLim, s.bare = nil, nil, 0, nil
	s.scTab = nil
	s.next = off
	s.pos, s.end = 0, 0
	s.pkt.Index = index - 1
	s.losses = s.losses[:0]
	s.uuidBad, s.magicBad = 0, 0
	s.cut = nil
}

// All iterates over the event records (each a view valid until the next).
func (s *Stream) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for s.Next() {
			if !yield(&s.ev, nil) {
				return
			}
		}
		if s.err != nil {
			yield(nil, s.err)
		}
	}
}

// nextMiss is Next where its body (nextFlat) does not decode the record:
// nextFast, else the decoding program.
func (s *Stream) nextMiss(h *hdrShape) bool {
	s.scanned = false // (Next's body leaves it)
	if s.nextFast(h) {
		return true
	}
	return s.nextProgram()
}

// nextCold is Next where its body finds the header beyond fxLim: at a
// packet's end (nextMiss), or without fxTab (fxLim 0: nextOther).
func (s *Stream) nextCold() bool {
	if len(s.fxTab) == 0 {
		return s.nextOther()
	}
	return s.nextMiss(s.sel)
}

// nextOther is Next where its body does not run (no hot template for
// the packet's header, or the packet's end): nextFast for LTTng's headers
// with templates, nextBare for a packet without event record headers,
// else the decoding program.
func (s *Stream) nextOther() bool {
	if h := s.sel; h != nil && s.pos < s.end && h.tmpl != nil {
		return s.nextMiss(h)
	}
	if ec := s.bare; ec != nil && s.pos < s.end {
		s.scanned = false
		if s.nextBare(ec) {
			return true
		}
	}
	return s.nextProgram()
}

// nextProgram decodes the next event record with the decoding program,
// starting packets as needed.
func (s *Stream) nextProgram() bool {
	if !s.begin() {
		return false
	}
	if !s.decodeEvent(s.pos) {
		s.sel, s.fxTab, s.fxLim, s.bare = nil, nil, 0, nil
		s.scTab = nil
		return false
	}
	return true
}

// scanGeneral is Scan but for its path of LTTng's headers: at a
// packet's start or end, after an error, and for headers of other shapes.
func (s *Stream) scanGeneral() bool {
	if s.err != nil || s.done || !s.started || s.pos >= s.end {
		if !s.begin() {
			return false
		}
	}
	s.scanned = false
	start, clock0 := s.pos, s.clock
	sc := s.pkt.Class
	if s.sel != nil {
		if s.pos < s.end {
			return s.Scan() // its path for LTTng's headers
		}
		return s.replay(start, clock0)
	}
	nf := 0
	ev := &s.ev
	switch {
	case s.generic || sc.hdrSkip == nil && sc.Header != nil:
		return s.decodeEvent(start)
	case sc.hdrShape != nil:
		// a header at fixed offsets, then the class
		if !s.scanShaped(sc.hdrShape, &nf) {
			return s.replay(start, clock0)
		}
	case sc.Header != nil:
		// the header's program ends by running the class's (opClass)
		s.haveERCID, s.ercID = false, 0
		if !s.skim(sc.hdrSkip, &nf) {
			return s.replay(start, clock0)
		}
	default:
		ec := sc.only
		if ec == nil {
			ec = sc.EventClass(0)
		}
		if ec == nil || !ec.skippable {
			return s.replay(start, clock0)
		}
		s.evCycles, ev.Class = s.clock, ec
		if !s.skim(ec.skip, &nf) {
			return s.replay(start, clock0)
		}
	}
	// the walk checks the field limit at arrays only: above it, decode
	if s.pos == start || s.pos > s.end || nf > s.limit {
		return s.replay(start, clock0)
	}
	ev.Offset = start + uint64(s.dataOff)*8
	ev.Header, ev.CommonContext, ev.SpecificContext, ev.Payload = -1, -1, -1, -1
	ev.Fields, ev.Cycles = nil, s.evCycles
	s.evStart, s.evClock, s.scanned = start, clock0, true
	s.events++
	return true
}

// replay decodes the event record at start with Next's decoder (the
// skimmed one failed: this reports the failure as Next does).
func (s *Stream) replay(start, clock0 uint64) bool {
	s.pos, s.clock, s.scanned = start, clock0, false
	s.replays++
	if !s.decodeEvent(start) {
		s.sel, s.fxTab, s.fxLim, s.bare = nil, nil, 0, nil
		s.scTab = nil
		return false
	}
	return true
}

// Decode fills Fields and the scope roots of an event record that Scan
// read (Next has filled them already). The event is decoded again from its
// start, with the clock as it was before it.
func (e *Event) Decode() {
	s := e.Stream
	if !s.scanned || e.Fields != nil {
		return
	}
	pos, clock, events := s.pos, s.clock, s.events
	s.pos, s.clock = s.evStart, s.evClock
	if !s.decodeRecord(s.evStart) && e.Fields == nil {
		e.Fields = s.fields[:0] // not reached: Scan checked the record
	}
	s.pos, s.clock, s.events, s.err = pos, clock, events, nil
}

// begin moves to the next event record, starting packets as needed.
func (s *Stream) begin() bool {
	if s.err != nil || s.done {
		return false
	}
	if !s.started {
		s.started = true
		s.pkt.Index = -1
	}
	for s.pos >= s.end {
		s.sel, s.fxTab, s.fxLim, s.bare = nil, nil, 0, nil
		s.scTab = nil
		if !s.nextPacket() {
			return false
		}
		if h := s.pkt.Class.selShape; h != nil && !s.generic {
			s.sel = h
			// (Next's body, for a packet aligned to the header: its
			// records' headers aligned from 0, not from base)
			if s.base&h.am == 0 {
				s.fxTab = s.fxEnts(s.pkt.Class.fxSel, h)
			}
			s.fxLim = 0
			if n, need := uint64(len(s.data)), s.pkt.Class.fxNeed; n >= need && len(s.fxTab) > 0 {
				s.fxLim = min(s.end, (n-need)*8)
				s.fxAM, s.fxNAM, s.fxSelAt = h.am, h.nam, h.selAt
				if wideSel(h.selAt) {
					s.fxSelAt.mask = 0 // (fxTab's one entry: fxEnts)
				}
			}
			// (Scan's body: as Next's, its table and limit)
			if sc := s.pkt.Class; s.base&h.am == 0 && len(sc.scSel) > 0 && len(s.data) >= 16 {
				s.scTab, s.scAt, s.scLim = sc.scSel, sc.scAt, min(s.end, uint64(len(s.data)-16)*8)
			}
		}
		if sc := s.pkt.Class; sc.Header == nil && sc.bare != nil && !s.generic {
			s.bare = sc.bare
		}
	}
	s.scanned = false
	return true
}

// decodeEvent decodes the event record at start, filling its fields.
func (s *Stream) decodeEvent(start uint64) bool {
	for !s.decodeRecord(start) {
		if !s.skipDamaged(start) || !s.begin() {
			return false
		}
		start = s.pos
	}
	return true
}

// skipDamaged, with WithSkipDamagedPackets, turns the error of the event
// record at start, in a packet whose size is known, into lost bytes: the
// rest of the packet is skipped and the stream goes on at the next packet
// (Recovery counts and notes them). It reports whether it did.
func (s *Stream) skipDamaged(start uint64) bool {
	if !s.t.o.skipDamaged || s.err == nil || s.done || s.pkt.Cut || s.next <= s.at(start) {
		return false
	}
	if s.skipped == 0 {
		s.skipErr = s.err
	}
	s.skipped++
	s.skipBytes += s.next - s.at(start)
	s.err = nil
	s.pos = s.end
	return true
}

// decodeRecord decodes the event record at start, filling its fields.
func (s *Stream) decodeRecord(start uint64) bool {
	sc := s.pkt.Class
	s.fields = s.fields[:0]
	s.haveERCID, s.ercID = false, 0
	ev := &s.ev
	ev.Offset = start + uint64(s.dataOff)*8
	ev.Header, ev.CommonContext, ev.SpecificContext, ev.Payload = -1, -1, -1, -1
	if sc.Header != nil {
		ev.Header = 0
		if h := sc.selShape; h != nil && h.tmpl != nil && !s.generic && s.selHeader(h, start) {
			// LTTng's headers: from the fields' fixed offsets
		} else if !s.scope(sc.Header, sc.hdrProg) {
			return s.eventFailed(start)
		}
	}
	ev.Cycles = s.clock
	ec := sc.only
	if s.haveERCID {
		ec = sc.EventClass(s.ercID)
	} else if ec == nil {
		ec = sc.EventClass(0)
	}
	if ec == nil {
		s.err = newErr(s.at(start), ErrCorrupt, "packet %d: no event record class %d in data stream class %d", s.pkt.Index, s.ercID, sc.ID)
		return false
	}
	ev.Class = ec
	if !s.generic {
		if !s.exec(ec.prog) {
			return s.eventFailed(start)
		}
	} else {
		for _, r := range [...]struct {
			fc   *FieldClass
			root *int32
		}{{sc.CommonContext, &ev.CommonContext}, {ec.SpecificContext, &ev.SpecificContext}, {ec.Payload, &ev.Payload}} {
			if r.fc != nil {
				*r.root = int32(len(s.fields))
				if !s.read(r.fc) {
					return s.eventFailed(start)
				}
			}
		}
	}
	if s.pos == start {
		s.err = newErr(s.at(start), ErrCorrupt, "packet %d: empty event record (0 bits)", s.pkt.Index)
		return false
	}
	if s.pos > s.end {
		return s.eventFailed(start)
	}
	ev.Fields = s.fields
	s.events++
	return true
}

// eventFailed turns a failed read into the right outcome: in a cut packet
// the stream ends with a recovery report, otherwise the error stands.
func (s *Stream) eventFailed(start uint64) bool {
	if s.err != nil {
		return false
	}
	if s.pkt.Cut {
		s.rec.LostBytes += s.size - s.at(start)
		s.rec.StopOffset = s.at(start)
		s.rec.Notes = append(s.rec.Notes, "the last packet is cut: its remaining bytes hold no complete event record")
		s.done = true
		s.release()
		return false
	}
	s.err = newErr(s.at(start), ErrCorrupt, "packet %d: event record at bit %d overruns the packet content", s.pkt.Index, start-s.base)
	return false
}

// at returns the byte offset in the data stream file of bit position pos
// of the loaded bytes.
func (s *Stream) at(pos uint64) int64 { return s.dataOff + int64(pos/8) }

// headerWindow is the first read of a packet when only its header and
// context are wanted (Packets); it doubles until they fit.
const headerWindow = 512

// minBuffer is the smallest buffer of a stream read through an
// io.ReaderAt; it grows to the largest packet (bounded by the input).
const minBuffer = 64 << 10

// load makes the loaded bytes hold the stream's bytes [off, off+need)
// (off+need ≤ s.size), reading ahead to fill the buffer unless only
// packet headers are read. Bytes already loaded from off on are kept
// (moved to the buffer's start), so every byte is read once. It reports
// false with s.err set when the reader fails.
func (s *Stream) load(off, need int64) bool {
	if s.src == nil {
		return true // the whole stream is in memory
	}
	end := s.dataOff + int64(len(s.data))
	if off >= s.dataOff && off+need <= end {
		return true
	}
	keep := int64(0)
	if off >= s.dataOff && off < end {
		keep = end - off
	}
	want := need
	if !s.hdrOnly {
		want = max(need, min(max(int64(cap(s.buf)), minBuffer), s.size-off))
	}
	if int64(cap(s.buf)) < want {
		nb := make([]byte, want)
		if keep > 0 {
			copy(nb, s.data[off-s.dataOff:])
		}
		s.buf = nb
	} else {
		copy(s.buf[:cap(s.buf)], s.data[len(s.data)-int(keep):])
	}
	s.buf = s.buf[:cap(s.buf)]
	n, err := s.src.ReadAt(s.buf[keep:want], off+keep)
	if int64(n) < want-keep {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		s.data, s.dataOff = s.buf[:0], off
		s.err = newErr(off+keep+int64(n), ErrTruncated, "reading %s: %v", s.Name, err)
		s.release()
		return false
	}
	s.data, s.dataOff = s.buf[:want], off
	return true
}

// release drops the buffer and closes the file of a stream read through
// an io.ReaderAt once it is done (Reset reopens it).
func (s *Stream) release() {
	if s.src == nil {
		return
	}
	s.buf, s.data = nil, nil
	s.fxTab, s.fxLim = nil, 0 // (its fxLim is data's)
	s.scTab = nil
	if c, ok := s.src.(interface{ release() }); ok {
		c.release()
	}
}

// nextPacket starts the packet at s.next; with WithSkipDamagedPackets and
// an LTTng index, past packets whose header or context is damaged
// (skipHeader).
func (s *Stream) nextPacket() bool {
	prevClass := s.pkt.Class
	for {
		if s.startPacket() {
			return true
		}
		if !s.skipHeader(prevClass) {
			return false
		}
	}
}

// startPacket starts the packet at s.next.
func (s *Stream) startPacket() bool {
	s.fxTab, s.fxLim = nil, 0 // (data and end change: begin sets them again)
	s.scTab = nil
	off := s.next
	if off >= s.size {
		s.done = true
		s.release()
		return false
	}
	if s.stop > 0 && off >= s.stop {
		s.done = true
		return false
	}
	s.starts++
	t := s.t
	p := &s.pkt
	prevClass := p.Class
	index := p.Index + 1
	avail := s.size - off
	need := min(int64(headerWindow), avail)
	clock0 := s.clock
	for {
		if !s.load(off, need) {
			return false
		}
		s.clock = clock0
		*p = Packet{Index: index, Offset: off, StreamID: -1, HeaderRoot: -1, ContextRoot: -1, Fields: p.Fields[:0], t: t}
		loaded := off - s.dataOff + int64(min(int64(len(s.data))-(off-s.dataOff), avail))
		s.base = uint64(off-s.dataOff) * 8
		s.pos = s.base
		s.lim = uint64(loaded) * 8
		s.end = s.lim
		s.fields = s.fields[:0]
		more := loaded-(off-s.dataOff) < avail // bytes of the stream beyond the loaded ones
		ok := s.packetHeader()
		if !ok && s.err == nil && more {
			need = min(2*max(need, loaded-(off-s.dataOff)), avail) // the header or context goes on
			continue
		}
		if !ok {
			return s.packetFailed()
		}
		if !s.packetSizes(uint64(avail) * 8) {
			return false
		}
		content := min(int64((p.ContentBit+7)/8), avail)
		if !s.hdrOnly && more && content > loaded-(off-s.dataOff) {
			need = content // decode again with the whole content loaded
			continue
		}
		break
	}
	if p.Cut && s.t.o.skipDamaged {
		if k := s.indexEntry(off); k >= 0 && uint64(s.Index[k].Offset)+s.Index[k].TotalBits/8 <= uint64(s.size) && s.Index[k].TotalBits < p.TotalBits {
			e := &s.Index[k]
			// the index lists a packet that fits in the file: the size
			// this packet's context declares is damaged, not the file cut
			s.err = newErr(off, ErrCorrupt, "packet %d: total size %d bits runs past the end of the file, where %s lists a packet of %d bits", p.Index, p.TotalBits, s.indexName(), e.TotalBits)
			return false
		}
	}
	s.pkts++
	s.rbytes += min(s.next, s.size) - off
	if p.Cut && s.cut == nil {
		s.cut = newErr(p.Offset, ErrTruncated, "packet %d is cut: the file ends %d bytes before its declared size of %d bytes", p.Index, p.Offset+int64(p.TotalBits/8)-s.size, p.TotalBits/8)
	}
	p.data = s.data
	if prevClass != nil && prevClass != p.Class {
		s.havePrev = false
	}
	s.losses_(p)
	s.holdAt(p)
	return true
}

// holdAt sets the hold for packet p, just started: the latest of the
// previous packet's end, p's beginning and a hold still unused (packets
// without event records between).
func (s *Stream) holdAt(p *Packet) {
	h, ok := s.hold, s.holding
	if s.hasLastEnd && (!ok || s.lastEnd > h) {
		h, ok = s.lastEnd, true
	}
	if p.HasBegin && p.Class != nil {
		if b := p.Class.NS(p.Begin); !ok || b > h {
			h, ok = b, true
		}
	}
	s.hold, s.holding = h, ok
	s.hasLastEnd = p.HasEnd && p.Class != nil
	if s.hasLastEnd {
		s.lastEnd = p.Class.NS(p.End)
	}
}

// follow makes s, resumed at a packet of a group (Reader.chainNext), go on
// from prev, which read the group's packet before it: the group is one
// stream to babeltrace2, so the tracer's gaps (Losses) and the hold (held)
// count from the group's previous packet, whichever file held it.
func (s *Stream) follow(prev *Stream) {
	s.prevDisc, s.prevSeq, s.prevEnd, s.havePrev = prev.prevDisc, prev.prevSeq, prev.prevEnd, prev.havePrev
	s.prevFrom = nil
	if prev != s {
		s.prevFrom = prev
	}
	s.hold, s.holding, s.lastEnd, s.hasLastEnd = prev.hold, prev.holding, prev.lastEnd, prev.hasLastEnd
}

// held is ns, the time of the event record just read, or, for the first
// after a packet boundary, the hold when it is later: babeltrace2's muxer
// lets that record through only once the packet end and beginning
// messages before it went, at their times (a packet whose beginning, or
// whose previous packet's end, is later than its first record's time —
// overlapping packets, as LTTng 2.3 wrote some — puts it there, its
// time going back in the text).
func (s *Stream) held(ns int64) int64 {
	if s.holding {
		s.holding = false
		if s.hold > ns {
			return s.hold
		}
	}
	return ns
}

// scope decodes the scope rooted at fc (compiled to prog) at s.pos.
func (s *Stream) scope(fc *FieldClass, prog []op) bool {
	if s.generic {
		return s.read(fc)
	}
	return s.exec(prog)
}

// packetHeader decodes the packet header and context at s.pos; running
// out of loaded bytes returns false with s.err nil.
func (s *Stream) packetHeader() bool {
	t := s.t
	p := &s.pkt
	sc := t.only
	p.Cut = true // until the sizes are known, running out of data is a cut packet
	s.inPkt = true
	defer func() { s.inPkt = false }()
	if t.header != nil {
		p.HeaderRoot = 0
		if !s.scope(t.header, t.headerProg) {
			return false
		}
	}
	if p.Class != nil {
		sc = p.Class
	}
	if sc == nil {
		sc = t.dscs[0]
	}
	if sc == nil {
		s.err = newErr(p.Offset, ErrCorrupt, "packet %d: unknown data stream class", p.Index)
		return false
	}
	p.Class = sc
	if sc.clockErr != "" {
		s.err = newErr(p.Offset, ErrMetadata, "packet %d: %s", p.Index, sc.clockErr)
		return false
	}
	if sc.PacketContext != nil {
		p.ContextRoot = int32(len(s.fields))
		if !s.scope(sc.PacketContext, sc.ctxProg) {
			return false
		}
	}
	p.Cut = false
	p.Fields = append(p.Fields, s.fields...)
	s.fields = s.fields[:0]
	return true
}

// packetSizes checks the sizes the packet context declared against the
// avail bits of the stream from the packet on and bounds the packet.
func (s *Stream) packetSizes(avail uint64) bool {
	p := &s.pkt
	off := p.Offset
	total, content := p.TotalBits, p.ContentBit
	switch {
	case total == 0 && content == 0:
		total, content = avail, avail
	case total == 0:
		total = content
	case content == 0:
		content = total
	}
	switch {
	case total%8 != 0:
		s.err = newErr(off, ErrCorrupt, "packet %d: total size %d bits is not a multiple of 8", p.Index, total)
		return false
	case content > total:
		s.err = newErr(off, ErrCorrupt, "packet %d: content size %d bits exceeds the total size %d bits", p.Index, content, total)
		return false
	case content < s.pos-s.base:
		s.err = newErr(off, ErrCorrupt, "packet %d: content size %d bits is smaller than its header and context (%d bits)", p.Index, content, s.pos-s.base)
		return false
	}
	p.TotalBits, p.ContentBit = total, content
	s.next = off + int64(total/8)
	if total > avail {
		p.Cut = true
		if content > avail {
			content = avail
		}
	}
	s.end = s.base + content
	s.lim = s.end
	return true
}

// indexEntry is the number of the entry of the stream's LTTng index for
// the packet at byte offset off, -1 when it has none.
func (s *Stream) indexEntry(off int64) int {
	if i := s.pkt.Index; i >= 0 && i < len(s.Index) && s.Index[i].Offset == off {
		return i
	}
	if i, ok := slices.BinarySearchFunc(s.Index, off, func(e IndexEntry, off int64) int { return cmp.Compare(e.Offset, off) }); ok {
		return i
	}
	return -1
}

// skipHeader, with WithSkipDamagedPackets, turns the error of a packet
// whose header or context is damaged (a wrong magic number or UUID with
// the strict options, an unknown data stream class, sizes that contradict
// each other or run past the end of the file where the index lists a
// packet that fits in it, …) into a lost packet when the stream's LTTng
// index lists a packet at its offset: the stream goes on at the index's
// next packet (the packet's bytes are lost: Recovery counts and notes
// them), its loss tracking carried over the skipped packet by the index
// entry's counters, as if the packet had been read. Without an index
// entry (or for a truncated stream, whose next packet is not there, or
// unusable metadata, which every packet shares) the error stands. It
// reports whether it skipped; prevClass is the class of the packet read
// before.
func (s *Stream) skipHeader(prevClass *StreamClass) bool {
	err := s.err
	if !s.t.o.skipDamaged || err == nil || s.done || errors.Is(err, ErrTruncated) || errors.Is(err, ErrMetadata) || errors.Is(err, ErrUnsupported) {
		return false
	}
	p := &s.pkt
	off := p.Offset
	k := s.indexEntry(off)
	if k < 0 {
		return false
	}
	e := &s.Index[k]
	next := s.size // the last entry of no size: the rest of the file
	if k+1 < len(s.Index) {
		next = s.Index[k+1].Offset
	} else if e.TotalBits > 0 {
		next = off + int64(min(e.TotalBits/8, uint64(s.size-off)))
	}
	next = min(next, s.size)
	if s.hdrSkipped == 0 {
		s.hdrSkipErr = err
	}
	s.hdrSkipped++
	if s.hdrOnly {
		s.skipAt = append(s.skipAt, skipEntry{p.Index, k})
	}
	s.hdrSkipBytes += next - off
	s.rbytes += next - off
	s.err = nil
	s.next = next
	p.Class = prevClass
	// the tracer's gaps: the index holds the skipped packet's counters
	// (an index 1.0 has no sequence numbers: the packet is taken as the
	// next of the sequence, and as none when no packet was read before)
	if e.HasStreamSeqNum || s.havePrev {
		q := Packet{Index: p.Index, HasDiscarded: true, Discarded: e.Discarded, HasSeqNum: true, SeqNum: e.SeqNum, Begin: e.Begin, End: e.End}
		if !e.HasStreamSeqNum {
			q.SeqNum = s.prevSeq + 1
		}
		s.losses_(&q)
	}
	return true
}

// skipEntry is a packet skipHeader skipped: its number, its index entry.
type skipEntry struct{ pkt, entry int }

func (s *Stream) packetFailed() bool {
	if s.err == nil {
		if s.pkt.Index > 0 {
			// The file ends inside the last packet's header or context:
			// its bytes read, and lost
			s.rec.LostBytes += s.size - s.pkt.Offset
			s.rbytes += s.size - s.pkt.Offset
			s.rec.StopOffset = s.pkt.Offset
			if s.cut == nil {
				s.cut = newErr(s.pkt.Offset, ErrTruncated, "packet %d is cut: the file ends inside its header or context", s.pkt.Index)
			}
			s.done = true
			s.release()
			return false
		}
		s.err = newErr(s.pkt.Offset, ErrTruncated, "packet %d: the data ends inside the packet header or context", s.pkt.Index)
	}
	return false
}

func (s *Stream) losses_(p *Packet) {
	if s.havePrev {
		if p.HasDiscarded && p.Discarded > s.prevDisc {
			s.losses = append(s.losses, Loss{Packet: p.Index, Events: p.Discarded - s.prevDisc, Begin: s.prevEnd, End: p.End, From: s.prevFrom})
			s.rec.Lost += int64(p.Discarded - s.prevDisc)
		}
		if p.HasSeqNum && p.SeqNum > s.prevSeq+1 {
			s.losses = append(s.losses, Loss{Packet: p.Index, Packets: p.SeqNum - s.prevSeq - 1, Begin: s.prevEnd, End: p.Begin, From: s.prevFrom})
		}
	}
	s.havePrev, s.prevFrom = true, nil
	s.prevDisc, s.prevSeq, s.prevEnd = p.Discarded, p.SeqNum, p.End
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}

// bitsAt reads n (1..64) bits of d at bit position pos; the caller
// checked pos+n ≤ len(d)*8.
func bitsAt(d []byte, pos uint64, n uint32, be bool) uint64 {
	i := pos >> 3
	sh := uint32(pos & 7)
	var v uint64
	if i+8 <= uint64(len(d)) {
		if !be {
			v = binary.LittleEndian.Uint64(d[i:]) >> sh
			if sh+n > 64 {
				v |= uint64(d[i+8]) << (64 - sh)
			}
		} else {
			v = binary.BigEndian.Uint64(d[i:]) << sh
			if sh+n > 64 {
				v |= uint64(d[i+8]) >> (8 - sh)
			}
			return v >> (64 - n)
		}
	} else {
		// near the end: assemble byte by byte
		nb := (uint64(sh) + uint64(n) + 7) / 8
		if !be {
			var w [16]byte
			copy(w[:], d[i:i+nb])
			v = binary.LittleEndian.Uint64(w[:]) >> sh
			if sh+n > 64 {
				v |= uint64(w[8]) << (64 - sh)
			}
		} else {
			var w [16]byte
			copy(w[:], d[i:i+nb])
			v = binary.BigEndian.Uint64(w[:]) << sh
			if sh+n > 64 {
				v |= uint64(w[8]) >> (8 - sh)
			}
			return v >> (64 - n)
		}
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	return v
}

func (s *Stream) truncated(fc *FieldClass) bool {
	if s.err == nil && !s.pkt.Cut {
		s.err = newErr(s.at(s.pos), ErrCorrupt, "packet %d: %s field %q overruns the packet content (bit %d of %d)", s.pkt.Index, fc.Kind, fc.Name, s.pos-s.base, s.end-s.base)
	}
	return false
}

// fixed reads a fixed-length integer, boolean or float (aligned already).
func (s *Stream) fixed(fc *FieldClass) bool {
	n := uint64(fc.Bits)
	if s.pos+n > s.end {
		return s.truncated(fc)
	}
	var v uint64
	if fc.fixedLE {
		i := s.pos >> 3
		switch n {
		case 8:
			v = uint64(s.data[i])
		case 16:
			v = uint64(binary.LittleEndian.Uint16(s.data[i:]))
		case 32:
			v = uint64(binary.LittleEndian.Uint32(s.data[i:]))
		default:
			v = binary.LittleEndian.Uint64(s.data[i:])
		}
	} else {
		v = bitsAt(s.data, s.pos, fc.Bits, fc.BigEndian)
	}
	s.pos += n
	switch fc.Kind {
	case KindSint:
		if n < 64 {
			v = uint64(int64(v<<(64-n)) >> (64 - n))
		}
	case KindFloat:
		if n == 32 {
			v = math.Float64bits(float64(math.Float32frombits(uint32(v))))
		}
	}
	if fc.slot >= 0 {
		s.slots[fc.slot] = v
	}
	if fc.roles != 0 && !s.role(fc, v) {
		return false
	}
	s.fields = append(s.fields, Field{V: v, End: int32(len(s.fields) + 1), cls: fc.id})
	return true
}

// read decodes one field (and its children) at s.pos, appending to
// s.fields.
func (s *Stream) read(fc *FieldClass) bool {
	if a := uint64(fc.Align); a > 1 {
		rel := s.pos - s.base
		s.pos = s.base + (rel+a-1)&^(a-1)
	}
	idx := len(s.fields)
	switch fc.Kind {
	case KindUint, KindSint, KindBool, KindFloat:
		return s.fixed(fc)
	case KindStruct:
		if fc.flat {
			if s.pos+fc.flatBits > s.end {
				return s.truncated(fc)
			}
			fs := append(s.fields, Field{V: uint64(len(fc.Members)), cls: fc.id, End: int32(idx + 1 + len(fc.Members))})
			data := s.data
			for _, m := range fc.Members {
				i := (s.pos + m.off) >> 3
				var v uint64
				switch m.Bits {
				case 8:
					v = uint64(data[i])
				case 16:
					v = uint64(binary.LittleEndian.Uint16(data[i:]))
				case 32:
					v = uint64(binary.LittleEndian.Uint32(data[i:]))
				default:
					v = binary.LittleEndian.Uint64(data[i:])
				}
				if m.Kind == KindSint && m.Bits < 64 {
					sh := 64 - m.Bits
					v = uint64(int64(v<<sh) >> sh)
				}
				fs = append(fs, Field{V: v, End: int32(len(fs) + 1), cls: m.id})
			}
			s.fields = fs
			s.pos += fc.flatBits
			return true
		}
		fs := append(s.fields, Field{V: uint64(len(fc.Members)), cls: fc.id})
		pos, base, end, data := s.pos, s.base, s.end, s.data
		for _, m := range fc.Members {
			if m.fixedLE && m.slot < 0 && m.roles == 0 {
				// inline fast path: byte-aligned little-endian integers
				// that no other field refers to and that have no role
				a := uint64(m.Align)
				pos = base + (pos-base+a-1)&^(a-1)
				n := uint64(m.Bits)
				if pos+n > end {
					s.pos, s.fields = pos, fs
					return s.truncated(m)
				}
				i := pos >> 3
				var v uint64
				switch n {
				case 8:
					v = uint64(data[i])
				case 16:
					v = uint64(binary.LittleEndian.Uint16(data[i:]))
				case 32:
					v = uint64(binary.LittleEndian.Uint32(data[i:]))
				default:
					v = binary.LittleEndian.Uint64(data[i:])
				}
				pos += n
				if m.Kind == KindSint && n < 64 {
					v = uint64(int64(v<<(64-n)) >> (64 - n))
				}
				fs = append(fs, Field{V: v, End: int32(len(fs) + 1), cls: m.id})
				continue
			}
			s.pos, s.fields = pos, fs
			if !s.read(m) {
				return false
			}
			pos, fs = s.pos, s.fields
		}
		fs[idx].End = int32(len(fs))
		s.pos, s.fields = pos, fs
		return true
	case KindVarUint, KindVarSint:
		var v uint64
		var sh uint
		for {
			if s.pos+8 > s.end {
				return s.truncated(fc)
			}
			b := s.data[s.pos>>3]
			s.pos += 8
			if sh < 64 {
				v |= uint64(b&0x7f) << sh
			}
			sh += 7
			if b&0x80 == 0 {
				break
			}
			if sh > 70 {
				s.err = newErr(s.at(s.pos), ErrCorrupt, "packet %d: variable-length integer %s longer than 10 bytes", s.pkt.Index, fc.Name)
				return false
			}
		}
		if fc.Kind == KindVarSint && sh < 64 {
			v = uint64(int64(v<<(64-sh)) >> (64 - sh))
		}
		if fc.slot >= 0 {
			s.slots[fc.slot] = v
		}
		if fc.roles != 0 && !s.role(fc, v) {
			return false
		}
		s.fields = append(s.fields, Field{V: v, End: int32(idx + 1), cls: fc.id})
		return true
	case KindString, KindBlob:
		i := s.pos >> 3
		if fc.enc != encUTF8 {
			return s.text(fc)
		}
		if fc.nulStr {
			e := s.end >> 3
			if i > e {
				return s.truncated(fc)
			}
			k := bytes.IndexByte(s.data[i:e], 0)
			if k < 0 {
				return s.truncated(fc)
			}
			if uint64(k) > math.MaxUint32 {
				s.err = newErr(s.at(i*8), ErrLimit, "packet %d: string %s longer than 4 GiB", s.pkt.Index, fc.Name)
				return false
			}
			s.fields = append(s.fields, Field{V: i, N: uint32(k), End: int32(idx + 1), cls: fc.id})
			s.pos = (i + uint64(k) + 1) * 8
			return true
		}
		n := fc.Length
		if fc.dynamic {
			n = s.slots[fc.src]
		}
		// (the position may lie past the end: aligned there by an empty
		// array or structure before it, which read nothing)
		if s.pos > s.end || n > (s.end-s.pos)/8 {
			return s.truncated(fc)
		}
		if n > math.MaxUint32 {
			s.err = newErr(s.at(i*8), ErrLimit, "packet %d: string or BLOB %s longer than 4 GiB", s.pkt.Index, fc.Name)
			return false
		}
		b := s.data[i : i+n : i+n]
		if fc.roles&roleUUID != 0 && !s.checkUUID(b) {
			return false
		}
		k := len(b)
		if fc.textElem {
			// a static/dynamic-length string ends at its first null byte
			if z := bytes.IndexByte(b, 0); z >= 0 {
				k = z
			}
		}
		s.fields = append(s.fields, Field{V: i, N: uint32(k), End: int32(idx + 1), cls: fc.id})
		s.pos += n * 8
		return true
	case KindArray:
		n := fc.Length
		if fc.dynamic {
			n = s.slots[fc.src]
		}
		if n > uint64(s.limit-len(s.fields)) {
			return s.arrayLimit(fc, n)
		}
		s.fields = append(s.fields, Field{V: n, cls: fc.id})
		el := fc.Members[0]
		for k := uint64(0); k < n; k++ {
			if !s.read(el) {
				return false
			}
			if len(s.fields) > s.limit {
				return s.fieldLimit()
			}
		}
		s.fields[idx].End = int32(len(s.fields))
		return true
	case KindVariant:
		sel := s.slots[fc.src]
		opt := -1
		for k, rs := range fc.optRange {
			if inRanges(rs, sel, fc.srcSign) {
				opt = k
				break
			}
		}
		if opt < 0 {
			return s.noOption(fc)
		}
		s.fields = append(s.fields, Field{V: uint64(opt), cls: fc.id})
		if !s.read(fc.Members[opt]) {
			return false
		}
		s.fields[idx].End = int32(len(s.fields))
		return true
	case KindOptional:
		sel := s.slots[fc.src]
		on := sel != 0
		if !fc.optBool {
			on = inRanges(fc.optRange[0], sel, fc.srcSign)
		}
		s.fields = append(s.fields, Field{cls: fc.id})
		if on {
			s.fields[idx].V = 1
			if !s.read(fc.Members[0]) {
				return false
			}
		}
		s.fields[idx].End = int32(len(s.fields))
		return true
	}
	s.err = newErr(s.at(s.pos), ErrMetadata, "field %s: kind %v cannot be decoded", fc.Name, fc.Kind)
	return false
}

// text reads a string in UTF-16 or UTF-32 as babeltrace2 2.1 does: up to
// its first null code unit (counted from the string's start), which ends a
// null-terminated string and cuts a static- or dynamic-length one; the code
// units before it must be valid (no unpaired surrogate, no UTF-32 value
// that is a surrogate or above U+10FFFF, no partial unit in a string
// without a null code unit). The field's bytes are the code units before
// the null one.
func (s *Stream) text(fc *FieldClass) bool {
	i := s.pos >> 3
	e := s.end >> 3
	if i > e {
		return s.truncated(fc)
	}
	var b []byte
	var next uint64
	u := uint64(unitSize(fc.enc))
	if fc.nulStr {
		k := nullUnit(s.data[i:e], fc.enc)
		if k < 0 {
			return s.truncated(fc)
		}
		b = s.data[i : i+uint64(k)]
		next = i + uint64(k) + u
	} else {
		n := fc.Length
		if fc.dynamic {
			n = s.slots[fc.src]
		}
		if n > e-i {
			return s.truncated(fc)
		}
		b = s.data[i : i+n]
		if k := nullUnit(b, fc.enc); k >= 0 {
			b = b[:k]
		}
		next = i + n
	}
	if uint64(len(b)) > math.MaxUint32 {
		s.err = newErr(s.at(i*8), ErrLimit, "packet %d: string %s longer than 4 GiB", s.pkt.Index, fc.Name)
		return false
	}
	if k := badText(b, fc.enc); k >= 0 {
		s.err = newErr(s.at(i*8)+int64(k), ErrCorrupt, "packet %d: string %s: invalid %s at byte %d of the string", s.pkt.Index, fc.Name, encNames[fc.enc], k)
		return false
	}
	s.fields = append(s.fields, Field{V: i, N: uint32(len(b)), End: int32(len(s.fields) + 1), cls: fc.id})
	s.pos = next * 8
	return true
}

func inRanges(rs []Range, v uint64, signed bool) bool {
	for _, r := range rs {
		if signed {
			if int64(v) >= int64(r.Lo) && int64(v) <= int64(r.Hi) {
				return true
			}
		} else if v >= r.Lo && v <= r.Hi {
			return true
		}
	}
	return false
}

func (s *Stream) checkUUID(b []byte) bool {
	pre := s.t.Meta.Preamble
	if pre == nil || pre.UUID == nil || len(b) != 16 {
		return true
	}
	if string(b) != string(pre.UUID[:]) {
		if s.t.o.strictUUID {
			s.err = newErr(s.at(s.pos), ErrUUID, "packet %d: UUID %x differs from the metadata's %s", s.pkt.Index, b, pre.UUID.String())
			return false
		}
		if s.uuidBad == 0 {
			s.uuidPkt = s.pkt.Index
			copy(s.uuidVal[:], b)
		} else if s.uuidLast == s.pkt.Index {
			return true
		}
		s.uuidLast = s.pkt.Index
		s.uuidBad++
	}
	return true
}

// badMagic notes a packet header whose magic number is v (not 0xc1fc1fc1),
// or refuses it with WithStrictMagic. babeltrace2 2.1 never checks the
// magic number (its message iterator skips the packet header's items), so
// the packet is read as it reads it.
func (s *Stream) badMagic(v uint64) bool {
	p := &s.pkt
	if s.t.o.strictMagic {
		s.err = newErr(p.Offset, ErrBadMagic, "packet %d: magic %#x, expecting 0xc1fc1fc1", p.Index, v)
		return false
	}
	if s.magicBad == 0 {
		s.magicPkt, s.magicVal = p.Index, v
	} else if s.magicLast == p.Index {
		return true
	}
	s.magicLast = p.Index
	s.magicBad++
	return true
}

// updateClock sets the clock from a timestamp field of n bits: its low n
// bits, plus 2^n when the value went back (wrap-around).
func (s *Stream) updateClock(v uint64, n uint32) {
	if n == 0 || n >= 64 {
		s.clock = v
		return
	}
	mask := uint64(1)<<n - 1
	if v < s.clock&mask {
		s.clock += mask + 1
	}
	s.clock = s.clock&^mask | v
}

// role applies the meaning of an unsigned integer field.
func (s *Stream) role(fc *FieldClass, v uint64) bool {
	r := fc.roles
	p := &s.pkt
	if r&roleClock != 0 {
		s.updateClock(v, fc.Bits)
		if s.inPkt && !p.HasBegin {
			p.Begin, p.HasBegin = s.clock, true
		}
	}
	if r&roleERCID != 0 {
		s.ercID, s.haveERCID = v, true
	}
	if r&(roleMagic|roleDSCID|roleDSID|rolePacketEnd|roleContentLen|roleTotalLen|roleDiscarded|roleSeqNum) == 0 {
		return true
	}
	switch {
	case r&roleMagic != 0:
		if v != 0xc1fc1fc1 {
			return s.badMagic(v)
		}
	case r&roleDSCID != 0:
		sc := s.t.dscs[v]
		if sc == nil {
			s.err = newErr(p.Offset, ErrCorrupt, "packet %d: unknown data stream class %d", p.Index, v)
			return false
		}
		p.Class = sc
	case r&roleDSID != 0:
		p.StreamID = int64(v)
	case r&rolePacketEnd != 0:
		p.End, p.HasEnd = v, true
	case r&roleContentLen != 0:
		p.ContentBit = v
	case r&roleTotalLen != 0:
		p.TotalBits = v
	case r&roleDiscarded != 0:
		p.Discarded, p.HasDiscarded = v, true
	case r&roleSeqNum != 0:
		p.SeqNum, p.HasSeqNum = v, true
	}
	return true
}
