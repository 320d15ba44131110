package dial9

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// The tests below decode every vector and compare with the dumps of the
// upstream Rust decoder (0.2.0 dumps for v0.2.0/, 0.4.0 for v0.4.0/ and
// handmade/): every frame with its offsets, schema, timestamp and values.

func hexAddrs(s Stack) []any {
	out := []any{}
	for i := 0; i < s.Len(); i++ {
		out = append(out, "0x"+strconv.FormatUint(s.At(i), 16))
	}
	return out
}

// dumpValue renders a field value the way the upstream dump program does.
func dumpValue(d *Reader, v View) map[string]any {
	if !v.Present() {
		return map[string]any{"None": nil}
	}
	switch v.Type().Base() {
	case TypeI64:
		return map[string]any{"I64": strconv.FormatInt(v.Int(), 10)}
	case TypeF64:
		return map[string]any{"bits": fmt.Sprintf("0x%016x", v.Uint())}
	case TypeBool:
		return map[string]any{"Bool": v.Bool()}
	case TypeString:
		return map[string]any{"String": string(v.Bytes())}
	case TypeBytes:
		return map[string]any{"Bytes_hex": hex.EncodeToString(v.Bytes())}
	case TypePooledString:
		var res any
		if s, ok := d.LookupString(v.PoolID()); ok {
			res = string(s)
		}
		return map[string]any{"PooledString": v.PoolID(), "resolved": res}
	case TypePooledStackFrames:
		var res any
		if s, ok := d.LookupStack(v.PoolID()); ok {
			res = hexAddrs(s)
		}
		return map[string]any{"PooledStackFrames": v.PoolID(), "resolved": res}
	case TypeStackFrames:
		return map[string]any{"StackFrames": hexAddrs(v.Stack())}
	case TypeStringMap:
		pairs := []any{}
		for k, val := range v.Pairs() {
			pairs = append(pairs, []any{string(k), string(val)})
		}
		return map[string]any{"StringMap": pairs}
	case TypeDynamicList:
		elems := []any{}
		for el := range v.Elems() {
			elems = append(elems, dumpValue(d, el))
		}
		return map[string]any{"List": elems}
	case TypeDynamicMap:
		elems := []any{}
		for k, val := range v.Entries() {
			elems = append(elems, []any{dumpValue(d, k), dumpValue(d, val)})
		}
		return map[string]any{"Map": elems}
	}
	return map[string]any{"Varint": strconv.FormatUint(v.Uint(), 10), "wire_type": v.Type().String()}
}

func dumpFields(s *Schema) []any {
	out := []any{}
	for _, f := range s.Fields {
		out = append(out, map[string]any{"name": f.Name, "field_type": int(f.Type), "field_type_name": f.Type.String()})
	}
	return out
}

// dumpFrame renders the decoder's current frame like the upstream dump.
func dumpFrame(d *Reader) map[string]any {
	m := map[string]any{"start": d.FrameOffset(), "end": d.FrameEnd(), "kind": d.Kind().String()}
	switch d.Kind() {
	case FrameSchema:
		s := d.Schema()
		m["type_id"], m["name"], m["has_timestamp"], m["fields"] = s.ID, s.Name, s.HasTimestamp, dumpFields(s)
	case FrameEvent:
		ev := d.Event()
		m["type_id"], m["name"] = ev.TypeID(), ev.Name()
		if ev.HasTimestamp() {
			m["timestamp_ns"] = strconv.FormatUint(ev.Timestamp(), 10)
		} else {
			m["timestamp_ns"] = nil
		}
		vals := []any{}
		for i := 0; i < ev.NumFields(); i++ {
			if ev.Uint(i) != ev.Field(i).Uint() {
				panic(fmt.Sprintf("Event.Uint(%d) = %d, View.Uint = %d", i, ev.Uint(i), ev.Field(i).Uint()))
			}
			vals = append(vals, map[string]any{"field": ev.Schema().Fields[i].Name, "value": dumpValue(d, ev.Field(i))})
		}
		m["values"] = vals
	case FrameStringPool:
		ents := []any{}
		for _, e := range d.StringPoolEntries() {
			ents = append(ents, map[string]any{"pool_id": e.ID, "data": string(e.Data), "utf8": e.ValidUTF8})
		}
		m["entries"] = ents
	case FrameStackPool:
		ents := []any{}
		for _, e := range d.StackPoolEntries() {
			ents = append(ents, map[string]any{"pool_id": e.ID, "frames": hexAddrs(e.Frames)})
		}
		m["entries"] = ents
	case FrameAnnotations:
		id, ents := d.Annotations()
		m["type_id"] = id
		m["count"] = len(ents)
	}
	return m
}

// normalize round-trips v through JSON so that it compares with a parsed dump.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

type rustDump struct {
	InputLen int              `json:"input_len"`
	Version  *int             `json:"version"`
	Header   string           `json:"header"`
	Frames   []map[string]any `json:"frames"`
	Outcome  struct {
		Result string `json:"result"`
		Pos    int64  `json:"pos"`
	} `json:"outcome"`
}

// expectedFailure is what our decoder reports where upstream stops early.
var expectedFailure = map[string]error{
	"08_schema_conflict_NEGATIVE":           ErrSchemaConflict,
	"hm03_unknown_frame_tag_0x07":           ErrUnknownFrame,
	"hm05_event_unknown_type_id":            ErrUnknownType,
	"hm06_truncated_event":                  ErrTruncated,
	"hm09_leb128_noncanonical_and_overflow": ErrCorrupt,
	"hm12_invalid_utf8_schema_name":         ErrCorrupt,
	"hm15_trailing_zero_byte":               ErrUnknownFrame,
	"hm18_pool_count_huge_truncated":        ErrTruncated,
}

// expectedOffset overrides the upstream stop position where ours is the
// start of the offending frame rather than its end.
var expectedOffset = map[string]int64{"08_schema_conflict_NEGATIVE": 31}

func checkAgainstDump(t *testing.T, name string, data []byte, dumpPath string) {
	t.Helper()
	raw, err := os.ReadFile(dumpPath)
	if err != nil {
		t.Skipf("no dump: %v", err)
	}
	var want rustDump
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	d, err := NewBytesReader(data, WithAnyVersion())
	if want.Version == nil {
		if !errors.Is(err, ErrBadMagic) {
			t.Fatalf("upstream rejects the header (%s); we got %v", want.Header, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if int(d.Version()) != *want.Version {
		t.Errorf("version %d, want %d", d.Version(), *want.Version)
	}
	resets, headers := 0, 0
	i := 0
	for d.NextFrame() {
		got := normalize(t, dumpFrame(d)).(map[string]any)
		if i >= len(want.Frames) {
			t.Fatalf("extra frame %d: %v", i, got)
		}
		exp := want.Frames[i]
		if h, _ := exp["hex"].(string); h != hex.EncodeToString(data[d.FrameOffset():d.FrameEnd()]) {
			t.Errorf("frame %d: bytes differ from the dump's hex", i)
		}
		for _, s := range asList(exp["skipped_before"]) {
			switch s.(map[string]any)["kind"] {
			case "timestamp_reset":
				resets++
			case "stream_header":
				headers++
			}
		}
		delete(exp, "hex")
		delete(exp, "skipped_before")
		delete(exp, "for_each_value_count")
		stripF64Debug(exp)
		if d.Kind() == FrameAnnotations {
			t.Fatalf("no annotation frames expected in vectors")
		}
		if !reflect.DeepEqual(got, exp) {
			gb, _ := json.Marshal(got)
			eb, _ := json.Marshal(exp)
			t.Errorf("frame %d:\n got  %s\n want %s", i, gb, eb)
		}
		i++
	}
	if i != len(want.Frames) {
		t.Errorf("decoded %d frames, upstream %d", i, len(want.Frames))
	}
	if d.Resets() < resets || d.Headers()-1 != headers {
		t.Errorf("silent frames: %d resets, %d extra headers; dump lists %d, %d", d.Resets(), d.Headers()-1, resets, headers)
	}
	switch want.Outcome.Result {
	case "end_of_stream":
		if d.Err() != nil || d.Offset() != int64(len(data)) {
			t.Errorf("clean end expected; err %v at %d", d.Err(), d.Offset())
		}
	default:
		sentinel := expectedFailure[name]
		if sentinel == nil {
			t.Fatalf("no expected failure listed for %s (upstream: %s at %d)", name, want.Outcome.Result, want.Outcome.Pos)
		}
		var fe *FormatError
		if !errors.As(d.Err(), &fe) || !errors.Is(d.Err(), sentinel) {
			t.Fatalf("want %v, got %v", sentinel, d.Err())
		}
		pos := want.Outcome.Pos
		if o, ok := expectedOffset[name]; ok {
			pos = o
		}
		if fe.Offset != pos {
			t.Errorf("error at offset %d, upstream stops at %d: %v", fe.Offset, pos, d.Err())
		}
		if d.NextFrame() || d.Err() != fe {
			t.Error("error is not sticky")
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// stripF64Debug drops the Rust {:?} rendering of F64 values; "bits" is compared.
func stripF64Debug(frame map[string]any) {
	for _, v := range asList(frame["values"]) {
		if val, ok := v.(map[string]any)["value"].(map[string]any); ok {
			delete(val, "F64")
		}
	}
}

func TestDecodeVectors(t *testing.T) {
	dir := vectortest.Dir(t, "dial9")
	for _, sub := range []string{"v0.2.0", "v0.4.0"} {
		files, _ := filepath.Glob(filepath.Join(dir, sub, "*.bin"))
		if len(files) == 0 {
			t.Fatalf("no vectors in %s", sub)
		}
		for _, p := range files {
			name := strings.TrimSuffix(filepath.Base(p), ".bin")
			t.Run(sub+"/"+name, func(t *testing.T) {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				checkAgainstDump(t, name, data, strings.TrimSuffix(p, ".bin")+".rust.json")
			})
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "handmade", "*.bin"))
	if len(files) == 0 {
		t.Fatal("no handmade vectors")
	}
	for _, p := range files {
		name := strings.TrimSuffix(filepath.Base(p), ".bin")
		t.Run("handmade/"+name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstDump(t, name, data, filepath.Join(dir, "handmade", "decoded", name+".rust-v0.4.0.json"))
		})
	}
}
