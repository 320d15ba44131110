package atf

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tracecodec/tracecodec/fuzz"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// fuzzLimits keep hostile inputs cheap.
var fuzzLimits = WithLimits(Limits{MaxDetailEventSize: 1 << 20, MaxManifestBytes: 1 << 20, MaxThreads: 1024})

// decodeIndex opens data both ways and reads everything reachable.
func decodeIndex(data []byte) error {
	r, err := OpenIndex(bytes.NewReader(data), int64(len(data)), fuzzLimits)
	rb, errb := OpenIndexBytes(data, fuzzLimits)
	if (err == nil) != (errb == nil) {
		panic("OpenIndex and OpenIndexBytes disagree")
	}
	if serr := checkStream(data, r); (serr == nil) != (err == nil) {
		panic(fmt.Sprintf("IndexReader and OpenIndex disagree: %v / %v", serr, err))
	}
	if err != nil {
		return err
	}
	if r.Len() != rb.Len() {
		panic("lengths disagree")
	}
	// The problem report: recovered files say so, clean ones have none
	// about a footer, and the same file in memory reports the same.
	ps := r.Problems()
	if _, noFooter := hasProblem(ps, ProblemNoFooter); noFooter != r.Recovered() {
		panic(fmt.Sprintf("recovered %v, problems %v", r.Recovered(), ps))
	}
	if problemKinds(ps) != problemKinds(rb.Problems()) {
		panic("OpenIndex and OpenIndexBytes report different problems")
	}
	if uint64(len(data)) < HeaderSize+r.Len()*IndexEventSize {
		panic("more events than bytes")
	}
	var prev []IndexEvent
	for seq, e := range numbered(r.All(), panicOn) {
		if e2, err := rb.Event(seq); err != nil || e2 != e {
			panic("Event disagrees with iteration")
		}
		prev = append(prev, e)
	}
	if uint64(len(prev)) != r.Len() {
		panic("iteration stopped early")
	}
	// ReadEvents, in memory and through the io.ReaderAt, in odd batches.
	batch := make([]IndexEvent, 7)
	for _, f := range []*IndexFile{r, rb} {
		for start := uint64(0); ; {
			n, err := f.ReadEvents(batch, start)
			if err != nil {
				panic(err)
			}
			if n == 0 {
				if start != r.Len() {
					panic("ReadEvents stopped early")
				}
				break
			}
			for i, e := range batch[:n] {
				if e != prev[start+uint64(i)] {
					panic("ReadEvents disagrees with iteration")
				}
			}
			start += uint64(n)
		}
	}
	// Blocks, in memory and through the io.ReaderAt.
	for _, f := range []*IndexFile{r, rb} {
		b, seq := f.Blocks(0), uint64(0)
		for b.Next() {
			if b.Seq() != seq {
				panic("Blocks: wrong seq")
			}
			for _, e := range b.Events() {
				if e != prev[seq] {
					panic("Blocks disagrees with iteration")
				}
				seq++
			}
		}
		if b.Err() != nil || seq != r.Len() {
			panic("Blocks stopped early")
		}
	}
	// The field getters, in memory and through the io.ReaderAt.
	for _, f := range []*IndexFile{r, rb} {
		it := f.Events(0)
		var seq uint64
		for it.Next() {
			if iterFields(it) != prev[seq] {
				panic("the getters disagree with iteration")
			}
			seq++
		}
		if seq != r.Len() || iterFields(it) != (IndexEvent{}) {
			panic("getters: iteration stopped early, or fields after the end")
		}
	}
	r.Sorted()
	it := r.Iter(10, 1<<40)
	for it.Next() {
		if iterFields(it) != it.Event() {
			panic("the getters disagree with Event under a time filter")
		}
	}
	r.VerifyChecksum()
	r.TimeRange()
	// Round trip: what decodes re-encodes and decodes to the same events.
	var f memFile
	w, _ := NewIndexWriter(&f, r.Header().ThreadID)
	for _, e := range prev {
		w.Append(e)
	}
	w.Close()
	back, err := OpenIndexBytes(f.b)
	if err != nil || back.Len() != r.Len() || back.Recovered() {
		panic("round trip failed")
	}
	for i, e := range prev {
		if e2, _ := back.Event(uint64(i)); e2 != e {
			panic("round trip changed an event")
		}
	}
	return nil
}

// checkStream reads data through an IndexReader and, when r opened, checks
// that both see the same events, footer and recovery.
func checkStream(data []byte, r *IndexFile) error {
	s, err := NewIndexReader(iotest.HalfReader(bytes.NewReader(data)), fuzzLimits)
	if err != nil {
		return err
	}
	var n uint64
	for s.Next() {
		if r != nil {
			if e, err := r.Event(s.Seq()); err != nil || e != s.Event() {
				panic(fmt.Sprintf("stream event %d differs: %+v / %+v %v", s.Seq(), s.Event(), e, err))
			}
		}
		n++
	}
	if s.Err() != nil {
		return s.Err()
	}
	if r != nil {
		_, f1 := r.Footer()
		_, f2 := s.Footer()
		if n != r.Len() || f1 != f2 || s.Recovered() != r.Recovered() || s.Discarded() != r.Discarded() {
			panic(fmt.Sprintf("stream: %d events footer %v recovered %v discarded %d; reader: %d %v %v %d",
				n, f2, s.Recovered(), s.Discarded(), r.Len(), f1, r.Recovered(), r.Discarded()))
		}
	}
	return nil
}

// detailFields is the current record as DetailIter's getters read it.
func detailFields(it *DetailIter) DetailEvent {
	e := DetailEvent{Type: it.Type(), Flags: it.Flags(), IndexSeq: it.IndexSeq(), ThreadID: it.ThreadID(), Timestamp: it.Timestamp(), Payload: it.Payload()}
	if e.Payload != nil {
		e.TotalLength = uint32(DetailEventHeaderSize + len(e.Payload))
	}
	return e
}

// sameDetail: the same header fields and the same payload view (the same
// bytes at the same address).
func sameDetail(a, b DetailEvent) bool {
	pa, pb := a.Payload, b.Payload
	return a.TotalLength == b.TotalLength && a.Type == b.Type && a.Flags == b.Flags && a.IndexSeq == b.IndexSeq &&
		a.ThreadID == b.ThreadID && a.Timestamp == b.Timestamp && len(pa) == len(pb) && (len(pa) == 0 || &pa[0] == &pb[0])
}

func decodeDetail(data []byte) error {
	d, err := OpenDetail(bytes.NewReader(data), int64(len(data)), fuzzLimits)
	if err != nil {
		return err
	}
	db, errb := OpenDetailBytes(data, fuzzLimits)
	if errb != nil || db.Len() != d.Len() {
		panic("OpenDetail and OpenDetailBytes disagree")
	}
	n := uint64(0)
	for seq, e := range numbered(d.All(), panicOn) {
		e2, err := db.Event(seq)
		if err != nil || e2.TotalLength != e.TotalLength || !bytes.Equal(e2.Payload, e.Payload) || int(e.TotalLength) != DetailEventHeaderSize+len(e.Payload) {
			panic("detail event disagrees")
		}
		n++
	}
	if n != d.Len() {
		panic("detail iteration stopped early")
	}
	// The in-memory iterator (views, the look-ahead) gives the same records.
	it := db.Events()
	n = 0
	for it.Next() {
		e := it.Event()
		e2, err := d.Event(n)
		if err != nil || it.Seq() != n || e.TotalLength != e2.TotalLength || e.Timestamp != e2.Timestamp || !bytes.Equal(e.Payload, e2.Payload) {
			panic("in-memory detail iteration disagrees")
		}
		n++
	}
	if n != db.Len() || it.Err() != nil {
		panic("in-memory detail iteration stopped early")
	}
	// The field getters, through the io.ReaderAt and in memory: what Event
	// gives, before the first Next, at every record and after the end.
	for _, f := range []*DetailFile{d, db} {
		it := f.Events()
		for {
			if !sameDetail(detailFields(it), it.Event()) {
				panic("the detail getters disagree with Event")
			}
			if !it.Next() {
				break
			}
		}
		if !sameDetail(detailFields(it), it.Event()) {
			panic("the detail getters disagree with Event after the end")
		}
	}
	d.VerifyChecksum()
	d.TimeRange()
	if _, noFooter := hasProblem(d.Problems(), ProblemNoFooter); noFooter != d.Recovered() {
		panic(fmt.Sprintf("recovered %v, problems %v", d.Recovered(), d.Problems()))
	}
	// A thread of this detail file and an empty index walks every link.
	if _, err := NewThread(0, cutIndex(0), d).Check(); err != nil {
		panic(err)
	}
	return nil
}

func decodeManifest(data []byte) error {
	m, err := ParseManifest(data, fuzzLimits)
	if err != nil {
		return err
	}
	back, err := ParseManifest(m.AppendJSON(nil))
	if err != nil {
		panic("manifest does not round-trip: " + err.Error())
	}
	if len(back.Threads) != len(m.Threads) || len(back.Symbols) != len(m.Symbols) || len(back.Modules) != len(m.Modules) {
		panic("manifest round trip changed its tables")
	}
	return nil
}

func vectorFiles(t testing.TB) []string {
	dir := vectortest.Dir(t, "atf")
	var files []string
	filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && de.Type().IsRegular() && (strings.HasSuffix(p, ".atf") || filepath.Base(p) == "manifest.json") {
			files = append(files, p)
		}
		return nil
	})
	return files
}

func decoderFor(path string, data []byte) fuzz.Decoder {
	switch {
	case strings.HasSuffix(path, ".json"):
		return decodeManifest
	case strings.HasPrefix(filepath.Base(path), "det") || bytes.HasPrefix(data, []byte(DetailMagic)):
		return decodeDetail
	}
	return decodeIndex
}

// TestSweepVectors truncates and corrupts every vector file.
func TestSweepVectors(t *testing.T) {
	files := vectorFiles(t)
	if len(files) < 15 {
		t.Fatalf("only %d vector files", len(files))
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), func(t *testing.T) {
			fuzz.Check(t, data, decoderFor(p, data)) // the intact file, stream included
			fuzz.Sweep(t, data, decoderFor(p, data), fuzz.Options{MaxCases: 512, RandomEdits: 32})
		})
	}
}

func seedFuzz(f *testing.F, keep func(p string, data []byte) bool) {
	root, err := vectortest.Root()
	if err != nil {
		fuzz.NeedSeeds(f, 0, err.Error())
		return
	}
	fuzz.SeedDir(f, filepath.Join(root, "atf"), func(p string) bool {
		b, err := os.ReadFile(p)
		return err == nil && keep(p, b)
	})
}

func FuzzIndexReader(f *testing.F) {
	seedFuzz(f, func(p string, b []byte) bool {
		return strings.HasSuffix(p, ".atf") && !bytes.HasPrefix(b, []byte(DetailMagic))
	})
	idx, _ := writeThread(f, 20, 1, func(i int) uint64 { return uint64(i) })
	f.Add(idx.b)
	f.Fuzz(func(t *testing.T, data []byte) { fuzz.Check(t, data, decodeIndex) })
}

func FuzzDetailReader(f *testing.F) {
	seedFuzz(f, func(p string, b []byte) bool {
		return bytes.HasPrefix(b, []byte(DetailMagic)) || strings.HasPrefix(filepath.Base(p), "det")
	})
	_, det := writeThread(f, 20, 1, func(i int) uint64 { return uint64(i) })
	f.Add(det.b)
	_, det = writeThread(f, 3*(detailAhead+30), 1, func(i int) uint64 { return uint64(i) }) // past the look-ahead
	f.Add(det.b)
	f.Fuzz(func(t *testing.T, data []byte) { fuzz.Check(t, data, decodeDetail) })
}

func FuzzManifest(f *testing.F) {
	seedFuzz(f, func(p string, _ []byte) bool { return filepath.Base(p) == "manifest.json" })
	f.Add([]byte(`{"threads":[{"id":1}]}`))
	f.Add([]byte(`{"threads":[],"symbols":[{"function_id":12}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzz.Check(t, data, decodeManifest) })
}
