package events_test

import (
	"bytes"
	"errors"
	"hash/crc32"
	"strconv"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/testgen/cdtdemo"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// Synthetic traces shaped like real ones, made by the module's own writers,
// for allocation tests and benchmarks.

// genDial9 writes n events: polls on four workers (PollStart with a pooled
// spawn location, PollEnd), wake-ups and queue samples without a worker.
func genDial9(n int) []byte {
	var buf bytes.Buffer
	e, err := dial9.NewWriter(&buf)
	if err != nil {
		panic(err)
	}
	start, _ := e.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "local_queue", Type: dial9.TypeU8},
		{Name: "task_id", Type: dial9.TypeVarint}, {Name: "spawn_loc", Type: dial9.TypePooledString}})
	end, _ := e.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	wake, _ := e.Register("WakeEventEvent", []dial9.FieldDef{{Name: "waker_task_id", Type: dial9.TypeVarint},
		{Name: "woken_task_id", Type: dial9.TypeVarint}, {Name: "target_worker", Type: dial9.TypeU8}})
	queue, _ := e.Register("QueueSampleEvent", []dial9.FieldDef{{Name: "global_queue", Type: dial9.TypeVarint}})
	locs := []uint32{e.InternString("src/main.rs:10:5"), e.InternString("src/server.rs:88:9"), e.InternString("src/db.rs:301:13")}
	ts := uint64(1_000_000_000)
	for i := 0; i < n; {
		w := uint64(i % 4)
		ts += 700
		_ = e.Begin(start, ts).Varint(w).U8(uint8(i % 3)).Varint(uint64(100 + i)).PooledString(locs[i%3]).End()
		ts += 3000
		_ = e.WriteUints(wake, ts, uint64(100+i), uint64(101+i), w^1)
		ts += 2000
		_ = e.WriteUints(end, ts, w)
		ts += 100
		_ = e.WriteUints(queue, ts, uint64(i%17))
		i += 4
	}
	_ = e.Close()
	return buf.Bytes()
}

// genATF writes one index file of n events: a call tree of depth 3 with
// returns, and an exception now and then.
func genATF(n int) []byte {
	mod := atf.ModuleID("/usr/local/bin/demo_app")
	events := make([]byte, 0, n*atf.IndexEventSize)
	ts := uint64(1_000_000_000_000)
	depth := uint32(0)
	count := 0
	for i := 0; count < n; i++ {
		ts += 50
		var k atf.EventKind
		switch {
		case i%13 == 12 && depth > 0:
			k = atf.KindException
		case depth < 3 && (i%2 == 0 || depth == 0):
			depth++
			k = atf.KindCall
		default:
			k = atf.KindReturn
		}
		events = atf.AppendIndexEvent(events, atf.IndexEvent{Timestamp: ts, FunctionID: atf.FunctionID(mod, depth), Kind: k, CallDepth: depth, DetailSeq: atf.NoDetail})
		if k == atf.KindReturn {
			depth--
		}
		count++
	}
	h := atf.IndexHeader{
		Endian: 1, Version: 1, Arch: atf.ArchX86_64, OS: atf.OSLinux, ClockType: atf.ClockBoottime,
		EventSize: atf.IndexEventSize, EventCount: uint32(n), EventsOffset: atf.HeaderSize,
		FooterOffset: atf.HeaderSize + uint64(len(events)), TimeStartNs: 1_000_000_000_050, TimeEndNs: ts,
	}
	b := atf.AppendIndexHeader(nil, h)
	b = append(b, events...)
	return atf.AppendIndexFooter(b, atf.IndexFooter{Checksum: crc32.ChecksumIEEE(events), EventCount: uint64(n),
		TimeStartNs: 1_000_000_000_050, TimeEndNs: ts, BytesWritten: uint64(len(events))})
}

// genWTF writes about n events: frames (typed scopes with arguments) holding
// wtf.scope#enter/leave pairs, appended scope data and instance events, in
// two zones.
func genWTF(n int) []byte {
	var buf bytes.Buffer
	w, err := wtfcff.NewWriter(&buf)
	if err != nil {
		panic(err)
	}
	frame, _ := w.Define(0, "app#frame(uint32 number, ascii label)", wtfcff.ClassScope, 0)
	draw, _ := w.Define(0, "app#draw(uint16 calls, float32 ms, uint8[] mask)", wtfcff.ClassInstance, 0)
	main, _ := w.CreateZone(0, "Main", "script", "app.js")
	worker, _ := w.CreateZone(0, "Worker", "script", "worker.js")
	for i := uint32(0); w.Events() < n; i++ {
		t := 1000 + i*100
		zone := main
		if i%5 == 4 {
			zone = worker
		}
		err := errors.Join(
			w.SetZone(t, zone),
			w.Begin(frame, t).Uint32(i).ASCII("frame").End(),
			w.EnterScope(t+10, "layout"),
			w.AppendScopeData(t+20, "nodes", strconv.Itoa(int(40+i%50))),
			w.LeaveScope(t+30),
			w.Begin(draw, t+35).Uint16(uint16(10+i%9)).Float32(float32(i%7)/4).Uint8s([]byte{1, 2, byte(i)}).End(),
			w.LeaveScope(t+90),
		)
		if err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// genCDT writes n demo ticks in chunks of 256.
func genCDT(n int) []byte {
	producer := schema7.AnyMap{schema7.AnyString("impl", "go"), schema7.AnyString("impl_version", "events-test"),
		schema7.AnyString("platform", "any"), schema7.AnyString("arch", "any")}
	source := schema7.AnyMap{schema7.AnyString("kind", "sample")}
	meta := schema7.NewTraceMeta("1970-01-01T00:00:00+00:00", producer, source, schema7.AnyMap{}, 0, int64(n-1), int64(n))
	var buf bytes.Buffer
	w, err := schema7.NewWriter(&buf, &meta, cdt.WithChunkTicks(256))
	if err != nil {
		panic(err)
	}
	for t := range int64(n) {
		rec := cdtdemo.Tick(t, 0x1234abcd)
		if err := w.Append(&rec); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
