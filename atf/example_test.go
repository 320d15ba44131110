package atf_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/tracecodec/tracecodec/atf"
)

// Record two threads of a session, then read them back merged across threads.
func Example() {
	root, _ := os.MkdirTemp("", "atf-example-")
	defer os.RemoveAll(root)

	sw, err := atf.CreateSession(root, 42, time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC))
	if err != nil {
		log.Fatal(err)
	}
	mod := atf.ModuleID("/bin/app")
	t0, _ := sw.Thread(0)
	t1, _ := sw.Thread(1)
	t0.Write(100, atf.FunctionID(mod, 1), atf.KindCall, 1, nil)
	t1.Write(150, atf.FunctionID(mod, 2), atf.KindCall, 1, []byte("args")) // with a detail payload
	t0.Write(200, atf.FunctionID(mod, 1), atf.KindReturn, 1, nil)
	t1.Write(250, atf.FunctionID(mod, 2), atf.KindReturn, 1, nil)
	if err := sw.Close(); err != nil { // finalizes every file, writes manifest.json
		log.Fatal(err)
	}

	s, err := atf.OpenSession(sw.Dir())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	fmt.Println(s.EventCount(), "events,", s.DetailCount(), "detail event")
	for e, err := range s.All() { // merged across threads by timestamp
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Timestamp, "thread", s.Threads[e.Thread].ID, e.Kind, e.HasDetail())
	}
	problems, err := s.Check() // what a crash lost, lies, dangling links: none here
	fmt.Println(len(problems), "problems", err)
	// Output:
	// 4 events, 1 detail event
	// 100 thread 0 CALL false
	// 150 thread 1 CALL true
	// 200 thread 0 RETURN false
	// 250 thread 1 RETURN false
	// 0 problems <nil>
}

// Follow an index event's forward link to its detail event and back.
func ExampleThread_DetailFor() {
	dir, _ := os.MkdirTemp("", "atf-thread-")
	defer os.RemoveAll(dir)
	tw, _ := atf.CreateThread(filepath.Join(dir, "thread_3"), 3)
	tw.Write(10, 7, atf.KindCall, 1, nil)
	tw.WriteFunction(20, atf.KindCall, 2, &atf.DetailFunctionPayload{FunctionID: 8, XRegs: [8]uint64{0xbeef}}, []byte{1, 2})
	tw.Close()

	th, err := atf.OpenThread(filepath.Join(dir, "thread_3"))
	if err != nil {
		log.Fatal(err)
	}
	defer th.Close()
	e, _ := th.Index.Event(1)
	d, ok, _ := th.DetailFor(e, nil)
	p, stack, _ := atf.DecodeDetailFunctionPayload(d.Payload)
	back, _ := th.IndexFor(d)
	fmt.Println(ok, d.Type, d.IndexSeq, fmt.Sprintf("%#x", p.XRegs[0]), stack, back == e)
	// Output: true FUNCTION_CALL 1 0xbeef [1 2] true
}

// A crashed writer leaves no footer: the reader recovers the complete events
// and reports the torn tail.
func ExampleOpenIndexBytes_recovery() {
	var buf seekBuffer
	w, _ := atf.NewIndexWriter(&buf, 0)
	for ts := uint64(1); ts <= 3; ts++ {
		w.Append(atf.IndexEvent{Timestamp: ts, Kind: atf.KindCall, DetailSeq: atf.NoDetail})
	}
	w.Flush()                    // no Close: as if the process were killed here
	torn := buf.b[:len(buf.b)-5] // and the last event only half written

	r, err := atf.OpenIndexBytes(torn)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Len(), r.Recovered(), r.Discarded())
	// Output: 2 true 27
}

// Time-range queries binary-search sorted files: from inclusive, to
// exclusive.
func ExampleIndexFile_Range() {
	var buf seekBuffer
	w, _ := atf.NewIndexWriter(&buf, 0)
	for ts := uint64(0); ts < 100; ts += 10 {
		w.Append(atf.IndexEvent{Timestamp: ts, DetailSeq: atf.NoDetail})
	}
	w.Close()
	r, _ := atf.OpenIndex(bytes.NewReader(buf.b), int64(len(buf.b)))
	var ts []uint64
	for e, err := range r.Range(25, 60) {
		if err != nil {
			panic(err)
		}
		ts = append(ts, e.Timestamp)
	}
	fmt.Println(ts)
	for it := r.Iter(25, 60); it.Next(); { // the pull form, with sequence numbers
		fmt.Printf("%d:%d ", it.Seq(), it.Event().Timestamp)
	}
	fmt.Println("end")
	// Output:
	// [30 40 50]
	// 3:30 4:40 5:50 end
}

// All is the range-over-func form: a read error arrives as the last pair.
func ExampleIndexFile_All() {
	var buf seekBuffer
	w, _ := atf.NewIndexWriter(&buf, 0)
	for ts := uint64(1); ts <= 3; ts++ {
		w.Append(atf.IndexEvent{Timestamp: ts * 100, Kind: atf.KindCall, DetailSeq: atf.NoDetail})
	}
	w.Close()
	r, _ := atf.OpenIndexBytes(buf.b)
	for e, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(e.Timestamp, " ")
	}
	fmt.Println()
	// Output: 100 200 300
}

// NewIndexReader reads an index file front to back from any io.Reader (a
// pipe, a socket, a file being copied).
func ExampleNewIndexReader() {
	var buf seekBuffer
	w, _ := atf.NewIndexWriter(&buf, 0)
	for ts := uint64(1); ts <= 3; ts++ {
		w.Append(atf.IndexEvent{Timestamp: ts * 100, Kind: atf.KindCall, DetailSeq: atf.NoDetail})
	}
	w.Close()
	r, err := atf.NewIndexReader(bytes.NewReader(buf.b))
	if err != nil {
		log.Fatal(err)
	}
	for r.Next() {
		fmt.Printf("%d:%d ", r.Seq(), r.Event().Timestamp)
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	_, finalized := r.Footer()
	fmt.Println("footer:", finalized)
	// Output: 0:100 1:200 2:300 footer: true
}

// seekBuffer is a minimal in-memory io.WriteSeeker.
type seekBuffer struct {
	b   []byte
	pos int
}

func (s *seekBuffer) Write(p []byte) (int, error) {
	if need := s.pos + len(p); need > len(s.b) {
		s.b = append(s.b, make([]byte, need-len(s.b))...)
	}
	copy(s.b[s.pos:], p)
	s.pos += len(p)
	return len(p), nil
}

func (s *seekBuffer) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case 1:
		off += int64(s.pos)
	case 2:
		off += int64(len(s.b))
	}
	s.pos = int(off)
	return off, nil
}
