package events_test

import (
	"bytes"
	"flag"
	"math"
	"os"
	"testing"

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
	}
	os.Exit(m.Run())
}

func benchEvents(b *testing.B, format string) {
	data := benchInput[format]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		r, err := events.OpenBytes(data)
		if err != nil {
			b.Fatal(err)
		}
		n = 0
		for r.Next() {
			ev := r.Event()
			sink += ev.Time() + int64(ev.Kind()) + int64(len(ev.Name())) + int64(ev.Track().ID)
			n++
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
	b.ReportMetric(float64(n), "events/op")
}

func BenchmarkEventsDial9(b *testing.B) { benchEvents(b, "dial9") }
func BenchmarkEventsATF(b *testing.B)   { benchEvents(b, "atf") }
func BenchmarkEventsWTF(b *testing.B)   { benchEvents(b, "wtf") }
func BenchmarkEventsCDT(b *testing.B)   { benchEvents(b, "cdt") }

func BenchmarkCodecDial9(b *testing.B) {
	data := benchInput["dial9"]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
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
}

func BenchmarkCodecATF(b *testing.B) {
	data := benchInput["atf"]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
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
}

func BenchmarkCodecWTF(b *testing.B) {
	data := benchInput["wtf"]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
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
}

func BenchmarkCodecCDT(b *testing.B) {
	data := benchInput["cdt"]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
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
}
