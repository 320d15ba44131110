package events_test

import (
	"testing"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/events"
)

var sink int64

// touch reads everything a sink reads from an event, JSON rendering aside.
func touch(ev *events.Event) {
	sink += ev.Time() + ev.Duration() + int64(ev.Kind()) + int64(len(ev.Name())) + int64(ev.Track().ID) + int64(len(ev.Track().Name))
	for name, v := range ev.Args {
		sink += int64(len(name)) + int64(v.Kind())
		switch v.Kind() {
		case events.ValueInt, events.ValueUint, events.ValueBool:
			sink += v.Int()
		case events.ValueFloat:
			sink += int64(v.Float())
		case events.ValueString, events.ValueBytes:
			sink += int64(len(v.Bytes()))
		}
	}
}

// TestZeroAllocsPerEvent pins the allocation contract: after warm-up, Next
// and every accessor but composite rendering allocate nothing, with and
// without pairing, for every event format.
func TestZeroAllocsPerEvent(t *testing.T) {
	inputs := map[string][]byte{
		"dial9": genDial9(40000),
		"atf":   genATF(40000),
		"wtf":   genWTF(40000),
		"cdt":   genCDT(3000),
	}
	for name, data := range inputs {
		for _, pairing := range []bool{false, true} {
			var opts []events.Option
			if pairing {
				opts = append(opts, events.WithPairing(0))
			}
			r, err := events.OpenBytes(data, opts...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.Format() != name {
				t.Fatalf("%s: detected %s", name, r.Format())
			}
			for i := 0; i < 1000 && r.Next(); i++ { // warm-up
				touch(r.Event())
			}
			var json []byte
			if name != "cdt" {
				json = r.Event().AppendJSON(make([]byte, 0, 1<<16))
			}
			// AllocsPerRun truncates the average, so each run reads 16
			// events: one allocation every 16 events still fails.
			allocs := testing.AllocsPerRun(100, func() {
				for range 16 {
					if !r.Next() {
						t.Fatalf("%s: ran out of events: %v", name, r.Err())
					}
					touch(r.Event())
					if name != "cdt" { // CDT composites go through msgp's JSON writer
						json = r.Event().AppendJSON(json[:0])
					}
				}
			})
			if allocs != 0 {
				t.Errorf("%s (pairing %v): %.2f allocations per 16 events", name, pairing, allocs)
			}
			r.Close()
		}
	}
}

// TestATFDetailArgsZeroAllocs: reading the detail arguments of a session in
// files (records read through a reused buffer) allocates nothing after
// warm-up.
func TestATFDetailArgsZeroAllocs(t *testing.T) {
	dir := t.TempDir()
	s, err := atf.CreateSessionDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	th, err := s.Thread(7)
	if err != nil {
		t.Fatal(err)
	}
	mod := atf.ModuleID("/bin/app")
	payload := make([]byte, 40)
	for i := range 20000 {
		kind, depth := atf.KindCall, uint32(1)
		if i%2 == 1 {
			kind = atf.KindReturn
		}
		payload[0] = byte(i)
		if _, err := th.Write(uint64(1000+i), atf.FunctionID(mod, 1), kind, depth, payload[:10+i%30]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; i < 1000 && r.Next(); i++ {
		touch(r.Event())
	}
	if _, ok := r.Event().ArgByName("detail"); !ok {
		t.Fatal("no detail argument")
	}
	json := make([]byte, 0, 1<<16)
	allocs := testing.AllocsPerRun(100, func() {
		for range 16 {
			if !r.Next() {
				t.Fatal("ran out of events")
			}
			touch(r.Event())
			json = r.Event().AppendJSON(json[:0])
		}
	})
	if allocs != 0 {
		t.Errorf("%.2f allocations per 16 events", allocs)
	}
}
