package cdt

import (
	"bytes"
	"testing"

	"github.com/tracecodec/tracecodec/internal/lincost"
)

// linearTicks is the base size of the linearity inputs, in ticks.
const linearTicks = 20000

// linearFile is a trace of linearTicks×scale minimal rows ({"tick_index":
// n}, about 14 bytes each): the most rows per byte, zstd chunks or raw.
func linearFile(tb testing.TB, scale int, raw bool) []byte {
	var opts []WriterOption
	if raw {
		opts = append(opts, WithRawChunks())
	}
	return writeTicks(tb, testMeta, int64(linearTicks*scale), opts...)
}

func linearRows(in []byte) (int, error) {
	f, err := OpenBytes(in)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for _, err := range f.All() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func linearStream(in []byte) (int, error) {
	s, err := NewReader(bytes.NewReader(in))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, err := range s.All() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// linearNoTrailer is the file cut before its footer (a killed writer),
// read by the recovery scan.
func linearNoTrailer(tb testing.TB, scale int) []byte {
	b := linearFile(tb, scale, false)
	f, err := OpenBytes(b)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	return b[:f.footerOffset]
}

func linearRecovered(in []byte) (int, error) {
	f, err := OpenBytes(in, WithRecovery())
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for _, err := range f.All() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func linearCases() []lincost.Case {
	zstd := func(tb testing.TB, s int) []byte { return linearFile(tb, s, false) }
	raw := func(tb testing.TB, s int) []byte { return linearFile(tb, s, true) }
	return []lincost.Case{
		{Name: "file-zstd", Gen: zstd, Decode: linearRows},
		{Name: "file-raw", Gen: raw, Decode: linearRows},
		{Name: "stream-zstd", Gen: zstd, Decode: linearStream},
		{Name: "stream-raw", Gen: raw, Decode: linearStream},
		{Name: "file-recovered", Gen: linearNoTrailer, Decode: linearRecovered},
	}
}

// BenchmarkLinear decodes the densest traces (minimal rows, zstd or raw
// chunks, whole or without trailer) at 1×, 4× and 16× the base size: the
// cpu-ns/B column (per stored byte) is the constant of the package doc's
// time budget, and must not grow with the size.
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
