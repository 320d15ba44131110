package ctf

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Data stream groups: babeltrace2 2.1 (src.ctf.fs) reads the data stream
// files of a trace that hold the same data stream (same data stream class
// and stream_instance_id in their first packet's header, whose context has
// a beginning time) as one stream — LTTng's tracefile rotation splits a
// CPU's stream into CHANNEL_CPU_0, CHANNEL_CPU_1, … — and the traces of
// one input that share a trace identity (for CTF 1.8 the UUID: an LTTng
// session's rotation chunks, overlapping snapshots) as one trace, whose
// streams join the same way. The packets of such a group are read in the
// order of babeltrace2's packet index: the first file's packets as they
// are, each further file's packets inserted before the first packet of
// the same or a later beginning time — and left out when that packet is
// equal to it (same size, beginning and end times and sequence number: a
// copy of the same packet, which overlapping snapshots hold).

// seg is a packet of a group: stream st (an index in Reader.streams),
// packet number idx at byte offset off.
type seg struct {
	st  int
	idx int
	off int64
}

// chain is a group's packets in reading order; i is the current one.
type chain struct {
	segs []seg
	i    int
}

// pktKey is what babeltrace2 compares to find two packets equal, and the
// beginning time it orders them by (MaxUint64 when absent).
type pktKey struct {
	bytes, begin, end, seq uint64
}

// gpkt is a packet of a group being built; bad: a packet whose header or
// context is damaged, listed from the LTTng index for
// WithSkipDamagedPackets (packetsOf), which an equal packet of another file
// replaces (samePacket).
type gpkt struct {
	k   pktKey
	s   seg
	bad bool
}

// samePacket reports whether e equals the listed packet *l (the group
// reads one of them), making *l e when *l is damaged and e is not: the
// intact copy of a packet, which overlapping snapshots hold, is the one
// read (babeltrace2, which fails on a damaged packet, keeps the first).
func samePacket(l *gpkt, e gpkt) bool {
	if l.k != e.k {
		return false
	}
	if l.bad && !e.bad {
		*l = e
	}
	return true
}

func keyOf(s *Stream, p *Packet) pktKey {
	k := pktKey{bytes: p.TotalBits / 8, begin: math.MaxUint64, end: math.MaxUint64, seq: math.MaxUint64}
	if p.HasBegin {
		k.begin = p.Begin
	}
	if p.HasEnd {
		k.end = p.End
	}
	// the sequence number comes from an LTTng index of version 1.1 (not
	// from the packet: babeltrace2's index of a stream without one has
	// none)
	if p.Index < len(s.Index) && s.Index[p.Index].HasStreamSeqNum && s.Index[p.Index].Offset == p.Offset {
		k.seq = s.Index[p.Index].SeqNum
	}
	return k
}

// insertPackets inserts the packets b into the packet list l as
// babeltrace2 2.1 inserts index entries one by one: each before the first
// entry of l (which grows) whose beginning time is not less than its own,
// unless that entry equals it. When l is sorted by beginning time, as
// inserting keeps it, that is, per beginning time, the b of that time in
// reverse order (each goes first) before the l of that time, less each b
// equal to the entry first at its time when it comes; it is computed so,
// in O((len(l)+len(b)) log len(b)). An unsorted l (only a first file's
// packets taken as they are can be) gets the one-by-one insertion when
// len(l)·len(b) is small, else is sorted first.
func insertPackets(l, b []gpkt) []gpkt {
	if len(b) == 0 {
		return l
	}
	sorted := slices.IsSortedFunc(l, func(x, y gpkt) int { return cmp.Compare(x.k.begin, y.k.begin) })
	if !sorted && len(l)*len(b) <= 1<<20 {
		return insertOneByOne(l, b)
	}
	if !sorted {
		slices.SortStableFunc(l, func(x, y gpkt) int { return cmp.Compare(x.k.begin, y.k.begin) })
	}
	bs := slices.Clone(b)
	slices.SortStableFunc(bs, func(x, y gpkt) int { return cmp.Compare(x.k.begin, y.k.begin) })
	out := make([]gpkt, 0, len(l)+len(bs))
	var keep []gpkt
	i, j := 0, 0
	for i < len(l) || j < len(bs) {
		var v uint64
		switch {
		case i == len(l):
			v = bs[j].k.begin
		case j == len(bs):
			v = l[i].k.begin
		default:
			v = min(l[i].k.begin, bs[j].k.begin)
		}
		i0 := i
		for i < len(l) && l[i].k.begin == v {
			i++
		}
		keep = keep[:0]
		for ; j < len(bs) && bs[j].k.begin == v; j++ {
			e := bs[j]
			switch {
			case len(keep) > 0:
				if samePacket(&keep[len(keep)-1], e) {
					continue
				}
			case i > i0:
				if samePacket(&l[i0], e) {
					continue
				}
			}
			keep = append(keep, e)
		}
		for q := len(keep) - 1; q >= 0; q-- {
			out = append(out, keep[q])
		}
		out = append(out, l[i0:i]...)
	}
	return out
}

// insertOneByOne is babeltrace2 2.1's insertion of the index entries b
// into l, one by one (O(len(l)·len(b))): what insertPackets computes.
func insertOneByOne(l, b []gpkt) []gpkt {
	for _, e := range b {
		j := 0
		for j < len(l) && e.k.begin > l[j].k.begin {
			j++
		}
		if j == len(l) || !samePacket(&l[j], e) {
			l = slices.Insert(l, j, e)
		}
	}
	return l
}

// dsGroup is a data stream group being built: its key, its packets, the
// streams whose packets it holds (in Reader.streams order of joining).
type dsGroup struct {
	class   uint64
	id      int64 // stream_instance_id, -1: none
	alone   bool  // a file without stream_instance_id or beginning time
	listed  bool  // pkts holds the group's packets (list)
	pkts    []gpkt
	members []int
}

// list makes g.pkts hold its first file's packets as they are, when they
// are not listed yet: a group's packets are listed once a second file
// joins it (a file alone is read as it is, its packets never listed).
func (r *Reader) list(g *dsGroup) {
	if !g.listed {
		g.pkts, g.listed = r.packetsOf(g.members[0]), true
	}
}

// planGroups reads the first packet of each of the Reader's streams, checks
// their clock classes (checkClocks) and finds the groups of files holding
// one data stream (in a trace, and across the traces of a Session sharing
// an identity), making a chain of each group of several files. It returns
// by stream the chain it belongs to (nil: read alone; chains is nil when
// no stream is in one), and whether the stream leads its chain (its first
// member: the chain is merged in its place). Only the files of a
// group of several have their packets listed (Stream.Packets).
func (r *Reader) planGroups() (chains []*chain, lead []bool, rank []int, err error) {
	n := len(r.streams)
	if n < 2 {
		return nil, nil, nil, nil
	}
	firsts, have, err := r.firstPackets()
	if err != nil {
		return nil, nil, nil, err
	}
	// per trace (in stream order), its groups, as babeltrace2 builds them
	// folder by folder
	type traceGroups struct {
		t      *Trace
		tg     int
		dir    string
		groups []*dsGroup
	}
	var traces []*traceGroups
	byTrace := map[*Trace]*traceGroups{}
	for i, s := range r.streams {
		if !have[i] {
			continue
		}
		tr := byTrace[s.t]
		if tr == nil {
			tr = &traceGroups{t: s.t, tg: r.traceGroup(i)}
			if i < len(r.dirs) {
				tr.dir = r.dirs[i]
			}
			byTrace[s.t] = tr
			traces = append(traces, tr)
		}
		p := &firsts[i]
		alone := p.StreamID < 0 || !p.HasBegin
		var g *dsGroup
		for _, c := range tr.groups {
			if !alone && !c.alone && c.class == p.Class.ID && c.id == p.StreamID {
				g = c
				break
			}
		}
		if g == nil {
			tr.groups = append(tr.groups, &dsGroup{class: p.Class.ID, id: p.StreamID, alone: alone, members: []int{i}})
			continue
		}
		r.list(g)
		g.pkts = insertPackets(g.pkts, r.packetsOf(i))
		g.members = append(g.members, i)
	}
	// traces sharing an identity: merged into the one of the most data
	// stream and event record classes (the first, in folder order, of
	// those), as babeltrace2 merges them
	var final []*dsGroup
	done := map[int]bool{}
	for _, tr := range traces {
		if done[tr.tg] {
			continue
		}
		done[tr.tg] = true
		var same []*traceGroups
		for _, o := range traces {
			if o.tg == tr.tg {
				same = append(same, o)
			}
		}
		slices.SortStableFunc(same, func(a, b *traceGroups) int { return cmp.Compare(a.dir, b.dir) })
		win := same[0]
		for _, o := range same[1:] {
			if classCount(o.t) > classCount(win.t) {
				win = o
			}
		}
		dest := win.groups
		for _, o := range same {
			if o == win {
				continue
			}
			// o's groups join those dest had before them (a stream of
			// o not in dest is a new group, which a later trace's
			// joins)
			nDest := len(dest)
			for _, g := range o.groups {
				var d *dsGroup
				if g.id >= 0 {
					for _, c := range dest[:nDest] {
						if c.id >= 0 && c.id == g.id && c.class == g.class {
							d = c
							break
						}
					}
				}
				r.list(g)
				if d == nil {
					// a new group, its packets inserted into none
					d = &dsGroup{class: g.class, id: g.id, listed: true}
					dest = append(dest, d)
				}
				r.list(d)
				d.members = append(d.members, g.members...)
				d.pkts = insertPackets(d.pkts, g.pkts)
			}
		}
		final = append(final, dest...)
	}
	rank = r.rankGroups(final)
	for _, g := range final {
		if len(g.members) < 2 {
			// a file read as it is (babeltrace2 2.1 orders the packets of
			// a file that a merge inserts into a new group by beginning
			// time, and then fails to read them when that reorders them:
			// "Insufficient data in file")
			continue
		}
		if chains == nil {
			chains, lead = make([]*chain, n), make([]bool, n)
		}
		c := &chain{segs: make([]seg, len(g.pkts))}
		for k, p := range g.pkts {
			c.segs[k] = p.s
		}
		first := slices.Min(g.members)
		for _, m := range g.members {
			chains[m] = c
		}
		lead[first] = true
	}
	return chains, lead, rank, nil
}

// rankGroups returns, by stream, the rank of the data stream (group) it
// belongs to in the order babeltrace2 2.1's muxer gives messages of equal
// time (the streams without a first packet, which have no event, rank
// last): by trace (the Reader's trace order, the traces sharing an
// identity being one), then data stream class id, then stream id — the
// stream_instance_id, or for the data streams without one, numbers from 0
// in the order of their first file's path, as src.ctf.fs gives them —
// then, for equal ids, the first file's path (the stream's name, which
// babeltrace2 compares after the event record classes). The Reader
// breaks ties of time by it, not by file order: stream 2's record comes
// before stream 10's, whose file channel0_10 sorts before channel0_2.
func (r *Reader) rankGroups(final []*dsGroup) []int {
	path := func(i int) string {
		if i < len(r.dirs) && r.dirs[i] != "" {
			return r.dirs[i] + "/" + r.streams[i].Name
		}
		return r.streams[i].Name
	}
	// the position of each trace group's first stream
	tgFirst := map[int]int{}
	for i := range r.streams {
		if _, ok := tgFirst[r.traceGroup(i)]; !ok {
			tgFirst[r.traceGroup(i)] = i
		}
	}
	type key struct {
		tg    int
		class uint64
		id    uint64
		path  string
		g     *dsGroup
	}
	keys := make([]key, len(final))
	for k, g := range final {
		keys[k] = key{tg: tgFirst[r.traceGroup(g.members[0])], class: g.class, id: uint64(g.id), path: path(g.members[0]), g: g}
	}
	// automatic stream ids, per trace group in first-path order (the
	// order the sort below ends with: it may start from any)
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.tg, b.tg), strings.Compare(a.path, b.path)) })
	next, tg := uint64(0), -1
	for k := range keys {
		if keys[k].tg != tg {
			next, tg = 0, keys[k].tg
		}
		if keys[k].g.id < 0 {
			keys[k].id = next
			next++
		}
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.tg, b.tg), cmp.Compare(a.class, b.class), cmp.Compare(a.id, b.id), strings.Compare(a.path, b.path))
	})
	rank := make([]int, len(r.streams))
	for i := range rank {
		rank[i] = len(keys) + i
	}
	for k, ky := range keys {
		for _, m := range ky.g.members {
			rank[m] = k
		}
	}
	return rank
}

// firstPackets reads the first packet of each of the Reader's streams
// (have: it has one) and checks their clock classes (checkClocks).
func (r *Reader) firstPackets() (firsts []Packet, have []bool, err error) {
	n := len(r.streams)
	firsts = make([]Packet, n)
	have = make([]bool, n)
	uses := make([]clockUse, 0, n)
	for i, s := range r.streams {
		firsts[i], have[i] = s.firstPacket()
		if have[i] {
			u := clockUse{t: s.t, name: s.Name, group: r.traceGroup(i), class: firsts[i].Class.ID, cc: firsts[i].Class.Clock}
			if i < len(r.dirs) {
				u.dir = r.dirs[i]
			}
			uses = append(uses, u)
		}
	}
	return firsts, have, checkClocks(uses)
}

// packetsOf lists the packets of stream i for a group. A stream whose
// packet headers fail is listed up to its failure and then the packet
// that failed, of no known time (so last in the group), so that reading
// the group reports the error (babeltrace2 fails indexing such a file).
//
// With WithSkipDamagedPackets, a packet whose header or context is damaged
// but which the stream's LTTng index lists is listed too, in its place,
// with the index entry's sizes, times and sequence number: the group reads
// it (and skips it, counted in the stream's Recovery) where the file read
// alone would.
func (r *Reader) packetsOf(i int) []gpkt {
	s := r.streams[i]
	ps, failIdx, failOff, err := s.walkPackets()
	s.release() // the group reads it later, if at all
	out := make([]gpkt, len(ps), len(ps)+len(s.skipAt)+1)
	for k := range ps {
		out[k] = gpkt{keyOf(s, &ps[k]), seg{i, ps[k].Index, ps[k].Offset}, false}
	}
	if len(s.skipAt) > 0 {
		for _, sk := range s.skipAt {
			e := &s.Index[sk.entry]
			k := pktKey{bytes: e.TotalBits / 8, begin: e.Begin, end: e.End, seq: math.MaxUint64}
			if e.HasStreamSeqNum {
				k.seq = e.SeqNum
			}
			out = append(out, gpkt{k, seg{i, sk.pkt, e.Offset}, true})
		}
		slices.SortStableFunc(out, func(a, b gpkt) int { return cmp.Compare(a.s.off, b.s.off) })
	}
	if err != nil {
		out = append(out, gpkt{pktKey{begin: math.MaxUint64, end: math.MaxUint64, seq: math.MaxUint64}, seg{i, failIdx, failOff}, false})
	}
	return out
}

// classCount is the number of data stream and event record classes of t,
// by which babeltrace2 picks the trace the others of its identity merge
// into.
func classCount(t *Trace) int {
	n := len(t.dscs)
	for _, sc := range t.dscs {
		n += len(sc.events)
	}
	return n
}

// traceGroup is the trace group of stream i: for a Session's Reader its
// trace's Session.Group, -1 for a Trace's (one trace).
func (r *Reader) traceGroup(i int) int {
	if i < len(r.tgroup) {
		return r.tgroup[i]
	}
	return -1
}

// firstPacket reads the header and context of the stream's first packet,
// and rewinds it.
func (s *Stream) firstPacket() (Packet, bool) {
	if s.size == 0 {
		return Packet{}, false
	}
	s.SeekPacket(0, 0)
	s.hdrOnly = true
	ok := s.next < s.size && s.nextPacket()
	s.hdrOnly = false
	p := s.pkt
	p.Fields = nil
	s.SeekPacket(0, 0)
	return p, ok && p.Class != nil
}

// resume makes the stream read the packet at byte offset off, numbered
// index, and stop after it (a group reads its packets one at a time, in
// its order), keeping what it read so far (its Recovery, losses, notes;
// the loss tracking too when the packet follows the one it read last).
func (s *Stream) resume(index int, off int64) {
	if s.next != off || s.pkt.Index != index-1 {
		s.havePrev = false
	}
	s.err, s.done, s.started = nil, false, true
	s.sel, s.fxTab, s.fxLim, s.bare = nil, nil, 0, nil
	s.scTab = nil
	s.next, s.stop = off, off+1
	s.pos, s.end = 0, 0
	s.pkt.Index = index - 1
}
