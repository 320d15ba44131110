package ctf

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestSkipDamagedHeaderIntactCopy: two overlapping files of one data
// stream, each with its LTTng index (as overlapping snapshots hold), both
// holding packet 2; in one of them its context is damaged. With
// WithSkipDamagedPackets a Reader reads the intact copy, whichever file
// holds it: every event record of the stream, nothing lost. (The damaged
// copy, listed from the index, was equal to the intact one and the group
// kept the first file's: when that was the damaged one, its records were
// lost.)
func TestSkipDamagedHeaderIntactCopy(t *testing.T) {
	const pkt = skipHdrPkt
	for _, damagedFirst := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "trace")
		per := writeDamagedHeaderTrace(t, dir, func([]byte) {})
		total := 0
		for _, k := range per {
			total += k
		}
		data, err := os.ReadFile(filepath.Join(dir, "channel0_0"))
		if err != nil {
			t.Fatal(err)
		}
		idx, err := os.ReadFile(filepath.Join(dir, "index", "channel0_0.idx"))
		if err != nil {
			t.Fatal(err)
		}
		n := len(data) / pkt
		write := func(name string, from, to int, damaged bool) {
			b := append([]byte(nil), data[from*pkt:to*pkt]...)
			if damaged {
				binary.LittleEndian.PutUint64(b[(2-from)*pkt+48:], pkt*8+64) // packet 2: content > total
			}
			writePart(t, dir, name, b, idx, from, to)
		}
		write("channel0_0", 0, 4, damagedFirst)
		write("channel0_0_1", 1, n, !damagedFirst)
		for _, byStream := range []bool{false, true} {
			tr, err := OpenDir(dir, WithSkipDamagedPackets())
			if err != nil {
				t.Fatal(err)
			}
			r := tr.NewScanner()
			if byStream {
				r.ByStream()
			}
			got := r.Count()
			var lost int64
			packets := 0
			for _, s := range tr.Streams {
				lost += s.Recovery().LostBytes
				packets += s.PacketsRead()
			}
			if r.Err() != nil || got != int64(total) || lost != 0 || packets != n {
				t.Errorf("damaged first %v, by stream %v: %v, %d events (want %d), %d bytes lost, %d packets (want %d)",
					damagedFirst, byStream, r.Err(), got, total, lost, packets, n)
			}
			tr.Close()
		}
	}
}
