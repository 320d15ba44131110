package wtfcff

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// saveHostile writes a generated input to $TRACECODEC_WRITE_HOSTILE, so the
// command-line tool can be measured on it.
func saveHostile(t *testing.T, name string, data []byte) {
	if dir := os.Getenv("TRACECODEC_WRITE_HOSTILE"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The WTF classes of issue 21, generated here: overlapping parts are
// refused before any work is repeated, and JSON forms that would read as
// "no events" are errors.

// overlappingResources is an event_data chunk whose n binary_resource parts
// all cover the same size bytes.
func overlappingResources(t *testing.T, n, size int) []byte {
	t.Helper()
	table, _ := AppendStringTable(nil, nil)
	res := bytes.Repeat([]byte{0xA5}, size)
	b := AppendFileHeader(nil, 1)
	b = AppendChunk(b, &Chunk{ID: 1, Type: ChunkFileHeader, StartTime: InvalidTime, EndTime: InvalidTime,
		Parts: []Part{{Type: PartFileHeader, Data: []byte(`{"timebase":0}`)}}})
	c := AppendChunk(nil, &Chunk{ID: 2, Type: ChunkEventData, StartTime: InvalidTime, EndTime: InvalidTime,
		Parts: []Part{{Type: PartStringTable, Data: table}, {Type: PartBinaryEventBuffer}, {Type: PartBinaryResource, Data: res}}})
	// Rewrite the part table: n resource entries, all at the one resource.
	const head = chunkHeaderSize + 3*partEntrySize
	resOff := uint32(pad4(len(table)))
	var out []byte
	out = append(out, c[:chunkHeaderSize]...)
	out = appendU32s(out[:20], uint32(n+2))
	tableLen := (n + 2) * partEntrySize
	length := uint32(chunkHeaderSize + tableLen + len(c) - head)
	copy(out[8:12], appendU32s(nil, length))
	out = appendU32s(out, uint32(PartStringTable), 0, uint32(len(table)))
	out = appendU32s(out, uint32(PartBinaryEventBuffer), resOff, 0)
	for range n {
		out = appendU32s(out, uint32(PartBinaryResource), resOff, uint32(size))
	}
	out = append(out, c[head:]...)
	return append(b, out...)
}

func appendU32s(b []byte, v ...uint32) []byte {
	for _, x := range v {
		b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	return b
}

// 4 094 binary_resource parts over the same 256 KiB (a 312 KB file took
// 4–5.5 GB to convert to JSON, and validate --strict called it ok).
func TestOverlappingParts(t *testing.T) {
	if raceEnabled {
		t.Skip("the bound holds without the race detector's memory")
	}
	data := overlappingResources(t, 4094, 256<<10)
	saveHostile(t, "overlapping_resources.wtf-trace", data)
	err := checkBudget(t, data, consume)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "overlaps") {
		t.Errorf("got %v, want ErrCorrupt naming the overlap", err)
	}
	if err := checkBudget(t, data, func(b []byte) error {
		return BinaryToJSON(io.Discard, bytes.NewReader(b), JSONComplete)
	}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("BinaryToJSON: got %v, want ErrCorrupt", err)
	}
	// Disjoint parts out of file order are fine; one overlapping pair is not.
	one := overlappingResources(t, 1, 64)
	if err := consume(one); err != nil {
		t.Errorf("one resource: %v", err)
	}
	parts := []Part{{Type: PartBinaryResource, Offset: 100, Data: make([]byte, 8)}, {Type: PartStringTable, Offset: 40, Data: make([]byte, 60)}}
	if err := checkPartsDisjoint(parts, 1); err != nil {
		t.Errorf("disjoint parts out of order: %v", err)
	}
	parts[1].Data = make([]byte, 61)
	if err := checkPartsDisjoint(parts, 1); !errors.Is(err, ErrCorrupt) {
		t.Errorf("parts sharing one byte: got %v, want ErrCorrupt", err)
	}
}

// readJSONChunks reads a JSON container to its end.
func readJSONChunks(data []byte) (chunks, events int, err error) {
	r, err := NewBytesReader(data)
	if err != nil {
		return 0, 0, err
	}
	for range r.All() {
		chunks++
	}
	if err := r.Err(); err != nil {
		return chunks, 0, err
	}
	r, _ = NewBytesReader(data)
	for _, err := range Events(r) {
		if err != nil {
			return chunks, events, err
		}
		events++
	}
	return chunks, events, nil
}

// The PARTIAL form the CFF text sketches — a header document, then bare
// {chunk} documents — is refused with an error saying why (it read as
// "ok (0 chunks, 0 events)"); the reference's {"chunks": [chunk]}
// documents are read.
func TestJSONBareChunkDocuments(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewJSONWriter(&buf, WithJSONMode(JSONPartial))
	if err != nil {
		t.Fatal(err)
	}
	b := AppendFileHeader(nil, 1)
	b = AppendChunk(b, &Chunk{ID: 1, Type: ChunkFileHeader, StartTime: InvalidTime, EndTime: InvalidTime,
		Parts: []Part{{Type: PartFileHeader, Data: []byte(`{"timebase":0}`)}}})
	r, _ := NewBytesReader(b)
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteChunk(c); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	partial := buf.Bytes()
	if n, _, err := readJSONChunks(partial); err != nil || n != 1 {
		t.Fatalf("PARTIAL as written: %d chunks, %v", n, err)
	}
	bare := bytes.ReplaceAll(partial, []byte(`{"chunks": [`), nil)
	bare = bytes.ReplaceAll(bare, []byte("]}\n"), []byte("\n"))
	if bytes.Equal(bare, partial) {
		t.Fatal("no chunk document rewritten")
	}
	saveHostile(t, "bare_chunk_documents.wtf-json", bare)
	if _, _, err := readJSONChunks(bare); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "bare {chunk}") {
		t.Errorf("bare chunk documents: got %v, want ErrCorrupt saying why", err)
	}
}

// A json_event_buffer part whose records sit under another key than
// "events" is an error, not a chunk of no events.
func TestJSONEventBufferKey(t *testing.T) {
	doc := func(part string) []byte {
		return []byte(`{"wtfVersion":1,"formatVersion":10,"chunks":[` +
			`{"id":1,"type":"file_header","parts":[{"type":"file_header","timebase":0}]},` +
			`{"id":2,"type":"event_data","parts":[` + part + `]}]}`)
	}
	if _, _, err := readJSONChunks(doc(`{"type":"json_event_buffer","events":[]}`)); err != nil {
		t.Errorf("empty events: %v", err)
	}
	saveHostile(t, "event_buffer_key.wtf-json", doc(`{"type":"json_event_buffer","records":[{"name":"x","time":1}]}`))
	for _, part := range []string{`{"type":"json_event_buffer","records":[{"name":"x","time":1}]}`, `{"type":"json_event_buffer"}`, `{"type":"json_event_buffer","events":null}`} {
		if _, _, err := readJSONChunks(doc(part)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", part, err)
		}
	}
}

// appendDataFile is one scope holding n wtf.scope#appendData records, each
// naming the same string of size bytes.
func appendDataFile(t *testing.T, n, size int) []byte {
	t.Helper()
	big := `"` + strings.Repeat("x", size-2) + `"`
	strs := []string{"wtf.scope#enter", "ascii name", "wtf.scope#appendData", "ascii name, any value", "k", big}
	ev := define(nil, 2, 1, 0, 1)
	ev = define(ev, 3, 0, 2, 3)
	ev = rec(ev, 2, 4)
	for range n {
		ev = rec(ev, 3, 4, 5)
	}
	return hostileFile(t, strs, ev)
}

// 20 000 appendData records naming one 1 MiB string (1.4 MB of input): each
// reference is charged, so reading the events — validate's walk, without
// touching an argument — stops with ErrLimit within the budget, where dump
// --json wrote ≈20 GB and validate said ok.
func TestRepeatedStringReferences(t *testing.T) {
	if raceEnabled {
		t.Skip("the bound holds without the race detector's memory")
	}
	data := appendDataFile(t, 20000, 1<<20)
	saveHostile(t, "append_data.wtf-trace", data)
	walk := func(b []byte) error {
		r, err := NewBytesReader(b)
		if err != nil {
			return err
		}
		for _, err := range Events(r) {
			if err != nil {
				return err
			}
		}
		return nil
	}
	for name, fn := range map[string]func([]byte) error{"events": walk, "consume": consume} {
		if err := checkBudget(t, data, fn); !errors.Is(err, ErrLimit) {
			t.Errorf("%s: got %v, want ErrLimit", name, err)
		}
	}
	// A few references to a long string are fine.
	if err := walk(appendDataFile(t, 20, 1<<20)); err != nil {
		t.Errorf("20 references: %v", err)
	}
}

// A string ordinal past its chunk's table is read as null, as the
// reference's look-up gives, and counted (Decoder.Oddities) so that
// validate reports it and --strict fails; the null ordinal is not counted.
func TestOrdinalPastTable(t *testing.T) {
	strs := []string{"app#e", "ascii s"}
	ev := define(nil, 2, 0, 0, 1)
	for range 1000 {
		ev = rec(ev, 2, 7) // ordinal 7 of a 2-entry table
	}
	ev = rec(ev, 2, NullString)
	data := hostileFile(t, strs, ev)
	var odd Oddities
	nulls := 0
	err := checkBudget(t, data, func(b []byte) (err error) {
		odd, err = decodeOddities(b, func(e *Event) {
			if e.Type.Name == "app#e" && e.Arg(0).IsNull() {
				nulls++
			}
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if nulls != 1001 || odd.PastTable != 1000 || odd.FirstPastTable <= 0 || odd.Rebinds != 0 {
		t.Errorf("%d nulls, oddities %+v: want 1001 nulls, 1000 past the table", nulls, odd)
	}
}

// A wire id defined again 100 000 times, each time as another event type:
// the later definition wins, as in the reference, within the budget, and
// every rebinding is counted (validate reports them; --strict fails).
func TestWireIDRedefined(t *testing.T) {
	strs := []string{"app#a", "app#b", "uint32 x"}
	var ev []byte
	for i := range 100000 {
		ev = define(ev, 2, 0, uint32(i%2), 2)
	}
	ev = rec(ev, 2, 5)
	data := hostileFile(t, strs, ev)
	var odd Oddities
	var last string
	err := checkBudget(t, data, func(b []byte) (err error) {
		odd, err = decodeOddities(b, func(e *Event) { last = e.Type.Name })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if last != "app#b" || odd.Rebinds != 99999 || odd.FirstRebind <= 0 || odd.PastTable != 0 {
		t.Errorf("last event %q, oddities %+v: want app#b and 99999 rebinds", last, odd)
	}
}

// decodeOddities decodes every event of the binary file b, calling each on
// it, and returns the decoder's Oddities.
func decodeOddities(b []byte, each func(*Event)) (Oddities, error) {
	r, err := NewBytesReader(b)
	if err != nil {
		return Oddities{}, err
	}
	d := NewDecoder()
	for r.Next() {
		if !d.SetChunk(r.Chunk()) {
			continue
		}
		for d.Next() {
			each(d.Event())
		}
		if err := d.Err(); err != nil {
			return Oddities{}, err
		}
	}
	return d.Oddities(), r.Err()
}
