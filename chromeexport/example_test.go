package chromeexport_test

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/tracecodec/tracecodec/chromeexport"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
)

// A tokio poll of 750 ns at a Unix-epoch time: the slice's fields are on its
// E, ts counts µs from the first event, otherData holds the absolute start.
func ExampleWrite() {
	var trace bytes.Buffer
	w, _ := dial9.NewWriter(&trace)
	start, _ := w.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "task_id", Type: dial9.TypeVarint}})
	end, _ := w.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	w.WriteUints(start, 1_774_658_386_068_912_347, 3, 42)
	w.WriteUints(end, 1_774_658_386_068_913_097, 3)
	w.Close()

	r, err := events.OpenBytes(trace.Bytes(), events.WithScopeData())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	if _, err := chromeexport.Write(context.Background(), os.Stdout, r); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"displayTimeUnit":"ns","traceEvents":[
	// {"name":"thread_name","ph":"M","pid":1,"tid":3,"args":{"name":"worker 3","track_kind":"worker","track_id":"3"}},
	// {"name":"poll","cat":"dial9","ph":"B","pid":1,"tid":3,"ts":0.000},
	// {"name":"poll","cat":"dial9","ph":"E","pid":1,"tid":3,"args":{"worker_id":3,"task_id":42},"ts":0.750}
	// ],"otherData":{"format":"dial9","ts_unit":"µs since time_base_ns","time_base_ns":"1774658386068912347"}}
}
