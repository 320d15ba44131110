package ctf

import (
	"errors"
	"strings"
	"testing"
)

// WithSkipDamagedPackets: an event record of an unknown class in the
// middle of packet 1 (and, second case, one in packets 1 and 3) ends its
// packet: the records before it are read, the rest of the packet is lost
// and noted, and the stream goes on with the next packet, through Next and
// through Scan alike. Without the option the stream stops at the record
// with its error, as babeltrace2 2.1 stops.
func TestSkipDamagedPackets(t *testing.T) {
	data, _ := genStreamBytes(0, 3000, 20, 4096)
	clean := traceFromTSDL(t, genMetadata(20))
	// the offsets of each packet's records
	var recs [][]int64
	s := clean.AddStream("s", data)
	for s.Next() {
		p := s.Packet().Index
		for len(recs) <= p {
			recs = append(recs, nil)
		}
		recs[p] = append(recs[p], int64(s.Event().Offset/8))
	}
	if s.Err() != nil || len(recs) < 5 {
		t.Fatalf("%v, %d packets", s.Err(), len(recs))
	}
	for _, damaged := range [][]int{{1}, {1, 3}} {
		bad := append([]byte(nil), data...)
		lost := 0
		var lostBytes int64
		for _, p := range damaged {
			k := len(recs[p]) / 2
			bad[recs[p][k]] = bad[recs[p][k]]&^0x1f | 30 // compact header: event record class 30 of 20
			lost += len(recs[p]) - k
			lostBytes += packetEnd(t, clean, data, p) - recs[p][k]
		}
		total := 0
		for _, r := range recs {
			total += len(r)
		}
		for _, skip := range []bool{false, true} {
			for _, scan := range []bool{false, true} {
				var opts []Option
				if skip {
					opts = append(opts, WithSkipDamagedPackets())
				}
				tr := traceFromTSDL(t, genMetadata(20), opts...)
				s := tr.AddStream("s", bad)
				n := 0
				for scan && s.Scan() || !scan && s.Next() {
					n++
				}
				rec := s.Recovery()
				if !skip {
					want := recs[damaged[0]][len(recs[damaged[0]])/2]
					var fe *FormatError
					if !errors.As(s.Err(), &fe) || fe.Offset != want || !errors.Is(s.Err(), ErrCorrupt) {
						t.Errorf("%v scan %v: err %v, want ErrCorrupt at offset %d", damaged, scan, s.Err(), want)
					}
					continue
				}
				if s.Err() != nil || n != total-lost || rec.LostBytes != lostBytes || len(rec.Notes) != 1 ||
					!strings.HasPrefix(rec.Notes[0], map[int]string{1: "1 damaged packet read", 2: "2 damaged packets read"}[len(damaged)]) || !strings.Contains(rec.Notes[0], "no event record class 30") {
					t.Errorf("%v scan %v: err %v, %d events (want %d), lost %d bytes (want %d), notes %q", damaged, scan, s.Err(), n, total-lost, rec.LostBytes, lostBytes, rec.Notes)
				}
				if tr := tr.Recovery(); tr == nil || tr.LostBytes != lostBytes || strings.Contains(strings.Join(tr.Notes, ";"), "read up to offset") {
					t.Errorf("%v scan %v: trace recovery %v", damaged, scan, tr)
				}
			}
		}
	}
}

// packetEnd returns the byte offset where packet p of data ends.
func packetEnd(t *testing.T, tr *Trace, data []byte, p int) int64 {
	t.Helper()
	s := tr.AddStream("walk", data)
	for s.Next() {
		if s.Packet().Index == p {
			return s.Packet().Offset + int64(s.Packet().TotalBits/8)
		}
	}
	t.Fatalf("no packet %d: %v", p, s.Err())
	return 0
}
