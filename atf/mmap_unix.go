//go:build unix

package atf

import (
	"errors"
	"os"

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
