package cdt

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/fuzz"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// fuzzLimits keep a fuzzed input's memory small.
var fuzzLimits = Limits{MaxChunkSize: 4 << 20, MaxBlocks: 1 << 12, MaxRowsPerBlock: 1 << 14, MaxDecoderWindow: 4 << 20}

// readAll opens data, walks every block through the index and a random
// access, and reads it again as a stream.
func readAll(data []byte) error {
	r, err := Open(bytes.NewReader(data), int64(len(data)), WithLimits(fuzzLimits))
	var first error
	if err == nil {
		first = r.Validate()
		if f := r.Footer(); first == nil {
			_, _, first = r.Tick(f.FirstTick + (f.LastTick-f.FirstTick)/2)
		}
		r.Close()
	} else {
		first = err
		// The same input through recovery: it reads or fails cleanly.
		if rf, err := Open(bytes.NewReader(data), int64(len(data)), WithLimits(fuzzLimits), WithRecovery()); err == nil {
			if rf.Recovery() == nil {
				panic("cdt: Open failed, Open with recovery read the footer")
			}
			_ = rf.Recovery().String()
			for range rf.All() {
			}
			rf.Close()
		}
	}
	s, err := NewReader(bytes.NewReader(data), WithLimits(fuzzLimits))
	if err != nil {
		return first
	}
	defer s.Close()
	for s.Next() {
	}
	if first == nil {
		first = s.Err()
	}
	return first
}

func FuzzReader(f *testing.F) {
	f.Add(writeTicks(f, testMeta, 5, WithChunkTicks(2)))
	if root, err := vectortest.Root(); err != nil {
		fuzz.NeedSeeds(f, 0, err.Error())
	} else {
		fuzz.SeedDir(f, filepath.Join(root, "cdt"), func(p string) bool { return len(p) > 4 && p[len(p)-4:] == ".cdt" })
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := readAll(data)
		if err == nil {
			return
		}
		var fe *FormatError
		if !errors.As(err, &fe) && !errors.Is(err, ErrClosed) {
			t.Fatalf("error %T is not a *FormatError: %v", err, err)
		}
	})
}

// FuzzWriterRoundTrip writes rows derived from the input and checks that they
// read back identically through the index and the stream.
func FuzzWriterRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 5, 5, 9}, uint8(2), false)
	f.Add([]byte{3}, uint8(0), true)
	f.Fuzz(func(t *testing.T, deltas []byte, chunk uint8, raw bool) {
		if len(deltas) == 0 || len(deltas) > 2000 {
			return
		}
		meta := []byte("\x82\xb4trace_format_version\x01\xb4trace_schema_version\x07")
		opts := []WriterOption{WithChunkTicks(int(chunk%16) + 1)}
		if raw {
			opts = append(opts, WithRawChunks())
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, meta, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var ticks []int64
		tick := int64(0)
		for i, d := range deltas {
			tick += int64(d % 4)
			row := append([]byte("\x82\xaatick_index"), appendInt(nil, tick)...)
			row = append(row, "\xa1p"...)
			row = appendInt(row, int64(i))
			if err := w.WriteRow(row); err != nil {
				t.Fatal(err)
			}
			ticks = append(ticks, tick)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		i := 0
		for row, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if row.Tick != ticks[i] {
				t.Fatalf("row %d tick %d, want %d", i, row.Tick, ticks[i])
			}
			i++
		}
		if i != len(ticks) || r.Footer().TickCount != int64(len(ticks)) {
			t.Fatalf("%d rows, want %d", i, len(ticks))
		}
		// Tick returns the first row of a tick within the first covering block.
		row, ok, err := r.Tick(ticks[len(ticks)-1])
		if err != nil || !ok || row.Tick != ticks[len(ticks)-1] {
			t.Fatalf("Tick(last) = %v %v %v", row, ok, err)
		}
	})
}

// TestSweepVectors runs every vector through the truncation and corruption
// sweeps: each case ends in a clean error or a valid decode, in bounded time
// and memory.
func TestSweepVectors(t *testing.T) {
	for _, name := range traceVectors {
		t.Run(name, func(t *testing.T) {
			data := vectortest.Read(t, "cdt", name)
			opts := fuzz.Options{MaxCases: 2048}
			if len(data) > 10000 {
				opts.MaxCases, opts.RandomEdits = 300, 16
			}
			if testing.Short() || raceEnabled {
				opts.MaxCases, opts.RandomEdits = 128, 8
			}
			fuzz.Sweep(t, data, readAll, opts)
		})
	}
}

// TestPayloadByteChanges changes every byte of every stored chunk payload of
// the tiny vectors (three ways) and requires each change to be caught — by
// zstd, the length check or the checksum — or, for a zstd frame, to decode
// to the very same payload (bits the decoder ignores).
func TestPayloadByteChanges(t *testing.T) {
	for _, name := range traceVectors[:2] {
		t.Run(name, func(t *testing.T) {
			data := vectortest.Read(t, "cdt", name)
			chunks, err := ScanChunks(data)
			if err != nil {
				t.Fatal(err)
			}
			orig := openBytes(t, data)
			changed, harmless := 0, 0
			buf := bytes.Clone(data)
			for _, c := range chunks {
				_, want, err := orig.ReadChunk(c.Offset)
				if err != nil {
					t.Fatal(err)
				}
				start := c.Offset + ChunkHeaderSize
				for i := start; i < start+int64(c.Header.CompressedLen); i++ {
					for _, x := range []byte{0x01, 0x80, 0xff} {
						copy(buf, data)
						buf[i] ^= x
						r, err := Open(bytes.NewReader(buf), int64(len(buf)), WithCacheBlocks(0))
						if err == nil {
							var got []byte
							_, got, err = r.ReadChunk(c.Offset)
							if err == nil && !bytes.Equal(got, want) {
								t.Fatalf("%s chunk at %d: byte %d ^ %#x decodes to a different payload undetected", c.Header.Kind, c.Offset, i, x)
							}
							r.Close()
						}
						changed++
						if err == nil {
							if c.Header.Flags&FlagZstd == 0 {
								t.Fatalf("raw chunk byte %d ^ %#x not caught", i, x)
							}
							harmless++
							continue
						}
						if !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSizeMismatch) {
							t.Fatalf("byte %d ^ %#x: unexpected error %v", i, x, err)
						}
					}
				}
			}
			t.Logf("%d payload byte changes, %d decoded to the identical payload", changed, harmless)
		})
	}
}

func TestIteratorAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under -race; allocation counts are not meaningful")
	}
	data := vectortest.Read(t, "cdt", "v7_small_300ticks.cdt")
	r := openBytes(t, data)
	it := r.Iter(math.MinInt64, math.MaxInt64)
	for it.Next() { // warm up: buffers sized for the largest block
	}
	allocs := testing.AllocsPerRun(5, func() {
		it := r.Iter(math.MinInt64, math.MaxInt64)
		n := 0
		for it.Next() {
			n++
		}
		if n != 300 || it.Err() != nil {
			t.Fatalf("%d rows, %v", n, it.Err())
		}
	})
	// Buffers are pooled per File: a whole pass costs the Iterator value and
	// its iter closure, nothing per block or row.
	if allocs > 3 {
		t.Fatalf("a full pass allocates %v times", allocs)
	}
	it2 := r.Iter(math.MinInt64, math.MaxInt64)
	it2.Next()
	perRow := testing.AllocsPerRun(100, func() {
		if !it2.Next() {
			it2 = r.Iter(math.MinInt64, math.MaxInt64)
			it2.Next()
		}
	})
	if perRow != 0 {
		t.Fatalf("Iterator.Next allocates %v per row", perRow)
	}
}

func TestWriterAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under -race; allocation counts are not meaningful")
	}
	data := vectortest.Read(t, "cdt", "v7_small_300ticks.cdt")
	r := openBytes(t, data)
	rows, err := r.Block(0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(discard{}, r.MetaPayload())
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows { // warm up, including one chunk flush
		if err := w.WriteRow(row.Raw); err != nil {
			t.Fatal(err)
		}
	}
	last := rows[len(rows)-1].Raw // duplicate ticks are allowed
	allocs := testing.AllocsPerRun(len(rows)*2, func() {
		if err := w.WriteRow(last); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("WriteRow allocates %v per row", allocs)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
