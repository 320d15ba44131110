package cdt

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// recoveryCase is a trace of 10 chunks of 7 rows (ticks 0..69) cut or
// damaged somewhere.
func recoveryTrace(t *testing.T) ([]byte, *File) {
	t.Helper()
	data := writeTicks(t, testMeta, 70, WithChunkTicks(7))
	f, err := OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return data, f
}

func checkRows(t *testing.T, f *File, n int64) {
	t.Helper()
	got := ticksOf(t, f.All())
	if int64(len(got)) != n {
		t.Fatalf("read %d rows, want %d", len(got), n)
	}
	for i, tick := range got {
		if tick != int64(i) {
			t.Fatalf("row %d has tick %d", i, tick)
		}
	}
}

// sameReport checks the stream reader's report against the File's.
func sameReport(t *testing.T, data []byte, want *Recovery) {
	t.Helper()
	s, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for range s.All() {
		n++
	}
	if s.Err() != nil {
		t.Fatalf("stream: %v", s.Err())
	}
	got := s.Recovery()
	if got == nil {
		t.Fatal("stream: no recovery report")
	}
	if got.Chunks != want.Chunks || got.Ticks != want.Ticks || got.ReadBytes != want.ReadBytes ||
		got.LostBytes != want.LostBytes || got.LostTicks != want.LostTicks || n != want.Ticks {
		t.Fatalf("stream report %+v (rows %d), file report %+v", got, n, want)
	}
}

func TestRecoveryTornChunk(t *testing.T) {
	data, full := recoveryTrace(t)
	blocks := full.Footer().Blocks
	for k := 1; k < len(blocks); k++ {
		chunk := blocks[k].FileOffset
		for _, cut := range []int64{chunk + 5, chunk + ChunkHeaderSize + 3, chunk + ChunkHeaderSize + blocks[k].CompressedLen - 1} {
			torn := data[:cut]
			if _, err := OpenBytes(torn); !errors.Is(err, ErrTrailer) {
				t.Fatalf("cut at %d: Open without recovery: %v", cut, err)
			}
			f, err := OpenBytes(torn, WithRecovery())
			if err != nil {
				t.Fatalf("cut at %d: %v", cut, err)
			}
			rep := f.Recovery()
			wantLost := int64(7)
			if cut < chunk+ChunkHeaderSize {
				wantLost = -1
			}
			if rep == nil || rep.Chunks != k || rep.Ticks != int64(7*k) || rep.ReadBytes != chunk ||
				rep.LostBytes != cut-chunk || rep.LostTicks != wantLost || !errors.Is(rep.Stop, ErrTruncated) ||
				!errors.Is(rep.Reason, ErrTrailer) || rep.FirstTick != 0 || rep.LastTick != int64(7*k-1) {
				t.Fatalf("cut at %d: report %+v", cut, rep)
			}
			if wantLost > 0 && (rep.LostFrom != int64(7*k) || rep.LostTo != int64(7*k+6)) {
				t.Fatalf("cut at %d: lost range %d..%d", cut, rep.LostFrom, rep.LostTo)
			}
			if f.FooterOffset() != -1 || f.Footer().TickCount != int64(7*k) {
				t.Fatalf("cut at %d: footer %+v at %d", cut, f.Footer(), f.FooterOffset())
			}
			checkRows(t, f, int64(7*k))
			if row, ok, err := f.Tick(int64(7*k - 1)); err != nil || !ok || row.Tick != int64(7*k-1) {
				t.Fatalf("cut at %d: Tick: %v %v", cut, ok, err)
			}
			if !strings.Contains(rep.String(), "lost") {
				t.Fatalf("report text %q", rep)
			}
			sameReport(t, torn, rep)
			f.Close()
		}
	}
}

// A writer killed between chunks leaves only complete chunks: nothing is
// lost that reached the file.
func TestRecoveryKilledWriter(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testMeta, WithChunkTicks(4), WithChunkBatch(1))
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(10) {
		if err := w.WriteRow(testRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	// No Close: ticks 8 and 9 are still in the writer's memory.
	f, err := OpenBytes(buf.Bytes(), WithRecovery())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep := f.Recovery()
	if rep.Chunks != 2 || rep.Ticks != 8 || rep.LostBytes != 0 || rep.LostTicks != 0 || rep.Stop != nil ||
		rep.ReadBytes != int64(buf.Len()) {
		t.Fatalf("report %+v", rep)
	}
	checkRows(t, f, 8)
	sameReport(t, buf.Bytes(), rep)
}

// A damaged trailer or footer loses nothing: the scan stops at the FOTR chunk.
func TestRecoveryBadTailKeepsEveryTick(t *testing.T) {
	data, full := recoveryTrace(t)
	fotr := full.FooterOffset()
	cases := map[string][]byte{
		"trailer cut":      data[:len(data)-5],
		"footer corrupted": flip(data, fotr+ChunkHeaderSize+2),
		"offset wrong":     flip(data, int64(len(data)-3)),
	}
	for name, d := range cases {
		if _, err := OpenBytes(d); err == nil {
			t.Fatalf("%s: Open accepts the file", name)
		}
		f, err := OpenBytes(d, WithRecovery())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rep := f.Recovery()
		if rep.Ticks != 70 || rep.Chunks != 10 || rep.LostTicks != 0 || rep.ReadBytes != fotr || rep.Stop != nil {
			t.Fatalf("%s: report %+v", name, rep)
		}
		checkRows(t, f, 70)
		f.Close()
	}
	// An intact file has no report.
	if f, err := OpenBytes(data, WithRecovery()); err != nil || f.Recovery() != nil {
		t.Fatalf("intact file: %v %+v", err, f.Recovery())
	}
}

func flip(data []byte, off int64) []byte {
	d := bytes.Clone(data)
	d[off] ^= 0x55
	return d
}

// A corrupt chunk stops the scan with its own error; what precedes it is
// recovered.
func TestRecoveryStopsAtCorruptChunk(t *testing.T) {
	data, full := recoveryTrace(t)
	b3 := full.Footer().Blocks[3]
	d := flip(data[:full.FooterOffset()], b3.FileOffset+ChunkHeaderSize+b3.CompressedLen/2)
	f, err := OpenBytes(d, WithRecovery())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep := f.Recovery()
	if rep.Chunks != 3 || rep.Ticks != 21 || rep.ReadBytes != b3.FileOffset || rep.LostTicks != 7 ||
		rep.Stop == nil || errors.Is(rep.Stop, ErrTruncated) {
		t.Fatalf("report %+v", rep)
	}
	checkRows(t, f, 21)
}

// META alone, or a bad META, cannot be recovered.
func TestRecoveryNeedsMeta(t *testing.T) {
	data, full := recoveryTrace(t)
	first := full.Footer().Blocks[0].FileOffset
	if _, err := OpenBytes(data[:first+10], WithRecovery()); !errors.Is(err, ErrTrailer) ||
		!strings.HasSuffix(err.Error(), "; no complete TICK chunk after META to recover") {
		t.Fatalf("only META: %v", err)
	}
	if _, err := OpenBytes(flip(data[:first+10], int64(HeaderSize)+ChunkHeaderSize+3), WithRecovery()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("bad META: %v", err)
	}
}
