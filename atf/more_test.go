package atf

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

func TestSyncMakesEventsVisible(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "thread_0")
	tw, err := CreateThread(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tw.Close()
	for i := range 10 {
		tw.Write(uint64(i), 1, KindCall, 1, []byte{byte(i)})
	}
	if err := tw.Sync(); err != nil {
		t.Fatal(err)
	}
	th, err := OpenThread(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	if th.Index.Len() != 10 || th.DetailLen() != 10 || !th.Recovered() {
		t.Errorf("after Sync: %d events, %d detail, recovered %v", th.Index.Len(), th.DetailLen(), th.Recovered())
	}
}

func TestConcurrentReads(t *testing.T) {
	index, detail := writeThread(t, 3000, 2, func(i int) uint64 { return uint64(i) })
	ir, _ := OpenIndex(bytes.NewReader(index.b), int64(len(index.b)))
	dr, _ := OpenDetail(bytes.NewReader(detail.b), int64(len(detail.b)))
	th := NewThread(2, ir, dr)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range uint64(3000) {
				seq := (i*uint64(g+1)*7919 + uint64(g)) % 3000
				e, err := ir.Event(seq)
				if err != nil || e.Timestamp != seq {
					errs <- fmt.Errorf("Event(%d) = %+v, %v", seq, e, err)
					return
				}
				if d, ok, err := th.DetailFor(e, nil); err != nil || (ok && d.IndexSeq != uint32(seq)) {
					errs <- fmt.Errorf("detail of %d: %+v %v", seq, d, err)
					return
				}
			}
			if s, err := ir.Sorted(); !s || err != nil {
				errs <- fmt.Errorf("sorted %v %v", s, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestManifestEdgeCases(t *testing.T) {
	for _, c := range []struct {
		in   string
		want error
	}{
		{`{}`, ErrBadMagic},
		{`[]`, ErrCorrupt},
		{`{"threads":[{"has_detail":true}]}`, ErrCorrupt},
		{`{"threads":[{"id":-1}]}`, ErrCorrupt},
		{`{"threads":[],"symbols":[{"function_id":"0xZZ"}]}`, ErrCorrupt},
		{`{"threads": [`, ErrCorrupt},
	} {
		if _, err := ParseManifest([]byte(c.in)); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.in, err, c.want)
		}
	}
	var many bytes.Buffer
	many.WriteString(`{"threads":[`)
	for i := range 5000 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"id":%d}`, i)
	}
	many.WriteString(`]}`)
	if _, err := ParseManifest(many.Bytes()); !errors.Is(err, ErrLimit) {
		t.Errorf("5000 threads: %v", err)
	}
	m, err := ParseManifest([]byte(`{"threads":[{"id":3}],"symbols":[{"function_id":"12","name":"a\u0001b"},{"function_id":13}],"modules":[{"module_id":1,"path":"p","base_address":"0x10"}]}`))
	if err != nil || m.Symbols[0].FunctionID != 12 || m.Symbols[1].FunctionID != 13 || !m.Modules[0].HasInfo || m.Modules[0].BaseAddress != 16 {
		t.Fatalf("%+v %v", m, err)
	}
	back, err := ParseManifest(m.AppendJSON(nil))
	if err != nil || back.Symbols[0].Name != "a\x01b" {
		t.Errorf("control byte round trip: %+v %v", back, err)
	}
}

func TestSessionManifestSkipsMissingThreadDirs(t *testing.T) {
	dir := t.TempDir()
	tw, _ := CreateThread(filepath.Join(dir, "thread_1"), 1)
	tw.Write(5, 1, KindCall, 1, nil)
	tw.Close()
	m := Manifest{Threads: []ManifestThread{{ID: 0}, {ID: 1}}, ClockType: 1}
	os.WriteFile(filepath.Join(dir, "manifest.json"), m.AppendJSON(nil), 0o644)
	s, err := OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Threads) != 1 || s.Threads[0].ID != 1 || s.EventCount() != 1 {
		t.Errorf("threads %d", len(s.Threads))
	}
	// A broken thread file sinks the session with its folder named.
	os.WriteFile(filepath.Join(dir, "thread_1", "index.atf"), bytes.Repeat([]byte("X"), 100), 0o644)
	if _, err := OpenSession(dir); !errors.Is(err, ErrBadMagic) {
		t.Errorf("broken thread: %v", err)
	}
}

func TestPlaceholderHeaderWithFooterLookalike(t *testing.T) {
	// An unfinalized file whose first event's bytes happen to begin with
	// "2ITA" must still be read by size, not as an (empty) footer.
	var f memFile
	w, _ := NewIndexWriter(&f, 0)
	w.Append(IndexEvent{Timestamp: 0x41544932, FunctionID: 99})
	w.Append(IndexEvent{Timestamp: 7})
	w.Append(IndexEvent{Timestamp: 8})
	w.Flush()
	r, err := OpenIndexBytes(f.b)
	if err != nil || r.Len() != 3 || !r.Recovered() {
		t.Fatalf("len %d recovered %v err %v", r.Len(), r.Recovered(), err)
	}
}

func TestIndexStreamVectors(t *testing.T) {
	for _, c := range []struct {
		rel       string
		n         uint64
		recovered bool
		discarded int64
	}{
		{normalDir + "/thread_0/index.atf", 6, false, 0},
		{normalDir + "/thread_2/index.atf", 8, false, 0},
		{normalDir + "/thread_3/index.atf", 0, false, 0},
		{crashDir + "/thread_0/index.atf", 5, true, 0},
		{"malformed/idx_unfinalized_torn.atf", 4, true, 22},
	} {
		f, err := os.Open(vectortest.Path(t, "atf", c.rel))
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewIndexReader(f)
		if err != nil {
			t.Fatal(err)
		}
		var n uint64
		for s.Next() {
			n++
		}
		f.Close()
		if s.Err() != nil || n != c.n || s.Recovered() != c.recovered || s.Discarded() != c.discarded {
			t.Errorf("%s: %d events recovered %v discarded %d err %v", c.rel, n, s.Recovered(), s.Discarded(), s.Err())
		}
	}
	for _, name := range []string{"idx_bad_magic.atf", "idx_bad_version.atf", "idx_bad_endian.atf", "idx_bad_event_size.atf", "idx_too_small.atf", "idx_empty.atf"} {
		b := vectortest.Read(t, "atf", "malformed", name)
		_, err1 := NewIndexReader(bytes.NewReader(b))
		_, err2 := OpenIndexBytes(b)
		if err1 == nil || err1.Error() != err2.Error() {
			t.Errorf("%s: stream %v, reader %v", name, err1, err2)
		}
	}
}

// A writer killed between writing the footer and patching the header leaves
// a placeholder header and a valid footer: both readers accept the footer.
func TestFooterWithPlaceholderHeader(t *testing.T) {
	index, _ := writeThread(t, 10, 0, func(i int) uint64 { return uint64(i) })
	b := bytes.Clone(index.b)
	copy(b, AppendIndexHeader(nil, IndexHeader{Endian: 1, Version: 1, EventSize: 32, EventsOffset: 64, FooterOffset: 64}))
	r, err := OpenIndexBytes(b)
	if _, ok := r.Footer(); err != nil || !ok || r.Len() != 10 || r.Recovered() {
		t.Fatalf("reader: len %d footer %v err %v", r.Len(), ok, err)
	}
	s, _ := NewIndexReader(bytes.NewReader(b))
	var n int
	for s.Next() {
		n++
	}
	if _, ok := s.Footer(); !ok || n != 10 || s.Recovered() {
		t.Errorf("stream: %d events footer %v", n, ok)
	}
}
