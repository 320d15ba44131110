package cdt

import (
	"bytes"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/tracecodec/tracecodec/internal/hugebuf"
)

// bigChunkFile writes rows of 8 kB of random bytes (incompressible, so a
// chunk's compressed bytes are as large as its payload) in chunks of 200
// rows, ≈1.6 MB each: batches the size of the side-by-side benchmark's.
func bigChunkFile(t *testing.T, opts ...WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testMeta, append([]WriterOption{WithChunkTicks(200)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	pad := make([]byte, 8000)
	for i := range int64(1000) {
		for j := range pad {
			pad[j] = byte(r.Uint32())
		}
		row := append([]byte("\x82\xaatick_index"), appendInt(nil, i)...)
		row = append(row, "\xa3pad\xc5\x1f\x40"...) // bin16 of 8000 bytes
		if err := w.WriteRow(append(row, pad...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pooledArenas() (n, resident int) {
	arenaPool.Lock()
	defer arenaPool.Unlock()
	return len(arenaPool.free), arenaPool.resident
}

func inArena(a arena, p []byte) bool {
	base, at := uintptr(unsafe.Pointer(unsafe.SliceData(a.b))), uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	return at >= base && at+uintptr(len(p)) <= base+uintptr(cap(a.b))
}

// TestIterArenaMapped: a sequential iterator over chunks of MBs decompresses
// into one mapped arena outside the Go heap (no garbage collection for its
// bytes), reads every row right, with zstd and with raw chunks (whose
// payload is their stored bytes, read into the arena's room for compressed
// bytes and copied out before the next chunk), and the arena goes back to
// the pool at Close, by a cleanup when an iterator is dropped unfinished,
// and by a cleanup when a File is dropped without Close.
func TestIterArenaMapped(t *testing.T) {
	if hugebuf.Map(hugebuf.Min) == nil {
		t.Skip("no mapped buffers on this system")
	}
	for _, raw := range []bool{false, true} {
		var opts []WriterOption
		if raw {
			opts = append(opts, WithRawChunks())
		}
		data := bigChunkFile(t, opts...)
		f, err := OpenBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		it := f.Iter(math.MinInt64, math.MaxInt64)
		n := 0
		for it.Next() {
			if !it.arena.mapped || !inArena(it.arena, it.Row().Raw) {
				t.Fatalf("raw %v: row %d is not in a mapped arena", raw, n)
			}
			want, ok, err := f.Tick(int64(n)) // through the cache, memory of its own
			if err != nil || !ok || !bytes.Equal(it.Row().Raw, want.Raw) || it.Row().Tick != int64(n) {
				t.Fatalf("raw %v: row %d differs from File.Tick's (%v, %v)", raw, n, ok, err)
			}
			n++
		}
		if it.Err() != nil || n != 1000 {
			t.Fatalf("raw %v: %d rows, %v", raw, n, it.Err())
		}
		if !f.arena.mapped || !f.arena.guarded {
			t.Fatalf("raw %v: the File did not keep the finished iterator's arena", raw)
		}
		kept := unsafe.SliceData(f.arena.b)
		before, _ := pooledArenas()
		f.Close()
		after, resident := pooledArenas()
		if after != before+1 || resident > arenaKeep {
			t.Fatalf("raw %v: Close left %d → %d pooled arenas (%d bytes resident)", raw, before, after, resident)
		}
		// The next File's iterator takes the pooled arena.
		f2, err := OpenBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		it2 := f2.Iter(math.MinInt64, math.MaxInt64)
		if !it2.Next() || unsafe.SliceData(it2.arena.b) != kept {
			t.Fatalf("raw %v: a new File's iterator did not reuse the pooled arena", raw)
		}
		// Dropped unfinished: its cleanup hands the arena back.
		it2 = nil
		waitPooled(t, after)
		// A File dropped without Close gives its arena back too.
		f3, err := OpenBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := f3.Validate(); err != nil {
			t.Fatal(err)
		}
		n0, _ := pooledArenas()
		f3 = nil
		waitPooled(t, n0+1)
		f2.Close()
		// An iterator that took its File's arena and is dropped unfinished
		// gives that arena back as well.
		f4, err := OpenBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := f4.Validate(); err != nil { // f4 keeps the arena
			t.Fatal(err)
		}
		n1, _ := pooledArenas()
		it4 := f4.Iter(math.MinInt64, math.MaxInt64)
		if !it4.Next() || f4.arena.b != nil || !it4.arena.guarded {
			t.Fatalf("raw %v: the second iterator did not take its File's arena under guard", raw)
		}
		it4 = nil
		waitPooled(t, n1+1)
		f4.Close()
	}
}

func waitPooled(t *testing.T, want int) {
	t.Helper()
	for range 100 {
		runtime.GC()
		if n, _ := pooledArenas(); n >= want {
			return
		}
		time.Sleep(time.Millisecond)
	}
	n, _ := pooledArenas()
	t.Fatalf("%d arenas pooled, want %d: a dropped holder's cleanup did not run", n, want)
}

// TestArenaPoolKeep: the pool hands out the smallest arena that fits, keeps
// the pages of at most arenaKeep bytes, and drops (but keeps mapped) the
// pages of the rest, which are zero when reused.
func TestArenaPoolKeep(t *testing.T) {
	if hugebuf.Map(hugebuf.Min) == nil {
		t.Skip("no mapped buffers on this system")
	}
	arenaPool.Lock()
	saved, savedRes := arenaPool.free, arenaPool.resident
	arenaPool.free, arenaPool.resident = nil, 0
	arenaPool.Unlock()
	defer func() {
		arenaPool.Lock()
		arenaPool.free, arenaPool.resident = saved, savedRes
		arenaPool.Unlock()
	}()
	big := newArena(arenaKeep) // fills the resident bound alone
	small := newArena(hugebuf.Min)
	if !big.mapped || !small.mapped {
		t.Fatal("arenas not mapped")
	}
	big.b[:cap(big.b)][cap(big.b)-1] = 1
	small.b[:1][0] = 9
	bigAt, smallAt := unsafe.SliceData(big.b), unsafe.SliceData(small.b)
	big.release()
	small.release() // beyond arenaKeep: its pages are dropped
	if n, res := pooledArenas(); n != 2 || res != arenaKeep {
		t.Fatalf("%d pooled, %d resident; want 2, %d", n, res, arenaKeep)
	}
	a := newArena(hugebuf.Min)
	if unsafe.SliceData(a.b) != smallAt || a.b[:1][0] != 0 {
		t.Fatalf("did not get the smallest pooled arena back, zeroed")
	}
	b := newArena(hugebuf.Min)
	if unsafe.SliceData(b.b) != bigAt || b.b[:cap(b.b)][cap(b.b)-1] != 1 {
		t.Fatalf("did not get the resident arena back with its pages")
	}
	if _, res := pooledArenas(); res != 0 {
		t.Fatalf("%d bytes resident after taking both", res)
	}
	a.release()
	b.release()
}
