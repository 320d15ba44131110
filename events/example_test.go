package events_test

import (
	"bytes"
	"fmt"

	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
)

// A dial9 trace read as uniform events: polls on a worker become a begin and
// an end named "poll" on that worker's track, other events instants.
func ExampleOpenBytes() {
	var buf bytes.Buffer
	w, _ := dial9.NewWriter(&buf)
	start, _ := w.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "task_id", Type: dial9.TypeVarint}})
	end, _ := w.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	queue, _ := w.Register("QueueSampleEvent", []dial9.FieldDef{{Name: "global_queue", Type: dial9.TypeVarint}})
	w.WriteUints(start, 1000, 3, 42)
	w.WriteUints(queue, 1500, 7)
	w.WriteUints(end, 2500, 3)
	w.Close()

	r, err := events.OpenBytes(buf.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	for r.Next() {
		ev := r.Event()
		fmt.Println(ev.Time(), ev.Kind(), ev.Name(), ev.Track().Name, ev.NumArgs())
	}
	if err := r.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1000 begin poll worker 3 2
	// 1500 instant QueueSampleEvent events without a worker 1
	// 2500 end poll worker 3 1
}

// WithPairing turns each begin and its end into one complete event with a
// duration; JSON Lines is the schema tracecat dump --json writes.
func ExampleWithPairing() {
	var buf bytes.Buffer
	w, _ := dial9.NewWriter(&buf)
	start, _ := w.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	end, _ := w.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	w.WriteUints(start, 1000, 0)
	w.WriteUints(end, 1750, 0)
	w.Close()

	r, _ := events.OpenBytes(buf.Bytes(), events.WithPairing(0))
	defer r.Close()
	for ev, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(ev.AppendJSON(nil)))
	}
	// Output:
	// {"format":"dial9","record":{"offset":78,"type_id":1,"type":"PollEndEvent"},"kind":"complete","name":"poll","ts_ns":1000,"dur_ns":750,"track_kind":"worker","track":0,"track_name":"worker 0","args":{"worker_id":0}}
}
