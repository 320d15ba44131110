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
	first, last := tornEvent(0).Timestamp, tornEvent(n-1).Timestamp

	// The live file: the header's time range unpatched (only Close stores
	// it), the live footer as the mapped writer keeps it, and the zero tail
	// of its last growth step.
	live := append(slices.Clone(good), make([]byte, 4096)...)
	clear(live[48:64])
	lw := &IndexWriter{first: first, last: last}
	lw.putLiveFooter(live[fo:fo+IndexEventSize+FooterSize], n)

	// putMapped's stores of event n, in its order.
	next := tornEvent(n)
	c := uint64(n + 1)
	stores := []tornStore{
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
	}
	apply := func(k int) []byte {
		b := slices.Clone(live)
		for _, s := range stores[:k] {
			copy(b[s.at:], s.v)
		}
		return b
	}
	// The list is the writer's.
	mine, theirs := apply(len(stores)), slices.Clone(live)
	mw := &IndexWriter{count: c, first: first, live: (*[HeaderSize]byte)(theirs[:HeaderSize])}
	mw.putMapped((*[IndexEventSize + FooterSize]byte)(theirs[fo:]), next.Timestamp, next.FunctionID,
		pair(next.ThreadID, uint32(next.Kind)), pair(next.CallDepth, next.DetailSeq))
	if !bytes.Equal(mine, theirs) {
		t.Fatal("the store list does not give the bytes putMapped stores")
	}

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
	torn := apply(6)
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"a finished file's footer time range", func() []byte { b := slices.Clone(good); copy(b[fo+16:], torn[fo+16:fo+32]); return b }()},
		{"a live footer's time range, no next footer begun", func() []byte { b := slices.Clone(live); copy(b[fo+16:], torn[fo+16:fo+32]); return b }()},
		{"the next footer's time_start not the first event's", func() []byte { b := slices.Clone(torn); b[fo+48]++; return b }()},
		{"the next footer's event_count not one more", func() []byte { b := slices.Clone(torn); b[fo+40]++; return b }()},
		{"the next footer's bytes_written not one event more", func() []byte { b := slices.Clone(torn); b[fo+64] += 32; return b }()},
		{"bytes in the next footer's reserved bytes", func() []byte { b := slices.Clone(torn); b[fo+95] = 1; return b }()},
		{"the next footer cut at the file's end", torn[:fo+FooterSize+IndexEventSize-1]},
	} {
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
