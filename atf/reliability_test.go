package atf

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The classes of issue 21 that reach ATF, generated here: each is read
// within the budget, and what is not read is reported.

// A manifest of 2 M empty symbol objects (6 MB): the first symbol has no
// function_id, and the error comes before the rest of the array costs
// anything (decoding the whole array first took 547 MB).
func TestHostileManifestSymbols(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 6 MB manifest")
	}
	const n = 2_000_000
	var b bytes.Buffer
	b.WriteString(`{"threads":[],"symbols":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("{}")
	}
	b.WriteString("]}")
	data := b.Bytes()
	dir := filepath.Join(t.TempDir(), "pid_1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("TRACECODEC_WRITE_HOSTILE"); out != "" {
		os.MkdirAll(filepath.Join(out, "manifest_symbols", "pid_1"), 0o755)
		os.WriteFile(filepath.Join(out, "manifest_symbols", "pid_1", "manifest.json"), data, 0o644)
	}
	budget := uint64(64*len(data) + 16<<20)
	err := bounded(t, "2M empty symbols", 20*time.Second, budget, func() error {
		_, err := OpenSession(dir)
		return err
	})
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("got %v, want ErrCorrupt for symbol 0", err)
	}
	// Valid symbols are all kept.
	m, err := ParseManifest([]byte(`{"threads":[],"symbols":[{"function_id":"0x100000002","name":"a"},{"function_id":7,"module_id":1,"symbol_index":7}]}`))
	if err != nil || len(m.Symbols) != 2 || m.Symbols[0].FunctionID != 0x100000002 || m.Symbols[0].Name != "a" || m.Symbols[1].ModuleID != 1 {
		t.Errorf("ParseManifest: %+v, %v", m, err)
	}
	if m, err := ParseManifest([]byte(`{"threads":[],"symbols":[{"function_id":1},{"function_id":2}],"symbols":[{"function_id":3}]}`)); err != nil || len(m.Symbols) != 1 || m.Symbols[0].FunctionID != 3 {
		t.Errorf("a repeated symbols key: %+v, %v, want the last list", m, err)
	}
	if _, err := ParseManifest([]byte(`{"threads":[],"symbols":{}}`)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("symbols not an array: got %v, want ErrCorrupt", err)
	}
}

// twoThreadSession writes a finished session of threads 0 and 1, two
// events each, and returns its folder.
func twoThreadSession(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pid_1")
	sw, err := CreateSessionDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for id := range uint32(2) {
		tw, err := sw.Thread(id)
		if err != nil {
			t.Fatal(err)
		}
		tw.Write(uint64(10+id), 2, KindCall, 1, nil)
		tw.Write(uint64(20+id), 2, KindReturn, 1, nil)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func problemsByPath(t *testing.T, s *Session) map[string]ProblemKind {
	t.Helper()
	ps, err := s.Check()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ProblemKind{}
	for _, p := range ps {
		got[filepath.ToSlash(p.Path)] = p.Kind
		t.Log(p)
	}
	return got
}

// Folders named like thread folders that the session does not read — not
// the canonical thread_N, or not in manifest.json — are reported, and
// thread_00 is not read as thread_0 (a second time).
func TestStrayThreadFolders(t *testing.T) {
	for _, manifest := range []bool{true, false} {
		dir := twoThreadSession(t)
		if !manifest {
			os.Remove(filepath.Join(dir, "manifest.json"))
		}
		stray := []string{"thread_00", "thread_4294967296", "thread_-1", "thread_+1"}
		for _, name := range stray {
			if err := os.CopyFS(filepath.Join(dir, name), os.DirFS(filepath.Join(dir, "thread_0"))); err != nil {
				t.Fatal(err)
			}
		}
		if manifest { // a canonical folder the manifest does not list
			stray = append(stray, "thread_7")
			if err := os.CopyFS(filepath.Join(dir, "thread_7"), os.DirFS(filepath.Join(dir, "thread_1"))); err != nil {
				t.Fatal(err)
			}
		}
		s, err := OpenSession(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Threads) != 2 || s.EventCount() != 4 {
			t.Errorf("manifest %v: %d threads, %d events, want 2 and 4", manifest, len(s.Threads), s.EventCount())
		}
		got := problemsByPath(t, s)
		for _, name := range stray {
			if got[name] != ProblemStrayFolder {
				t.Errorf("manifest %v: %s: %v, want %v", manifest, name, got[name], ProblemStrayFolder)
			}
		}
		s.Close()
	}
	for name, ok := range map[string]bool{"thread_0": true, "thread_4294967295": true, "thread_00": false, "thread_+1": false, "thread_-1": false, "thread_4294967296": false, "thread_": false} {
		if _, got := threadDirID(name); got != ok {
			t.Errorf("threadDirID(%q) = %v, want %v", name, got, ok)
		}
	}
}

// thread_1/index.atf a hard link of thread_0/index.atf: read once, with a
// ProblemSameFile, not counted twice; the same for detail files.
func TestHardLinkedThreadFiles(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("hard links")
	}
	dir := twoThreadSession(t)
	for _, f := range []string{"index.atf", "detail.atf"} {
		os.Remove(filepath.Join(dir, "thread_1", f))
	}
	if err := os.Link(filepath.Join(dir, "thread_0", "index.atf"), filepath.Join(dir, "thread_1", "index.atf")); err != nil {
		t.Skip("no hard links here:", err)
	}
	s, err := OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Threads) != 1 || s.EventCount() != 2 {
		t.Errorf("%d threads, %d events, want 1 and 2", len(s.Threads), s.EventCount())
	}
	if got := problemsByPath(t, s); got["thread_1/index.atf"] != ProblemSameFile {
		t.Errorf("thread_1/index.atf: %v, want %v", got["thread_1/index.atf"], ProblemSameFile)
	}
}

// Timestamps 2^64−1, 0, 5, 3 in one thread: read exactly by this package,
// and the one past 2^63 — which int64-nanosecond outputs saturate — is
// reported by Check.
func TestTimestampsBeyondInt64(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "thread_0")
	tw, err := CreateThread(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range []uint64{1<<64 - 1, 0, 5, 3} {
		tw.Write(ts, 2, KindCall, 1, nil)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	th, err := OpenThread(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	var got []uint64
	for e, err := range th.Index.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Timestamp)
	}
	if len(got) != 4 || got[0] != 1<<64-1 || got[3] != 3 {
		t.Errorf("timestamps %v", got)
	}
	ps, err := th.Check()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := hasProblem(ps, ProblemTimeBeyondInt64)
	if !ok || p.Events != 1 || p.Offset != HeaderSize {
		t.Errorf("problems %v: want one %v event at offset %d", ps, ProblemTimeBeyondInt64, HeaderSize)
	}
}

// A manifest with invalid UTF-8, and one with 300 000 symbols for one
// function id: read as the reference reads them (U+FFFD; the first name
// wins), within the budget, and reported as ProblemManifest (validate
// warns, --strict fails) where they passed silently.
func TestManifestOddities(t *testing.T) {
	write := func(manifest []byte) string {
		dir := twoThreadSession(t)
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	threads := `{"threads":[{"id":0,"has_detail":false},{"id":1,"has_detail":false}]`
	var many bytes.Buffer
	many.WriteString(threads + `,"symbols":[`)
	const n = 300_000
	for i := range n {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"function_id":"0x2","name":"f%d"}`, i)
	}
	many.WriteString("]}")
	for _, c := range []struct {
		name     string
		manifest []byte
		off      int64
		events   uint64
		says     string
	}{
		{"invalid UTF-8", []byte(threads + `,"symbols":[{"function_id":2,"name":"a` + "\xff" + `b"}]}`), int64(len(threads)) + 38, 0, "invalid UTF-8"},
		{"300000 symbols for one id", many.Bytes(), -1, n - 1, "299999 symbols name a function id an earlier symbol names (the first is 0x2)"},
	} {
		dir := write(c.manifest)
		var s *Session
		err := bounded(t, c.name, 20*time.Second, uint64(64*len(c.manifest)+16<<20), func() (err error) {
			s, err = OpenSession(dir)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p, ok := hasProblem(s.Problems(), ProblemManifest)
		if !ok || p.Offset != c.off || p.Events != c.events || !strings.Contains(p.Msg, c.says) {
			t.Errorf("%s: problems %v, want %v at %d saying %q", c.name, s.Problems(), ProblemManifest, c.off, c.says)
		}
		if names := s.Manifest.SymbolNames(); c.events > 0 && names[2] != "f0" {
			t.Errorf("%s: symbol 2 is %q, want the first name f0", c.name, names[2])
		}
		s.Close()
	}
	// The writer's own manifest has no such problem.
	s, err := OpenSession(twoThreadSession(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if p, ok := hasProblem(s.Problems(), ProblemManifest); ok {
		t.Errorf("writer's manifest: %v", p)
	}
}
