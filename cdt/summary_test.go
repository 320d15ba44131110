package cdt

import (
	"errors"
	"testing"
)

func TestRecoverySummary(t *testing.T) {
	data, full := recoveryTrace(t)
	b := full.Footer().Blocks[3]
	cut := b.FileOffset + ChunkHeaderSize + 3
	f, err := OpenBytes(data[:cut], WithRecovery())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Recovery().Summary()
	if s.Format != "cdt" || s.Unit != "ticks" || s.Read != 21 || s.ReadBytes != b.FileOffset ||
		s.LostBytes != cut-b.FileOffset || s.Lost != 7 || s.StopOffset != b.FileOffset ||
		!errors.Is(s.Reason, ErrTruncated) || len(s.Notes) != 1 || s.Clean() || !s.Lossy() {
		t.Fatalf("summary %+v", s)
	}
	// A writer killed between chunks: nothing lost, still not clean.
	k := full.Footer().Blocks[4].FileOffset
	f2, err := OpenBytes(data[:k], WithRecovery())
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	s = f2.Recovery().Summary()
	if s.Read != 28 || s.ReadBytes != k || s.Lossy() || s.StopOffset != -1 || !errors.Is(s.Reason, ErrTrailer) || s.Clean() {
		t.Fatalf("summary %+v", s)
	}
}
