package atf

import (
	"bytes"
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
func TestIndexIterBlocks(t *testing.T) {
	unsorted, _ := writeThread(t, 777, 3, func(i int) uint64 { return uint64((i * 7919) % 777) })
	for _, mem := range []bool{true, false} {
		var r *IndexReader
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
					if e := it.Event(); e != (IndexEvent{}) {
						t.Fatalf("Event before Next: %+v", e)
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
						if e := it.Event(); e != mustEvent(t, r, want) {
							t.Fatalf("mem=%v buf=%d: event %d differs", mem, bufSize, want)
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
					if e := it.Event(); e != (IndexEvent{}) || it.Next() {
						t.Fatalf("after the end: Event %+v", e)
					}
				}
			}
		}
	}
}
