package wtfcff

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// recoveryTrace writes events with strings and arrays over several chunks.
func recoveryTrace(t testing.TB) []byte {
	t.Helper()
	var out bytes.Buffer
	w, _ := NewWriter(&out, WithChunkSize(512))
	et, _ := w.Define(0, "r#ev(uint32 i, ascii s, uint8[] v)", ClassInstance, 0)
	for i := range 60 {
		if err := w.Begin(et, uint32(i)).Uint32(uint32(i)).ASCII("s" + strings.Repeat("x", i%5)).Uint8s(make([]byte, i%9)).End(); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	return out.Bytes()
}

// recordInfo is where each record of a file lies, and where its chunk's
// string table ends.
type recordInfo struct {
	end      int64 // offset just past the record
	tableEnd int64 // offset just past its chunk's string table
	index    int   // its index among all records
}

func recordsOf(t *testing.T, data []byte) []recordInfo {
	r, _ := NewBytesReader(data)
	dec := NewDecoder()
	var out []recordInfo
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		st, _ := c.Part(PartStringTable)
		if !dec.SetChunk(c) {
			continue
		}
		for e, err := range dec.All() {
			if err != nil {
				t.Fatal(err)
			}
			end := e.Offset + int64(e.Size)
			if n := e.NumArgs(); n > 0 && e.Type.Args[n-1].Type.IsArray() && !e.Arg(n-1).IsNull() {
				// A record is whole without the padding after its last array.
				size := len(e.Arg(n - 1).Bytes())
				end -= int64(pad4(size) - size)
			}
			out = append(out, recordInfo{end: end, tableEnd: st.Offset + int64(len(st.Data)), index: len(out)})
		}
	}
	return out
}

// TestRecoverEveryCut cuts a trace at every offset: a recovering read never
// fails, delivers exactly the records that lie wholly before the cut (those
// of a chunk whose string table is cut excepted) in order, and its report
// adds up.
func TestRecoverEveryCut(t *testing.T) {
	data := recoveryTrace(t)
	all := recordsOf(t, data)
	f, _ := OpenBytes(data)
	boundary := map[int64]bool{fileHeaderSize: true}
	for _, ci := range f.Chunks() {
		boundary[ci.Offset+ci.Length] = true
	}
	for cut := int64(fileHeaderSize); cut <= int64(len(data)); cut++ {
		in := data[:cut]
		r, err := NewBytesReader(in, WithRecovery())
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for e, err := range Events(r) {
			if err != nil {
				t.Fatalf("cut %d: %v", cut, err)
			}
			if e.Offset+int64(e.Size) > cut {
				t.Fatalf("cut %d: record past the cut", cut)
			}
			got++
		}
		want := 0
		for _, ri := range all {
			if ri.end <= cut && ri.tableEnd <= cut {
				want++
			}
		}
		rec := r.Recovery()
		if got != want {
			t.Fatalf("cut %d: %d records, want %d (%s)", cut, got, want, rec)
		}
		if boundary[cut] {
			if rec.Torn || rec.LostBytes() != 0 {
				t.Fatalf("whole file reported torn: %s", rec)
			}
			continue
		}
		whole, inTorn := 0, 0 // records in the complete chunks, in the torn one
		for _, ri := range all {
			switch {
			case ri.end <= rec.TornOffset:
				whole++
			case ri.end <= rec.TornOffset+rec.DeclaredBytes:
				inTorn++
			}
		}
		least, most := rec.LostEvents()
		lost := int64(inTorn - (got - whole))
		if rec.DeclaredBytes == 0 {
			least, most = 0, 0 // the header is cut: how many is unknown (-1)
		}
		if !rec.Torn || rec.TornOffset+rec.PresentBytes != cut || rec.SalvagedEvents != got-whole ||
			lost < least || lost > most || rec.LostBytes() <= 0 || rec.LostBytes() > int64(len(data))-rec.TornOffset {
			t.Fatalf("cut %d: %d of %d records, report %+v: %s", cut, got, len(all), *rec, rec)
		}
		// Without WithRecovery the same input is an ErrTruncated error at
		// the torn chunk, after the same complete chunks.
		r2, _ := NewBytesReader(in)
		chunks := 0
		var last error
		for _, err := range r2.All() {
			if err != nil {
				last = err
				break
			}
			chunks++
		}
		var fe *FormatError
		if !errors.Is(last, ErrTruncated) || !errors.As(last, &fe) || fe.Offset != rec.TornOffset || chunks != rec.Chunks {
			t.Fatalf("cut %d: without recovery: %d chunks, %v", cut, chunks, last)
		}
	}
}

func TestRecoveryReport(t *testing.T) {
	data := recoveryTrace(t)
	f, _ := OpenBytes(data)
	lastChunk := f.Chunks()[len(f.Chunks())-1]
	c, _, _ := f.ReadChunk(len(f.Chunks())-1, nil)
	eb, _ := c.Part(PartBinaryEventBuffer)
	// Cut 3 bytes into the event buffer's second half.
	cut := eb.Offset + int64(len(eb.Data))/2 + 3
	r, _ := NewReader(bytes.NewReader(data[:cut]), WithRecovery()) // the streaming path
	n := 0
	for _, err := range Events(r) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	rec := r.Recovery()
	s := rec.String()
	if !rec.Salvaged || rec.SalvagedParts != 2 || rec.DroppedRecordBytes == 0 || rec.MissingEventBytes != eb.Offset+int64(len(eb.Data))-cut ||
		rec.TornID != lastChunk.ID || rec.DeclaredBytes != lastChunk.Length || rec.Reason != "the event buffer is cut" {
		t.Errorf("%+v", *rec)
	}
	for _, want := range []string{"is torn", "salvaged 2 parts and", "lost", "events", "the event buffer is cut"} {
		if !strings.Contains(s, want) {
			t.Errorf("report %q lacks %q", s, want)
		}
	}
	// A cut inside the string table salvages nothing of the chunk.
	st, _ := c.Part(PartStringTable)
	r, _ = NewBytesReader(data[:st.Offset+2], WithRecovery())
	for range Events(r) {
	}
	if rec := r.Recovery(); rec.Salvaged || rec.Reason != "the string table is cut" || rec.LostParts != 2 || r.Err() != nil {
		t.Errorf("string table cut: %+v", *rec)
	}
	// A cut inside a chunk header: nothing of it, a clean end.
	r, _ = NewBytesReader(data[:lastChunk.Offset+10], WithRecovery())
	for range r.All() {
	}
	if rec := r.Recovery(); !rec.Torn || rec.PresentBytes != 10 || rec.LostBytes() != 10 || r.Err() != nil ||
		!strings.Contains(rec.String(), "10 bytes into the header") {
		t.Errorf("header cut: %+v %v", *rec, r.Err())
	}
	// The error without recovery says what recovery would salvage.
	r, _ = NewBytesReader(data[:cut])
	for range r.All() {
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "WithRecovery salvages 2 of its 2 parts") {
		t.Errorf("%v", err)
	}
}

// rewriteTrimmed passes every chunk r yields to write, the torn one trimmed
// to its whole records (TrimTorn), the others decoded first as a converter
// does.
func rewriteTrimmed(t *testing.T, r *Reader, write func(*Chunk) error) {
	t.Helper()
	dec := NewDecoder()
	for c, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if c.Torn {
			if err := TrimTorn(c, dec); err != nil {
				t.Fatal(err)
			}
		} else if dec.SetChunk(c) {
			for dec.Next() {
			}
		}
		if err := write(c); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTrimTornWritesAWholeFile: the chunks of a recovering read, the torn
// one trimmed, make a file that reads without error with the same events.
func TestTrimTornWritesAWholeFile(t *testing.T) {
	data := recoveryTrace(t)
	for _, cut := range []int{len(data) - 1, len(data) - 7, len(data) - 100, len(data) - 300} {
		r, _ := NewBytesReader(data[:cut], WithRecovery())
		var out bytes.Buffer
		cw, _ := NewChunkWriter(&out)
		rewriteTrimmed(t, r, cw.WriteChunk)
		rec := r.Recovery()
		back, _ := NewBytesReader(out.Bytes())
		n := 0
		for _, err := range Events(back) {
			if err != nil {
				t.Fatalf("cut %d: the written file: %v", cut, err)
			}
			n++
		}
		want := 0
		for _, ri := range recordsOf(t, data) {
			if ri.end <= int64(cut) && ri.tableEnd <= int64(cut) {
				want++
			}
		}
		if n != want || (rec.Salvaged && rec.SalvagedEvents == 0 && rec.DroppedRecordBytes == 0) {
			t.Errorf("cut %d: %d events written, want %d; %s", cut, n, want, rec)
		}
	}
}
