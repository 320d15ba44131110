package atf

import (
	"bytes"
	"testing"
)

func TestZeroAllocsPerEvent(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts are not meaningful under -cover or -race")
	}
	var idx, det discardSeeker
	tw, err := NewThreadWriter(&idx, func() (ioWS, error) { return &det, nil }, 1, WithBufferSize(4096))
	if err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 100)
	fp := &DetailFunctionPayload{FunctionID: 3}
	stack := make([]byte, 16)
	tw.WriteFunction(1, KindCall, 1, fp, stack) // warm-up: creates the detail file
	var ts uint64
	if a := testing.AllocsPerRun(10000, func() {
		ts++
		tw.Write(ts, 7, KindCall, 1, nil)
	}); a != 0 {
		t.Errorf("ThreadWriter.Write: %v allocs/event", a)
	}
	if a := testing.AllocsPerRun(10000, func() {
		ts++
		tw.Write(ts, 7, KindReturn, 1, payload)
		tw.WriteFunction(ts, KindCall, 1, fp, stack)
	}); a != 0 {
		t.Errorf("ThreadWriter.Write with payload: %v allocs/event", a)
	}

	index, detail := writeThread(t, 20000, 0, func(i int) uint64 { return uint64(i) })
	br := bytes.NewReader(index.b)
	st, _ := NewIndexReader(br)
	if a := testing.AllocsPerRun(10000, func() {
		if !st.Next() {
			br.Reset(index.b)
			st, _ = NewIndexReader(br)
		}
	}); a > 0.01 {
		t.Errorf("IndexReader.Next: %v allocs/event", a)
	}
	for _, mem := range []bool{true, false} {
		var r *IndexFile
		var d *DetailFile
		if mem {
			r, _ = OpenIndexBytes(index.b)
			d, _ = OpenDetailBytes(detail.b)
		} else {
			r, _ = OpenIndex(bytes.NewReader(index.b), int64(len(index.b)))
			d, _ = OpenDetail(bytes.NewReader(detail.b), int64(len(detail.b)))
		}
		it := r.Events(0)
		var sink uint64
		if a := testing.AllocsPerRun(10000, func() {
			if !it.Next() {
				it = r.Events(0)
			}
			sink += it.Timestamp() + it.FunctionID() + uint64(it.ThreadID()+uint32(it.Kind())+it.CallDepth()+it.DetailSeq())
		}); a > 0.01 { // one iterator per 20000 events
			t.Errorf("mem=%v IndexIter.Next and the getters: %v allocs/event", mem, a)
		}
		_ = sink
		var seq uint64
		if a := testing.AllocsPerRun(10000, func() {
			seq = (seq + 7919) % r.Len()
			r.Event(seq)
		}); a != 0 {
			t.Errorf("mem=%v Event: %v allocs/event", mem, a)
		}
		batch := make([]IndexEvent, 1000)
		if a := testing.AllocsPerRun(100, func() {
			seq = (seq + 7919) % r.Len()
			r.ReadEvents(batch, seq)
		}); a != 0 {
			t.Errorf("mem=%v ReadEvents: %v allocs per batch", mem, a)
		}
		buf := make([]byte, 4096)
		if a := testing.AllocsPerRun(1000, func() {
			seq = (seq + 13) % d.Len()
			d.EventInto(seq, buf)
		}); a != 0 {
			t.Errorf("mem=%v DetailFile.EventInto: %v allocs/event", mem, a)
		}
		dit := d.Events()
		if a := testing.AllocsPerRun(1000, func() {
			if !dit.Next() {
				dit = d.Events()
			}
			sink += dit.Timestamp() + uint64(dit.IndexSeq()+dit.ThreadID()) + uint64(dit.Type()) + uint64(dit.Flags()) + uint64(len(dit.Payload()))
		}); a != 0 {
			t.Errorf("mem=%v DetailIter.Next and the getters: %v allocs/event", mem, a)
		}
		readers := []*IndexFile{r, r, r, r}
		m := NewMerger(readers)
		if a := testing.AllocsPerRun(10000, func() {
			if !m.Next() {
				m = NewMerger(readers)
			}
		}); a > 0.01 {
			t.Errorf("mem=%v Merger.Next: %v allocs/event", mem, a)
		}
		// The All forms: a few allocations per loop (iterator, closure),
		// none per event.
		want := map[string]uint64{"IndexFile.All": r.Len(), "DetailFile.All": d.Len(), "Merger.All": 4 * r.Len()}
		for name, loop := range map[string]func() uint64{
			"IndexFile.All": func() (n uint64) {
				for _, err := range r.All() {
					if err == nil {
						n++
					}
				}
				return n
			},
			"DetailFile.All": func() (n uint64) {
				for _, err := range d.All() {
					if err == nil {
						n++
					}
				}
				return n
			},
			"Merger.All": func() (n uint64) {
				for _, err := range NewMerger(readers).All() {
					if err == nil {
						n++
					}
				}
				return n
			},
		} {
			var events uint64
			if a := testing.AllocsPerRun(5, func() { events = loop() }); a > 8 || events != want[name] {
				t.Errorf("mem=%v %s: %v allocs for a loop over %d events", mem, name, a, events)
			}
		}
	}
}
