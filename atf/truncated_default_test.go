package atf

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestDefaultPathsTruncatedUnderReader: with default options (files read
// through pread, not mapped) files cut on disk after the session was
// opened end every access path with an error wrapping ErrTruncated that
// stays (the next Next is false, the error unchanged), never a crash —
// where a mapped reader would take a SIGBUS (see WithMmap): index
// iteration (Event and getters), Blocks, ReadEvents, Event(seq), detail
// iteration (Event, getters, payload views), DetailFile.Event and
// EventInto, and the merge.
func TestDefaultPathsTruncatedUnderReader(t *testing.T) {
	dir := t.TempDir()
	const n = 40000
	writeSessionFiles(t, dir, 0, n)
	writeSessionFiles(t, dir, 1, n)
	s, err := OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	th, ok := s.Thread(0)
	if !ok || th.Detail == nil {
		t.Fatal("thread 0 or its detail file missing")
	}
	const cut = n / 4 * 3
	if err := os.Truncate(filepath.Join(dir, "thread_0", "index.atf"), HeaderSize+cut*IndexEventSize+5); err != nil {
		t.Fatal(err)
	}
	dlen := th.Detail.Len()
	dcut, _ := th.Detail.Offset(dlen / 2)
	if err := os.Truncate(filepath.Join(dir, "thread_0", "detail.atf"), dcut+7); err != nil {
		t.Fatal(err)
	}

	// sticky runs next to its end and checks the error, then once more.
	sticky := func(name string, next func() bool, errOf func() error) (steps uint64) {
		t.Helper()
		for next() {
			steps++
		}
		if err := errOf(); !errors.Is(err, ErrTruncated) {
			t.Fatalf("%s: after %d steps, error %v, want ErrTruncated", name, steps, err)
		}
		first := errOf()
		if next() || errOf() != first {
			t.Fatalf("%s: the error is not sticky (%v, then %v)", name, first, errOf())
		}
		return steps
	}
	var sink uint64
	it := th.Index.Events(0)
	if k := sticky("index Events", func() bool {
		if !it.Next() {
			return false
		}
		e := it.Event()
		sink += e.Timestamp + it.Timestamp() + uint64(it.DetailSeq())
		return true
	}, it.Err); k >= cut {
		t.Fatalf("index Events: %d events, the file holds %d", k, cut)
	}
	b := th.Index.Blocks(0)
	sticky("index Blocks", func() bool {
		if !b.Next() {
			return false
		}
		for _, e := range b.Events() {
			sink += e.Timestamp
		}
		return true
	}, b.Err)
	if _, err := th.Index.ReadEvents(make([]IndexEvent, n), 0); !errors.Is(err, ErrTruncated) {
		t.Fatalf("ReadEvents: %v", err)
	}
	if _, err := th.Index.Event(n - 1); !errors.Is(err, ErrTruncated) {
		t.Fatalf("index Event past the cut: %v", err)
	}

	di := th.Detail.Events()
	if k := sticky("detail Events", func() bool {
		if !di.Next() {
			return false
		}
		e := di.Event()
		p := di.Payload()
		for _, c := range e.Payload {
			sink += uint64(c)
		}
		if len(p) > 0 {
			sink += uint64(p[len(p)-1]) + di.Timestamp() + uint64(di.IndexSeq())
		}
		return true
	}, di.Err); k >= dlen {
		t.Fatalf("detail Events: %d records, the file held %d", k, dlen)
	}
	if _, err := th.Detail.Event(dlen - 1); !errors.Is(err, ErrTruncated) {
		t.Fatalf("detail Event past the cut: %v", err)
	}
	if _, err := th.Detail.EventInto(dlen-1, make([]byte, 0, 1024)); !errors.Is(err, ErrTruncated) {
		t.Fatalf("detail EventInto past the cut: %v", err)
	}

	m := s.Merge()
	if k := sticky("Merge", func() bool {
		if !m.Next() {
			return false
		}
		sink += m.Event().Timestamp
		return true
	}, m.Err); k >= 2*n-n/4 {
		t.Fatalf("Merge: %d events past the cut", k)
	}
	_ = sink
}
