package cdt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// rewrite writes the rows and meta of r into a new file with the given options.
func rewrite(t testing.TB, r *File, opts ...WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, r.MetaPayload(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	for row, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRow(row.Raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func chunkTicksOf(t testing.TB, name string) int {
	var manifest map[string]struct {
		ChunkTicks int `json:"chunk_ticks"`
	}
	if err := json.Unmarshal(vectortest.Read(t, "cdt", "manifest.json"), &manifest); err != nil {
		t.Fatal(err)
	}
	n := manifest[name].ChunkTicks
	if n == 0 {
		t.Fatalf("manifest has no chunk_ticks for %s", name)
	}
	return n
}

// TestRoundTripVectors rewrites every vector from its decoded rows and checks
// what the reference reader checks, plus payload identity with the original.
func TestRoundTripVectors(t *testing.T) {
	for _, name := range traceVectors {
		for _, conc := range []int{1, 3} {
			t.Run(name, func(t *testing.T) {
				orig := vectortest.Read(t, "cdt", name)
				r := openBytes(t, orig)
				opts := []WriterOption{WithChunkTicks(chunkTicksOf(t, name)), WithWriterConcurrency(conc)}
				raw := strings.Contains(name, "flags2")
				if raw {
					opts = append(opts, WithRawChunks())
				}
				got := rewrite(t, r, opts...)
				if raw && !bytes.Equal(got, orig) {
					t.Fatalf("raw rewrite differs from the vector (%d vs %d bytes)", len(got), len(orig))
				}
				checkLikeReference(t, got)
				r2 := openBytes(t, got)
				// Same rows, same meta, same payload bytes and checksums chunk by chunk.
				if !bytes.Equal(r2.MetaPayload(), r.MetaPayload()) {
					t.Fatal("meta payload differs")
				}
				var a, b [][]byte
				for row, err := range r.All() {
					if err != nil {
						t.Fatal(err)
					}
					a = append(a, bytes.Clone(row.Raw))
				}
				for row, err := range r2.All() {
					if err != nil {
						t.Fatal(err)
					}
					b = append(b, bytes.Clone(row.Raw))
				}
				if len(a) != len(b) {
					t.Fatalf("%d rows, want %d", len(b), len(a))
				}
				for i := range a {
					if !bytes.Equal(a[i], b[i]) {
						t.Fatalf("row %d differs", i)
					}
				}
				fa, fb := r.Footer(), r2.Footer()
				if len(fa.Blocks) != len(fb.Blocks) || fa.TickCount != fb.TickCount || fa.FirstTick != fb.FirstTick ||
					fa.LastTick != fb.LastTick || len(fa.ChannelCounts) != len(fb.ChannelCounts) {
					t.Fatalf("footer %+v, want %+v", fb, fa)
				}
				for i := range fa.Blocks {
					x, y := fa.Blocks[i], fb.Blocks[i]
					if x.StartTick != y.StartTick || x.EndTick != y.EndTick || x.UncompressedLen != y.UncompressedLen || x.Checksum != y.Checksum {
						t.Fatalf("block %d = %+v, want %+v", i, y, x)
					}
				}
				for i := range fa.ChannelCounts {
					if fa.ChannelCounts[i] != fb.ChannelCounts[i] {
						t.Fatalf("channel_counts %v, want %v", fb.ChannelCounts, fa.ChannelCounts)
					}
				}
			})
		}
	}
}

// checkLikeReference applies the reference reader's file checks and the frame
// facts python-zstandard needs to data: contiguous chunks META, TICK…, FOTR,
// each zstd chunk one frame with its content size, no checksum, no dictionary.
func checkLikeReference(t testing.TB, data []byte) {
	t.Helper()
	chunks, err := ScanChunks(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 3 || chunks[0].Header.Kind != KindMeta || chunks[len(chunks)-1].Header.Kind != KindFooter {
		t.Fatalf("chunk sequence %v", chunks)
	}
	r := openBytes(t, data)
	if r.FooterOffset() != chunks[len(chunks)-1].Offset {
		t.Fatalf("footer_offset %d, FOTR at %d", r.FooterOffset(), chunks[len(chunks)-1].Offset)
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	for i, c := range chunks {
		h := c.Header
		if i > 0 && i < len(chunks)-1 && h.Kind != KindTick {
			t.Fatalf("chunk %d kind %s", i, h.Kind)
		}
		if h.Kind != KindTick && (h.StartTick != -1 || h.EndTick != -1) {
			t.Fatalf("chunk %d %s ticks %d..%d", i, h.Kind, h.StartTick, h.EndTick)
		}
		stored := data[c.Offset+ChunkHeaderSize : c.Offset+ChunkHeaderSize+int64(h.CompressedLen)]
		if h.Flags&FlagZstd != 0 {
			var zh zstd.Header
			if err := zh.Decode(stored); err != nil {
				t.Fatal(err)
			}
			if !zh.HasFCS || zh.FrameContentSize != uint64(h.UncompressedLen) || !zh.SingleSegment || zh.HasCheckSum || zh.DictionaryID != 0 {
				t.Fatalf("chunk %d frame header %+v", i, zh)
			}
			if int(zh.HeaderSize)+int(zh.FirstBlock.CompressedSize) > len(stored) && !zh.FirstBlock.Last {
				t.Fatalf("chunk %d frame exceeds the stored bytes", i)
			}
		} else if h.CompressedLen != h.UncompressedLen {
			t.Fatalf("raw chunk %d lengths %d/%d", i, h.CompressedLen, h.UncompressedLen)
		}
		if _, _, err := r.ReadChunk(c.Offset); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
	}
}

func TestWriterErrors(t *testing.T) {
	data := vectortest.Read(t, "cdt", "v7_tiny_3ticks_chunk2.cdt")
	r := openBytes(t, data)
	rows, err := r.Block(0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, r.MetaPayload())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRow(rows[1].Raw); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRow(rows[0].Raw); !errors.Is(err, ErrTickOrder) {
		t.Fatalf("decreasing tick: %v", err)
	}
	if err := w.WriteRow(rows[1].Raw); err != nil {
		t.Fatalf("duplicate tick: %v", err)
	}
	if err := w.WriteRow([]byte{0x80}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("row without tick_index: %v", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("%d bytes written before the first chunk", buf.Len())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r2 := openBytes(t, buf.Bytes())
	if r2.Footer().TickCount != 2 {
		t.Fatalf("tick_count %d", r2.Footer().TickCount)
	}
	if err := w.WriteRow(rows[1].Raw); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}

	buf.Reset()
	w, _ = NewWriter(&buf, r.MetaPayload())
	if err := w.Close(); !errors.Is(err, ErrNoTicks) || buf.Len() != 0 {
		t.Fatalf("empty trace: %v, %d bytes", err, buf.Len())
	}
	if _, err := NewWriter(&buf, []byte{0x91, 0x01}); err == nil {
		t.Fatal("meta that is not a map accepted")
	}
}

func TestCreateRenames(t *testing.T) {
	data := vectortest.Read(t, "cdt", "v7_tiny_3ticks_chunk2.cdt")
	r := openBytes(t, data)
	dir := t.TempDir()
	name := filepath.Join(dir, "out.cdt")
	w, err := Create(name, r.MetaPayload(), WithChunkTicks(2))
	if err != nil {
		t.Fatal(err)
	}
	for row, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRow(row.Raw); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("final name exists before Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r2, err := OpenFile(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.Footer().TickCount != 3 {
		t.Fatalf("tick_count %d", r2.Footer().TickCount)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the trace", len(entries))
	}

	// A failed Close (no rows) leaves nothing behind.
	w, err = Create(filepath.Join(dir, "empty.cdt"), r.MetaPayload())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, ErrNoTicks) {
		t.Fatal(err)
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("failed Create left %d entries", len(entries))
	}
}

func TestWriterFlush(t *testing.T) {
	data := vectortest.Read(t, "cdt", "v7_small_300ticks.cdt")
	r := openBytes(t, data)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, r.MetaPayload(), WithChunkTicks(100), WithWriterConcurrency(2))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for row, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRow(row.Raw); err != nil {
			t.Fatal(err)
		}
		if n++; n == 30 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if buf.Len() == 0 {
				t.Fatal("Flush wrote nothing")
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkLikeReference(t, buf.Bytes())
	r2 := openBytes(t, buf.Bytes())
	var sizes []int64
	for _, b := range r2.Footer().Blocks {
		sizes = append(sizes, b.EndTick-b.StartTick+1)
	}
	if fmt.Sprint(sizes) != "[30 100 100 70]" || r2.Footer().TickCount != 300 {
		t.Fatalf("block sizes %v", sizes)
	}
}

// TestWriterReusesChunkBuffer pins that a one-goroutine writer reuses its
// chunk buffer: writing 16 chunks of 900 kB allocates no more than writing
// 8, besides the rows themselves (not a new buffer per chunk, nor two
// taking turns, each grown by append's quarter steps). In a fresh process
// every new page is a page fault, which cost more than compressing the
// chunk.
func TestWriterReusesChunkBuffer(t *testing.T) {
	pad := bytes.Repeat([]byte("0123456789abcdef"), 9000/16)
	row := func(i int64) []byte {
		r := append([]byte("\x82\xaatick_index"), appendInt(nil, i)...)
		r = append(r, "\xa3pad\xda"...)
		r = append(r, byte(len(pad)>>8), byte(len(pad)))
		return append(r, pad...)
	}
	write := func(ticks int64) {
		w, err := NewWriter(io.Discard, testMeta, WithChunkTicks(100))
		if err != nil {
			t.Fatal(err)
		}
		for i := range ticks {
			if err := w.WriteRow(row(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	allocated := func(ticks int64) int64 {
		write(ticks) // the idle encoders' own buffers (their histories)
		runtime.GC()
		runtime.GC() // the job pool's buffers too
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		write(ticks)
		runtime.ReadMemStats(&after)
		return int64(after.TotalAlloc-before.TotalAlloc) - ticks*int64(len(row(0)))
	}
	one, two := allocated(800), allocated(1600)
	if two > one+1<<20 {
		t.Errorf("besides the rows, writing 16 chunks of 900 kB allocated %d bytes, 8 chunks %d: want at most 1 MiB more", two, one)
	}
}

// TestWriterOwnEncoders pins that a one-goroutine writer compresses with
// encoders of its own (concurrency 1: one history to fault in, not the
// shared encoder's internal ones in turn), never shared with another open
// writer, and gives them back at Close for the next writer; a writer with
// goroutines uses the shared encoders. Output is the same either way.
func TestWriterOwnEncoders(t *testing.T) {
	open := func(opts ...WriterOption) (*Writer, *bytes.Buffer) {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, testMeta, opts...)
		if err != nil {
			t.Fatal(err)
		}
		for i := range int64(600) {
			if err := w.WriteRow(testRow(i)); err != nil {
				t.Fatal(err)
			}
		}
		return w, &buf
	}
	a, abuf := open()
	b, _ := open()
	if !a.ownEnc || !b.ownEnc {
		t.Fatalf("two open one-goroutine writers: own %v %v", a.ownEnc, b.ownEnc)
	}
	encs := a.encs
	for i, l := range []CompressionLevel{CompressionAuto, autoAlt} {
		for k, e := range encs[i] {
			if e == nil || e == b.encs[i][k] || (k > 0 && e == encs[i][k-1]) {
				t.Fatalf("level %s kind %d: encoder %p, the other writer's %p, the previous kind's %v", l, k, e, b.encs[i][k], k > 0 && e == encs[i][k-1])
			}
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if a.encs[0][0] != nil || a.ownEnc {
		t.Fatal("Close kept the writer's encoders")
	}
	idleEncMu.Lock()
	kept := true
	for i, l := range []CompressionLevel{CompressionAuto, autoAlt} {
		for k, e := range encs[i] {
			kept = kept && slices.Contains(idleEnc[encKeyFor(l, k)], e)
		}
	}
	idleEncMu.Unlock()
	if !kept {
		t.Fatal("Close did not give the encoders back")
	}
	if k := encKeyFor(CompressionFastest, encHuge); !k.raw || k.window != 8<<20 || encKeyFor(CompressionFastest, encLarge).window != smallWindow {
		t.Fatalf("keys %+v %+v", k, encKeyFor(CompressionFastest, encLarge))
	}
	p, pbuf := open(WithWriterConcurrency(2))
	shared, _ := encoderFor(encKeyFor(CompressionFastest, encSmall))
	if p.ownEnc || p.encs[0][encSmall] != shared {
		t.Fatalf("a writer with goroutines: own %v, shared %v", p.ownEnc, p.encs[0][encSmall] == shared)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(abuf.Bytes(), pbuf.Bytes()) {
		t.Fatal("own and shared encoders wrote different bytes")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}
