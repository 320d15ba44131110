//go:build linux

package atf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// writeMappedStream writes n events of crashEvent's stream, with payloads
// of plen(i) bytes, to a thread in dir with opts, and closes it.
func writeMappedStream(t *testing.T, dir string, n uint64, plen func(uint64) int, opts ...WriterOption) (*ThreadWriter, bool) {
	t.Helper()
	tw, err := CreateThread(dir, 9, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mapped := tw.index.m != nil
	payload := make([]byte, 0, 1<<20)
	for i := range n {
		ts, fn, kind, depth, _ := crashEvent(i)
		p := payload[:plen(i)]
		for j := range p {
			p[j] = crashPayloadByte(i, j)
		}
		if _, err := tw.Write(ts, fn, kind, depth, p); err != nil {
			t.Fatal(err)
		}
		if i%5000 == 4999 {
			if err := tw.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if tw.detail != nil && (tw.detail.m != nil) != mapped {
		t.Fatalf("index mapped %v, detail mapped %v", mapped, tw.detail.m != nil)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return tw, mapped
}

// TestMmapOutputIdentical writes the same streams with write(2) and with
// WithMmapOutput: the files must be byte-identical, across growth steps,
// remaps of the reservation, payloads larger than a step, with and without
// checksums and detail files.
func TestMmapOutputIdentical(t *testing.T) {
	defer func(r int) { mapReserve = r }(mapReserve)
	mapReserve = 128 << 10 // remap often
	for _, c := range []struct {
		name string
		n    uint64
		plen func(uint64) int
		opts []WriterOption
	}{
		{"empty", 0, func(uint64) int { return 0 }, nil},
		{"index only", 200_000, func(uint64) int { return 0 }, nil}, // 6.4 MB: pages released past 2 MiB
		{"index only, no checksum", 3000, func(uint64) int { return 0 }, []WriterOption{WithChecksum(false)}},
		{"details", 40_000, func(i uint64) int {
			if i%4 == 0 {
				return int(i%61) + 1
			}
			return 0
		}, nil},
		{"payloads larger than a step", 40, func(i uint64) int { return int(i%3) * 300_000 }, []WriterOption{WithFlushEvery(0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := append([]WriterOption{WithArch(ArchX86_64), WithOS(OSLinux)}, c.opts...)
			_, plain := writeMappedStream(t, filepath.Join(dir, "plain"), c.n, c.plen, opts...)
			_, mapped := writeMappedStream(t, filepath.Join(dir, "mapped"), c.n, c.plen, append(opts, WithMmapOutput(true))...)
			if plain || !mapped {
				t.Fatalf("mapped: without the option %v, with it %v", plain, mapped)
			}
			for _, name := range []string{"index.atf", "detail.atf"} {
				a, aerr := os.ReadFile(filepath.Join(dir, "plain", name))
				b, berr := os.ReadFile(filepath.Join(dir, "mapped", name))
				if (aerr == nil) != (berr == nil) {
					t.Fatalf("%s: %v / %v", name, aerr, berr)
				}
				if !bytes.Equal(a, b) {
					t.Fatalf("%s: write(2) %d bytes, mapped %d bytes, not identical", name, len(a), len(b))
				}
			}
			th, err := OpenThread(filepath.Join(dir, "mapped"))
			if err != nil {
				t.Fatal(err)
			}
			defer th.Close()
			if th.Index.Len() != c.n || th.Index.Recovered() {
				t.Fatalf("read back %d events (recovered %v), want %d", th.Index.Len(), th.Index.Recovered(), c.n)
			}
			if checked, err := th.Index.VerifyChecksum(); err != nil || checked != (c.n > 0 && c.name != "index only, no checksum") {
				t.Fatalf("index checksum: checked %v, %v", checked, err)
			}
		})
	}
}

// TestMmapOutputIndexWriter: NewIndexWriter over a fresh *os.File maps it
// and leaves the file positioned after the footer, as with write(2); a file
// that is not empty, or not at offset 0, is written with write(2).
func TestMmapOutputIndexWriter(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "a.atf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	iw, err := NewIndexWriter(f, 3, WithMmapOutput(true))
	if err != nil {
		t.Fatal(err)
	}
	if iw.m == nil {
		t.Fatal("fresh file not mapped")
	}
	for i := range uint64(10) {
		if err := iw.Append(IndexEvent{Timestamp: i, ThreadID: 3, Kind: KindCall, DetailSeq: NoDetail}); err != nil {
			t.Fatal(err)
		}
	}
	if err := iw.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := iw.Close(); err != nil {
		t.Fatal(err)
	}
	end, _ := f.Seek(0, 1)
	if want := int64(HeaderSize + 10*IndexEventSize + FooterSize); end != want {
		t.Fatalf("position after Close %d, want %d", end, want)
	}
	if fi, _ := f.Stat(); fi.Size() != end {
		t.Fatalf("size %d, want %d", fi.Size(), end)
	}
	if err := iw.Append(IndexEvent{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	// Not empty: write(2).
	g, err := os.Create(filepath.Join(dir, "b.atf"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	g.Write([]byte("prefix"))
	iw2, err := NewIndexWriter(g, 3, WithMmapOutput(true))
	if err != nil {
		t.Fatal(err)
	}
	if iw2.m != nil {
		t.Fatal("file at offset 6 mapped")
	}
	iw2.Close()
}

// TestMmapOutputNotRegular: a file that is not a regular file is written
// as without the option: a character device with write(2), a pipe (which
// cannot seek) refused with the same error.
func TestMmapOutputNotRegular(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	defer null.Close()
	iw, err := NewIndexWriter(null, 3, WithMmapOutput(true))
	if err != nil {
		t.Fatal(err)
	}
	if iw.m != nil {
		t.Fatal("device mapped")
	}
	if err := iw.Append(IndexEvent{Timestamp: 1, ThreadID: 3, Kind: KindCall, DetailSeq: NoDetail}); err != nil {
		t.Fatal(err)
	}
	if err := iw.Flush(); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	_, plain := NewIndexWriter(w, 3)
	_, mapped := NewIndexWriter(w, 3, WithMmapOutput(true))
	if plain == nil || mapped == nil || plain.Error() != mapped.Error() {
		t.Fatalf("pipe: without the option %v, with it %v", plain, mapped)
	}
}

// TestMmapOutputZeroAllocs: a mapped writer allocates nothing per event,
// growth steps and write-behind included (one measured run of a million
// events: 32 MB, eight growths).
func TestMmapOutputZeroAllocs(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts are not meaningful under -cover or -race")
	}
	tw, err := CreateThread(filepath.Join(t.TempDir(), "thread_1"), 1, WithMmapOutput(true))
	if err != nil || tw.index.m == nil {
		t.Fatalf("not mapped: %v", err)
	}
	defer tw.Close()
	payload := make([]byte, 40)
	var ts uint64
	if a := testing.AllocsPerRun(1, func() { // one warm-up run, one measured
		for range 1_000_000 {
			ts++
			var p []byte
			if ts%16 == 0 {
				p = payload
			}
			if _, err := tw.Write(ts, 7, KindCall, 1, p); err != nil {
				t.Fatal(err)
			}
		}
	}); a != 0 {
		t.Errorf("%v allocations in a million mapped events", a)
	}
}

// TestMmapOutputFileSizeLimit: a growth the system refuses (here the file
// size limit, RLIMIT_FSIZE, as a full disk would) is an error from Write,
// sticky, never a SIGBUS; Close keeps every event written before it.
func TestMmapOutputFileSizeLimit(t *testing.T) {
	if dir := os.Getenv("ATF_MMAP_FSIZE_DIR"); dir != "" {
		mmapFileSizeChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("spawns a process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "-test.run=^TestMmapOutputFileSizeLimit$")
	cmd.Env = append(os.Environ(), "ATF_MMAP_FSIZE_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var n uint64
	var msg string
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "failed after "); ok {
			k, _ := fmt.Sscanf(rest, "%d", &n)
			if k != 1 {
				t.Fatalf("child said %q", line)
			}
			msg = rest
		}
	}
	if n == 0 || !strings.Contains(msg, "file too large") {
		t.Fatalf("child output:\n%s", out)
	}
	checkPrefixOnFile(t, filepath.Join(dir, "thread_1"), n)
	t.Logf("child: %s", msg)
}

// writeUntilError writes index events 0, 1, ... to tw until Write fails
// (at most limit events) and returns how many it wrote and the error,
// checking that the error is sticky.
func writeUntilError(t *testing.T, tw *ThreadWriter, limit uint64) (uint64, error) {
	t.Helper()
	var n uint64
	var err error
	for ; n < limit; n++ {
		if _, err = tw.Write(n, 1, KindCall, 0, nil); err != nil {
			break
		}
	}
	if err == nil {
		t.Fatalf("no error in %d events", limit)
	}
	if _, err2 := tw.Write(n, 1, KindCall, 0, nil); err2 == nil {
		t.Fatal("error not sticky")
	}
	return n, err
}

// checkPrefixOnFile checks that the thread in dir holds exactly the events
// 0 … n-1 (timestamp = sequence number) written before a failure.
func checkPrefixOnFile(t *testing.T, dir string, n uint64) {
	t.Helper()
	th, err := OpenThread(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	if th.Index.Len() != n {
		t.Fatalf("%d events on file, %d written before the failure", th.Index.Len(), n)
	}
	for seq, e := range numbered(th.Index.All(), t.Error) {
		if e.Timestamp != seq {
			t.Fatalf("event %d: %+v", seq, e)
		}
	}
	checkRustReads(t, dir, filepath.Join(dir, "index.atf"), th.Index)
}

// TestMmapOutputPopulateFails: when the pages of a growth step cannot be
// populated for writing (a full disk makes MADV_POPULATE_WRITE fail where
// a store would SIGBUS), Write returns the error, sticky, the writer
// stores nothing into the step, and Close keeps every event before it.
func TestMmapOutputPopulateFails(t *testing.T) {
	defer func(p func([]byte) error) { populateWrite = p }(populateWrite)
	calls := 0
	populateWrite = func(b []byte) error {
		if calls++; calls == 5 {
			return syscall.EFAULT
		}
		return unix.Madvise(b, unix.MADV_POPULATE_WRITE)
	}
	dir := filepath.Join(t.TempDir(), "thread_1")
	tw, err := CreateThread(dir, 1, WithMmapOutput(true))
	if err != nil || tw.index.m == nil {
		t.Fatalf("not mapped: %v", err)
	}
	n, err := writeUntilError(t, tw, 1<<20)
	if !errors.Is(err, syscall.EFAULT) || !strings.Contains(err.Error(), "MADV_POPULATE_WRITE") {
		t.Fatalf("error %v", err)
	}
	// The file was populated to 64 KiB at creation (then cut to the header
	// and the live footer until the first event), to 64, 128 and 256 KiB
	// by the events; the growth to 512 KiB failed: the events that fit 256
	// KiB with the live footer after them.
	if want := uint64((256<<10 - HeaderSize - FooterSize) / IndexEventSize); n != want {
		t.Fatalf("failed after %d events, want %d", n, want)
	}
	if err := tw.Close(); !errors.Is(err, syscall.EFAULT) {
		t.Fatalf("Close: %v", err)
	}
	checkPrefixOnFile(t, dir, n)
}

// TestMmapOutputWithoutPopulate: a kernel without MADV_POPULATE_WRITE
// (before Linux 5.14) has nothing to turn a full disk into an error instead
// of a SIGBUS, so the option falls back to write(2); the file is the same.
func TestMmapOutputWithoutPopulate(t *testing.T) {
	defer func(p func([]byte) error) { populateWrite = p }(populateWrite)
	populateWrite = func([]byte) error { return syscall.EINVAL }
	dir := t.TempDir()
	opts := []WriterOption{WithArch(ArchX86_64), WithOS(OSLinux)}
	plen := func(i uint64) int { return int(i % 3) }
	writeMappedStream(t, filepath.Join(dir, "plain"), 5000, plen, opts...)
	if _, mapped := writeMappedStream(t, filepath.Join(dir, "opt"), 5000, plen, append(opts, WithMmapOutput(true))...); mapped {
		t.Fatal("mapped without MADV_POPULATE_WRITE")
	}
	for _, name := range []string{"index.atf", "detail.atf"} {
		a, _ := os.ReadFile(filepath.Join(dir, "plain", name))
		b, _ := os.ReadFile(filepath.Join(dir, "opt", name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Fatalf("%s: %d and %d bytes, not identical", name, len(a), len(b))
		}
	}
}

// TestMmapOutputWriteBehind: the pages the writer has finished are handed
// to writeBehind twice (once to start their writeback, once to drop them),
// in order, never the first 2 MiB (the live header) and never a page past
// the events already written.
func TestMmapOutputWriteBehind(t *testing.T) {
	defer func(w func(*os.File, int64, int64)) { writeBehind = w }(writeBehind)
	type call struct{ from, to, written int64 }
	var calls []call
	var tw *ThreadWriter
	writeBehind = func(f *os.File, from, to int64) {
		calls = append(calls, call{from, to, tw.index.written})
	}
	dir := filepath.Join(t.TempDir(), "thread_1")
	tw, err := CreateThread(dir, 1, WithMmapOutput(true))
	if err != nil || tw.index.m == nil {
		t.Fatalf("not mapped: %v", err)
	}
	const n = 1_500_000 // 48 MB: growths to 4, 8, 16, 32 and 48 MiB release pages
	for i := range uint64(n) {
		if _, err := tw.Write(i, 1, KindCall, 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if len(calls) < 3 {
		t.Fatalf("%d calls: %v", len(calls), calls)
	}
	// Call i gets [the start of call i-1's new pages, its own end): the
	// pages new at call i-1 a second time (to drop them), its own new
	// pages [end of call i-1, end) a first time (to write them).
	for i, c := range calls {
		from, prevEnd := int64(mapKeep), int64(mapKeep)
		if i >= 2 {
			from = calls[i-2].to
		}
		if i >= 1 {
			prevEnd = calls[i-1].to
		}
		if c.from != from || c.to <= prevEnd || c.to > c.written || c.to%mapKeep != 0 {
			t.Fatalf("call %d: %+v, want from %d, to past %d and at most the %d bytes written", i, c, from, prevEnd, c.written)
		}
	}
	checkPrefixOnFile(t, dir, n)
}

// TestMmapOutputFullDisk writes into ATF_MMAP_FULL_DIR, a directory on a
// small file system (a tmpfs or ext4 of a few MiB, mounted by whoever runs
// the test), until the disk is full: the error says so (ENOSPC), nothing
// is a SIGBUS, and every event written before it is on file after Close.
func TestMmapOutputFullDisk(t *testing.T) {
	root := os.Getenv("ATF_MMAP_FULL_DIR")
	if root == "" {
		t.Skip("ATF_MMAP_FULL_DIR (a directory on a small file system) not set")
	}
	dir, err := os.MkdirTemp(root, "full")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tw, err := CreateThread(filepath.Join(dir, "thread_1"), 1, WithMmapOutput(true))
	if err != nil || tw.index.m == nil {
		t.Fatalf("not mapped: %v", err)
	}
	n, err := writeUntilError(t, tw, 1<<40)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("after %d events: %v", n, err)
	}
	t.Logf("after %d events: %v", n, err)
	if err := tw.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close: %v", err)
	}
	checkPrefixOnFile(t, filepath.Join(dir, "thread_1"), n)
}

func mmapFileSizeChild(dir string) {
	lim := syscall.Rlimit{Cur: 1 << 20, Max: 1 << 20}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(3)
	}
	tw, err := CreateThread(filepath.Join(dir, "thread_1"), 1, WithMmapOutput(true))
	if err != nil || tw.index.m == nil {
		fmt.Println("create:", err)
		os.Exit(3)
	}
	var n uint64
	for ; n < 1<<20; n++ {
		if _, err = tw.Write(n, 1, KindCall, 0, nil); err != nil {
			break
		}
	}
	if err == nil {
		fmt.Println("no error past the file size limit")
		os.Exit(4)
	}
	if _, err2 := tw.Write(n, 1, KindCall, 0, nil); err2 == nil {
		fmt.Println("error not sticky")
		os.Exit(4)
	}
	cerr := tw.Close()
	fmt.Printf("failed after %d events: %v (close: %v)\n", n, err, cerr)
	os.Exit(0)
}

// mmapCrashChild writes crashEvent's stream with WithMmapOutput: with
// ATF_CRASH_BOUND set, that many events to each of two threads of a
// session, then "ready" and a wait to be killed; else to one thread until
// it is killed.
func mmapCrashChild(dir string) {
	if s := os.Getenv("ATF_CRASH_BOUND"); s != "" {
		n, _ := strconv.ParseUint(s, 10, 64)
		sw, err := CreateSessionDir(dir, WithMmapOutput(true))
		if err != nil {
			os.Exit(3)
		}
		payload := make([]byte, 64)
		for k := range uint32(2) {
			tw, err := sw.Thread(k)
			if err != nil || tw.index.m == nil {
				os.Exit(3)
			}
			for i := range n {
				if writeCrashEvent(tw, i, payload) != nil {
					os.Exit(4)
				}
			}
		}
		fmt.Println("ready")
		time.Sleep(time.Minute)
		os.Exit(5)
	}
	tw, err := CreateThread(dir, 5, WithMmapOutput(true))
	if err != nil || tw.index.m == nil {
		os.Exit(3)
	}
	writeCrashStream(tw)
}

// TestMmapOutputCrash kills (SIGKILL) processes writing with
// WithMmapOutput. Killed after their last Write returned, they lose
// nothing: every event of both threads is on file with its detail record,
// whatever WithFlushEvery says, and none after it (killed before the
// first event, no events). Killed at a random moment while writing, the
// files hold a prefix of the stream with the right contents, nothing
// torn, and the only detail record that may miss is that of the event
// being written. With ATF_RUST_REF (checkMappedCrash) the reference Rust
// reader reads the same events from each killed file, except after a
// kill inside putMapped's three-store window, where it is checked to
// count the zero tail.
func TestMmapOutputCrash(t *testing.T) {
	if dir := os.Getenv("ATF_MMAP_CRASH_DIR"); dir != "" {
		mmapCrashChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, n := range []uint64{0, 1, 100, 1000, 70_000} {
		dir := t.TempDir()
		cmd := exec.Command(exe, "-test.run=^TestMmapOutputCrash$")
		cmd.Env = append(os.Environ(), "ATF_MMAP_CRASH_DIR="+dir, "ATF_CRASH_BOUND="+strconv.FormatUint(n, 10))
		killWhenReady(t, cmd, fmt.Sprintf("%d events", n))
		for k := range 2 {
			got, dangling := checkMappedCrash(t, fmt.Sprintf("%d events, thread %d", n, k), filepath.Join(dir, "thread_"+strconv.Itoa(k)), uint32(k))
			if got != n || dangling != 0 {
				t.Errorf("%d events written, thread %d: %d on file, %d dangling links", n, k, got, dangling)
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	for round := range 4 {
		dir := filepath.Join(t.TempDir(), "thread_5")
		cmd := exec.Command(exe, "-test.run=^TestMmapOutputCrash$")
		cmd.Env = append(os.Environ(), "ATF_MMAP_CRASH_DIR="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
			if fi, err := os.Stat(filepath.Join(dir, "detail.atf")); err == nil && fi.Size() > 0 {
				break
			}
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		got, dangling := checkMappedCrash(t, fmt.Sprintf("round %d", round), dir, 5)
		if got == 0 || dangling > 1 {
			t.Errorf("round %d: %d events, %d dangling links", round, got, dangling)
		}
	}
}

// checkMappedCrash checks a thread a mapped writer left when it was
// killed: the index holds events 0..n-1 of crashEvent's stream exactly,
// its header's footer_offset says so, the live footer after the events
// says so too (unless the kill came while the next event's first half was
// being stored: its magic is then broken and footer_offset bounds the
// events), and nothing but zeros follows the 96 bytes there (nothing
// written was dropped); the detail records are those of the events that
// have one, in order, with their payloads. With the reference Rust
// reader's driver in ATF_RUST_REF, that reads the same events from the
// file (checkRustReads). It returns n and the dangling links.
func checkMappedCrash(t *testing.T, name, dir string, threadID uint32) (uint64, uint64) {
	t.Helper()
	ib, err := os.ReadFile(filepath.Join(dir, "index.atf"))
	if err != nil {
		t.Fatal(err)
	}
	th, err := OpenThread(dir)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer th.Close()
	n := th.Index.Len()
	end := HeaderSize + n*IndexEventSize
	f, hasFooter := th.Index.Footer()
	if fo := binary.LittleEndian.Uint64(ib[40:]); fo != end && (n > 0 || fo != HeaderSize) || hasFooter == th.Index.Recovered() {
		t.Fatalf("%s: recovered %v, footer %v, footer_offset %d, %d events", name, th.Index.Recovered(), hasFooter, fo, n)
	}
	if hasFooter && (f.EventCount != n || f.BytesWritten != n*IndexEventSize || th.Index.footerAt != int64(end)) {
		t.Fatalf("%s: live footer %+v at %d, %d events", name, f, th.Index.footerAt, n)
	}
	// The footer's time range is the events' unless the next event's
	// second half was being stored over it.
	if rest := ib[end+FooterSize:]; hasFooter && bytes.Equal(rest, make([]byte, len(rest))) && n > 0 {
		first, _, _, _, _ := crashEvent(0)
		last, _, _, _, _ := crashEvent(n - 1)
		if f.TimeStartNs != first || f.TimeEndNs != last {
			t.Fatalf("%s: live footer time range %d..%d, want %d..%d", name, f.TimeStartNs, f.TimeEndNs, first, last)
		}
	}
	// TimeRange is the events' whatever the footer's says (a torn one is
	// ignored).
	if a, z, ok := th.Index.TimeRange(); n > 0 {
		first, _, _, _, _ := crashEvent(0)
		last, _, _, _, _ := crashEvent(n - 1)
		if !ok || a != first || z != last {
			t.Fatalf("%s: TimeRange %d..%d (%v), want %d..%d", name, a, z, ok, first, last)
		}
	}
	if rest := ib[min(end+IndexEventSize+FooterSize, uint64(len(ib))):]; !bytes.Equal(rest, make([]byte, len(rest))) {
		t.Fatalf("%s: %d bytes after the events and the live footer, zeros expected (the zero tail of the last step)", name, len(rest))
	}
	if hasFooter || n == 0 {
		checkRustReads(t, name, filepath.Join(dir, "index.atf"), th.Index)
	} else {
		// Killed between the next event's first store and the header's
		// (putMapped): the live footer's magic is broken, footer_offset
		// bounds the events for this package, and the reference reader,
		// finding no footer, counts the file's 32-byte slots.
		checkRustCount(t, name, filepath.Join(dir, "index.atf"), (uint64(len(ib))-HeaderSize)/IndexEventSize)
		t.Logf("%s: killed while the live footer moved: the Rust reader counts the zero tail", name)
	}
	var detailSeq uint32
	var linked uint64
	for seq, e := range numbered(th.Index.All(), t.Error) {
		ts, fn, kind, depth, pl := crashEvent(seq)
		want := IndexEvent{Timestamp: ts, FunctionID: fn, ThreadID: threadID, Kind: kind, CallDepth: depth, DetailSeq: NoDetail}
		if pl > 0 {
			want.DetailSeq = detailSeq
			detailSeq++
			linked++
		}
		if e != want {
			t.Fatalf("%s: event %d = %+v, want %+v", name, seq, e, want)
		}
	}
	checkCrashDetails(t, th, name)
	// checkNoOrphans, but the live header's time range is 0..0 (Close
	// patches it) and a kill between its two stores (footer_offset, then
	// event_count) leaves event_count one behind: header mismatches that
	// only say so. A kill while the next event's second half was being
	// stored over the live footer's time range (putMapped) is Check's to
	// explain: a discarded problem, no mismatch (TestTornLiveFooter).
	var dangling uint64
	ps, err := th.Check()
	if err != nil {
		t.Fatalf("%s: Check: %v", name, err)
	}
	for _, p := range ps {
		switch {
		case p.Kind == ProblemHeaderMismatch && p.Offset == 48 && binary.LittleEndian.Uint64(ib[48:]) == 0:
		case p.Kind == ProblemHeaderMismatch && p.Offset == 28 && uint64(binary.LittleEndian.Uint32(ib[28:]))+1 == n:
		case p.Kind == ProblemOrphanDetail, p.Kind == ProblemBrokenLink, p.Kind == ProblemHeaderMismatch:
			t.Errorf("%s: %v", name, p)
		case p.Kind == ProblemDanglingLink:
			dangling += p.Events
		case p.Kind == ProblemDiscarded && p.Offset == int64(end)+16:
			t.Logf("%s: %v", name, p) // the torn live footer time range
		}
	}
	if th.DetailLen()+dangling != linked {
		t.Errorf("%s: %d detail records + %d dangling, %d linked index events", name, th.DetailLen(), dangling, linked)
	}
	t.Logf("%s: index %d bytes → %d events; %d detail records, %d dangling", name, len(ib), n, th.DetailLen(), dangling)
	return n, dangling
}

// checkRustReads runs the reference Rust reader's bench driver (its path
// in ATF_RUST_REF: atfref, built by ../shared/bench/refs/atf/build.sh) on
// the index file path and checks that it reads the events ix reads: their
// number and the sums of their fields it prints. Skipped without it.
func checkRustReads(t *testing.T, name, path string, ix *IndexFile) {
	t.Helper()
	out := rustIterIndex(t, name, path)
	if out == "" {
		return
	}
	var n, sts, sfid, smisc uint64
	for _, e := range numbered(ix.All(), t.Error) {
		n++
		sts += e.Timestamp
		sfid += e.FunctionID
		smisc += uint64(e.Kind) + uint64(e.CallDepth) + uint64(e.DetailSeq) + uint64(e.ThreadID)
	}
	want := fmt.Sprintf(" n=%d sum_ts=%d sum_fid=%d sum_misc=%d ", n, sts, sfid, smisc)
	if !strings.Contains(out, want) {
		t.Errorf("%s: the Rust reader read %q, this package%s", name, strings.TrimSpace(out), want)
	}
}

// checkRustCount checks that the reference Rust reader's driver counts n
// events in the index file path (skipped without ATF_RUST_REF).
func checkRustCount(t *testing.T, name, path string, n uint64) {
	t.Helper()
	if out := rustIterIndex(t, name, path); out != "" && !strings.Contains(out, fmt.Sprintf(" n=%d ", n)) {
		t.Errorf("%s: the Rust reader read %q, want n=%d", name, strings.TrimSpace(out), n)
	}
}

// rustIterIndex is the output of the reference Rust reader's driver
// (ATF_RUST_REF) iterating the index file path, "" without it.
func rustIterIndex(t *testing.T, name, path string) string {
	t.Helper()
	ref := os.Getenv("ATF_RUST_REF")
	if ref == "" {
		return ""
	}
	out, err := exec.Command(ref, "iter-index", path).Output()
	if err != nil {
		t.Fatalf("%s: %s iter-index: %v", name, ref, err)
	}
	return string(out)
}

// TestMmapOutputDetailGrowthFails: when a detail record cannot be stored
// (its file's growth fails), the ThreadWriter takes back the index event
// that would link to it: in a mapped index file the live footer goes back
// over the event, so the file holds the events before it — as read by a
// crash right then (a copy of the file, for this package's readers and
// the Rust reader) and after Close.
func TestMmapOutputDetailGrowthFails(t *testing.T) {
	defer func(p func([]byte) error) { populateWrite = p }(populateWrite)
	calls := 0
	populateWrite = func(b []byte) error {
		// 1: the index file's creation, 2: the detail file's, 3: the index
		// file's first event, 4: the detail file past 64 KiB.
		if calls++; calls == 4 {
			return syscall.EFAULT
		}
		return unix.Madvise(b, unix.MADV_POPULATE_WRITE)
	}
	dir := filepath.Join(t.TempDir(), "thread_2")
	tw, err := CreateThread(dir, 2, WithMmapOutput(true))
	if err != nil || tw.index.m == nil {
		t.Fatalf("not mapped: %v", err)
	}
	payload := make([]byte, 4000)
	var n uint64
	for ; n < 100; n++ {
		if _, err = tw.Write(n, 1, KindCall, 0, payload); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.EFAULT) || tw.detail.m == nil || n != (64<<10-HeaderSize)/(DetailEventHeaderSize+4000) || tw.index.Count() != n {
		t.Fatalf("after %d events (%d in the index): %v", n, tw.index.Count(), err)
	}
	crashed := filepath.Join(t.TempDir(), "thread_2")
	if err := os.MkdirAll(crashed, 0o755); err != nil {
		t.Fatal(err)
	}
	ib, err := os.ReadFile(filepath.Join(dir, "index.atf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(crashed, "index.atf"), ib, 0o644); err != nil {
		t.Fatal(err)
	}
	checkPrefixOnFile(t, crashed, n)
	ix, err := OpenIndexBytes(ib)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := ix.Footer(); !ok || f.EventCount != n {
		t.Fatalf("live footer %+v (valid %v), %d events", f, ok, n)
	}
	if rest := ib[HeaderSize+n*IndexEventSize+FooterSize:]; !bytes.Equal(rest, make([]byte, len(rest))) {
		t.Fatal("bytes of the dropped event left after the live footer")
	}
	if err := tw.Close(); !errors.Is(err, syscall.EFAULT) {
		t.Fatalf("Close: %v", err)
	}
	checkPrefixOnFile(t, dir, n)
}
