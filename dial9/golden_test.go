package dial9

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

type goldenSummary struct {
	InputLen      int64  `json:"input_len"`
	StreamHeaders int    `json:"stream_headers"`
	Resets        int    `json:"timestamp_resets_before_frames"`
	SchemaFrames  int    `json:"schema_frames"`
	Events        int    `json:"events"`
	StringFrames  int    `json:"string_pool_frames"`
	StringEntries int    `json:"string_pool_entries"`
	StackFrames   int    `json:"stack_pool_frames"`
	StackEntries  int    `json:"stack_pool_entries"`
	AnnotFrames   int    `json:"annotation_frames"`
	TsMin         string `json:"timestamp_min"`
	TsMax         string `json:"timestamp_max"`
	Schemas       map[string]struct {
		SchemaFrames int   `json:"schema_frames"`
		Events       int   `json:"events"`
		Fields       []any `json:"fields"`
	} `json:"schemas"`
	Samples map[string][]map[string]any `json:"samples"`
}

// TestGoldenTraces decodes the two upstream demo traces (gzip) completely
// and compares every count of the upstream Rust 0.4.0 decoder's summary.
func TestGoldenTraces(t *testing.T) {
	for _, name := range []string{"demo-trace@6050208", "demo-trace@6342350"} {
		t.Run(name, func(t *testing.T) {
			gz := vectortest.Read(t, "dial9", "golden", name+".bin.gz")
			raw := vectortest.Read(t, "dial9", "golden", "decoded", name+".summary.rust-v0.4.0.json")
			var want goldenSummary
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			for _, mode := range []string{"bytes", "reader"} {
				var d *Reader
				var err error
				if mode == "bytes" {
					d, err = NewBytesReader(gz)
				} else {
					d, err = NewReader(bytes.NewReader(gz), WithBufferSize(4096))
				}
				if err != nil {
					t.Fatal(err)
				}
				var got goldenSummary
				type perSchema struct{ frames, events int }
				counts := map[string]*perSchema{}
				samples := map[string][]any{}
				tsMin, tsMax := ^uint64(0), uint64(0)
				for d.NextFrame() {
					switch d.Kind() {
					case FrameSchema:
						got.SchemaFrames++
						s := d.Schema()
						if counts[s.Name] == nil {
							counts[s.Name] = &perSchema{}
							if !reflect.DeepEqual(normalize(t, dumpFields(s)), want.Schemas[s.Name].Fields) {
								t.Errorf("%s: fields differ", s.Name)
							}
						}
						counts[s.Name].frames++
					case FrameEvent:
						got.Events++
						ev := d.Event()
						counts[ev.Name()].events++
						tsMin, tsMax = min(tsMin, ev.Timestamp()), max(tsMax, ev.Timestamp())
						if len(samples[ev.Name()]) < 2 {
							m := dumpFrame(d)
							delete(m, "start")
							delete(m, "end")
							delete(m, "kind")
							delete(m, "name")
							samples[ev.Name()] = append(samples[ev.Name()], m)
						}
					case FrameStringPool:
						got.StringFrames++
						got.StringEntries += len(d.StringPoolEntries())
					case FrameStackPool:
						got.StackFrames++
						got.StackEntries += len(d.StackPoolEntries())
					case FrameAnnotations:
						got.AnnotFrames++
					}
				}
				if err := d.Err(); err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				// Next (the event fast path) sees the same events.
				dn, err := NewBytesReader(gz)
				must(t, err)
				byName := map[string]int{}
				for dn.Next() {
					byName[dn.Event().Name()]++
				}
				for n, c := range counts {
					if byName[n] != c.events || dn.Err() != nil {
						t.Errorf("Next: %s %d events, NextFrame %d (%v)", n, byName[n], c.events, dn.Err())
					}
				}
				if d.Offset() != want.InputLen {
					t.Errorf("%s: ended at %d, want %d", mode, d.Offset(), want.InputLen)
				}
				got.StreamHeaders, got.Resets = d.Headers(), d.Resets()
				got.TsMin, got.TsMax = strconv.FormatUint(tsMin, 10), strconv.FormatUint(tsMax, 10)
				type totals struct{ h, r, sf, ev, spf, spe, kpf, kpe, af int }
				g := totals{got.StreamHeaders, got.Resets, got.SchemaFrames, got.Events, got.StringFrames, got.StringEntries, got.StackFrames, got.StackEntries, got.AnnotFrames}
				w := totals{want.StreamHeaders, want.Resets, want.SchemaFrames, want.Events, want.StringFrames, want.StringEntries, want.StackFrames, want.StackEntries, want.AnnotFrames}
				if g != w {
					t.Errorf("%s: totals %+v, want %+v", mode, g, w)
				}
				if got.TsMin != want.TsMin || got.TsMax != want.TsMax {
					t.Errorf("%s: timestamps [%s, %s], want [%s, %s]", mode, got.TsMin, got.TsMax, want.TsMin, want.TsMax)
				}
				if len(counts) != len(want.Schemas) {
					t.Errorf("%s: %d schema names, want %d", mode, len(counts), len(want.Schemas))
				}
				for n, ws := range want.Schemas {
					c := counts[n]
					if c == nil || c.events != ws.Events || c.frames != ws.SchemaFrames {
						t.Errorf("%s: schema %s: got %+v, want %d events, %d schema frames", mode, n, c, ws.Events, ws.SchemaFrames)
					}
				}
				if len(want.Samples) < 10 {
					t.Fatalf("summary has %d sample lists", len(want.Samples))
				}
				for n, ws := range want.Samples {
					if !reflect.DeepEqual(normalize(t, samples[n]), normalize(t, stripSamples(ws))) {
						gb, _ := json.Marshal(samples[n])
						wb, _ := json.Marshal(ws)
						t.Errorf("%s: samples of %s:\n got  %s\n want %s", mode, n, gb, wb)
					}
				}
			}
		})
	}
}

func stripSamples(ws []map[string]any) []map[string]any {
	for _, m := range ws {
		stripF64Debug(m)
		for k := range m {
			if k != "type_id" && k != "timestamp_ns" && k != "values" {
				delete(m, k)
			}
		}
	}
	return ws
}

type segment struct {
	HeaderAt int64          `json:"header_at"`
	Frames   map[string]int `json:"frames"`
	Events   int            `json:"events"`
	Resets   int            `json:"timestamp_resets"`
	Schemas  []struct {
		TypeID uint16 `json:"type_id"`
		Name   string `json:"name"`
		At     int64  `json:"at"`
	} `json:"schemas"`
	EventCounts map[string]int `json:"event_counts"`
	FirstTS     *string        `json:"first_event_ts"`
	LastTS      *string        `json:"last_event_ts"`
}

// TestGoldenSegments compares every concatenated stream of the golden
// traces with the upstream per-segment summary: header offset, frames by
// kind, schemas with their type ids and offsets, event counts and
// first/last timestamps.
func TestGoldenSegments(t *testing.T) {
	for _, tc := range []struct{ trace, summary string }{
		{"demo-trace@6050208", "demo-trace@6050208.segments.rust-v0.2.0.json"},
		{"demo-trace@6342350", "demo-trace@6342350.segments.rust-v0.4.0.json"},
	} {
		t.Run(tc.trace, func(t *testing.T) {
			raw := vectortest.Read(t, "dial9", "golden", "decoded", tc.summary)
			var want struct {
				Segments []segment `json:"segments"`
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			d, err := NewBytesReader(vectortest.Read(t, "dial9", "golden", tc.trace+".bin.gz"))
			must(t, err)
			var got []segment
			for d.NextFrame() {
				if len(got) < d.Headers() {
					got = append(got, segment{HeaderAt: d.StreamOffset(), Frames: map[string]int{}, EventCounts: map[string]int{}})
				}
				sg := &got[len(got)-1]
				sg.Frames[d.Kind().String()]++
				switch d.Kind() {
				case FrameSchema:
					s := d.Schema()
					sg.Schemas = append(sg.Schemas, struct {
						TypeID uint16 `json:"type_id"`
						Name   string `json:"name"`
						At     int64  `json:"at"`
					}{s.ID, s.Name, d.FrameOffset()})
				case FrameEvent:
					ev := d.Event()
					sg.Events++
					sg.EventCounts[ev.Name()]++
					ts := strconv.FormatUint(ev.Timestamp(), 10)
					if sg.FirstTS == nil {
						sg.FirstTS = &ts
					}
					sg.LastTS = &ts
				}
			}
			must(t, d.Err())
			if len(got) != len(want.Segments) {
				t.Fatalf("%d streams, want %d", len(got), len(want.Segments))
			}
			for i := range got {
				g, w := got[i], want.Segments[i]
				// Reset frames are counted in total by TestGoldenTraces: a
				// trailing one cannot be told from the next stream's.
				g.Resets, w.Resets = 0, 0
				if !reflect.DeepEqual(normalize(t, g), normalize(t, w)) {
					gb, _ := json.Marshal(g)
					wb, _ := json.Marshal(w)
					t.Errorf("stream %d:\n got  %s\n want %s", i, gb, wb)
				}
			}
		})
	}
}
