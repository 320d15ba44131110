package cdt

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/tracecodec/tracecodec/internal/checksum"
)

// TestIterBatchErrorsInOrder spoils chunks of a 20-chunk trace at different
// places of the sequential iterator's read-ahead batch (its first, middle and
// last chunk, the next batch) and checks that every row before the spoiled
// chunk is delivered, then the error of the first spoiled chunk in file
// order, at its offset — with the batch as wide as this machine's
// checksum.Lanes and one chunk wide, as without AVX-512.
func TestIterBatchErrorsInOrder(t *testing.T) {
	data := writeTicks(t, testMeta, 60, WithChunkTicks(3))
	blocks := openBytes(t, data).Footer().Blocks
	if len(blocks) != 20 {
		t.Fatalf("%d chunks", len(blocks))
	}
	badSum := func(b []byte, k int) { b[blocks[k].FileOffset+24] ^= 1 }
	badFrame := func(b []byte, k int) { b[blocks[k].FileOffset+ChunkHeaderSize] ^= 0xff }
	type spoil struct {
		fn func([]byte, int)
		k  int
	}
	cases := []struct {
		name   string
		spoils []spoil
		first  int // chunk whose error is reported
		want   error
		off    int64 // error offset from that chunk's start
	}{
		{"checksum of chunk 0", []spoil{{badSum, 0}}, 0, ErrChecksum, 24},
		{"checksum of chunk 5", []spoil{{badSum, 5}}, 5, ErrChecksum, 24},
		{"checksum of chunk 7", []spoil{{badSum, 7}}, 7, ErrChecksum, 24},
		{"checksum of chunk 8", []spoil{{badSum, 8}}, 8, ErrChecksum, 24},
		{"checksum of chunk 19", []spoil{{badSum, 19}}, 19, ErrChecksum, 24},
		{"frame of chunk 3", []spoil{{badFrame, 3}}, 3, ErrCorrupt, ChunkHeaderSize},
		{"checksum 2, frame 4", []spoil{{badSum, 2}, {badFrame, 4}}, 2, ErrChecksum, 24},
		{"frame 2, checksum 4", []spoil{{badFrame, 2}, {badSum, 4}}, 2, ErrCorrupt, ChunkHeaderSize},
		{"checksums 6 and 1", []spoil{{badSum, 6}, {badSum, 1}}, 1, ErrChecksum, 24},
	}
	defer func(l int) { checksum.Lanes = l }(checksum.Lanes)
	for _, lanes := range []int{checksum.Lanes, 1} {
		checksum.Lanes = lanes
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/lanes=%d", c.name, lanes), func(t *testing.T) {
				b := bytes.Clone(data)
				for _, s := range c.spoils {
					s.fn(b, s.k)
				}
				f := openBytes(t, b)
				it := f.Iter(math.MinInt64, math.MaxInt64)
				var n int64
				for it.Next() {
					if it.Row().Tick != n {
						t.Fatalf("row %d has tick %d", n, it.Row().Tick)
					}
					n++
				}
				if want := int64(3 * c.first); n != want {
					t.Fatalf("%d rows before the error, want %d", n, want)
				}
				err := it.Err()
				var fe *FormatError
				if !errors.Is(err, c.want) || !errors.As(err, &fe) || fe.Offset != blocks[c.first].FileOffset+c.off {
					t.Fatalf("error %v, want %v at offset %d", err, c.want, blocks[c.first].FileOffset+c.off)
				}
				var nb int
				var rawErr error
				for blk, err := range f.RawBlocks(math.MinInt64, math.MaxInt64) {
					if err != nil {
						rawErr = err
						break
					}
					if blk.Index != nb {
						t.Fatalf("RawBlocks: block %d has index %d", nb, blk.Index)
					}
					nb++
				}
				if nb != c.first || !errors.Is(rawErr, c.want) {
					t.Fatalf("RawBlocks: %d blocks then %v, want %d then %v", nb, rawErr, c.first, c.want)
				}
			})
		}
	}
}

// TestIterReusesGrowingBuffers pins that the sequential iterator
// decompresses chunks that grow a little from one to the next (a trace
// whose rows grow with the run) into the memory it already holds: each
// batch is carved out of one arena, allocated a quarter larger than the
// batch (bufCap), not to the exact size of each larger batch, which in a
// fresh process put every batch into new memory — page faults that cost
// more than decompressing it.
func TestIterReusesGrowingBuffers(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testMeta, WithChunkTicks(10))
	if err != nil {
		t.Fatal(err)
	}
	const chunks = 40
	writePadRows(t, w, chunks*10, func(i int64) int { return 2000 + int(i) }) // about 0.5 % more per chunk
	f, err := OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for pass := range 2 {
		it := f.Iter(0, chunks*10)
		arenas := map[*byte]bool{}
		var last *block
		n := 0
		for it.Next() {
			n++
			if it.cur != last {
				last = it.cur
				a, p := it.arena.b, it.cur.payload
				arenas[unsafe.SliceData(a)] = true
				base, at := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(p)))
				if at < base || at+uintptr(cap(p)) > base+uintptr(cap(a)) {
					t.Fatalf("pass %d: block %d's payload is not inside the iterator's arena", pass, it.cur.index)
				}
			}
		}
		if err := it.Err(); err != nil || n != chunks*10 {
			t.Fatalf("%d rows, %v", n, err)
		}
		// The batches grow ≈4 % each (eight chunks of 0.5 % more): one
		// arena, grown at most once, and the second iterator takes over the
		// first's last arena.
		if want := 2 - pass; len(arenas) > want {
			t.Errorf("pass %d: %d chunks decompressed into %d distinct arenas, want at most %d", pass, chunks, len(arenas), want)
		}
	}
	if first, second := f.footer.Blocks[0].UncompressedLen, f.footer.Blocks[1].UncompressedLen; second <= first ||
		int64(bufCap(int(first)+decodeSlack, true)) < second+decodeSlack {
		t.Errorf("chunks of %d and %d bytes: the first's buffer cannot take the second", first, second)
	}
	if bufCap(100, false) != 100 || bufCap(100, true) != 125 {
		t.Errorf("bufCap(100, false) = %d, bufCap(100, true) = %d; want 100, 125", bufCap(100, false), bufCap(100, true))
	}
}

// TestIterBatchBound pins how the sequential iterator groups large chunks
// where it hashes eight at once: chunks of ≈4 MB (h5's shape) go into one
// batch while their payloads total at most batchBytes — three of them,
// then three more into the same memory, then the seventh — and one at a
// time without multi-lane hashing. Every row comes out, in order, either
// way. (A 24 MiB bound, all five chunks of h5 in one pass, was measured
// and not taken: docs/performance.md.)
func TestIterBatchBound(t *testing.T) {
	const chunkTicks, chunks = 100, 7
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testMeta, WithChunkTicks(chunkTicks), WithRawChunks())
	if err != nil {
		t.Fatal(err)
	}
	writePadRows(t, w, chunks*chunkTicks, func(int64) int { return 40_000 })
	f := openBytes(t, buf.Bytes())
	blocks := f.Footer().Blocks
	if len(blocks) != chunks {
		t.Fatalf("%d chunks, want %d", len(blocks), chunks)
	}
	var total int64
	for _, b := range blocks[:3] {
		total += b.UncompressedLen
	}
	if total > batchBytes || total+blocks[3].UncompressedLen <= batchBytes {
		t.Fatalf("chunks of %d bytes: three total %d, four %d; batchBytes %d should lie between", blocks[0].UncompressedLen, total, total+blocks[3].UncompressedLen, batchBytes)
	}
	defer func(l int) { checksum.Lanes = l }(checksum.Lanes)
	for _, c := range []struct {
		lanes int
		want  []int // blocks per batch
	}{{checksum.MaxLanes, []int{3, 3, 1}}, {1, []int{1, 1, 1, 1, 1, 1, 1}}} {
		checksum.Lanes = c.lanes
		it := f.Iter(math.MinInt64, math.MaxInt64)
		var got []int
		var n int64
		for it.Next() {
			if it.ri == 1 && it.bi == 1 { // the first row of a new batch
				got = append(got, it.nb)
			}
			if it.Row().Tick != n {
				t.Fatalf("lanes %d: row %d has tick %d", c.lanes, n, it.Row().Tick)
			}
			n++
		}
		if err := it.Err(); err != nil || n != chunks*chunkTicks {
			t.Fatalf("lanes %d: %d rows, %v", c.lanes, n, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("lanes %d: batches of %v chunks, want %v", c.lanes, got, c.want)
		}
	}
}

// writePadRows writes n rows, ticks 0 to n-1, each a map of its tick_index
// and a pad string of padLen(tick) bytes (at most 65 535), and closes w.
func writePadRows(t *testing.T, w *Writer, n int64, padLen func(int64) int) {
	t.Helper()
	for i := range n {
		pad := bytes.Repeat([]byte{'x'}, padLen(i))
		row := append([]byte("\x82\xaatick_index"), appendInt(nil, i)...)
		row = append(row, "\xa3pad\xda"...)
		row = append(row, byte(len(pad)>>8), byte(len(pad)))
		if err := w.WriteRow(append(row, pad...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
