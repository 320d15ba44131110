package cdt

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"testing"

	"github.com/tracecodec/tracecodec/internal/checksum"
)

// batchRow is a row of tick i padded to about pad bytes, its bytes
// varying with i (so that chunks compress differently).
func batchRow(i int64, pad int) []byte {
	p := make([]byte, pad)
	x := uint64(i)*0x9e3779b97f4a7c15 + 1
	for k := range p {
		if k%64 < 40 { // repeats across rows
			p[k] = byte('a' + (k*7+k/64)%26)
			continue
		}
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		p[k] = byte(x)
	}
	r := append([]byte("\x82\xaatick_index"), appendInt(nil, i)...)
	r = append(r, "\xa3pad\xdb"...)
	r = append(r, byte(pad>>24), byte(pad>>16), byte(pad>>8), byte(pad))
	return append(r, p...)
}

// writtenChunks is the number of complete TICK chunks in data, a trace
// whose writer is still open (0 when nothing was written).
func writtenChunks(t *testing.T, data []byte) int {
	t.Helper()
	if len(data) == 0 {
		return 0
	}
	f, err := OpenBytes(data, WithRecovery())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep := f.Recovery()
	if rep.LostBytes != 0 {
		t.Fatalf("a torn chunk in what the writer wrote: %+v", rep)
	}
	return rep.Chunks
}

// TestWriterChunkBatch pins when a one-goroutine writer writes its batched
// chunks (WithChunkBatch, at most checksum.Lanes of them, while they hold
// less than writeBatchBytes; Flush and Close write all) and that the bytes
// are the same as those of a writer that writes every chunk at once, with
// CompressionAuto's probes choosing the same levels. Lanes is set to 8 so
// that batches are formed on every machine (without AVX-512 Sums hashes
// them one by one).
func TestWriterChunkBatch(t *testing.T) {
	defer func(l int) { checksum.Lanes = l }(checksum.Lanes)
	checksum.Lanes = checksum.MaxLanes

	const ticks, chunk, flushAt = 330, 4, 301
	write := func(check bool, opts ...WriterOption) []byte {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, testMeta, append([]WriterOption{WithChunkTicks(chunk)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		batch := w.batchMax()
		for i := range int64(ticks) {
			if err := w.WriteRow(batchRow(i, 200+int(i%50)*40)); err != nil {
				t.Fatal(err)
			}
			if i+1 == flushAt {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				if got, want := writtenChunks(t, buf.Bytes()), flushAt/chunk+1; got != want {
					t.Fatalf("batch %d: after Flush %d chunks written, want %d", batch, got, want)
				}
			}
			if check && i+1 < flushAt && (i+1)%chunk == 0 {
				done := int(i+1) / chunk
				if got, want := writtenChunks(t, buf.Bytes()), done/batch*batch; got != want {
					t.Fatalf("batch %d: %d chunks complete, %d written, want %d", batch, done, got, want)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	one := write(true, WithChunkBatch(1))
	if f := openBytes(t, one); f.Footer().TickCount != ticks || len(f.Footer().Blocks) != (ticks+chunk-2)/chunk+1 {
		t.Fatalf("footer %+v", f.Footer())
	}
	for i, c := range []struct {
		check bool // chunks written batch by batch
		opts  []WriterOption
	}{
		{true, nil}, {true, []WriterOption{WithChunkBatch(3)}}, {true, []WriterOption{WithChunkBatch(100)}},
		{false, []WriterOption{WithWriterConcurrency(2)}},
	} {
		if got := write(c.check, c.opts...); !bytes.Equal(got, one) {
			t.Fatalf("case %d: the bytes differ from those of WithChunkBatch(1)", i)
		}
	}
	if raw := write(true, WithRawChunks()); !bytes.Equal(raw, write(true, WithRawChunks(), WithChunkBatch(1))) {
		t.Fatal("raw chunks: the bytes differ from those of WithChunkBatch(1)")
	}
	if bytes.Equal(write(true, WithCompressionLevel(CompressionDefault)), one) {
		t.Fatal("CompressionDefault wrote CompressionAuto's bytes: the rows do not tell the levels apart")
	}

	// Without the eight-lane function a batch is one chunk.
	checksum.Lanes = 1
	if got := write(true, WithChunkBatch(1)); !bytes.Equal(got, one) {
		t.Fatal("Lanes 1: the bytes differ")
	}
	checksum.Lanes = checksum.MaxLanes
	// The default holds nothing: every chunk is written once complete
	// (the reference writer's crash bound), eight lanes or not.
	var dbuf bytes.Buffer
	dw, err := NewWriter(&dbuf, testMeta, WithChunkTicks(chunk))
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(3 * chunk) {
		if err := dw.WriteRow(batchRow(i, 100)); err != nil {
			t.Fatal(err)
		}
		if want := int(i+1) / chunk; i%int64(chunk) == int64(chunk)-1 {
			if got := writtenChunks(t, dbuf.Bytes()); got != want {
				t.Fatalf("default: %d chunks written after %d rows, want %d", got, i+1, want)
			}
		}
	}
	if err := dw.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testMeta, WithChunkTicks(chunk), WithChunkBatch(8))
	if err != nil {
		t.Fatal(err)
	}
	checksum.Lanes = 1
	for i := range int64(chunk) {
		if err := w.WriteRow(batchRow(i, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if got := writtenChunks(t, buf.Bytes()); got != 1 {
		t.Fatalf("Lanes 1, batch 8: %d chunks written after the first, want 1", got)
	}
	checksum.Lanes = checksum.MaxLanes
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	if _, err := NewWriter(&buf, testMeta, WithChunkBatch(0)); err == nil {
		t.Fatal("WithChunkBatch(0) accepted")
	}
}

// TestWriterChunkBatchBytes pins the byte bound of a batch: chunks of
// 3 MiB are written three at a time (9 MiB ≥ writeBatchBytes), not eight.
func TestWriterChunkBatchBytes(t *testing.T) {
	defer func(l int) { checksum.Lanes = l }(checksum.Lanes)
	checksum.Lanes = checksum.MaxLanes
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testMeta, WithChunkTicks(1), WithChunkBatch(8))
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(7) {
		if err := w.WriteRow(batchRow(i, 3<<20)); err != nil {
			t.Fatal(err)
		}
		if got, want := writtenChunks(t, buf.Bytes()), int(i+1)/3*3; got != want {
			t.Fatalf("%d chunks of 3 MiB complete, %d written, want %d", i+1, got, want)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if f := openBytes(t, buf.Bytes()); f.Footer().TickCount != 7 {
		t.Fatalf("footer %+v", f.Footer())
	}
}

// failAfter fails every Write after the first n.
type failAfter struct{ n int }

var errWriteFailed = errors.New("write failed")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errWriteFailed
	}
	f.n--
	return len(p), nil
}

// TestWriterChunkBatchWriteError pins that a write failing inside a batch
// is returned by the row that completed the batch and stays sticky.
func TestWriterChunkBatchWriteError(t *testing.T) {
	defer func(l int) { checksum.Lanes = l }(checksum.Lanes)
	checksum.Lanes = checksum.MaxLanes
	// header, META chunk, then two TICK chunks succeed
	w, err := NewWriter(&failAfter{n: 4}, testMeta, WithChunkTicks(2), WithChunkBatch(8))
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(16) {
		err := w.WriteRow(batchRow(i, 64))
		if i < 15 && err != nil {
			t.Fatalf("row %d: %v before the batch was written", i, err)
		}
		if i == 15 && !errors.Is(err, errWriteFailed) {
			t.Fatalf("the row that completed the batch: %v", err)
		}
	}
	if err := w.WriteRow(batchRow(16, 64)); !errors.Is(err, errWriteFailed) {
		t.Fatalf("after the failure: %v", err)
	}
	if err := w.Close(); !errors.Is(err, errWriteFailed) {
		t.Fatalf("Close: %v", err)
	}
}

// TestWriterBatchArena pins that a one-goroutine writer's batch of large
// chunks lives outside the Go heap (Linux: a mapped arena, so a fresh
// process's write starts no collection for it), grows there, and goes
// back to the arenas' pool at Close; the bytes are those of an unbatched
// writer.
func TestWriterBatchArena(t *testing.T) {
	defer func(l int) { checksum.Lanes = l }(checksum.Lanes)
	checksum.Lanes = checksum.MaxLanes
	rows := make([][]byte, 100)
	for i := range rows {
		rows[i] = batchRow(int64(i), 40<<10) // 320 KiB chunks, batches of 2.5 MiB
	}
	write := func(w *Writer) {
		for _, r := range rows {
			if err := w.WriteRow(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	warm, err := NewWriter(io.Discard, testMeta, WithChunkTicks(8))
	if err != nil {
		t.Fatal(err)
	}
	write(warm) // the encoders' own memory, kept for the next writer
	if err := warm.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.Grow(8 << 20) // the output: not the writer's memory
	w, err := NewWriter(&buf, testMeta, WithChunkTicks(8), WithChunkBatch(8))
	if err != nil {
		t.Fatal(err)
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	write(w)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	a := w.arena
	if runtime.GOOS == "linux" {
		if !a.mapped || cap(w.cur.buf) == 0 || &w.cur.buf[:1][0] != &a.b[:1][0] {
			t.Fatalf("the batch is not in a mapped arena (mapped %v)", a.mapped)
		}
		// the chunks' compressed bytes and the encoders' state are heap
		if heap := after.TotalAlloc - before.TotalAlloc; heap > 1<<20 {
			t.Errorf("batches of 2.5 MiB allocated %d bytes of Go heap", heap)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.arena.b != nil || w.cur != nil {
		t.Fatal("Close kept the arena")
	}
	if a.mapped {
		arenaPool.Lock()
		pooled := slices.ContainsFunc(arenaPool.free, func(p pooledArena) bool { return &p.b[:1][0] == &a.b[:1][0] })
		arenaPool.Unlock()
		if !pooled {
			t.Fatal("Close did not give the arena back to the pool")
		}
	}
	var one bytes.Buffer
	w1, err := NewWriter(&one, testMeta, WithChunkTicks(8), WithChunkBatch(1))
	if err != nil {
		t.Fatal(err)
	}
	write(w1)
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), one.Bytes()) {
		t.Fatal("the bytes differ from those of WithChunkBatch(1)")
	}
}
