package atf

import (
	"fmt"
	"io"
	"os"
)

// OpenIndexFile opens the index file at path (see OpenIndex). Only a regular
// file is read: a device, FIFO, socket or folder is refused with an error
// naming the path and wrapping ErrNotRegular. With WithMmap(true) the file
// is mapped into memory rather than read. The caller closes the file.
func OpenIndexFile(path string, opts ...ReaderOption) (*IndexFile, error) {
	o, err := buildReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	src, c, err := openFileSource(path, o.mmap)
	if err != nil {
		return nil, err
	}
	r, err := openIndex(src, opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	r.closer = c
	return r, nil
}

// OpenDetailFile opens the detail file at path (see OpenDetail); only a
// regular file is read, as with OpenIndexFile. With WithMmap(true) the file
// is mapped and every payload is a view of the mapping, valid until Close.
// The caller closes the file.
func OpenDetailFile(path string, opts ...ReaderOption) (*DetailFile, error) {
	o, err := buildReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	src, c, err := openFileSource(path, o.mmap)
	if err != nil {
		return nil, err
	}
	populateMapping(c)
	d, err := openDetail(src, opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	d.closer = c
	return d, nil
}

// Close closes the file OpenIndexFile opened (unmaps it, with WithMmap: the
// file's events and iterators must not be used afterwards; later reads fail
// with os.ErrClosed); for an IndexFile opened over an io.ReaderAt or bytes it
// does nothing. Closing twice is harmless.
func (r *IndexFile) Close() error { return closeSource(&r.src, &r.closer) }

// Close closes the file OpenDetailFile opened (unmaps it, with WithMmap:
// payloads and iterators of the file must not be used afterwards; later reads
// fail with os.ErrClosed); for a DetailFile opened over an io.ReaderAt or
// bytes it does nothing. Closing twice is harmless.
func (d *DetailFile) Close() error { return closeSource(&d.src, &d.closer) }

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
