package ctf

import "testing"

// BenchmarkStreamScanByStream: BenchmarkStreamScan's decode loop as
// tracecat validate runs it on a trace folder, through a Scanner reading
// stream by stream (Reader.ByStream): the Reader's cost per event over
// Stream.Scan's (Count reads a stream alone with Scan's own loop).
func BenchmarkStreamScanByStream(b *testing.B) {
	tr := genTraceMem(b, 1_000_000, 1)
	b.SetBytes(tr.Streams[0].size)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		r := tr.NewScanner().ByStream()
		n += int(r.Count())
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}
