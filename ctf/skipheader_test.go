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

// skipHdrPkt is the packet size of TestSkipDamagedHeader's traces.
const skipHdrPkt = 1024

// writeDamagedHeaderTrace writes to dir a one-stream trace (ctfgen,
// packets of skipHdrPkt bytes, its index kept) whose tracer discarded 5
// event records before packet 2 and 7 more before packet 3 (the packet
// contexts' and the index's counters say so), then damages packet 2's
// header or context with damage. It returns the events of each packet
// before the damage.
func writeDamagedHeaderTrace(tb testing.TB, dir string, damage func(pkt []byte)) []int {
	tb.Helper()
	if err := ctfgen.Write(dir, 600, 1, 4, skipHdrPkt); err != nil {
		tb.Fatal(err)
	}
	idxPath := filepath.Join(dir, "index", "channel0_0.idx")
	idx, err := os.ReadFile(idxPath)
	if err != nil {
		tb.Fatal(err)
	}
	disc := func(i int) uint64 {
		switch {
		case i >= 3:
			return 12
		case i >= 2:
			return 5
		}
		return 0
	}
	data, err := ctfgen.EditPackets(dir, "channel0_0", skipHdrPkt, 6, func(i int, b []byte) {
		binary.LittleEndian.PutUint64(b[ctfgen.OffDiscarded:], disc(i))
		binary.BigEndian.PutUint64(idx[16+i*72+40:], disc(i)) // the index's events_discarded
	})
	if err != nil {
		tb.Fatal(err)
	}
	// events per packet, before the damage
	tr := traceFromTSDL(tb, ctfgen.Metadata(4))
	s := tr.AddStream("s", data)
	var per []int
	for s.Next() {
		for len(per) <= s.Packet().Index {
			per = append(per, 0)
		}
		per[s.Packet().Index]++
	}
	if s.Err() != nil || len(per) < 6 || per[2] == 0 {
		tb.Fatalf("%v, packets %v", s.Err(), per)
	}
	damage(data[2*skipHdrPkt : 3*skipHdrPkt])
	if err := os.WriteFile(filepath.Join(dir, "channel0_0"), data, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "index"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(idxPath, idx, 0o644); err != nil {
		tb.Fatal(err)
	}
	return per
}

// TestSkipDamagedHeader: WithSkipDamagedPackets reads on past a packet
// whose header or context is damaged — a wrong magic number (with
// WithStrictMagic), an unknown data stream class, a content size beyond
// the total size, a total size beyond the file — when the stream's LTTng
// index gives the next packet's place: the damaged packet is lost whole
// (Recovery counts its bytes, notes it), every event record of the other
// packets is read, through Next and Scan, alone and by a Reader, and the
// tracer's gaps count across it from the index's counters (12 records in
// 2 gaps, as read whole). Without the index, or without the option, the
// stream stops at the packet with its error, as babeltrace2 2.1 stops.
func TestSkipDamagedHeader(t *testing.T) {
	cases := []struct {
		name   string
		damage func(b []byte)
		opts   []Option
		sent   error
		msg    string
	}{
		{"magic", func(b []byte) { b[0] ^= 0xff }, []Option{WithStrictMagic()}, ErrBadMagic, "magic"},
		{"class", func(b []byte) { binary.LittleEndian.PutUint32(b[20:], 99) }, nil, ErrCorrupt, "data stream class"},
		{"content>total", func(b []byte) { binary.LittleEndian.PutUint64(b[48:], skipHdrPkt*8+64) }, nil, ErrCorrupt, "exceeds the total size"},
		{"size-beyond-file", func(b []byte) { binary.LittleEndian.PutUint64(b[56:], 1<<40) }, nil, ErrCorrupt, "runs past the end of the file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "trace")
			per := writeDamagedHeaderTrace(t, dir, c.damage)
			total := 0
			for _, n := range per {
				total += n
			}
			want := total - per[2]
			opts := append([]Option{WithSkipDamagedPackets()}, c.opts...)
			for _, mode := range []string{"next", "scan", "reader", "scanner"} {
				tr, err := OpenDir(dir, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				s := tr.Streams[0]
				if s.Index == nil {
					t.Fatal("no index")
				}
				n := 0
				var rerr error
				switch mode {
				case "next", "scan":
					for mode == "scan" && s.Scan() || mode == "next" && s.Next() {
						n++
					}
					rerr = s.Err()
				default:
					r := tr.NewReader()
					if mode == "scanner" {
						r = tr.NewScanner()
					}
					for r.Next() {
						n++
					}
					rerr = r.Err()
					if got := r.Losses(); got.Events != 12 || got.EventGaps != 2 || got.PacketGaps != 0 {
						t.Errorf("%s: Reader losses %+v, want 12 records in 2 gaps", mode, got)
					}
				}
				rec := s.Recovery()
				note := strings.Join(rec.Notes, ";")
				if rerr != nil || n != want || rec.LostBytes != skipHdrPkt || s.PacketsRead() != len(per)-1 ||
					!strings.Contains(note, "1 packet whose header or context cannot be decoded skipped whole") || !strings.Contains(note, "index/channel0_0.idx") || !strings.Contains(note, c.msg) {
					t.Errorf("%s: err %v, %d events (want %d of %d), lost %d bytes, %d packets read, notes %q", mode, rerr, n, want, total, rec.LostBytes, s.PacketsRead(), rec.Notes)
				}
				var disc uint64
				for _, l := range s.Losses() {
					disc += l.Events
					if l.Packets != 0 {
						t.Errorf("%s: loss %+v: the skipped packet is no sequence gap", mode, l)
					}
				}
				if disc != 12 || len(s.Losses()) != 2 || s.Losses()[0].Packet != 2 || s.Losses()[1].Packet != 3 {
					t.Errorf("%s: losses %+v, want 5 records at packet 2 and 7 at packet 3", mode, s.Losses())
				}
				if tr := tr.Recovery(); tr == nil || tr.LostBytes != skipHdrPkt {
					t.Errorf("%s: trace recovery %v", mode, tr)
				}
			}
			// without the option, or without the index: the stream stops
			// at the damaged packet, its error as before (a total size
			// beyond the file reads as a cut packet, its records read, the
			// stream ended there)
			check := func(what string, o []Option) {
				tr, err := OpenDir(dir, o...)
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				s := tr.Streams[0]
				n := 0
				for s.Next() {
					n++
				}
				var fe *FormatError
				switch {
				case c.name == "size-beyond-file":
					if s.Err() != nil || n != per[0]+per[1]+per[2] || !errors.Is(s.Recovery().Reason, ErrTruncated) {
						t.Errorf("%s: err %v, %d events, recovery %v; want the packet read as cut after %d events", what, s.Err(), n, s.Recovery().Reason, per[0]+per[1]+per[2])
					}
				case !errors.As(s.Err(), &fe) || fe.Offset != 2*skipHdrPkt || !errors.Is(s.Err(), c.sent) || n != per[0]+per[1]:
					t.Errorf("%s: err %v, %d events; want %v at offset %d after %d events", what, s.Err(), n, c.sent, 2*skipHdrPkt, per[0]+per[1])
				}
			}
			check("index, no option", c.opts)
			if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
				t.Fatal(err)
			}
			check("option, no index", opts)
		})
	}
}

// FuzzSkipDamagedHeader reads arbitrary data stream bytes of the generated
// LTTng-shaped metadata with an arbitrary LTTng index (when it parses),
// with WithSkipDamagedPackets (and WithStrictMagic, so that a damaged
// magic number is damage): alone by Next and by Scan, and as a group of
// two copies by a Reader. A clean error or events, never a panic or a
// hang, and the Recovery's bytes within the stream's: each packet counted
// once, read or skipped.
func FuzzSkipDamagedHeader(f *testing.F) {
	data, idx := genStreamBytes(0, 60, 4, 256)
	f.Add(data, idx)
	bad := append([]byte(nil), data...)
	bad[256] ^= 0xff                                   // packet 1's magic number
	binary.LittleEndian.PutUint64(bad[512+48:], 1<<20) // packet 2's content size
	binary.LittleEndian.PutUint64(bad[768+56:], 1<<40) // packet 3's total size
	f.Add(bad, idx)
	f.Add(bad[:700], idx)
	f.Add(bad, idx[:16+72*2])
	tr0 := traceFromTSDL(f, genMetadata(4), WithSkipDamagedPackets(), WithStrictMagic())
	f.Fuzz(func(t *testing.T, b, ib []byte) {
		ix, err := ParseIndex(ib)
		if err != nil {
			ix = nil
		}
		tr := &Trace{}
		*tr = *tr0
		check := func(s *Stream, what string) {
			if err := s.Err(); err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("%s: error %T %v", what, err, err)
				}
			}
			rec := s.Recovery()
			if rec.ReadBytes < 0 || rec.ReadBytes > int64(len(b)) || rec.LostBytes < 0 || rec.LostBytes > rec.ReadBytes || s.PacketsRead() > len(b) {
				t.Fatalf("%s: read %d bytes, lost %d, %d packets, of %d bytes", what, rec.ReadBytes, rec.LostBytes, s.PacketsRead(), len(b))
			}
		}
		for _, scan := range []bool{false, true} {
			tr.Streams = nil
			s := tr.AddStream("s", b)
			s.Index = ix
			n := 0
			for scan && s.Scan() || !scan && s.Next() {
				if n++; n > 8*len(b)+1 {
					t.Fatalf("%d events from %d bytes", n, len(b))
				}
			}
			check(s, "alone")
		}
		tr.Streams = nil
		tr.AddStream("a", b).Index = ix
		tr.AddStream("b", b).Index = ix
		r := tr.NewScanner()
		n := 0
		for r.Next() {
			if n++; n > 16*len(b)+1 {
				t.Fatalf("%d events from 2×%d bytes", n, len(b))
			}
		}
		for _, s := range tr.Streams {
			check(s, "group")
		}
	})
}

// TestSkipDamagedHeaderInGroup: a data stream split in two files, each
// with its LTTng index, whose second file's packet 1 has a damaged
// context: with WithSkipDamagedPackets a Reader (merged and ByStream)
// reads every other packet of the group, the damaged one skipped and
// noted in that file's Recovery, each packet read once (PacketsRead);
// without the option it stops there with its error.
func TestSkipDamagedHeaderInGroup(t *testing.T) {
	const pkt = skipHdrPkt
	dir := filepath.Join(t.TempDir(), "trace")
	per := writeDamagedHeaderTrace(t, dir, func([]byte) {})
	data, err := os.ReadFile(filepath.Join(dir, "channel0_0"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := os.ReadFile(filepath.Join(dir, "index", "channel0_0.idx"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(data) / pkt
	// the second file: packets 3.. (its packet 1, the stream's 4, damaged)
	binary.LittleEndian.PutUint64(data[4*pkt+48:], pkt*8+64)
	writePart(t, dir, "channel0_0", data[:3*pkt], idx, 0, 3)
	writePart(t, dir, "channel0_0_1", data[3*pkt:], idx, 3, n)
	total := 0
	for _, k := range per {
		total += k
	}
	for _, byStream := range []bool{false, true} {
		tr, err := OpenDir(dir, WithSkipDamagedPackets())
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		if tr.Streams[1].Index == nil {
			t.Fatal("no index for channel0_0_1")
		}
		r := tr.NewScanner()
		if byStream {
			r.ByStream()
		}
		got := r.Count()
		b := tr.Streams[1]
		note := strings.Join(b.Recovery().Notes, ";")
		packets := tr.Streams[0].PacketsRead() + b.PacketsRead()
		if r.Err() != nil || got != int64(total-per[4]) || packets != n-1 || b.Recovery().LostBytes != pkt ||
			!strings.Contains(note, "1 packet whose header or context cannot be decoded skipped whole") || r.Losses().Events != 12 || r.Losses().EventGaps != 2 {
			t.Errorf("by stream %v: %v, %d events (want %d), %d packets (want %d), lost %d bytes, losses %+v, notes %q",
				byStream, r.Err(), got, total-per[4], packets, n-1, b.Recovery().LostBytes, r.Losses(), note)
		}
	}
	r := openDirT(t, dir).NewScanner()
	r.Count()
	var fe *FormatError
	if err := r.Err(); !errors.As(err, &fe) || fe.Offset != pkt || !strings.HasPrefix(err.Error(), "channel0_0_1: ") {
		t.Errorf("without the option: err %v, want channel0_0_1's packet 1 error", err)
	}
}

// writePart writes part, the packets from … to-1 of a stream of
// skipHdrPkt-byte packets whose LTTng index (version 1.1, 72-byte
// entries) is idx, as the data stream file name of trace folder dir, with
// its index: those packets' entries, their offsets made the part's.
func writePart(tb testing.TB, dir, name string, part, idx []byte, from, to int) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), part, 0o644); err != nil {
		tb.Fatal(err)
	}
	ix := append([]byte(nil), idx[:16]...)
	for i := from; i < to; i++ {
		e := append([]byte(nil), idx[16+i*72:16+(i+1)*72]...)
		binary.BigEndian.PutUint64(e, uint64((i-from)*skipHdrPkt))
		ix = append(ix, e...)
	}
	if err := os.WriteFile(filepath.Join(dir, "index", name+".idx"), ix, 0o644); err != nil {
		tb.Fatal(err)
	}
}
