package atf

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// mappedRss is the Rss, in kB, that /proc/self/smaps reports for the
// mapping that starts at b's first byte.
func mappedRss(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if k, _, _ := strings.Cut(line, " "); !strings.HasSuffix(k, ":") { // a mapping's first line
			in = strings.HasPrefix(line, start)
		}
		if v, ok := strings.CutPrefix(line, "Rss:"); in && ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatalf("smaps: %q", line)
			}
			return n
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return 0
}

// TestPopulateMapping: a mapped file's pages are all mapped after
// populateMapping, before anything reads them (the detail files' open scan
// then takes no page fault); a file truncated under the mapping leaves the
// call harmless (it reports nothing and faults nothing).
func TestPopulateMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	const size = 1 << 20
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	src, c, err := openFileSource(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if src.data == nil {
		t.Skip("not mapped here")
	}
	if rss := mappedRss(t, src.data); rss != 0 {
		t.Fatalf("Rss %d kB before populating, want 0", rss)
	}
	populateMapping(c)
	if rss := mappedRss(t, src.data); rss != size>>10 {
		t.Fatalf("Rss %d kB after populating, want %d", rss, size>>10)
	}
	populateMapping(nil)                                     // not a mapping: nothing
	populateMapping(closerFunc(func() error { return nil })) // nor this
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	populateMapping(c) // pages past the end: an error, ignored, no SIGBUS
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// TestPopulateMappedDetail: a detail file opened mapped (OpenDetailFile,
// OpenThread) has every page mapped after the open, although its scan
// reads only the records' headers (here 4 records of 256 KiB: without the
// populate, the scan's faults map a few pages around each header).
func TestPopulateMappedDetail(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "thread_0")
	tw, err := CreateThread(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := tw.Write(uint64(i), 1, KindCall, 0, make([]byte, 256<<10)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "detail.atf")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	want := int((fi.Size() + 4095) >> 12 << 2)
	d, err := OpenDetailFile(path, WithMmap(true))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	th, err := OpenThread(dir, WithMmap(true))
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	for name, d := range map[string]*DetailFile{"OpenDetailFile": d, "OpenThread": th.Detail} {
		if d.src.data == nil {
			t.Skipf("%s: not mapped here", name)
		}
		if rss := mappedRss(t, d.src.data); rss != want {
			t.Errorf("%s: Rss %d kB after the open, want %d (the whole file)", name, rss, want)
		}
	}
}
