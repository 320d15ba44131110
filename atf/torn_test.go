package atf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// tornEvent is event i of the files TestTornLiveFooter builds.
func tornEvent(i uint64) IndexEvent {
	return IndexEvent{Timestamp: 1000 + 10*i, FunctionID: 0x100 + i, ThreadID: 7, Kind: KindCall, CallDepth: uint32(i), DetailSeq: NoDetail}
}

// tornStore is one store of putMapped: v's bytes at offset at.
type tornStore struct {
	at int
	v  []byte
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// tornFixture is what TestTornLiveFooter builds from a good index file
// of n events: the live file a mapped writer (WithMmapOutput) keeps after
// them, and putMapped's stores of event n over it, in its order.
type tornFixture struct {
	good, live []byte
	stores     []tornStore
	fo         int    // where the footer is
	c          uint64 // n+1
}

// apply is the live file after the first k stores.
func (x *tornFixture) apply(k int) []byte {
	b := slices.Clone(x.live)
	for _, s := range x.stores[:k] {
		copy(b[s.at:], s.v)
	}
	return b
}

func newTornFixture(t *testing.T, n int) *tornFixture {
	t.Helper()
	var f memFile
	w, err := NewIndexWriter(&f, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(n) {
		if err := w.Append(tornEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	good := f.b
	fo := HeaderSize + n*IndexEventSize
	if len(good) != fo+FooterSize {
		t.Fatalf("%d bytes, want %d", len(good), fo+FooterSize)
	}
	first, last := tornEvent(0).Timestamp, tornEvent(uint64(n)-1).Timestamp

	// The live file: the header's time range unpatched (only Close stores
	// it), the live footer as the mapped writer keeps it, and the zero tail
	// of its last growth step.
	live := append(slices.Clone(good), make([]byte, 4096)...)
	clear(live[48:64])
	lw := &IndexWriter{first: first, last: last}
	lw.putLiveFooter(live[fo:fo+IndexEventSize+FooterSize], uint64(n))

	// putMapped's stores of event n, in its order.
	next := tornEvent(uint64(n))
	c := uint64(n + 1)
	x := &tornFixture{good: good, live: live, fo: fo, c: c, stores: []tornStore{
		{fo + 64, u64(c * IndexEventSize)}, // the new footer's bytes_written,
		{fo + 40, u64(c)},                  // event_count,
		{fo + 48, u64(first)},              // time range
		{fo + 56, u64(next.Timestamp)},
		{fo + 16, u64(pair(next.ThreadID, uint32(next.Kind)))}, // the event's second half
		{fo + 24, u64(pair(next.CallDepth, next.DetailSeq))},
		{fo + 0, u64(next.Timestamp)}, // its first half
		{fo + 8, u64(next.FunctionID)},
		{fo + 32, u64(footerMagicWord)},                        // the new footer's magic
		{40, u64(HeaderSize + c*IndexEventSize)},               // the header's footer_offset
		{28, binary.LittleEndian.AppendUint32(nil, uint32(c))}, // and event_count
	}}
	// The list is the writer's.
	mine, theirs := x.apply(len(x.stores)), slices.Clone(live)
	mw := &IndexWriter{count: c, first: first, live: (*[HeaderSize]byte)(theirs[:HeaderSize])}
	mw.putMapped((*[IndexEventSize + FooterSize]byte)(theirs[fo:]), next.Timestamp, next.FunctionID,
		pair(next.ThreadID, uint32(next.Kind)), pair(next.CallDepth, next.DetailSeq))
	if !bytes.Equal(mine, theirs) {
		t.Fatal("the store list does not give the bytes putMapped stores")
	}
	return x
}

// tornCase is a file TestTornLiveFooter reads.
type tornCase struct {
	name string
	b    []byte
}

// damaged is damage to the footer's time range that the writer's stores
// do not explain.
func (x *tornFixture) damaged() []tornCase {
	fo, good, live, torn := x.fo, x.good, x.live, x.apply(6)
	return []tornCase{
		{"a finished file's footer time range", func() []byte { b := slices.Clone(good); copy(b[fo+16:], torn[fo+16:fo+32]); return b }()},
		{"a live footer's time range, no next footer begun", func() []byte { b := slices.Clone(live); copy(b[fo+16:], torn[fo+16:fo+32]); return b }()},
		{"the next footer's time_start not the first event's", func() []byte { b := slices.Clone(torn); b[fo+48]++; return b }()},
		{"the next footer's event_count not one more", func() []byte { b := slices.Clone(torn); b[fo+40]++; return b }()},
		{"the next footer's bytes_written not one event more", func() []byte { b := slices.Clone(torn); b[fo+64] += 32; return b }()},
		{"bytes in the next footer's reserved bytes", func() []byte { b := slices.Clone(torn); b[fo+95] = 1; return b }()},
		{"the next footer cut at the file's end", torn[:fo+FooterSize+IndexEventSize-1]},
	}
}

// TestTornLiveFooter builds, from a good index file, the live file a
// mapped writer (WithMmapOutput) keeps after n events, and then each state
// a kill leaves between two of putMapped's stores of event n: the one the
// crash test once had to excuse by hand, where the event's second half has
// been stored over the live footer's time range but its first half not
// yet (the footer's magic and counts hold), included. Every state opens
// with the events exactly; TimeRange is theirs; Check reports no header
// mismatch in the footer, and the torn state's time range as discarded
// bytes (a problem a kill explains) at the footer's time range. The store
// list is the writer's: applied in full it gives the bytes putMapped
// stores. A damaged time range that the writer's earlier stores do not
// explain stays a header mismatch.
func TestTornLiveFooter(t *testing.T) {
	const n = 5
	x := newTornFixture(t, n)
	live, stores, apply, fo, c := x.live, x.stores, x.apply, x.fo, x.c
	first := tornEvent(0).Timestamp

	tornStates := 0
	for k := 0; k <= len(stores); k++ {
		b := apply(k)
		name := fmt.Sprintf("killed after %d of %d stores", k, len(stores))
		// The torn state: the footer's magic holds, its time range does not.
		torn := string(b[fo:fo+4]) == IndexFooterMagic && !bytes.Equal(b[fo+16:fo+32], live[fo+16:fo+32])
		if torn {
			tornStates++
		}
		want := uint64(n)
		if binary.LittleEndian.Uint64(b[40:]) == HeaderSize+c*IndexEventSize {
			want = n + 1 // footer_offset names the new footer: the event is published
		}
		ix, err := OpenIndexBytes(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ix.Len() != want {
			t.Fatalf("%s: %d events, want %d", name, ix.Len(), want)
		}
		for i := range want {
			if e, err := ix.Event(i); err != nil || e != tornEvent(i) {
				t.Fatalf("%s: event %d = %+v (%v)", name, i, e, err)
			}
		}
		if a, z, ok := ix.TimeRange(); !ok || a != first || z != tornEvent(want-1).Timestamp {
			t.Errorf("%s: TimeRange %d..%d (%v), want %d..%d", name, a, z, ok, first, tornEvent(want-1).Timestamp)
		}
		ps, err := NewThread(7, ix, nil).Check()
		if err != nil {
			t.Fatalf("%s: Check: %v", name, err)
		}
		found := false
		for _, p := range ps {
			switch {
			case p.Corrupt:
				t.Errorf("%s: %v (corrupt)", name, p)
			case p.Kind == ProblemHeaderMismatch && p.Offset >= int64(fo):
				t.Errorf("%s: %v", name, p)
			case p.Kind == ProblemDiscarded && p.Offset == int64(fo)+16:
				found = true
				if !torn || p.Bytes != 16 || !strings.Contains(p.Msg, fmt.Sprintf("killed while storing event %d", n)) {
					t.Errorf("%s: %v (torn %v)", name, p, torn)
				}
			}
		}
		if torn != found {
			t.Errorf("%s: torn time range %v, reported %v: %v", name, torn, found, ps)
		}
	}
	if tornStates != 2 {
		t.Fatalf("%d torn states, want 2 (after each store of the event's second half)", tornStates)
	}

	// Damage the writer does not explain: a header mismatch at the
	// footer's time range, and TimeRange is the footer's.
	for _, c := range x.damaged() {
		ix, err := OpenIndexBytes(c.b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ps, err := NewThread(7, ix, nil).Check()
		if err != nil {
			t.Fatalf("%s: Check: %v", c.name, err)
		}
		mismatch := false
		for _, p := range ps {
			if p.Kind == ProblemDiscarded && p.Offset == int64(fo)+16 {
				t.Errorf("%s: %v", c.name, p)
			}
			mismatch = mismatch || p.Kind == ProblemHeaderMismatch && p.Offset == int64(fo)+16
		}
		if !mismatch {
			t.Errorf("%s: no header mismatch at the footer's time range: %v", c.name, ps)
		}
		if a, z, _ := ix.TimeRange(); a != binary.LittleEndian.Uint64(c.b[fo+16:]) || z != binary.LittleEndian.Uint64(c.b[fo+24:]) {
			t.Errorf("%s: TimeRange %d..%d, not the footer's", c.name, a, z)
		}
	}
}

// TestTornLiveFooterStream reads every kill point of TestTornLiveFooter,
// and the damage the writer does not explain, through IndexReader: in
// chunks of several sizes, with the footer at several places in the
// stream's 64 KiB buffer (2046 events end the first 64 KiB exactly). The
// stream delivers OpenIndexBytes's events and footer and reports the same
// Problems (kind, offset, counts, corrupt; the words of the torn footer's,
// the bytes after the footer and the header's time range): a torn live
// footer is told from damage in the stream exactly when it is in the file,
// in both torn states, and the damage stays a header mismatch.
func TestTornLiveFooterStream(t *testing.T) {
	for _, n := range []int{1, 5, 2044, 2045, 2046, 2047, 2049} {
		x := newTornFixture(t, n)
		var cases []tornCase
		for k := range len(x.stores) + 1 {
			cases = append(cases, tornCase{fmt.Sprintf("killed after %d of %d stores", k, len(x.stores)), x.apply(k)})
		}
		damaged := len(cases)
		cases = append(cases, x.damaged()...)
		tornStates := 0
		for ci, c := range cases {
			name := fmt.Sprintf("%d events, %s", n, c.name)
			ix, err := OpenIndexBytes(c.b)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := ix.Problems()
			_, torn := hasProblemAt(want, ProblemDiscarded, int64(x.fo)+16)
			if torn {
				tornStates++
				if ci >= damaged {
					t.Errorf("%s: the file takes damage for a torn live footer: %v", name, want)
				}
			}
			wantFooter, _ := ix.Footer()
			for _, chunk := range []int{1, 7, 100, 1 << 20} {
				if chunk == 1 && n > 5 {
					continue // 65 536 one-byte reads per case: the other sizes cover the buffer's edges
				}
				s, err := NewIndexReader(&chunkReader{b: c.b, n: chunk})
				if err != nil {
					t.Fatalf("%s, chunks of %d: %v", name, chunk, err)
				}
				var got uint64
				for s.Next() {
					if e, err := ix.Event(s.Seq()); err != nil || e != s.Event() || s.Seq() != got {
						t.Fatalf("%s, chunks of %d: event %d (seq %d) = %+v, file %+v (%v)", name, chunk, got, s.Seq(), s.Event(), e, err)
					}
					got++
				}
				if f, _ := s.Footer(); got != ix.Len() || f != wantFooter || s.Err() != nil || s.Recovered() != ix.Recovered() || s.Discarded() != ix.Discarded() {
					t.Fatalf("%s, chunks of %d: %d events, footer %+v, recovered %v, discarded %d, %v; file: %d, %+v, %v, %d",
						name, chunk, got, f, s.Recovered(), s.Discarded(), s.Err(), ix.Len(), wantFooter, ix.Recovered(), ix.Discarded())
				}
				if msg := sameProblems(s.Problems(), want, int64(x.fo)); msg != "" {
					t.Errorf("%s, chunks of %d: %s\nstream: %v\nfile:   %v", name, chunk, msg, s.Problems(), want)
				}
			}
		}
		if tornStates != 2 {
			t.Errorf("%d events: %d torn states, want 2", n, tornStates)
		}
	}
}

// hasProblemAt finds a problem of kind k at offset off.
func hasProblemAt(ps []Problem, k ProblemKind, off int64) (Problem, bool) {
	for _, p := range ps {
		if p.Kind == k && p.Offset == off {
			return p, true
		}
	}
	return Problem{}, false
}

// sameProblems compares IndexReader's problems with IndexFile's: the same
// kinds, offsets, counts and Corrupt, in order, and the same words where
// the two readers word them alike (the header's time range, the problems
// of the footer at fo: its torn time range and the bytes after it).
func sameProblems(got, want []Problem, fo int64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d problems, want %d", len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.Kind != w.Kind || g.Offset != w.Offset || g.Events != w.Events || g.Bytes != w.Bytes || g.Corrupt != w.Corrupt {
			return fmt.Sprintf("problem %d is %v, want %v", i, g, w)
		}
		words := w.Kind == ProblemHeaderMismatch && w.Offset == 48 || w.Kind == ProblemDiscarded && w.Offset > fo
		if words && g.Msg != w.Msg {
			return fmt.Sprintf("problem %d says %q, want %q", i, g.Msg, w.Msg)
		}
	}
	return ""
}
