//go:build unix

package atf

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// The workload of the side-by-side measurements in issue 15: a session of 8
// threads with 10 M index events in all (1.25 M per thread), 1 M of them
// (every 10th) with a detail record carrying the production tracer's 516-byte
// payload (540-byte records, as real sessions hold). Each thread's
// timestamps rise by 100–131 ns per event from a per-thread start, so the
// threads interleave irregularly. Written once per test binary run into a
// temporary folder (≈ 860 MB), removed by TestMain.
const (
	wlThreads      = 8
	wlIndexEvents  = 10_000_000
	wlDetailEvents = 1_000_000
	wlPayload      = 516
)

var (
	wlOnce sync.Once
	wlDir  string
	wlErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if wlDir != "" {
		os.RemoveAll(filepath.Dir(wlDir))
	}
	os.Exit(code)
}

// workloadSession returns the folder of the issue-15 session, writing it on
// first use.
func workloadSession(b *testing.B) string {
	b.Helper()
	wlOnce.Do(func() {
		var root string
		if root, wlErr = os.MkdirTemp("", "atf-bench-"); wlErr != nil {
			return
		}
		wlDir = filepath.Join(root, "pid_1")
		wlErr = writeWorkload(wlDir)
	})
	if wlErr != nil {
		b.Fatal(wlErr)
	}
	return wlDir
}

func writeWorkload(dir string) error {
	sw, err := CreateSessionDir(dir, WithFlushEvery(0), WithChecksum(false))
	if err != nil {
		return err
	}
	payload := make([]byte, wlPayload)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	const per = wlIndexEvents / wlThreads
	for k := range uint32(wlThreads) {
		tw, err := sw.Thread(k)
		if err != nil {
			return err
		}
		ts := uint64(1_000_000 + 37*k)
		x := uint32(k + 1)
		for i := range per {
			x ^= x << 13 // xorshift: the step jitter
			x ^= x >> 17
			x ^= x << 5
			ts += 100 + uint64(x&31)
			var p []byte
			if i%(wlIndexEvents/wlDetailEvents) == 0 {
				p = payload
			}
			if _, err := tw.Write(ts, FunctionID(1, uint32(i%4096)), EventKind(i%2+1), uint32(i%24), p); err != nil {
				return err
			}
		}
	}
	return sw.Close()
}

// cpuReport adds process CPU time (getrusage: user+system, all threads, GC
// included — steadier than wall-clock on a shared machine) per op and
// events per CPU-second, and events per wall-clock second.
func cpuReport(b *testing.B, cpu0, sys0 int64, eventsPerOp int) {
	cpu := float64(processCPU() - cpu0)
	b.ReportMetric(float64(processSys()-sys0)/1e6/float64(b.N), "sys-ms/op")
	events := float64(b.N) * float64(eventsPerOp)
	b.ReportMetric(cpu/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(events/(cpu/1e9), "cpu-events/s")
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
}

// processSys is the system part of processCPU, in ns.
func processSys() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Stime.Nano()
}

// benchOpens are the two ways to open the files: read through an
// io.ReaderAt (the default) and mapped (WithMmap).
var benchOpens = []struct {
	name string
	opts []ReaderOption
}{
	{"read", nil},
	{"mmap", benchMmap},
}

// BenchmarkMerge8Threads10MIndex1MDetail merges the issue-15 session's
// 10 M index events across its 8 threads: "open+merge" includes
// OpenSession (which scans the 1 M detail records) and Close, "merge" only
// the merge of a session opened beforehand. Reference (issue 15): upstream
// Rust reader + heap merge 312 CPU-ms.
func BenchmarkMerge8Threads10MIndex1MDetail(b *testing.B) {
	dir := workloadSession(b)
	for _, o := range benchOpens {
		b.Run(o.name+"/open+merge", func(b *testing.B) {
			b.ReportAllocs()
			cpu0, sys0 := processCPU(), processSys()
			var sum uint64
			for b.Loop() {
				s, err := OpenSession(dir, o.opts...)
				if err != nil {
					b.Fatal(err)
				}
				sum += mergeAll(b, s)
				s.Close()
			}
			cpuReport(b, cpu0, sys0, wlIndexEvents)
			_ = sum
		})
		b.Run(o.name+"/merge", func(b *testing.B) {
			s, err := OpenSession(dir, o.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ReportAllocs()
			cpu0, sys0 := processCPU(), processSys()
			var sum uint64
			for b.Loop() {
				sum += mergeAll(b, s)
			}
			cpuReport(b, cpu0, sys0, wlIndexEvents)
			_ = sum
		})
	}
}

func mergeAll(b *testing.B, s *Session) uint64 {
	var sum uint64
	n := 0
	m := s.Merge()
	for m.Next() {
		e := m.Event()
		sum += e.Timestamp ^ e.FunctionID ^ uint64(e.Thread) ^ e.Seq
		n++
	}
	if m.Err() != nil || n != wlIndexEvents {
		b.Fatalf("merged %d events: %v", n, m.Err())
	}
	return sum
}

// BenchmarkDetailIterate1M iterates over the 1 M detail records of the
// issue-15 session (its 8 detail files in turn), reading each record's
// header fields and payload length: "iterate" on a session opened
// beforehand, "open+iterate" including OpenSession and Close. Reference
// (issue 15): upstream Rust, slices of an mmap, 22.5 CPU-ms.
func BenchmarkDetailIterate1M(b *testing.B) {
	dir := workloadSession(b)
	for _, o := range benchOpens {
		b.Run(o.name+"/iterate", func(b *testing.B) {
			s, err := OpenSession(dir, o.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ReportAllocs()
			cpu0, sys0 := processCPU(), processSys()
			var sum uint64
			for b.Loop() {
				sum += iterateDetail(b, s)
			}
			cpuReport(b, cpu0, sys0, wlDetailEvents)
			_ = sum
		})
		b.Run(o.name+"/open+iterate", func(b *testing.B) {
			b.ReportAllocs()
			cpu0, sys0 := processCPU(), processSys()
			var sum uint64
			for b.Loop() {
				s, err := OpenSession(dir, o.opts...)
				if err != nil {
					b.Fatal(err)
				}
				sum += iterateDetail(b, s)
				s.Close()
			}
			cpuReport(b, cpu0, sys0, wlDetailEvents)
			_ = sum
		})
	}
}

func iterateDetail(b *testing.B, s *Session) uint64 {
	var sum uint64
	n := 0
	for _, t := range s.Threads {
		it := t.Detail.Events()
		for it.Next() {
			e := it.Event()
			sum += e.Timestamp + uint64(e.IndexSeq) + uint64(len(e.Payload))
			n++
		}
		if it.Err() != nil {
			b.Fatal(it.Err())
		}
	}
	if n != wlDetailEvents {
		b.Fatalf("iterated %d detail events", n)
	}
	return sum
}
