package atf

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// onFileEvents is how many index events w's bytes hold (header excluded).
func onFileEvents(m *memFile) int64 {
	return max(int64(len(m.b))-HeaderSize, 0) / IndexEventSize
}

// TestFlushInterval: with WithFlushInterval(d) a Write flushes exactly when
// its timestamp is d or more after the oldest unflushed event's, so the
// events in memory always span less than d; with WithFlushEvery too, the
// first bound reached flushes; explicit Flush restarts the deadline; the
// detail file follows the index.
func TestFlushInterval(t *testing.T) {
	for _, c := range []struct {
		every uint64
		d     time.Duration
		step  func(i int) uint64 // timestamp increments
	}{
		{0, 100, func(i int) uint64 { return 7 }},
		{0, 1000, func(i int) uint64 { return uint64(i%13) * 11 }},
		{16, 500, func(i int) uint64 { return uint64(i % 50) }},
		{0, 1, func(i int) uint64 { return uint64(i % 2) }},
		{0, 100, func(i int) uint64 { return 1 << 40 }}, // every event flushes
	} {
		var idx, det memFile
		tw, err := NewThreadWriter(&idx, func() (ioWS, error) { return &det, nil }, 1,
			WithFlushEvery(c.every), WithFlushInterval(c.d))
		if err != nil {
			t.Fatal(err)
		}
		ts, oldest, pending, inMem := uint64(1000), uint64(0), false, 0
		for i := range 3000 {
			ts += c.step(i)
			var payload []byte
			if i%5 == 0 {
				payload = []byte{byte(i), 1, 2}
			}
			if i == 1500 {
				if err := tw.Flush(); err != nil {
					t.Fatal(err)
				}
				pending, inMem = false, 0
			}
			if _, err := tw.Write(ts, 7, KindCall, 1, payload); err != nil {
				t.Fatal(err)
			}
			if !pending {
				pending, oldest = true, ts
			}
			inMem++
			if ts >= oldest+uint64(c.d) || c.every > 0 && uint64(inMem) >= c.every {
				pending, inMem = false, 0
			}
			if got, want := onFileEvents(&idx), int64(i+1-inMem); got != want {
				t.Fatalf("every %d, d %d: after event %d (ts %d) %d events on file, want %d", c.every, c.d, i, ts, got, want)
			}
			if inMem == 0 && det.b != nil && int64(len(det.b)) < HeaderSize {
				t.Fatalf("detail file not flushed")
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFlushIntervalOption rejects a negative interval and a background
// period under a millisecond.
func TestFlushIntervalOption(t *testing.T) {
	var m memFile
	if _, err := NewThreadWriter(&m, nil, 1, WithFlushInterval(-1)); err == nil {
		t.Error("negative interval accepted")
	}
	if _, err := NewThreadWriter(&m, nil, 1, WithBackgroundFlush(time.Microsecond)); err == nil {
		t.Error("background period of 1 µs accepted")
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return st.Size()
}

// TestBackgroundFlushSession: with WithBackgroundFlush the session's
// goroutine puts an idle thread's events on file without a Flush, runs
// alongside writing goroutines (checked under -race), stops at Close
// (no goroutine left), and the session reads back whole.
func TestBackgroundFlushSession(t *testing.T) {
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	sw, err := CreateSessionDir(dir, WithBackgroundFlush(2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	idle, err := sw.Thread(1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 { // far below WithFlushEvery
		if _, err := idle.Write(uint64(100+i), 5, KindCall, 1, []byte("p")); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(dir, "thread_1", "index.atf")
	if !waitFor(func() bool { return fileSize(idx) == HeaderSize+10*IndexEventSize }) {
		t.Fatalf("idle thread's events not flushed: index is %d bytes", fileSize(idx))
	}
	// (the flusher writes the index and the detail file one after the
	// other: the detail records may land just after the index events)
	if det := filepath.Join(dir, "thread_1", "detail.atf"); !waitFor(func() bool { return fileSize(det) > HeaderSize }) {
		t.Fatalf("idle thread's detail records not flushed: %d bytes", fileSize(det))
	}
	// Busy threads write while the flusher runs.
	var wg sync.WaitGroup
	const per = 20000
	for k := range 4 {
		tw, err := sw.Thread(uint32(10 + k))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				var p []byte
				if i%3 == 0 {
					p = []byte{1, 2, 3}
				}
				if _, err := tw.Write(uint64(i), 9, KindCall, 2, p); err != nil {
					t.Error(err)
					return
				}
				if i%4096 == 0 {
					time.Sleep(time.Millisecond) // let the flusher in
				}
			}
		}()
	}
	wg.Wait()
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return runtime.NumGoroutine() <= before }) {
		t.Errorf("%d goroutines after Close, %d before", runtime.NumGoroutine(), before)
	}
	s, err := OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ps := s.Problems(); len(ps) != 0 {
		t.Errorf("problems: %v", ps)
	}
	for _, th := range s.Threads {
		want := uint64(per)
		if th.ID == 1 {
			want = 10
		}
		if th.Index.Len() != want || th.Index.Recovered() {
			t.Errorf("thread %d: %d events (recovered %v), want %d", th.ID, th.Index.Len(), th.Index.Recovered(), want)
		}
	}
	if err := sw.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestBackgroundFlushThread: a ThreadWriter made outside a session has its
// own flusher, stopped by Close; a flush error in the background is sticky.
func TestBackgroundFlushThread(t *testing.T) {
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	tw, err := CreateThread(dir, 3, WithBackgroundFlush(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		tw.Write(uint64(i), 1, KindCall, 0, nil)
	}
	if !waitFor(func() bool { return fileSize(filepath.Join(dir, "index.atf")) == HeaderSize+5*IndexEventSize }) {
		t.Fatal("not flushed in the background")
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return runtime.NumGoroutine() <= before }) {
		t.Errorf("%d goroutines after Close, %d before", runtime.NumGoroutine(), before)
	}

	fw := &failAfter{n: HeaderSize}
	tw, err = NewThreadWriter(fw, nil, 4, WithBackgroundFlush(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	tw.Write(1, 1, KindCall, 0, nil)
	var werr error
	waitFor(func() bool {
		_, werr = tw.Write(2, 1, KindCall, 0, nil)
		return werr != nil
	})
	if !errors.Is(werr, errDiskFull) {
		t.Errorf("Write after a failed background flush: %v", werr)
	}
	if err := tw.Close(); !errors.Is(err, errDiskFull) {
		t.Errorf("Close: %v", err)
	}
}

var errDiskFull = errors.New("disk full")

// failAfter accepts n bytes, then fails every write.
type failAfter struct {
	memFile
	n int64
}

func (f *failAfter) Write(p []byte) (int, error) {
	if int64(len(f.b))+int64(len(p)) > f.n {
		return 0, errDiskFull
	}
	return f.memFile.Write(p)
}

// TestFlushIntervalAllocs: the time bound keeps Write free of allocations.
func TestFlushIntervalAllocs(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts are not meaningful under -cover or -race")
	}
	for _, opt := range []WriterOption{WithFlushInterval(time.Microsecond), WithBackgroundFlush(time.Hour)} {
		var idx, det discardSeeker
		tw, err := NewThreadWriter(&idx, func() (ioWS, error) { return &det, nil }, 1, opt)
		if err != nil {
			t.Fatal(err)
		}
		payload := []byte{1, 2}
		tw.Write(1, 7, KindCall, 1, payload)
		var ts uint64
		if a := testing.AllocsPerRun(10000, func() {
			ts += 37
			tw.Write(ts, 7, KindCall, 1, nil)
			tw.Write(ts, 7, KindReturn, 1, payload)
		}); a != 0 {
			t.Errorf("%v allocs per event pair", a)
		}
		tw.Close()
	}
}
