package parquetexport

import (
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// BenchmarkConvertCTF converts an LTTng-shaped CTF trace of 200 000 events
// (testgen/ctfgen: 4 streams, 40 event record classes of integers,
// strings, an enumeration and byte sequences) into rows on one goroutine,
// the batch reset every 65 536 rows as a row group's would be: the
// exporter's CTF path without the Parquet encoding. Instruction counts per
// event, from the module root:
//
//	../shared/bench/instr.sh ./parquetexport ConvertCTF 200000 '*convertCTFPass'
func BenchmarkConvertCTF(b *testing.B) {
	const n = 200_000
	dir := b.TempDir()
	if err := ctfgen.Write(dir, n, 4, 40, 1<<20); err != nil {
		b.Fatal(err)
	}
	o, _ := buildOptions(nil)
	c := newConverter(&o)
	bt := newBatch(events.FormatCTF)
	b.ReportAllocs()
	for b.Loop() {
		if got := convertCTFPass(b, c, bt, dir); got != n {
			b.Fatalf("%d events", got)
		}
	}
}

func convertCTFPass(b *testing.B, c *converter, bt *batch, dir string) int {
	r, err := events.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	bt.reset()
	c.start(bt, events.FormatCTF, dir)
	n := 0
	for r.Next() {
		c.add(r.Event())
		if n++; bt.rows >= 1<<16 {
			bt.reset()
			c.attach(bt)
		}
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}
