package atf

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

var errInjected = errors.New("injected read failure")

// faultyReaderAt fails, once armed, every read that reaches byte from or
// beyond; reads before from succeed.
type faultyReaderAt struct {
	r     io.ReaderAt
	from  int64
	armed atomic.Bool
}

func (f *faultyReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if f.armed.Load() && off+int64(len(p)) > f.from {
		return 0, errInjected
	}
	return f.r.ReadAt(p, off)
}

// collect runs an All iterator to its end and returns the values yielded
// with a nil error and the errors yielded, checking that an error comes last
// with a zero value.
func collect[T comparable](t *testing.T, name string, s iter.Seq2[T, error]) (vals []T, errs []error) {
	t.Helper()
	var zero T
	for v, err := range s {
		if err != nil {
			if v != zero {
				t.Errorf("%s: error %v yielded with a non-zero value %+v", name, err, v)
			}
			errs = append(errs, err)
			continue
		}
		if len(errs) > 0 {
			t.Errorf("%s: a value after the error", name)
		}
		vals = append(vals, v)
	}
	return vals, errs
}

// wantReadError checks that errs is one FormatError at offset off wrapping
// target.
func wantReadError(t *testing.T, name string, errs []error, target error, off int64) {
	t.Helper()
	if len(errs) != 1 {
		t.Fatalf("%s: %d errors yielded, want 1: %v", name, len(errs), errs)
	}
	var fe *FormatError
	if !errors.Is(errs[0], target) || !errors.As(errs[0], &fe) || fe.Offset != off {
		t.Fatalf("%s: error %v, want %v at offset %d", name, errs[0], target, off)
	}
}

func TestAllYieldsReadErrors(t *testing.T) {
	index, _ := writeThread(t, 10000, 4, func(i int) uint64 { return uint64(i) * 3 })
	_, detail := writeThread(t, 40000, 4, func(i int) uint64 { return uint64(i) * 3 }) // more than two detail windows
	if len(detail.b) < 2*detailWindowSize {
		t.Fatalf("detail file of %d bytes, want more than two windows of %d", len(detail.b), detailWindowSize)
	}

	// Index: 10000 events in blocks of 8192 (256 KiB); the failure starts
	// in the second block, so the first block comes out and then the error.
	const block = iterBufSize
	fr := &faultyReaderAt{r: bytes.NewReader(index.b), from: HeaderSize + block + 100}
	r, err := OpenIndex(fr, int64(len(index.b)))
	if err != nil {
		t.Fatal(err)
	}
	fr.armed.Store(true)
	evs, errs := collect(t, "IndexFile.All", r.All())
	wantReadError(t, "IndexFile.All", errs, errInjected, HeaderSize+block)
	if len(evs) != block/IndexEventSize {
		t.Fatalf("IndexFile.All: %d events before the error, want %d", len(evs), block/IndexEventSize)
	}
	for i, e := range evs {
		if e != mustEventBytes(t, index.b, uint64(i)) {
			t.Fatalf("event %d differs", i)
		}
	}
	// The same through Range (a sorted file: binary search, then blocks) and
	// through an iterator started past the failure.
	_, errs = collect(t, "Range.All", r.Range(0, 1<<62))
	if len(errs) != 1 || !errors.Is(errs[0], errInjected) {
		t.Fatalf("Range.All: %v", errs)
	}
	evs, errs = collect(t, "Events(9000).All", r.Events(9000).All())
	if len(evs) != 0 || len(errs) != 1 {
		t.Fatalf("Events(9000).All: %d events, %v", len(evs), errs)
	}

	// Breaking out of the loop on the error must not yield again.
	n := 0
	for _, err := range r.All() {
		n++
		if err != nil {
			break
		}
	}
	if n != block/IndexEventSize+1 {
		t.Fatalf("break on error: %d steps", n)
	}

	// Merger: one faulty thread among healthy ones ends the merge with its
	// error, after the events merged before it.
	healthy, _ := OpenIndexBytes(index.b)
	m := NewMerger([]*IndexFile{healthy, r, healthy})
	merged, errs := collect(t, "Merger.All", m.All())
	wantReadError(t, "Merger.All", errs, errInjected, HeaderSize+block)
	if len(merged) < 3*(block/IndexEventSize)-2 || len(merged) >= 3*10000 {
		t.Fatalf("Merger.All: %d events before the error", len(merged))
	}
	if m.Err() == nil || m.Next() {
		t.Fatal("Merger: the error is not sticky")
	}
	for i, me := range merged[:100] {
		if e := mustEventBytes(t, index.b, me.Seq); e != me.IndexEvent || me.Thread < 0 || me.Thread > 2 {
			t.Fatalf("merged %d: %+v", i, me)
		}
	}

	// Detail: the open scan reads everything, so arm after it; the
	// iterator's 256 KiB windows cover the records before the failure.
	fd := &faultyReaderAt{r: bytes.NewReader(detail.b), from: int64(len(detail.b)) - 100}
	d, err := OpenDetail(fd, int64(len(detail.b)))
	if err != nil {
		t.Fatal(err)
	}
	fd.armed.Store(true)
	var recs int
	var derrs []error
	for e, err := range d.All() {
		if err != nil {
			if e.Payload != nil || e.TotalLength != 0 {
				t.Errorf("DetailFile.All: error with a non-zero event")
			}
			derrs = append(derrs, err)
			continue
		}
		recs++
	}
	if len(derrs) != 1 || !errors.Is(derrs[0], errInjected) {
		t.Fatalf("DetailFile.All: errors %v", derrs)
	}
	if recs == 0 || uint64(recs) >= d.Len() {
		t.Fatalf("DetailFile.All: %d of %d records before the error", recs, d.Len())
	}
	if off, _ := d.Offset(uint64(recs)); !errors.As(derrs[0], new(*FormatError)) || derrs[0].(*FormatError).Offset != off {
		t.Fatalf("DetailFile.All: error %v, want offset %d (record %d)", derrs[0], off, recs)
	}

	// A healthy file yields no error at all.
	if _, errs := collect(t, "healthy", healthy.All()); len(errs) != 0 {
		t.Fatal(errs)
	}
}

// TestAllOnFilesDamagedAfterOpen truncates files on disk under open readers:
// the iterators report ErrTruncated at the first byte that is gone.
func TestAllOnFilesDamagedAfterOpen(t *testing.T) {
	index, detail := writeThread(t, 10000, 4, func(i int) uint64 { return uint64(i) })
	dir := t.TempDir()
	ip, dp := filepath.Join(dir, "index.atf"), filepath.Join(dir, "detail.atf")
	if err := os.WriteFile(ip, index.b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dp, detail.b, 0o644); err != nil {
		t.Fatal(err)
	}
	th, err := OpenThread(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	const cut = HeaderSize + 9000*IndexEventSize + 5
	if err := os.Truncate(ip, cut); err != nil {
		t.Fatal(err)
	}
	dcut := int64(len(detail.b)) / 2
	if err := os.Truncate(dp, dcut); err != nil {
		t.Fatal(err)
	}
	evs, errs := collect(t, "index", th.Index.All())
	// Blocks of 8192 events: the first comes out whole, the second is cut.
	wantReadError(t, "index", errs, ErrTruncated, cut)
	if len(evs) != iterBufSize/IndexEventSize {
		t.Fatalf("index: %d events before the error", len(evs))
	}
	var recs uint64
	var derrs []error
	for _, err := range th.Detail.All() {
		if err != nil {
			derrs = append(derrs, err)
			continue
		}
		recs++
	}
	if len(derrs) != 1 || !errors.Is(derrs[0], ErrTruncated) || recs >= th.Detail.Len() {
		t.Fatalf("detail: %d records, errors %v", recs, derrs)
	}
	if _, err := th.Index.Event(9500); !errors.Is(err, ErrTruncated) {
		t.Fatalf("Event past the cut: %v", err)
	}
}

// TestStreamAllYieldsCorruption feeds IndexReader a finalized file whose
// footer count was altered, and a stream that fails midway.
func TestStreamAllYieldsCorruption(t *testing.T) {
	index, _ := writeThread(t, 300, 2, func(i int) uint64 { return uint64(i) })
	bad := bytes.Clone(index.b)
	fo := len(bad) - FooterSize
	bad[fo+8]++ // footer event_count
	s, err := NewIndexReader(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	evs, errs := collect(t, "stream", s.All())
	wantReadError(t, "stream", errs, ErrCorrupt, int64(fo)+8)
	if len(evs) != 300 {
		t.Fatalf("stream: %d events before the error", len(evs))
	}

	s, err = NewIndexReader(io.MultiReader(bytes.NewReader(index.b[:HeaderSize+100*IndexEventSize]), &failingReader{}))
	if err != nil {
		t.Fatal(err)
	}
	evs, errs = collect(t, "failing stream", s.All())
	if len(evs) != 100 || len(errs) != 1 || !errors.Is(errs[0], errInjected) {
		t.Fatalf("failing stream: %d events, %v", len(evs), errs)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errInjected }

func mustEventBytes(t *testing.T, b []byte, seq uint64) IndexEvent {
	t.Helper()
	r, err := OpenIndexBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return mustEvent(t, r, seq)
}
