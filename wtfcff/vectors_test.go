package wtfcff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// dumpFile is the part of a vector's .dump.json the tests compare with.
type dumpFile struct {
	FileHeader struct {
		Magic         string `json:"magic"`
		WTFVersion    uint32 `json:"wtfVersion"`
		FormatVersion uint32 `json:"formatVersion"`
	} `json:"file_header"`
	RawLayout struct {
		Chunks []struct {
			Offset    int64  `json:"offset"`
			ID        uint32 `json:"id"`
			Type      uint32 `json:"type"`
			Length    int64  `json:"length"`
			StartTime uint32 `json:"startTime"`
			EndTime   uint32 `json:"endTime"`
			Parts     []struct {
				Type   string `json:"type"`
				Offset int64  `json:"offset"`
				Length int    `json:"length"`
			} `json:"parts"`
		} `json:"chunks"`
		TrailingBytes int `json:"trailingBytes"`
	} `json:"rawLayout"`
	StreamErrors []string `json:"streamErrors"`
	Chunks       []struct {
		ID        uint32            `json:"id"`
		Type      string            `json:"type"`
		StartTime uint32            `json:"startTime"`
		EndTime   uint32            `json:"endTime"`
		Parts     []json.RawMessage `json:"parts"`
	} `json:"chunks"`
	WireEvents []struct {
		Chunk      uint32                     `json:"chunk"`
		ByteOffset int                        `json:"byteOffset"`
		ByteLength int                        `json:"byteLength"`
		WireID     uint16                     `json:"wireId"`
		Name       string                     `json:"name"`
		TimeRaw    uint32                     `json:"timeRaw"`
		Args       map[string]json.RawMessage `json:"args"`
	} `json:"wireEvents"`
	WireErrors []struct {
		Chunk      uint32 `json:"chunk"`
		ByteOffset int    `json:"byteOffset"`
		Error      string `json:"error"`
	} `json:"wireErrors"`
	DB struct {
		Error    string  `json:"error"`
		Timebase float64 `json:"timebase"`
		Zones    []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			Location string `json:"location"`
			Events   []struct {
				Name    string                     `json:"name"`
				Time    float64                    `json:"time"`
				Depth   int                        `json:"depth"`
				Scope   bool                       `json:"scope"`
				EndTime *float64                   `json:"endTime"`
				Args    map[string]json.RawMessage `json:"args"`
			} `json:"events"`
		} `json:"zones"`
	} `json:"db"`
}

func loadDump(t *testing.T, name string) *dumpFile {
	t.Helper()
	var d dumpFile
	if err := json.Unmarshal(vectortest.Read(t, "wtf", name+".dump.json"), &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// decodedEvent is what the tests collect from our decoder.
type decodedEvent struct {
	chunk  uint32
	offset int
	size   int
	wire   uint16
	name   string
	time   uint32
	typ    *EventType
	zone   *Zone
	args   []Value
	raw    []byte
}

type decoded struct {
	chunks []Chunk
	header *FileHeader
	events []decodedEvent
	err    error
	dec    *Decoder
}

// decodeAll reads every chunk and event of src, copying what it keeps.
func decodeAll(src ChunkSource) *decoded {
	out := &decoded{dec: NewDecoder()}
	for src.Next() {
		c := src.Chunk()
		cc := *c
		cc.Parts = nil
		for _, p := range c.Parts {
			p.Data = bytes.Clone(p.Data)
			cc.Parts = append(cc.Parts, p)
		}
		out.chunks = append(out.chunks, cc)
		if c.Type == ChunkFileHeader && out.header == nil {
			h, err := c.FileHeader()
			if err != nil {
				out.err = err
				return out
			}
			out.header = h
		}
		if !out.dec.SetChunk(&cc) {
			continue
		}
		for out.dec.Next() {
			e := out.dec.Event()
			de := decodedEvent{chunk: e.Chunk, offset: e.BufferOffset, size: e.Size, wire: e.WireID,
				name: e.Name(), time: e.Time, typ: e.Type, zone: e.Zone, raw: e.Raw()}
			for i := range e.NumArgs() {
				de.args = append(de.args, e.Arg(i))
			}
			out.events = append(out.events, de)
		}
		if err := out.dec.Err(); err != nil {
			out.err = err
			return out
		}
	}
	if out.err == nil {
		out.err = src.Err()
	}
	return out
}

func openVector(t *testing.T, name string) (*Reader, []byte) {
	t.Helper()
	data := vectortest.Read(t, "wtf", name)
	src, err := NewBytesReader(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return src, data
}

// checkArg compares one decoded argument with the reference reader's value.
func checkArg(t *testing.T, where string, def ArgDef, v Value, want json.RawMessage) {
	t.Helper()
	var w any
	dec := json.NewDecoder(bytes.NewReader(want))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	fail := func(got any) { t.Errorf("%s %s (%s): got %v, want %s", where, def.Name, def.TypeName, got, want) }
	if w == nil {
		if !v.IsNull() {
			fail(string(v.AppendJSON(nil)))
		}
		return
	}
	if v.IsNull() {
		fail("null")
		return
	}
	num := func(x any) float64 {
		switch n := x.(type) {
		case json.Number:
			f, _ := n.Float64()
			return f
		case map[string]any:
			switch n["$number"] {
			case "NaN":
				return math.NaN()
			case "Infinity":
				return math.Inf(1)
			case "-Infinity":
				return math.Inf(-1)
			case "-0":
				return math.Copysign(0, -1)
			}
		}
		t.Fatalf("%s: not a number: %v", where, x)
		return 0
	}
	switch def.Type {
	case ArgBool:
		if v.Bool() != w.(bool) {
			fail(v.Bool())
		}
	case ArgInt8, ArgUint8, ArgInt16, ArgUint16, ArgInt32, ArgUint32, ArgFlowID:
		if float64(v.Int()) != num(w) {
			fail(v.Int())
		}
	case ArgTime32: // the reference reports ms = µs/1000
		if math.Abs(float64(v.Uint())/1000-num(w)) > 1e-9 {
			fail(v.Uint())
		}
	case ArgFloat32:
		f := num(w)
		if math.Float32bits(v.Float32()) != math.Float32bits(float32(f)) && !(f != f && v.Float32() != v.Float32()) {
			fail(v.Float32())
		}
	case ArgASCII, ArgUTF8, ArgChar, ArgWChar, ArgCharArray, ArgWCharArray:
		if v.String() != w.(string) {
			fail(v.String())
		}
	case ArgAny:
		var got, exp any
		if err := json.Unmarshal(v.Bytes(), &got); err != nil {
			fail(string(v.Bytes()))
			return
		}
		json.Unmarshal(want, &exp)
		if !reflect.DeepEqual(got, exp) {
			fail(string(v.Bytes()))
		}
	default:
		vals := w.(map[string]any)["values"].([]any)
		if v.Len() != len(vals) {
			fail(string(v.AppendJSON(nil)))
			return
		}
		for i, x := range vals {
			if g := v.FloatAt(i); g != num(x) && float32(g) != float32(num(x)) {
				fail(string(v.AppendJSON(nil)))
				return
			}
		}
	}
}

// compareWireEvents checks every record against the dump's wireEvents.
func compareWireEvents(t *testing.T, name string, got []decodedEvent, d *dumpFile, skipTimes bool) {
	t.Helper()
	if len(got) != len(d.WireEvents) {
		t.Fatalf("%s: %d records, want %d", name, len(got), len(d.WireEvents))
	}
	for i, w := range d.WireEvents {
		g := got[i]
		where := fmt.Sprintf("%s record %d (chunk %d @%d %s)", name, i, w.Chunk, w.ByteOffset, w.Name)
		if g.chunk != w.Chunk || g.offset != w.ByteOffset || g.size != w.ByteLength || g.wire != w.WireID || g.name != w.Name {
			t.Errorf("%s: got chunk %d @%d+%d wire %d %s", where, g.chunk, g.offset, g.size, g.wire, g.name)
			continue
		}
		if g.time != w.TimeRaw && !(skipTimes && (g.typ.builtin == builtinDefine || g.typ.builtin == builtinZoneCreate || g.typ.builtin == builtinZoneSet)) {
			t.Errorf("%s: time %d, want %d", where, g.time, w.TimeRaw)
		}
		if len(g.args) != len(w.Args) {
			t.Errorf("%s: %d args, want %d", where, len(g.args), len(w.Args))
			continue
		}
		for j, def := range g.typ.Args {
			want, ok := w.Args[def.Name]
			if !ok {
				t.Errorf("%s: arg %s missing in dump", where, def.Name)
				continue
			}
			checkArg(t, where, def, g.args[j], want)
		}
	}
}

func compareLayout(t *testing.T, name string, got []Chunk, d *dumpFile) {
	t.Helper()
	if len(got) != len(d.RawLayout.Chunks) {
		t.Fatalf("%s: %d chunks, want %d", name, len(got), len(d.RawLayout.Chunks))
	}
	for i, w := range d.RawLayout.Chunks {
		c := got[i]
		if c.Offset != w.Offset || c.ID != w.ID || uint32(c.Type) != w.Type || c.Length != w.Length || c.StartTime != w.StartTime || c.EndTime != w.EndTime {
			t.Errorf("%s chunk %d: got %+v", name, i, c)
		}
		if !c.Type.Known() {
			continue
		}
		if len(c.Parts) != len(w.Parts) {
			t.Errorf("%s chunk %d: %d parts, want %d", name, i, len(c.Parts), len(w.Parts))
			continue
		}
		tableEnd := c.Offset + chunkHeaderSize + partEntrySize*int64(len(c.Parts))
		for j, wp := range w.Parts {
			p := c.Parts[j]
			if fmt.Sprintf("0x%x", uint32(p.Type)) != wp.Type || p.Offset-tableEnd != wp.Offset || len(p.Data) != wp.Length {
				t.Errorf("%s chunk %d part %d: got %s @%d+%d, want %+v", name, i, j, p.Type, p.Offset-tableEnd, len(p.Data), wp)
			}
		}
	}
}

// compareChunkParts checks the decoded part contents (header, string table,
// resources) with the dump's "chunks".
func compareChunkParts(t *testing.T, name string, got []Chunk, hdr *FileHeader, d *dumpFile) {
	t.Helper()
	var known []Chunk
	for _, c := range got {
		if c.Type.Known() {
			known = append(known, c)
		}
	}
	if len(known) != len(d.Chunks) {
		t.Fatalf("%s: %d chunks delivered, want %d", name, len(known), len(d.Chunks))
	}
	for i, w := range d.Chunks {
		c := known[i]
		if c.ID != w.ID || c.Type.String() != w.Type || c.StartTime != w.StartTime || c.EndTime != w.EndTime {
			t.Errorf("%s chunk %d: id %d type %s times %x/%x, want %d %s %x/%x", name, i, c.ID, c.Type, c.StartTime, c.EndTime, w.ID, w.Type, w.StartTime, w.EndTime)
		}
		if len(c.Parts) != len(w.Parts) {
			t.Errorf("%s chunk %d: %d parts, want %d", name, i, len(c.Parts), len(w.Parts))
			continue
		}
		for j, raw := range w.Parts {
			var wp struct {
				Type       string          `json:"type"`
				Flags      uint32          `json:"flags"`
				Timebase   float64         `json:"timebase"`
				Metadata   json.RawMessage `json:"metadata"`
				Context    json.RawMessage `json:"contextInfo"`
				Values     []string        `json:"values"`
				Value      string          `json:"value"`
				ByteLength int             `json:"byteLength"`
				Base64     []byte          `json:"base64"`
			}
			json.Unmarshal(raw, &wp)
			p := c.Parts[j]
			if p.Type.String() != wp.Type {
				t.Errorf("%s chunk %d part %d: %s, want %s", name, i, j, p.Type, wp.Type)
				continue
			}
			switch p.Type {
			case PartFileHeader:
				h, err := ParseFileHeader(p.Data, p.Offset)
				if err != nil {
					t.Fatal(err)
				}
				if h.FlagBits() != wp.Flags || h.Timebase != wp.Timebase || h.Timebase != hdr.Timebase {
					t.Errorf("%s header: flags %d timebase %v, want %d %v", name, h.FlagBits(), h.Timebase, wp.Flags, wp.Timebase)
				}
				if !jsonEqual(h.Metadata.appendJSON(nil), wp.Metadata) {
					t.Errorf("%s header metadata %s, want %s", name, h.Metadata.appendJSON(nil), wp.Metadata)
				}
				if h.ContextInfo != nil && !jsonSubset(wp.Context, h.ContextInfo.appendJSON(nil)) {
					t.Errorf("%s header contextInfo %s, want %s", name, h.ContextInfo.appendJSON(nil), wp.Context)
				}
			case PartStringTable:
				// The dump holds WTF's split('\0') result.
				if got := strings.Split(string(p.Data), "\x00"); !reflect.DeepEqual(got, wp.Values) {
					t.Errorf("%s chunk %d string table: %d values, want %d", name, i, len(got), len(wp.Values))
				}
			case PartStringResource:
				if string(p.Data) != wp.Value {
					t.Errorf("%s string resource %q, want %q", name, p.Data, wp.Value)
				}
			case PartBinaryResource:
				if !bytes.Equal(p.Data, wp.Base64) || len(p.Data) != wp.ByteLength {
					t.Errorf("%s binary resource %x, want %x", name, p.Data, wp.Base64)
				}
			case PartBinaryEventBuffer, PartLegacyEventBuffer:
				if len(p.Data) != wp.ByteLength {
					t.Errorf("%s event buffer %d bytes, want %d", name, len(p.Data), wp.ByteLength)
				}
			}
		}
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// jsonSubset reports whether every key of object a has the same value in b.
func jsonSubset(a, b []byte) bool {
	var x, y map[string]any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	for k, v := range x {
		if !reflect.DeepEqual(v, y[k]) {
			return false
		}
	}
	return true
}

func TestVectorsDecode(t *testing.T) {
	for _, name := range []string{"api_public.wtf-trace", "det_resources.wtf-trace", "mutated/unknown_chunk_type.wtf-trace"} {
		t.Run(name, func(t *testing.T) {
			src, data := openVector(t, name)
			d := loadDump(t, name)
			got := decodeAll(src)
			if got.err != nil {
				t.Fatal(got.err)
			}
			if len(data) < 12 || int64(d.FileHeader.WTFVersion) != src.WTFVersion() {
				t.Errorf("wtfVersion %d, want %d", src.WTFVersion(), d.FileHeader.WTFVersion)
			}
			compareLayout(t, name, got.chunks, d)
			compareChunkParts(t, name, got.chunks, got.header, d)
			compareWireEvents(t, name, got.events, d, false)
			compareZones(t, name, got.dec, d)
			compareZoneEvents(t, name, got, d)
		})
	}
}

// compareZoneEvents checks how many events each zone of the reference's
// database holds (every record but definitions and zone records).
func compareZoneEvents(t *testing.T, name string, got *decoded, d *dumpFile) {
	t.Helper()
	count := map[*Zone]int{}
	for _, e := range got.events {
		if e.typ.builtin != builtinDefine && e.typ.builtin != builtinZoneCreate && e.typ.builtin != builtinZoneSet && e.typ.builtin != builtinZoneDelete {
			count[e.zone]++
		}
	}
	for i, w := range d.DB.Zones {
		if z := got.dec.Zones()[i]; count[z] != len(w.Events) {
			t.Errorf("%s zone %q: %d events, want %d", name, z.Name, count[z], len(w.Events))
		}
	}
}

func compareZones(t *testing.T, name string, dec *Decoder, d *dumpFile) {
	t.Helper()
	zones := dec.Zones()
	if len(zones) != len(d.DB.Zones) {
		t.Fatalf("%s: %d zones, want %d", name, len(zones), len(d.DB.Zones))
	}
	for i, w := range d.DB.Zones {
		z := zones[i]
		if z.Name != w.Name || z.Type != w.Type || z.Location != w.Location {
			t.Errorf("%s zone %d: %+v, want %+v", name, i, *z, w)
		}
	}
}

func TestVectorFilesAllCovered(t *testing.T) {
	dir := vectortest.Dir(t, "wtf")
	var traces []string
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".wtf-trace") || strings.HasSuffix(p, ".wtf-json")) {
			rel, _ := filepath.Rel(dir, p)
			traces = append(traces, rel)
		}
		return nil
	})
	if len(traces) != 9 {
		t.Errorf("expected 9 WTF vector files, found %d: %v (update the tests)", len(traces), traces)
	}
}
