package wtfcff

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
)

// The load workload: what the reference's wtf.db.load does with a recorded
// trace — every event and zone of a 2 M-record file, every argument read,
// scopes paired per zone. The records mix what real recordings hold (see
// api_public.wtf-trace): zone switches between four zones, typed scopes with
// arguments, generic wtf.scope#enter scopes, nested scopes, scope data,
// instance events with scalar, string and array arguments, marks and time
// stamps. Each group below is loadGroupEvents records; 100 000 groups make
// the 2 M-record trace of the side-by-side measurement with node (issue 15:
// node 2.29 s CPU binary, 6.4 s JSON).

const (
	loadGroupEvents = 20
	loadGroups      = 100_000 // 2 M records
)

type loadWorkload struct {
	w                                *Writer
	frame, paint, draw, alloc, flags *EventType
	sample, input                    *EventType
	zones                            [4]uint16
	labels                           []string
	mask                             []byte
	weights                          []float32
}

func newLoadWorkload(tb testing.TB, w *Writer) *loadWorkload {
	lw := &loadWorkload{w: w,
		labels: []string{"frame", "layout", "paint", "héllo 世界", "composite", "gc", "idle", "input"},
		mask:   []byte{1, 2, 3, 4, 5, 6, 7}, weights: []float32{1.5, -2.25, 3.125, 0.5}}
	def := func(sig string, class uint16, flags uint32) *EventType {
		t, err := w.Define(0, sig, class, flags)
		if err != nil {
			tb.Fatal(err)
		}
		return t
	}
	lw.frame = def("app#frame(uint32 number, utf8 label)", ClassScope, 0)
	lw.paint = def("app#paint(uint32 layers)", ClassScope, 0)
	lw.draw = def("app#draw(uint32 id, float32 x, float32 y, ascii kind)", ClassInstance, 0)
	lw.alloc = def("app#alloc(uint32 bytes, int32 delta)", ClassInstance, FlagAppendScopeData)
	lw.flags = def("app#flags(bool ok, uint8 level, uint16 code)", ClassInstance, 0)
	lw.sample = def("app#sample(uint8[] mask, float32[] weights)", ClassInstance, 0)
	lw.input = def("app#input(uint32 code, utf8 target)", ClassInstance, 0)
	for i, z := range []string{"Script", "Worker 1", "Worker 2", "GPU"} {
		var err error
		if lw.zones[i], err = w.CreateZone(0, z, "script", "app.js"); err != nil {
			tb.Fatal(err)
		}
	}
	return lw
}

// group writes loadGroupEvents records at times from t.
func (lw *loadWorkload) group(g uint32) error {
	w := lw.w
	t := g * 50
	l := lw.labels[g%uint32(len(lw.labels))]
	k := lw.labels[(g+3)%uint32(len(lw.labels))]
	var err error
	keep := func(e error) {
		if e != nil && err == nil {
			err = e
		}
	}
	keep(w.SetZone(t, lw.zones[g%4]))
	keep(w.Begin(lw.frame, t+1).Uint32(g).UTF8(l).End())
	keep(w.EnterScope(t+2, "layout pass"))
	keep(w.Begin(lw.draw, t+3).Uint32(g).Float32(1.5).Float32(float32(g % 100)).ASCII(k).End())
	keep(w.Begin(lw.draw, t+4).Uint32(g + 1).Float32(2.5).Float32(-3).ASCII(l).End())
	keep(w.Begin(lw.alloc, t+5).Uint32(4096).Int32(-int32(g % 1000)).End())
	keep(w.AppendScopeData(t+6, "nodes", "42"))
	keep(w.LeaveScope(t + 7))
	keep(w.Begin(lw.paint, t+8).Uint32(g % 7).End())
	keep(w.Begin(lw.flags, t+9).Bool(g%2 == 0).Uint8(uint8(g)).Uint16(uint16(g)).End())
	keep(w.Begin(lw.draw, t+10).Uint32(g + 2).Float32(0.25).Float32(8).ASCII(k).End())
	keep(w.Begin(lw.sample, t+11).Uint8s(lw.mask).Float32s(lw.weights).End())
	keep(w.Begin(lw.draw, t+12).Uint32(g + 3).Float32(-1).Float32(9).ASCII(l).End())
	keep(w.LeaveScope(t + 13))
	keep(w.Begin(lw.alloc, t+14).Uint32(128).Int32(7).End())
	keep(w.LeaveScope(t + 15))
	keep(w.Mark(t+16, "frame done", "1"))
	keep(w.TimeStamp(t+17, "stamp", `{"ok":true}`))
	keep(w.Begin(lw.input, t+18).Uint32(13).UTF8(k).End())
	keep(w.Begin(lw.alloc, t+19).Uint32(64).Int32(-1).End())
	return err
}

// loadTraceFile writes groups load groups as a binary trace with the JS
// library's default 1 MiB chunks.
func loadTraceFile(tb testing.TB, groups int) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out, WithChunkSize(1<<20))
	if err != nil {
		tb.Fatal(err)
	}
	lw := newLoadWorkload(tb, w)
	for g := range groups {
		if err := lw.group(uint32(g)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

var loadFiles struct {
	sync.Once
	bin, json []byte
}

// loadTrace2M returns the 2 M-record trace, binary and as a JSON container
// (base64 event buffers, what the reference's JSON format writes).
func loadTrace2M(tb testing.TB) (bin, js []byte) {
	loadFiles.Do(func() {
		loadFiles.bin = loadTraceFile(tb, loadGroups)
		var out bytes.Buffer
		if err := BinaryToJSON(&out, bytes.NewReader(loadFiles.bin), JSONComplete); err != nil {
			tb.Fatal(err)
		}
		loadFiles.json = out.Bytes()
	})
	return loadFiles.bin, loadFiles.json
}

// loadStats is what a load found, to check a load against another.
type loadStats struct {
	events, scopes, zones int
	sum                   float64
}

// loader holds what a load reuses across loads.
type loader struct {
	r    *Reader
	dec  *Decoder
	st   *ScopeTracker
	vals []Value
}

// load reads every chunk of data, decodes every record, reads every
// argument (Event.Args) and pairs the scopes: the work of the reference's wtf.db.load.
func (ld *loader) load(data []byte) (loadStats, error) {
	var s loadStats
	if ld.r == nil {
		ld.dec = NewDecoder()
	} else {
		ld.dec.Reset()
	}
	var err error
	if ld.r, err = resetBytesReader(ld.r, data); err != nil {
		return s, err
	}
	ld.st = resetScopeTracker(ld.st)
	r, dec, st := ld.r, ld.dec, ld.st
	for r.Next() {
		if !dec.SetChunk(r.Chunk()) {
			continue
		}
		for dec.Next() {
			e := dec.Event()
			s.events++
			ld.vals = e.Args(ld.vals[:0])
			for i := range ld.vals {
				v := &ld.vals[i]
				switch {
				case v.Type.IsString():
					s.sum += float64(len(v.Bytes()))
				case v.Type.IsArray():
					for j := range v.Len() {
						s.sum += v.FloatAt(j)
					}
				default:
					s.sum += v.Float()
				}
			}
			if sc, ok := st.Add(e); ok {
				s.scopes++
				s.sum += float64(sc.Duration() + uint32(len(sc.Args)))
			}
		}
		if err := dec.Err(); err != nil {
			return s, err
		}
	}
	s.zones = len(dec.Zones())
	if err := st.Err(); err != nil {
		return s, err
	}
	return s, r.Err()
}

func benchLoad(b *testing.B, json bool) {
	bin, js := loadTrace2M(b)
	data := bin
	if json {
		data = js
	}
	benchLoadData(b, data)
}

func benchLoadData(b *testing.B, data []byte) {
	var ld loader
	want, err := ld.load(data) // warm-up
	if err != nil {
		b.Fatal(err)
	}
	if want.events < 2_000_000 || want.zones != 4 || want.scopes != 3*loadGroups {
		b.Fatalf("load found %+v", want)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	runtime.GC() // the garbage of building the files is not the load's
	cpu0, cpuOK := processCPU()
	loads := 0
	for b.Loop() {
		got, err := ld.load(data)
		if err != nil || got != want {
			b.Fatalf("load found %+v, %v; want %+v", got, err, want)
		}
		loads++
	}
	b.ReportMetric(float64(want.events*loads)/b.Elapsed().Seconds(), "events/s")
	if cpu1, ok := processCPU(); ok && cpuOK && cpu1 > cpu0 {
		cpu := cpu1 - cpu0
		b.ReportMetric(cpu/float64(loads), "cpu-s/load")
		b.ReportMetric(float64(want.events*loads)/cpu, "cpu-events/s")
	}
}

// BenchmarkLoad2MMixedBinary loads the 2 M-record mixed trace from a binary
// file in memory (node tracing-framework 2015.7.15-1: 2.29 s CPU).
func BenchmarkLoad2MMixedBinary(b *testing.B) { benchLoad(b, false) }

// BenchmarkLoad2MMixedJSON loads the same records from a JSON container
// with base64 event buffers (node: 6.4 s CPU).
func BenchmarkLoad2MMixedJSON(b *testing.B) { benchLoad(b, true) }

// refTableEntries is how many string-table entries the reference recorder
// writes for the 2 M-record load: one per string argument, not
// deduplicated (1 100 282 in its JSON file of the side-by-side measurement,
// where JSONWriter's tables hold a few dozen distinct strings).
const refTableEntries = 1_100_000

// refTableStrings are the kinds of string the reference's tables hold:
// arguments as they are, any values as JSON text ("ok" quoted, so escaped
// in the container), non-ASCII UTF-8.
var refTableStrings = []string{"layout pass", "frame done", "1", "stamp", `"ok"`, "frame", "héllo 世界", "composite", "gc", "idle", "input", "paint", "layout"}

// loadTraceRefJSON is the 2 M-record trace as a JSON container shaped as the
// reference recorder writes it: each chunk's string table grown to its share
// of refTableEntries (entries appended after the ones the events use, so the
// records read are the same), so that the load parses a large string table
// as the reference's does.
func loadTraceRefJSON(tb testing.TB) []byte {
	refJSON.Do(func() {
		bin, _ := loadTrace2M(tb)
		r, err := NewBytesReader(bin)
		if err != nil {
			tb.Fatal(err)
		}
		var chunks []Chunk
		for r.Next() {
			c := *r.Chunk()
			c.Parts = append([]Part(nil), c.Parts...)
			for i := range c.Parts {
				c.Parts[i].Data = bytes.Clone(c.Parts[i].Data)
			}
			chunks = append(chunks, c)
		}
		if r.Err() != nil {
			tb.Fatal(r.Err())
		}
		var out bytes.Buffer
		jw, err := NewJSONWriter(&out)
		if err != nil {
			tb.Fatal(err)
		}
		per, k := refTableEntries/len(chunks), 0
		for i := range chunks {
			c := &chunks[i]
			for j := range c.Parts {
				if p := &c.Parts[j]; p.Type == PartStringTable {
					for range per {
						p.Data = append(append(p.Data, refTableStrings[k%len(refTableStrings)]...), 0)
						k++
					}
				}
			}
			if err := jw.WriteChunk(c); err != nil {
				tb.Fatal(err)
			}
		}
		if err := jw.Close(); err != nil {
			tb.Fatal(err)
		}
		if k < refTableEntries*9/10 {
			tb.Fatalf("only %d string-table entries added", k)
		}
		refJSON.data = out.Bytes()
	})
	return refJSON.data
}

var refJSON struct {
	sync.Once
	data []byte
}

// BenchmarkLoad2MMixedJSONRefTables loads the same records from a JSON
// container whose string tables are as large as the reference recorder's
// (1.1 M entries; see loadTraceRefJSON): the string tables are read by the
// scanner, not encoding/json.
func BenchmarkLoad2MMixedJSONRefTables(b *testing.B) { benchLoadData(b, loadTraceRefJSON(b)) }

func resetBytesReader(_ *Reader, data []byte) (*Reader, error) { return NewBytesReader(data) }

func resetScopeTracker(*ScopeTracker) *ScopeTracker { return NewScopeTracker() }
