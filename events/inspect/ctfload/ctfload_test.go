package ctfload_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect/ctfload"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// source is the file at path as tracecat hands it to ctfload.
func source(t *testing.T, path string) ctfload.Source {
	t.Helper()
	d, err := events.Detect(path)
	if err != nil {
		t.Fatal(err)
	}
	return ctfload.Source{Path: path, Variant: d.Variant, Bytes: func() ([]byte, error) { return os.ReadFile(path) }}
}

// TestCTFReadOnlyRegularMetadata: the metadata file of a trace folder is read
// only when it is a regular file (a link to /dev/zero would grow without
// bound).
func TestCTFReadOnlyRegularMetadata(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "metadata")); err != nil {
		t.Skip(err)
	}
	_, err := ctfload.Read(ctfload.Source{Path: dir, IsDir: true})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "metadata")+": not a regular file") {
		t.Fatalf("got %v", err)
	}
}

// TestCTFLoadStreamedMatchesLoad: validate's streamed load of a plain CTF 2
// metadata file (LoadStreamed) reports what Load, which reads the file
// whole, reports — fragments, leading whitespace, bytes, recovery, the
// error — on every CTF vector and on cut copies of each plain CTF 2 one; it
// declines (streamed false) what it does not stream.
func TestCTFLoadStreamedMatchesLoad(t *testing.T) {
	dir := vectortest.Dir(t, "ctf")
	var paths []string
	filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() && de.Name() == "metadata" {
			paths = append(paths, p)
		}
		return nil
	})
	tmp := t.TempDir()
	streamedAny := 0
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases := []string{p}
		if ctfload.IsJSON(b) {
			for _, n := range []int{len(b) / 3, len(b) / 2, len(b) - 1} {
				c := filepath.Join(tmp, fmt.Sprintf("%d-%d", i, n))
				if err := os.WriteFile(c, b[:n], 0o644); err != nil {
					t.Fatal(err)
				}
				cases = append(cases, c)
			}
		}
		for _, c := range cases {
			in1 := source(t, c)
			in2 := in1
			m1, err1 := ctfload.Load(in1)
			m2, streamed, err2 := ctfload.LoadStreamed(in2)
			if !streamed {
				if ctfload.IsJSON(b) && ctf2meta.Detect(b) != ctf2meta.KindPacketized {
					t.Errorf("%s: plain CTF 2 not streamed", c)
				}
				continue
			}
			streamedAny++
			if fmt.Sprint(err1) != fmt.Sprint(err2) {
				t.Errorf("%s: Load error %v, streamed %v", c, err1, err2)
				continue
			}
			if err1 != nil {
				continue
			}
			if len(m1.Meta.Fragments) != len(m2.Meta.Fragments) || m1.Leading != m2.Leading || m1.Size != m2.Size ||
				fmt.Sprint(m1.Warnings()) != fmt.Sprint(m2.Warnings()) || fmt.Sprint(*m1.Recovery()) != fmt.Sprint(*m2.Recovery()) {
				t.Errorf("%s: Load %d fragments, %d leading, %d bytes, %v, %v; streamed %d, %d, %d, %v, %v", c,
					len(m1.Meta.Fragments), m1.Leading, m1.Size, m1.Warnings(), *m1.Recovery(),
					len(m2.Meta.Fragments), m2.Leading, m2.Size, m2.Warnings(), *m2.Recovery())
			}
		}
	}
	if streamedAny == 0 {
		t.Fatal("no plain CTF 2 metadata among the vectors")
	}
}
