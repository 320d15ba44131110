package traceerr_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/tracecodec/tracecodec/traceerr"
)

func TestRecoveryString(t *testing.T) {
	cut := traceerr.New("demo", 4096, errTruncated, "event frame cut short")
	for _, c := range []struct {
		r     traceerr.Recovery
		want  string
		clean bool
		lossy bool
	}{
		{traceerr.Recovery{Format: "demo", Unit: "events", Read: 120, ReadBytes: 4096, StopOffset: -1},
			"read 120 events in 4096 bytes, nothing lost", true, false},
		{traceerr.Recovery{Format: "demo", Unit: "events", Read: 120, ReadBytes: 4096, LostBytes: 37, Lost: 1, StopOffset: 4096, Reason: cut},
			"read 120 events in 4096 bytes; lost 37 bytes and 1 event from offset 4096: demo: offset 4096: event frame cut short", false, true},
		{traceerr.Recovery{Format: "demo", Unit: "ticks", Read: 1, ReadBytes: 1, LostBytes: -1, Lost: -1, StopOffset: 1, Reason: cut},
			"read 1 tick in 1 byte; lost an unknown number of bytes and an unknown number of ticks from offset 1: demo: offset 4096: event frame cut short", false, true},
		{traceerr.Recovery{Format: "demo", Unit: "packets", Read: 2, ReadBytes: 100, StopOffset: -1, Notes: []string{"a", "b"}},
			"read 2 packets in 100 bytes, nothing lost; note: a; b", false, false},
		{traceerr.Recovery{Format: "demo", Unit: "ticks", Read: 5, ReadBytes: 100, StopOffset: -1, Reason: cut},
			"read 5 ticks in 100 bytes, nothing lost: demo: offset 4096: event frame cut short", false, false},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("String:\n got %q\nwant %q", got, c.want)
		}
		if c.r.Clean() != c.clean || c.r.Lossy() != c.lossy {
			t.Errorf("%q: Clean %v Lossy %v, want %v %v", c.want, c.r.Clean(), c.r.Lossy(), c.clean, c.lossy)
		}
	}
}

func TestRecoveryJSON(t *testing.T) {
	r := &traceerr.Recovery{Format: "demo", Unit: "events", Read: 3, ReadBytes: 10, LostBytes: 2, Lost: -1, StopOffset: 10,
		Reason: traceerr.New("demo", 10, errTruncated, "")}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"demo","unit":"events","read":3,"read_bytes":10,"lost_bytes":2,"lost":-1,"stop_offset":10,"clean":false,"reason":"demo: offset 10: truncated","notes":[]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if !errors.Is(r.Reason, errTruncated) {
		t.Fatal("Reason does not wrap the sentinel")
	}
	b, _ = json.Marshal(&traceerr.Recovery{Unit: "ticks", StopOffset: -1})
	if want := `{"format":"","unit":"ticks","read":0,"read_bytes":0,"lost_bytes":0,"lost":0,"stop_offset":-1,"clean":true,"reason":null,"notes":[]}`; string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}
