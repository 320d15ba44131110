package ctf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
	"golang.org/x/sys/unix"
)

// guarded returns a copy of data whose last byte is the last before a page
// that cannot be read: a read past the end of data faults (the test dies).
func guarded(t *testing.T, data []byte) []byte {
	t.Helper()
	page := unix.Getpagesize()
	n := (len(data) + page - 1) / page * page
	m, err := unix.Mmap(-1, 0, n+page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { _ = unix.Munmap(m) })
	if err := unix.Mprotect(m[n:], unix.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	b := m[n-len(data) : n : n]
	copy(b, data)
	return b
}

// Next's body reads no byte past its data (Stream.fxLim: a position it
// checks against it has the bytes it reads from there within data; from
// closer to the end, nextFast and the decoding program read the record):
// streams cut at each of their last bytes, placed right before a page
// that cannot be read, decode as the field walk decodes them.
func TestNextReadsNothingPastData(t *testing.T) {
	streams := genGuardStreams(t)
	streams = append(streams, shapeGuardStreams(t, "shapes", 4, func(seed uint64) string { return nxShapesTSDL(seed, 14, false) })...)
	// (arrays whose counts change at every record: recounted in place)
	streams = append(streams, guardStream{traceFromTSDL(t, recountTSDL()), "recount", recountStream(120, 4)})
	cdata, _ := genStreamBytes(0, 300, 3, 1024)
	streams = append(streams, guardStream{traceFromTSDL(t, genMetadata(40)), "gen-counts", cdata})
	streams = append(streams, shapeGuardStreams(t, "texts", 2, func(seed uint64) string { return nxShapesTSDL(seed, 0, false) + nxTextShapesTSDL(seed) })...)
	for seed := uint64(0); seed < 2; seed++ {
		// (one packet: its last bytes are records, process names in
		// place among them)
		tr, data := kernelStream(t, seed, 300, 0)
		streams = append(streams, guardStream{tr, fmt.Sprintf("kernel-%d", seed), data})
	}
	// LTTng's large header (lttng-ust's): ctfgen's trace, nxShapesTSDL's
	// classes with it
	streams = append(streams, largeGuardStreams(t)...)
	streams = append(streams, shapeGuardStreams(t, "large-shapes", 2, func(seed uint64) string {
		return largeHdrTSDL(nxShapesTSDL(seed, 14, false) + nxTextShapesTSDL(seed))
	})...)
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	lst := &nextFastStats{classes: map[*EventClass]bool{}} // the large header's
	for _, s := range streams {
		x := st
		if strings.HasPrefix(s.name, "large") {
			x = lst
		}
		for cut := 0; cut <= min(300, len(s.data)); cut++ {
			compareNextFast(t, s.tr, fmt.Sprintf("%s-cut-%d", s.name, cut), guarded(t, s.data[:len(s.data)-cut]), x)
		}
	}
	t.Logf("%d of %d records from Next's body, %d of %d with the large header", st.flat, st.events, lst.flat, lst.events)
	if st.flat < st.events/3 || lst.flat < lst.events/3 {
		t.Fatalf("%d of %d records from Next's body, %d of %d with the large header", st.flat, st.events, lst.flat, lst.events)
	}
}

// Scan's body reads no byte past its data (Stream.scLim): streams cut at
// each of their last 300 bytes, placed right before a page that cannot be
// read, read as Next reads them.
func TestScanReadsNothingPastData(t *testing.T) {
	streams := genGuardStreams(t)
	streams = append(streams, shapeGuardStreams(t, "shapes", 4, func(seed uint64) string { return scanShapesTSDL(seed, false) })...)
	streams = append(streams, largeGuardStreams(t)...)
	streams = append(streams, shapeGuardStreams(t, "large-shapes", 2, func(seed uint64) string { return largeHdrTSDL(scanShapesTSDL(seed, false)) })...)
	st := newScanStats()
	lst := newScanStats() // the large header's
	for _, s := range streams {
		x := st
		if strings.HasPrefix(s.name, "large") {
			x = lst
		}
		for cut := 0; cut <= min(300, len(s.data)); cut++ {
			compareScanNext(t, s.tr, fmt.Sprintf("%s-cut-%d", s.name, cut), guarded(t, s.data[:len(s.data)-cut]), x, nil)
		}
	}
	t.Logf("%d of %d records from Scan's body, %d of %d with the large header", st.body, st.events, lst.body, lst.events)
	if st.body < st.events/3 || lst.body < lst.events/3 {
		t.Fatalf("%d of %d records from Scan's body, %d of %d with the large header", st.body, st.events, lst.body, lst.events)
	}
}

// guardStream is a data stream of trace tr for the guard-page tests.
type guardStream struct {
	tr   *Trace
	name string
	data []byte
}

// genGuardStreams: two ctfgen streams (compact headers, 40 classes).
func genGuardStreams(t *testing.T) []guardStream {
	gen := traceFromTSDL(t, genMetadata(40))
	var out []guardStream
	for seed := 0; seed < 2; seed++ {
		data, _ := genStreamBytes(seed, 300, 40, 512+seed*1024)
		out = append(out, guardStream{gen, fmt.Sprintf("gen-%d", seed), data})
	}
	return out
}

// largeGuardStreams: two ctfgen streams with LTTng's large header.
func largeGuardStreams(t *testing.T) []guardStream {
	large := traceFromTSDL(t, ctfgen.LargeMetadata(40))
	var out []guardStream
	for seed := 0; seed < 2; seed++ {
		data, _ := ctfgen.LargeStream(seed, 300, 40, 512+seed*1024)
		out = append(out, guardStream{large, fmt.Sprintf("large-gen-%d", seed), data})
	}
	return out
}

// shapeGuardStreams: for seeds 0 … n-1, a stream of every class of the
// metadata tsdl(seed) (everyStream), named prefix-seed.
func shapeGuardStreams(t *testing.T, prefix string, n uint64, tsdl func(seed uint64) string) []guardStream {
	var out []guardStream
	for seed := uint64(0); seed < n; seed++ {
		tr := traceFromTSDL(t, tsdl(seed))
		out = append(out, guardStream{tr, fmt.Sprintf("%s-%d", prefix, seed), everyStream(tr, seed, 200, 0)})
	}
	return out
}
