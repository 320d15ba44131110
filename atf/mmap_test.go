package atf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"unsafe"
)

// within reports whether p's bytes lie inside b, starting at b[off]: a view,
// not a copy.
func within(p, b []byte, off int64) bool {
	if len(p) == 0 {
		return true
	}
	return unsafe.SliceData(p) == &b[off]
}

// TestDetailPayloadsAreViews pins that over OpenDetailBytes every payload
// handed out — by the iterator, Event and EventInto, All — is b's own bytes
// at the record, capped at the record's end, and that it sees a change of b.
func TestDetailPayloadsAreViews(t *testing.T) {
	_, det := writeThread(t, 3000, 2, func(i int) uint64 { return uint64(i) })
	b := bytes.Clone(det.b)
	d, err := OpenDetailBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	it := d.Events()
	if e := it.Event(); e.Payload != nil || e.TotalLength != 0 {
		t.Fatalf("Event before Next: %+v", e)
	}
	for it.Next() {
		seq := it.Seq()
		off, _ := d.Offset(seq)
		p := it.Event().Payload
		e1, _ := d.Event(seq)
		e2, _ := d.EventInto(seq, buf)
		for _, q := range [][]byte{p, e1.Payload, e2.Payload} {
			if !within(q, b, off+DetailEventHeaderSize) || cap(q) != len(q) || len(q) != len(p) {
				t.Fatalf("record %d: payload is not a view of the file's bytes at %d (len %d cap %d)", seq, off+DetailEventHeaderSize, len(q), cap(q))
			}
		}
		if len(p) > 0 {
			b[off+DetailEventHeaderSize]++
			if p[0] != b[off+DetailEventHeaderSize] {
				t.Fatalf("record %d: the payload does not see a change of the file's bytes", seq)
			}
			b[off+DetailEventHeaderSize]--
		}
	}
	if it.Err() != nil || it.Seq()+1 != d.Len() {
		t.Fatalf("iterated %d of %d: %v", it.Seq()+1, d.Len(), it.Err())
	}
	if last, _ := d.Event(d.Len() - 1); !bytes.Equal(it.Event().Payload, last.Payload) || it.Event().IndexSeq != last.IndexSeq {
		t.Fatal("after the end, Event is not the last record")
	}
	// Appending to a view copies: the next record stays intact.
	e, _ := d.Event(3)
	_ = append(e.Payload, 0xEE, 0xEE)
	if !bytes.Equal(b, det.b) {
		t.Fatal("an append to a payload overwrote the file's bytes")
	}
	// Over an io.ReaderAt the payload is a copy in the caller's buffer.
	dr, _ := OpenDetail(bytes.NewReader(b), int64(len(b)))
	e, _ = dr.EventInto(3, buf)
	if len(e.Payload) > 0 && !within(e.Payload, buf, DetailEventHeaderSize) {
		t.Fatal("EventInto over an io.ReaderAt did not use buf")
	}
}

// writeSessionFiles writes one thread (index and detail) under dir/thread_<id>.
func writeSessionFiles(t testing.TB, dir string, id uint32, n int) (index, detail []byte) {
	t.Helper()
	idx, det := writeThread(t, n, id, func(i int) uint64 { return uint64(i)*4 + uint64(id) })
	tdir := filepath.Join(dir, "thread_"+strconv.FormatUint(uint64(id), 10))
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tdir, "index.atf"), idx.b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tdir, "detail.atf"), det.b, 0o644); err != nil {
		t.Fatal(err)
	}
	return idx.b, det.b
}

// mapsFiles reports whether WithMmap maps on this platform.
func mapsFiles() bool {
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		return false
	}
	return true
}

func TestWithMmap(t *testing.T) {
	dir := t.TempDir()
	idxB, detB := writeSessionFiles(t, dir, 0, 4000)
	writeSessionFiles(t, dir, 1, 2500)
	ipath := filepath.Join(dir, "thread_0", "index.atf")
	dpath := filepath.Join(dir, "thread_0", "detail.atf")

	r, err := OpenIndexFile(ipath, WithMmap(true))
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenDetailFile(dpath, WithMmap(true))
	if err != nil {
		t.Fatal(err)
	}
	if mapsFiles() != (r.src.data != nil) || mapsFiles() != (d.src.data != nil) {
		t.Fatalf("mapped: index %v, detail %v, want %v", r.src.data != nil, d.src.data != nil, mapsFiles())
	}
	// Same events as the bytes.
	ib, _ := OpenIndexBytes(idxB)
	db, _ := OpenDetailBytes(detB)
	for seq := range r.Len() {
		a, _ := r.Event(seq)
		b, _ := ib.Event(seq)
		if a != b {
			t.Fatalf("index event %d: %+v, want %+v", seq, a, b)
		}
	}
	it, itb := d.Events(), db.Events()
	for it.Next() {
		itb.Next()
		a, b := it.Event(), itb.Event()
		if !bytes.Equal(a.Payload, b.Payload) || a.IndexSeq != b.IndexSeq || a.Timestamp != b.Timestamp || a.TotalLength != b.TotalLength {
			t.Fatalf("detail %d differs", it.Seq())
		}
		if mapsFiles() {
			// A view of the mapping: the same bytes every time, and still
			// valid after the iterator moved on (until Close).
			off, _ := d.Offset(it.Seq())
			e, _ := d.Event(it.Seq())
			if !within(a.Payload, d.src.data, off+DetailEventHeaderSize) || !within(e.Payload, d.src.data, off+DetailEventHeaderSize) {
				t.Fatalf("detail %d: the payload is not a view of the mapping", it.Seq())
			}
		}
	}
	if it.Err() != nil || it.Seq()+1 != db.Len() {
		t.Fatalf("mapped iteration: %d of %d, %v", it.Seq()+1, db.Len(), it.Err())
	}
	if ok, err := d.VerifyChecksum(); !ok || err != nil {
		t.Fatalf("VerifyChecksum over the mapping: %v %v", ok, err)
	}
	if ok, err := r.VerifyChecksum(); !ok || err != nil {
		t.Fatalf("VerifyChecksum over the mapping: %v %v", ok, err)
	}
	// After Close: errors, not faults; closing twice is harmless.
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Event(1); err == nil || (mapsFiles() && !errors.Is(err, os.ErrClosed)) {
		t.Fatalf("index Event after Close: %v", err)
	}
	if _, err := d.Event(1); err == nil || (mapsFiles() && !errors.Is(err, os.ErrClosed)) {
		t.Fatalf("detail Event after Close: %v", err)
	}
	it = d.Events()
	if it.Next() || it.Err() == nil {
		t.Fatal("a detail iterator after Close read something")
	}

	// A session opened mapped merges and links like one read.
	sm, err := OpenSession(dir, WithMmap(true))
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	sr, err := OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	a, b := sm.Merge(), sr.Merge()
	n := 0
	for a.Next() {
		if !b.Next() || a.Event() != b.Event() {
			t.Fatalf("mapped merge step %d differs", n)
		}
		e := a.Event()
		if e.HasDetail() {
			th := sm.Threads[e.Thread]
			de, ok, err := th.DetailFor(e.IndexEvent, nil)
			if !ok || err != nil || uint64(de.IndexSeq) != e.Seq {
				t.Fatalf("mapped DetailFor at step %d: %v %v", n, ok, err)
			}
		}
		n++
	}
	if b.Next() || a.Err() != nil || n != 6500 {
		t.Fatalf("mapped merge: %d events, %v", n, a.Err())
	}
	if ps, err := sm.Check(); err != nil || len(ps) != 1 { // only: no manifest
		t.Fatalf("mapped Check: %v %v", ps, err)
	}

	// Errors: not a regular file, missing, empty (not mapped, too small).
	if _, err := OpenIndexFile(dir, WithMmap(true)); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("folder: %v", err)
	}
	if _, err := OpenDetailFile(filepath.Join(dir, "nope"), WithMmap(true)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	empty := filepath.Join(dir, "empty.atf")
	os.WriteFile(empty, nil, 0o644)
	if _, err := OpenIndexFile(empty, WithMmap(true)); !errors.Is(err, ErrTruncated) {
		t.Fatalf("empty: %v", err)
	}
	th, err := OpenThread(filepath.Join(dir, "thread_1"), WithMmap(true))
	if err != nil || th.Index.Len() != 2500 {
		t.Fatalf("OpenThread mapped: %v", err)
	}
	th.Close()
}

func TestMappedNoAllocsPerEvent(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts are not meaningful under -cover or -race")
	}
	dir := t.TempDir()
	writeSessionFiles(t, dir, 0, 30000)
	th, err := OpenThread(filepath.Join(dir, "thread_0"), WithMmap(true))
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	d := th.Detail
	it := d.Events()
	var sum int
	if a := testing.AllocsPerRun(5000, func() {
		if !it.Next() {
			t.Fatal("iteration ended early")
		}
		sum += len(it.Event().Payload)
	}); a != 0 {
		t.Errorf("mapped DetailIter.Next: %v allocs/event", a)
	}
	var seq uint64
	if a := testing.AllocsPerRun(5000, func() {
		seq = (seq + 7) % d.Len()
		e, _ := d.Event(seq)
		sum += len(e.Payload)
	}); a != 0 {
		t.Errorf("mapped DetailFile.Event: %v allocs/event", a)
	}
	m := NewMerger([]*IndexFile{th.Index, th.Index, th.Index})
	if a := testing.AllocsPerRun(20000, func() {
		if !m.Next() {
			t.Fatal("merge ended early")
		}
	}); a != 0 {
		t.Errorf("mapped Merger.Next: %v allocs/event", a)
	}
}

// TestDetailIterAheadBounds pins the in-memory iterator's look-ahead (every
// detailBatch records Next touches the detailBatch records detailAhead on)
// at its edges: files with fewer, exactly as many and more records than
// detailBatch and detailAhead, of varying sizes, in memory, through an
// io.ReaderAt, and torn (recovered) in memory, give every record exactly
// once, as Event(seq) does, through Event and through the getters
// (payloads whose capacity ends with the record); zero values before the
// first record, the last record (and its Seq) after the end.
func TestDetailIterAheadBounds(t *testing.T) {
	for _, records := range []int{1, detailBatch - 1, detailBatch, detailBatch + 1, detailAhead - 1, detailAhead, detailAhead + 1,
		detailAhead + detailBatch + 1, 2*detailAhead + 5, 300} {
		var idx, det memFile
		tw, err := NewThreadWriter(&idx, func() (ioWS, error) { return &det, nil }, 4)
		if err != nil {
			t.Fatal(err)
		}
		payload := make([]byte, 700)
		for i := range records {
			if _, err := tw.Write(uint64(i), 1, KindCall, 1, payload[:1+i*37%700]); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		torn := det.b[:max(HeaderSize, len(det.b)-FooterSize-7)]
		for _, c := range []struct {
			name string
			b    []byte
			mem  bool
		}{{"bytes", det.b, true}, {"readerat", det.b, false}, {"torn", torn, true}} {
			var d *DetailFile
			var err error
			if c.mem {
				d, err = OpenDetailBytes(c.b)
			} else {
				d, err = OpenDetail(bytes.NewReader(c.b), int64(len(c.b)))
			}
			if err != nil {
				t.Fatalf("%d records, %s: %v", records, c.name, err)
			}
			if c.name != "torn" && d.Len() != uint64(records) {
				t.Fatalf("%d records, %s: Len %d", records, c.name, d.Len())
			}
			it := d.Events()
			if e := it.Event(); e.Timestamp != 0 || e.Payload != nil || it.Timestamp() != 0 || it.IndexSeq() != 0 || it.Payload() != nil {
				t.Fatalf("%d records, %s: before the first record: %+v", records, c.name, e)
			}
			var n uint64
			var last DetailEvent
			for it.Next() {
				want, err := d.Event(n)
				got := it.Event()
				if err != nil || it.Seq() != n || got.IndexSeq != want.IndexSeq || got.Timestamp != want.Timestamp || !bytes.Equal(got.Payload, want.Payload) {
					t.Fatalf("%d records, %s: record %d (Seq %d) = %+v, Event gives %+v, %v", records, c.name, n, it.Seq(), got, want, err)
				}
				if it.Timestamp() != want.Timestamp || it.IndexSeq() != want.IndexSeq || it.ThreadID() != want.ThreadID ||
					it.Type() != want.Type || it.Flags() != want.Flags || !bytes.Equal(it.Payload(), want.Payload) {
					t.Fatalf("%d records, %s: record %d: the getters disagree with %+v", records, c.name, n, want)
				}
				if cap(got.Payload) != len(got.Payload) || cap(it.Payload()) != len(it.Payload()) {
					t.Fatalf("%d records, %s: record %d: payload capacity %d / %d, length %d", records, c.name, n, cap(got.Payload), cap(it.Payload()), len(want.Payload))
				}
				last = want
				n++
			}
			if n != d.Len() || it.Err() != nil || it.Next() {
				t.Fatalf("%d records, %s: iterated %d of %d: %v", records, c.name, n, d.Len(), it.Err())
			}
			if e := it.Event(); n > 0 && (e.Timestamp != last.Timestamp || !bytes.Equal(e.Payload, last.Payload) || it.Timestamp() != last.Timestamp || it.Seq() != n-1) {
				t.Fatalf("%d records, %s: after the end: %+v (Seq %d), want the last record %+v", records, c.name, e, it.Seq(), last)
			}
			if e := it.Event(); n == 0 && (e.Timestamp != 0 || e.Payload != nil || it.Payload() != nil) {
				t.Fatalf("%d records, %s: after the end of no records (torn): %+v", records, c.name, e)
			}
		}
	}
}

// TestDetailIterEventBatches: Event decodes detailEvents records at a
// time; called on some records only (every k-th, for k across the batch
// size, and twice in a row), it still gives each record's own fields and
// payload, in memory and through an io.ReaderAt.
func TestDetailIterEventBatches(t *testing.T) {
	var idx, det memFile
	tw, err := NewThreadWriter(&idx, func() (ioWS, error) { return &det, nil }, 4)
	if err != nil {
		t.Fatal(err)
	}
	const records = 5*detailEvents + 3
	for i := range records {
		if _, err := tw.Write(uint64(1000+i), 1, KindCall, 1, bytes.Repeat([]byte{byte(i)}, 1+i%50)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	mem, err := OpenDetailBytes(det.b)
	if err != nil {
		t.Fatal(err)
	}
	ra, err := OpenDetail(bytes.NewReader(det.b), int64(len(det.b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*DetailFile{mem, ra} {
		for _, k := range []uint64{1, 2, 7, detailEvents - 1, detailEvents, detailEvents + 1, 3*detailEvents + 5} {
			it := d.Events()
			for n := uint64(0); it.Next(); n++ {
				if n%k != k-1 {
					continue
				}
				want, err := d.Event(n)
				for range 2 {
					if got := it.Event(); err != nil || got.Timestamp != want.Timestamp || got.IndexSeq != want.IndexSeq ||
						got.TotalLength != want.TotalLength || !bytes.Equal(got.Payload, want.Payload) || len(got.Payload) != 1+int(n)%50 ||
						cap(got.Payload) != len(got.Payload) || got.Type != want.Type || got.Flags != want.Flags || got.ThreadID != want.ThreadID {
						t.Fatalf("every %d-th record, record %d: %+v, want %+v (%v)", k, n, got, want, err)
					}
				}
			}
		}
	}
}
