package atf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracecodec/tracecodec/fuzz"
)

// The hostile inputs of issue 16, generated here (no stored blobs), each run
// under a time and an allocation bound.

// bounded runs fn with a deadline and an allocation budget (bytes allocated
// while it runs, every goroutine counted: the tests of this file do not run
// in parallel).
func bounded(t *testing.T, name string, timeout time.Duration, maxAlloc uint64, fn func() error) error {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- fn() }()
	select {
	case err := <-done:
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxAlloc {
			t.Errorf("%s: allocated %d bytes, budget %d", name, alloc, maxAlloc)
		}
		t.Logf("%s: %v, %d bytes allocated: %v", name, time.Since(start).Round(time.Microsecond), after.TotalAlloc-before.TotalAlloc, err)
		return err
	case <-time.After(timeout):
		t.Fatalf("%s: still running after %v (hang?)", name, timeout)
		return nil
	}
}

const hostileBudget = 16 << 20 // bytes a hostile case may allocate (inputs here are small)

func hasProblem(ps []Problem, k ProblemKind) (Problem, bool) {
	for _, p := range ps {
		if p.Kind == k {
			return p, true
		}
	}
	return Problem{}, false
}

// finalizedIndex is a finalized index file of n events.
func finalizedIndex(t *testing.T, n int) []byte {
	t.Helper()
	idx, _ := writeThread(t, n, 7, func(i int) uint64 { return uint64(1000 + i) })
	return idx.b
}

// TestHostileHeaderLies: a lying footer_offset (2^62, before the events), a
// lying event_count, and a damaged footer behind them: every event is read
// once, the footer never as events, and Problems names each lie.
func TestHostileHeaderLies(t *testing.T) {
	good := finalizedIndex(t, 40)
	put64 := func(b []byte, off int, v uint64) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint64(b[off:], v)
		return b
	}
	put32 := func(b []byte, off int, v uint32) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[off:], v)
		return b
	}
	damaged := bytes.Clone(good)
	damaged[len(damaged)-FooterSize+8]++ // footer event_count
	for _, c := range []struct {
		name      string
		b         []byte
		events    uint64
		footer    bool
		kinds     []ProblemKind
		msgSubstr string
	}{
		{"footer_offset 2^62", put64(good, 40, 1<<62), 40, true, []ProblemKind{ProblemHeaderMismatch}, "past the end"},
		{"footer_offset 2^62, damaged footer", put64(damaged, 40, 1<<62), 40, false, []ProblemKind{ProblemNoFooter, ProblemDiscarded, ProblemHeaderMismatch}, "past the end"},
		{"footer_offset at the end of the file", put64(good, 40, uint64(len(good))), 40, true, []ProblemKind{ProblemHeaderMismatch}, "disagrees with the footer found at"},
		{"footer_offset inside the footer", put64(good, 40, uint64(len(good)-32)), 40, true, []ProblemKind{ProblemHeaderMismatch}, "disagrees with the footer found at"},
		{"footer_offset 0", put64(good, 40, 0), 40, true, []ProblemKind{ProblemHeaderMismatch}, "before events_offset"},
		{"footer_offset 0, damaged footer", put64(damaged, 40, 0), 40, false, []ProblemKind{ProblemNoFooter, ProblemDiscarded, ProblemHeaderMismatch}, "before events_offset"},
		{"event_count 0xFFFFFFFF", put32(good, 28, 0xFFFFFFFF), 40, true, []ProblemKind{ProblemHeaderMismatch}, "event_count 4294967295"},
		{"placeholder with event_count 0xFFFFFFFF", put32(put64(good[:len(good)-FooterSize], 40, HeaderSize), 28, 0xFFFFFFFF), 40, false, []ProblemKind{ProblemNoFooter, ProblemHeaderMismatch}, "never finalized"},
		{"time range", put64(good, 48, 5), 40, true, []ProblemKind{ProblemHeaderMismatch}, "time range"},
		{"bytes after the footer", append(bytes.Clone(good), 1, 2, 3), 40, true, []ProblemKind{ProblemDiscarded}, "after the footer"},
	} {
		var ps []Problem
		decode := func(data []byte) error {
			r, err := OpenIndex(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				return err
			}
			if r.Len() != c.events {
				t.Errorf("%s: %d events, want %d", c.name, r.Len(), c.events)
			}
			if _, ok := r.Footer(); ok != c.footer {
				t.Errorf("%s: footer %v, want %v", c.name, ok, c.footer)
			}
			for seq, e := range numbered(r.All(), t.Error) {
				if e.Timestamp != 1000+seq {
					t.Errorf("%s: event %d has timestamp %d: not an event", c.name, seq, e.Timestamp)
				}
			}
			// The stream reads the same events and finds the same footer.
			s, err := NewIndexReader(bytes.NewReader(data))
			if err != nil {
				return err
			}
			var n uint64
			for s.Next() {
				n++
			}
			if _, ok := s.Footer(); n != c.events || ok != c.footer || s.Err() != nil {
				t.Errorf("%s: stream read %d events, footer %v, %v", c.name, n, ok, s.Err())
			}
			ps = r.Problems()
			// The stream reports the same kinds (it reads the bytes after
			// a footer too).
			if sk, fk := problemKinds(s.Problems()), problemKinds(ps); sk != fk {
				t.Errorf("%s: stream problems %s, file problems %s", c.name, sk, fk)
			}
			return nil
		}
		fuzz.Check(t, c.b, decode, fuzz.Options{Timeout: 10 * time.Second})
		for _, k := range c.kinds {
			if _, ok := hasProblem(ps, k); !ok {
				t.Errorf("%s: no %v problem in %v", c.name, k, ps)
			}
		}
		if !strings.Contains(strings.Join(problemStrings(ps), "\n"), c.msgSubstr) {
			t.Errorf("%s: problems %v do not say %q", c.name, ps, c.msgSubstr)
		}
		if len(ps) != len(c.kinds) {
			t.Errorf("%s: problems %v, want kinds %v", c.name, ps, c.kinds)
		}
	}
	if ps, _ := OpenIndexBytes(good); len(ps.Problems()) != 0 {
		t.Errorf("clean file: %v", ps.Problems())
	}
}

func problemKinds(ps []Problem) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Kind.String())
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}

func problemStrings(ps []Problem) []string {
	var s []string
	for _, p := range ps {
		s = append(s, p.String())
	}
	return s
}

// diskFile is a file on a disk of limited capacity shared with other
// diskFiles: a write beyond it is cut short with ENOSPC, as on a full disk.
type diskFile struct {
	memFile
	free *int64
}

func (d *diskFile) Write(p []byte) (int, error) {
	before := int64(len(d.b))
	n := len(p)
	if grow := d.pos + int64(len(p)) - before; grow > *d.free {
		n = max(len(p)-int(grow-*d.free), 0)
	}
	m, _ := d.memFile.Write(p[:n])
	*d.free -= int64(len(d.b)) - before
	if m < len(p) {
		return m, &os.PathError{Op: "write", Path: "disk", Err: syscall.ENOSPC}
	}
	return m, nil
}

// TestHostileFullDisk writes a thread until its disk is full, closes it, and
// checks that the reader reports every index event whose detail record did
// not reach the disk (the old writer left 1,209 such links and validate said
// ok), that no detail record lacks its index event, and that Check's counts
// are exact.
func TestHostileFullDisk(t *testing.T) {
	for _, capacity := range []int64{60, 64, 100, 200, 1000, 4096, 5000, 10_000, 33_333, 100_000, 250_000} {
		free := capacity
		idx := &diskFile{free: &free}
		var det *diskFile
		open := func() (io.WriteSeeker, error) {
			det = &diskFile{free: &free}
			return det, nil
		}
		tw, err := NewThreadWriter(idx, open, 9, WithBufferSize(4096))
		if err != nil {
			if capacity >= HeaderSize {
				t.Fatalf("capacity %d: %v", capacity, err)
			}
			continue
		}
		var written, failedAt int
		payload := bytes.Repeat([]byte{0xab}, 500)
		for i := range 100_000 {
			pl := payload[:(i*37)%len(payload)]
			if i%3 != 0 {
				pl = nil
			}
			if _, err := tw.Write(uint64(i), 1, KindCall, 0, pl); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("capacity %d: %v", capacity, err)
				}
				failedAt = i
				break
			}
			written++
		}
		tw.Close() // fails too: the disk is full
		var ix *IndexFile
		var dt *DetailFile
		err = bounded(t, "open full-disk thread", 10*time.Second, hostileBudget, func() error {
			var err error
			if len(idx.b) < HeaderSize {
				ix = cutIndex(int64(len(idx.b)))
			} else if ix, err = OpenIndexBytes(idx.b); err != nil {
				return err
			}
			if det != nil {
				if len(det.b) < HeaderSize {
					dt = cutDetail(int64(len(det.b)))
				} else if dt, err = OpenDetailBytes(det.b); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("capacity %d: %v", capacity, err)
		}
		th := NewThread(9, ix, dt)
		ps, err := th.Check()
		if err != nil {
			t.Fatalf("capacity %d: %v", capacity, err)
		}
		// Count the links to records that are not on file, by hand.
		var missing uint64
		for e, err := range ix.All() {
			if err != nil {
				t.Fatal(err)
			}
			if e.HasDetail() && (dt == nil || uint64(e.DetailSeq) >= dt.Len()) {
				missing++
			}
		}
		p, ok := hasProblem(ps, ProblemDanglingLink)
		if missing > 0 && (!ok || p.Events != missing) {
			t.Errorf("capacity %d: %d links to missing records, reported %v", capacity, missing, ps)
		}
		if missing == 0 && ok {
			t.Errorf("capacity %d: dangling reported without any: %v", capacity, p)
		}
		if _, ok := hasProblem(ps, ProblemOrphanDetail); ok {
			t.Errorf("capacity %d: orphaned detail records: %v", capacity, ps)
		}
		if _, ok := hasProblem(ps, ProblemBrokenLink); ok {
			t.Errorf("capacity %d: broken links: %v", capacity, ps)
		}
		if len(ps) == 0 {
			t.Errorf("capacity %d: a full disk left no problem to report", capacity)
		}
		t.Logf("capacity %d: %d events written before ENOSPC at %d; on disk %d index events, %d detail records; %d dangling; %d problems",
			capacity, written, failedAt, ix.Len(), th.DetailLen(), missing, len(ps))
	}
}

// TestHostileNonRegularFiles: a manifest.json that is a link to /dev/zero or
// a FIFO, and a thread's index.atf linked to /dev/zero, are refused with an
// error naming the path, at once and without reading them.
func TestHostileNonRegularFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero or FIFOs")
	}
	newSession := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "pid_1")
		sw, err := CreateSessionDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		tw, _ := sw.Thread(0)
		tw.Write(1, 2, KindCall, 1, []byte("x"))
		if err := sw.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	cases := []struct {
		name    string
		setup   func(dir string) string // returns the path the error must name
		outside bool                    // a link out of the session: a problem, not an error
	}{
		{"manifest.json → /dev/zero", func(dir string) string {
			p := filepath.Join(dir, "manifest.json")
			os.Remove(p)
			os.Symlink("/dev/zero", p)
			return p
		}, false},
		{"manifest.json is a FIFO", func(dir string) string {
			p := filepath.Join(dir, "manifest.json")
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skip(err)
			}
			return p
		}, false},
		{"thread_0/index.atf → /dev/zero", func(dir string) string {
			p := filepath.Join(dir, "thread_0", "index.atf")
			os.Remove(p)
			os.Symlink("/dev/zero", p)
			return p
		}, true},
		{"thread_0/index.atf is a FIFO", func(dir string) string {
			p := filepath.Join(dir, "thread_0", "index.atf")
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skip(err)
			}
			return p
		}, false},
		{"thread_0/detail.atf is a FIFO", func(dir string) string {
			p := filepath.Join(dir, "thread_0", "detail.atf")
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skip(err)
			}
			return p
		}, false},
	}
	for _, c := range cases {
		for _, withManifest := range []bool{true, false} {
			dir := newSession(t)
			if !withManifest {
				if strings.HasPrefix(c.name, "manifest") {
					continue
				}
				os.Remove(filepath.Join(dir, "manifest.json"))
			}
			path := c.setup(dir)
			var ps []Problem
			var threads int
			err := bounded(t, c.name, 5*time.Second, hostileBudget, func() error {
				s, err := OpenSession(dir)
				if err == nil {
					ps, threads = s.Problems(), len(s.Threads)
					s.Close()
				}
				return err
			})
			if c.outside {
				if p, ok := hasProblem(ps, ProblemLinkOutside); err != nil || !ok || threads != 0 || p.Path != filepath.Join("thread_0", "index.atf") {
					t.Errorf("%s (manifest %v): %v, %d threads, problems %v", c.name, withManifest, err, threads, ps)
				}
				continue
			}
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s (manifest %v): %v, want ErrNotRegular naming %s", c.name, withManifest, err, path)
			}
		}
	}
	// OpenThread and OpenIndexFile refuse the same.
	dir := newSession(t)
	p := filepath.Join(dir, "thread_0", "index.atf")
	os.Remove(p)
	os.Symlink("/dev/zero", p)
	if _, err := OpenThread(filepath.Join(dir, "thread_0")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenThread: %v", err)
	}
}

// TestHostileSessionLinks: symbolic link loops among thread folders, links
// out of the session folder and listed-but-missing threads are reported as
// problems, not skipped silently; links inside the session are followed.
func TestHostileSessionLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "pid_1")
	sw, err := CreateSessionDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for id := range uint32(2) {
		tw, _ := sw.Thread(id)
		tw.Write(uint64(10+id), 2, KindCall, 1, nil)
	}
	sw.Close() // manifest lists threads 0 and 1
	os.Remove(filepath.Join(dir, "manifest.json"))
	// Outside the session: a complete thread folder the session links to.
	outside := filepath.Join(root, "elsewhere", "thread_9")
	tw, err := CreateThread(outside, 9)
	if err != nil {
		t.Fatal(err)
	}
	tw.Write(99, 2, KindCall, 1, nil)
	tw.Close()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("thread_4", filepath.Join(dir, "thread_3")))                                        // loop 3 → 4 → 3
	must(os.Symlink("thread_3", filepath.Join(dir, "thread_4")))                                        //
	must(os.Symlink("thread_5", filepath.Join(dir, "thread_5")))                                        // loop on itself
	must(os.Symlink(outside, filepath.Join(dir, "thread_9")))                                           // out of the session
	must(os.Symlink("thread_0", filepath.Join(dir, "thread_6")))                                        // inside: thread_0 again, read once
	must(os.Symlink("nowhere", filepath.Join(dir, "thread_7")))                                         // dangling
	must(os.Symlink(filepath.Join(outside, "index.atf"), filepath.Join(dir, "thread_1", "detail.atf"))) // a file out of the session
	var s *Session
	err = bounded(t, "session with link loops", 5*time.Second, hostileBudget, func() error {
		var err error
		s, err = OpenSession(dir)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []uint32
	for _, th := range s.Threads {
		ids = append(ids, th.ID)
	}
	if len(ids) != 2 || ids[0] != 0 || ids[1] != 1 {
		t.Errorf("threads %v, want [0 1] (thread_6 is thread_0's folder again)", ids)
	}
	if th, _ := s.Thread(1); th == nil || th.Detail != nil {
		t.Errorf("thread_1's detail.atf out of the session was read")
	}
	ps, err := s.Check()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ProblemKind{
		"manifest.json":       ProblemNoManifest,
		"thread_3":            ProblemLinkLoop,
		"thread_4":            ProblemLinkLoop,
		"thread_5":            ProblemLinkLoop,
		"thread_9":            ProblemLinkOutside,
		"thread_7":            ProblemMissingThread,
		"thread_1/detail.atf": ProblemLinkOutside,
		"thread_6/index.atf":  ProblemSameFile,
	}
	got := map[string]ProblemKind{}
	for _, p := range ps {
		got[filepath.ToSlash(p.Path)] = p.Kind
		t.Log(p)
	}
	for path, k := range want {
		if got[path] != k {
			t.Errorf("%s: problem %v, want %v", path, got[path], k)
		}
	}
	// A manifest listing a thread whose folder is missing.
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"threads":[{"id":0},{"id":8}]}`), 0o644)
	s2, err := OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if p, ok := hasProblem(s2.Problems(), ProblemMissingThread); !ok || p.Path != "thread_8" {
		t.Errorf("missing listed thread: %v", s2.Problems())
	}
}

// TestHostileManifestSize: a regular manifest over the limit fails fast with
// ErrLimit, reading no more than the limit.
func TestHostileManifestSize(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "thread_0"), 0o755)
	f, _ := os.Create(filepath.Join(dir, "manifest.json"))
	f.Truncate(1 << 30) // sparse: 1 GiB of zeros
	f.Close()
	err := bounded(t, "1 GiB manifest", 5*time.Second, hostileBudget, func() error {
		_, err := OpenSession(dir, WithLimits(Limits{MaxManifestBytes: 1 << 20}))
		return err
	})
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("%v, want ErrLimit", err)
	}
}

// TestHostileFooterLies: footers whose time ranges disagree with the events
// and records are reported by Check.
func TestHostileFooterLies(t *testing.T) {
	idx, det := writeThread(t, 20, 4, func(i int) uint64 { return uint64(500 + i) })
	ib, db := bytes.Clone(idx.b), bytes.Clone(det.b)
	binary.LittleEndian.PutUint64(ib[len(ib)-FooterSize+16:], 1) // index footer time_start_ns
	binary.LittleEndian.PutUint64(db[len(db)-FooterSize+32:], 2) // detail footer time_end_ns
	ix, err := OpenIndexBytes(ib)
	if err != nil {
		t.Fatal(err)
	}
	dt, err := OpenDetailBytes(db)
	if err != nil {
		t.Fatal(err)
	}
	var ps []Problem
	bounded(t, "footer lies", 5*time.Second, hostileBudget, func() error {
		ps, err = NewThread(4, ix, dt).Check()
		return err
	})
	var n int
	for _, p := range ps {
		if p.Kind == ProblemHeaderMismatch && strings.Contains(p.Msg, "footer time range") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("problems %v, want two footer time ranges", ps)
	}
	if ps, _ := NewThread(4, mustOpenIndex(t, idx.b), mustOpenDetail(t, det.b)).Check(); len(ps) != 0 {
		t.Errorf("clean thread: %v", ps)
	}
}

func mustOpenIndex(t *testing.T, b []byte) *IndexFile {
	r, err := OpenIndexBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustOpenDetail(t *testing.T, b []byte) *DetailFile {
	d, err := OpenDetailBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFooterLookalikeEvents: an unfinalized file whose last two events start
// with the footer magic is still read by size when the bytes where a footer
// keeps its zero reserved field are not zero (real events); only a damaged
// footer is dropped.
func TestFooterLookalikeEvents(t *testing.T) {
	var f memFile
	w, _ := NewIndexWriter(&f, 0)
	for i := range 5 {
		ts := uint64(100 + i)
		if i == 3 {
			ts = 0x41544932 // "2ITA"
		}
		w.Append(IndexEvent{Timestamp: ts, FunctionID: 9, Kind: KindCall, DetailSeq: NoDetail})
	}
	w.Flush()
	r, err := OpenIndexBytes(f.b)
	if err != nil || r.Len() != 5 || r.Discarded() != 0 {
		t.Fatalf("%v: %d events, %d discarded", err, r.Len(), r.Discarded())
	}
	s, _ := NewIndexReader(bytes.NewReader(f.b))
	n := 0
	for s.Next() {
		n++
	}
	if n != 5 {
		t.Fatalf("stream: %d events", n)
	}
}

// TestHostileCutFooterEventsLookDamaged: a finalized index whose footer was
// cut off exactly at footer_offset, and whose last two events happen to look
// like a damaged footer (magic "2ITA", zero bytes 40–63). footer_offset says
// where the events end, so both readers deliver every event and discard
// nothing (the stream used to drop the last two as a damaged footer).
func TestHostileCutFooterEventsLookDamaged(t *testing.T) {
	good := finalizedIndex(t, 40)
	b := bytes.Clone(good[:len(good)-FooterSize])
	tail := b[len(b)-FooterSize:]
	copy(tail, IndexFooterMagic)
	clear(tail[40:])
	r, err := OpenIndexBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != 40 || r.Discarded() != 0 || !r.Recovered() {
		t.Fatalf("OpenIndex: %d events, %d discarded, recovered %v; want 40, 0, true", r.Len(), r.Discarded(), r.Recovered())
	}
	s, err := NewIndexReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for s.Next() {
		if e, _ := r.Event(s.Seq()); e != s.Event() {
			t.Fatalf("event %d: stream %+v, file %+v", s.Seq(), s.Event(), e)
		}
		n++
	}
	if n != 40 || s.Discarded() != 0 || !s.Recovered() || s.Err() != nil {
		t.Fatalf("IndexReader: %d events, %d discarded, recovered %v, %v; want 40, 0, true", n, s.Discarded(), s.Recovered(), s.Err())
	}
}
