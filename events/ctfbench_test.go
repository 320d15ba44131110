package events_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// benchCTFEvents is the size of the LTTng-shaped trace the CTF benchmarks
// read: 4 streams of 1 MiB packets, 40 event record classes (integers,
// strings, an enumeration, byte sequences: testgen/ctfgen).
const benchCTFEvents = 200_000

// benchCTFDir is that trace's folder, written by TestMain before any
// benchmark function runs (so that instr.sh counts only the reading).
var benchCTFDir string

// writeBenchCTF writes the trace into a new temporary folder and returns it.
func writeBenchCTF() (string, error) {
	dir, err := os.MkdirTemp("", "events-bench-ctf")
	if err != nil {
		return "", err
	}
	return dir, ctfgen.Write(dir, benchCTFEvents, 4, 40, 1<<20)
}

// BenchmarkEventsCTF reads the trace through the event layer, each event's
// time, kind, name and track (what BenchmarkEventsX reads for the other
// formats); BenchmarkEventsCTFArgs also every argument (touch: names and
// values, composites not rendered); BenchmarkEventsCTFJSON renders each
// event as JSON (AppendJSON: arguments and composites, the byte sequences
// as arrays). Instruction counts, per event, from the module root:
//
//	../shared/bench/instr.sh ./events EventsCTF 200000 '*_test.*Pass'
//
// and alike for EventsCTFArgs and EventsCTFJSON.
func BenchmarkEventsCTF(b *testing.B)     { benchCTF(b, eventsCTFPass) }
func BenchmarkEventsCTFArgs(b *testing.B) { benchCTF(b, eventsCTFArgsPass) }
func BenchmarkEventsCTFJSON(b *testing.B) { benchCTF(b, eventsCTFJSONPass) }

func benchCTF(b *testing.B, pass func(*events.Reader) int) {
	if benchCTFDir == "" {
		b.Skip("the benchmark trace is written by TestMain when -test.bench is set")
	}
	growStack(0)
	var size int64
	for i := range 4 {
		fi, err := os.Stat(filepath.Join(benchCTFDir, "channel0_"+string(rune('0'+i))))
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		r, err := events.Open(benchCTFDir)
		if err != nil {
			b.Fatal(err)
		}
		if n := pass(r); n != benchCTFEvents {
			b.Fatalf("%d events: %v", n, r.Err())
		}
		r.Close()
	}
}

func eventsCTFPass(r *events.Reader) int {
	n := 0
	for r.Next() {
		ev := r.Event()
		sink += ev.Time() + int64(ev.Kind()) + int64(len(ev.Name())) + int64(ev.Track().ID)
		n++
	}
	return n
}

func eventsCTFArgsPass(r *events.Reader) int {
	n := 0
	for r.Next() {
		touch(r.Event())
		n++
	}
	return n
}

// benchJSON is eventsCTFJSONPass's buffer.
var benchJSON []byte

func eventsCTFJSONPass(r *events.Reader) int {
	n := 0
	for r.Next() {
		benchJSON = r.Event().AppendJSON(benchJSON[:0])
		n++
	}
	return n
}

// BenchmarkCTFEnumEventsJSON is BenchmarkCTFEnumEvents rendering each event
// as JSON instead (AppendJSON: the labels of the structure's member and of
// the array's elements too; readCTFEnumJSON is the part instr.sh counts).
func BenchmarkCTFEnumEventsJSON(b *testing.B) { benchCTFEnum(b, readCTFEnumJSON) }

func readCTFEnumJSON(r *events.Reader) int {
	n := 0
	for r.Next() {
		benchJSON = r.Event().AppendJSON(benchJSON[:0])
		n++
	}
	return n
}
