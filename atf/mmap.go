package atf

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// WithMmap makes the functions that open paths — OpenIndexFile,
// OpenDetailFile, OpenThread, OpenSession — map each file read-only into
// memory (mmap on unix systems) instead of reading it through an
// io.ReaderAt. Index events are then decoded straight from the page cache
// and detail records are views of it: DetailFile.Event, EventInto and
// DetailIter hand out payloads that are slices of the mapping, not copies,
// valid until the file (thread, session) is closed. Close unmaps: a payload,
// event slice or iterator of a mapped file must not be used after it.
//
// On Linux (5.14 and later) a mapped detail file's pages are all mapped in
// one call at open (MADV_POPULATE_READ) rather than faulted in one by one:
// its open scan reads the whole file anyway.
//
// Where mapping is unavailable (not a unix system, a file too large for the
// address space, an empty file) the file is read through an io.ReaderAt as
// without the option. Other options ignore it (OpenIndex, OpenIndexBytes …).
//
// Map only files that nobody truncates while they are open: reading a page
// past the new end of a shrunk file is a SIGBUS that ends the process, where
// the io.ReaderAt path reports ErrTruncated. Files a writer is still
// appending to are fine (the mapping covers the size seen at open).
func WithMmap(on bool) ReaderOption {
	return func(o *readerOptions) error { o.mmap = on; return nil }
}

// openFileSource opens path (a regular file only, see openRegular) as a
// source: mapped when mapped is true and the platform and file allow it,
// else read through the open file. The closer releases it.
func openFileSource(path string, mapped bool) (source, io.Closer, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return source{}, nil, err
	}
	if mapped {
		b, err := mapFile(f, size)
		switch {
		case err == nil:
			f.Close() // the mapping keeps the file
			return bytesSource(b), &mapping{b: b}, nil
		case !errors.Is(err, errors.ErrUnsupported):
			f.Close()
			return source{}, nil, fmt.Errorf("%s: map: %w", path, err)
		}
	}
	return newSource(f, size), f, nil
}

// mapping is the closer of a mapped file: Close unmaps it.
type mapping struct{ b []byte }

func (m *mapping) Close() error {
	b := m.b
	m.b = nil
	if b == nil {
		return nil
	}
	return unmapFile(b)
}

// populateMapping populates c's pages when c is a mapping (see
// populateRead): the open scan of a detail file reads every page anyway.
func populateMapping(c io.Closer) {
	if m, ok := c.(*mapping); ok {
		populateRead(m.b)
	}
}

// closedFile is what a mapped reader reads after Close: every read fails
// with os.ErrClosed, as a closed *os.File does, instead of touching the
// unmapped memory.
type closedFile struct{}

func (closedFile) ReadAt([]byte, int64) (int, error) { return 0, os.ErrClosed }

// closeSource closes c (once) and, when the source was a mapping, points src
// at closedFile so later reads fail instead of faulting.
func closeSource(src *source, c *io.Closer) error {
	if _, ok := (*c).(*mapping); ok {
		*src = source{ra: closedFile{}, size: src.size}
	}
	return closeOnce(c)
}
