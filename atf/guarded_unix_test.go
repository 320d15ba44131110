//go:build unix

package atf

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestGuardedFileReadsLikePread pins the default read path of files opened
// by path (guardedFile): it is what OpenIndexFile and OpenDetailFile use
// without WithMmap, it reads the file's bytes, and a file truncated under
// it — at a page boundary, inside a page, to nothing — gives short reads
// (io.ErrUnexpectedEOF, counted up to the new end) where pread would,
// never a crash and never the zeros a mapping shows past the end.
func TestGuardedFileReadsLikePread(t *testing.T) {
	page := os.Getpagesize()
	data := make([]byte, 3*page+100)
	for i := range data {
		data[i] = byte(i*7 + 1)
	}
	for _, cut := range []int{3 * page, 2*page + 10, page, 10, 0} {
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src, c, err := openFileSource(path, false)
		if err != nil {
			t.Fatal(err)
		}
		g, ok := c.(*guardedFile)
		if !ok {
			t.Fatalf("openFileSource without mmap gave %T, want *guardedFile", c)
		}
		p := make([]byte, len(data))
		if n, err := g.ReadAt(p, 0); n != len(data) || err != nil || !bytes.Equal(p, data) {
			t.Fatalf("ReadAt of the whole file: %d, %v", n, err)
		}
		if err := os.Truncate(path, int64(cut)); err != nil {
			t.Fatal(err)
		}
		for _, off := range []int{0, 5, page - 3, page, 2*page + 50, 3 * page} {
			q := make([]byte, len(data)-off)
			n, err := g.ReadAt(q, int64(off))
			want := max(cut-off, 0)
			if n != want || !errors.Is(err, io.ErrUnexpectedEOF) || !bytes.Equal(q[:n], data[off:off+n]) {
				t.Fatalf("cut %d, read at %d: %d bytes, %v; want %d bytes and io.ErrUnexpectedEOF", cut, off, n, err, want)
			}
			if rerr := src.readAt(q, int64(off)); !errors.Is(rerr, ErrTruncated) {
				t.Fatalf("cut %d, source read at %d: %v, want ErrTruncated", cut, off, rerr)
			}
		}
		if n, err := g.ReadAt(p[:cut], 0); n != cut || err != nil {
			t.Fatalf("cut %d: read of what is left: %d, %v", cut, n, err)
		}
		if err := closeSource(&src, &c); err != nil {
			t.Fatal(err)
		}
		if err := src.readAt(p[:1], 0); !errors.Is(err, os.ErrClosed) {
			t.Fatalf("read after Close: %v, want os.ErrClosed", err)
		}
		if n, err := g.ReadAt(p[:1], 0); n != 0 || !errors.Is(err, os.ErrClosed) {
			t.Fatalf("guardedFile.ReadAt after Close: %d, %v", n, err)
		}
	}
}
