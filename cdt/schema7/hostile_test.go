package schema7

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/internal/hugebuf"
)

// underBudget runs f and fails when its allocations pass 64 × n + 16 MiB
// (n the input size, counting the decompressed chunks held, as the cdt
// package doc states its budget) or when it takes more than 5 s of process CPU time
// (where measurable; 50 s under the race detector).
func underBudget(t *testing.T, name string, n int, f func()) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	off := hugebuf.OffHeapBytes()
	c0, ok0 := processCPU()
	f()
	c1, ok1 := processCPU()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc + hugebuf.OffHeapBytes() - off // cdt's batch arenas are mapped outside the heap
	limit := uint64(64*n + 16<<20)
	t.Logf("%s: input %d bytes, allocated %d bytes (budget %d), CPU %v", name, n, alloc, limit, c1-c0)
	if alloc > limit {
		t.Errorf("%s: allocated %d bytes for %d input bytes, budget %d", name, alloc, n, limit)
	}
	bound := 5 * time.Second
	if raceEnabled {
		bound *= 10
	}
	if ok0 && ok1 && c1-c0 > bound {
		t.Errorf("%s: %v of CPU time", name, c1-c0)
	}
}

// metaTrace writes a one-tick trace whose META producer dict holds value
// (raw msgpack) under "x".
func metaTrace(t *testing.T, value []byte, opts ...cdt.WriterOption) []byte {
	t.Helper()
	meta := NewTraceMeta("2026-01-01T00:00:00+00:00", AnyMap{{Key: "x", Value: value}}, nil, nil, 0, 0, 1)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &meta, opts...)
	if err != nil {
		t.Fatal(err)
	}
	rec := DemoTick(0, 1)
	if err := w.Append(&rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("TRACECODEC_WRITE_HOSTILE"); dir != "" {
		os.WriteFile(filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+"_"+strconv.Itoa(len(value))+".cdt"), buf.Bytes(), 0o644)
	}
	return buf.Bytes()
}

// nils is an array32 of n nils.
func nils(n int) []byte {
	b := msgp.AppendArrayHeader(nil, uint32(n))
	return append(b, bytes.Repeat([]byte{0xc0}, n)...)
}

// nested is depth arrays, each holding the next one and then k nils.
func nested(depth, k int) []byte {
	var b []byte
	for i := range depth {
		n := k + 1
		if i == depth-1 {
			n = k
		}
		b = msgp.AppendArrayHeader(b, uint32(n))
	}
	return append(b, bytes.Repeat([]byte{0xc0}, depth*k)...)
}

// Free-form META dicts are rendered (dump --type meta) within a memory
// budget: a few KB of nils used to cost ≈150 bytes of Go memory each.
func TestHostileMetaValues(t *testing.T) {
	cases := []struct {
		name  string
		value []byte
		opts  []cdt.WriterOption
		ok    bool // fits the budget and renders
	}{
		{"4 KB of nils, raw META", nils(4500), []cdt.WriterOption{cdt.WithRawChunks()}, true},
		{"nested arrays, raw META", nested(90, 50), []cdt.WriterOption{cdt.WithRawChunks()}, true},
		{"60 KB of nils, raw META", nils(60 << 10), []cdt.WriterOption{cdt.WithRawChunks()}, false},
		{"1 MiB of nils in a zstd META", nils(1<<20 - 16<<10), nil, false},
		{"nested arrays in a zstd META", nested(90, 11000), nil, false},
	}
	// Beyond the ratio floor, the zstd META chunk is refused unread.
	data := metaTrace(t, nils(2<<20))
	underBudget(t, "2 MiB of nils in a zstd META", len(data), func() {
		if _, err := cdt.OpenBytes(data); !errors.Is(err, cdt.ErrLimit) {
			t.Errorf("2 MiB of nils: %v", err)
		}
	})
	for _, c := range cases {
		data := metaTrace(t, c.value, c.opts...)
		var out []byte
		underBudget(t, c.name, len(data), func() {
			f, err := cdt.OpenBytes(data)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := ReadMeta(f)
			if err != nil {
				t.Fatal(err)
			}
			out = AppendJSON(nil, m)
		})
		undecodable := bytes.Contains(out, []byte("<undecodable: pyjson: msgpack value needs more memory than its budget>"))
		if undecodable == c.ok {
			t.Errorf("%s: rendered %d bytes, undecodable %v", c.name, len(out), undecodable)
		}
	}
}

// worstRow is a TickRecord that makes the typed decoder allocate as much Go
// memory per input byte as the schema allows: every array of structs at the
// 8192-element limit with empty maps (1 byte each, 40-184 bytes decoded), and
// player_nonzero_counts filled with empty arrays (1 byte, 24 bytes decoded)
// up to about size bytes.
func worstRow(size int) []byte {
	const n = 8192
	empties := func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, n)
		return append(b, bytes.Repeat([]byte{0x80}, n)...)
	}
	key := msgp.AppendString
	b := msgp.AppendMapHeader(nil, 6)
	b = appendInt(key(b, "tick_index"), 0)
	b = appendInt(key(b, "elapsed_ms"), 0)
	b = appendInt(key(b, "dt_ms_i32"), 0)
	b = appendInt(key(b, "mode_id"), 0)
	b = msgp.AppendMapHeader(key(b, "channels"), 5)
	b = msgp.AppendMapHeader(key(b, "checkpoint"), 5)
	b = empties(key(b, "players"))
	b = empties(key(b, "deaths"))
	b = msgp.AppendMapHeader(key(b, "events"), 1)
	b = empties(key(b, "hit_head"))
	b = msgp.AppendMapHeader(key(b, "typo"), 1)
	b = empties(key(b, "active_names"))
	b = msgp.AppendMapHeader(key(b, "perk"), 1)
	b = key(b, "player_nonzero_counts")
	rest := max(size-len(b)-10*n-200, 0)
	outer := min(rest/n+1, n)
	b = msgp.AppendArrayHeader(b, uint32(outer))
	for range outer {
		k := min(rest, n)
		rest -= k
		b = msgp.AppendArrayHeader(b, uint32(k))
		b = append(b, bytes.Repeat([]byte{0x90}, k)...)
	}
	b = msgp.AppendMapHeader(key(b, "sim_state"), 1)
	b = empties(key(b, "players"))
	b = msgp.AppendMapHeader(key(b, "entity_samples"), 4)
	b = empties(key(b, "creatures"))
	b = empties(key(b, "projectiles"))
	b = empties(key(b, "secondary_projectiles"))
	b = empties(key(b, "bonuses"))
	b = empties(key(b, "rng_stream"))
	b = empties(key(b, "timing_samples"))
	b = msgp.AppendArrayHeader(key(b, "phase_markers"), n)
	return append(b, bytes.Repeat([]byte{0xa0}, n)...)
}

// Typed decoding of the most expensive row the schema allows, in a chunk at
// the decompression ratio floor: within the budget of the file plus the one
// chunk held (about 32 MiB for a 1 KB file; 13 MiB for a 256 KiB row).
func TestHostileTypedRow(t *testing.T) {
	row := worstRow(cdt.MinRatioFloor - 200)
	var rec TickRecord
	if err := rec.Decode(row); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	meta := NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, 0, 1)
	w, err := NewWriter(&buf, &meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRow(row); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if dir := os.Getenv("TRACECODEC_WRITE_HOSTILE"); dir != "" {
		os.WriteFile(filepath.Join(dir, "typed_row.cdt"), data, 0o644)
	}
	underBudget(t, "worst typed row", len(data)+cdt.MinRatioFloor, func() {
		f, err := cdt.OpenBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, err := range AllRecords(f) {
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Logf("row of %d msgpack bytes in a file of %d", len(row), len(data))
}

// The ratio limit does not refuse real traces: a long idle stretch (rows
// that differ only in their tick counters) compresses about 150:1 in
// default-sized chunks, which stay under the ratio floor.
func TestIdleTraceReadsWithDefaultLimits(t *testing.T) {
	var buf bytes.Buffer
	meta := NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, 767, 768)
	w, err := NewWriter(&buf, &meta, cdt.WithCompressionLevel(cdt.CompressionBest))
	if err != nil {
		t.Fatal(err)
	}
	for tick := range int64(768) {
		rec := DemoTick(0, 1)
		rec.TickIndex, rec.ElapsedMs = Int(tick), Int(tick*16)
		rec.Channels.Checkpoint.TickIndex = Int(tick)
		rec.Channels.TimingSamples[0].TickIndex = Int(tick)
		if err := w.Append(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := cdt.OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := f.Footer().Blocks[1]
	if ratio := b.UncompressedLen / b.CompressedLen; ratio <= 100 {
		t.Fatalf("chunk ratio %d: not an idle-shaped chunk", ratio)
	}
	n := 0
	for _, err := range AllRecords(f) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 768 {
		t.Fatalf("%d rows", n)
	}
}
