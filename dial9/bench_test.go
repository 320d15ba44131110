package dial9

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
	"testing"
)

// mix3 is a workload of our own (not upstream's): 1,000,000 events cycling
// through five tokio-like event types, CpuSample with a 3-frame stack,
// timestamps from 1e9 ns growing by 1000 + (i%7)*300 ns before each event.
// Upstream's benchmark workload is codecIAI below.
const workloadEvents = 1_000_000

type workload struct {
	pollStart, pollEnd, park, wake, cpu Handle
	stack                               [3]uint64
}

func (w *workload) register(e *Writer) {
	v := func(n string) FieldDef { return FieldDef{n, TypeVarint} }
	w.pollStart, _ = e.Register("PollStart", []FieldDef{v("worker_id"), v("local_queue_depth"), v("task_id"), v("spawn_loc_id")})
	w.pollEnd, _ = e.Register("PollEnd", []FieldDef{v("worker_id")})
	w.park, _ = e.Register("WorkerPark", []FieldDef{v("worker_id"), v("local_queue_depth"), v("cpu_time_ns")})
	w.wake, _ = e.Register("WakeEvent", []FieldDef{v("waker_task_id"), v("woken_task_id"), v("target_worker")})
	w.cpu, _ = e.Register("CpuSample", []FieldDef{v("worker_id"), {"tid", TypeU32}, {"source", TypeU8}, {"frames", TypeStackFrames}})
}

// writeEvent writes event i of the mix3 workload.
func (w *workload) writeEvent(e *Writer, i int, ts uint64) error {
	u := uint64(i)
	switch i % 5 {
	case 0:
		return e.WriteUints(w.pollStart, ts, u%8, u%3, u%1000, u%20)
	case 1:
		return e.WriteUints(w.pollEnd, ts, u%8)
	case 2:
		return e.WriteUints(w.park, ts, u%8, 0, u*1000)
	case 3:
		return e.WriteUints(w.wake, ts, u%1000, (u+1)%1000, u%8)
	}
	w.stack = [3]uint64{0x555555550000 + u%64, 0x555555551000, 0x555555552000}
	return e.Begin(w.cpu, ts).Varint(u % 8).U32(1234).U8(0).Stack(w.stack[:]).End()
}

// encodeWorkload writes the whole mix3 workload as one stream.
func encodeWorkload(e *Writer, w *workload) error {
	w.register(e)
	ts := uint64(1_000_000_000)
	for i := 0; i < workloadEvents; i++ {
		ts += 1000 + uint64(i%7)*300
		if err := w.writeEvent(e, i, ts); err != nil {
			return err
		}
	}
	return e.Flush()
}

var workloadBytes = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	e := mustWriter(&buf)
	if err := encodeWorkload(e, &workload{}); err != nil {
		panic(err)
	}
	return buf.Bytes()
})

// BenchmarkEncodeMix3 encodes the mix3 workload (not upstream's; see
// BenchmarkCodecIAIEncode).
func BenchmarkEncodeMix3(b *testing.B) {
	e := mustWriter(io.Discard)
	var w workload
	size := len(workloadBytes())
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		if err := e.Reset(io.Discard); err != nil {
			b.Fatal(err)
		}
		if err := encodeWorkload(e, &w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(workloadEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	cpu.report(b, workloadEvents*b.N)
	b.ReportMetric(float64(size)/workloadEvents, "B/event")
}

type cpuMeter struct {
	start float64
	ok    bool
}

func startCPU() cpuMeter {
	s, ok := processCPU()
	return cpuMeter{s, ok}
}

// report adds events per CPU-second (process user+system time).
func (c cpuMeter) report(b *testing.B, events int) {
	if end, ok := processCPU(); ok && c.ok && end > c.start {
		b.ReportMetric(float64(events)/(end-c.start), "events/cpu-s")
	}
}

// consume reads every field of the current event, as upstream's
// for_each_event decodes every value.
func consume(ev *Event) uint64 {
	var sum uint64
	for i := 0; i < ev.NumFields(); i++ {
		if ev.FieldType(i) == TypeStackFrames {
			s := ev.Field(i).Stack()
			for j := 0; j < s.Len(); j++ {
				sum += s.At(j)
			}
			continue
		}
		sum += ev.Uint(i)
	}
	return sum + ev.Timestamp()
}

// decodeLoop is the measured loop, outside b.Loop's body (which the
// compiler keeps from inlining).
func decodeLoop(d *Reader) (n int, sum uint64) {
	for d.Next() {
		sum += consume(d.Event())
		n++
	}
	return n, sum
}

// BenchmarkDecodeMix3 decodes the mix3 workload, reading every field.
func BenchmarkDecodeMix3(b *testing.B) {
	data := workloadBytes()
	d, err := NewBytesReader(data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	runtime.GC() // not the workload generation's garbage
	b.ResetTimer()
	cpu := startCPU()
	var sum uint64
	for b.Loop() {
		if err := d.ResetBytes(data); err != nil {
			b.Fatal(err)
		}
		n, s := decodeLoop(d)
		sum += s
		if d.Err() != nil || n != workloadEvents {
			b.Fatalf("%d events, %v", n, d.Err())
		}
	}
	b.ReportMetric(float64(workloadEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	cpu.report(b, workloadEvents*b.N)
	b.ReportMetric(float64(len(data))/workloadEvents, "B/event")
	_ = sum
}

// BenchmarkDecodeMix3Reader is the streaming path (io.Reader, 64 KiB
// buffer) on the mix3 workload.
func BenchmarkDecodeMix3Reader(b *testing.B) {
	data := workloadBytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	var sum uint64
	for b.Loop() {
		d, err := NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		_, s := decodeLoop(d)
		sum += s
		if d.Err() != nil {
			b.Fatal(d.Err())
		}
	}
	b.ReportMetric(float64(workloadEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	_ = sum
}

// BenchmarkDecodeGolden decodes the 0.4-era upstream demo trace (plain,
// decompressed once) to measure a real telemetry mix.
func BenchmarkDecodeGolden(b *testing.B) {
	data := goldenPlain(b)
	d, err := NewBytesReader(data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	events := 0
	for b.Loop() {
		must2(b, d.ResetBytes(data))
		events = 0
		for d.Next() {
			consume(d.Event())
			events++
		}
		must2(b, d.Err())
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// registerThread and writeThreadEvent run the workload on a ThreadWriter
// (its methods are one-line forwards to its Writer).
func (w *workload) registerThread(tw *ThreadWriter) { w.register(&tw.w) }

func (w *workload) writeThreadEvent(tw *ThreadWriter, i int, ts uint64) error {
	return w.writeEvent(&tw.w, i, ts)
}

// codecIAI is upstream's benchmark workload, dial9-trace-format's
// benches/codec_iai.rs (the version with 16-frame stacks): 1,000,000 events
// cycling i%5 through five derived event types, all fields Varint unless
// noted, timestamps from 1e9 ns growing by 500 + i%200 ns before each
// event:
//
//	PollStart  worker_id i%8, local_queue_depth i%32, task_id 1000+i%5000, spawn_loc_id i%20
//	PollEnd    worker_id i%8
//	WorkerPark worker_id i%8, local_queue_depth i%16, cpu_time_ns 500_000_000+100i
//	WakeEvent  waker_task_id 1000+i%5000, woken_task_id 1000+(i+1)%5000, target_worker i%8
//	CpuSample  worker_id i%8, tid (U32) 12345+i%4, source (U8) 0, frames (StackFrames):
//	           0x5555_5555_0000+(i%100)*0x10, 0x5555_5555_1000+(i%50)*0x20,
//	           then 0x5555_5555_2000 … 0x5555_5555_f000 in steps of 0x1000
//
// Type ids are 0–4 in first-use order, as the 0.4.0 encoder assigns them
// to derived types (0.5.0 pins them at 10–14 with wire_id; the bytes
// differ only in those ids). Upstream encodes into a Vec; here the Writer
// writes through its 64 KiB buffer to io.Discard.
type codecIAI struct {
	pollStart, pollEnd, park, wake, cpu Handle
	frames                              [16]uint64
}

const codecIAIEvents = 1_000_000

func (w *codecIAI) register(e *Writer) error {
	v := func(n string) FieldDef { return FieldDef{n, TypeVarint} }
	var err [5]error
	w.pollStart, err[0] = e.Register("PollStart", []FieldDef{v("worker_id"), v("local_queue_depth"), v("task_id"), v("spawn_loc_id")})
	w.pollEnd, err[1] = e.Register("PollEnd", []FieldDef{v("worker_id")})
	w.park, err[2] = e.Register("WorkerPark", []FieldDef{v("worker_id"), v("local_queue_depth"), v("cpu_time_ns")})
	w.wake, err[3] = e.Register("WakeEvent", []FieldDef{v("waker_task_id"), v("woken_task_id"), v("target_worker")})
	w.cpu, err[4] = e.Register("CpuSample", []FieldDef{v("worker_id"), {"tid", TypeU32}, {"source", TypeU8}, {"frames", TypeStackFrames}})
	for i := 2; i < 16; i++ {
		w.frames[i] = 0x5555_5555_0000 + uint64(i)*0x1000
	}
	return errors.Join(err[:]...)
}

// encodeCodecIAI is the measured encode loop: the whole workload as one
// stream on e (just Reset), flushed.
func encodeCodecIAI(e *Writer, w *codecIAI) error {
	if err := w.register(e); err != nil {
		return err
	}
	ts := uint64(1_000_000_000)
	for i := uint64(0); i < codecIAIEvents; i++ {
		ts += 500 + i%200
		var err error
		switch i % 5 {
		case 0:
			err = e.WriteUints(w.pollStart, ts, i%8, i%32, 1000+i%5000, i%20)
		case 1:
			err = e.WriteUints(w.pollEnd, ts, i%8)
		case 2:
			err = e.WriteUints(w.park, ts, i%8, i%16, 500_000_000+i*100)
		case 3:
			err = e.WriteUints(w.wake, ts, 1000+i%5000, 1000+(i+1)%5000, i%8)
		default:
			w.frames[0] = 0x5555_5555_0000 + (i%100)*0x10
			w.frames[1] = 0x5555_5555_1000 + (i%50)*0x20
			err = e.Begin(w.cpu, ts).Varint(i % 8).U32(12345 + uint32(i%4)).U8(0).Stack(w.frames[:]).End()
		}
		if err != nil {
			return err
		}
	}
	return e.Flush()
}

// event writes event i of the workload at ts on any Writer (the
// SharedWriter benchmark; encodeCodecIAI has the same switch inline).
func (w *codecIAI) event(e *Writer, i, ts uint64) error {
	switch i % 5 {
	case 0:
		return e.WriteUints(w.pollStart, ts, i%8, i%32, 1000+i%5000, i%20)
	case 1:
		return e.WriteUints(w.pollEnd, ts, i%8)
	case 2:
		return e.WriteUints(w.park, ts, i%8, i%16, 500_000_000+i*100)
	case 3:
		return e.WriteUints(w.wake, ts, 1000+i%5000, 1000+(i+1)%5000, i%8)
	}
	w.frames[0] = 0x5555_5555_0000 + (i%100)*0x10
	w.frames[1] = 0x5555_5555_1000 + (i%50)*0x20
	return e.Begin(w.cpu, ts).Varint(i % 8).U32(12345 + uint32(i%4)).U8(0).Stack(w.frames[:]).End()
}

var codecIAIBytes = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	e := mustWriter(&buf)
	if err := encodeCodecIAI(e, &codecIAI{}); err != nil {
		panic(err)
	}
	return buf.Bytes()
})

// countingWriter counts what it discards.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkCodecIAIEncode is upstream's codec_iai "encode" benchmark: the
// 1M-event workload encoded as one stream. Instructions per event:
//
//	../shared/bench/instr.sh ./dial9 CodecIAIEncode 1000000 '*dial9.encodeCodecIAI'
func BenchmarkCodecIAIEncode(b *testing.B) {
	var out countingWriter
	e := mustWriter(&out)
	var w codecIAI
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		if err := e.Reset(&out); err != nil {
			b.Fatal(err)
		}
		if err := encodeCodecIAI(e, &w); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(out.n / int64(b.N))
	b.ReportMetric(float64(codecIAIEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	cpu.report(b, codecIAIEvents*b.N)
	b.ReportMetric(float64(out.n)/float64(b.N)/codecIAIEvents, "B/event")
}

// BenchmarkCodecIAIDecode is upstream's codec_iai "for_each_event"
// benchmark: every event of the stream decoded and counted. Next does what
// for_each_event does before its callback: it validates every field and
// decodes the scalar values (Event.Uint reads them back), a stack as a view
// of its addresses. Instructions per event:
//
//	../shared/bench/instr.sh ./dial9 CodecIAIDecode 1000000 '*dial9.countLoop'
func BenchmarkCodecIAIDecode(b *testing.B) {
	benchCodecIAIDecode(b, func(d *Reader) (int, uint64) { return countLoop(d), 0 })
}

// BenchmarkCodecIAIDecodeConsume decodes the codec_iai stream and reads
// every field of every event, each of the 16 stack addresses included:
//
//	../shared/bench/instr.sh ./dial9 CodecIAIDecodeConsume 1000000 '*dial9.decodeLoop'
func BenchmarkCodecIAIDecodeConsume(b *testing.B) {
	benchCodecIAIDecode(b, decodeLoop)
}

// countLoop counts events, like upstream's for_each_event(|_| count += 1).
// It is kept out of line so that instr.sh can count it by name.
//
//go:noinline
func countLoop(d *Reader) int {
	n := 0
	for d.Next() {
		n++
	}
	return n
}

func benchCodecIAIDecode(b *testing.B, loop func(*Reader) (int, uint64)) {
	data := codecIAIBytes()
	d, err := NewBytesReader(data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	runtime.GC() // not the input generation's garbage
	b.ResetTimer()
	cpu := startCPU()
	var sum uint64
	for b.Loop() {
		if err := d.ResetBytes(data); err != nil {
			b.Fatal(err)
		}
		n, s := loop(d)
		sum += s
		if d.Err() != nil || n != codecIAIEvents {
			b.Fatalf("%d events, %v", n, d.Err())
		}
	}
	b.ReportMetric(float64(codecIAIEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	cpu.report(b, codecIAIEvents*b.N)
	b.ReportMetric(float64(len(data))/codecIAIEvents, "B/event")
	_ = sum
}

// TestCodecIAIWorkload pins the workload's shape: what is decoded is what
// codec_iai.rs writes.
func TestCodecIAIWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("1M events")
	}
	d, err := NewBytesReader(codecIAIBytes())
	must(t, err)
	ts := uint64(1_000_000_000)
	var i uint64
	for d.Next() {
		ev := d.Event()
		ts += 500 + i%200
		if ev.Timestamp() != ts || ev.TypeID() != uint16(i%5) {
			t.Fatalf("event %d: type %d ts %d, want %d %d", i, ev.TypeID(), ev.Timestamp(), i%5, ts)
		}
		if i%5 == 4 {
			st := ev.Field(3).Stack()
			if ev.Uint(1) != 12345+i%4 || st.Len() != 16 || st.At(0) != 0x5555_5555_0000+(i%100)*0x10 ||
				st.At(1) != 0x5555_5555_1000+(i%50)*0x20 || st.At(15) != 0x5555_5555_f000 {
				t.Fatalf("CpuSample %d: tid %d, stack %x", i, ev.Uint(1), st.AppendTo(nil))
			}
		}
		if i%5 == 2 && ev.Uint(2) != 500_000_000+i*100 {
			t.Fatalf("WorkerPark %d: cpu_time_ns %d", i, ev.Uint(2))
		}
		i++
	}
	must(t, d.Err())
	if i != codecIAIEvents {
		t.Fatalf("%d events", i)
	}
}
