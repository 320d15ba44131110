//go:build unix

package cdt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/internal/checksum"
	"github.com/tracecodec/tracecodec/internal/hugebuf"
)

// The memory budget the package doc states: every decoder's allocations stay
// within 64 × input size + 16 MiB. CPU time is bounded generously (these
// inputs take milliseconds; the bound catches a hang or a quadratic walk).
const (
	budgetPerByte = 64
	budgetBase    = 16 << 20
	cpuBound      = 5 * time.Second
)

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// underBudget runs f and fails the test when the bytes it allocated (an upper
// bound of its peak heap) pass the budget for an input of n bytes, or when it
// takes more than cpuBound of process CPU time.
func underBudget(t *testing.T, name string, n int, f func()) {
	t.Helper()
	underBudgetPlus(t, name, n, 0, f)
}

// underBudgetPlus is underBudget allowing extra bytes on top of the budget.
func underBudgetPlus(t *testing.T, name string, n, extra int, f func()) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	off := hugebuf.OffHeapBytes()
	c0 := processCPU()
	f()
	cpu := processCPU() - c0
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc + hugebuf.OffHeapBytes() - off // batch arenas are mapped outside the heap
	limit := uint64(budgetPerByte*n + budgetBase + extra)
	t.Logf("%s: input %d bytes, allocated %d bytes (budget %d), CPU %v", name, n, alloc, limit, cpu)
	if alloc > limit {
		t.Errorf("%s: allocated %d bytes for %d input bytes, budget %d", name, alloc, n, limit)
	}
	if bound := cpuBound; cpu > bound && !(raceEnabled && cpu < 10*bound) {
		t.Errorf("%s: %v of CPU time, bound %v", name, cpu, bound)
	}
}

// saveHostile writes a generated input to $TRACECODEC_WRITE_HOSTILE, so the
// same file can be measured with other builds (tracecat under /usr/bin/time).
// hostileTrace is the META payload and the tick-0 row of generated inputs:
// testMeta and testRow(0), or those of the trace named by
// $TRACECODEC_HOSTILE_META (real schema-7 records, so that tracecat's schema
// layer reads the inputs saveHostile writes).
func hostileTrace(t *testing.T) (meta, row []byte) {
	t.Helper()
	path := os.Getenv("TRACECODEC_HOSTILE_META")
	if path == "" {
		return testMeta, testRow(0)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.Block(0)
	if err != nil || len(rows) == 0 || rows[0].Tick != 0 {
		t.Fatalf("%s: no tick 0 in block 0 (%v)", path, err)
	}
	return f.MetaPayload(), rows[0].Raw
}

func saveHostile(t *testing.T, name string, data []byte) {
	if dir := os.Getenv("TRACECODEC_WRITE_HOSTILE"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// traceWithChunk returns header + raw META + the given chunk (header and
// stored bytes), with no footer: every reader must get to the chunk.
func traceWithChunk(h ChunkHeader, stored []byte) []byte {
	file := append([]byte(Magic), 1, 0, 0, 0)
	file = append(file, rawChunk(KindMeta, -1, -1, testMeta)...)
	file = AppendChunkHeader(file, h)
	return append(file, stored...)
}

// withFooter appends a footer indexing the one TICK chunk at tickOff.
func withFooter(file []byte, tickOff int64, h ChunkHeader) []byte {
	f := Footer{FormatVersion: 1, TickCount: 1, FirstTick: 0, LastTick: 0,
		Blocks: []BlockIndexEntry{{0, 0, tickOff, int64(h.CompressedLen), int64(h.UncompressedLen), h.Checksum}}}
	footerOff := len(file)
	file = append(file, rawChunk(KindFooter, -1, -1, appendFooter(nil, &f))...)
	file = append(file, TrailerMagic...)
	return binary.LittleEndian.AppendUint64(file, uint64(footerOff))
}

// zeros compresses n zero bytes into one zstd frame, with the content size
// in its header when withSize.
func zeros(t *testing.T, n int64, withSize bool) []byte {
	t.Helper()
	var out bytes.Buffer
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	if withSize {
		enc.ResetContentSize(&out, n)
	} else {
		enc.Reset(&out)
	}
	if _, err := io.CopyN(enc, zeroReader{}, n); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// readEverything opens data every way the package offers and reads it to the
// end, returning the errors met.
func readEverything(data []byte) []error {
	var errs []error
	for _, opts := range [][]ReaderOption{nil, {WithRecovery()}, {WithConcurrency(2)}} {
		f, err := OpenBytes(data, opts...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, f.Validate())
		for range f.RawBlocks(0, 1<<40) {
		}
		f.Close()
	}
	s, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return append(errs, err)
	}
	for range s.All() {
	}
	if s.Err() == nil && s.Recovered() && s.Recovery().LostBytes > 0 {
		// The stream reader recovers what precedes a chunk cut short.
		return append(errs, errLostBytes)
	}
	return append(errs, s.Err())
}

var errLostBytes = errors.New("recovered with bytes lost")

func warmUp(t *testing.T) {
	t.Helper()
	data := writeTicks(t, testMeta, 20, WithChunkTicks(3))
	readEverything(data)
}

// A tiny zstd chunk that claims 64 MiB: refused by the ratio limit before
// anything is decompressed (the old reader allocated the 64 MiB).
func TestHostileDecompressionRatio(t *testing.T) {
	warmUp(t)
	const n = 64 << 20
	stored := zeros(t, n, true)
	h := ChunkHeader{Kind: KindTick, Flags: DefaultFlags, CompressedLen: uint32(len(stored)), UncompressedLen: n}
	file := traceWithChunk(h, stored)
	file = withFooter(file, int64(len(file)-len(stored)-ChunkHeaderSize), h)
	saveHostile(t, "ratio_bomb.cdt", file)
	var errs []error
	underBudget(t, "ratio bomb", len(file), func() { errs = readEverything(file) })
	for _, err := range errs {
		if !errors.Is(err, ErrLimit) {
			t.Errorf("want ErrLimit, got %v", err)
		}
	}
	// A caller that trusts its input raises the ratio: the chunk is then
	// decompressed (and fails its checksum, which this test does not set).
	small := zeros(t, 4<<20, true)
	h = ChunkHeader{Kind: KindTick, Flags: DefaultFlags, CompressedLen: uint32(len(small)), UncompressedLen: 4 << 20}
	file = traceWithChunk(h, small)
	file = withFooter(file, int64(len(file)-len(small)-ChunkHeaderSize), h)
	if err := openAndValidate(file); !errors.Is(err, ErrLimit) {
		t.Fatalf("4 MiB bomb: %v", err)
	}
	f, err := OpenBytes(file, WithLimits(Limits{MaxDecompressionRatio: 1 << 20}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Validate(); !errors.Is(err, ErrChecksum) {
		t.Fatalf("with a raised ratio: %v", err)
	}
}

// A correct first frame followed by a second frame without a content size:
// the decoder stops at the declared uncompressed_len (the old reader
// decompressed all 64 MiB of the second frame).
func TestHostileSecondFrame(t *testing.T) {
	warmUp(t)
	payload := appendBlockPrefix(nil, 0, 0, 1)
	payload = append(payload, testRow(0)...)
	enc, err := encoderFor(encKeyFor(CompressionFastest, encSmall)) // the writer's: single segment, content size set
	if err != nil {
		t.Fatal(err)
	}
	stored := enc.EncodeAll(payload, nil)
	var zh zstd.Header
	if err := zh.Decode(stored); err != nil || !zh.HasFCS || zh.FrameContentSize != uint64(len(payload)) {
		t.Fatalf("first frame header %+v: %v", zh, err)
	}
	stored = append(stored, zeros(t, 64<<20, false)...)
	h := ChunkHeader{Kind: KindTick, Flags: DefaultFlags, CompressedLen: uint32(len(stored)),
		UncompressedLen: uint32(len(payload)), Checksum: checksum.NewBlake2b64().Sum(payload)}
	file := traceWithChunk(h, stored)
	file = withFooter(file, int64(len(file)-len(stored)-ChunkHeaderSize), h)
	saveHostile(t, "second_frame_bomb.cdt", file)
	var errs []error
	underBudget(t, "second frame", len(file), func() { errs = readEverything(file) })
	for _, err := range errs {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSizeMismatch) {
			t.Errorf("want ErrCorrupt or ErrSizeMismatch, got %v", err)
		}
	}
}

// floorChunks is a file of n TICK chunks, each at the ratio floor (1 MiB of
// msgpack from a few hundred bytes of zstd).
func floorChunks(t *testing.T, n int) []byte {
	t.Helper()
	// A TickBlock map: start_tick, end_tick, a "pad" string, one row.
	payload := msgp.AppendMapHeader(nil, 4)
	payload = msgp.AppendString(payload, "start_tick")
	payload = appendInt(payload, 0)
	payload = msgp.AppendString(payload, "end_tick")
	payload = appendInt(payload, 0)
	payload = msgp.AppendString(payload, "pad")
	meta, tick := hostileTrace(t)
	row := msgp.AppendArrayHeader(msgp.AppendString(nil, "ticks"), 1)
	row = append(row, tick...)
	pad := MinRatioFloor - len(payload) - 5 - len(row)
	payload = append(msgp.AppendStringFromBytes(payload, make([]byte, pad)), row...)
	if len(payload) != MinRatioFloor {
		t.Fatalf("payload is %d bytes", len(payload))
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	stored := enc.EncodeAll(payload, nil)
	h := ChunkHeader{Kind: KindTick, Flags: DefaultFlags, CompressedLen: uint32(len(stored)),
		UncompressedLen: MinRatioFloor, Checksum: checksum.NewBlake2b64().Sum(payload)}
	file := append([]byte(Magic), 1, 0, 0, 0)
	file = append(file, rawChunk(KindMeta, -1, -1, meta)...)
	var footer Footer
	for range n {
		footer.Blocks = append(footer.Blocks, BlockIndexEntry{0, 0, int64(len(file)), int64(len(stored)), MinRatioFloor, h.Checksum})
		file = AppendChunkHeader(file, h)
		file = append(file, stored...)
	}
	footer.FormatVersion, footer.TickCount = 1, int64(n)
	footerOff := len(file)
	file = append(file, rawChunk(KindFooter, -1, -1, appendFooter(nil, &footer))...)
	file = append(file, TrailerMagic...)
	return binary.LittleEndian.AppendUint64(file, uint64(footerOff))
}

// Many chunks, each at the ratio floor: the floor exempts one chunk's worth
// per file, not each chunk (issue 21: 3 000 chunks of ≈940 bytes inflating
// to 1 MiB each cost 606 MB and 2.3 µs per input byte). Every reader refuses
// the file with ErrLimit as soon as the chunks read together pass the ratio,
// within the budget; a reader that raises MaxDecompressionRatio reads it.
func TestHostileManyFloorChunks(t *testing.T) {
	warmUp(t)
	file := floorChunks(t, 3000)
	saveHostile(t, "floor_chunks.cdt", file)
	var errs []error
	underBudget(t, "3000 chunks at the ratio floor", len(file), func() { errs = readEverything(file) })
	for _, err := range errs { // WithRecovery too: a limit is no damage to recover from
		if !errors.Is(err, ErrLimit) {
			t.Errorf("chunks over the ratio together: got %v, want ErrLimit", err)
		}
	}
	// Without a footer (a crashed writer), recovery meets the limit as well.
	cut := file[:len(file)/2]
	if _, err := OpenBytes(cut, WithRecovery()); !errors.Is(err, ErrLimit) {
		t.Errorf("WithRecovery, no footer: got %v, want ErrLimit", err)
	}
	small := floorChunks(t, 32)
	var err error
	underBudgetPlus(t, "32 chunks at the ratio floor, ratio raised", len(small), 2*batchBytes, func() {
		var f *File
		if f, err = OpenBytes(small, WithLimits(Limits{MaxDecompressionRatio: 1 << 20})); err == nil {
			err = f.Validate()
		}
	})
	if err != nil {
		t.Errorf("with MaxDecompressionRatio raised: %v", err)
	}
}

// A footer that lists the same chunk 20 000 times (issue 21: every command
// took 40–60 s and validate --strict reported 20 000 ticks for a file
// holding one): Open refuses the block index with ErrFooter at once, and
// recovery rebuilds it from the chunks themselves — one tick.
func TestHostileRepeatedFooterEntry(t *testing.T) {
	meta, e, tick := oneTickChunk(t)
	file := append([]byte(Magic), 1, 0, 0, 0)
	file = append(file, rawChunk(KindMeta, -1, -1, meta)...)
	e.FileOffset = int64(len(file))
	file = append(file, tick...)
	footer := Footer{FormatVersion: 1, TickCount: 20000}
	for range 20000 {
		footer.Blocks = append(footer.Blocks, e)
	}
	footerOff := len(file)
	file = append(file, rawChunk(KindFooter, -1, -1, appendFooter(nil, &footer))...)
	file = append(file, TrailerMagic...)
	file = binary.LittleEndian.AppendUint64(file, uint64(footerOff))
	saveHostile(t, "repeated_footer_entry.cdt", file)
	var errs []error
	underBudget(t, "one chunk listed 20000 times", len(file), func() { errs = readEverything(file) })
	if !errors.Is(errs[0], ErrFooter) {
		t.Errorf("Open: got %v, want ErrFooter", errs[0])
	}
	r, err := OpenBytes(file, WithRecovery())
	if err != nil {
		t.Fatal(err)
	}
	if rep := r.Recovery(); rep == nil || rep.Ticks != 1 || !errors.Is(rep.Reason, ErrFooter) {
		t.Errorf("recovery: %+v, want 1 tick and the footer's ErrFooter as the reason", rep)
	}
	// Blocks out of file order overlap too.
	footer.Blocks = []BlockIndexEntry{e, e}
	footer.Blocks[0].FileOffset += 8
	if err := checkBlockIndex(0, footer.Blocks, defaultReaderOptions().limits); !errors.Is(err, ErrFooter) {
		t.Errorf("overlapping entries: got %v, want ErrFooter", err)
	}
}

// Hostile counts and lengths in the container: each is rejected against the
// bytes present before anything is allocated.
func TestHostileCounts(t *testing.T) {
	warmUp(t)
	// A footer whose block index declares 1<<22 entries in a few bytes, a
	// TICK chunk declaring 1<<20 rows, a chunk header claiming 256 MiB.
	idx := []byte("\x86\xb4trace_format_version\x01\xabtick_blocks\xdd\x00\x40\x00\x00")
	rows := appendBlockPrefix(nil, 0, 0, 1<<20)
	cases := map[string][]byte{}
	file := append([]byte(Magic), 1, 0, 0, 0)
	file = append(file, rawChunk(KindMeta, -1, -1, testMeta)...)
	footerOff := len(file)
	f1 := append(bytes.Clone(file), rawChunk(KindFooter, -1, -1, idx)...)
	f1 = append(f1, TrailerMagic...)
	cases["footer index count"] = binary.LittleEndian.AppendUint64(f1, uint64(footerOff))
	f2 := append(bytes.Clone(file), rawChunk(KindTick, 0, 0, rows)...)
	cases["rows per chunk"] = withFooter(f2, int64(footerOff), ChunkHeader{})
	f3 := AppendChunkHeader(bytes.Clone(file), ChunkHeader{Kind: KindTick, Flags: FlagMsgpack, CompressedLen: 256 << 20, UncompressedLen: 256 << 20})
	cases["chunk length"] = withFooter(f3, int64(footerOff), ChunkHeader{})
	for name, data := range cases {
		var errs []error
		underBudget(t, name, len(data), func() { errs = readEverything(data) })
		for _, err := range errs {
			if err == nil {
				t.Errorf("%s: accepted", name)
			}
		}
	}
}

// A footer entry whose uncompressed_len is not its chunk's: the sequential
// iterator sizes its batch arena from the entries, within what the footer's
// ratio budget lets through at Open (checkBlockIndex), reads the chunk by
// its own header and then refuses the mismatch (checkEntry) — within the
// memory and time budget, with the footer's sentinel.
func TestHostileFooterEntryLength(t *testing.T) {
	meta, real, tick := oneTickChunk(t)
	for _, lie := range []int64{real.UncompressedLen + 900_000, real.UncompressedLen - 1, 0, -5} {
		file := append([]byte(Magic), 1, 0, 0, 0)
		file = append(file, rawChunk(KindMeta, -1, -1, meta)...)
		e := real
		e.FileOffset, e.UncompressedLen = int64(len(file)), lie
		file = append(file, tick...)
		footer := Footer{FormatVersion: 1, TickCount: 1, Blocks: []BlockIndexEntry{e}}
		footerOff := len(file)
		file = append(file, rawChunk(KindFooter, -1, -1, appendFooter(nil, &footer))...)
		file = append(file, TrailerMagic...)
		file = binary.LittleEndian.AppendUint64(file, uint64(footerOff))
		var errs []error
		underBudgetPlus(t, fmt.Sprintf("entry uncompressed_len %d", lie), len(file), 1<<20, func() { errs = readEverything(file) })
		if !errors.Is(errs[0], ErrFooter) {
			t.Errorf("entry uncompressed_len %d (chunk %d): got %v, want ErrFooter", lie, real.UncompressedLen, errs[0])
		}
		r, err := OpenBytes(file)
		if err != nil {
			continue // refused at Open: nothing was decompressed
		}
		n := 0
		for _, err := range r.All() {
			if err != nil {
				if !errors.Is(err, ErrFooter) {
					t.Errorf("entry uncompressed_len %d: iteration: %v, want ErrFooter", lie, err)
				}
				break
			}
			n++
		}
		if n != 0 {
			t.Errorf("entry uncompressed_len %d: %d rows read from a mismatched chunk", lie, n)
		}
		r.Close()
	}
}

// oneTickChunk writes the hostile trace's one row and returns its metadata,
// the footer entry of its one tick chunk and that chunk's bytes (header
// included), for tests that build files around the chunk.
func oneTickChunk(t *testing.T) (meta []byte, e BlockIndexEntry, tick []byte) {
	t.Helper()
	warmUp(t)
	meta, row := hostileTrace(t)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRow(row); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	one := buf.Bytes()
	f, err := OpenBytes(one)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e = f.Footer().Blocks[0]
	return meta, e, one[e.FileOffset : e.FileOffset+ChunkHeaderSize+e.CompressedLen]
}
