package cdt_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt"
)

// The container is schema-agnostic: rows are raw msgpack maps with a
// tick_index. (Package schema7 builds typed rows.)
func Example_rawRows() {
	meta := msgp.AppendMapHeader(nil, 2)
	meta = msgp.AppendString(meta, "trace_format_version")
	meta = msgp.AppendInt(meta, 1)
	meta = msgp.AppendString(meta, "trace_schema_version")
	meta = msgp.AppendInt(meta, 7)

	var buf bytes.Buffer
	w, err := cdt.NewWriter(&buf, meta, cdt.WithChunkTicks(4))
	if err != nil {
		log.Fatal(err)
	}
	for t := range int64(10) {
		row := msgp.AppendMapHeader(nil, 2)
		row = msgp.AppendString(row, "tick_index")
		row = msgp.AppendInt64(row, t)
		row = msgp.AppendString(row, "note")
		row = msgp.AppendString(row, fmt.Sprint("tick ", t))
		if err := w.WriteRow(row); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := cdt.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	fmt.Println("blocks:", r.NumBlocks(), "ticks:", r.Footer().TickCount)
	for row, err := range r.Range(3, 5) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(row.Tick, len(row.Raw))
	}
	// Output:
	// blocks: 3 ticks: 10
	// 3 25
	// 4 25
	// 5 25
}

// A writer that died before Close leaves no footer or trailer: Open rejects
// the file, the stream reader recovers every complete chunk.
func ExampleNewReader() {
	meta := msgp.AppendMapHeader(nil, 2)
	meta = msgp.AppendString(meta, "trace_format_version")
	meta = msgp.AppendInt(meta, 1)
	meta = msgp.AppendString(meta, "trace_schema_version")
	meta = msgp.AppendInt(meta, 7)
	var buf bytes.Buffer
	// WithChunkBatch(1): each chunk is written as soon as it is complete.
	w, _ := cdt.NewWriter(&buf, meta, cdt.WithChunkTicks(4), cdt.WithChunkBatch(1))
	for t := range int64(10) {
		row := msgp.AppendMapHeader(nil, 1)
		row = msgp.AppendString(row, "tick_index")
		row = msgp.AppendInt64(row, t)
		w.WriteRow(row)
	}
	// No Close: two chunks of 4 rows are on disk, 2 rows were still buffered.
	_, err := cdt.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	fmt.Println(errors.Is(err, cdt.ErrTrailer))

	s, err := cdt.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	n := 0
	for s.Next() {
		n++
	}
	fmt.Println(n, s.Err(), s.Recovered())
	// Output:
	// true
	// 8 <nil> true
}
