package wtfcff

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// cutStep is the stride of the every-cut tests: every offset, or every 7th
// (and the last) under the race detector, which is 10 times slower.
func cutStep(cut, size int64) int64 {
	if raceEnabled && cut+7 <= size {
		return 7
	}
	return 1
}

// eventKey is what identifies a decoded record in these tests.
func eventKey(e *Event) string {
	return fmt.Sprintf("%s@%d%s", e.Name(), e.Time, e.AppendArgsJSON(nil))
}

// readRecovering reads every event of a recovering reader: the keys, the
// error, and the report.
func readRecovering(r *Reader) ([]string, error) {
	var keys []string
	for e, err := range Events(r) {
		if err != nil {
			return keys, err
		}
		keys = append(keys, eventKey(e))
	}
	return keys, nil
}

// jsonChunkLayout is where a chunk object of a JSON file lies, and where in
// it the string table ends and the event buffer's base64 text starts.
type jsonChunkLayout struct {
	end        int64   // just past the chunk object's '}'
	tableEnd   int64   // just past the string table part (0: none)
	valueStart int64   // the first base64 character of the event buffer (0: none)
	recEnds    []int64 // each record's end in the decoded buffer (padding after a last array excluded)
	first      int     // index of its first record among all
}

func jsonLayout(t *testing.T, js []byte) ([]jsonChunkLayout, []string) {
	t.Helper()
	r, err := NewBytesReader(js)
	if err != nil {
		t.Fatal(err)
	}
	dec := NewDecoder()
	var out []jsonChunkLayout
	var all []string
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		start := c.Offset + int64(bytes.IndexByte(js[c.Offset:], '{'))
		d := json.NewDecoder(bytes.NewReader(js[start:]))
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		l := jsonChunkLayout{end: start + d.InputOffset(), first: len(all)}
		obj := js[start:l.end]
		if i := bytes.Index(obj, []byte(`{"type":"string_table"`)); i >= 0 {
			d := json.NewDecoder(bytes.NewReader(obj[i:]))
			if err := d.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			l.tableEnd = start + int64(i) + d.InputOffset()
		}
		if i := bytes.Index(obj, []byte(`"type":"binary_event_buffer"`)); i >= 0 {
			j := bytes.Index(obj[i:], []byte(`"value":"`))
			l.valueStart = start + int64(i+j+len(`"value":"`))
		}
		if dec.SetChunk(c) {
			for e, err := range dec.All() {
				if err != nil {
					t.Fatal(err)
				}
				end := int64(e.BufferOffset + e.Size)
				if n := e.NumArgs(); n > 0 && e.Type.Args[n-1].Type.IsArray() && !e.Arg(n-1).IsNull() {
					size := len(e.Arg(n - 1).Bytes())
					end -= int64(pad4(size) - size)
				}
				l.recEnds = append(l.recEnds, end)
				all = append(all, eventKey(e))
			}
		}
		out = append(out, l)
	}
	return out, all
}

// wantJSONRecords is how many records a recovering read of js[:cut] must
// deliver: those of whole chunk objects, and of the torn one those its
// string table and the complete base64 groups of its event buffer hold.
func wantJSONRecords(layout []jsonChunkLayout, cut int64) int {
	n := 0
	for _, l := range layout {
		switch {
		case cut >= l.end:
			n += len(l.recEnds)
			continue
		case l.valueStart > 0 && cut >= l.valueStart && cut >= l.tableEnd:
			avail := (cut - l.valueStart) / 4 * 3
			for _, e := range l.recEnds {
				if e <= avail {
					n++
				}
			}
		}
		break
	}
	return n
}

// TestRecoverJSONEveryCut cuts a JSON file at every offset: a recovering
// read (over memory and streamed) fails only inside the document head,
// delivers in order exactly the records of the whole chunks and those the
// torn chunk's present text holds, and its report adds up.
func TestRecoverJSONEveryCut(t *testing.T) {
	data := recoveryTrace(t)
	for _, mode := range []JSONMode{JSONComplete, JSONPartial} {
		var out bytes.Buffer
		if err := BinaryToJSON(&out, bytes.NewReader(data), mode); err != nil {
			t.Fatal(err)
		}
		js := out.Bytes()
		layout, all := jsonLayout(t, js)
		headEnd := int64(bytes.Index(js, []byte(`"formatVersion": 10`)) + len(`"formatVersion": 10`))
		checked := 0
		for cut := int64(1); cut <= int64(len(js)); cut += cutStep(cut, int64(len(js))) {
			in := js[:cut]
			r, err := NewBytesReader(in, WithRecovery())
			if err != nil {
				t.Fatal(err)
			}
			got, err := readRecovering(r)
			if err != nil {
				if cut < headEnd {
					continue
				}
				t.Fatalf("mode %d cut %d: %v", mode, cut, err)
			}
			checked++
			want := wantJSONRecords(layout, cut)
			rec := r.Recovery()
			if len(got) != want {
				t.Fatalf("mode %d cut %d: %d records, want %d (%s)", mode, cut, len(got), want, rec)
			}
			for i := range got {
				if got[i] != all[i] {
					t.Fatalf("mode %d cut %d: record %d is %s, want %s", mode, cut, i, got[i], all[i])
				}
			}
			whole := 0
			for _, l := range layout {
				if l.end <= cut {
					whole += len(l.recEnds)
				}
			}
			complete := cut == int64(len(js))
			if mode == JSONPartial {
				// Every document ends with "}" and a line feed.
				docEnd := int64(bytes.Index(js, []byte("}\n")) + 1)
				complete = complete || cut == docEnd || cut == docEnd+1
				for _, l := range layout {
					complete = complete || cut == l.end+2 || cut == l.end+3
				}
			}
			if rec.Kind != KindJSON || rec.Torn == complete || complete && rec.String() != "" {
				t.Fatalf("mode %d cut %d: torn %v, complete %v: %s", mode, cut, rec.Torn, complete, rec)
			}
			if complete {
				continue
			}
			least, most := rec.LostEvents()
			lost := int64(len(all) - len(got))
			inTorn := int64(0) // records of the torn chunk
			for _, l := range layout {
				if l.end > cut {
					inTorn = int64(len(l.recEnds))
					break
				}
			}
			lostInTorn := inTorn - int64(len(got)-whole)
			if most >= 0 && (lostInTorn < least || lostInTorn > most) || lost < least ||
				rec.SalvagedEvents != len(got)-whole && rec.Salvaged ||
				rec.TornOffset+rec.PresentBytes != cut || rec.LostBytes() < 0 || rec.LostBytes() > int64(len(js)) {
				t.Fatalf("mode %d cut %d: lost %d (%d in the torn chunk), report %+v: %s", mode, cut, lost, lostInTorn, *rec, rec)
			}
			// Streamed: the same records and report.
			if cut%5 == 0 {
				rs, _ := NewReader(bytes.NewReader(in), WithRecovery())
				got2, err := readRecovering(rs)
				rec2 := rs.Recovery()
				if err != nil || len(got2) != len(got) || rec2.String() != rec.String() {
					t.Fatalf("mode %d cut %d: streamed %d records, %v, %s; over memory %s", mode, cut, len(got2), err, rec2, rec)
				}
			}
			// Without recovery: ErrTruncated after the same whole chunks.
			r3, _ := NewBytesReader(in)
			if _, err := readRecovering(r3); !errors.Is(err, ErrTruncated) {
				t.Fatalf("mode %d cut %d: without recovery: %v", mode, cut, err)
			}
		}
		if checked*int(cutStep(0, 1<<62)) < len(js)*9/10 {
			t.Errorf("mode %d: only %d of %d cuts read", mode, checked, len(js))
		}
	}
}

// TestRecoverJSONReport pins the report of a cut through a JSON event
// buffer and of a cut between chunks.
func TestRecoverJSONReport(t *testing.T) {
	var out bytes.Buffer
	if err := BinaryToJSON(&out, bytes.NewReader(recoveryTrace(t)), JSONComplete); err != nil {
		t.Fatal(err)
	}
	js := out.Bytes()
	layout, all := jsonLayout(t, js)
	last := layout[len(layout)-1]
	cut := last.valueStart + 41 // 10 groups and one character
	r, _ := NewBytesReader(js[:cut], WithRecovery())
	got, err := readRecovering(r)
	rec := r.Recovery()
	least, most := rec.LostEvents()
	declared := int64(0)
	fmt.Sscanf(string(js[bytes.LastIndex(js[:last.valueStart], []byte(`"byteLength":`))+len(`"byteLength":`):]), "%d", &declared)
	if err != nil || !rec.Torn || !rec.Salvaged || rec.SalvagedParts != 2 || rec.MissingEventBytes != declared-30 ||
		rec.Reason != "the event buffer is cut" || least < 1 || most < int64(len(all)-len(got)) ||
		!strings.Contains(rec.String(), "salvaged 2 parts and") {
		t.Errorf("%v %+v: %s", err, *rec, rec)
	}
	// Cut after the last chunk object: no chunk torn, what followed unknown.
	r, _ = NewBytesReader(js[:last.end+2], WithRecovery())
	got, err = readRecovering(r)
	rec = r.Recovery()
	if _, most := rec.LostEvents(); err != nil || len(got) != len(all) || !rec.Torn || rec.Salvaged || most != -1 ||
		!strings.Contains(rec.String(), "outside a chunk") {
		t.Errorf("%v %d %+v: %s", err, len(got), *rec, rec)
	}
	// A cut inside the string table salvages nothing of the chunk.
	r, _ = NewBytesReader(js[:last.tableEnd-3], WithRecovery())
	got, err = readRecovering(r)
	if rec := r.Recovery(); err != nil || rec.Salvaged || rec.Reason != "the string table is cut" || len(got) != last.first {
		t.Errorf("%v %+v", err, *rec)
	}
}

// legacyTrace builds a legacy (BinaryTrace v3, big-endian) file: a
// definition, then records with a string and a number.
func legacyTrace(n int) (data []byte, recEnds []int64) {
	be := binary.BigEndian
	str := func(b []byte, s string) []byte {
		b = be.AppendUint16(b, uint16(len(s)))
		b = be.AppendUint16(b, uint16(len(s)))
		return append(b, s...)
	}
	ascii := func(b []byte, s string) []byte {
		b = be.AppendUint16(b, uint16(len(s)))
		return append(b, s...)
	}
	b := be.AppendUint32(nil, Magic)
	b = be.AppendUint32(b, 1)
	b = be.AppendUint32(b, LegacyFormatVersion)
	b = str(b, `{"contextType":"script","uri":"legacy://r","title":"r"}`)
	b = be.AppendUint32(b, 0)
	b = be.AppendUint32(b, 1000)
	b = be.AppendUint32(b, 0)
	b = str(b, `{}`)
	// wtf.event#define(uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args)
	b = be.AppendUint16(b, 1)
	b = be.AppendUint32(b, 0)
	b = be.AppendUint16(b, 2)
	b = be.AppendUint16(b, 0)
	b = be.AppendUint32(b, 0)
	b = ascii(b, "legacy#ev")
	b = ascii(b, "uint32 x, ascii s")
	recEnds = append(recEnds, int64(len(b)))
	for i := range n {
		b = be.AppendUint16(b, 2)
		b = be.AppendUint32(b, uint32(100*i))
		b = be.AppendUint32(b, uint32(i))
		b = ascii(b, strings.Repeat("y", 1+i%4))
		recEnds = append(recEnds, int64(len(b)))
	}
	return b, recEnds
}

// TestRecoverLegacyEveryCut cuts a legacy file at every offset after its
// header: a recovering read delivers the records wholly before the cut, and
// reports the cut record; without recovery the Decoder fails there.
func TestRecoverLegacyEveryCut(t *testing.T) {
	data, ends := legacyTrace(40)
	lr, err := NewLegacyBytesReader(data)
	if err != nil {
		t.Fatal(err)
	}
	lr.Next()
	lr.Next()
	bufStart := lr.Chunk().Offset
	for cut := bufStart; cut <= int64(len(data)); cut += cutStep(cut, int64(len(data))) {
		for _, streamed := range []bool{false, true} {
			var r *Reader
			if streamed {
				r, err = NewReader(bytes.NewReader(data[:cut]), WithRecovery())
			} else {
				r, err = NewBytesReader(data[:cut], WithRecovery())
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := readRecovering(r)
			want, lastEnd := 0, bufStart
			for _, e := range ends {
				if e <= cut {
					want++
					lastEnd = e
				}
			}
			want-- // the definition is a record too, not an event of the trace
			rec := r.Recovery()
			if err != nil || len(got) != max(want, 0) && len(got) != want+1 {
				t.Fatalf("cut %d: %d events, want %d, %v (%s)", cut, len(got), want, err, rec)
			}
			torn := cut != lastEnd
			if rec.Kind != KindLegacy || rec.Torn != torn || torn && (rec.LostBytes() != cut-lastEnd || rec.TornOffset != bufStart ||
				rec.PresentBytes != cut-bufStart || !strings.Contains(rec.String(), "runs past the end")) {
				t.Fatalf("cut %d: %+v: %s", cut, *rec, rec)
			}
			if least, most := rec.LostEvents(); torn && (least != 1 || most != -1) {
				t.Fatalf("cut %d: lost %d..%d", cut, least, most)
			}
		}
		r, _ := NewBytesReader(data[:cut])
		if _, err := readRecovering(r); (err != nil) != (cut != bufStart && !contains(ends, cut)) {
			t.Fatalf("cut %d: without recovery: %v", cut, err)
		}
	}
}

func contains(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestFileRecoverEveryCut: File (random access) opened WithRecovery over
// a binary file cut at every offset indexes the whole chunks and the torn
// one, and delivers and reports what a recovering Reader does.
func TestFileRecoverEveryCut(t *testing.T) {
	data := recoveryTrace(t)
	for cut := int64(fileHeaderSize); cut <= int64(len(data)); cut += cutStep(cut, int64(len(data))) {
		in := data[:cut]
		r, _ := NewBytesReader(in, WithRecovery())
		want, err := readRecovering(r)
		if err != nil {
			t.Fatal(err)
		}
		wrec := r.Recovery()
		for _, viaReaderAt := range []bool{false, true} {
			var f *File
			if viaReaderAt {
				f, err = Open(bytes.NewReader(in), cut, WithRecovery())
			} else {
				f, err = OpenBytes(in, WithRecovery())
			}
			if err != nil {
				t.Fatalf("cut %d: %v", cut, err)
			}
			dec := NewDecoder()
			var got []string
			var crec *Recovery
			for c, err := range f.All() {
				if err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				if c.Torn {
					crec = c.Recovery()
				}
				if !dec.SetChunk(c) {
					continue
				}
				for e, err := range dec.All() {
					if err != nil {
						t.Fatalf("cut %d: %v", cut, err)
					}
					got = append(got, eventKey(e))
				}
			}
			frec := f.Recovery()
			if crec == nil {
				crec = frec
			}
			if len(got) != len(want) || crec.String() != wrec.String() || frec.Torn != wrec.Torn || frec.Chunks != wrec.Chunks ||
				crec.LostBytes() != wrec.LostBytes() || frec.Salvaged != wrec.Salvaged || frec.TornOffset != wrec.TornOffset {
				t.Fatalf("cut %d: file %d events, %+v (%s); reader %d, %s", cut, len(got), *frec, crec, len(want), wrec)
			}
		}
		// Without recovery a torn file does not open.
		if _, err := OpenBytes(in); (err != nil) != wrec.Torn {
			t.Fatalf("cut %d: %v, torn %v", cut, err, wrec.Torn)
		}
	}
}

// TestTrimTornJSON: the chunks of a recovering read of cut JSON text, the
// torn one trimmed, written with a JSONWriter, read back without error and
// with the same events.
func TestTrimTornJSON(t *testing.T) {
	var out bytes.Buffer
	if err := BinaryToJSON(&out, bytes.NewReader(recoveryTrace(t)), JSONComplete); err != nil {
		t.Fatal(err)
	}
	js := out.Bytes()
	layout, _ := jsonLayout(t, js)
	last := layout[len(layout)-1]
	for _, cut := range []int64{last.valueStart + 41, last.valueStart + 7, last.end - 3, int64(len(js)) - 2} {
		r, _ := NewBytesReader(js[:cut], WithRecovery())
		var back bytes.Buffer
		jw, _ := NewJSONWriter(&back)
		rewriteTrimmed(t, r, jw.WriteChunk)
		jw.Close()
		want, err := readRecovering(mustReader(t, js[:cut]))
		if err != nil {
			t.Fatal(err)
		}
		got, err := readRecovering(mustReader(t, back.Bytes()))
		if err != nil || len(got) != len(want) {
			t.Errorf("cut %d: written file: %d events, %v; recovered %d", cut, len(got), err, len(want))
		}
	}
}

func mustReader(t *testing.T, b []byte) *Reader {
	t.Helper()
	r, err := NewBytesReader(b, WithRecovery())
	if err != nil {
		t.Fatal(err)
	}
	return r
}
