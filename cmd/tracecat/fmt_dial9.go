package main

import (
	"bufio"
	"io"

	"github.com/tracecodec/tracecodec/dial9"
)

func init() {
	register(&format{
		name:    "dial9",
		lib:     true, // validate and stats: package inspect (dial9.go)
		dump:    dial9Dump,
		convert: dial9Convert,
		sample:  dial9Sample,
	})
}

// dial9Dump prints the events through the event layer (text or JSON Lines).
func dial9Dump(in *input, w *bufio.Writer, o dumpOptions) error {
	return dumpEvents(in, w, o)
}

// dial9Convert writes Chrome trace-event JSON through the event layer (see
// chrome.go): every event an instant with its fields as args, on its worker's
// thread; PollStart/PollEnd pairs on a worker become "poll" slices.
func dial9Convert(in *input, to string, out io.Writer, _ convertOptions) error {
	if to != "chrome" {
		return usageErrorf("dial9 converts only to chrome, not %q", to)
	}
	return writeChrome(in, out)
}

// dial9Sample writes a small tokio-telemetry-like trace: metadata, polls on
// two workers, wake-ups, a CPU sample with an interned stack and an
// optional field, and a second concatenated stream.
func dial9Sample(out io.Writer) error {
	e, err := dial9.NewWriter(out)
	if err != nil {
		return err
	}
	meta, err := e.Register("SegmentMetadataEvent", []dial9.FieldDef{{Name: "entries", Type: dial9.TypeStringMap}})
	if err != nil {
		return err
	}
	ts := uint64(1_000_000_000)
	if err := e.Begin(meta, ts).StringMap([]dial9.KV{{Key: "service", Value: "tracecat-sample"}, {Key: "runtime.main", Value: "0,1"}}).End(); err != nil {
		return err
	}
	loc := e.InternString("src/main.rs:10:5")
	start, _ := e.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "local_queue", Type: dial9.TypeU8},
		{Name: "task_id", Type: dial9.TypeVarint}, {Name: "spawn_loc", Type: dial9.TypePooledString}})
	end, _ := e.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	wake, _ := e.Register("WakeEventEvent", []dial9.FieldDef{{Name: "waker_task_id", Type: dial9.TypeVarint},
		{Name: "woken_task_id", Type: dial9.TypeVarint}, {Name: "target_worker", Type: dial9.TypeU8}})
	for i := uint64(0); i < 8; i++ {
		worker := i % 2
		ts += 1500
		if err := e.Begin(start, ts).Varint(worker).U8(uint8(i % 3)).Varint(100 + i).PooledString(loc).End(); err != nil {
			return err
		}
		ts += 20_000
		if err := e.WriteUints(wake, ts, 100+i, 101+i, worker^1); err != nil {
			return err
		}
		ts += 5_000
		if err := e.WriteUints(end, ts, worker); err != nil {
			return err
		}
	}
	stack := e.InternStack([]uint64{0x555555551234, 0x555555550a00, 0x7f0000001000})
	thread := e.InternString("tokio-runtime-worker")
	cpu, _ := e.Register("CpuSampleEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "tid", Type: dial9.TypeU32},
		{Name: "source", Type: dial9.TypeU8}, {Name: "thread_name", Type: dial9.Optional | dial9.TypePooledString},
		{Name: "callchain", Type: dial9.TypePooledStackFrames}, {Name: "cpu", Type: dial9.Optional | dial9.TypeVarint}})
	ts += 20_000_000 // needs a timestamp reset frame
	if err := e.Begin(cpu, ts).Varint(0).U32(4242).U8(0).PooledString(thread).PooledStack(stack).Absent().End(); err != nil {
		return err
	}
	// A second complete stream, as tokio telemetry's thread-local batches.
	if err := e.Reset(out); err != nil {
		return err
	}
	cs, _ := e.Register("ClockSyncEvent", []dial9.FieldDef{{Name: "realtime_ns", Type: dial9.TypeVarint}})
	if err := e.WriteUints(cs, ts+1000, 1767225600000000000); err != nil {
		return err
	}
	return e.Close()
}
