package atf

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
)

// memFile is an in-memory io.WriteSeeker (and io.ReaderAt) for tests.
type memFile struct {
	b   []byte
	pos int64
}

func (m *memFile) Write(p []byte) (int, error) {
	end := m.pos + int64(len(p))
	if end > int64(len(m.b)) {
		m.b = append(m.b, make([]byte, end-int64(len(m.b)))...)
	}
	copy(m.b[m.pos:], p)
	m.pos = end
	return len(p), nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += m.pos
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	if off < 0 {
		return 0, errors.New("negative position")
	}
	m.pos = off
	return off, nil
}

func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// discardSeeker counts bytes and accepts seeks, for benchmarks.
type discardSeeker struct{ n, pos int64 }

func (d *discardSeeker) Write(p []byte) (int, error) {
	d.pos += int64(len(p))
	d.n = max(d.n, d.pos)
	return len(p), nil
}

func (d *discardSeeker) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += d.pos
	case io.SeekEnd:
		off += d.n
	}
	d.pos = off
	return off, nil
}

type ioWS = io.WriteSeeker

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// numbered turns an All iterator into (sequence number, value) pairs and
// reports an iteration error through fail (t.Error, or panicOn in fuzz
// decoders), ending the loop.
func numbered[T any](s iter.Seq2[T, error], fail func(...any)) iter.Seq2[uint64, T] {
	return func(yield func(uint64, T) bool) {
		var n uint64
		for v, err := range s {
			if err != nil {
				fail("iteration failed after", n, "values:", err)
				return
			}
			if !yield(n, v) {
				return
			}
			n++
		}
	}
}

func panicOn(a ...any) { panic(fmt.Sprint(a...)) }
