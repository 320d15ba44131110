package wtfcff

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer that records how many Write calls it got.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

// TestSharedWriterManyGoroutines: 8+ goroutines write concurrently (run
// under -race in CI); every event arrives exactly once, in its own zone, in
// the order its goroutine wrote it.
func TestSharedWriterManyGoroutines(t *testing.T) {
	const goroutines, perThread = 10, 3000
	var out countingWriter
	sw, err := NewSharedWriter(&out, WithChunkSize(512))
	if err != nil {
		t.Fatal(err)
	}
	tick, err := sw.Define("test#tick(uint32 g, uint32 i, ascii tag)", ClassInstance, 0)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tw, err := sw.Thread("g" + strconv.Itoa(g))
			if err != nil {
				errs <- err
				return
			}
			// A type defined by one goroutine while others write.
			late, err := sw.Define("test#late"+strconv.Itoa(g%3)+"(uint32 i)", ClassInstance, 0)
			if err != nil {
				errs <- err
				return
			}
			for i := range perThread {
				at := time.Duration(i) * time.Millisecond
				if err := tw.Begin(tick, at).Uint32(uint32(g)).Uint32(uint32(i)).ASCII("t" + strconv.Itoa(i%7)).End(); err != nil {
					errs <- err
					return
				}
				if i%500 == 0 {
					if err := tw.Begin(late, at).Uint32(uint32(i)).End(); err != nil {
						errs <- err
						return
					}
					if err := tw.EnterScope(at, "s"); err != nil {
						errs <- err
						return
					}
					if err := tw.LeaveScope(at + time.Microsecond); err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- tw.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	next := make([]int, goroutines)
	r, err := NewBytesReader(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	chunks, lates := 0, 0
	st := NewScopeTracker()
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		chunks++
		_ = c
	}
	r, _ = NewBytesReader(out.Bytes())
	for e, err := range Events(r) {
		if err != nil {
			t.Fatal(err)
		}
		st.Add(e)
		switch {
		case e.Name() == "test#tick":
			g, i := int(e.Arg(0).Uint()), int(e.Arg(1).Uint())
			if e.Zone == nil || e.Zone.Name != "g"+strconv.Itoa(g) {
				t.Fatalf("event %d of goroutine %d in zone %+v", i, g, e.Zone)
			}
			if i != next[g] {
				t.Fatalf("goroutine %d: event %d after %d", g, i, next[g]-1)
			}
			if want := uint32(i * 1000); e.Time != want || e.Arg(2).String() != "t"+strconv.Itoa(i%7) {
				t.Fatalf("event %d: time %d tag %q", i, e.Time, e.Arg(2).String())
			}
			next[g]++
		case len(e.Name()) > 9 && e.Name()[:9] == "test#late":
			lates++
		}
	}
	for g, n := range next {
		if n != perThread {
			t.Errorf("goroutine %d: %d events, want %d", g, n, perThread)
		}
	}
	if lates != goroutines*perThread/500 || st.Unmatched() != 0 || st.Open() != 0 {
		t.Errorf("late events %d, unmatched leaves %d, open scopes %d", lates, st.Unmatched(), st.Open())
	}
	// One Write per chunk: batches are handed over whole.
	if out.writes != chunks+1 || chunks < goroutines*2 {
		t.Errorf("%d writes for %d chunks", out.writes, chunks)
	}
}

func TestThreadWriterZeroAllocs(t *testing.T) {
	sw, _ := NewSharedWriter(io.Discard, WithChunkSize(4096))
	et, _ := sw.Define("a#b(uint32 x, ascii s, uint8[] v)", ClassInstance, 0)
	tw, _ := sw.Thread("main")
	v := []byte{1, 2, 3}
	write := func() {
		for i := range 100 { // several hand-overs per run
			tw.Begin(et, time.Duration(i)*time.Microsecond).Uint32(uint32(i)).ASCII("label").Uint8s(v).End()
			tw.EnterScope(0, "x")
			tw.LeaveScope(0)
		}
	}
	write()
	if n := testing.AllocsPerRun(50, write); n != 0 {
		t.Errorf("%.1f allocations per 100 events", n)
	}
}

func TestThreadWriterTimes(t *testing.T) {
	var out bytes.Buffer
	sw, _ := NewSharedWriter(&out)
	et, _ := sw.Define("a#t()", ClassInstance, 0)
	tw, _ := sw.Thread("main")
	const wrap = time.Duration(1<<32) * time.Microsecond
	times := []time.Duration{0, 1500 * time.Nanosecond, 2 * time.Second, 30 * time.Minute, 60 * time.Minute,
		wrap - time.Microsecond, wrap, wrap + 3*time.Microsecond, wrap + 30*time.Minute, 3*wrap + 40*time.Minute}
	for _, d := range times {
		if err := tw.Begin(et, d).End(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Begin(et, -time.Microsecond).End(); !errors.Is(err, ErrArgument) {
		t.Errorf("negative time: %v", err)
	}
	if err := tw.Mark(-1, "m", ""); !errors.Is(err, ErrArgument) {
		t.Errorf("negative time mark: %v", err)
	}
	tw.Close()
	sw.Close()
	r, _ := NewBytesReader(out.Bytes())
	var got []int64
	var prev int64
	for e, err := range Events(r) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() != "a#t" {
			continue
		}
		if len(got) == 0 {
			prev = int64(e.Time)
		} else {
			prev = UnwrapTime(prev, e.Time)
		}
		got = append(got, prev)
	}
	if len(got) != len(times) {
		t.Fatalf("%d events", len(got))
	}
	for i, d := range times {
		want := int64(d / time.Microsecond)
		if i == len(times)-1 {
			// More than 2^31 µs after the previous event: unwrapping is
			// exact only below that gap, so the last one lands two wraps early.
			want -= 2 << 32
		}
		if got[i] != want {
			t.Errorf("time %v: unwrapped %d, want %d", d, got[i], want)
		}
	}
}

func TestSharedWriterClose(t *testing.T) {
	var out bytes.Buffer
	sw, _ := NewSharedWriter(&out)
	tw, _ := sw.Thread("late")
	et, _ := sw.Define("a#b()", ClassInstance, 0)
	if err := tw.Begin(et, 0).End(); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := tw.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("thread chunk after the shared Close: %v", err)
	}
	if _, err := sw.Thread("x"); !errors.Is(err, ErrClosed) {
		t.Errorf("Thread after Close: %v", err)
	}
	if _, err := sw.Define("a#c()", ClassInstance, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Define after Close: %v", err)
	}
	if _, err := NewSharedWriter(&out, WithoutBuiltins()); err == nil {
		t.Error("WithoutBuiltins accepted")
	}
	// A type from another writer is refused.
	sw2, _ := NewSharedWriter(io.Discard)
	tw2, _ := sw2.Thread("t")
	if err := tw2.Begin(et, 0).End(); !errors.Is(err, ErrArgument) {
		t.Errorf("foreign type: %v", err)
	}
	// A write error is sticky for every thread.
	sw3, _ := NewSharedWriter(&failAfter{n: 3})
	a, _ := sw3.Thread("a")
	b, _ := sw3.Thread("b")
	a.Mark(0, "x", "")
	b.Mark(0, "y", "")
	errA, errB := a.Flush(), b.Flush()
	if errA == nil && errB == nil {
		t.Error("write errors lost")
	}
	if err := sw3.Flush(); err == nil || errors.Is(err, ErrClosed) {
		t.Errorf("shared writer after a write error: %v", err)
	}
}

type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

// BenchmarkSharedWriter writes events from 1, 2 and 8 goroutines, each with
// its own ThreadWriter; events/s counts all goroutines together.
func BenchmarkSharedWriter(b *testing.B) {
	for _, g := range []int{1, 2, 8} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			sw, _ := NewSharedWriter(io.Discard)
			et, _ := sw.Define("bench#ev(uint32 i, uint32 v, ascii label)", ClassInstance, 0)
			tws := make([]*ThreadWriter, g)
			for i := range tws {
				tws[i], _ = sw.Thread("t" + strconv.Itoa(i))
			}
			b.ReportAllocs()
			b.SetBytes(20)
			cpu0, cpuOK := processCPU()
			b.ResetTimer()
			var wg sync.WaitGroup
			per := b.N / g
			for _, tw := range tws {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range per {
						tw.Begin(et, time.Duration(i)*time.Microsecond).Uint32(uint32(i)).Uint32(7).ASCII("label").End()
					}
					tw.Flush()
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(per*g)/b.Elapsed().Seconds(), "events/s")
			if cpu1, ok := processCPU(); ok && cpuOK && cpu1 > cpu0 {
				// Throughput per CPU-second: steadier than wall clock on a
				// shared machine, and what the goroutines cost together.
				b.ReportMetric(float64(per*g)/(cpu1-cpu0), "events/cpu-s")
			}
		})
	}
}
