//go:build unix

package atf

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only and shared: the pages are
// the page cache's, nothing is copied. The mapping outlives f's descriptor.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, errors.ErrUnsupported // nothing to map, or too large for this platform's int
	}
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

// unmapFile releases a mapping made by mapFile.
func unmapFile(b []byte) error { return unix.Munmap(b) }

// guardedFile is how a file opened by path without WithMmap is read: an
// io.ReaderAt that copies from a read-only mapping of the file instead of
// asking the kernel to copy (pread). The copy out of the page cache is the
// same, the system call and its per-page work are not: on the issue-15
// merge, a quarter less CPU. Unlike a mapped reader's views, the copy is
// guarded: a page the file no longer has (it was truncated after the open)
// is a fault that ReadAt catches (runtime/debug.SetPanicOnFault) instead of
// a SIGBUS that ends the process, and after every copy the file's size is
// checked (fstat), so a read of bytes that are gone — including the zeros a
// mapping shows between the new end and the end of its page — comes back
// short, as from pread, and the reader reports ErrTruncated.
type guardedFile struct {
	b  []byte
	f  *os.File
	fd int
}

// openGuarded maps f (of size bytes) for ReadAt; the guardedFile owns f.
func openGuarded(f *os.File, size int64) (*guardedFile, error) {
	b, err := mapFile(f, size)
	if err != nil {
		return nil, err
	}
	return &guardedFile{b: b, f: f, fd: int(f.Fd())}, nil
}

// ReadAt copies len(p) bytes from off; n < len(p) with io.ErrUnexpectedEOF
// when the file now ends before off+len(p).
func (g *guardedFile) ReadAt(p []byte, off int64) (int, error) {
	if g.b == nil {
		return 0, os.ErrClosed
	}
	if off < 0 || off > int64(len(g.b)) {
		return 0, fmt.Errorf("atf: read at %d outside the %d-byte mapping", off, len(g.b))
	}
	n, faulted := g.copyAt(p, off)
	var st unix.Stat_t
	if err := unix.Fstat(g.fd, &st); err != nil {
		return 0, err
	}
	if end := off + int64(n); st.Size < end {
		m := int(max(st.Size-off, 0))
		if faulted && m > 0 {
			// copy may have moved the bytes in any order and stopped
			// at the fault: copy what is still there again
			if _, again := g.copyAt(p[:m], off); again {
				return 0, io.ErrUnexpectedEOF
			}
		}
		return m, io.ErrUnexpectedEOF
	}
	if faulted { // the file is long enough: the page could not be read
		return 0, syscall.EIO
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// copyAt copies from the mapping at off into p, reporting a fault on the
// way (a page past the file's end, an I/O error) instead of crashing.
func (g *guardedFile) copyAt(p []byte, off int64) (n int, faulted bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r) // not a memory fault
			}
			n, faulted = len(p), true
		}
	}()
	return copy(p, g.b[off:]), false
}

// Close unmaps the file and closes it.
func (g *guardedFile) Close() error {
	b := g.b
	if b == nil {
		return nil
	}
	g.b = nil
	return errors.Join(unmapFile(b), g.f.Close())
}
