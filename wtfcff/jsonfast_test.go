package wtfcff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// slowJSONReader reads data with encoding/json only (the path the fast
// scanner falls back to).
func slowJSONReader(data []byte) *JSONReader {
	o, _ := applyReaderOptions(nil)
	jr := &JSONReader{o: o}
	jr.startDecoder(bytes.NewReader(data))
	return jr
}

// jsonOutcome renders everything a JSONReader delivers: chunks, parts,
// offsets, the version and the error.
func jsonOutcome(jr *JSONReader) string {
	var b strings.Builder
	for jr.Next() {
		c := jr.Chunk()
		fmt.Fprintf(&b, "chunk id=%d type=%v start=%d end=%d off=%d\n", c.ID, c.Type, c.StartTime, c.EndTime, c.Offset)
		for _, p := range c.Parts {
			fmt.Fprintf(&b, "  part %v off=%d %q\n", p.Type, p.Offset, p.Data)
		}
	}
	fmt.Fprintf(&b, "version=%d err=%v", jr.WTFVersion(), jr.Err())
	return b.String()
}

func jsonTestFiles(t *testing.T) map[string][]byte {
	files := map[string][]byte{}
	var out bytes.Buffer
	if err := BinaryToJSON(&out, bytes.NewReader(loadTraceFile(t, 300)), JSONComplete); err != nil {
		t.Fatal(err)
	}
	files["load300.wtf-json"] = bytes.Clone(out.Bytes())
	out.Reset()
	if err := BinaryToJSON(&out, bytes.NewReader(loadTraceFile(t, 300)), JSONPartial); err != nil {
		t.Fatal(err)
	}
	files["load300-partial.wtf-json"] = bytes.Clone(out.Bytes())
	return files
}

// TestJSONFastPathReadsWritersOutput: files written by the reference and by
// JSONWriter are read without falling back to encoding/json, from memory
// (NewBytesReader), with what encoding/json alone reads.
func TestJSONFastPathReadsWritersOutput(t *testing.T) {
	for name, data := range jsonTestFiles(t) {
		checkJSONFastPath(t, name, data)
	}
	t.Run("vector", func(t *testing.T) {
		checkJSONFastPath(t, "api_public_json.wtf-json", vectortest.Read(t, "wtf", "api_public_json.wtf-json"))
	})
}

func checkJSONFastPath(t *testing.T, name string, data []byte) {
	{
		want := jsonOutcome(slowJSONReader(data))
		if !strings.HasSuffix(want, "err=<nil>") || !strings.Contains(want, "binary_event_buffer") && !strings.Contains(want, "part 0x20002") {
			t.Fatalf("%s: encoding/json read:\n%.2000s", name, want)
		}
		o, _ := applyReaderOptions(nil)
		jr := newJSONBytesReader(data, o)
		if got := jsonOutcome(jr); got != want {
			t.Fatalf("%s: fast path read\n%.3000s\nwant\n%.3000s", name, got, want)
		}
		if jr.fast == nil {
			t.Fatalf("%s: fell back to encoding/json", name)
		}
		r, err := NewBytesReader(data)
		if err != nil || r.json == nil || r.json.fast == nil {
			t.Fatalf("%s: NewBytesReader does not take the fast path (%v)", name, err)
		}
	}
}

// TestJSONFastPathFallbackIsExact: whatever the text — cut anywhere, a byte
// changed anywhere, keys reordered or escaped — the fast reader delivers
// exactly what encoding/json alone delivers: chunks, offsets and errors.
func TestJSONFastPathFallbackIsExact(t *testing.T) {
	var src bytes.Buffer
	if err := BinaryToJSON(&src, bytes.NewReader(loadTraceFile(t, 4)), JSONComplete); err != nil {
		t.Fatal(err)
	}
	base := src.Bytes()
	var inputs [][]byte
	for cut := range len(base) {
		inputs = append(inputs, base[:cut])
	}
	for i := 0; i < len(base); i += 3 {
		for _, c := range []byte{'x', '"', '\\', '}', ']', ',', '0', ' ', '\n', '{'} {
			m := bytes.Clone(base)
			m[i] = c
			inputs = append(inputs, m)
		}
	}
	for _, r := range [][2]string{
		{`"id":`, `"ID":`}, {`"formatVersion": 10`, `"formatVersion": 10.0`}, {`"byteLength":`, `"byteLength" :`},
		{`"type":"event_data"`, `"type":"event\u005fdata"`}, {`"chunks": [`, `"chunks": [{"type":"x"},`},
		{`"mode":"base64",`, ``}, {`"wtfVersion"`, `"other":1,"wtfVersion"`}, {"\n  ]\n}", "\n  ],\"more\":[1]\n}"},
		{`"id":2,`, `"id":2,"id":3,`}, {`"startTime"`, `"startTime":-5,"x"`},
	} {
		inputs = append(inputs, bytes.Replace(base, []byte(r[0]), []byte(r[1]), 1))
	}
	o, _ := applyReaderOptions(nil)
	for i, in := range inputs {
		want := jsonOutcome(slowJSONReader(in))
		if got := jsonOutcome(newJSONBytesReader(in, o)); got != want {
			t.Fatalf("input %d (%d bytes): fast reader\n%.2000s\nwant\n%.2000s", i, len(in), got, want)
		}
	}
}

// TestJSONLoadZeroAllocsPerEvent: loading a JSON container allocates per
// chunk at most (string tables, the header), never per event.
func TestJSONLoadZeroAllocsPerEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	var out bytes.Buffer
	if err := BinaryToJSON(&out, bytes.NewReader(loadTraceFile(t, 20_000)), JSONComplete); err != nil {
		t.Fatal(err)
	}
	data := out.Bytes()
	var ld loader
	st, err := ld.load(data)
	if err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for c, err := range mustBytesReader(t, data).All() {
		if err != nil {
			t.Fatal(err)
		}
		if c.Type == ChunkEventData {
			chunks++
		}
	}
	allocs := testing.AllocsPerRun(3, func() { ld.load(data) })
	// A load allocates its reader, decoder and tracker (and the decoder a
	// copy of each event type's and zone's names); string tables and event
	// buffers are decoded into buffers reused from chunk to chunk: nothing
	// per event, next to nothing per chunk (encoding/json allocated each
	// string of a table).
	if limit := 600 + 2*float64(chunks); allocs > limit {
		t.Fatalf("%v allocations to load %d events in %d chunks (limit %v)", allocs, st.events, chunks, limit)
	}
}

func mustBytesReader(t *testing.T, data []byte) *Reader {
	r, err := NewBytesReader(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestValidJSONAgreesWithEncodingJSON: the fast answers of validJSON are
// json.Valid's.
func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "0", "-0", "00", "01", "-", "1", "-1", "42", "-42", "1.5", "1e3", "123456789012345678",
		"1234567890123456789012", "true", "false", "null", "nul", "True", " 1", "1 ", "--1", "1-", `"x"`, "{}", "[1,2]", "+1", "0x1"} {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

// TestJSONFastStringTable: string tables with escapes, surrogates, invalid
// UTF-8, white space and values encoding/json refuses are read by the fast
// path exactly as encoding/json alone reads them (the valid ones without
// falling back).
func TestJSONFastStringTable(t *testing.T) {
	var src bytes.Buffer
	if err := BinaryToJSON(&src, bytes.NewReader(loadTraceFile(t, 4)), JSONComplete); err != nil {
		t.Fatal(err)
	}
	base := src.Bytes()
	head := []byte(jsonStringTableHead)
	if !bytes.Contains(base, head) {
		t.Fatal("no string table in the test file")
	}
	valid := []string{`"a\"b"`, `"\\\/\b\f\n\r\t"`, `"\u00e9\u4E16x"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
		`"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, "\"\xff\xfe\"", "\"\xe4\xb8\"", `"héllo 世界"`, `""`,
		"\"\xef\xbf\xbd\"", `"\"ok\""`}
	invalid := []string{`"\u0000"`, "\"\x01\"", `"\x"`, `"\u12G4"`, `1`, `null`, `"a`, `"\`, `"\u12"`}
	insert := func(entries string) []byte {
		return bytes.Replace(base, head, append(bytes.Clone(head), entries+","...), 1)
	}
	o, _ := applyReaderOptions(nil)
	check := func(in []byte, mustStayFast bool) {
		t.Helper()
		want := jsonOutcome(slowJSONReader(in))
		jr := newJSONBytesReader(in, o)
		if got := jsonOutcome(jr); got != want {
			t.Fatalf("%.300q: fast reader\n%.2000s\nwant\n%.2000s", in, got, want)
		}
		if mustStayFast && jr.fast == nil {
			t.Fatalf("%.300q: fell back to encoding/json", in)
		}
	}
	for _, s := range valid {
		check(insert(s), true)
	}
	check(insert(strings.Join(valid, ",")), true)
	check(insert(" "+strings.Join(valid, " ,\n ")+" "), true)
	check(bytes.Replace(base, head, []byte(jsonStringTableHead+"]},"+jsonStringTableHead), 1), true) // an empty table first
	for _, s := range invalid {
		check(insert(s), false)
	}
}

// FuzzJSONFastPath: over any text, the scanner of NewBytesReader delivers
// exactly what encoding/json alone delivers (chunks, parts, offsets, errors).
func FuzzJSONFastPath(f *testing.F) {
	f.Add([]byte("{\n  \"wtfVersion\": 1,\n  \"formatVersion\": 10,\n  \"chunks\": [\n    " +
		`{"id":1,"type":"event_data","parts":[{"type":"string_table","value":["a","\"ok\"","h\u00e9","\ud83d\ude00","\ud83d",""]},` +
		`{"type":"binary_event_buffer","mode":"base64","byteLength":4,"value":"AAAAAA=="}]}` + "\n  ]\n}"))
	f.Add([]byte(`{"wtfVersion":1,"formatVersion":10}` + "\n" + `{"chunks":[{"type":"event_data","parts":[{"type":"string_table","value":[ "x" , "\n\t" ]}]}]}`))
	o, _ := applyReaderOptions(nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		want := jsonOutcome(slowJSONReader(data))
		if got := jsonOutcome(newJSONBytesReader(data, o)); got != want {
			t.Fatalf("fast reader\n%.2000s\nwant\n%.2000s", got, want)
		}
	})
}
