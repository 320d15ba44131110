package ctf

import (
	"encoding/binary"
	"errors"
	"io"
	"sort"
	"testing"
)

// countingReader counts the bytes read and can fail from an offset on.
type countingReader struct {
	b      []byte
	read   int64
	failAt int64 // ReadAt of a range reaching it fails (0: never)
}

var errDisk = errors.New("disk on fire")

func (r *countingReader) ReadAt(p []byte, off int64) (int, error) {
	if r.failAt > 0 && off+int64(len(p)) > r.failAt {
		return 0, errDisk
	}
	if off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	r.read += int64(n)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// A stream read through an io.ReaderAt holds one buffer as large as its
// largest packet (at least 64 KiB, at most the stream), reads every byte
// at most once, and decodes the same events as the stream held in memory.
func TestReaderBufferBounded(t *testing.T) {
	for _, pkt := range []int{4096, 128 << 10} {
		data, idx := genStreamBytes(1, 40000, 40, pkt)
		tr := traceFromTSDL(t, genMetadata(40))
		mem := tr.AddStream("mem", data)
		r := &countingReader{b: data}
		s := tr.AddStreamReader("rd", r, int64(len(data)))
		var err error
		if s.Index, err = ParseIndex(idx); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckIndex(); err != nil {
			t.Fatal(err)
		}
		if r.read > int64(len(s.Index))*headerWindow {
			t.Errorf("packet %d: CheckIndex read %d bytes for %d packets", pkt, r.read, len(s.Index))
		}
		r.read = 0
		maxBuf, n := 0, 0
		for s.Next() {
			if !mem.Next() {
				t.Fatalf("memory stream ends at %d: %v", n, mem.Err())
			}
			a, b := s.Event(), mem.Event()
			if a.Cycles != b.Cycles || a.Class != b.Class || a.Offset != b.Offset || len(a.Fields) != len(b.Fields) {
				t.Fatalf("event %d differs", n)
			}
			maxBuf = max(maxBuf, cap(s.buf))
			n++
		}
		if s.Err() != nil || mem.Next() || n != 40000 {
			t.Fatalf("packet %d: %d events, %v", pkt, n, s.Err())
		}
		if limit := max(pkt, minBuffer); maxBuf > limit || len(data) < 4*limit {
			t.Errorf("packet %d: buffer of %d bytes for a stream of %d", pkt, maxBuf, len(data))
		}
		if r.read > int64(len(data)) || r.read < int64(len(data)-pkt) { // the last packet's padding may stay unread
			t.Errorf("packet %d: read %d bytes of %d", pkt, r.read, len(data))
		}
		if s.buf != nil {
			t.Errorf("buffer kept after the end of the stream")
		}
	}
}

// setInstanceID sets the stream_instance_id of every packet of a ctfgen
// stream of packets of pktSize bytes.
func setInstanceID(data []byte, pktSize int, id uint64) {
	for off := 0; off+32 <= len(data); off += pktSize {
		binary.LittleEndian.PutUint64(data[off+24:], id)
	}
}

// A failing reader stops the stream with a FormatError naming the error.
func TestReaderError(t *testing.T) {
	data, _ := genStreamBytes(0, 20000, 40, 4096)
	tr := traceFromTSDL(t, genMetadata(40))
	s := tr.AddStreamReader("rd", &countingReader{b: data, failAt: int64(len(data) / 2)}, int64(len(data)))
	n := 0
	for s.Next() {
		n++
	}
	var fe *FormatError
	if err := s.Err(); !errors.As(err, &fe) || !errors.Is(err, ErrTruncated) || fe.Offset <= 0 || n == 0 || n >= 20000 {
		t.Fatalf("%d events, error %v", n, err)
	}
	if s.Next() || s.Scan() {
		t.Fatal("the error is not sticky")
	}
}

// Many streams merged: events in (time, stream order) order, the same with
// Next and with Scan, no allocation per event.
func TestMergeManyStreams(t *testing.T) {
	tr := traceFromTSDL(t, genMetadata(40))
	type ev struct {
		ns  int64
		ord int
		cyc uint64
		cls uint64
	}
	var want []ev
	for c := 0; c < 9; c++ {
		data, _ := genStreamBytes(c%3, 3000+c*100, 40, 8192) // streams 0, 3, 6 share their first times
		// and their CPU: their own stream_instance_id keeps them apart
		// (with the same one they would be one data stream, whose equal
		// packets babeltrace2 reads once)
		setInstanceID(data, 8192, uint64(c))
		s := tr.AddStream("s"+itoa(c), data)
		for s.Next() {
			want = append(want, ev{s.Event().NS(), c, s.Event().Cycles, s.Event().Class.ID})
		}
	}
	sort.SliceStable(want, func(i, j int) bool {
		return want[i].ns < want[j].ns || want[i].ns == want[j].ns && want[i].ord < want[j].ord
	})
	order := map[*Stream]int{}
	for i, s := range tr.Streams {
		order[s] = i
	}
	for _, scan := range []bool{false, true} {
		r := tr.NewReader()
		if scan {
			r = tr.NewScanner()
		}
		i := 0
		for r.Next() {
			e := r.Event()
			if got := (ev{e.NS(), order[e.Stream], e.Cycles, e.Class.ID}); i >= len(want) || got != want[i] {
				t.Fatalf("scan %v: event %d is %+v, want %+v", scan, i, got, want[min(i, len(want)-1)])
			}
			i++
		}
		if r.Err() != nil || i != len(want) {
			t.Fatalf("scan %v: %d events of %d, %v", scan, i, len(want), r.Err())
		}
	}
	r := tr.NewScanner()
	for i := 0; i < 1000; i++ {
		r.Next()
	}
	if a := testing.AllocsPerRun(5000, func() {
		if !r.Next() {
			t.Fatal(r.Err())
		}
	}); a != 0 {
		t.Errorf("Reader.Next (Scan): %v allocations per event", a)
	}
}

// OpenDir reads its files through lazily opened handles that the streams
// close at their end and Trace.Close closes otherwise.
func TestOpenDirFiles(t *testing.T) {
	dir := t.TempDir()
	genTrace(t, dir, 30000, 3, 40, 16384)
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	open := func() int {
		n := 0
		for _, s := range tr.Streams {
			if s.src.(*lazyFile).f != nil {
				n++
			}
		}
		return n
	}
	s := tr.Streams[0]
	for i := 0; i < 100 && s.Next(); i++ {
	}
	if open() != 1 {
		t.Fatalf("%d files open", open())
	}
	for s.Next() {
	}
	if s.Err() != nil || open() != 0 {
		t.Fatalf("%d files open at the end of the stream (%v)", open(), s.Err())
	}
	tr.Streams[1].Next()
	if err := tr.Close(); err != nil || open() != 0 {
		t.Fatalf("Close: %v, %d files open", err, open())
	}
}
