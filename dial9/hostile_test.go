package dial9

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// poolBomb builds a gzip-compressed dial9 stream whose content is n
// one-entry string-pool frames (ids(i) is entry i's id, text every
// entry's string): the shape of a decompression bomb that makes a decoder
// keep a pool entry for every few input bytes.
func poolBomb(n int, ids func(i int) uint32, text string) []byte {
	return bomb(n, func(frame []byte, i int) []byte {
		frame = append(frame, tagStringPool, 1, 0, 0, 0)
		frame = binary.LittleEndian.AppendUint32(frame, ids(i))
		frame = binary.LittleEndian.AppendUint32(frame, uint32(len(text)))
		return append(frame, text...)
	})
}

// bomb gzips a stream header followed by n frames from next.
func bomb(n int, next func(frame []byte, i int) []byte) []byte {
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	_, _ = zw.Write([]byte(Magic + "\x01"))
	frame := make([]byte, 0, 64<<10)
	for i := 0; i < n; i++ {
		frame = next(frame, i)
		if len(frame) > 60<<10 {
			_, _ = zw.Write(frame)
			frame = frame[:0]
		}
	}
	_, _ = zw.Write(frame)
	_ = zw.Close()
	return gz.Bytes()
}

// schemaBomb: a stream header every 65,536 schemas, each schema a new type
// id with 8 fields (the frames differ only in their id).
func schemaBomb(n int) []byte {
	return bomb(n, func(frame []byte, i int) []byte {
		if i > 0 && i%65536 == 0 {
			frame = append(frame, Magic+"\x01"...)
		}
		s := Schema{ID: uint16(i), Name: "S", HasTimestamp: true}
		for range 8 {
			s.Fields = append(s.Fields, FieldDef{"", TypeVarint})
		}
		return AppendSchema(frame, &s)
	})
}

// stackBomb: stack-pool entries of 16 identical addresses under sequential
// ids.
func stackBomb(n int) []byte {
	return bomb(n, func(frame []byte, i int) []byte {
		frame = append(frame, tagStackPool, 1, 0, 0, 0)
		return appendStackEntry(frame, uint32(i), make([]uint64, 16))
	})
}

// decodeMeasured reads every frame of in through NewReader and returns the
// frames read, the bytes allocated meanwhile, the time and the error.
func decodeMeasured(in []byte, opts ...Option) (frames int, alloc uint64, elapsed time.Duration, err error) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	r, err := NewReader(bytes.NewReader(in), opts...)
	if err == nil {
		for r.NextFrame() {
			frames++
		}
		err = r.Err()
	}
	elapsed = time.Since(start)
	runtime.ReadMemStats(&m1)
	return frames, m1.TotalAlloc - m0.TotalAlloc, elapsed, err
}

// TestHostilePoolBombs decodes generated pool-entry bombs and checks the
// memory budget of the package doc: everything the decode allocates (the
// heap it can ever need, garbage included) stays within 64 × the input
// bytes + 16 MiB, the input of a gzip stream being its compressed bytes,
// and the bombs that would need more fail with ErrLimit.
func TestHostilePoolBombs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	n := 1_000_000
	if testing.Short() {
		n = 200_000
	}
	long := strings.Repeat("a", 200)
	for _, c := range []struct {
		name  string
		gz    []byte
		limit string // "" = decodes fully
	}{
		// Long identical strings under sequential ids: ~200 kept bytes per
		// ~3 compressed bytes.
		{"sequential ids, 200-byte strings", poolBomb(n, func(i int) uint32 { return uint32(i) }, long), "memory"},
		// One id redefined: over 500:1.
		{"one id, short string", poolBomb(4*n, func(int) uint32 { return 7 }, "ab"), "ratio"},
		// Sparse ids (a map entry each) and dense ids: within the budget.
		{"sparse ids", poolBomb(n/2, func(i int) uint32 { return uint32(i) * 2654435761 }, "ab"), ""},
		{"sequential ids, short strings", poolBomb(n, func(i int) uint32 { return uint32(i) }, "ab"), ""},
		// Schemas and stacks: charged per element; within the budget or
		// ErrLimit, never more memory.
		{"schemas", schemaBomb(n / 2), "any"},
		{"stacks", stackBomb(n / 2), "any"},
	} {
		t.Run(c.name, func(t *testing.T) {
			frames, alloc, el, err := decodeMeasured(c.gz)
			budget := uint64(64*len(c.gz) + 16<<20)
			t.Logf("%d gzip bytes: %d frames in %v, %.1f MB allocated (budget %.1f MB), %v", len(c.gz), frames, el, float64(alloc)/1e6, float64(budget)/1e6, err)
			if alloc > budget {
				t.Errorf("allocated %d bytes, over the budget of %d", alloc, budget)
			}
			switch c.limit {
			case "any":
				if err != nil && !errors.Is(err, ErrLimit) {
					t.Errorf("want nil or ErrLimit, got %v", err)
				}
			case "":
				if err != nil {
					t.Errorf("error within the budget: %v", err)
				}
			case "memory", "ratio":
				want := map[string]string{"memory": "budget", "ratio": "MaxDecompressionRatio"}[c.limit]
				if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), want) {
					t.Errorf("want ErrLimit (%s), got %v", want, err)
				}
			}
		})
	}
}

// The same pool shapes without gzip: a Reader over bytes keeps views, a
// streaming one copies; both stay within 64 × input + 16 MiB.
func TestHostilePoolsPlain(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	plain, err := gunzip(poolBomb(300_000, func(i int) uint32 { return uint32(i) * 2654435761 }, "ab"))
	must(t, err)
	_, alloc, _, err := decodeMeasured(plain)
	if budget := uint64(64*len(plain) + 16<<20); err != nil || alloc > budget {
		t.Fatalf("streaming: %v, %d allocated, budget %d", err, alloc, budget)
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	r, err := NewBytesReader(plain)
	must(t, err)
	for r.NextFrame() {
	}
	must(t, r.Err())
	runtime.ReadMemStats(&m1)
	if a, budget := m1.TotalAlloc-m0.TotalAlloc, uint64(64*len(plain)+16<<20); a > budget {
		t.Fatalf("bytes: %d allocated, budget %d", a, budget)
	}
}

// Limits.MaxMemory replaces the proportional budget; MaxDecompressionRatio
// can be raised.
func TestMemoryLimits(t *testing.T) {
	gz := poolBomb(100_000, func(i int) uint32 { return uint32(i) }, "ab")
	if _, _, _, err := decodeMeasured(gz, WithLimits(Limits{MaxMemory: 1 << 20})); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxMemory") {
		t.Fatalf("MaxMemory 1 MiB: %v", err)
	}
	if _, _, _, err := decodeMeasured(gz, WithLimits(Limits{MaxMemory: 64 << 20})); err != nil {
		t.Fatalf("MaxMemory 64 MiB: %v", err)
	}
	ratio := poolBomb(400_000, func(int) uint32 { return 7 }, "ab")
	if _, _, _, err := decodeMeasured(ratio, WithLimits(Limits{MaxDecompressionRatio: 10_000})); err != nil {
		t.Fatalf("ratio 10000:1: %v", err)
	}
	if _, err := NewReader(bytes.NewReader(ratio), WithLimits(Limits{MaxDecompressionRatio: -1})); err == nil {
		t.Fatal("negative ratio accepted")
	}
}
