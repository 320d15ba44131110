package atf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// checkBlocks reads r through Blocks from start and compares every event and
// sequence number with Event(seq); it returns the number of blocks.
func checkBlocks(t *testing.T, name string, r *IndexFile, start uint64) int {
	t.Helper()
	b := r.Blocks(start)
	if len(b.Events()) != 0 {
		t.Fatalf("%s: events before the first Next", name)
	}
	seq, blocks := start, 0
	for b.Next() {
		evs := b.Events()
		if len(evs) == 0 || len(evs) > BlockEvents {
			t.Fatalf("%s: block of %d events", name, len(evs))
		}
		if b.Seq() != seq {
			t.Fatalf("%s: block at seq %d, want %d", name, b.Seq(), seq)
		}
		for i := range evs {
			if want := mustEvent(t, r, seq+uint64(i)); evs[i] != want {
				t.Fatalf("%s start %d: event %d is %+v, want %+v", name, start, seq+uint64(i), evs[i], want)
			}
		}
		seq += uint64(len(evs))
		blocks++
	}
	if err := b.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if want := max(start, r.Len()); seq != want {
		t.Fatalf("%s start %d: ended at %d, want %d", name, start, seq, want)
	}
	if len(b.Events()) != 0 || b.Next() {
		t.Fatalf("%s: events after the end", name)
	}
	return blocks
}

// TestIndexBlocks reads files through Blocks from several starts: in
// memory (aligned: the events are a view of the bytes; misaligned: decoded
// into the buffer), through an io.ReaderAt, mapped and by path; and checks
// which of them hand out views.
func TestIndexBlocks(t *testing.T) {
	const n = 2*BlockEvents + 100
	f, _ := writeThread(t, n, 3, func(i int) uint64 { return uint64(i*3) ^ 5 })
	// A copy of the file one byte into an 8-byte-aligned buffer: its events
	// are misaligned for a view.
	words := make([]uint64, len(f.b)/8+2)
	odd := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)[1 : 1+len(f.b)]
	copy(odd, f.b)
	dir := t.TempDir()
	path := filepath.Join(dir, "index.atf")
	if err := os.WriteFile(path, f.b, 0o644); err != nil {
		t.Fatal(err)
	}
	open := map[string]func() (*IndexFile, error){
		"bytes":      func() (*IndexFile, error) { return OpenIndexBytes(f.b) },
		"misaligned": func() (*IndexFile, error) { return OpenIndexBytes(odd) },
		"readerAt":   func() (*IndexFile, error) { return OpenIndex(bytes.NewReader(f.b), int64(len(f.b))) },
		"path":       func() (*IndexFile, error) { return OpenIndexFile(path) },
		"mmap":       func() (*IndexFile, error) { return OpenIndexFile(path, WithMmap(true)) },
	}
	for name, o := range open {
		r, err := o()
		if err != nil {
			t.Fatal(err)
		}
		for _, start := range []uint64{0, 1, BlockEvents - 1, BlockEvents, n - 1, n, 1 << 40} {
			n := checkBlocks(t, name, r, start)
			if want := (int(r.Len()-min(start, r.Len())) + BlockEvents - 1) / BlockEvents; n != want {
				t.Fatalf("%s start %d: %d blocks, want %d", name, start, n, want)
			}
		}
		// A view hands out the file's own memory; the others the iterator's buffer.
		b := r.Blocks(0)
		b.Next()
		view := r.src.data != nil && unsafe.Pointer(&b.Events()[0]) == unsafe.Pointer(&r.src.data[r.eventsOff])
		if want := nativeLayout && (name == "bytes" || name == "mmap" && r.src.data != nil); view != want {
			t.Errorf("%s: view %v, want %v", name, view, want)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIndexBlocksTruncated: a file that shrinks after it was opened (read
// through the io.ReaderAt) ends the blocks with ErrTruncated at the cut,
// after the blocks before it; the error is sticky.
func TestIndexBlocksTruncated(t *testing.T) {
	f, _ := writeThread(t, 2*BlockEvents+100, 3, func(i int) uint64 { return uint64(i) })
	cut := &cutReaderAt{b: f.b, cut: int64(len(f.b))}
	r, err := OpenIndex(cut, int64(len(f.b)))
	if err != nil {
		t.Fatal(err)
	}
	cut.cut = HeaderSize + (BlockEvents+3000)*IndexEventSize + 5
	b := r.Blocks(0)
	var n int
	for b.Next() {
		n += len(b.Events())
	}
	if n != BlockEvents || !errors.Is(b.Err(), ErrTruncated) {
		t.Fatalf("%d events, %v", n, b.Err())
	}
	var fe *FormatError
	if !errors.As(b.Err(), &fe) || fe.Offset != cut.cut {
		t.Fatalf("error %v, want one at offset %d", b.Err(), cut.cut)
	}
	if b.Next() || len(b.Events()) != 0 || !errors.Is(b.Err(), ErrTruncated) {
		t.Fatal("not sticky")
	}
}

// TestIndexBlocksAllocs pins IndexBlocks.Next at zero allocations, in
// memory (views) and through an io.ReaderAt (one buffer, made by Blocks).
func TestIndexBlocksAllocs(t *testing.T) {
	f, _ := writeThread(t, 10*BlockEvents, 0, func(i int) uint64 { return uint64(i) })
	mem, _ := OpenIndexBytes(f.b)
	ra, _ := OpenIndex(bytes.NewReader(f.b), int64(len(f.b)))
	for _, r := range []*IndexFile{mem, ra} {
		b := r.Blocks(0)
		var sink uint64
		// The warm-up call and 9 more: the 10 blocks.
		if a := testing.AllocsPerRun(9, func() {
			if !b.Next() {
				t.Fatal("too few blocks")
			}
			for i := range b.Events() {
				sink += b.Events()[i].Timestamp
			}
		}); a != 0 {
			t.Errorf("in memory %v: %v allocs per block", r.src.data != nil, a)
		}
		_ = sink
	}
}
