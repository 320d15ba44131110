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
