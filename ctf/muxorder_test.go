package ctf

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// muxMeta: data streams of stream_instance_id in the packet header,
// timestamp_begin and _end in the packet context (files of one data stream
// form a group), a 64-bit time in each event record.
const muxMeta = `/* CTF 1.8 */
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; uint64_t stream_instance_id; }; };
clock { name = "c"; freq = 1000000000; };
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := clk_t;
stream { packet.context := struct { clk_t timestamp_begin; clk_t timestamp_end; uint64_t content_size; uint64_t packet_size; };
	event.header := struct { clk_t timestamp; }; };
event { name = "e"; fields := struct { uint32_t seq; }; };
`

// muxEv is an event record the test wrote: in file, at bit offset off; of
// data stream id, its k-th; at time ns.
type muxEv struct {
	file    string
	off     uint64
	ns      int64
	id, k   int
	payload uint32
}

// muxCase is a trace of random data streams and its events in the order a
// merge by time must give them.
type muxCase struct {
	desc   string
	tr     *Trace
	merged []muxEv // by (time, stream id, order in its data stream)
	serial []muxEv // ByStream: data streams at their first file's place
	// bad (fail): the file whose last packet is damaged; merged and
	// serial then end at its last event before it (the Reader's next
	// Next fails, naming the file)
	bad string
}

// muxSpec: how many data streams, up to how many files each (files > 1:
// groups), up to how many events each, the step between times (0..step-1:
// small steps make equal times across streams), the time of the first.
type muxSpec struct {
	streams, files, events, step int
	base                         int64
	fail                         bool // a file alone (if any) has its last packet damaged
}

// genMux writes a case: each data stream a timeline of events cut into
// packets (each beginning after the previous one's end), its packets dealt
// in order to its files; the files in random order, with names in another
// random order (the ranks follow the stream ids, not the file order).
func genMux(t *testing.T, rnd *rand.Rand, sp muxSpec) *muxCase {
	t.Helper()
	type file struct {
		name   string
		data   []byte
		id     int
		alone  bool
		last   int   // its last packet's offset
		lastEv []int // its last packet's events (in all)
		before int   // its event before them (in all), -1: none
	}
	var files []*file
	var all []muxEv
	ids := rnd.Perm(sp.streams)
	for d := 0; d < sp.streams; d++ {
		id := ids[d]
		n := rnd.IntN(sp.events + 1)
		if rnd.IntN(4) == 0 {
			n = rnd.IntN(3) // ends early (or has no event)
		}
		nf := 1 + rnd.IntN(sp.files)
		fs := make([]*file, nf)
		for i := range fs {
			fs[i] = &file{id: id, alone: nf == 1, before: -1}
			files = append(files, fs[i])
		}
		ts := tsAdd(sp.base, rnd.IntN(2*sp.step+1))
		k := 0
		for k < n {
			m := min(n-k, 1+rnd.IntN(8))
			f := fs[rnd.IntN(nf)]
			off := len(f.data)
			if len(f.lastEv) > 0 {
				f.before = f.lastEv[len(f.lastEv)-1]
			}
			f.last, f.lastEv = off, nil
			size := 44 + 12*m
			p := binary.LittleEndian.AppendUint32(f.data, 0xc1fc1fc1)
			p = binary.LittleEndian.AppendUint64(p, uint64(id))
			p = binary.LittleEndian.AppendUint64(p, 0) // begin, end: below
			p = binary.LittleEndian.AppendUint64(p, 0)
			p = binary.LittleEndian.AppendUint64(p, uint64(size*8))
			p = binary.LittleEndian.AppendUint64(p, uint64(size*8))
			first := ts
			for j := 0; j < m; j++ {
				if j > 0 {
					ts = tsAdd(ts, rnd.IntN(sp.step))
				}
				pl := rnd.Uint32()
				f.lastEv = append(f.lastEv, len(all))
				all = append(all, muxEv{off: uint64(len(p)) * 8, ns: ts, id: id, k: k, payload: pl})
				p = binary.LittleEndian.AppendUint64(p, uint64(ts))
				p = binary.LittleEndian.AppendUint32(p, pl)
				k++
			}
			binary.LittleEndian.PutUint64(p[off+12:], uint64(first))
			binary.LittleEndian.PutUint64(p[off+20:], uint64(ts))
			f.data = p
			ts = tsAdd(ts, 1) // the next packet begins after this one's end
			// (files filled later: names known only then)
			for j := len(all) - m; j < len(all); j++ {
				all[j].file = fmt.Sprintf("%p", f)
			}
		}
	}
	var bad *file
	if sp.fail {
		// a file read alone, of two packets or more: its last packet's
		// content_size (bits) past its packet_size
		for _, i := range rnd.Perm(len(files)) {
			if f := files[i]; f.alone && f.before >= 0 {
				bad = f
				binary.LittleEndian.PutUint64(f.data[f.last+28:], uint64(len(f.data)-f.last)*8+8)
				break
			}
		}
		// (none: the case is read whole)
	}
	rnd.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	names := rnd.Perm(len(files))
	byPtr := map[string]string{}
	tr := traceFromTSDL(t, muxMeta)
	firstAt := map[int]int{} // data stream id: its first file's place, among the files with a packet
	for i, f := range files {
		f.name = fmt.Sprintf("ch_%03d", names[i])
		byPtr[fmt.Sprintf("%p", f)] = f.name
		tr.AddStream(f.name, f.data)
		if _, ok := firstAt[f.id]; !ok && len(f.data) > 0 {
			firstAt[f.id] = i
		}
	}
	for i := range all {
		all[i].file = byPtr[all[i].file]
	}
	c := &muxCase{desc: fmt.Sprintf("%+v", sp), tr: tr}
	var stop muxEv // bad's last event read
	if bad != nil {
		c.bad, stop = bad.name, all[bad.before]
		for _, j := range bad.lastEv {
			all[j].file = "" // never read
		}
		all = slices.DeleteFunc(all, func(e muxEv) bool { return e.file == "" })
	}
	c.merged = slices.Clone(all)
	slices.SortStableFunc(c.merged, func(a, b muxEv) int {
		return cmp.Or(cmp.Compare(a.ns, b.ns), cmp.Compare(a.id, b.id), cmp.Compare(a.k, b.k))
	})
	c.serial = slices.Clone(all)
	slices.SortStableFunc(c.serial, func(a, b muxEv) int {
		return cmp.Or(cmp.Compare(firstAt[a.id], firstAt[b.id]), cmp.Compare(a.k, b.k))
	})
	if bad != nil {
		c.merged = c.merged[:slices.Index(c.merged, stop)+1]
		c.serial = c.serial[:slices.Index(c.serial, stop)+1]
	}
	return c
}

// tsAdd is ts+d, at most the largest int64 (the latest time: many streams
// end there; a group's packets there would be equal, one left out).
func tsAdd(ts int64, d int) int64 {
	if ts > math.MaxInt64-int64(d) {
		return math.MaxInt64
	}
	return ts + int64(d)
}

// checkMux reads c's trace with r and compares every event (file, offset,
// time, payload when decoded) with want, then Count on a fresh one.
func checkMux(t *testing.T, c *muxCase, mk func() *Reader, want []muxEv, decode bool) {
	t.Helper()
	r := mk()
	i := 0
	for r.Next() {
		e := r.Event()
		if i >= len(want) {
			t.Fatalf("%s: more than the %d events", c.desc, len(want))
		}
		w := want[i]
		if e.Stream.Name != w.file || e.Offset != w.off || e.NS() != w.ns {
			t.Fatalf("%s: event %d: %s at bit %d, %d ns; want %s at bit %d, %d ns (stream id %d, its event %d)",
				c.desc, i, e.Stream.Name, e.Offset, e.NS(), w.file, w.off, w.ns, w.id, w.k)
		}
		if decode {
			if !r.fills {
				e.Decode()
			}
			if got := e.Fields[e.Payload+1].V; got != uint64(w.payload) {
				t.Fatalf("%s: event %d: payload %d, want %d", c.desc, i, got, w.payload)
			}
		}
		i++
	}
	checkMuxEnd(t, c, r, i, len(want))
	r = mk()
	n := r.Count()
	checkMuxEnd(t, c, r, int(n), len(want))
}

// checkMuxEnd checks that r, done after n events, read want: all the
// events, or for a case with a damaged file, up to it, stopped by its
// error (sticky).
func checkMuxEnd(t *testing.T, c *muxCase, r *Reader, n, want int) {
	t.Helper()
	err := r.Err()
	var fe *FormatError
	switch {
	case n != want:
		t.Fatalf("%s: %d events of %d, %v", c.desc, n, want, err)
	case c.bad == "" && err != nil:
		t.Fatalf("%s: %v", c.desc, err)
	case c.bad != "" && (!errors.As(err, &fe) || !strings.HasPrefix(err.Error(), c.bad+": ")):
		t.Fatalf("%s: error %v, want one of %s", c.desc, err, c.bad)
	}
	for k := 0; k < 2; k++ {
		if r.Next() || r.Err() != err {
			t.Fatalf("%s: Next after the end: %v, error %v", c.desc, r.Err() != err, r.Err())
		}
	}
}

// TestReaderOrderReference: the Reader (and a Scanner, and ByStream) gives
// the events of random traces in the order of a plain sort of them all by
// (time, stream id, order in the data stream): 1 to 70 data streams,
// random interleavings, many equal times across streams, streams that end
// early or have no event, groups of several files, times up to the
// largest int64; and a stream that fails stops them there with its error.
func TestReaderOrderReference(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	specs := []muxSpec{
		{streams: 1, files: 1, events: 50, step: 3},
		{streams: 1, files: 4, events: 80, step: 2},
		{streams: 2, files: 1, events: 60, step: 1}, // every time equal
		{streams: 4, files: 1, events: 200, step: 3},
		{streams: 4, files: 3, events: 200, step: 2},
		{streams: 5, files: 1, events: 100, step: 10},
		{streams: 7, files: 2, events: 100, step: 2},
		{streams: 16, files: 1, events: 60, step: 4},
		{streams: 33, files: 2, events: 40, step: 3},
		{streams: 64, files: 1, events: 30, step: 5},
		{streams: 65, files: 1, events: 30, step: 2},
		{streams: 70, files: 3, events: 30, step: 3},
		{streams: 9, files: 2, events: 40, step: 2, base: math.MaxInt64 - 80},
		// many streams at the largest time, others ended before
		{streams: 3, files: 1, events: 30, step: 2, base: math.MaxInt64 - 12},
		{streams: 7, files: 1, events: 30, step: 2, base: math.MaxInt64 - 12},
		{streams: 20, files: 1, events: 30, step: 2, base: math.MaxInt64 - 12},
	}
	failed := 0
	for round := 0; round < 6; round++ {
		for _, sp := range specs {
			// a damaged file stops the Reader there, with its error
			sp.fail = round%2 == 1 && sp.files == 1
			c := genMux(t, rnd, sp)
			if c.bad != "" {
				failed++
			}
			checkMux(t, c, c.tr.NewReader, c.merged, true)
			checkMux(t, c, c.tr.NewScanner, c.merged, true)
			checkMux(t, c, func() *Reader { return c.tr.NewReader().ByStream() }, c.serial, true)
			checkMux(t, c, func() *Reader { return c.tr.NewScanner().ByStream() }, c.serial, false)
		}
	}
	if failed < 12 {
		t.Errorf("%d cases with a damaged file", failed)
	}
}
