package schema7

import (
	"bytes"
	"testing"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/internal/lincost"
)

// linearTrace is a trace of 2000×scale DemoTick records (the reference
// shape: players, deaths, events, entity samples), zstd chunks.
func linearTrace(tb testing.TB, scale int) []byte {
	meta := NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, 0, 1)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &meta)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range 2000 * scale {
		rec := DemoTick(int64(i), 5)
		if err := w.Append(&rec); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func linearRecords(in []byte) (int, error) {
	f, err := cdt.OpenBytes(in)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for _, err := range AllRecords(f) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// linearWorstRow decodes worstRow (the most Go memory per input byte the
// schema allows) as one typed record; elements are its bytes' worth of
// decoded values, counted as input bytes.
func linearWorstRow(in []byte) (int, error) {
	var rec TickRecord
	return len(in), rec.Decode(in)
}

// linearMeta is a raw-META trace whose producer holds 1000×scale nils (the
// amplification shape of issue 16), rendered as dump --type meta does.
func linearMeta(tb testing.TB, scale int) []byte {
	return metaTraceTB(tb, nils(1000*scale), cdt.WithRawChunks())
}

// linearMetaNils is how many nils linearMeta's input of size n holds: the
// elements (the rest of the file is a fixed 2.7 KB).
func linearMetaNils(in []byte) int { return bytes.Count(in, []byte{0xc0}) }

func metaTraceTB(tb testing.TB, value []byte, opts ...cdt.WriterOption) []byte {
	meta := NewTraceMeta("2026-01-01T00:00:00+00:00", AnyMap{{Key: "x", Value: value}}, nil, nil, 0, 0, 1)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &meta, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	rec := DemoTick(0, 1)
	if err := w.Append(&rec); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func linearMetaJSON(in []byte) (int, error) {
	f, err := cdt.OpenBytes(in)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	m, err := ReadMeta(f)
	if err != nil {
		return 0, err
	}
	out := AppendJSON(nil, m)
	if bytes.Contains(out, []byte("<undecodable")) {
		return 0, errUndecodable
	}
	return linearMetaNils(in), nil
}

var errUndecodable = cdt.ErrLimit

func linearCases() []lincost.Case {
	return []lincost.Case{
		{Name: "typed-rows", Gen: linearTrace, Decode: linearRecords},
		{Name: "worst-row", Gen: func(_ testing.TB, s int) []byte { return worstRow(64 << 10 * s) }, Decode: linearWorstRow},
		{Name: "meta-nils", Gen: linearMeta, Decode: linearMetaJSON},
	}
}

// BenchmarkLinear decodes typed rows (the reference shape in whole files,
// and the worst row of hostile_test.go alone) and the META amplification
// shape at 1×, 4× and 16× the base size: the cpu-ns/B column is the
// constant of the package doc's time budget, and must not grow with the
// size.
func BenchmarkLinear(b *testing.B) {
	lincost.BenchCases(b, linearCases())
}

// TestLinearAllocs: allocation per input byte does not grow with the input.
func TestLinearAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("decodes tens of megabytes")
	}
	lincost.CheckAllocsCases(t, linearCases())
}
