package atf

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

const crashEnv = "ATF_CRASH_CHILD_DIR"

// crashEvent is event i of the crash writer's deterministic stream.
func crashEvent(i uint64) (ts, fn uint64, kind EventKind, depth uint32, payloadLen int) {
	ts = 1_000_000 + i*3
	fn = FunctionID(0xabc, uint32(i))
	kind = EventKind(i%3 + 1)
	depth = uint32(i % 7)
	if i%4 == 0 {
		payloadLen = int(i%61) + 1
	}
	return
}

func crashPayloadByte(i uint64, j int) byte { return byte(i*7 + uint64(j)) }

// writeCrashEvent writes event i of the stream, its payload built in
// payload's array, to tw.
func writeCrashEvent(tw *ThreadWriter, i uint64, payload []byte) error {
	ts, fn, kind, depth, pl := crashEvent(i)
	p := payload[:pl]
	for j := range p {
		p[j] = crashPayloadByte(i, j)
	}
	_, err := tw.Write(ts, fn, kind, depth, p)
	return err
}

// choppyFile splits every write into small random pieces, each its own
// system call, so a SIGKILL can land in the middle of an event.
type choppyFile struct {
	f   *os.File
	rng *rand.Rand
}

func (c *choppyFile) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := min(len(p)-n, 1+c.rng.IntN(97))
		m, err := c.f.Write(p[n : n+k])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (c *choppyFile) Seek(off int64, whence int) (int64, error) { return c.f.Seek(off, whence) }

// crashSessionChild records a two-thread session with SessionWriter (plain
// *os.File writes, 64 KiB at a time) until it is killed.
func crashSessionChild(dir string) {
	sw, err := CreateSessionDir(dir, WithBufferSize(4096))
	if err != nil {
		os.Exit(3)
	}
	var tws [2]*ThreadWriter
	for k := range tws {
		if tws[k], err = sw.Thread(uint32(k)); err != nil {
			os.Exit(3)
		}
	}
	payload := make([]byte, 64)
	deadline := time.Now().Add(20 * time.Second)
	for i := uint64(0); time.Now().Before(deadline); i++ {
		for _, tw := range tws {
			if writeCrashEvent(tw, i, payload) != nil {
				os.Exit(4)
			}
		}
	}
	os.Exit(0)
}

// crashChild writes the stream until it is killed (or 20 s pass).
func crashChild(dir string) {
	seed, _ := strconv.ParseUint(os.Getenv("ATF_CRASH_SEED"), 10, 64)
	rng := rand.New(rand.NewPCG(seed, 1))
	idx, err := os.Create(filepath.Join(dir, "index.atf"))
	if err != nil {
		os.Exit(3)
	}
	open := func() (io.WriteSeeker, error) {
		f, err := os.Create(filepath.Join(dir, "detail.atf"))
		return &choppyFile{f, rng}, err
	}
	tw, err := NewThreadWriter(&choppyFile{idx, rng}, open, 5, WithBufferSize(64+rng.IntN(400)))
	if err != nil {
		os.Exit(3)
	}
	writeCrashStream(tw)
}

// writeCrashStream writes the stream to tw until the process is killed
// (or 20 s pass), then exits.
func writeCrashStream(tw *ThreadWriter) {
	payload := make([]byte, 64)
	deadline := time.Now().Add(20 * time.Second)
	for i := uint64(0); time.Now().Before(deadline); i++ {
		if writeCrashEvent(tw, i, payload) != nil {
			os.Exit(4)
		}
	}
	os.Exit(0)
}

// TestCrashRecovery runs a child process that writes with our writer and
// kills it with SIGKILL at a random moment; the reader must recover exactly
// the complete events that reached the files, with the right contents, and
// never a torn one.
func TestCrashRecovery(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" && os.Getenv("ATF_CRASH_BOUND") != "" {
		crashBoundChild(dir)
	}
	if dir := os.Getenv(crashEnv); dir != "" {
		if os.Getenv("ATF_CRASH_SESSION") != "" {
			crashSessionChild(dir)
		}
		crashChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	for round := range 6 {
		dir := filepath.Join(t.TempDir(), "thread_5")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-test.run=^TestCrashRecovery$")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir, "ATF_CRASH_SEED="+strconv.Itoa(round))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the child has written something, then a random while.
		for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
			if fi, err := os.Stat(filepath.Join(dir, "index.atf")); err == nil && fi.Size() > 64 {
				break
			}
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		cmd.Process.Kill() // SIGKILL
		cmd.Wait()
		checkCrashedThread(t, round, dir, 5)
	}
	// A session killed mid-recording has no manifest; OpenSession finds its
	// threads and every thread recovers what reached its files.
	root := t.TempDir()
	cmd := exec.Command(exe, "-test.run=^TestCrashRecovery$")
	cmd.Env = append(os.Environ(), crashEnv+"="+root, "ATF_CRASH_SESSION=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
		if fi, err := os.Stat(filepath.Join(root, "thread_1", "detail.atf")); err == nil && fi.Size() > 64<<10 {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	s, err := OpenSession(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Manifest != nil || len(s.Threads) != 2 || !s.Recovered() {
		t.Fatalf("crashed session: manifest %v, %d threads", s.Manifest != nil, len(s.Threads))
	}
	for k := range 2 {
		checkCrashedThread(t, 100+k, filepath.Join(root, "thread_"+strconv.Itoa(k)), uint32(k))
	}
}

func checkCrashedThread(t *testing.T, round int, dir string, threadID uint32) {
	t.Helper()
	ib, err := os.ReadFile(filepath.Join(dir, "index.atf"))
	if err != nil {
		t.Fatal(err)
	}
	db, _ := os.ReadFile(filepath.Join(dir, "detail.atf"))
	th, err := OpenThread(dir)
	if err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	defer th.Close()
	// Index: every complete 32-byte event, nothing else.
	wantIndex := uint64(0)
	if len(ib) >= HeaderSize {
		wantIndex = uint64(len(ib)-HeaderSize) / IndexEventSize
	}
	if th.Index.Len() != wantIndex || !th.Index.Recovered() {
		t.Fatalf("round %d: %d index events from %d bytes, want %d", round, th.Index.Len(), len(ib), wantIndex)
	}
	var detailSeq uint32
	for seq, e := range numbered(th.Index.All(), t.Error) {
		ts, fn, kind, depth, pl := crashEvent(seq)
		want := IndexEvent{Timestamp: ts, FunctionID: fn, ThreadID: threadID, Kind: kind, CallDepth: depth, DetailSeq: NoDetail}
		if pl > 0 {
			want.DetailSeq = detailSeq
			detailSeq++
		}
		if e != want {
			t.Fatalf("round %d: event %d = %+v, want %+v", round, seq, e, want)
		}
	}
	// Detail: walk the expected record lengths over the bytes on disk.
	var wantDetail uint64
	if len(db) >= HeaderSize {
		off := HeaderSize
		for i := uint64(0); ; i += 4 {
			_, _, _, _, pl := crashEvent(i)
			if off+DetailEventHeaderSize+pl > len(db) {
				break
			}
			off += DetailEventHeaderSize + pl
			wantDetail++
		}
	}
	if th.DetailLen() != wantDetail {
		t.Fatalf("round %d: %d detail events from %d bytes, want %d", round, th.DetailLen(), len(db), wantDetail)
	}
	checkCrashDetails(t, th, fmt.Sprintf("round %d", round))
	checkNoOrphans(t, fmt.Sprintf("round %d", round), th)
	t.Logf("round %d: index %d bytes → %d events (%d discarded); detail %d bytes → %d events", round, len(ib), th.Index.Len(), th.Index.Discarded(), len(db), th.DetailLen())
}

// checkNoOrphans fails unless every detail record on file has its index
// event and every link agrees; forward links to records a crash lost
// (dangling) are expected, and Check must report them.
func checkNoOrphans(t *testing.T, name string, th *Thread) (dangling uint64) {
	t.Helper()
	ps, err := th.Check()
	if err != nil {
		t.Fatalf("%s: Check: %v", name, err)
	}
	for _, p := range ps {
		switch p.Kind {
		case ProblemOrphanDetail, ProblemBrokenLink, ProblemHeaderMismatch:
			t.Errorf("%s: %v", name, p)
		case ProblemDanglingLink:
			dangling += p.Events
		}
	}
	return dangling
}

// crashBoundChild writes ATF_CRASH_BOUND events to each of two threads of a
// session, says "ready" on stdout and waits to be killed.
func crashBoundChild(dir string) {
	n, _ := strconv.ParseUint(os.Getenv("ATF_CRASH_BOUND"), 10, 64)
	var opts []WriterOption
	if f := os.Getenv("ATF_CRASH_FLUSH"); f != "" {
		every, _ := strconv.ParseUint(f, 10, 64)
		opts = append(opts, WithFlushEvery(every))
	}
	if f := os.Getenv("ATF_CRASH_INTERVAL"); f != "" {
		d, _ := strconv.ParseInt(f, 10, 64)
		opts = append(opts, WithFlushInterval(time.Duration(d)))
	}
	bg := os.Getenv("ATF_CRASH_BG") != ""
	if bg {
		opts = append(opts, WithBackgroundFlush(10*time.Millisecond))
	}
	sw, err := CreateSessionDir(dir, opts...)
	if err != nil {
		os.Exit(3)
	}
	payload := make([]byte, 64)
	for k := range uint32(2) {
		tw, err := sw.Thread(k)
		if err != nil {
			os.Exit(3)
		}
		for i := range n {
			if writeCrashEvent(tw, i, payload) != nil {
				os.Exit(4)
			}
		}
	}
	if bg {
		// Idle: only the background flusher can put the last events on file.
		time.Sleep(300 * time.Millisecond)
	}
	fmt.Println("ready")
	time.Sleep(time.Minute)
	os.Exit(5)
}

// crashOnFile is how many of n crashEvent events a ThreadWriter has handed
// to its index file with WithFlushEvery(every) and WithFlushInterval(d): the
// events up to its last flush point, in events or in time (buffer-full
// writes aside, which these tests do not reach).
func crashOnFile(n, every, d uint64) uint64 {
	onFile, flushAt, pending := uint64(0), every, false
	var deadline uint64
	for i := range n {
		ts, _, _, _, _ := crashEvent(i)
		if !pending {
			pending, deadline = true, ts+d
		}
		if every > 0 && i+1 >= flushAt || d > 0 && ts >= deadline {
			onFile, pending, flushAt = i+1, false, i+1+every
		}
	}
	return onFile
}

// TestCrashLossBound kills (SIGKILL) a process that has written a known
// number of events to each thread, and checks what the files hold against
// the documented bound: with WithFlushEvery(n), exactly the events up to the
// last multiple of n (so fewer than n lost per thread; the reference's 4 KiB
// stdio buffer loses up to 127), each with its detail record, and never a
// detail record without its index event. With WithFlushInterval(d) too,
// exactly the events up to the last point where an event came d or more
// after the oldest unflushed one (so the lost events span less than d of the
// thread's timestamps). With WithBackgroundFlush, a process idle after its
// events loses none of them. Without a flush bound (n = 0) a crash loses up
// to a buffer, still without orphans.
func TestCrashLossBound(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		events   uint64
		flush    string // WithFlushEvery, "" for the default
		interval uint64 // WithFlushInterval in ns (crashEvent timestamps step by 3 ns)
		bg       bool   // WithBackgroundFlush, and the child idles before it is killed
	}{
		{100, "", 0, false}, {1000, "", 0, false}, {3000, "", 0, false}, {0, "", 0, false}, {777, "1", 0, false}, {1000, "50", 0, false}, {3000, "0", 0, false},
		// Time bounds: 300 ns is 100 events of the stream (it flushes before
		// the count does), 1000 ns 334 (the count flushes first), and with
		// no count bound only time flushes.
		{3000, "", 300, false}, {2999, "", 1000, false}, {3000, "0", 600, false}, {150, "0", 90, false},
		// Idle threads: under 128 events, all on file thanks to the flusher.
		{100, "", 0, true}, {1000, "0", 0, true},
	} {
		every := uint64(DefaultFlushEvery)
		if c.flush != "" {
			every, _ = strconv.ParseUint(c.flush, 10, 64)
		}
		name := fmt.Sprintf("%d events, flush every %d, interval %d ns, background %v", c.events, every, c.interval, c.bg)
		dir := t.TempDir()
		cmd := exec.Command(exe, "-test.run=^TestCrashRecovery$")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir, "ATF_CRASH_BOUND="+strconv.FormatUint(c.events, 10), "ATF_CRASH_FLUSH="+c.flush)
		if c.interval > 0 {
			cmd.Env = append(cmd.Env, "ATF_CRASH_INTERVAL="+strconv.FormatUint(c.interval, 10))
		}
		if c.bg {
			cmd.Env = append(cmd.Env, "ATF_CRASH_BG=1")
		}
		killWhenReady(t, cmd, name)
		s, err := OpenSession(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.Threads) != 2 {
			t.Fatalf("%s: %d threads", name, len(s.Threads))
		}
		for _, th := range s.Threads {
			got := th.Index.Len()
			want := crashOnFile(c.events, every, c.interval)
			bounded := every > 0 || c.interval > 0 || c.bg
			if c.bg {
				want = c.events
			}
			if every > 0 && c.interval == 0 && !c.bg && want != c.events-c.events%every {
				t.Fatalf("model: %d", want)
			}
			switch {
			case bounded && got != want:
				t.Errorf("%s: thread %d recovered %d index events, want %d", name, th.ID, got, want)
			case !bounded && (got > c.events || c.events-got > (64<<10)/IndexEventSize):
				t.Errorf("%s: thread %d recovered %d index events, more than a buffer lost", name, th.ID, got)
			}
			if c.interval > 0 && got < c.events {
				// The lost events span less than the interval.
				first, _, _, _, _ := crashEvent(got)
				last, _, _, _, _ := crashEvent(c.events - 1)
				if last-first >= c.interval {
					t.Errorf("%s: thread %d lost events spanning %d ns", name, th.ID, last-first)
				}
			}
			dangling := checkNoOrphans(t, name, th)
			if bounded && dangling != 0 {
				t.Errorf("%s: thread %d: %d dangling links at a flush point", name, th.ID, dangling)
			}
			// The detail records on file are exactly those of the recovered
			// index events that have one, minus any dangling tail.
			var linked uint64
			for e, err := range th.Index.All() {
				if err != nil {
					t.Fatal(err)
				}
				if e.HasDetail() {
					linked++
				}
			}
			if th.DetailLen()+dangling != linked {
				t.Errorf("%s: thread %d: %d detail records + %d dangling, %d linked index events", name, th.ID, th.DetailLen(), dangling, linked)
			}
			if !th.Index.Recovered() {
				t.Errorf("%s: thread %d not reported as recovered", name, th.ID)
			}
		}
		if ps := s.Problems(); len(ps) == 0 || ps[0].Kind != ProblemNoManifest {
			t.Errorf("%s: problems %v, want no-manifest first", name, ps)
		}
		s.Close()
	}
}

// killWhenReady starts the child cmd, waits for its "ready" line (it has
// written what the test expects on file), SIGKILLs it and reaps it; what
// names the case in the failure.
func killWhenReady(t *testing.T, cmd *exec.Cmd, what string) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	if line != "ready\n" {
		t.Fatalf("%s: child said %q (%v)", what, line, err)
	}
}

// checkCrashDetails checks the detail records a crash child wrote for
// every fourth index event (crashEvent, crashPayloadByte) and that read
// back from th; what names the case in a failure.
func checkCrashDetails(t *testing.T, th *Thread, what string) {
	t.Helper()
	if th.Detail == nil {
		return
	}
	for k, d := range numbered(th.Detail.All(), t.Error) {
		i := k * 4
		ts, _, kind, _, pl := crashEvent(i)
		if d.IndexSeq != uint32(i) || d.Timestamp != ts || d.Type != DetailTypeFor(kind) || len(d.Payload) != pl {
			t.Fatalf("%s: detail %d = %+v", what, k, d)
		}
		for j, b := range d.Payload {
			if b != crashPayloadByte(i, j) {
				t.Fatalf("%s: detail %d payload byte %d", what, k, j)
			}
		}
	}
}
