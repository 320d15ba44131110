package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/traceerr"
)

func init() {
	register(&format{
		name:     "dial9",
		validate: dial9Validate,
		stats:    dial9Stats,
		dump:     dial9Dump,
		convert:  dial9Convert,
		sample:   dial9Sample,
	})
}

// dial9Open streams the input (plain or gzip) through a bounded buffer.
// Version bytes other than 1 are accepted, as the upstream readers do. A
// stream cut or corrupted mid-frame is read up to the bad frame
// (dial9.WithRecovery) and the input's recovery line says what was lost.
func dial9Open(in *input) (*dial9.Reader, func() error, error) {
	r, err := in.Reader()
	if err != nil {
		return nil, nil, err
	}
	d, err := dial9.NewReader(r, dial9.WithAnyVersion(), dial9.WithRecovery())
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	in.setRecovery(func() *traceerr.Recovery {
		if rep := d.Recovery(); rep != nil {
			return summaryOf(rep.Summary())
		}
		return nil
	})
	return d, r.Close, nil
}

type dial9Counts struct {
	events, frames int
	byType         map[string]int
	first, last    uint64
	hasTS          bool
	streams        int
	resets         int
	bytes          int64
	rec            *dial9.Recovery // the stream was cut or corrupted (read WithRecovery)
}

func dial9Scan(in *input) (*dial9Counts, error) {
	d, closeIn, err := dial9Open(in)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	c := &dial9Counts{byType: map[string]int{}}
	p := newProgress("reading", in.Size(), false)
	defer p.Done()
	var last int64
	for d.NextFrame() {
		c.frames++
		if off := d.Offset(); off-last >= 1<<20 {
			p.Add(off - last)
			last = off
		}
		switch d.Kind() {
		case dial9.FrameSchema:
			if _, ok := c.byType[d.Schema().Name]; !ok {
				c.byType[d.Schema().Name] = 0
			}
		case dial9.FrameEvent:
			ev := d.Event()
			c.events++
			c.byType[ev.Name()]++
			if ev.HasTimestamp() {
				ts := ev.Timestamp()
				if !c.hasTS || ts < c.first {
					c.first = ts
				}
				if !c.hasTS || ts > c.last {
					c.last = ts
				}
				c.hasTS = true
			}
		}
	}
	p.Done()
	c.streams, c.resets, c.bytes = d.Headers(), d.Resets(), d.Offset()
	c.rec = d.Recovery()
	return c, d.Err()
}

// dial9Lost adds to a decoding error what was read before it and what is
// lost: a dial9 stream has no index to resynchronise on, so everything from
// the failing frame to the end of the stream is lost. The result is still a
// *dial9.FormatError wrapping the same sentinel at the same offset.
func dial9Lost(c *dial9Counts, err error) error {
	var fe *dial9.FormatError
	if c == nil || !errors.As(err, &fe) {
		return err
	}
	e := *fe
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "dial9: ")
	}
	e.Msg = fmt.Sprintf("%s (read before it: %d events in %d frames, %d bytes of stream; lost: everything from offset %d to the end)", msg, c.events, c.frames, fe.Offset, fe.Offset)
	return &e
}

// dial9Validate fails on a stream cut or corrupted mid-frame, as validate
// does on a torn WTF file or a CDT trace without footer; stats, dump and
// convert read the events before the damage (the recovery line says what
// was lost).
func dial9Validate(in *input) (string, error) {
	c, err := dial9Scan(in)
	if err != nil {
		return "", dial9Lost(c, err)
	}
	if c.rec != nil {
		return "", dial9Lost(c, c.rec.Reason)
	}
	return fmt.Sprintf("%d events, %d schemas, %d streams", c.events, len(c.byType), c.streams), nil
}

func dial9Stats(in *input) (statList, error) {
	c, err := dial9Scan(in)
	if err != nil {
		return nil, dial9Lost(c, err)
	}
	var first, last any
	if c.hasTS {
		first, last = c.first, c.last
	}
	var perEvent any
	if c.events > 0 {
		perEvent = math.Round(float64(c.bytes)/float64(c.events)*100) / 100
	}
	// first_ns and last_ns are the first and last timestamps in stream
	// order (the event layer's), min_ns and max_ns the extremes.
	return withEventStats(statList{
		{"events", c.events},
		{"schemas", len(c.byType)},
		{"events_by_type", c.byType},
		{"first_ns", first},
		{"last_ns", last},
		{"frames", c.frames},
		{"streams", c.streams},
		{"timestamp_resets", c.resets},
		{"stream_bytes", c.bytes},
		{"bytes_per_event", perEvent},
	}, in)
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
