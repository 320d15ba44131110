package wtfcff

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

func TestVectorJSON(t *testing.T) {
	const name = "api_public_json.wtf-json"
	src, _ := openVector(t, name)
	d := loadDump(t, name)
	got := decodeAll(src)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if v := src.WTFVersion(); v != JSWTFVersion || src.Kind() != KindJSON {
		t.Errorf("wtfVersion %d", v)
	}
	// The dump's string tables for JSON files are the JSON arrays, without
	// split('\0')'s trailing "": compare through the binary layout.
	for i := range d.Chunks {
		for j := range d.Chunks[i].Parts {
			d.Chunks[i].Parts[j] = bytes.Replace(d.Chunks[i].Parts[j], []byte(`"values": [`), []byte(`"values_json": [`), 1)
		}
	}
	compareChunkPartsJSON(t, got, d)
	compareWireEvents(t, name, got.events, d, false)
	compareZones(t, name, got.dec, d)
	compareZoneEvents(t, name, got, d)

	// The JSON twin holds the same records as the binary file, except the
	// run-dependent define/zone times.
	bin, _ := openVector(t, "api_public.wtf-trace")
	binGot := decodeAll(bin)
	compareWireEvents(t, "binary vs json", binGot.events, d, true)
}

func compareChunkPartsJSON(t *testing.T, got *decoded, d *dumpFile) {
	t.Helper()
	if len(got.chunks) != len(d.Chunks) {
		t.Fatalf("%d chunks, want %d", len(got.chunks), len(d.Chunks))
	}
	for i, w := range d.Chunks {
		if c := got.chunks[i]; c.ID != w.ID || c.Type.String() != w.Type || len(c.Parts) != len(w.Parts) {
			t.Errorf("chunk %d: %d %s %d parts, want %d %s %d", i, c.ID, c.Type, len(c.Parts), w.ID, w.Type, len(w.Parts))
		}
	}
	if got.header == nil || got.header.Timebase != d.DB.Timebase {
		t.Errorf("header %+v, want timebase %v", got.header, d.DB.Timebase)
	}
}

func TestVectorLegacy(t *testing.T) {
	const name = "mutated/legacy_v3_handmade.wtf-trace"
	src, _ := openVector(t, name)
	d := loadDump(t, name)
	if src.Kind() != KindLegacy {
		t.Fatalf("opened as %v", src.Kind())
	}
	lr := src.legacy
	got := decodeAll(src)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if lr.WTFVersion() != 1 {
		t.Errorf("wtfVersion %d", lr.WTFVersion())
	}
	compareChunkParts(t, name, got.chunks, got.header, d)
	// The DB's single event: legacy#ev at 1.5 ms with x=42 in the default zone.
	var evs []decodedEvent
	for _, e := range got.events {
		if e.typ.builtin == builtinNone {
			evs = append(evs, e)
		}
	}
	w := d.DB.Zones[0].Events
	if len(evs) != len(w) || len(evs) != 1 {
		t.Fatalf("%d events, want %d", len(evs), len(w))
	}
	if evs[0].name != w[0].Name || float64(evs[0].time)/1000 != w[0].Time {
		t.Errorf("event %s @%d, want %s @%v", evs[0].name, evs[0].time, w[0].Name, w[0].Time)
	}
	checkArg(t, "legacy", evs[0].typ.Args[0], evs[0].args[0], w[0].Args["x"])
	compareZones(t, name, got.dec, d) // the nameless default zone
	compareZoneEvents(t, name, got, d)
	if evs[0].zone == nil || evs[0].zone != got.dec.Zones()[0] {
		t.Errorf("event zone %v", evs[0].zone)
	}
	if got.header.ContextInfo == nil || got.header.ContextInfo.URI != "legacy://x" || got.header.Metadata.appendJSON(nil) == nil {
		t.Errorf("header %+v", got.header)
	}
}

// TestVectorsMalformed checks every mutated file fails or decodes as the
// vectors' README says.
func TestVectorsMalformed(t *testing.T) {
	t.Run("bad_magic", func(t *testing.T) {
		data := vectortest.Read(t, "wtf", "mutated/bad_magic.wtf-trace")
		_, err := NewReader(bytes.NewReader(data))
		var fe *FormatError
		if !errors.Is(err, ErrBadMagic) || !errors.As(err, &fe) || fe.Offset != 0 {
			t.Fatalf("err %v", err)
		}
		if _, err := Open(bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrBadMagic) {
			t.Fatalf("Open: %v", err)
		}
	})
	t.Run("header_only", func(t *testing.T) {
		// Our choice: a header without chunks is an empty trace, not an error.
		data := vectortest.Read(t, "wtf", "mutated/header_only.wtf-trace")
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if r.Next() || r.Err() != nil {
			t.Fatalf("next chunk or error: %v", r.Err())
		}
		f, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil || len(f.Chunks()) != 0 {
			t.Fatalf("Open: %v", err)
		}
	})
	t.Run("truncated_chunk", func(t *testing.T) {
		src, data := openVector(t, "mutated/truncated_chunk.wtf-trace")
		got := decodeAll(src)
		var fe *FormatError
		if !errors.Is(got.err, ErrTruncated) || !errors.As(got.err, &fe) || fe.Offset != 444 {
			t.Fatalf("err %v", got.err)
		}
		if len(got.chunks) != 1 || got.chunks[0].ID != 100 || got.header == nil || got.header.Timebase != 1700000000000.25 {
			t.Fatalf("chunks before the error: %+v", got.chunks)
		}
		if !strings.Contains(got.err.Error(), "2452") {
			t.Errorf("error should name the declared length: %v", got.err)
		}
		if _, err := Open(bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrTruncated) {
			t.Fatalf("Open: %v", err)
		}
	})
	t.Run("undefined_wire_id", func(t *testing.T) {
		const name = "mutated/undefined_wire_id.wtf-trace"
		src, _ := openVector(t, name)
		d := loadDump(t, name)
		got := decodeAll(src)
		var fe *FormatError
		if !errors.Is(got.err, ErrUndefinedEvent) || !errors.As(got.err, &fe) {
			t.Fatalf("err %v", got.err)
		}
		// Chunk 101 at 444 has 4 parts: the event buffer starts at 444+72+1248.
		if fe.Offset != 444+72+1248+652 || !strings.Contains(got.err.Error(), "999") {
			t.Errorf("error at %d: %v", fe.Offset, got.err)
		}
		if len(d.WireErrors) != 1 || d.WireErrors[0].ByteOffset != 652 {
			t.Fatalf("dump: %+v", d.WireErrors)
		}
		compareWireEvents(t, name, got.events, d, false)
	})
	t.Run("unknown_chunk_type", func(t *testing.T) {
		src, _ := openVector(t, "mutated/unknown_chunk_type.wtf-trace")
		got := decodeAll(src)
		if got.err != nil || len(got.chunks) != 3 || got.chunks[1].Type.Known() || len(got.chunks[1].Parts) != 1 ||
			string(got.chunks[1].Parts[0].Data) != "hello unknown chunk\x00" {
			t.Fatalf("err %v chunks %+v", got.err, got.chunks)
		}
	})
}
