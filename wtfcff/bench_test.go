package wtfcff

import (
	"bytes"
	"io"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// benchWorkload writes events shaped like api_public.wtf-trace: typed and
// generic scopes with mixed scalar, string and array arguments, scope data,
// marks, and zone switches.
type benchWorkload struct {
	w      *Writer
	frame  *EventType
	draw   *EventType
	labels []string
	bytes  []byte
	floats []float32
	zones  [2]uint16
	n      uint32
}

func newBenchWorkload(tb testing.TB, out io.Writer, chunkSize int) *benchWorkload {
	w, err := NewWriter(out, WithChunkSize(chunkSize))
	if err != nil {
		tb.Fatal(err)
	}
	bw := &benchWorkload{w: w,
		labels: []string{"frame", "layout", "paint", "héllo 世界", "composite", "gc", "idle", "input"},
		bytes:  []byte{1, 2, 3, 4, 5, 6, 7}, floats: []float32{1.5, -2.25, 3.125}}
	bw.frame, _ = w.Define(0, "bench#frame(uint32 number, utf8 label)", ClassScope, 0)
	bw.draw, _ = w.Define(0, "bench#draw(bool b, int8 i8, uint16 u16, int32 i32, float32 f32, ascii name, any j, uint8[] mask, float32[] weights)", ClassInstance, 0)
	bw.zones[0], _ = w.CreateZone(0, "Script", "script", "bench.js")
	bw.zones[1], _ = w.CreateZone(0, "Worker", "script", "worker.js")
	return bw
}

const benchGroupEvents = 9

// group writes benchGroupEvents events.
func (bw *benchWorkload) group() error {
	w := bw.w
	t := bw.n * 100
	bw.n++
	l := bw.labels[bw.n%uint32(len(bw.labels))]
	err := w.SetZone(t, bw.zones[bw.n%2])
	if e := w.Begin(bw.frame, t+1).Uint32(bw.n).UTF8(l).End(); e != nil {
		err = e
	}
	if e := w.EnterScope(t+2, l); e != nil {
		err = e
	}
	if e := w.AppendScopeData(t+3, "n", `{"k":[1,2,3]}`); e != nil {
		err = e
	}
	for i := range 2 {
		e := w.Begin(bw.draw, t+4+uint32(i)).Bool(i == 0).Int8(-5).Uint16(65000).Int32(-123456789).Float32(3.5).
			ASCII(l).Any(`"value"`).Uint8s(bw.bytes).Float32s(bw.floats).End()
		if e != nil {
			err = e
		}
	}
	if e := w.LeaveScope(t + 8); e != nil {
		err = e
	}
	if e := w.LeaveScope(t + 9); e != nil {
		err = e
	}
	if e := w.Mark(t+10, "m", "1"); e != nil {
		err = e
	}
	return err
}

// benchFile writes groups×benchGroupEvents events.
func benchFile(tb testing.TB, groups int) []byte {
	var out bytes.Buffer
	bw := newBenchWorkload(tb, &out, 64<<10)
	for range groups {
		if err := bw.group(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := bw.w.Close(); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

// readAll decodes every event of a binary file and touches every argument.
func readAll(r *Reader, dec *Decoder, data []byte, br *bytes.Reader) (events int, sum float64, err error) {
	br.Reset(data)
	if err := r.Reset(br); err != nil {
		return 0, 0, err
	}
	for r.Next() {
		if !dec.SetChunk(r.Chunk()) {
			continue
		}
		for dec.Next() {
			e := dec.Event()
			events++
			for i := range e.NumArgs() {
				v := e.Arg(i)
				switch {
				case v.Type.IsString():
					sum += float64(len(v.Bytes()))
				case v.Type.IsArray():
					for j := range v.Len() {
						sum += v.FloatAt(j)
					}
				default:
					sum += v.Float()
				}
			}
		}
		if err := dec.Err(); err != nil {
			return events, sum, err
		}
	}
	return events, sum, r.Err()
}

func TestReadZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	data := benchFile(t, 500)
	r, _ := NewReader(bytes.NewReader(data))
	dec := NewDecoder()
	var br bytes.Reader
	n, _, err := readAll(r, dec, data, &br) // warm-up: defines types and zones, sizes buffers
	if err != nil || n < 4000 {
		t.Fatal(n, err)
	}
	allocs := testing.AllocsPerRun(5, func() { readAll(r, dec, data, &br) })
	if allocs != 0 {
		t.Fatalf("%v allocations to re-read %d events", allocs, n)
	}
	// Rendering events as JSON into a reused buffer does not allocate either.
	var b []byte
	allocs = testing.AllocsPerRun(5, func() {
		br.Reset(data)
		r.Reset(&br)
		for r.Next() {
			if dec.SetChunk(r.Chunk()) {
				for dec.Next() {
					b = AppendEventJSON(b[:0], dec.Event())
				}
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations to render %d events as JSON", allocs, n)
	}
	// Scope tracking does not allocate after warm-up.
	st := NewScopeTracker()
	track := func() {
		br.Reset(data)
		r.Reset(&br)
		for r.Next() {
			if dec.SetChunk(r.Chunk()) {
				for dec.Next() {
					st.Add(dec.Event())
				}
			}
		}
	}
	track()
	if allocs = testing.AllocsPerRun(5, track); allocs != 0 {
		t.Fatalf("%v allocations to track scopes", allocs)
	}
}

// TestRenderEveryTypeZeroAllocs renders the reference vector's events (every
// argument type) as JSON into a reused buffer without allocating.
func TestRenderEveryTypeZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	data := vectortest.Read(t, "wtf", "api_public.wtf-trace")
	r, _ := NewReader(bytes.NewReader(data))
	dec := NewDecoder()
	var br bytes.Reader
	var b []byte
	render := func() {
		br.Reset(data)
		r.Reset(&br)
		for r.Next() {
			if dec.SetChunk(r.Chunk()) {
				for dec.Next() {
					b = AppendEventJSON(b[:0], dec.Event())
				}
			}
		}
	}
	render()
	if dec.Err() != nil || r.Err() != nil {
		t.Fatal(dec.Err(), r.Err())
	}
	if allocs := testing.AllocsPerRun(10, render); allocs != 0 {
		t.Fatalf("%v allocations per file", allocs)
	}
}

func TestWriteZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	bw := newBenchWorkload(t, io.Discard, 4<<10)
	for range 2000 { // warm-up, several chunk rotations
		if err := bw.group(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(1000, func() { bw.group() })
	if allocs != 0 {
		t.Fatalf("%v allocations per %d events written", allocs, benchGroupEvents)
	}
}

func BenchmarkWrite(b *testing.B) {
	var cw countWriter
	bw := newBenchWorkload(b, &cw, 1<<20)
	const groups = 1000
	batch := func() {
		for range groups {
			bw.group()
		}
	}
	batch() // warm-up
	before := cw.n + int64(len(bw.w.buf))
	batch()
	perBatch := cw.n + int64(len(bw.w.buf)) - before
	b.SetBytes(perBatch)
	b.ReportAllocs()
	batches := 0
	for b.Loop() {
		batch()
		batches++
	}
	events := float64(batches * groups * benchGroupEvents)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(perBatch)/float64(groups*benchGroupEvents), "bytes/event")
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func BenchmarkRead(b *testing.B) {
	data := benchFile(b, 2000)
	r, _ := NewReader(bytes.NewReader(data))
	dec := NewDecoder()
	var br bytes.Reader
	n, _, _ := readAll(r, dec, data, &br)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	runs := 0
	for b.Loop() {
		readAll(r, dec, data, &br)
		runs++
	}
	b.ReportMetric(float64(n*runs)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReadVector decodes the reference file api_public.wtf-trace (65
// records) with a fresh reader and decoder each time, as a one-shot tool would.
func BenchmarkReadVector(b *testing.B) {
	data := vectortest.Read(b, "wtf", "api_public.wtf-trace")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		r, _ := NewReader(bytes.NewReader(data))
		k, _, err := readAll(r, NewDecoder(), data, new(bytes.Reader))
		if err != nil {
			b.Fatal(err)
		}
		n += k
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkDecode reads the same file as BenchmarkRead but only walks the
// records (type, time, zone), without touching the arguments.
func BenchmarkDecode(b *testing.B) {
	data := benchFile(b, 2000)
	r, _ := NewReader(bytes.NewReader(data))
	dec := NewDecoder()
	var br bytes.Reader
	walk := func() (n int) {
		br.Reset(data)
		r.Reset(&br)
		for r.Next() {
			if dec.SetChunk(r.Chunk()) {
				for dec.Next() {
					if dec.Event().Zone != nil {
						n++
					}
				}
			}
		}
		return n
	}
	n := walk()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	runs := 0
	for b.Loop() {
		walk()
		runs++
	}
	b.ReportMetric(float64(n*runs)/b.Elapsed().Seconds(), "events/s")
}
