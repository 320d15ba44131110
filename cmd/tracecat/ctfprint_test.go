package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// writeLog records the writes to standard output.
type writeLog struct {
	bytes.Buffer
	sizes []int
	cut   int // writes that end inside a line
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	if len(p) > 0 && p[len(p)-1] != '\n' {
		w.cut++
	}
	return w.Buffer.Write(p)
}

// dump of a CTF trace hands its text to standard output in chunks of whole
// lines, ctfPrintChunk bytes or more each but the last (ctfPrint gathers
// the lines: one write a chunk, written through without a copy into the
// output buffer, which cut lines at its 64 KiB), and that text is
// Pretty's, line for line.
func TestCTFDumpChunks(t *testing.T) {
	dir := t.TempDir()
	if err := ctfgen.Write(dir, 6000, 2, 6, 4096); err != nil {
		t.Fatal(err)
	}
	var out writeLog
	var errb bytes.Buffer
	c := &cli{stdin: bytes.NewReader(nil), stdout: &out, stderr: &errb}
	if code := c.run([]string{"dump", dir}); code != exitOK {
		t.Fatalf("dump: exit %d: %s", code, errb.String())
	}
	tr, err := ctf.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var p ctf.Pretty
	var want []byte
	for r := tr.NewReader(); r.Next(); {
		want = p.Append(want, r.Event())
	}
	if !bytes.Equal(out.Bytes(), want) || strings.Count(out.String(), "\n") != 6000 {
		t.Fatalf("dump printed %d bytes, %d lines; Pretty %d bytes", out.Len(), strings.Count(out.String(), "\n"), len(want))
	}
	if len(out.sizes) < 4 || out.cut != 0 {
		t.Errorf("%d writes of %v bytes, %d of them ending inside a line; want ≥ 4, of whole lines", len(out.sizes), out.sizes, out.cut)
	}
	for i, n := range out.sizes[:len(out.sizes)-1] {
		if n < ctfPrintChunk {
			t.Errorf("write %d of %d bytes (of %v): want ≥ %d", i, n, out.sizes, ctfPrintChunk)
		}
	}
}
