package atf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenFileFormsAndClose(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "thread_2")
	tw, err := CreateThread(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		var p []byte
		if i%3 == 0 {
			p = []byte{byte(i), 1, 2}
		}
		if _, err := tw.Write(uint64(i*10), 5, KindCall, 1, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenIndexFile(filepath.Join(dir, "index.atf"))
	if err != nil {
		t.Fatal(err)
	}
	dt, err := OpenDetailFile(filepath.Join(dir, "detail.atf"))
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 10 || dt.Len() != 4 || ix.Recovered() || dt.Recovered() {
		t.Fatalf("%d index, %d detail events", ix.Len(), dt.Len())
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := dt.Close(); err != nil {
		t.Fatal(err)
	}
	// A closed file fails reads cleanly.
	if _, err := ix.Event(3); err == nil {
		t.Fatal("Event after Close succeeded")
	}
	// Files opened over memory have nothing to close.
	b, _ := os.ReadFile(filepath.Join(dir, "index.atf"))
	mem, err := OpenIndexBytes(b)
	if err != nil || mem.Close() != nil {
		t.Fatal(err)
	}
}

func TestOpenFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "index.atf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for name, open := range map[string]func(string) error{
		"index":  func(p string) error { _, err := OpenIndexFile(p); return err },
		"detail": func(p string) error { _, err := OpenDetailFile(p); return err },
	} {
		for _, p := range []string{fifo, dir, "/dev/zero"} {
			err := open(p)
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s %s: %v, want ErrNotRegular", name, p, err)
			} else if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error %q does not name the path", name, err)
			}
		}
	}
}

func TestWritersAfterClose(t *testing.T) {
	var f memFile
	iw, _ := NewIndexWriter(&f, 1)
	if len(f.b) != HeaderSize {
		t.Fatalf("header not on file at creation: %d bytes", len(f.b))
	}
	if err := iw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := iw.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := iw.Append(IndexEvent{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	if err := iw.Flush(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Flush after Close: %v", err)
	}
	var d memFile
	dw, _ := NewDetailWriter(&d, 1)
	dw.Close()
	if err := dw.Flush(); !errors.Is(err, ErrClosed) {
		t.Fatalf("detail Flush after Close: %v", err)
	}
	sw, err := CreateSessionDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tw, _ := sw.Thread(0)
	tw.Write(1, 2, KindCall, 0, nil)
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(sw.Dir(), "thread_0", "index.atf")); err != nil || fi.Size() != HeaderSize+IndexEventSize {
		t.Fatalf("after SessionWriter.Flush: %v %v", fi, err)
	}
	sw.Close()
	if err := sw.Flush(); !errors.Is(err, ErrClosed) {
		t.Fatalf("session Flush after Close: %v", err)
	}
	if err := tw.Flush(); !errors.Is(err, ErrClosed) {
		t.Fatalf("thread Flush after Close: %v", err)
	}
}

func TestMergerWithoutCurrentEvent(t *testing.T) {
	idx, _ := writeThread(t, 3, 1, func(i int) uint64 { return uint64(i) })
	r, err := OpenIndexBytes(idx.b)
	if err != nil {
		t.Fatal(err)
	}
	for _, files := range [][]*IndexFile{nil, {nil}, {nil, r}} {
		m := NewMerger(files)
		if m.Event() != (MergedEvent{}) || m.Thread() != -1 || m.Seq() != 0 {
			t.Errorf("before Next: %+v %d %d", m.Event(), m.Thread(), m.Seq())
		}
		n := 0
		for m.Next() {
			if e := m.Event(); e.Thread != 1 || e.Seq != uint64(n) || e.Timestamp != uint64(n) {
				t.Errorf("event %d: %+v", n, e)
			}
			n++
		}
		if m.Event() != (MergedEvent{}) || m.Thread() != -1 {
			t.Errorf("after the end: %+v", m.Event())
		}
	}
}

func TestProblemStrings(t *testing.T) {
	p := Problem{Kind: ProblemDanglingLink, Path: "thread_1/index.atf", Offset: 92, Events: 2, Msg: "2 index events link to nothing"}
	if got := p.String(); got != "thread_1/index.atf: offset 92: 2 index events link to nothing (dangling-link)" {
		t.Errorf("%q", got)
	}
	p = Problem{Kind: ProblemNoManifest, Offset: -1, Msg: "no manifest"}
	if got := p.String(); got != "no manifest (no-manifest)" {
		t.Errorf("%q", got)
	}
	for k := ProblemNoFooter; k <= ProblemLinkOutside; k++ {
		if s := k.String(); strings.HasPrefix(s, "problem(") {
			t.Errorf("kind %d has no name", k)
		}
	}
	if s := ProblemKind(200).String(); s != "problem(200)" {
		t.Errorf("%q", s)
	}
}
