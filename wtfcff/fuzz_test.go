package wtfcff

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/fuzz"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// decodeAny decodes a whole file of any container kind, touching every
// argument of every event; for binary files it also walks the random-access
// index and reads every chunk.
func decodeAny(data []byte) error {
	src, err := NewBytesReader(data)
	if err != nil {
		return err
	}
	dec := NewDecoder()
	var b []byte
	for src.Next() {
		c := src.Chunk()
		if c.Type == ChunkFileHeader {
			if _, err := c.FileHeader(); err != nil {
				return err
			}
		}
		if !dec.SetChunk(c) {
			continue
		}
		for dec.Next() {
			b = AppendEventJSON(b[:0], dec.Event())
		}
		if err := dec.Err(); err != nil {
			return err
		}
	}
	if err := src.Err(); err != nil {
		return err
	}
	if Sniff(data) == KindBinary {
		f, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return err
		}
		var buf []byte
		for i := range f.Chunks() {
			var c Chunk
			if c, buf, err = f.ReadChunk(i, buf); err != nil {
				return err
			}
			_ = c
		}
	}
	return nil
}

func vectorFiles(t testing.TB) []string {
	dir := vectortest.Dir(t, "wtf")
	var files []string
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".wtf-trace") || strings.HasSuffix(p, ".wtf-json")) {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// TestSweepVectors truncates and corrupts every vector: each case must end in
// a clean error or a valid decode, without panics, hangs or unbounded memory.
func TestSweepVectors(t *testing.T) {
	opts := fuzz.Options{MaxCases: 1024}
	if testing.Short() || raceEnabled {
		opts.MaxCases = 256 // the race detector makes each case ~10× slower
	}
	for _, p := range vectorFiles(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(p), func(t *testing.T) {
			fuzz.Sweep(t, data, decodeAny, opts)
			// Every error is a *FormatError naming an offset inside the input.
			for _, n := range []int{0, 3, 11, 12, 30, len(data) / 2, len(data) - 1} {
				if n > len(data) {
					continue
				}
				if err := decodeAny(data[:n]); err != nil {
					fe, ok := err.(*FormatError)
					if !ok || fe.Offset < 0 || fe.Offset > int64(n) {
						t.Errorf("prefix %d: %T %v", n, err, err)
					}
				}
			}
		})
	}
}

// TestHostileLengths: lying lengths and counts cost only what the input holds.
func TestHostileLengths(t *testing.T) {
	hdr := AppendFileHeader(nil, 0)
	chunk := func(length, parts uint32) []byte {
		b := bytes.Clone(hdr)
		for _, v := range []uint32{1, 2, length, InvalidTime, InvalidTime, parts} {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	for _, c := range [][]byte{chunk(0xFFFFFFF0, 1), chunk(200<<20, 0), chunk(24, 0xFFFFFFFF), chunk(36, 1), chunk(10, 0)} {
		fuzz.Check(t, c, decodeAny, fuzz.Options{AllocConst: 4 << 20})
		if decodeAny(c) == nil {
			t.Errorf("%x: no error", c[12:])
		}
	}
	// A huge array count inside an event.
	var out bytes.Buffer
	w, _ := NewWriter(&out, WithoutBuiltins())
	et, _ := w.Define(0, "h#a(uint32[] v)", ClassInstance, 0)
	w.Begin(et, 1).Uint32s([]uint32{1}).End()
	w.Close()
	data := out.Bytes()
	i := bytes.LastIndex(data, []byte{1, 0, 0, 0, 1, 0, 0, 0})
	binary.LittleEndian.PutUint32(data[i:], 0x7FFFFFFF)
	if err := decodeAny(data); err == nil || !strings.Contains(err.Error(), "elements") {
		t.Errorf("huge array count: %v", err)
	}
}

// fuzzSeedLimit bounds the seeds and inputs of the container fuzz targets.
// Go's fuzzer minimizes every input that reaches new code, and its
// minimizer makes O(n²) attempts for an n-byte input (it tries removing every
// substring), each a whole decode: with the 3–6 KB reference vectors as seeds
// every new-coverage input used up the whole minimizing budget (60 s by
// default), so FuzzBinaryContainer ran 28 inputs in 3 minutes. Small seeds
// that still reach every structure (below) keep minimizing short.
const fuzzSeedLimit = 1024

// smallSeeds are traces of a few hundred bytes written by this package:
// every argument type, zones, scopes, resources, several chunks, the JSON
// container and a cut chunk.
func smallSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	var b bytes.Buffer
	w, _ := NewWriter(&b, WithoutBuiltins(), WithChunkSize(64), WithFileHeader(FileHeader{Timebase: 1}))
	all, _ := w.Define(0, "a#b(bool a, int8 b, uint8 c, int16 d, uint16 e, int32 f, uint32 g, float32 h, ascii i, utf8 j, any k, flowId l, time32 m, char n, wchar o)", ClassScope, 0)
	w.Begin(all, 1).Bool(true).Int8(-1).Uint8(2).Int16(-3).Uint16(4).Int32(-5).Uint32(6).Float32(1.5).ASCII("x").UTF8("é").Any(`{"n":1}`).FlowID(7).Time32(8).Char('c').WChar(0x263A).End()
	w.AddResource([]byte("res"), true)
	w.Close()
	seeds = append(seeds, bytes.Clone(b.Bytes()))
	b.Reset()
	w, _ = NewWriter(&b, WithoutBuiltins(), WithFileHeader(FileHeader{Timebase: 1}))
	arr, _ := w.Define(0, "a#c(int8[] a, uint8[] b, int16[] c, uint16[] d, int32[] e, uint32[] f, float32[] g, char[] h, wchar[] i)", ClassInstance, 0)
	w.Begin(arr, 2).Int8s([]int8{-1}).Uint8s([]byte{1, 2}).Int16s([]int16{-3}).Uint16s([]uint16{4}).Int32s([]int32{-5}).Uint32s(nil).Float32s([]float32{2}).Chars([]byte("ab")).WChars([]uint16{0xD800}).End()
	w.Close()
	seeds = append(seeds, bytes.Clone(b.Bytes()))
	b.Reset()
	// Zones and scopes, with only the built-ins they use (all sixteen make
	// a long trace).
	w, _ = NewWriter(&b, WithoutBuiltins(), WithChunkSize(64))
	for _, sig := range []string{"wtf.zone#create(uint16 zoneId, ascii name, ascii type, ascii location)", "wtf.zone#set(uint16 zoneId)",
		"wtf.scope#enter(ascii name)", "wtf.scope#leave()", "wtf.scope#appendData(ascii name, any value)", "wtf.trace#mark(ascii name, any value)"} {
		w.Define(0, sig, ClassInstance, 0)
	}
	z, _ := w.CreateZone(0, "Z", "script", "l")
	w.SetZone(0, z)
	w.EnterScope(1, "s")
	w.AppendScopeData(2, "k", "1")
	w.LeaveScope(3)
	w.Mark(4, "m", "")
	w.Close()
	seeds = append(seeds, bytes.Clone(b.Bytes()))
	seeds = append(seeds, seeds[1][:len(seeds[1])-6]) // the last chunk torn inside its event buffer
	// Chunk and part types the reference does not know, a file header part
	// among them (the converters copy them).
	unknown := AppendFileHeader(nil, 1)
	unknown = AppendChunk(unknown, &Chunk{ID: 1, Type: ChunkFileHeader, StartTime: InvalidTime, EndTime: InvalidTime,
		Parts: []Part{{Type: PartFileHeader, Data: []byte(`{"type":"file_header","flags":[],"timebase":0}`)}}})
	unknown = AppendChunk(unknown, &Chunk{ID: 2, Type: ChunkType(0x3), StartTime: 5, EndTime: 9,
		Parts: []Part{{Type: PartFileHeader, Data: []byte(`{"timebase":1,"k":[1]}`)}, {Type: PartType(0x50000), Data: []byte{1, 2, 3}}}})
	seeds = append(seeds, unknown)
	var js bytes.Buffer
	if err := BinaryToJSON(&js, bytes.NewReader(seeds[0]), JSONPartial); err == nil {
		seeds = append(seeds, js.Bytes())
	}
	for _, s := range seeds {
		if len(s) > fuzzSeedLimit {
			t.Fatalf("seed of %d bytes", len(s))
		}
	}
	return seeds
}

// seedAll seeds a container fuzz target with smallSeeds and the reference
// vectors that are at most fuzzSeedLimit bytes long (the others go through
// TestSweepVectors' truncations and corruptions instead).
func seedAll(f *testing.F) {
	for _, s := range smallSeeds(f) {
		f.Add(s)
	}
	root, err := vectortest.Root()
	if err != nil {
		fuzz.NeedSeeds(f, 0, err.Error())
		return
	}
	n := 0
	filepath.WalkDir(filepath.Join(root, "wtf"), func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".wtf-trace") || strings.HasSuffix(p, ".wtf-json")) {
			if data, err := os.ReadFile(p); err == nil && len(data) <= fuzzSeedLimit {
				f.Add(data)
				n++
			}
		}
		return nil
	})
	fuzz.NeedSeeds(f, n, "no vector of at most fuzzSeedLimit bytes")
}

func FuzzBinaryContainer(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16*fuzzSeedLimit {
			return
		}
		_ = decodeAny(data)
	})
}

// FuzzEventBuffer feeds raw event buffers: u32 string-table length, the
// table, then the buffer.
func FuzzEventBuffer(f *testing.F) {
	// Small seeds only, as for the container targets (see fuzzSeedLimit).
	files := smallSeeds(f)
	for _, p := range vectorFiles(f) {
		if data, err := os.ReadFile(p); err == nil && len(data) <= fuzzSeedLimit {
			files = append(files, data)
		}
	}
	for _, data := range files {
		src, err := NewBytesReader(data)
		if err != nil {
			continue
		}
		for src.Next() {
			c := src.Chunk()
			st, _ := c.Part(PartStringTable)
			if eb, ok := c.Part(PartBinaryEventBuffer); ok {
				seed := binary.LittleEndian.AppendUint32(nil, uint32(len(st.Data)))
				f.Add(append(append(seed, st.Data...), eb.Data...))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		n := int(binary.LittleEndian.Uint32(data))
		if n > len(data)-4 {
			return
		}
		dec := NewDecoder()
		dec.SetBuffer(data[4+n:], data[4:4+n], 0, 1)
		var b []byte
		for dec.Next() {
			e := dec.Event()
			b = AppendEventJSON(b[:0], e)
			if e.Size <= 0 || e.BufferOffset+e.Size > len(data)-4-n {
				t.Fatalf("event out of its buffer: %+v", e)
			}
		}
	})
}

func FuzzJSONContainer(f *testing.F) {
	seedAll(f)
	f.Add([]byte(`{"wtfVersion":1,"formatVersion":10}` + "\n" + `{"chunks":[{"id":1,"type":"event_data","parts":[{"type":"json_event_buffer","events":[{"name":"wtf.event#define","time":0,"args":{"wireId":2,"eventClass":0,"flags":0,"name":"a#b","args":"uint8[] x, any y"}},{"name":"a#b","time":5,"args":{"x":[1,2],"y":{"$raw":"NaN"}}}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		jr, err := NewJSONReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		enc := NewEventEncoder()
		dec := NewDecoder()
		for jr.Next() {
			c, err := ChunkFromJSONEvents(jr.Chunk(), enc)
			if err != nil {
				return
			}
			if dec.SetChunk(&c) {
				for dec.Next() {
				}
			}
		}
	})
}

// FuzzRoundTrip: whatever binary file converts to JSON must convert back to
// binary, and the second JSON conversion must equal the first.
func FuzzRoundTrip(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16*fuzzSeedLimit || Sniff(data) != KindBinary {
			return
		}
		var js1, bin, js2 bytes.Buffer
		if BinaryToJSON(&js1, bytes.NewReader(data), JSONComplete) != nil {
			return
		}
		if err := JSONToBinary(&bin, bytes.NewReader(js1.Bytes())); err != nil {
			t.Fatalf("JSON we wrote does not convert back: %v", err)
		}
		if err := BinaryToJSON(&js2, bytes.NewReader(bin.Bytes()), JSONComplete); err != nil {
			t.Fatalf("binary we wrote does not convert: %v", err)
		}
		if !bytes.Equal(js1.Bytes(), js2.Bytes()) {
			t.Fatalf("JSON changed on the second round trip")
		}
	})
}
