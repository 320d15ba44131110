//go:build unix

package atf

import (
	"io/fs"
	"syscall"
)

// openNonblock keeps an open from waiting for a FIFO's writer (a file that
// turns into one between the check and the open); it changes nothing for
// regular files.
const openNonblock = syscall.O_NONBLOCK

// fileKey identifies a file on this system: device and inode.
type fileKey struct{ dev, ino uint64 }

func fileKeyOf(fi fs.FileInfo) (fileKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), uint64(st.Ino)}, true //nolint:unconvert // Dev is not uint64 everywhere
}
