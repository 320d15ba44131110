package dial9

import (
	"bytes"
	"io"
	"runtime"
	"sync"
	"testing"
)

// The upstream benchmark workload (benches/codec_iai.rs): 1,000,000 events
// cycling through five derived event types, timestamps from 1e9 ns growing
// by 1000 + (i%7)*300 ns before each event.
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

// writeEvent writes event i of the workload.
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

// encodeWorkload writes the whole workload as one stream.
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

func BenchmarkEncodeWorkload(b *testing.B) {
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

func BenchmarkDecodeWorkload(b *testing.B) {
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

// BenchmarkDecodeWorkloadReader is the streaming path (io.Reader, 64 KiB buffer).
func BenchmarkDecodeWorkloadReader(b *testing.B) {
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
