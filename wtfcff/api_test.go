package wtfcff

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apiTrace writes a small binary trace over three event chunks.
func apiTrace(t testing.TB) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, WithChunkSize(64))
	if err != nil {
		t.Fatal(err)
	}
	et, _ := w.Define(0, "api#tick(uint32 n, ascii s)", ClassInstance, 0)
	for i := range uint32(20) {
		if err := w.Begin(et, i*10).Uint32(i).ASCII("x").End(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// userTicks counts the api#tick events of an Events iteration.
func userTicks(t *testing.T, src ChunkSeq) []uint64 {
	t.Helper()
	var got []uint64
	for e, err := range Events(src) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "api#tick" {
			got = append(got, e.Arg(0).Uint())
		}
	}
	return got
}

func TestEveryReaderHasAll(t *testing.T) {
	data := apiTrace(t)
	want := 20
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(userTicks(t, r)); n != want {
		t.Errorf("Reader: %d ticks", n)
	}
	br, _ := NewBytesReader(data)
	if n := len(userTicks(t, br)); n != want {
		t.Errorf("bytes Reader: %d ticks", n)
	}
	f, err := OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(userTicks(t, f)); n != want {
		t.Errorf("File: %d ticks", n)
	}
	if n := len(userTicks(t, f)); n != want { // a File can be iterated again
		t.Errorf("File, second All: %d ticks", n)
	}
	f2, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(userTicks(t, f2)); n != want {
		t.Errorf("Open: %d ticks", n)
	}
	var js bytes.Buffer
	if err := BinaryToJSON(&js, bytes.NewReader(data), JSONComplete); err != nil {
		t.Fatal(err)
	}
	jr, _ := NewJSONReader(bytes.NewReader(js.Bytes()))
	if n := len(userTicks(t, jr)); n != want {
		t.Errorf("JSONReader: %d ticks", n)
	}
	sr, _ := NewReader(bytes.NewReader(js.Bytes()))
	if sr.Kind() != KindJSON {
		t.Errorf("JSON sniffed as %v", sr.Kind())
	}
	if n := len(userTicks(t, sr)); n != want || sr.WTFVersion() != JSWTFVersion {
		t.Errorf("Reader over JSON: %d ticks, version %d", n, sr.WTFVersion())
	}
	// Decoder.All and early exit from every iterator.
	br, _ = NewBytesReader(data)
	dec := NewDecoder()
	n := 0
	for c, err := range br.All() {
		if err != nil {
			t.Fatal(err)
		}
		if dec.SetChunk(c) {
			for e, err := range dec.All() {
				if err != nil {
					t.Fatal(err)
				}
				if e.Name() == "api#tick" {
					n++
				}
			}
		}
	}
	if n != want {
		t.Errorf("Decoder.All: %d ticks", n)
	}
	for range Events(f) {
		break
	}
	for range f.All() {
		break
	}
}

func TestAllYieldsTheErrorLast(t *testing.T) {
	data := apiTrace(t)
	cut := data[:len(data)-5]
	r, _ := NewBytesReader(cut)
	var last error
	chunks := 0
	for c, err := range r.All() {
		if err != nil {
			if c != nil {
				t.Error("error with a chunk")
			}
			last = err
			continue
		}
		chunks++
	}
	if !errors.Is(last, ErrTruncated) || chunks == 0 {
		t.Errorf("chunks %d, last %v", chunks, last)
	}
	if !errors.Is(r.Err(), ErrTruncated) || r.Next() {
		t.Error("error not sticky")
	}
	// An undefined wire id inside an event buffer.
	dec := NewDecoder()
	dec.SetBuffer([]byte{9, 0, 0, 0, 1, 0, 0, 0}, nil, 100, 2)
	var errs []error
	for e, err := range dec.All() {
		if e != nil {
			t.Error("event before the error")
		}
		errs = append(errs, err)
	}
	var fe *FormatError
	if len(errs) != 1 || !errors.Is(errs[0], ErrUndefinedEvent) || !errors.As(errs[0], &fe) || fe.Offset != 100 {
		t.Errorf("decoder errors %v", errs)
	}
}

func TestBytesReaderIsZeroCopy(t *testing.T) {
	data := apiTrace(t)
	r, _ := NewBytesReader(data)
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Parts {
			if len(p.Data) > 0 && &p.Data[0] != &data[p.Offset] {
				t.Fatalf("part at %d is a copy", p.Offset)
			}
		}
	}
	f, _ := OpenBytes(data)
	c, _, err := f.ReadChunk(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Parts[1]; &p.Data[0] != &data[p.Offset] {
		t.Fatal("File over bytes copies")
	}
}

func TestOpenFile(t *testing.T) {
	data := apiTrace(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "t.wtf-trace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(userTicks(t, f)); n != 20 || len(f.Chunks()) < 3 || f.WTFVersion() != JSWTFVersionWord {
		t.Errorf("%d ticks, %d chunks, version %#x", n, len(f.Chunks()), f.WTFVersion())
	}
	if h, err := f.FileHeader(); err != nil || h.Flags[0] != "has_high_resolution_times" {
		t.Errorf("header %+v %v", h, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, _, err := f.ReadChunk(0, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("read after Close: %v", err)
	}
	if _, err := OpenFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a folder: %v", err)
	}
	// JSON and legacy files have no chunk index.
	var js bytes.Buffer
	BinaryToJSON(&js, bytes.NewReader(data), JSONComplete)
	if _, err := OpenBytes(js.Bytes()); !errors.Is(err, ErrBadMagic) {
		t.Errorf("JSON opened as a File: %v", err)
	}
}

func TestWritersCloseOnceThenErrClosed(t *testing.T) {
	var out bytes.Buffer
	w, _ := NewWriter(&out)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	n := out.Len()
	if err := w.Close(); err != nil || out.Len() != n {
		t.Errorf("second Close: %v, %d more bytes", err, out.Len()-n)
	}
	if err := w.Mark(1, "late", ""); !errors.Is(err, ErrClosed) {
		t.Errorf("Mark after Close: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close: %v", err)
	}
	cw, _ := NewChunkWriter(&out)
	cw.Close()
	if err := cw.Close(); err != nil {
		t.Error(err)
	}
	if err := cw.WriteChunk(&Chunk{Type: ChunkEventData}); !errors.Is(err, ErrClosed) {
		t.Errorf("ChunkWriter after Close: %v", err)
	}
	jw, _ := NewJSONWriter(&out, WithJSONMode(JSONPartial), WithWTFVersion(7))
	jw.Close()
	if err := jw.Close(); err != nil {
		t.Error(err)
	}
	if err := jw.WriteChunk(&Chunk{Type: ChunkEventData}); !errors.Is(err, ErrClosed) {
		t.Errorf("JSONWriter after Close: %v", err)
	}
	if _, err := NewJSONWriter(&out, WithJSONMode(JSONMode(9))); err == nil {
		t.Error("bad JSON mode accepted")
	}
	if _, err := NewReader(bytes.NewReader(nil), WithLimits(Limits{MaxParts: -1})); err == nil {
		t.Error("negative limit accepted")
	}
}

func TestSentinelsNameThePackage(t *testing.T) {
	for _, err := range []error{ErrBadMagic, ErrUnsupportedVersion, ErrTruncated, ErrCorrupt, ErrUndefinedEvent,
		ErrUnsupportedType, ErrLimit, ErrArgument, ErrClosed} {
		if !strings.HasPrefix(err.Error(), "wtfcff: ") {
			t.Errorf("%q", err)
		}
	}
	_, err := NewBytesReader([]byte{1, 2, 3, 4, 5})
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "wtfcff: offset 0: ") {
		t.Errorf("%v", err)
	}
}

func TestLegacyReaderLimits(t *testing.T) {
	// A legacy header followed by a megabyte of zero events.
	data := []byte{0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	data = append(data, make([]byte, 1<<20)...)
	if _, err := NewLegacyBytesReader(data, WithLimits(Limits{MaxChunkSize: 1 << 16})); !errors.Is(err, ErrLimit) {
		t.Errorf("bytes: %v", err)
	}
	if _, err := NewLegacyReader(bytes.NewReader(data), WithLimits(Limits{MaxChunkSize: 1 << 16})); !errors.Is(err, ErrLimit) {
		t.Errorf("stream: %v", err)
	}
	if _, err := NewReader(bytes.NewReader(data), WithLimits(Limits{MaxChunkSize: 1 << 16})); !errors.Is(err, ErrLimit) {
		t.Errorf("Reader: %v", err)
	}
	lr, err := NewLegacyReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for _, err := range lr.All() {
		if err != nil {
			t.Fatal(err)
		}
		chunks++
	}
	if chunks != 2 {
		t.Errorf("%d chunks", chunks)
	}
}
