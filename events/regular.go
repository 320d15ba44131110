package events

import (
	"fmt"
	"io"
	"os"
)

// openRegular opens path for reading if it is a regular file (symbolic links
// followed) and refuses anything else by name: a FIFO would block the open or
// the read forever, a device such as /dev/zero never ends.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("events: %s is not a regular file", path)
	}
	return os.Open(path)
}

// readRegular reads at most max bytes of the regular file at path; a larger
// file reads as its first max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}
