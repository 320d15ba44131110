package atf

import (
	"bytes"
	"errors"
	"testing"
)

func TestSummarize(t *testing.T) {
	good := finalizedIndex(t, 40)
	f, err := OpenIndexBytes(good)
	if err != nil {
		t.Fatal(err)
	}
	if s := Summarize(f.Problems(), f.Len(), int64(len(good))); !s.Clean() || s.Read != 40 || s.Reason != nil {
		t.Fatalf("clean file: %+v", s)
	}
	// A writer killed mid-event: the index without footer, 13 bytes of a
	// torn event at its end.
	end := HeaderSize + 20*IndexEventSize
	torn := bytes.Clone(good[:end+13])
	f, err = OpenIndexBytes(torn)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(f.Problems(), f.Len(), int64(end))
	if s.Format != "atf" || s.Unit != "events" || s.Read != 20 || s.LostBytes != 13 || s.Lost != -1 ||
		s.StopOffset != int64(end) || !errors.Is(s.Reason, ErrTruncated) || s.Clean() || !s.Lossy() {
		t.Fatalf("torn file: %+v (%s)", s, &s)
	}
	// Counted losses: dangling links count as lost detail records.
	s = Summarize([]Problem{{Kind: ProblemDanglingLink, Offset: 100, Events: 7, Msg: "x"}, {Kind: ProblemDiscarded, Offset: 64, Bytes: 5, Msg: "y", Corrupt: true}}, 3, 64)
	if s.Lost != 7 || s.LostBytes != 5 || s.StopOffset != 64 || !errors.Is(s.Reason, ErrCorrupt) || len(s.Notes) != 1 {
		t.Fatalf("counted: %+v", s)
	}
}

// TestThreadReadBytes: a thread's bytes read are its files' sizes less what
// was dropped — all of a clean pair, the torn event's bytes left out of a
// cut index.
func TestThreadReadBytes(t *testing.T) {
	idx, det := writeThread(t, 40, 7, func(i int) uint64 { return uint64(1000 + i) })
	d, err := OpenDetailBytes(det.b)
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenIndexBytes(idx.b)
	if err != nil {
		t.Fatal(err)
	}
	if n := NewThread(7, f, d).ReadBytes(); n != int64(len(idx.b)+len(det.b)) {
		t.Errorf("clean thread: %d bytes read, want %d", n, len(idx.b)+len(det.b))
	}
	end := HeaderSize + 20*IndexEventSize
	f, err = OpenIndexBytes(bytes.Clone(idx.b[:end+13]))
	if err != nil {
		t.Fatal(err)
	}
	if n := NewThread(7, f, nil).ReadBytes(); n != int64(end) {
		t.Errorf("cut index, no detail: %d bytes read, want %d", n, end)
	}
}
