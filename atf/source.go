package atf

import (
	"io"
	"sync"
)

// source is a file: in memory (data) or behind an io.ReaderAt.
type source struct {
	data []byte
	ra   io.ReaderAt
	size int64
}

func newSource(r io.ReaderAt, size int64) source {
	if size < 0 {
		size = 0
	}
	return source{ra: r, size: size}
}

func bytesSource(b []byte) source { return source{data: b, size: int64(len(b))} }

// readAt fills p from off; the caller has checked off+len(p) <= size. A read
// that fails is a FormatError at off wrapping the reader's error; one that
// comes back short (the file shrank after it was opened) is ErrTruncated.
func (s *source) readAt(p []byte, off int64) error {
	if s.data != nil {
		copy(p, s.data[off:])
		return nil
	}
	n, err := s.ra.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
		return newError(off+int64(max(n, 0)), ErrTruncated, "read %d bytes at %d, got %d: the input is shorter than the %d bytes it had when opened", len(p), off, n, s.size)
	}
	return newError(off, err, "read %d bytes: %v", len(p), err)
}

var smallBufs = sync.Pool{New: func() any { return new([HeaderSize]byte) }}

// window serves sequential reads of a source through one reusable buffer; on
// an in-memory source it slices the data directly.
type window struct {
	src   *source
	buf   []byte
	start int64 // file offset of buf[0]
	n     int
}

func newWindow(src *source, size int) window {
	w := window{src: src}
	if src.data == nil {
		w.buf = make([]byte, size)
	}
	return w
}

// at returns the n bytes at off; they stay valid until the next call. The
// caller has checked off+n <= size.
func (w *window) at(off int64, n int) ([]byte, error) {
	if w.src.data != nil {
		return w.src.data[off : off+int64(n)], nil
	}
	if off >= w.start && off+int64(n) <= w.start+int64(w.n) {
		i := off - w.start
		return w.buf[i : i+int64(n)], nil
	}
	if n > len(w.buf) {
		w.buf = make([]byte, n)
	}
	m := min(int64(len(w.buf)), w.src.size-off)
	w.start, w.n = off, 0
	if err := w.src.readAt(w.buf[:m], off); err != nil {
		return nil, err
	}
	w.n = int(m)
	return w.buf[:n], nil
}
