package wtfcff

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestScopesMatchReferenceDB pairs the vectors' scopes and compares them with
// the scopes of the reference's database (name without spaces, begin, end,
// depth).
func TestScopesMatchReferenceDB(t *testing.T) {
	for _, name := range []string{"api_public.wtf-trace", "det_resources.wtf-trace", "api_public_json.wtf-json"} {
		src, _ := openVector(t, name)
		d := loadDump(t, name)
		type sc struct {
			zone, name string
			begin, end float64
			depth      int
			args       string
		}
		var want, got []sc
		for _, z := range d.DB.Zones {
			for _, e := range z.Events {
				if e.Scope {
					args := "{}"
					if e.Args != nil {
						b, _ := json.Marshal(e.Args)
						args = canonJSON(t, b)
					}
					want = append(want, sc{z.Name, e.Name, e.Time, *e.EndTime, e.Depth, args})
				}
			}
		}
		dec := NewDecoder()
		st := NewScopeTracker()
		for src.Next() {
			if !dec.SetChunk(src.Chunk()) {
				continue
			}
			for dec.Next() {
				if s, ok := st.Add(dec.Event()); ok {
					got = append(got, sc{s.Zone.Name, strings.ReplaceAll(string(s.Name), " ", ""), float64(s.Begin) / 1000, float64(s.End) / 1000, s.Depth, canonJSON(t, s.Args)})
					if s.Duration() != s.End-s.Begin {
						t.Errorf("duration")
					}
				}
			}
		}
		if dec.Err() != nil || src.Err() != nil {
			t.Fatal(dec.Err(), src.Err())
		}
		// The DB lists scopes by enter time within each zone; we report them
		// as they close. Compare as sets.
		if len(got) != len(want) {
			t.Fatalf("%s: %d scopes, want %d: %v", name, len(got), len(want), got)
		}
		for _, w := range want {
			found := false
			for _, g := range got {
				if g.zone == w.zone && g.name == w.name && math.Abs(g.begin-w.begin) < 1e-9 && math.Abs(g.end-w.end) < 1e-9 && g.depth == w.depth && g.args == w.args {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: scope %+v not found in %+v", name, w, got)
			}
		}
		if st.Open() != 0 || st.Unmatched() != 0 {
			t.Errorf("%s: %d open, %d unmatched", name, st.Open(), st.Unmatched())
		}
	}
}

// eventsJSON renders every event of a source in the JSON event encoding.
func eventsJSON(t *testing.T, src ChunkSource) []byte {
	t.Helper()
	dec := NewDecoder()
	var b []byte
	for src.Next() {
		if !dec.SetChunk(src.Chunk()) {
			continue
		}
		for dec.Next() {
			b = AppendEventJSON(b, dec.Event())
			b = append(b, '\n')
		}
		if dec.Err() != nil {
			t.Fatal(dec.Err())
		}
	}
	if src.Err() != nil {
		t.Fatal(src.Err())
	}
	return b
}

func TestJSONEventEncodingRoundTrip(t *testing.T) {
	for _, name := range []string{"api_public.wtf-trace", "det_resources.wtf-trace", "api_public_json.wtf-json", "mutated/legacy_v3_handmade.wtf-trace"} {
		src, data := openVector(t, name)
		want := eventsJSON(t, src)
		// Binary → JSON events (as a JSON container) → read back → binary.
		src, _ = NewBytesReader(data)
		var js bytes.Buffer
		jw, _ := NewJSONWriter(&js)
		dec := NewDecoder()
		for src.Next() {
			c, err := ChunkToJSONEvents(src.Chunk(), dec)
			if err != nil {
				t.Fatal(err)
			}
			if err := jw.WriteChunk(&c); err != nil {
				t.Fatal(err)
			}
		}
		jw.Close()
		if !bytes.Contains(js.Bytes(), []byte(`"type":"json_event_buffer","events":[`)) {
			t.Fatalf("%s: no json_event_buffer", name)
		}
		jr, err := NewJSONReader(bytes.NewReader(js.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var bin bytes.Buffer
		cw, _ := NewChunkWriter(&bin)
		enc := NewEventEncoder()
		for jr.Next() {
			c, err := ChunkFromJSONEvents(jr.Chunk(), enc)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			cw.WriteChunk(&c)
		}
		if jr.Err() != nil {
			t.Fatal(jr.Err())
		}
		checkLayout(t, bin.Bytes())
		back, _ := NewBytesReader(bin.Bytes())
		if got := eventsJSON(t, back); !bytes.Equal(got, want) {
			t.Errorf("%s: events differ after the JSON event round trip\n got %.300s\nwant %.300s", name, got, want)
		}
	}
}

// canonJSON re-marshals JSON so objects compare independently of key order
// and number spelling.
func canonJSON(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestScopeTrackerUnclassifiedTypes feeds Add events of types built without
// the package's constructors (no precomputed scope role): a scope-class
// type still opens a scope, an instance type still does not.
func TestScopeTrackerUnclassifiedTypes(t *testing.T) {
	st := NewScopeTracker()
	z := &Zone{Name: "z"}
	inst := &Event{Type: &EventType{Name: "my#instance", Class: ClassInstance}, Zone: z, Size: 8}
	scope := &Event{Type: &EventType{Name: "my#scope", Class: ClassScope}, Zone: z, Size: 8}
	if _, ok := st.Add(inst); ok || st.Depth(z) != 0 {
		t.Fatalf("instance event: depth %d", st.Depth(z))
	}
	if _, ok := st.Add(scope); ok || st.Depth(z) != 1 {
		t.Fatalf("scope event: depth %d, want 1", st.Depth(z))
	}
}
