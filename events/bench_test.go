package events_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/tinylib/msgp/msgp"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// Benchmark inputs, built before any benchmark function runs (so that
// ../shared/bench/instr.sh counts only the reading). Each pair of benchmarks
// reads the same bytes: BenchmarkCodecX with the codec's own iteration,
// BenchmarkEventsX through the event layer; the difference is the layer's
// cost.
var benchInput = map[string][]byte{}

// Events per benchmark input.
const (
	benchDial9Events = 200_000
	benchATFEvents   = 200_000
	benchWTFEvents   = 100_000
	benchCDTTicks    = 5_000
)

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		benchInput["dial9"] = genDial9(benchDial9Events)
		benchInput["atf"] = genATF(benchATFEvents)
		benchInput["wtf"] = genWTF(benchWTFEvents)
		benchInput["cdt"] = genCDT(benchCDTTicks)
		dir, err := writeBenchCTF()
		if err != nil {
			os.RemoveAll(dir)
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		benchCTFDir = dir
		if benchCallsDir, err = writeBenchCalls(); err != nil {
			os.RemoveAll(dir)
			os.RemoveAll(benchCallsDir)
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if benchCTFDir != "" {
		os.RemoveAll(benchCTFDir)
		os.RemoveAll(benchCallsDir)
	}
	os.Exit(code)
}

func benchEvents(b *testing.B, format string) {
	run(b, format, func(b *testing.B, data []byte) { n = eventsPass(b, data) })
	b.ReportMetric(float64(n), "events/op")
}

// n is the number of events of the last pass of benchEvents.
var n int

// eventsPass is one pass of benchEvents: every event through the layer.
func eventsPass(b *testing.B, data []byte) int {
	r, err := events.OpenBytes(data)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for r.Next() {
		ev := r.Event()
		sink += ev.Time() + int64(ev.Kind()) + int64(len(ev.Name())) + int64(ev.Track().ID)
		n++
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	r.Close()
	return n
}

// run runs pass over benchInput[format] in a benchmark loop, after growing
// the goroutine's stack: callgrind loses its count (instr.sh's toggle) when
// Go moves the stack under a counted function. Each pass function is named
// …Pass, so that instr.sh's pattern '*_test.*Pass' counts exactly the
// passes (and not the closures of range-over-func loops, named …Pass-range1).
func run(b *testing.B, format string, pass func(*testing.B, []byte)) {
	growStack(0)
	data := benchInput[format]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		pass(b, data)
	}
}

// growStack grows the stack by 256 KiB.
//
//go:noinline
func growStack(i int) byte {
	var buf [256 << 10]byte
	buf[i] = byte(i)
	return buf[i/2]
}

func BenchmarkEventsDial9(b *testing.B) { benchEvents(b, "dial9") }
func BenchmarkEventsATF(b *testing.B)   { benchEvents(b, "atf") }
func BenchmarkEventsWTF(b *testing.B)   { benchEvents(b, "wtf") }
func BenchmarkEventsCDT(b *testing.B)   { benchEvents(b, "cdt") }

// The BenchmarkCodecX functions are the fair baselines: each obtains, through
// the codec's own public API and in the cheapest way a user of the codec
// would, the same information benchEvents reads from every event — the time
// in ns, the kind, the name and the track id — with per-type caches where a
// user would keep them (dial9: the worker_id field index per schema; ATF: the
// function name through the symbol table, one map lookup; WTF: scope names
// from the name argument and a per-zone stack, the zone's own id; CDT:
// elapsed_ms found in the row's msgpack map). The BenchmarkCodecXMinimal
// functions are the earlier baselines, which read only the time and the
// record's own name or kind: the codec's bare iteration.
//
// Instruction counts (deterministic), per event, from the module root:
//
//	../shared/bench/instr.sh ./events EventsDial9 200000 '*_test.*Pass'
//	../shared/bench/instr.sh ./events CodecDial9 200000 '*_test.*Pass'
//	../shared/bench/instr.sh ./events CodecDial9Minimal 200000 '*_test.*Pass'
//
// and alike for ATF (200000 events), WTF (100003) and CDT (5000 ticks).

// dial9Info is what a dial9 user derives once per schema.
type dial9Info struct {
	schema *dial9.Schema
	kind   int64
	worker int // worker_id field index, -1 if none
	opt    bool
}

func dial9Learn(types []dial9Info, ev *dial9.Event) []dial9Info {
	id := int(ev.TypeID())
	for id >= len(types) {
		types = append(types, dial9Info{})
	}
	sc := ev.Schema()
	t := dial9Info{schema: sc, kind: int64(events.KindInstant), worker: sc.FieldIndex("worker_id")}
	if t.worker >= 0 {
		t.opt = sc.Fields[t.worker].Type.IsOptional()
		switch sc.Name {
		case "PollStartEvent", "PollStart":
			t.kind = int64(events.KindBegin)
		case "PollEndEvent", "PollEnd":
			t.kind = int64(events.KindEnd)
		}
	}
	types[id] = t
	return types
}

func BenchmarkCodecDial9(b *testing.B) { run(b, "dial9", codecDial9Pass) }

// codecDial9Pass is one pass of BenchmarkCodecDial9.
func codecDial9Pass(b *testing.B, data []byte) {
	d, err := dial9.NewBytesReader(data, dial9.WithAnyVersion())
	if err != nil {
		b.Fatal(err)
	}
	var types []dial9Info
	for d.Next() {
		ev := d.Event()
		id := int(ev.TypeID())
		if id >= len(types) || types[id].schema != ev.Schema() {
			types = dial9Learn(types, ev)
		}
		t := &types[id]
		var ts int64
		if ev.HasTimestamp() {
			ts = int64(min(ev.Timestamp(), math.MaxInt64))
		}
		track := uint64(1 << 20)
		if t.worker >= 0 && (!t.opt || ev.Field(t.worker).Present()) {
			track = ev.Uint(t.worker)
		}
		sink += ts + t.kind + int64(len(ev.Name())) + int64(track)
	}
	if err := d.Err(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkCodecATF(b *testing.B) { run(b, "atf", codecATFPass) }

// codecATFPass is one pass of BenchmarkCodecATF.
func codecATFPass(b *testing.B, data []byte) {
	ir, err := atf.OpenIndexBytes(data)
	if err != nil {
		b.Fatal(err)
	}
	s := &atf.Session{Threads: []*atf.Thread{atf.NewThread(ir.Header().ThreadID, ir, nil)}}
	symbols := s.Manifest.SymbolNames() // empty without a manifest
	names := map[uint64]string{}        // symbol or hex name per function id
	m := s.Merge()
	for m.Next() {
		e := m.Event()
		name, ok := names[e.FunctionID]
		if !ok {
			if name, ok = symbols[e.FunctionID]; !ok {
				name = fmt.Sprintf("0x%016x", e.FunctionID)
			}
			names[e.FunctionID] = name
		}
		kind := events.KindInstant
		switch e.Kind {
		case atf.KindCall:
			kind = events.KindBegin
		case atf.KindReturn:
			kind = events.KindEnd
		}
		sink += int64(min(e.Timestamp, math.MaxInt64)) + int64(kind) + int64(len(name)) + int64(s.Threads[e.Thread].ID)
	}
	if err := m.Err(); err != nil {
		b.Fatal(err)
	}
}

// wtfZone is what a WTF user keeps per zone: its open scopes' names.
type wtfZone struct{ open []string }

func BenchmarkCodecWTF(b *testing.B) { run(b, "wtf", codecWTFPass) }

// codecWTFPass is one pass of BenchmarkCodecWTF.
func codecWTFPass(b *testing.B, data []byte) {
	src, err := wtfcff.NewBytesReader(data)
	if err != nil {
		b.Fatal(err)
	}
	zones := map[*wtfcff.Zone]*wtfZone{}
	var lastZ *wtfcff.Zone
	var last *wtfZone
	intern := map[string]string{}
	dec := wtfcff.NewDecoder()
	for src.Next() {
		if !dec.SetChunk(src.Chunk()) {
			continue
		}
		for dec.Next() {
			e := dec.Event()
			if e.Zone != lastZ || last == nil {
				if last = zones[e.Zone]; last == nil {
					last = &wtfZone{}
					zones[e.Zone] = last
				}
				lastZ = e.Zone
			}
			name, kind := e.Name(), events.KindInstant
			switch {
			case e.IsInternal():
				kind = events.KindMetadata
			case e.IsScopeEnter():
				kind = events.KindBegin
				if name == "wtf.scope#enter" && e.NumArgs() > 0 {
					arg := e.Arg(0).Bytes()
					n, ok := intern[string(arg)]
					if !ok {
						n = string(arg)
						intern[n] = n
					}
					name = n
				}
				last.open = append(last.open, name)
			case e.IsScopeLeave():
				kind = events.KindEnd
				if k := len(last.open); k > 0 {
					name = last.open[k-1]
					last.open = last.open[:k-1]
				}
			}
			var zone uint64
			if e.Zone != nil {
				zone = uint64(e.Zone.ID) + 1
			}
			sink += int64(e.Time)*1000 + int64(kind) + int64(len(name)) + int64(zone)
		}
		if err := dec.Err(); err != nil {
			b.Fatal(err)
		}
	}
	if err := src.Err(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkCodecCDT(b *testing.B) { run(b, "cdt", codecCDTPass) }

// codecCDTPass is one pass of BenchmarkCodecCDT.
func codecCDTPass(b *testing.B, data []byte) {
	rd, err := cdt.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	it := rd.Iter(math.MinInt64, math.MaxInt64)
	for it.Next() {
		row := it.Row()
		sink += row.Tick + benchElapsedNs(row.Raw)
	}
	if err := it.Err(); err != nil {
		b.Fatal(err)
	}
	it.Close()
	rd.Close()
}

// benchElapsedNs finds elapsed_ms among a CDT row's top-level keys as a
// codec user would without decoding the whole row, in ns (0 if absent).
func benchElapsedNs(raw []byte) int64 {
	n, b, err := msgp.ReadMapHeaderBytes(raw)
	if err != nil {
		return 0
	}
	for range n {
		var key []byte
		if key, b, err = msgp.ReadMapKeyZC(b); err != nil {
			return 0
		}
		if string(key) == "elapsed_ms" {
			v, _, _ := msgp.ReadInt64Bytes(b)
			return v * 1_000_000
		}
		if b, err = msgp.Skip(b); err != nil {
			return 0
		}
	}
	return 0
}

func BenchmarkCodecDial9Minimal(b *testing.B) { run(b, "dial9", codecDial9MinimalPass) }

// codecDial9MinimalPass is one pass of BenchmarkCodecDial9Minimal.
func codecDial9MinimalPass(b *testing.B, data []byte) {
	d, err := dial9.NewBytesReader(data, dial9.WithAnyVersion())
	if err != nil {
		b.Fatal(err)
	}
	for d.Next() {
		ev := d.Event()
		sink += int64(ev.Timestamp()) + int64(len(ev.Name()))
	}
	if err := d.Err(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkCodecATFMinimal(b *testing.B) { run(b, "atf", codecATFMinimalPass) }

// codecATFMinimalPass is one pass of BenchmarkCodecATFMinimal.
func codecATFMinimalPass(b *testing.B, data []byte) {
	ir, err := atf.OpenIndexBytes(data)
	if err != nil {
		b.Fatal(err)
	}
	s := &atf.Session{Threads: []*atf.Thread{atf.NewThread(ir.Header().ThreadID, ir, nil)}}
	m := s.Merge()
	for m.Next() {
		e := m.Event()
		sink += int64(e.Timestamp) + int64(e.Kind) + int64(m.Thread())
	}
	if err := m.Err(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkCodecWTFMinimal(b *testing.B) { run(b, "wtf", codecWTFMinimalPass) }

// codecWTFMinimalPass is one pass of BenchmarkCodecWTFMinimal.
func codecWTFMinimalPass(b *testing.B, data []byte) {
	src, err := wtfcff.NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	for e, err := range wtfcff.Events(src) {
		if err != nil {
			b.Fatal(err)
		}
		sink += int64(e.Time) + int64(len(e.Name()))
	}
}

func BenchmarkCodecCDTMinimal(b *testing.B) { run(b, "cdt", codecCDTMinimalPass) }

// codecCDTMinimalPass is one pass of BenchmarkCodecCDTMinimal.
func codecCDTMinimalPass(b *testing.B, data []byte) {
	rd, err := cdt.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	it := rd.Iter(math.MinInt64, math.MaxInt64)
	for it.Next() {
		row := it.Row()
		sink += row.Tick + int64(len(row.Raw))
	}
	if err := it.Err(); err != nil {
		b.Fatal(err)
	}
	it.Close()
	rd.Close()
}
