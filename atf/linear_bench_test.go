package atf

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/internal/lincost"
)

// linearEvents is the base size of the linearity inputs, in events.
const linearEvents = 20000

// denseThread writes n events, every one with a 1-byte payload when
// payloads is set (the most detail records per byte), else index-only.
func denseThread(tb testing.TB, n int, payloads bool) (index, detail *memFile) {
	index, detail = &memFile{}, &memFile{}
	tw, err := NewThreadWriter(index, func() (ioWS, error) { return detail, nil }, 1)
	if err != nil {
		tb.Fatal(err)
	}
	p := []byte{7}
	for i := range n {
		var pl []byte
		if payloads {
			pl = p
		}
		if _, err := tw.Write(uint64(1000+i), FunctionID(7, uint32(i%5+1)), EventKind(i%3+1), uint32(i%9), pl); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	return index, detail
}

func linIndex(in []byte) (int, error) {
	r, err := OpenIndexBytes(in)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, err := range r.All() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func linIndexStream(in []byte) (int, error) {
	r, err := NewIndexReader(bytes.NewReader(in))
	if err != nil {
		return 0, err
	}
	n := 0
	for r.Next() {
		n++
	}
	return n, r.Err()
}

func linDetail(in []byte) (int, error) {
	d, err := OpenDetailBytes(in)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, err := range d.All() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// linearManifest is a manifest listing 200×scale threads (16× stays under
// the 4096-thread limit) and 1000×scale symbols (its JSON is the whole
// input).
func linearManifest(scale int) []byte {
	m := Manifest{ClockType: ClockMachContinuous, TimeStartNs: 1, TimeEndNs: 2}
	for i := range 200 * scale {
		m.Threads = append(m.Threads, ManifestThread{ID: uint32(i), HasDetail: i%2 == 0})
	}
	m.Modules = []Module{{ModuleID: 1, Path: "/bin/app", HasInfo: true, BaseAddress: 0x1000, Size: 0x100000, UUID: "u"}}
	for i := range 1000 * scale {
		m.Symbols = append(m.Symbols, Symbol{FunctionID: FunctionID(1, uint32(i)), ModuleID: 1, SymbolIndex: uint32(i), Name: fmt.Sprintf("f%d", i)})
	}
	return m.AppendJSON(nil)
}

func linManifest(in []byte) (int, error) {
	m, err := ParseManifest(in)
	if err != nil {
		return 0, err
	}
	return len(m.Threads) + len(m.Symbols), nil
}

// linearSession records a session of 8×scale threads of 2500 events each
// (every third with a payload) under a temporary folder.
func linearSession(tb testing.TB, root string, scale int) (string, int64) {
	dir := filepath.Join(root, fmt.Sprintf("s%d", scale))
	sw, err := CreateSessionDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	payload := make([]byte, 16)
	for k := range 8 * scale {
		tw, err := sw.Thread(uint32(k))
		if err != nil {
			tb.Fatal(err)
		}
		for i := range linearEvents / 8 {
			var p []byte
			if i%3 == 0 {
				p = payload
			}
			if _, err := tw.Write(uint64(1000+i*8+k), FunctionID(3, uint32(i%11)), EventKind(i%3+1), 1, p); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := sw.Close(); err != nil {
		tb.Fatal(err)
	}
	var size int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
		return nil
	})
	return dir, size
}

// linSession opens the session and merges every thread's events.
func linSession(dir string) (int, error) {
	s, err := OpenSession(dir)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	n := 0
	for _, err := range s.All() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func linearCases() []lincost.Case {
	index := func(tb testing.TB, s int) []byte { i, _ := denseThread(tb, linearEvents*s, false); return i.b }
	// A file without footer (a crashed writer) is read by the recovery scan.
	crashed := func(tb testing.TB, s int) []byte {
		b := index(tb, s)
		return b[:len(b)-FooterSize]
	}
	detail := func(tb testing.TB, s int) []byte { _, d := denseThread(tb, linearEvents*s, true); return d.b }
	return []lincost.Case{
		{Name: "index", Gen: index, Decode: linIndex},
		{Name: "index-stream", Gen: index, Decode: linIndexStream},
		{Name: "index-recovered", Gen: crashed, Decode: linIndex},
		{Name: "detail", Gen: detail, Decode: linDetail},
		{Name: "manifest", Gen: func(_ testing.TB, s int) []byte { return linearManifest(s) }, Decode: linManifest},
	}
}

// BenchmarkLinear decodes each file kind's worst-case shape at 1×, 4× and
// 16× the base size (see lincost): the cpu-ns/B column is the constant of
// the package doc's time budget, and must not grow with the size.
func BenchmarkLinear(b *testing.B) {
	lincost.BenchCases(b, linearCases())
	b.Run("session", func(b *testing.B) {
		root := b.TempDir()
		lincost.BenchPath(b, func(s int) (string, int64) { return linearSession(b, root, s) }, linSession)
	})
}

// TestLinearAllocs: allocation per input byte does not grow with the input.
func TestLinearAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("decodes tens of megabytes")
	}
	lincost.CheckAllocsCases(t, linearCases())
}
