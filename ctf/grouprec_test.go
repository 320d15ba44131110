package ctf

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// TestGroupRecoveryExact: the files of a data stream read as one count
// each of the group's packets once: two overlapping parts of a stream in
// one trace folder (its packets [0, n-1) and [1, n), the n-2 packets both
// hold read once) and the same stream split in two (no overlap) read, by
// a Reader and by ByStream, n packets (PacketsRead) of n·1024 bytes
// (Recovery.ReadBytes) in all, every event record once. (Each file
// counted up to the end of the last packet read from it: 2n-2 packets.)
func TestGroupRecoveryExact(t *testing.T) {
	const pkt = 1024
	src := filepath.Join(t.TempDir(), "src")
	if err := ctfgen.Write(src, 500, 1, 4, pkt); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(src, "channel0_0"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(data) / pkt
	if n < 4 {
		t.Fatalf("%d packets: too few", n)
	}
	whole := openDirT(t, src)
	events := 0
	for r := whole.NewScanner(); r.Next(); {
		events++
	}
	for name, parts := range map[string][2][]byte{
		"overlapping": {data[:(n-1)*pkt], data[pkt:]},
		"split":       {data[:2*pkt], data[2*pkt:]},
	} {
		dir := filepath.Join(t.TempDir(), "trace")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		meta, err := os.ReadFile(filepath.Join(src, "metadata"))
		if err != nil {
			t.Fatal(err)
		}
		for f, b := range map[string][]byte{"metadata": meta, "channel0_0": parts[0], "channel0_0_1": parts[1]} {
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, byStream := range []bool{false, true} {
			tr := openDirT(t, dir)
			r := tr.NewReader()
			if byStream {
				r.ByStream()
			}
			got := 0
			for r.Next() {
				got++
			}
			var packets int
			var bytes, read int64
			for _, s := range tr.Streams {
				packets += s.PacketsRead()
				bytes += s.Recovery().ReadBytes
				read += s.Recovery().Read
			}
			if r.Err() != nil || got != events || read != int64(events) || packets != n || bytes != int64(n*pkt) || tr.Recovery() != nil {
				t.Errorf("%s (by stream %v): %v, %d events (want %d, Recovery %d), %d packets of %d bytes (want %d of %d), recovery %v",
					name, byStream, r.Err(), got, events, read, packets, bytes, n, n*pkt, tr.Recovery())
			}
		}
	}
}

// TestGroupLossFrom: a gap across the two files of a data stream (the
// discarded counter's growth from the first file's last packet to the
// second's first) names the file of the packet before it (Loss.From); a
// gap inside a file names none.
func TestGroupLossFrom(t *testing.T) {
	dir := splitTrace(t, 300, 1, 6, 3, func(i int, b []byte) {
		binary.LittleEndian.PutUint64(b[ctfgen.OffDiscarded:], uint64(min(i, 3))) // a gap before packets 1, 2 and 3
	})
	for _, byStream := range []bool{false, true} {
		tr := openDirT(t, dir)
		r := tr.NewScanner()
		if byStream {
			r.ByStream()
		}
		for r.Next() {
		}
		a, b := tr.Streams[0], tr.Streams[1]
		la, lb := a.Losses(), b.Losses()
		if r.Err() != nil || len(la) != 2 || la[0].From != nil || la[1].From != nil || len(lb) != 1 || lb[0].From != a || lb[0].Packet != 0 || lb[0].Events != 1 {
			t.Errorf("by stream %v: %v; losses %+v, %+v", byStream, r.Err(), la, lb)
		}
	}
}

// TestReaderCount: Count reads what a Next loop reads — the same number
// of event records, the same error, the same gaps — merged or ByStream,
// for a Reader and a Scanner, on a trace of a stream alone beside a
// stream split in two files (a group) with gaps across them, and with a
// damaged event record in the stream alone (an error stops both).
func TestReaderCount(t *testing.T) {
	dir := splitTrace(t, 600, 2, 4, 2, func(i int, b []byte) {
		binary.LittleEndian.PutUint64(b[ctfgen.OffDiscarded:], uint64(min(i, 3)))
	})
	for _, damaged := range []bool{false, true} {
		if damaged {
			damageRecord(t, dir, 2)
		}
		for _, byStream := range []bool{false, true} {
			for _, scan := range []bool{false, true} {
				reader := func() (*Trace, *Reader) {
					tr := openDirT(t, dir)
					r := tr.NewReader()
					if scan {
						r = tr.NewScanner()
					}
					if byStream {
						r.ByStream()
					}
					return tr, r
				}
				tr1, r1 := reader()
				var n1 int64
				for r1.Next() {
					n1++
				}
				tr2, r2 := reader()
				n2 := r2.Count()
				e1, e2 := "", ""
				if r1.Err() != nil {
					e1 = r1.Err().Error()
				}
				if r2.Err() != nil {
					e2 = r2.Err().Error()
				}
				if n1 != n2 || e1 != e2 || damaged != (e1 != "") || n1 == 0 || r1.Losses() != r2.Losses() || r2.Losses().EventGaps != 3 && !damaged {
					t.Errorf("damaged %v, by stream %v, scan %v: Next loop %d records (%q, losses %+v), Count %d (%q, losses %+v)", damaged, byStream, scan, n1, e1, r1.Losses(), n2, e2, r2.Losses())
				}
				for i, s := range tr1.Streams {
					if a, b := s.Recovery().Read, tr2.Streams[i].Recovery().Read; a != b {
						t.Errorf("damaged %v, by stream %v, scan %v: %s read %d records by Next, %d by Count", damaged, byStream, scan, s.Name, a, b)
					}
				}
			}
		}
	}
}

// TestRecoveryCutHeaderBytes: a file that ends inside its third packet's
// header reads its first two packets; the cut bytes are read and lost
// (Stream.Recovery: ReadBytes the whole file, LostBytes the cut ones), so
// that Trace.Recovery's ReadBytes (read less lost) is the two packets'
// bytes — it subtracted lost bytes it had not counted as read (FuzzSkipDamagedHeader
// found a stream whose lost bytes outnumbered its read ones).
func TestRecoveryCutHeaderBytes(t *testing.T) {
	data, _ := genStreamBytes(0, 200, 4, 256)
	if len(data) < 3*256 {
		t.Fatalf("%d bytes", len(data))
	}
	cut := data[:2*256+40]
	tr := traceFromTSDL(t, genMetadata(4))
	s := tr.AddStream("s", cut)
	for s.Next() {
	}
	rec := s.Recovery()
	if s.Err() != nil || rec.ReadBytes != int64(len(cut)) || rec.LostBytes != 40 || s.PacketsRead() != 2 {
		t.Errorf("%v: read %d bytes (want %d), lost %d (want 40), %d packets", s.Err(), rec.ReadBytes, len(cut), rec.LostBytes, s.PacketsRead())
	}
	if tr := tr.Recovery(); tr == nil || tr.ReadBytes != 2*256 || tr.LostBytes != 40 {
		t.Errorf("trace recovery %+v, want 512 bytes read, 40 lost", tr)
	}
}

// TestGroupDamagedPacketReported: a packet whose context is damaged
// (content size beyond the total size) in the second file of a data
// stream split in two stops a Reader with its error, merged and ByStream,
// as it stops the file read alone; the group read its packets up to the
// failure and ended without a word.
func TestGroupDamagedPacketReported(t *testing.T) {
	const pkt = 1024
	dir := splitTrace(t, 300, 1, 6, 3, func(i int, b []byte) {
		if i == 4 {
			binary.LittleEndian.PutUint64(b[48:], pkt*8+64) // packet 4 (the second file's 1): content > total
		}
	})
	for _, byStream := range []bool{false, true} {
		tr := openDirT(t, dir)
		r := tr.NewScanner()
		if byStream {
			r.ByStream()
		}
		r.Count()
		var fe *FormatError
		if err := r.Err(); !errors.As(err, &fe) || fe.Offset != pkt || !errors.Is(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), "channel0_0_1: ") {
			t.Errorf("by stream %v: err %v, want channel0_0_1's packet 1 error at offset %d", byStream, err, pkt)
		}
	}
}

// damageRecord makes the third event record of packet 1 of data stream i
// of trace folder dir (a ctfgen trace of 4 classes, compact headers) name
// class 30, which the metadata lacks: reading it fails there.
func damageRecord(tb testing.TB, dir string, i int) {
	tb.Helper()
	s := openDirT(tb, dir).Streams[i]
	k := 0
	for s.Next() && (s.Packet().Index < 1 || k < 2) {
		if s.Packet().Index == 1 {
			k++
		}
	}
	if s.Err() != nil || s.Packet().Index != 1 {
		tb.Fatalf("%s: %v, packet %d", s.Name, s.Err(), s.Packet().Index)
	}
	p := filepath.Join(dir, s.Name)
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	off := s.Event().Offset / 8
	b[off] = b[off]&^0x1f | 30
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}
