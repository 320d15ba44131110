package ctf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// lossText is every stream's Losses, with the file each gap counts from.
func lossText(tr *Trace) string {
	var b strings.Builder
	for _, s := range tr.Streams {
		for _, l := range s.Losses() {
			from := ""
			if l.From != nil {
				from = l.From.Name
			}
			fmt.Fprintf(&b, "%s: packet %d: %d events, %d packets, [%d, %d] from %q\n", s.Name, l.Packet, l.Events, l.Packets, l.Begin, l.End, from)
		}
	}
	return b.String()
}

// TestReaderReadPackets: ReadPackets finds the gaps a read of every event
// record finds (Count, ByStream), across a group's files too, reading the
// same packets (PacketsRead) and stopping with the same error at a
// damaged packet context; an event record that fails stops Count but not
// ReadPackets, whose gaps then go on past it. Cases: a stream split in
// two files with discarded records and lost packets inside and across
// them; overlapping halves of a stream (the packets both hold read once);
// the second file's packet context damaged; an event record damaged.
func TestReaderReadPackets(t *testing.T) {
	const pkt = 1024
	gaps := func(i int, b []byte) {
		binary.LittleEndian.PutUint64(b[ctfgen.OffDiscarded:], uint64(min(i, 4))) // discarded records before packets 1–4
		seq := uint64(i)
		if i >= 3 {
			seq += 2 // packets 3… after a gap of 2 (across the files: split after 3)
		}
		if i >= 5 {
			seq += 1
		}
		binary.LittleEndian.PutUint64(b[ctfgen.OffSeq:], seq)
	}
	split := splitTrace(t, 600, 2, 6, 3, gaps)
	overlap := splitTrace(t, 600, 2, 6, 3, gaps)
	data, err := os.ReadFile(filepath.Join(overlap, "channel0_0"))
	if err != nil {
		t.Fatal(err)
	}
	rest, err := os.ReadFile(filepath.Join(overlap, "channel0_0_1"))
	if err != nil {
		t.Fatal(err)
	}
	whole := append(data, rest...)
	if err := os.WriteFile(filepath.Join(overlap, "channel0_0"), whole[:4*pkt], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(overlap, "channel0_0_1"), whole[2*pkt:], 0o644); err != nil {
		t.Fatal(err)
	}
	badCtx := splitTrace(t, 600, 2, 6, 3, func(i int, b []byte) {
		gaps(i, b)
		if i == 4 {
			binary.LittleEndian.PutUint64(b[48:], pkt*8+64) // packet 4 (the second file's 1): content > total
		}
	})
	badRec := splitTrace(t, 600, 2, 6, 3, gaps)
	damageRecord(t, badRec, 0)
	for _, c := range []struct {
		name, dir string
		recErr    bool // Count fails on an event record: ReadPackets does not
		gaps      int  // gaps of channel0_0's data stream
	}{
		{"split", split, false, 6},
		{"overlapping", overlap, false, 6},
		{"damaged context", badCtx, false, 4},
		{"damaged record", badRec, true, 6},
	} {
		tc, tp := openDirT(t, c.dir), openDirT(t, c.dir)
		rc, rp := tc.NewScanner().ByStream(), tp.NewReader()
		rc.Count()
		n := rp.ReadPackets()
		ec, ep := fmt.Sprint(rc.Err()), fmt.Sprint(rp.Err())
		lc, lp := lossText(tc), lossText(tp)
		var packets int
		for _, s := range tp.Streams {
			packets += s.PacketsRead()
		}
		if int64(packets) != n {
			t.Errorf("%s: ReadPackets returned %d, the streams read %d packets", c.name, n, packets)
		}
		got := 0
		for _, s := range tp.Streams {
			if strings.HasPrefix(s.Name, "channel0_0") {
				got += len(s.Losses())
			}
		}
		if got != c.gaps {
			t.Errorf("%s: %d gaps in channel0_0's stream, want %d:\n%s", c.name, got, c.gaps, lp)
		}
		if c.recErr {
			if rc.Err() == nil || rp.Err() != nil || !strings.HasPrefix(lp, lc) || len(lp) <= len(lc) {
				t.Errorf("%s: Count %s, ReadPackets %s; gaps by Count:\n%sby ReadPackets:\n%s", c.name, ec, ep, lc, lp)
			}
			continue
		}
		var pc int
		for _, s := range tc.Streams {
			pc += s.PacketsRead()
		}
		if ec != ep || lc != lp || pc != packets {
			t.Errorf("%s: Count %s (%d packets), ReadPackets %s (%d); gaps by Count:\n%sby ReadPackets:\n%s", c.name, ec, pc, ep, packets, lc, lp)
		}
		if again := rp.ReadPackets(); again != 0 {
			t.Errorf("%s: a second ReadPackets read %d packets", c.name, again)
		}
	}
}

// FuzzReadPackets: on any two files of one data stream, ReadPackets ends,
// reads no more packets than the files hold 8-byte words, fails only with
// a FormatError (or the clocks' correlation), and where a read of every
// event record (Count, ByStream) succeeds, succeeds too with the same gaps
// and the same packets read.
func FuzzReadPackets(f *testing.F) {
	data, _ := genStreamBytes(0, 60, 4, 256)
	f.Add(data, data)
	f.Add(data, data[256:])
	f.Add(data[:700], data[256:])
	f.Add(data[:512], data[512:])
	tr0 := traceFromTSDL(f, genMetadata(4))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		open := func() *Trace {
			tr := &Trace{}
			*tr = *tr0
			tr.Streams = nil
			tr.AddStream("a", a)
			tr.AddStream("b", b)
			return tr
		}
		tp, tc := open(), open()
		rp, rc := tp.NewReader(), tc.NewScanner().ByStream()
		n := rp.ReadPackets()
		if n > int64(len(a)+len(b))/8+2 {
			t.Fatalf("%d packets from %d bytes", n, len(a)+len(b))
		}
		if err := rp.Err(); err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) && !errors.Is(err, ErrClockCorrelation) {
				t.Fatalf("error %T %v", err, err)
			}
		}
		rc.Count()
		if rc.Err() != nil {
			return
		}
		var pc, pp int
		for i, s := range tc.Streams {
			pc += s.PacketsRead()
			pp += tp.Streams[i].PacketsRead()
		}
		if rp.Err() != nil || lossText(tp) != lossText(tc) || pc != pp || int64(pp) != n {
			t.Fatalf("Count: %d packets, gaps\n%sReadPackets: %v, %d packets (%d), gaps\n%s", pc, lossText(tc), rp.Err(), pp, n, lossText(tp))
		}
	})
}
