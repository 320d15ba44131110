package events_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// kernelSpec is a kernel trace's classes: sched_switch (0), read's entry
// and exit (1, 2), write's (3, 4), and the procname context when ctx.
func kernelSpec(ctx ...ctfgen.Field) ctfgen.Spec {
	return ctfgen.Spec{Domain: "kernel", Context: ctx, Classes: []ctfgen.Class{
		ctfgen.SchedSwitch,
		ctfgen.SyscallEntry("read", ctfgen.Field{Name: "fd", Kind: ctfgen.S32}),
		ctfgen.SyscallExit("read"),
		ctfgen.SyscallEntry("write", ctfgen.Field{Name: "fd", Kind: ctfgen.S32}),
		ctfgen.SyscallExit("write"),
	}}
}

// switchTo is a sched_switch record from prev to next.
func switchTo(cpu int, ts uint64, prev int, next int, comm string) ctfgen.Record {
	return ctfgen.Record{CPU: cpu, Class: 0, TS: ts, Values: []any{"prev", prev, 20, 0, comm, next, 20}}
}

// ev is what a test checks of an event.
type callEv struct {
	kind  events.Kind
	name  string
	time  int64
	track string
}

func (c callEv) String() string {
	return fmt.Sprintf("%s %s @%d on %q", c.kind, c.name, c.time, c.track)
}

func readCalls(t *testing.T, dir string, opts ...events.Option) []callEv {
	t.Helper()
	r, err := events.Open(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []callEv
	for r.Next() {
		e := r.Event()
		tk := e.Track()
		if tk.Kind == events.TrackThread {
			if !strings.HasPrefix(tk.Name, "tid ") && !strings.HasPrefix(tk.Name, "vtid ") {
				t.Errorf("%s: thread track %q", e.Name(), tk.Name)
			}
		}
		out = append(out, callEv{e.Kind(), e.Name(), e.Time(), tk.Name})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkCalls(t *testing.T, got []callEv, want []callEv) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d events, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("event %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// TestCTFCallSlicesKernel: with WithCTFCallSlices, system call entries and
// exits are begins and ends on their thread's track, the thread being the
// one the CPU's last sched_switch switched to: a thread that moves to
// another CPU in the middle of a read ends it on its own track; before a
// CPU's first sched_switch they stay instants on the CPU, as does
// everything else. Without the option, every record is an instant.
func TestCTFCallSlicesKernel(t *testing.T) {
	dir := t.TempDir()
	recs := []ctfgen.Record{
		{CPU: 0, Class: 1, TS: 100, Values: []any{3}}, // before CPU 0's first switch
		switchTo(0, 200, 0, 42, "bash"),
		{CPU: 0, Class: 1, TS: 300, Values: []any{4}},  // 42 reads
		switchTo(0, 400, 42, 7, "kworker/0:1"),         // 42 sleeps in read
		{CPU: 0, Class: 3, TS: 450, Values: []any{1}},  // 7 writes
		switchTo(1, 500, 0, 42, "bash"),                // 42 wakes on CPU 1
		{CPU: 0, Class: 4, TS: 550, Values: []any{8}},  // 7's write returns
		{CPU: 1, Class: 2, TS: 600, Values: []any{10}}, // 42's read returns on CPU 1
		{CPU: 1, Class: 4, TS: 700, Values: []any{-9}}, // an exit without entry
		switchTo(1, 800, 42, -1, "bad"),                // to no thread
		{CPU: 1, Class: 1, TS: 900, Values: []any{3}},
	}
	if err := ctfgen.WriteRecords(dir, kernelSpec(), recs); err != nil {
		t.Fatal(err)
	}
	checkCalls(t, readCalls(t, dir, events.WithCTFCallSlices()), []callEv{
		{events.KindInstant, "syscall_entry_read", 100, "cpu 0"},
		{events.KindInstant, "sched_switch", 200, "cpu 0"},
		{events.KindBegin, "read", 300, "tid 42 (bash)"},
		{events.KindInstant, "sched_switch", 400, "cpu 0"},
		{events.KindBegin, "write", 450, "tid 7 (kworker/0:1)"},
		{events.KindInstant, "sched_switch", 500, "cpu 1"},
		{events.KindEnd, "write", 550, "tid 7 (kworker/0:1)"},
		{events.KindEnd, "read", 600, "tid 42 (bash)"},
		{events.KindEnd, "write", 700, "tid 42 (bash)"},
		{events.KindInstant, "sched_switch", 800, "cpu 1"},
		{events.KindInstant, "syscall_entry_read", 900, "cpu 1"},
	})
	for _, e := range readCalls(t, dir) {
		if e.kind != events.KindInstant || !strings.HasPrefix(e.track, "cpu ") {
			t.Errorf("without WithCTFCallSlices: %v", e)
		}
	}
	// Paired: the read lasts from 300 to 600 on thread 42.
	r, err := events.Open(dir, events.WithCTFCallSlices(), events.WithPairing(0))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var slices []string
	for r.Next() {
		if e := r.Event(); e.Kind() == events.KindComplete {
			slices = append(slices, fmt.Sprintf("%s %d+%d tid %d", e.Name(), e.Time(), e.Duration(), e.Track().ID))
		}
	}
	if got := strings.Join(slices, "; "); got != "write 450+100 tid 7; read 300+300 tid 42" {
		t.Errorf("paired: %s", got)
	}
}

// TestCTFCallSlicesTidContext: a session that added the tid and procname
// contexts puts each system call on its tid's track, sched_switch or not;
// an LTTng < 2.7 trace's sys_NAME and exit_syscall are calls too.
func TestCTFCallSlicesTidContext(t *testing.T) {
	dir := t.TempDir()
	s := kernelSpec(ctfgen.Field{Name: "tid", Kind: ctfgen.S32}, ctfgen.Field{Name: "procname", Kind: ctfgen.Comm})
	s.Classes = append(s.Classes,
		ctfgen.Class{Name: "sys_open", Fields: []ctfgen.Field{{Name: "filename", Kind: ctfgen.Str}}},
		ctfgen.Class{Name: "exit_syscall", Fields: []ctfgen.Field{{Name: "ret", Kind: ctfgen.S32}}},
		ctfgen.Class{Name: "sys_x", Fields: nil},
	)
	recs := []ctfgen.Record{
		{CPU: 0, Class: 1, TS: 100, Context: []any{5, "cat"}, Values: []any{3}},
		{CPU: 0, Class: 0, TS: 150, Context: []any{5, "cat"}, Values: []any{"cat", 5, 20, 1, "sh", 6, 20}},
		{CPU: 1, Class: 5, TS: 160, Context: []any{5, "cat"}, Values: []any{"/etc/passwd"}},
		{CPU: 1, Class: 6, TS: 170, Context: []any{5, "cat"}, Values: []any{3}},
		{CPU: 1, Class: 2, TS: 200, Context: []any{5, "cat"}, Values: []any{10}},
		{CPU: 0, Class: 2, TS: 210, Context: []any{-1, "bad"}, Values: []any{10}},
	}
	if err := ctfgen.WriteRecords(dir, s, recs); err != nil {
		t.Fatal(err)
	}
	checkCalls(t, readCalls(t, dir, events.WithCTFCallSlices()), []callEv{
		{events.KindBegin, "read", 100, "tid 5 (cat)"},
		{events.KindInstant, "sched_switch", 150, "cpu 0"},
		{events.KindBegin, "open", 160, "tid 5 (cat)"},
		{events.KindEnd, "exit_syscall", 170, "tid 5 (cat)"},
		{events.KindEnd, "read", 200, "tid 5 (cat)"},
		{events.KindInstant, "syscall_exit_read", 210, "cpu 0"}, // a negative tid is none (not CPU 0's thread 6)
	})
	// Without exit_syscall, a sys_ class is no system call.
	dir2 := t.TempDir()
	s.Classes[6] = ctfgen.Class{Name: "exit_other", Fields: s.Classes[6].Fields}
	if err := ctfgen.WriteRecords(dir2, s, recs[:3]); err != nil {
		t.Fatal(err)
	}
	if got := readCalls(t, dir2, events.WithCTFCallSlices()); len(got) != 3 || got[2].kind != events.KindInstant || got[2].name != "sys_open" {
		t.Errorf("sys_open without exit_syscall: %v", got)
	}
}

// TestCTFCallSlicesUST: liblttng-ust-cyg-profile's entries and exits are
// slices named by the address in hex on the track of their thread (vtid,
// told apart by vpid), for the fast variant too, whose exit has no
// address; without a vtid context they stay instants.
func TestCTFCallSlicesUST(t *testing.T) {
	dir := t.TempDir()
	ctx := []ctfgen.Field{{Name: "vpid", Kind: ctfgen.S32}, {Name: "vtid", Kind: ctfgen.S32}, {Name: "procname", Kind: ctfgen.Comm}}
	s := ctfgen.Spec{Domain: "ust", Context: ctx, Classes: []ctfgen.Class{
		ctfgen.FuncEntry, ctfgen.FuncExit, ctfgen.FastFuncEntry, ctfgen.FastFuncExit, {Name: "app:tick"},
	}}
	p1, p2 := []any{100, 101, "app"}, []any{200, 101, "other"}
	recs := []ctfgen.Record{
		{CPU: 0, Class: 0, TS: 10, Context: p1, Values: []any{0x401000, 0x7f00}},
		{CPU: 0, Class: 0, TS: 20, Context: p1, Values: []any{0x4010ab, 0x401010}},
		{CPU: 1, Class: 2, TS: 25, Context: p2, Values: []any{0x500000}},
		{CPU: 0, Class: 4, TS: 30, Context: p1, Values: nil},
		{CPU: 1, Class: 3, TS: 35, Context: p2, Values: nil},
		{CPU: 1, Class: 1, TS: 40, Context: p1, Values: []any{0x4010ab, 0x401010}}, // migrated to CPU 1
		{CPU: 1, Class: 1, TS: 50, Context: p1, Values: []any{0x401000, 0x7f00}},
	}
	if err := ctfgen.WriteRecords(dir, s, recs); err != nil {
		t.Fatal(err)
	}
	const t1, t2 = "vtid 101, vpid 100 (app)", "vtid 101, vpid 200 (other)"
	checkCalls(t, readCalls(t, dir, events.WithCTFCallSlices()), []callEv{
		{events.KindBegin, "0x401000", 10, t1},
		{events.KindBegin, "0x4010ab", 20, t1},
		{events.KindBegin, "0x500000", 25, t2},
		{events.KindInstant, "app:tick", 30, "cpu 0"},
		{events.KindEnd, "lttng_ust_cyg_profile_fast:func_exit", 35, t2},
		{events.KindEnd, "0x4010ab", 40, t1},
		{events.KindEnd, "0x401000", 50, t1},
	})
	// Without a vtid context, no thread: instants.
	dir2 := t.TempDir()
	s.Context = ctx[:1]
	for i := range recs {
		recs[i].Context = recs[i].Context[:1]
	}
	if err := ctfgen.WriteRecords(dir2, s, recs); err != nil {
		t.Fatal(err)
	}
	for _, e := range readCalls(t, dir2, events.WithCTFCallSlices()) {
		if e.kind != events.KindInstant {
			t.Errorf("without vtid: %v", e)
		}
	}
}

// TestCTFCallSlicesBoundedThreads: at most 65 536 thread tracks are made;
// the system calls of further threads stay instants on their CPU.
func TestCTFCallSlicesBoundedThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a trace of 140 000 records")
	}
	const n = 1<<16 + 4
	var recs []ctfgen.Record
	for i := range n {
		ts := uint64(10 * i)
		recs = append(recs, switchTo(0, ts, i, i+1, "t"), ctfgen.Record{CPU: 0, Class: 1, TS: ts + 1, Values: []any{1}})
	}
	dir := filepath.Join(t.TempDir(), "many")
	if err := ctfgen.WriteRecords(dir, kernelSpec(), recs); err != nil {
		t.Fatal(err)
	}
	begins, instants := 0, 0
	for _, e := range readCalls(t, dir, events.WithCTFCallSlices()) {
		switch {
		case e.kind == events.KindBegin:
			begins++
		case e.name == "syscall_entry_read" && e.track == "cpu 0":
			instants++
		}
	}
	if begins != 1<<16 || instants != n-1<<16 {
		t.Errorf("%d begins, %d syscall instants; want %d, %d", begins, instants, 1<<16, n-1<<16)
	}
}

// TestCTFCallSlicesZeroAllocs: after warm-up (threads and function names
// seen) the call slices cost no allocation per event, with and without
// pairing.
func TestCTFCallSlicesZeroAllocs(t *testing.T) {
	kdir, udir := filepath.Join(t.TempDir(), "k"), filepath.Join(t.TempDir(), "u")
	var krecs, urecs []ctfgen.Record
	for i := range 6000 {
		ts := uint64(100 * i)
		cpu := i % 2
		tid := 10 + i/2%40
		krecs = append(krecs, switchTo(cpu, ts, 0, tid, "w"),
			ctfgen.Record{CPU: cpu, Class: 1 + 2*(i%2), TS: ts + 10, Values: []any{1}},
			ctfgen.Record{CPU: cpu, Class: 2 + 2*(i%2), TS: ts + 20, Values: []any{0}})
		ctx := []any{1, tid}
		urecs = append(urecs,
			ctfgen.Record{CPU: cpu, Class: 0, TS: ts, Context: ctx, Values: []any{0x400000 + i%100, 1}},
			ctfgen.Record{CPU: cpu, Class: 2, TS: ts + 1, Context: ctx, Values: []any{0x500000 + i%100}},
			ctfgen.Record{CPU: cpu, Class: 3, TS: ts + 2, Context: ctx, Values: nil},
			ctfgen.Record{CPU: cpu, Class: 1, TS: ts + 3, Context: ctx, Values: []any{0x400000 + i%100, 1}})
	}
	if err := ctfgen.WriteRecords(kdir, kernelSpec(), krecs); err != nil {
		t.Fatal(err)
	}
	us := ctfgen.Spec{Domain: "ust", Context: []ctfgen.Field{{Name: "vpid", Kind: ctfgen.S32}, {Name: "vtid", Kind: ctfgen.S32}},
		Classes: []ctfgen.Class{ctfgen.FuncEntry, ctfgen.FuncExit, ctfgen.FastFuncEntry, ctfgen.FastFuncExit}}
	if err := ctfgen.WriteRecords(udir, us, urecs); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{kdir, udir} {
		for _, pairing := range []bool{false, true} {
			opts := []events.Option{events.WithCTFCallSlices()}
			if pairing {
				opts = append(opts, events.WithPairing(0))
			}
			r, err := events.Open(dir, opts...)
			if err != nil {
				t.Fatal(err)
			}
			slices := 0
			for i := 0; i < 2000 && r.Next(); i++ {
				touch(r.Event())
				if r.Event().Track().Kind == events.TrackThread {
					slices++
				}
			}
			if slices == 0 {
				t.Fatalf("%s: no event on a thread", dir)
			}
			json := r.Event().AppendJSON(make([]byte, 0, 1<<16))
			allocs := testing.AllocsPerRun(100, func() {
				for range 16 {
					if !r.Next() {
						t.Fatalf("%s: ran out of events: %v", dir, r.Err())
					}
					touch(r.Event())
					json = r.Event().AppendJSON(json[:0])
				}
			})
			if allocs != 0 {
				t.Errorf("%s (pairing %v): %.2f allocations per 16 events", filepath.Base(dir), pairing, allocs)
			}
			r.Close()
		}
	}
}

// mixedCallTrace writes to dir a trace whose classes have every role of
// WithCTFCallSlices, with the tid, vpid, vtid and procname contexts, and
// returns its data stream file of CPU 0.
func mixedCallTrace(t testing.TB, dir string) string {
	s := ctfgen.Spec{Domain: "kernel", Context: []ctfgen.Field{{Name: "tid", Kind: ctfgen.S32}, {Name: "vpid", Kind: ctfgen.S32},
		{Name: "vtid", Kind: ctfgen.S32}, {Name: "procname", Kind: ctfgen.Comm}},
		Classes: []ctfgen.Class{ctfgen.SchedSwitch, ctfgen.SyscallEntry("read"), ctfgen.SyscallExit("read"),
			ctfgen.FuncEntry, ctfgen.FuncExit, ctfgen.FastFuncEntry, ctfgen.FastFuncExit,
			{Name: "sys_open", Fields: []ctfgen.Field{{Name: "filename", Kind: ctfgen.Str}}},
			{Name: "exit_syscall", Fields: []ctfgen.Field{{Name: "ret", Kind: ctfgen.S32}}}}}
	var recs []ctfgen.Record
	for i := range 24 {
		ctx := []any{5 + i%3, 1, 5 + i%3, "p"}
		if i%5 == 0 {
			ctx[0] = -1
		}
		ts := uint64(10 * i)
		switch i % 8 {
		case 0:
			recs = append(recs, ctfgen.Record{CPU: 0, Class: 0, TS: ts, Context: ctx, Values: []any{"a", 1, 20, 0, "b", 5 + i%3, 20}})
		case 1:
			recs = append(recs, ctfgen.Record{CPU: 0, Class: 1, TS: ts, Context: ctx})
		case 2:
			recs = append(recs, ctfgen.Record{CPU: 0, Class: 2, TS: ts, Context: ctx, Values: []any{3}})
		case 3, 4:
			recs = append(recs, ctfgen.Record{CPU: 0, Class: i % 8, TS: ts, Context: ctx, Values: []any{0x400000 + i%2, 7}})
		case 5:
			recs = append(recs, ctfgen.Record{CPU: 0, Class: 5, TS: ts, Context: ctx, Values: []any{0x500000}})
		case 6:
			recs = append(recs, ctfgen.Record{CPU: 0, Class: 6, TS: ts, Context: ctx})
		case 7:
			v := []any{"/x"}
			if i%16 == 15 {
				v = []any{0}
			}
			recs = append(recs, ctfgen.Record{CPU: 0, Class: 7 + i%16/8, TS: ts, Context: ctx, Values: v})
		}
	}
	if err := ctfgen.WriteRecords(dir, s, recs); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "channel0_0")
}

// readAllCalls reads dir with WithCTFCallSlices (and pairing when pair)
// to its end: what it checks is that nothing panics and that every event
// is on a track of its kind.
func readAllCalls(t testing.TB, dir string, pair bool) int {
	opts := []events.Option{events.WithCTFCallSlices()}
	if pair {
		opts = append(opts, events.WithPairing(4))
	}
	r, err := events.Open(dir, opts...)
	if err != nil {
		return 0
	}
	defer r.Close()
	n := 0
	for r.Next() {
		e := r.Event()
		tk := e.Track()
		if tk.Kind == events.TrackThread && e.Kind() == events.KindInstant {
			t.Fatalf("an instant on thread track %q", tk.Name)
		}
		if tk.Kind != events.TrackThread && tk.Kind != events.TrackStream {
			t.Fatalf("track %v", tk)
		}
		n++
	}
	return n
}

// TestCTFCallSlicesSweep: every prefix of a data stream holding every
// role, and the stream with each byte flipped, reads without a panic.
func TestCTFCallSlicesSweep(t *testing.T) {
	dir := t.TempDir()
	p := mixedCallTrace(t, dir)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range readCalls(t, dir, events.WithCTFCallSlices()) {
		kinds[e.kind.String()+" "+strings.Fields(e.track)[0]]++
	}
	if got := fmt.Sprint(kinds); got != "map[begin tid:11 end tid:8 instant cpu:5]" {
		t.Fatalf("events: %s", got)
	}
	for i := range len(data) {
		if err := os.WriteFile(p, data[:i], 0o644); err != nil {
			t.Fatal(err)
		}
		readAllCalls(t, dir, i%2 == 0)
		b := bytes.Clone(data)
		b[i] ^= 0xff
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		readAllCalls(t, dir, i%2 == 1)
	}
}

// FuzzCTFCallSlices reads the data stream of mixedCallTrace's trace as
// the fuzzer changes it.
func FuzzCTFCallSlices(f *testing.F) {
	dir := f.TempDir()
	p := mixedCallTrace(f, dir)
	data, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		readAllCalls(t, dir, len(b)%2 == 0)
	})
}

// benchCallsEvents is the size of the kernel-shaped trace of
// BenchmarkEventsCTFCalls, written by TestMain into benchCallsDir.
const benchCallsEvents = 200_000

var benchCallsDir string

// writeBenchCalls writes a kernel-shaped trace: 4 CPUs, 64 threads, a
// sched_switch every 10 records, the rest read and write entries and
// exits.
func writeBenchCalls() (string, error) {
	dir, err := os.MkdirTemp("", "events-bench-calls")
	if err != nil {
		return "", err
	}
	recs := make([]ctfgen.Record, 0, benchCallsEvents)
	for i := range benchCallsEvents {
		cpu, k := i%4, i/4
		ts := uint64(100 * k)
		if k%10 == 0 {
			recs = append(recs, switchTo(cpu, ts, 0, 10+(k/10*4+cpu)%64, "worker"))
			continue
		}
		class := 1 + (k%10-1)%4 // read entry, read exit, write entry, write exit
		recs = append(recs, ctfgen.Record{CPU: cpu, Class: class, TS: ts, Values: []any{k % 100}})
	}
	return dir, ctfgen.WriteRecords(dir, kernelSpec(), recs)
}

// BenchmarkEventsCTFCalls reads that trace with WithCTFCallSlices;
// BenchmarkEventsCTFCallsOff without (the cost of the option is the
// difference). Instruction counts per event:
//
//	../shared/bench/instr.sh ./events EventsCTFCalls 200000 '*eventsCTFPass*'
func BenchmarkEventsCTFCalls(b *testing.B) { benchCalls(b, events.WithCTFCallSlices()) }

func BenchmarkEventsCTFCallsOff(b *testing.B) { benchCalls(b) }

func benchCalls(b *testing.B, opts ...events.Option) {
	if benchCallsDir == "" {
		b.Skip("the benchmark trace is written by TestMain when -test.bench is set")
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := events.Open(benchCallsDir, opts...)
		if err != nil {
			b.Fatal(err)
		}
		if n := eventsCTFPass(r); n != benchCallsEvents {
			b.Fatalf("%d events: %v", n, r.Err())
		}
		r.Close()
	}
}
