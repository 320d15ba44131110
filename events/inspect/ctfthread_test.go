package inspect_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// TestCTFThreadSelectsTrack: for every CTF test trace (the vectors, the
// event layer's testdata, babeltrace's own when CTF_BT_TRACES names them),
// Thread set to the track ID of any event — a CPU number, or for a stream
// without cpu_id 2^32 + its position — selects exactly the events of that
// track; "cpu N" selects CPU N's as N does, and a track's name selects it.
func TestCTFThreadSelectsTrack(t *testing.T) {
	dirs := vectortest.CTFTraceDirs(vectortest.Dir(t, "ctf"))
	dirs = append(dirs, vectortest.CTFTraceDirs("../testdata")...)
	if bt := os.Getenv("CTF_BT_TRACES"); bt != "" {
		for _, v := range []string{"1/succeed", "2/succeed"} {
			dirs = append(dirs, vectortest.CTFTraceDirs(filepath.Join(bt, v))...)
		}
	}
	traces, tracks := 0, 0
	for _, dir := range dirs {
		var evs []events.Track
		r, err := events.Open(dir)
		if err != nil {
			continue // metadata alone, or a mutated trace refused
		}
		for r.Next() {
			evs = append(evs, r.Event().Track())
		}
		r.Close()
		if r.Err() != nil || len(evs) == 0 {
			continue
		}
		traces++
		seen := map[events.Track]bool{}
		for _, tk := range evs {
			if seen[tk] {
				continue
			}
			seen[tk] = true
			tracks++
			sels := []string{strconv.FormatUint(tk.ID, 10), tk.Name}
			if tk.ID < 1<<32 {
				sels = append(sels, "cpu "+strconv.FormatUint(tk.ID, 10))
				if tk.Name != "cpu "+strconv.FormatUint(tk.ID, 10) {
					t.Errorf("%s: track %+v: a CPU number's track is named otherwise", dir, tk)
				}
			}
			for _, sel := range sels {
				m, err := inspect.Filter{Thread: sel}.Compile(events.FormatCTF)
				if err != nil {
					t.Fatal(err)
				}
				r, err := events.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; r.Next(); i++ {
					if got, want := m.Match(r.Event()), evs[i] == tk; got != want {
						t.Errorf("%s: --thread %q: event %d on track %+v: selected %v, want %v", dir, sel, i, evs[i], got, want)
						break
					}
				}
				r.Close()
			}
		}
	}
	if traces == 0 {
		t.Fatal("no CTF trace read")
	}
	t.Logf("%d traces, %d tracks", traces, tracks)
}
