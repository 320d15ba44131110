package events_test

import (
	"testing"

	"github.com/tracecodec/tracecodec/events"
)

// TestWTFScopeArgs: with WithScopeData and WithPairing, each complete scope
// of genWTF carries its arguments — app#frame its own (number, label),
// layout the data appended while it was open (nodes, an integer) — and
// without WithScopeData a scope's end carries none.
func TestWTFScopeArgs(t *testing.T) {
	data := genWTF(2000)
	r, err := events.OpenBytes(data, events.WithScopeData(), events.WithPairing(0))
	if err != nil {
		t.Fatal(err)
	}
	frames, layouts := 0, 0
	for r.Next() {
		ev := r.Event()
		if ev.Kind() != events.KindComplete {
			continue
		}
		switch ev.Name() {
		case "app#frame":
			n, ok1 := ev.ArgByName("number")
			l, ok2 := ev.ArgByName("label")
			if !ok1 || !ok2 || ev.NumArgs() != 2 || n.Kind() != events.ValueInt || uint32(n.Int()) != uint32(frames) ||
				l.Kind() != events.ValueString || string(l.Bytes()) != "frame" {
				t.Fatalf("frame %d: %s", frames, ev.AppendJSON(nil))
			}
			frames++
		case "layout":
			v, ok := ev.ArgByName("nodes")
			if !ok || ev.NumArgs() != 1 || v.Kind() != events.ValueInt || v.Int() != int64(40+layouts%50) {
				t.Fatalf("layout %d: %s", layouts, ev.AppendJSON(nil))
			}
			if got, want := string(ev.AppendJSON(nil)), `"args":{"nodes":`; !contains(got, want) {
				t.Fatalf("layout JSON %s lacks %s", got, want)
			}
			layouts++
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if frames == 0 || layouts != frames {
		t.Fatalf("%d frames, %d layouts", frames, layouts)
	}

	// Without pairing, ends keep the leave's own arguments (none), with or
	// without WithScopeData (Event.WTFScope has the scope).
	for _, opts := range [][]events.Option{nil, {events.WithScopeData()}} {
		r, err = events.OpenBytes(data, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ends := 0
		for r.Next() {
			if ev := r.Event(); ev.Kind() == events.KindEnd {
				ends++
				if ev.NumArgs() != 0 {
					t.Fatalf("scope end with arguments (%d options): %s", len(opts), ev.AppendJSON(nil))
				}
			}
		}
		if ends == 0 {
			t.Fatal("no scope ends")
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestWTFScopeArgsZeroAllocs: reading scope arguments allocates nothing
// after warm-up.
func TestWTFScopeArgsZeroAllocs(t *testing.T) {
	r, err := events.OpenBytes(genWTF(40000), events.WithScopeData(), events.WithPairing(0))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000 && r.Next(); i++ {
		touch(r.Event())
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
