package cdt

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/internal/checksum"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// benchRows returns the 300 rows and meta of v7_small_300ticks.cdt, the
// reference-shaped workload (≈2.5 kB of msgpack per tick).
func benchRows(b testing.TB) (meta []byte, rows [][]byte, msgpackBytes int64) {
	data := vectortest.Read(b, "cdt", "v7_small_300ticks.cdt")
	r, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for row, err := range r.All() {
		if err != nil {
			b.Fatal(err)
		}
		rows = append(rows, bytes.Clone(row.Raw))
		msgpackBytes += int64(len(row.Raw))
	}
	return bytes.Clone(r.MetaPayload()), rows, msgpackBytes
}

func benchWrite(b *testing.B, opts ...WriterOption) {
	meta, rows, n := benchRows(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewWriter(io.Discard, meta, opts...)
		if err != nil {
			b.Fatal(err)
		}
		for _, row := range rows {
			if err := w.WriteRow(row); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "ticks/s")
}

// BenchmarkWrite: raw rows → zstd chunks (MB/s of msgpack written).
func BenchmarkWrite(b *testing.B)          { benchWrite(b) }
func BenchmarkWriteParallel2(b *testing.B) { benchWrite(b, WithWriterConcurrency(2)) }
func BenchmarkWriteRaw(b *testing.B)       { benchWrite(b, WithRawChunks()) }

func benchRead(b *testing.B, opts ...ReaderOption) {
	data := vectortest.Read(b, "cdt", "v7_small_300ticks.cdt")
	_, _, n := benchRows(b)
	r, err := Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.SetBytes(n)
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		it := r.Iter(math.MinInt64, math.MaxInt64)
		for it.Next() {
			rows++
		}
		if it.Err() != nil {
			b.Fatal(it.Err())
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "ticks/s")
}

// BenchmarkRead: every row as raw msgpack through the footer index.
func BenchmarkRead(b *testing.B)          { benchRead(b) }
func BenchmarkReadParallel2(b *testing.B) { benchRead(b, WithConcurrency(2)) }

// BenchmarkReadParts splits one full read into its parts so the container's
// own cost (ReadAt copy, checksum, row splitting) can be set against the zstd
// work it wraps.
func BenchmarkReadParts(b *testing.B) {
	data := vectortest.Read(b, "cdt", "v7_small_300ticks.cdt")
	r, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var stored, payloads [][]byte
	var total int64
	for _, e := range r.Footer().Blocks {
		stored = append(stored, data[e.FileOffset+ChunkHeaderSize:e.FileOffset+ChunkHeaderSize+e.CompressedLen])
		_, p, err := r.ReadChunk(e.FileOffset)
		if err != nil {
			b.Fatal(err)
		}
		payloads = append(payloads, p)
		total += int64(len(p))
	}
	b.Run("zstd", func(b *testing.B) {
		dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		defer dec.Close()
		var dst []byte
		b.SetBytes(total)
		for b.Loop() {
			for _, s := range stored {
				dst, _ = dec.DecodeAll(s, dst[:0])
			}
		}
	})
	b.Run("msgpack-walk", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			for _, p := range payloads {
				if _, err := msgp.Skip(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("checksum", func(b *testing.B) {
		h := checksum.NewBlake2b64()
		b.SetBytes(total)
		for b.Loop() {
			for _, p := range payloads {
				h.Sum(p)
			}
		}
	})
	b.Run("split-rows", func(b *testing.B) {
		var rows []Row
		b.SetBytes(total)
		for b.Loop() {
			for _, p := range payloads {
				_, _, rows, _ = parseBlock(0, p, rows, DefaultLimits())
			}
		}
	})
}
