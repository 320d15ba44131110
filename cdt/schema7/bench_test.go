package schema7

import (
	"bytes"
	"io"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/tinylib/msgp/msgp"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/internal/checksum"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// benchRecords decodes the 300 rows of v7_small_300ticks.cdt, the
// reference-shaped workload, and returns them with their total msgpack size.
func benchRecords(b testing.TB) (*TraceMeta, []TickRecord, int64) {
	data := vectortest.Read(b, "cdt", "v7_small_300ticks.cdt")
	r, err := cdt.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	meta, err := ReadMeta(r)
	if err != nil {
		b.Fatal(err)
	}
	var recs []TickRecord
	var n int64
	for row, err := range r.All() {
		if err != nil {
			b.Fatal(err)
		}
		var rec TickRecord
		if err := rec.Decode(row.Raw); err != nil {
			b.Fatal(err)
		}
		recs = append(recs, rec)
		n += int64(len(row.Raw))
	}
	return meta, recs, n
}

// heavyRecords makes the heavier workload of the side-by-side measurement
// (≈4 kB of msgpack per tick instead of ≈2.5 kB): each row of recs with two
// more copies of its creature list, the copies given new uids and slots. The rows are
// deep enough copies that recs is not changed.
func heavyRecords(b testing.TB, recs []TickRecord) ([]TickRecord, int64) {
	out := make([]TickRecord, len(recs))
	var n int64
	for i := range recs {
		rec := recs[i]
		cs := rec.Channels.EntitySamples.Creatures
		more := make([]CreatureEntitySample, 0, 3*len(cs))
		more = append(more, cs...)
		for k := range 2 {
			for _, c := range cs {
				c.UID += Int(k+1) << 20
				c.Index += Int(k+1) << 10
				more = append(more, c)
			}
		}
		rec.Channels.EntitySamples.Creatures = more
		out[i] = rec
		raw, err := rec.MarshalMsg(nil)
		if err != nil {
			b.Fatal(err)
		}
		n += int64(len(raw))
	}
	return out, n
}

// benchPasses repeats the 300 rows (ticks renumbered) so that a benchmark
// trace holds 3000 ticks in 12 chunks, like a real recording rather than a
// two-chunk toy (the reference's figures are for 20 000 ticks).
const benchPasses = 10

func writeTyped(b testing.TB, w io.Writer, meta *TraceMeta, recs []TickRecord, opts ...cdt.WriterOption) {
	wr, err := NewWriter(w, meta, opts...)
	if err != nil {
		b.Fatal(err)
	}
	for p := range benchPasses {
		for i := range recs {
			rec := &recs[i]
			saved := rec.TickIndex
			rec.TickIndex += Int(p * len(recs))
			err := wr.Append(rec)
			rec.TickIndex = saved
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := wr.Close(); err != nil {
		b.Fatal(err)
	}
}

func benchWriteTyped(b *testing.B, opts ...cdt.WriterOption) {
	meta, recs, n := benchRecords(b)
	benchWrite(b, meta, recs, n, opts...)
}

func benchWriteHeavy(b *testing.B, opts ...cdt.WriterOption) {
	meta, recs, _ := benchRecords(b)
	recs, n := heavyRecords(b, recs)
	benchWrite(b, meta, recs, n, opts...)
}

func benchWrite(b *testing.B, meta *TraceMeta, recs []TickRecord, n int64, opts ...cdt.WriterOption) {
	b.SetBytes(n * benchPasses)
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		writeTyped(b, io.Discard, meta, recs, opts...)
	}
	cpu.report(b, len(recs)*benchPasses)
	b.ReportMetric(float64(n)/float64(len(recs)), "B/tick")
}

// cpuMeter adds a cpu-ticks/s metric: ticks per second of process CPU time
// (all goroutines, GC included). On a shared machine it is far steadier than
// the wall-clock ticks/s, which counts time spent waiting for a core; for a
// parallel variant it measures efficiency, not speed.
type cpuMeter struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuMeter {
	t, ok := processCPU()
	return cpuMeter{t, ok}
}

func (m cpuMeter) report(b *testing.B, ticksPerOp int) {
	ticks := float64(ticksPerOp) * float64(b.N)
	b.ReportMetric(ticks/b.Elapsed().Seconds(), "ticks/s")
	if end, ok := processCPU(); ok && m.ok && end > m.start {
		b.ReportMetric(ticks/(end-m.start).Seconds(), "cpu-ticks/s")
	}
}

// BenchmarkWriteTyped encodes typed rows and writes a compressed trace: the
// work the reference's write_trace does (≈54 k ticks/s).
func BenchmarkWriteTyped(b *testing.B)          { benchWriteTyped(b) }
func BenchmarkWriteTypedParallel2(b *testing.B) { benchWriteTyped(b, cdt.WithWriterConcurrency(2)) }

// BenchmarkWriteTypedHeavy is BenchmarkWriteTyped on ≈4 kB rows (see
// heavyRecords); the reference writes ≈34 k of them per CPU-second.
func BenchmarkWriteTypedHeavy(b *testing.B) { benchWriteHeavy(b) }

func benchReadTyped(b *testing.B, opts ...cdt.ReaderOption) {
	meta, recs, n := benchRecords(b)
	benchRead(b, meta, recs, n, opts...)
}

func benchRead(b *testing.B, meta *TraceMeta, recs []TickRecord, n int64, opts ...cdt.ReaderOption) {
	benchReadChunks(b, meta, recs, n, cdt.DefaultChunkTicks, opts...)
}

func benchReadChunks(b *testing.B, meta *TraceMeta, recs []TickRecord, n int64, chunkTicks int, opts ...cdt.ReaderOption) {
	var buf bytes.Buffer
	writeTyped(b, &buf, meta, recs, cdt.WithChunkTicks(chunkTicks))
	r, err := cdt.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.SetBytes(n * benchPasses)
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		for _, err := range Records(r, math.MinInt64, math.MaxInt64) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.report(b, len(recs)*benchPasses)
	b.ReportMetric(float64(n)/float64(len(recs)), "B/tick")
}

// BenchmarkReadTyped reads every row and decodes it into a TickRecord
// (Records): the work of the reference's full typed read (≈14 k ticks/s).
func BenchmarkReadTyped(b *testing.B)          { benchReadTyped(b) }
func BenchmarkReadTypedParallel2(b *testing.B) { benchReadTyped(b, cdt.WithConcurrency(2)) }

// BenchmarkReadTypedHeavy is BenchmarkReadTyped on ≈4 kB rows (see
// heavyRecords); the reference reads ≈8 k of them per CPU-second.
func BenchmarkReadTypedHeavy(b *testing.B) {
	meta, recs, _ := benchRecords(b)
	recs, n := heavyRecords(b, recs)
	benchRead(b, meta, recs, n)
}

// BenchmarkReadTypedHeavyChunk1000 is BenchmarkReadTypedHeavy on chunks of
// 1 000 ticks (≈4 MB each), the shape of the side-by-side benchmark's h5
// trace: large chunks must read as fast per tick as small ones (the
// checksums of a few large chunks are still compared in one pass).
func BenchmarkReadTypedHeavyChunk1000(b *testing.B) {
	meta, recs, _ := benchRecords(b)
	recs, n := heavyRecords(b, recs)
	benchReadChunks(b, meta, recs, n, 1000)
}

// BenchmarkDecodeRecord is the msgpack part alone.
func BenchmarkDecodeRecord(b *testing.B) {
	_, recs, n := benchRecords(b)
	var raws [][]byte
	for i := range recs {
		raw, _ := recs[i].MarshalMsg(nil)
		raws = append(raws, raw)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	var rec TickRecord
	cpu := startCPU()
	for b.Loop() {
		for _, raw := range raws {
			if err := rec.Decode(raw); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.report(b, len(raws))
}

// BenchmarkEncodeRecord is msgpack encoding alone; it allocates nothing.
func BenchmarkEncodeRecord(b *testing.B) {
	_, recs, n := benchRecords(b)
	b.SetBytes(n)
	b.ReportAllocs()
	var buf []byte
	cpu := startCPU()
	for b.Loop() {
		for i := range recs {
			buf, _ = recs[i].MarshalMsg(buf[:0])
		}
	}
	cpu.report(b, len(recs))
}

func TestEncodeAllocs(t *testing.T) {
	rec := DemoTick(9, 3)
	buf, _ := rec.MarshalMsg(nil)
	if a := testing.AllocsPerRun(100, func() { buf, _ = rec.MarshalMsg(buf[:0]) }); a != 0 {
		t.Fatalf("MarshalMsg allocates %v", a)
	}
}

// TestDecodeAllocs pins typed decoding into a reused TickRecord at zero
// allocations per row after warm-up (slices reused, short strings interned).
func TestDecodeAllocs(t *testing.T) {
	r, _ := openVector(t, "v7_small_300ticks")
	var raws [][]byte
	for row, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, bytes.Clone(row.Raw))
	}
	var rec TickRecord
	for _, raw := range raws { // warm up
		if err := rec.Decode(raw); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	allocs := testing.AllocsPerRun(len(raws), func() {
		if err := rec.Decode(raws[i%len(raws)]); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs != 0 {
		t.Fatalf("TickRecord.Decode allocates %v per row", allocs)
	}
}

// BenchmarkContainerOverhead measures the container's own cost on the
// 3000-tick trace of the typed benchmarks (12 chunks): each iteration times the bare work (zstd DecodeAll of every stored chunk plus a
// typed decode of every row, straight from the payload bytes), the BLAKE2b-64
// of every payload alone (eight at a time, as the sequential reader hashes
// them), and then a full Records pass over the same file
// (which adds reading, framing checks, the checksum and block parsing),
// alternating so that machine noise hits all alike. overhead-% =
// full/bare − 1; checksum-% is the BLAKE2b-64 part of it and framing-% the
// rest (reading, header checks, block parsing, copies). Where the OS offers
// it (Linux), the phases are timed in CPU time of the benchmark's locked OS
// thread, so that waiting for a core on a busy machine does not count.
func BenchmarkContainerOverhead(b *testing.B) { benchContainerOverhead(b) }

// BenchmarkContainerOverheadParallel2 is the same with WithConcurrency(2) on
// the full pass: wall-clock overhead when the checksum and decompression of
// the next chunks run beside the typed decode. Phases are timed on the wall
// clock (the work of the full pass is spread over goroutines), and
// checksum-% is then the checksum's cost, not its share of the overhead.
func BenchmarkContainerOverheadParallel2(b *testing.B) {
	benchContainerOverhead(b, cdt.WithConcurrency(2))
}

func benchContainerOverhead(b *testing.B, opts ...cdt.ReaderOption) {
	meta, recs, _ := benchRecords(b)
	var buf bytes.Buffer
	writeTyped(b, &buf, meta, recs)
	data := buf.Bytes()
	r, err := cdt.Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var stored [][]byte
	for _, e := range r.Footer().Blocks {
		stored = append(stored, data[e.FileOffset+cdt.ChunkHeaderSize:e.FileOffset+cdt.ChunkHeaderSize+e.CompressedLen])
	}
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	defer dec.Close()
	sum := checksum.NewBlake2b64()
	var payloads [][]byte
	for _, s := range stored {
		p, err := dec.DecodeAll(s, nil)
		if err != nil {
			b.Fatal(err)
		}
		payloads = append(payloads, p)
	}
	var payload []byte
	var rec TickRecord
	var sums [8]uint64
	var bare, hash, full time.Duration
	now := func() time.Duration { return time.Duration(time.Now().UnixNano()) }
	if len(opts) == 0 {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if _, ok := threadCPU(); ok {
			now = func() time.Duration { t, _ := threadCPU(); return t }
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		t0 := now()
		for _, s := range stored {
			payload, err = dec.DecodeAll(s, payload[:0])
			if err != nil {
				b.Fatal(err)
			}
			rest := payload[1:] // the TickBlock prefix: map, two ticks, array header
			for range 2 {
				rest, _ = msgp.Skip(rest) // key
				rest, _ = msgp.Skip(rest) // value
			}
			rest, _ = msgp.Skip(rest) // "ticks"
			n, rest, _ := msgp.ReadArrayHeaderBytes(rest)
			for range n {
				rec.reset()
				if rest, err = rec.UnmarshalMsg(rest); err != nil {
					b.Fatal(err)
				}
			}
		}
		t1 := now()
		// As the sequential reader hashes: eight payloads per Sums pass.
		for i := 0; i < len(payloads); i += 8 {
			group := payloads[i:min(i+8, len(payloads))]
			sum.Sums(group, sums[:len(group)])
		}
		t2 := now()
		for _, err := range Records(r, math.MinInt64, math.MaxInt64) {
			if err != nil {
				b.Fatal(err)
			}
		}
		t3 := now()
		bare += t1 - t0
		hash += t2 - t1
		full += t3 - t2
	}
	b.ReportMetric(100*(float64(full)/float64(bare)-1), "overhead-%")
	b.ReportMetric(100*float64(hash)/float64(bare), "checksum-%")
	if len(opts) == 0 { // in parallel the checksum is off the critical path
		b.ReportMetric(100*(float64(full-hash)/float64(bare)-1), "framing-%")
	}
}
