package atf

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// TestLoadIndexEventMatchesDecode pins the 32-byte copy of layout_native.go
// (or the portable decode) to the field-by-field decode, at every alignment.
func TestLoadIndexEventMatchesDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 64)
	for i := range 1000 {
		for j := range buf {
			buf[j] = byte(rng.Uint32())
		}
		off := i % 32
		if got, want := loadIndexEvent(buf[off:]), decodeIndexEvent(buf[off:]); got != want {
			t.Fatalf("offset %d: load %+v, decode %+v", off, got, want)
		}
	}
}

// TestIndexIterBlocks walks files through every block size the iterator can
// be given (one event per block, blocks that end mid-event, whole files), in
// memory and through an io.ReaderAt, with and without the time filter, and
// compares each step with Event(seq).
// iterFields is the current event as the field getters read it.
func iterFields(it *IndexIter) IndexEvent {
	return IndexEvent{Timestamp: it.Timestamp(), FunctionID: it.FunctionID(), ThreadID: it.ThreadID(),
		Kind: it.Kind(), CallDepth: it.CallDepth(), DetailSeq: it.DetailSeq()}
}

func TestIndexIterBlocks(t *testing.T) {
	unsorted, _ := writeThread(t, 777, 3, func(i int) uint64 { return uint64((i * 7919) % 777) })
	for _, mem := range []bool{true, false} {
		var r *IndexFile
		var err error
		if mem {
			r, err = OpenIndexBytes(unsorted.b)
		} else {
			r, err = OpenIndex(bytes.NewReader(unsorted.b), int64(len(unsorted.b)))
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, bufSize := range []int{1, 32, 96, 100, 4096, 64 << 10} {
			for _, filter := range []bool{false, true} {
				for _, start := range []uint64{0, 1, 500, 776, 777} {
					var it IndexIter
					it.reset(r, start, r.Len(), bufSize)
					if filter {
						it.filter, it.from, it.to = true, 100, 300
					}
					if e := it.Event(); e != (IndexEvent{}) || iterFields(&it) != e {
						t.Fatalf("Event before Next: %+v, getters %+v", e, iterFields(&it))
					}
					want := start
					n := 0
					for it.Next() {
						if filter {
							for want < r.Len() {
								if e := mustEvent(t, r, want); e.Timestamp >= 100 && e.Timestamp <= 300 {
									break
								}
								want++
							}
						}
						if it.Seq() != want {
							t.Fatalf("mem=%v buf=%d filter=%v start=%d: seq %d, want %d", mem, bufSize, filter, start, it.Seq(), want)
						}
						if e := it.Event(); e != mustEvent(t, r, want) || iterFields(&it) != e {
							t.Fatalf("mem=%v buf=%d: event %d differs (getters %+v)", mem, bufSize, want, iterFields(&it))
						}
						want++
						n++
					}
					if it.Err() != nil {
						t.Fatal(it.Err())
					}
					wantN := int(r.Len() - start)
					if filter {
						wantN = 0
						for s := start; s < r.Len(); s++ {
							if e := mustEvent(t, r, s); e.Timestamp >= 100 && e.Timestamp <= 300 {
								wantN++
							}
						}
					}
					if n != wantN {
						t.Fatalf("mem=%v buf=%d filter=%v start=%d: %d events, want %d", mem, bufSize, filter, start, n, wantN)
					}
					if e := it.Event(); e != (IndexEvent{}) || iterFields(&it) != e || it.Next() {
						t.Fatalf("after the end: Event %+v, getters %+v", e, iterFields(&it))
					}
				}
			}
		}
	}
}

// TestIndexStreamFastPath reads files far larger than the stream's buffer
// through readers that return odd-sized pieces, finalized and crashed
// (placeholder header, torn tail), with and without an event limit that
// falls inside a buffered run, and compares every step with IndexFile.
func TestIndexStreamFastPath(t *testing.T) {
	fin, _ := writeThread(t, 5000, 1, func(i int) uint64 { return uint64(i) })
	var crashed memFile
	w, err := NewIndexWriter(&crashed, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4000 {
		w.Append(IndexEvent{Timestamp: uint64(i), FunctionID: uint64(i), DetailSeq: NoDetail})
	}
	w.Flush() // no Close
	torn := append(bytes.Clone(crashed.b), 1, 2, 3)
	for _, c := range []struct {
		name  string
		b     []byte
		limit uint64
	}{{"finalized", fin.b, 0}, {"crashed", crashed.b, 0}, {"torn", torn, 0}, {"finalized-limit", fin.b, 2049}, {"crashed-limit", crashed.b, 3001}} {
		r, err := OpenIndexBytes(c.b)
		if err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{1, 31, 4096, 1 << 20} {
			s, err := NewIndexReader(&chunkReader{b: c.b, n: chunk}, WithLimits(Limits{MaxIndexEvents: c.limit}))
			if err != nil {
				t.Fatal(err)
			}
			if e := s.Event(); e != (IndexEvent{}) {
				t.Fatalf("%s: Event before Next: %+v", c.name, e)
			}
			var n uint64
			for s.Next() {
				if s.Seq() != n || s.Event() != mustEvent(t, r, n) {
					t.Fatalf("%s chunk %d: step %d: seq %d event %+v", c.name, chunk, n, s.Seq(), s.Event())
				}
				n++
			}
			if c.limit != 0 {
				if !errors.Is(s.Err(), ErrLimit) || n != c.limit {
					t.Fatalf("%s chunk %d: %d events, err %v", c.name, chunk, n, s.Err())
				}
				continue
			}
			if s.Err() != nil || n != r.Len() || s.Recovered() != r.Recovered() || s.Discarded() != r.Discarded() {
				t.Fatalf("%s chunk %d: %d events (want %d), recovered %v discarded %d, err %v", c.name, chunk, n, r.Len(), s.Recovered(), s.Discarded(), s.Err())
			}
			if e := s.Event(); e != (IndexEvent{}) || s.Next() {
				t.Fatalf("%s: after the end: %+v", c.name, e)
			}
		}
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// TestReadEvents reads a file through ReadEvents in batches of every size
// from every start — in memory, through an io.ReaderAt, and over a reader
// that fails — and compares each event with Event(seq).
func TestReadEvents(t *testing.T) {
	f, _ := writeThread(t, 300, 3, func(i int) uint64 { return uint64(i * 3) })
	mem, err := OpenIndexBytes(f.b)
	if err != nil {
		t.Fatal(err)
	}
	ra, err := OpenIndex(bytes.NewReader(f.b), int64(len(f.b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*IndexFile{mem, ra} {
		for _, size := range []int{0, 1, 7, 64, 65, 299, 300, 301, 1000} {
			dst := make([]IndexEvent, size+1)
			for _, start := range []uint64{0, 1, 150, 299, 300, 1 << 40} {
				dst[size] = IndexEvent{Timestamp: 12345} // past the batch: never written
				n, err := r.ReadEvents(dst[:size], start)
				if err != nil {
					t.Fatal(err)
				}
				if want := int(min(uint64(size), r.Len()-min(start, r.Len()))); n != want {
					t.Fatalf("size %d start %d: %d events, want %d", size, start, n, want)
				}
				for i := range n {
					if want := mustEvent(t, r, start+uint64(i)); dst[i] != want {
						t.Fatalf("size %d start %d: event %d is %+v, want %+v", size, start, i, dst[i], want)
					}
				}
				if dst[size].Timestamp != 12345 {
					t.Fatalf("size %d start %d: wrote past the batch", size, start)
				}
			}
		}
	}
	// The input shrinks after open: the read fails with ErrTruncated.
	cut := &cutReaderAt{b: f.b, cut: int64(len(f.b))}
	short, err := OpenIndex(cut, int64(len(f.b)))
	if err != nil {
		t.Fatal(err)
	}
	cut.cut = HeaderSize + 100*IndexEventSize
	dst := make([]IndexEvent, 200)
	if n, err := short.ReadEvents(dst, 0); n != 0 || !errors.Is(err, ErrTruncated) {
		t.Fatalf("shrunk input: %d events, %v", n, err)
	}
	if n, err := short.ReadEvents(dst[:50], 10); n != 50 || err != nil {
		t.Fatalf("before the cut: %d events, %v", n, err)
	}
}

// cutReaderAt reads b up to cut and reports io.EOF beyond.
type cutReaderAt struct {
	b   []byte
	cut int64
}

func (c *cutReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= c.cut {
		return 0, io.EOF
	}
	n := copy(p, c.b[off:c.cut])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
