package atf

import (
	"bytes"
	"testing"
)

const benchEvents = 1 << 16

func benchIndexFile(b *testing.B, n int, thread uint32, step uint64) []byte {
	b.Helper()
	var f memFile
	w, err := NewIndexWriter(&f, thread)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		w.Append(IndexEvent{Timestamp: uint64(i) * step, FunctionID: uint64(i % 97), ThreadID: thread, Kind: EventKind(i%2 + 1), CallDepth: uint32(i % 11), DetailSeq: NoDetail})
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return f.b
}

// indexOpeners opens data in memory and through an io.ReaderAt, the two
// sources the read benchmarks compare.
func indexOpeners(data []byte) []struct {
	name string
	open func() (*IndexFile, error)
} {
	return []struct {
		name string
		open func() (*IndexFile, error)
	}{
		{"bytes", func() (*IndexFile, error) { return OpenIndexBytes(data) }},
		{"readerat", func() (*IndexFile, error) { return OpenIndex(bytes.NewReader(data), int64(len(data))) }},
	}
}

func reportEvents(b *testing.B, perOp int) {
	b.ReportMetric(float64(b.N)*float64(perOp)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkIndexWrite appends index events through an IndexWriter whose
// underlying writer is a discarding seeker behind a bufio.Writer-sized buffer.
func BenchmarkIndexWrite(b *testing.B) {
	var sink discardSeeker
	w, err := NewIndexWriter(&sink, 1)
	if err != nil {
		b.Fatal(err)
	}
	e := IndexEvent{FunctionID: 42, ThreadID: 1, Kind: KindCall, CallDepth: 3, DetailSeq: NoDetail}
	b.SetBytes(IndexEventSize)
	b.ReportAllocs()
	for b.Loop() {
		e.Timestamp++
		if w.Count() >= maxIndexEvents-1 {
			w, _ = NewIndexWriter(&sink, 1)
		}
		w.Append(e)
	}
	reportEvents(b, 1)
}

// BenchmarkThreadWrite is the full per-thread path (sequence reservation,
// index event) without payloads.
func BenchmarkThreadWrite(b *testing.B) {
	var sink discardSeeker
	tw, err := NewThreadWriter(&sink, nil, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(IndexEventSize)
	b.ReportAllocs()
	var ts uint64
	for b.Loop() {
		ts++
		if _, err := tw.Write(ts, 42, KindCall, 3, nil); err != nil {
			tw, _ = NewThreadWriter(&sink, nil, 1)
		}
	}
	reportEvents(b, 1)
}

// BenchmarkIndexWriteFile writes whole 64 Ki-event files (header, events,
// footer, header patch) into a reused in-memory file.
func BenchmarkIndexWriteFile(b *testing.B) {
	var f memFile
	w, err := NewIndexWriter(&f, 1, WithChecksum(false))
	if err != nil {
		b.Fatal(err)
	}
	e := IndexEvent{FunctionID: 42, ThreadID: 1, Kind: KindCall, CallDepth: 3, DetailSeq: NoDetail}
	b.SetBytes(IndexEventSize)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		e.Timestamp++
		w.Append(e)
		if n++; n == benchEvents {
			w.Close()
			f.b, f.pos, n = f.b[:0], 0, 0
			w, _ = NewIndexWriter(&f, 1, WithChecksum(false))
		}
	}
	reportEvents(b, 1)
}

func BenchmarkIndexReadSequential(b *testing.B) {
	benchIndexRead(b, func(it *IndexIter) (sum uint64) {
		for it.Next() {
			e := it.Event()
			sum += e.Timestamp ^ e.FunctionID ^ uint64(e.Kind) ^ uint64(e.CallDepth) ^ uint64(e.DetailSeq) ^ uint64(e.ThreadID)
		}
		return sum
	})
}

// BenchmarkIndexReadFields is BenchmarkIndexReadSequential reading the
// fields through the iterator's getters instead of copying each event
// with Event (../shared/bench/instr.sh ./atf IndexReadFields/bytes 65536).
func BenchmarkIndexReadFields(b *testing.B) {
	benchIndexRead(b, func(it *IndexIter) (sum uint64) {
		for it.Next() {
			sum += it.Timestamp() ^ it.FunctionID() ^ uint64(it.Kind()) ^ uint64(it.CallDepth()) ^ uint64(it.DetailSeq()) ^ uint64(it.ThreadID())
		}
		return sum
	})
}

// benchIndexRead runs loop over a fresh iterator of every event per op,
// in memory and through an io.ReaderAt.
func benchIndexRead(b *testing.B, loop func(*IndexIter) uint64) {
	benchIndexPass(b, func(r *IndexFile) uint64 { return loop(r.Events(0)) })
}

// benchIndexPass runs pass, a read of every event of r, per op, in memory
// and through an io.ReaderAt.
func benchIndexPass(b *testing.B, pass func(*IndexFile) uint64) {
	data := benchIndexFile(b, benchEvents, 0, 1)
	for _, c := range indexOpeners(data) {
		b.Run(c.name, func(b *testing.B) {
			r, err := c.open()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(benchEvents * IndexEventSize)
			b.ReportAllocs()
			var sum uint64
			for b.Loop() {
				sum += pass(r)
			}
			_ = sum
			reportEvents(b, benchEvents)
		})
	}
}

func BenchmarkIndexReadRandom(b *testing.B) {
	data := benchIndexFile(b, benchEvents, 0, 1)
	for _, c := range indexOpeners(data) {
		b.Run(c.name, func(b *testing.B) {
			r, err := c.open()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(IndexEventSize)
			b.ReportAllocs()
			var seq, sum uint64
			for b.Loop() {
				seq = (seq*6364136223846793005 + 1442695040888963407) & (benchEvents - 1)
				e, _ := r.Event(seq)
				sum += e.Timestamp
			}
			_ = sum
			reportEvents(b, 1)
		})
	}
}

// BenchmarkMerge8 merges 8 threads of 8 Ki events each (interleaved
// timestamps).
func BenchmarkMerge8(b *testing.B) {
	const per = benchEvents / 8
	readers := merge8Files(b, per)
	b.SetBytes(8 * per * IndexEventSize)
	b.ReportAllocs()
	var sum uint64
	for b.Loop() {
		m := NewMerger(readers)
		for m.Next() {
			e := m.Event()
			sum += e.Timestamp ^ e.FunctionID ^ uint64(e.CallDepth)
		}
	}
	_ = sum
	reportEvents(b, 8*per)
}

func BenchmarkDetailOpen(b *testing.B) {
	var idx, det memFile
	tw, _ := NewThreadWriter(&idx, func() (ioWS, error) { return &det, nil }, 0)
	payload := make([]byte, 516)
	for i := range 4096 {
		tw.Write(uint64(i), 1, KindCall, 1, payload)
	}
	tw.Close()
	b.SetBytes(int64(len(det.b)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := OpenDetail(bytes.NewReader(det.b), int64(len(det.b))); err != nil {
			b.Fatal(err)
		}
	}
	reportEvents(b, 4096)
}

// BenchmarkIndexReadBatch decodes the file through ReadEvents in batches of
// 1024 events, in memory and through an io.ReaderAt (one read per batch,
// straight into the batch).
func BenchmarkIndexReadBatch(b *testing.B) {
	data := benchIndexFile(b, benchEvents, 0, 1)
	for _, c := range indexOpeners(data) {
		b.Run(c.name, func(b *testing.B) {
			r, err := c.open()
			if err != nil {
				b.Fatal(err)
			}
			dst := make([]IndexEvent, 1024)
			b.SetBytes(benchEvents * IndexEventSize)
			b.ReportAllocs()
			var sum uint64
			for b.Loop() {
				for start := uint64(0); start < r.Len(); {
					n, _ := r.ReadEvents(dst, start)
					for i := range dst[:n] {
						e := &dst[i]
						sum += e.Timestamp ^ e.FunctionID ^ uint64(e.Kind) ^ uint64(e.CallDepth) ^ uint64(e.DetailSeq) ^ uint64(e.ThreadID)
					}
					start += uint64(n)
				}
			}
			_ = sum
			reportEvents(b, benchEvents)
		})
	}
}

// BenchmarkIndexReadBlocks reads the file through Blocks: in memory the
// blocks are views of the bytes, through an io.ReaderAt one read per block
// into the iterator's buffer (../shared/bench/instr.sh ./atf
// IndexReadBlocks/bytes 65536).
func BenchmarkIndexReadBlocks(b *testing.B) {
	benchIndexPass(b, func(r *IndexFile) uint64 { return sumBlocks(r.Blocks(0)) })
}

// sumBlocks is BenchmarkIndexReadBlocks's loop.
func sumBlocks(bl *IndexBlocks) (sum uint64) {
	for bl.Next() {
		evs := bl.Events()
		for i := range evs {
			e := &evs[i]
			sum += e.Timestamp ^ e.FunctionID ^ uint64(e.Kind) ^ uint64(e.CallDepth) ^ uint64(e.DetailSeq) ^ uint64(e.ThreadID)
		}
	}
	return sum
}

// BenchmarkIndexStream reads a whole file sequentially from an io.Reader.
func BenchmarkIndexStream(b *testing.B) {
	data := benchIndexFile(b, benchEvents, 0, 1)
	br := bytes.NewReader(data)
	b.SetBytes(benchEvents * IndexEventSize)
	b.ReportAllocs()
	var sum uint64
	for b.Loop() {
		br.Reset(data)
		s, err := NewIndexReader(br)
		if err != nil {
			b.Fatal(err)
		}
		for s.Next() {
			e := s.Event()
			sum += e.Timestamp ^ e.FunctionID ^ uint64(e.Kind) ^ uint64(e.CallDepth) ^ uint64(e.DetailSeq) ^ uint64(e.ThreadID)
		}
	}
	_ = sum
	reportEvents(b, benchEvents)
}

// merge8Files is 8 in-memory threads of per events each, their timestamps
// interleaved (thread k holds k, k+8, k+16, …).
func merge8Files(b *testing.B, per int) []*IndexFile {
	var readers []*IndexFile
	for k := range 8 {
		data := benchIndexFile(b, per, uint32(k), 8)
		for i := range per { // offset each thread's timestamps
			off := HeaderSize + i*IndexEventSize
			ts := uint64(i)*8 + uint64(k)
			putIndexEvent(data[off:], &IndexEvent{Timestamp: ts, ThreadID: uint32(k), DetailSeq: NoDetail})
		}
		r, err := OpenIndexBytes(data)
		if err != nil {
			b.Fatal(err)
		}
		readers = append(readers, r)
	}
	return readers
}

// BenchmarkDetailIterBytes iterates over 4096 detail records of 540 bytes
// (the production tracer's 516-byte payload) held in memory: payloads are
// views, nothing is copied.
func BenchmarkDetailIterBytes(b *testing.B) { benchDetailBytes(b, detailIterLoop) }

// BenchmarkDetailIterBytesFields is BenchmarkDetailIterBytes reading the
// fields through the getters instead of Event:
// ../shared/bench/instr.sh ./atf DetailIterBytesFields 4096 '*detailFieldsLoop'
func BenchmarkDetailIterBytesFields(b *testing.B) { benchDetailBytes(b, detailFieldsLoop) }

// BenchmarkDetailIterReaderAt is BenchmarkDetailIterBytes through an
// io.ReaderAt (the default path of OpenDetailFile, here over bytes):
// ../shared/bench/instr.sh ./atf DetailIterReaderAt 4096 '*detailIterLoop'
func BenchmarkDetailIterReaderAt(b *testing.B) { benchDetail(b, detailIterLoop, false) }

// benchDetailBytes runs loop over the 4096 records per op, in memory.
func benchDetailBytes(b *testing.B, loop func(*DetailFile) uint64) { benchDetail(b, loop, true) }

// benchDetail runs loop over the 4096 records per op, in memory or
// through an io.ReaderAt.
func benchDetail(b *testing.B, loop func(*DetailFile) uint64, mem bool) {
	var idx, det memFile
	tw, _ := NewThreadWriter(&idx, func() (ioWS, error) { return &det, nil }, 0)
	payload := make([]byte, 516)
	for i := range 4096 {
		tw.Write(uint64(i), 1, KindCall, 1, payload)
	}
	tw.Close()
	d, err := OpenDetailBytes(det.b)
	if !mem {
		d, err = OpenDetail(bytes.NewReader(det.b), int64(len(det.b)))
	}
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(det.b)))
	b.ReportAllocs()
	var sum uint64
	for b.Loop() {
		sum += loop(d)
	}
	_ = sum
	reportEvents(b, 4096)
}

// detailIterLoop is the loop of BenchmarkDetailIterBytes, a function of its
// own so that instr.sh counts it alone:
// ../shared/bench/instr.sh ./atf DetailIterBytes 4096 '*detailIterLoop'
//
//go:noinline
func detailIterLoop(d *DetailFile) uint64 {
	var sum uint64
	it := d.Events()
	for it.Next() {
		e := it.Event()
		sum += e.Timestamp + uint64(e.IndexSeq) + uint64(len(e.Payload))
	}
	return sum
}

// detailFieldsLoop is the loop of BenchmarkDetailIterBytesFields.
//
//go:noinline
func detailFieldsLoop(d *DetailFile) uint64 {
	var sum uint64
	it := d.Events()
	for it.Next() {
		sum += it.Timestamp() + uint64(it.IndexSeq()) + uint64(len(it.Payload()))
	}
	return sum
}
