package ctf

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countEvents reads every event of trace tr through its Reader.
func countEvents(t *testing.T, tr *Trace) int {
	t.Helper()
	r := tr.NewReader()
	n := 0
	for r.Next() {
		n++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// A damaged LTTng index (a sidecar) leaves its trace readable, as
// babeltrace2 2.1 reads it (it warns and indexes the stream itself): OpenDir
// used to fail on it, and with it every command on the trace.
func TestOpenDirDamagedIndex(t *testing.T) {
	for name, damage := range map[string]func(string) error{
		"cut":       func(p string) error { return os.Truncate(p, 20) },
		"bad magic": func(p string) error { return os.WriteFile(p, make([]byte, 88), 0o644) },
		"a folder": func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o755)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			genTrace(t, dir, 3000, 3, 10, 4096)
			idx := filepath.Join(dir, "index", "channel0_1.idx")
			if err := damage(idx); err != nil {
				t.Fatal(err)
			}
			tr, err := OpenDir(dir)
			if err != nil {
				t.Fatalf("OpenDir: %v", err)
			}
			if n := countEvents(t, tr); n != 3000 {
				t.Errorf("%d events, want 3000", n)
			}
			s := tr.Streams[1]
			if s.Index != nil {
				t.Errorf("damaged index kept: %d entries", len(s.Index))
			}
			if err := s.CheckIndex(); err != nil {
				t.Errorf("CheckIndex without an index: %v", err)
			}
			notes := s.Recovery().Notes
			if len(notes) != 1 || !strings.Contains(notes[0], "index/channel0_1.idx cannot be used") {
				t.Errorf("notes %q, want one naming index/channel0_1.idx", notes)
			}
			rec := tr.Recovery()
			if rec == nil || len(rec.Notes) != 1 || !strings.HasPrefix(rec.Notes[0], "channel0_1: index/channel0_1.idx") {
				t.Errorf("trace recovery %+v", rec)
			}
			for _, o := range []*Stream{tr.Streams[0], tr.Streams[2]} {
				if o.Index == nil || len(o.Recovery().Notes) != 0 {
					t.Errorf("%s: index %d entries, notes %q", o.Name, len(o.Index), o.Recovery().Notes)
				}
			}
		})
	}
}

// Every stream's index of one older layout (LTTng 2.3's "CTFIDX" files in
// Trace Compass's exp traces): the trace's recovery says it once for all
// streams (it said it per stream, four 200-byte notes per trace), each
// stream's own recovery still names its file.
func TestOpenDirIndexNotesGrouped(t *testing.T) {
	dir := t.TempDir()
	genTrace(t, dir, 3000, 3, 10, 4096)
	for _, n := range []string{"channel0_0", "channel0_1", "channel0_2"} {
		if err := os.WriteFile(filepath.Join(dir, "index", n+".idx"), []byte("CTFIDX\x00\x00\x00\x01"+strings.Repeat("\x00", 60)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := countEvents(t, tr); n != 3000 {
		t.Errorf("%d events, want 3000", n)
	}
	if notes := tr.Streams[2].Recovery().Notes; len(notes) != 1 || !strings.HasPrefix(notes[0], "index/channel0_2.idx cannot be used (") {
		t.Errorf("stream notes %q", notes)
	}
	rec := tr.Recovery()
	if rec == nil || len(rec.Notes) != 1 || !strings.HasPrefix(rec.Notes[0], "channel0_0, channel0_1, channel0_2: index/*.idx cannot be used (ctf: offset 0: index: magic 0x43544649, expecting 0xc1f1dcc1)") {
		t.Errorf("trace recovery %+v", rec)
	}
}

// CheckIndex says which index file, which entry and what differs, at the
// entry's offset in the index file.
func TestCheckIndexNamesWhatDiffers(t *testing.T) {
	dir := t.TempDir()
	genTrace(t, dir, 3000, 1, 10, 4096)
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Streams[0]
	if len(s.Index) < 3 {
		t.Fatalf("%d index entries", len(s.Index))
	}
	full := s.Index
	check := func(ix []IndexEntry, off int64, want string) {
		t.Helper()
		s.Index = ix
		err := s.CheckIndex()
		var fe *FormatError
		if !errors.Is(err, ErrIndex) || !errors.As(err, &fe) {
			t.Fatalf("CheckIndex: %v, want ErrIndex", err)
		}
		if fe.Offset != off || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckIndex: %v, want offset %d and %q", err, off, want)
		}
	}
	bad := append([]IndexEntry(nil), full...)
	bad[2].ContentBits -= 8
	check(bad, 16+2*72, "index/channel0_0.idx entry 2 says content size (bits) ")
	bad = append([]IndexEntry(nil), full...)
	bad[1].End++
	check(bad, 16+72, "entry 1 says timestamp_end ")
	check(full[:2], 16+2*72, "index/channel0_0.idx lists 2 packets, channel0_0 holds ")
	extra := append(append([]IndexEntry(nil), full...), IndexEntry{Offset: full[len(full)-1].Offset + 4096, TotalBits: 4096 * 8, HasStreamSeqNum: true})
	check(extra, int64(16+len(full)*72), "has no packet in the data stream file")
	s.Index = full
	if err := s.CheckIndex(); err != nil {
		t.Fatal(err)
	}
}

// A data stream file cut at a packet boundary reads as complete; its index
// lists the packets it lost, and Trace.Recovery counts their bytes lost
// (events unknown) with a note naming the index file.
func TestRecoveryPacketsPastEnd(t *testing.T) {
	dir := t.TempDir()
	genTrace(t, dir, 3000, 2, 10, 4096)
	p := filepath.Join(dir, "channel0_1")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 3*4096 {
		t.Fatalf("%d bytes", fi.Size())
	}
	if err := os.Truncate(p, fi.Size()-2*4096); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := countEvents(t, tr)
	rec := tr.Recovery()
	if rec == nil || rec.LostBytes != 2*4096 || rec.Lost != -1 || rec.Read != int64(n) || len(rec.Notes) != 1 ||
		!strings.HasPrefix(rec.Notes[0], "channel0_1: index/channel0_1.idx lists 2 packets past the end of the file") {
		t.Fatalf("recovery %+v", rec)
	}
	if err := tr.Streams[1].CheckIndex(); !errors.Is(err, ErrIndex) {
		t.Errorf("CheckIndex: %v", err)
	}
	// the intact stream and an intact trace: nothing noted
	if tr.Streams[0].indexPast != 0 {
		t.Errorf("channel0_0: %d packets past the end", tr.Streams[0].indexPast)
	}
	dir2 := t.TempDir()
	genTrace(t, dir2, 3000, 2, 10, 4096)
	tr2, err := OpenDir(dir2)
	if err != nil {
		t.Fatal(err)
	}
	countEvents(t, tr2)
	if rec := tr2.Recovery(); rec != nil {
		t.Errorf("intact trace: %+v", rec)
	}
}

// A data stream file that is a symbolic link to a regular file is read, as
// babeltrace2 2.1 reads it: OpenDir left it out without a word (validate
// said "ok, 0 event records" of a trace babeltrace2 prints 80 events of).
// Links that lead to no regular file are skipped and listed in Skipped.
func TestOpenDirSymlinkedStream(t *testing.T) {
	dir := t.TempDir()
	genTrace(t, dir, 3000, 2, 10, 4096)
	elsewhere := filepath.Join(t.TempDir(), "channel0_1")
	if err := os.Rename(filepath.Join(dir, "channel0_1"), elsewhere); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"channel0_1": elsewhere, "dangling": filepath.Join(dir, "nothing"), "folder": t.TempDir()} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	names, skipped, err := DataStreamFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, ",") != "channel0_0,channel0_1" || strings.Join(skipped, ",") != "dangling,folder" {
		t.Errorf("streams %q, skipped %q", names, skipped)
	}
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := countEvents(t, tr); n != 3000 {
		t.Errorf("%d events, want 3000", n)
	}
	if strings.Join(tr.Skipped, ",") != "dangling,folder" {
		t.Errorf("Skipped %q", tr.Skipped)
	}
}

// An index whose entries claim packets of 2^61 bytes past the end of every
// file: the lost bytes saturate instead of wrapping negative (the six
// streams' notes, the same, are one).
func TestRecoveryPacketsPastEndSaturates(t *testing.T) {
	dir := t.TempDir()
	genTrace(t, dir, 600, 6, 10, 4096) // 6 × 2^61 bytes > 2^63
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tr.Streams {
		s.Index = append(s.Index, IndexEntry{Offset: 1 << 40, TotalBits: 1<<64 - 8, HasStreamSeqNum: true})
		s.notePacketsPastEnd()
	}
	countEvents(t, tr)
	if rec := tr.Recovery(); rec == nil || rec.LostBytes != math.MaxInt64 || len(rec.Notes) != 1 ||
		!strings.HasPrefix(rec.Notes[0], "channel0_0, channel0_1, channel0_2 and 3 more: index/*.idx lists 1 packets past the end") {
		t.Fatalf("recovery %+v", rec)
	}
}
