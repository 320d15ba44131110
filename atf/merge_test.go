package atf

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// mergeSteps runs a merge to its end and returns every step (event, thread,
// seq) and the error; next/event/err are the merger's methods.
func mergeSteps(next func() bool, event func() MergedEvent, thread func() int, seq func() uint64, err func() error) ([]MergedEvent, error) {
	var out []MergedEvent
	for next() {
		e := event()
		if e.Thread != thread() || e.Seq != seq() {
			return out, fmt.Errorf("step %d: Event says thread %d seq %d, Thread/Seq say %d/%d", len(out), e.Thread, e.Seq, thread(), seq())
		}
		out = append(out, e)
	}
	if next() {
		return out, fmt.Errorf("Next is true again after the end")
	}
	return out, err()
}

// sameAsHeap checks that the loser-tree merge of files (whole, and over
// [from, to)) yields exactly what the old heap merge yields, step by step.
func sameAsHeap(t *testing.T, what string, files []*IndexFile, from, to uint64) {
	t.Helper()
	for _, ranged := range []bool{false, true} {
		var m *Merger
		var h *heapMerger
		if ranged {
			m, h = NewMergerRange(files, from, to), newHeapMergerRange(files, from, to)
		} else {
			m, h = NewMerger(files), newHeapMerger(files)
		}
		got, gerr := mergeSteps(m.Next, m.Event, m.Thread, m.Seq, m.Err)
		want, werr := mergeSteps(h.Next, h.Event, h.Thread, h.Seq, h.Err)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("%s ranged=%v: error %v, the heap merge's %v", what, ranged, gerr, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%s ranged=%v: %d events, the heap merge gives %d", what, ranged, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s ranged=%v: step %d is %+v, the heap merge gives %+v", what, ranged, i, got[i], want[i])
			}
		}
		if m.Event() != (MergedEvent{}) || m.Thread() != -1 {
			t.Fatalf("%s: a current event after the end", what)
		}
	}
}

// randomIndex is an index file of n events whose timestamps come from a
// small range (many ties, within and across threads); sorted or not. Some
// files are left without a footer (recovered), some with a torn tail.
func randomIndex(t *testing.T, rng *rand.Rand, thread uint32, n int, span uint64, sorted, huge bool) []byte {
	t.Helper()
	var f memFile
	w, err := NewIndexWriter(&f, thread)
	if err != nil {
		t.Fatal(err)
	}
	ts := uint64(rng.IntN(4))
	for i := range n {
		if sorted {
			ts += uint64(rng.IntN(3)) // 0: a tie with the previous event
		} else {
			ts = rng.Uint64N(span + 1)
		}
		if huge && rng.IntN(50) == 0 {
			// The largest key must still beat a finished thread, and a
			// timestamp too large to pack switches to the wide tree.
			ts = math.MaxUint64 - rng.Uint64N(3)
		}
		w.Append(IndexEvent{Timestamp: ts, FunctionID: uint64(i), ThreadID: thread, Kind: KindCall, DetailSeq: NoDetail})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := f.b
	switch rng.IntN(4) {
	case 0: // crashed: no footer, a torn event
		b = append(b[:len(b)-FooterSize:len(b)-FooterSize], 1, 2, 3)
	case 1: // crashed cleanly
		b = b[: len(b)-FooterSize : len(b)-FooterSize]
	}
	return b
}

func TestMergeMatchesHeapMergeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2026))
	rounds := 400
	if testing.Short() {
		rounds = 60
	}
	for round := range rounds {
		k := rng.IntN(11) // 0..10 threads: powers of two and not
		span := uint64(1 + rng.IntN(40))
		huge := round%3 == 0
		files := make([]*IndexFile, k)
		for i := range files {
			if rng.IntN(12) == 0 {
				continue // a nil entry is skipped
			}
			n := rng.IntN(300)
			if rng.IntN(6) == 0 {
				n = 0
			}
			data := randomIndex(t, rng, uint32(i), n, span, rng.IntN(3) != 0, huge)
			var err error
			if rng.IntN(2) == 0 {
				files[i], err = OpenIndexBytes(data)
			} else { // through an io.ReaderAt: block refills mid-merge
				files[i], err = OpenIndex(bytes.NewReader(data), int64(len(data)))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		from := rng.Uint64N(span + 2)
		to := from + rng.Uint64N(span+2)
		if rng.IntN(8) == 0 {
			to = math.MaxUint64
		}
		sameAsHeap(t, fmt.Sprintf("round %d (%d threads)", round, k), files, from, to)
	}
}

// TestMergeMatchesHeapMergeBlocks merges threads behind io.ReaderAts long
// enough to cross several 64 KiB blocks, in lockstep and in runs.
func TestMergeMatchesHeapMergeBlocks(t *testing.T) {
	const per = 3*mergeBufSize/IndexEventSize + 17
	for _, runLen := range []int{1, 7, 5000} {
		var files []*IndexFile
		for k := range 5 {
			var f memFile
			w, _ := NewIndexWriter(&f, uint32(k))
			for i := range per {
				ts := uint64(i/runLen*5+k%3) * 10 // ties between threads 0 and 3, 1 and 4
				w.Append(IndexEvent{Timestamp: ts, FunctionID: uint64(i), ThreadID: uint32(k), DetailSeq: NoDetail})
			}
			w.Close()
			r, err := OpenIndex(bytes.NewReader(f.b), int64(len(f.b)))
			if k%2 == 1 { // in memory: sliced into blocks of the same size
				r, err = OpenIndexBytes(f.b)
			}
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, r)
		}
		sameAsHeap(t, fmt.Sprintf("runs of %d", runLen), files, 1000, 90000)
	}
}

// TestMergeMatchesHeapMergeManyThreads merges more threads than the packed
// tree takes (the wide tree then does every step), and exactly as many.
func TestMergeMatchesHeapMergeManyThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 65))
	for _, k := range []int{maxPacked, maxPacked + 1, 100} {
		files := make([]*IndexFile, k)
		for i := range files {
			data := randomIndex(t, rng, uint32(i), rng.IntN(60), 500, rng.IntN(4) != 0, false)
			var err error
			if files[i], err = OpenIndexBytes(data); err != nil {
				t.Fatal(err)
			}
		}
		files[k/2] = nil
		sameAsHeap(t, fmt.Sprintf("%d threads", k), files, 100, 400)
	}
}

// TestMergeMatchesHeapMergeVectors merges the reference sessions (normal
// and crashed; read and mapped) both ways.
func TestMergeMatchesHeapMergeVectors(t *testing.T) {
	for _, dir := range []string{normalDir, crashDir} {
		for _, mapped := range []bool{false, true} {
			s, err := OpenSession(vectortest.Path(t, "atf", dir), WithMmap(mapped))
			if err != nil {
				t.Fatal(err)
			}
			first, last, _ := s.TimeRange()
			sameAsHeap(t, fmt.Sprintf("%s mapped=%v", dir, mapped), s.Indexes(), first+(last-first)/3, last)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestMergeNoAllocsPerEvent(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts are not meaningful under -cover or -race")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 3, 8, 9} {
		var files []*IndexFile
		for i := range k {
			data := randomIndex(t, rng, uint32(i), 21000, 100, true, false)
			r, _ := OpenIndex(bytes.NewReader(data), int64(len(data)))
			if i%2 == 0 {
				r, _ = OpenIndexBytes(data)
			}
			files = append(files, r)
		}
		m := NewMerger(files)
		var sum uint64
		if a := testing.AllocsPerRun(20000, func() {
			if !m.Next() {
				t.Fatal("merge ended early")
			}
			sum += m.Event().Timestamp
		}); a != 0 {
			t.Errorf("%d threads: Merger.Next+Event: %v allocs/event", k, a)
		}
	}
}
