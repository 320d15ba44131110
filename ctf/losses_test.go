package ctf

import (
	"math"
	"testing"
)

// Reader.Losses sums its streams' gaps by kind, counts the gaps and the
// streams holding one, and saturates rather than wrapping on hostile
// counters.
func TestReaderLossTotals(t *testing.T) {
	a := &Stream{losses: []Loss{{Packet: 1, Events: 5}, {Packet: 3, Events: 7}, {Packet: 4, Packets: 3}}}
	b := &Stream{}
	c := &Stream{losses: []Loss{{Packet: 2, Events: math.MaxUint64 - 1}, {Packet: 5, Packets: 1}}}
	r := &Reader{streams: []*Stream{a, b}}
	if got, want := r.Losses(), (LossTotals{Events: 12, Packets: 3, EventGaps: 2, PacketGaps: 1, Streams: 1}); got != want {
		t.Errorf("Losses = %+v, want %+v", got, want)
	}
	r.streams = append(r.streams, c)
	if got, want := r.Losses(), (LossTotals{Events: math.MaxUint64, Packets: 4, EventGaps: 3, PacketGaps: 2, Streams: 2}); got != want {
		t.Errorf("Losses = %+v, want %+v", got, want)
	}
	if got := (&Reader{streams: []*Stream{b}}).Losses(); got != (LossTotals{}) {
		t.Errorf("no gap: Losses = %+v", got)
	}
}
