package events_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/events"
)

// atfIndex builds an index file from (ts, kind, symbol) steps.
func atfIndex(steps ...[3]uint64) []byte {
	mod := atf.ModuleID("/bin/app")
	var evs []byte
	for _, s := range steps {
		evs = atf.AppendIndexEvent(evs, atf.IndexEvent{Timestamp: s[0], Kind: atf.EventKind(s[1]), FunctionID: atf.FunctionID(mod, uint32(s[2])), DetailSeq: atf.NoDetail})
	}
	n := uint64(len(steps))
	h := atf.IndexHeader{Endian: 1, Version: 1, EventSize: atf.IndexEventSize, EventCount: uint32(n), EventsOffset: atf.HeaderSize,
		FooterOffset: atf.HeaderSize + uint64(len(evs))}
	b := append(atf.AppendIndexHeader(nil, h), evs...)
	return atf.AppendIndexFooter(b, atf.IndexFooter{EventCount: n, BytesWritten: uint64(len(evs))})
}

func describe(t *testing.T, data []byte, opts ...events.Option) string {
	t.Helper()
	r, err := events.OpenBytes(data, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for r.Next() {
		e := r.Event()
		s := fmt.Sprintf("%s %s@%d", e.Kind(), e.Name()[len(e.Name())-1:], e.Time())
		if e.Kind() == events.KindComplete {
			s += fmt.Sprintf("+%d", e.Duration())
		}
		out = append(out, s)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

const (
	call = uint64(atf.KindCall)
	ret  = uint64(atf.KindReturn)
	exc  = uint64(atf.KindException)
)

func TestPairing(t *testing.T) {
	data := atfIndex(
		[3]uint64{100, call, 1}, [3]uint64{110, call, 2}, [3]uint64{115, exc, 2}, [3]uint64{130, ret, 2},
		[3]uint64{140, call, 3}, [3]uint64{150, ret, 3}, [3]uint64{200, ret, 1},
		[3]uint64{210, ret, 4},                           // an end with nothing open
		[3]uint64{300, call, 5}, [3]uint64{310, call, 6}, // left open
	)
	if got, want := describe(t, data), "begin 1@100 begin 2@110 instant 2@115 end 2@130 begin 3@140 end 3@150 end 1@200 end 4@210 begin 5@300 begin 6@310"; got != want {
		t.Errorf("unpaired:\n got %s\nwant %s", got, want)
	}
	// Paired: completes where the end was, unmatched ends as they are, open
	// begins after the last event (outermost first).
	if got, want := describe(t, data, events.WithPairing(0)), "instant 2@115 complete 2@110+20 complete 3@140+10 complete 1@100+100 end 4@210 begin 5@300 begin 6@310"; got != want {
		t.Errorf("paired:\n got %s\nwant %s", got, want)
	}
	// Depth limit 1: nested begins and their ends pass through unpaired.
	if got, want := describe(t, data, events.WithPairing(1)), "begin 2@110 instant 2@115 end 2@130 begin 3@140 end 3@150 complete 1@100+100 end 4@210 begin 6@310 begin 5@300"; got != want {
		t.Errorf("depth 1:\n got %s\nwant %s", got, want)
	}
	if _, err := events.OpenBytes(data, events.WithPairing(-1)); err == nil {
		t.Error("WithPairing(-1) accepted")
	}
}

// TestPairingMemoryIsBounded: of 100 000 nested calls never closed, the
// pairer holds the depth limit (8) and passes the rest through as they come;
// the 8 it held come out at the end.
func TestPairingMemoryIsBounded(t *testing.T) {
	steps := make([][3]uint64, 100_000)
	for i := range steps {
		steps[i] = [3]uint64{uint64(i), call, 1}
	}
	r, err := events.OpenBytes(atfIndex(steps...), events.WithPairing(8))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Next() {
		n++
	}
	if n != len(steps) {
		t.Errorf("%d events, want %d (92 passed through + 8 drained)", n, len(steps))
	}
}
