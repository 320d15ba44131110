package atf

import (
	"fmt"
	"io"
	"os"
)

// OpenIndexFile opens the index file at path (see OpenIndex). Only a regular
// file is read: a device, FIFO, socket or folder is refused with an error
// naming the path and wrapping ErrNotRegular. The caller closes the file.
func OpenIndexFile(path string, opts ...ReaderOption) (*IndexFile, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	r, err := OpenIndex(f, size, opts...)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// OpenDetailFile opens the detail file at path (see OpenDetail); only a
// regular file is read, as with OpenIndexFile. The caller closes the file.
func OpenDetailFile(path string, opts ...ReaderOption) (*DetailFile, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	d, err := OpenDetail(f, size, opts...)
	if err != nil {
		f.Close()
		return nil, err
	}
	d.closer = f
	return d, nil
}

// Close closes the file OpenIndexFile opened; for an IndexFile opened over
// an io.ReaderAt or bytes it does nothing. Closing twice is harmless.
func (r *IndexFile) Close() error { return closeOnce(&r.closer) }

// Close closes the file OpenDetailFile opened; for a DetailFile opened over
// an io.ReaderAt or bytes it does nothing. Closing twice is harmless.
func (d *DetailFile) Close() error { return closeOnce(&d.closer) }

func closeOnce(c *io.Closer) error {
	if *c == nil {
		return nil
	}
	err := (*c).Close()
	*c = nil
	return err
}

// openRegular opens path for reading if it is a regular file (after
// following symbolic links), and returns it with its size. The mode is
// checked before opening, so a FIFO never blocks the open, and again on the
// open file, so a file swapped in between is caught too.
func openRegular(path string) (*os.File, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, notRegular(path, fi)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, 0, err
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, notRegular(path, fi)
	}
	return f, fi.Size(), nil
}

func notRegular(path string, fi os.FileInfo) error {
	kind := "special file"
	switch m := fi.Mode(); {
	case m.IsDir():
		kind = "folder"
	case m&os.ModeNamedPipe != 0:
		kind = "FIFO"
	case m&os.ModeSocket != 0:
		kind = "socket"
	case m&os.ModeCharDevice != 0:
		kind = "character device"
	case m&os.ModeDevice != 0:
		kind = "device"
	}
	return fmt.Errorf("%s is a %s: %w", path, kind, ErrNotRegular)
}
