package dial9_test

import (
	"bytes"
	"fmt"
	"log"
	"sync"

	"github.com/tracecodec/tracecodec/dial9"
)

// Write a small stream with a pooled string and read it back.
func Example() {
	var buf bytes.Buffer
	enc, err := dial9.NewWriter(&buf)
	if err != nil {
		log.Fatal(err)
	}
	poll, err := enc.Register("PollStartEvent", []dial9.FieldDef{
		{Name: "worker_id", Type: dial9.TypeVarint},
		{Name: "spawn_loc", Type: dial9.TypePooledString},
	})
	if err != nil {
		log.Fatal(err)
	}
	loc := enc.InternString("src/main.rs:10:5")
	for i := uint64(0); i < 3; i++ {
		if err := enc.Begin(poll, 1_000_000_000+i*1500).Varint(i % 2).PooledString(loc).End(); err != nil {
			log.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		log.Fatal(err)
	}

	dec, err := dial9.NewBytesReader(buf.Bytes()) // dial9.NewReader(r) for files and .bin.gz
	if err != nil {
		log.Fatal(err)
	}
	for dec.Next() {
		ev := dec.Event()
		where, _ := dec.LookupString(ev.Field(1).PoolID())
		fmt.Println(ev.Name(), ev.Timestamp(), ev.Field(0).Uint(), string(where))
	}
	if err := dec.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// PollStartEvent 1000000000 0 src/main.rs:10:5
	// PollStartEvent 1000001500 1 src/main.rs:10:5
	// PollStartEvent 1000003000 0 src/main.rs:10:5
}

// Values are checked against the schema: a Varint is never written into a
// U16 field (the upstream dynamic API writes LEB128 bytes there).
func ExampleEventWriter() {
	enc, _ := dial9.NewWriter(new(bytes.Buffer))
	h, _ := enc.Register("Pitfall", []dial9.FieldDef{{Name: "x", Type: dial9.TypeU16}})
	fmt.Println(enc.Begin(h, 1).Varint(300).End())
	fmt.Println(enc.Begin(h, 1).U16(300).End())
	fmt.Println(enc.WriteUints(h, 2, 70000))
	// Output:
	// dial9: encode error: Pitfall field 0 (x) is U16, got a Varint value
	// <nil>
	// dial9: encode error: Pitfall field 0 (x): 70000 does not fit in U16
}

// The generic value form, with optional fields and dynamic containers.
func ExampleWriter_WriteEvent() {
	var buf bytes.Buffer
	enc, _ := dial9.NewWriter(&buf)
	h, _ := enc.Register("Custom", []dial9.FieldDef{
		{Name: "cpu", Type: dial9.Optional | dial9.TypeVarint},
		{Name: "tags", Type: dial9.TypeDynamicMap},
	})
	_ = enc.WriteEvent(h, 10, []dial9.Value{dial9.Absent(), dial9.Map(dial9.String("region"), dial9.String("eu"))})
	_ = enc.WriteEvent(h, 20, []dial9.Value{dial9.Varint(3), dial9.Map()})
	_ = enc.Close()

	dec, _ := dial9.NewBytesReader(buf.Bytes())
	for ev, err := range dec.All() {
		if err != nil {
			log.Fatal(err)
		}
		cpu := ev.Field(0)
		fmt.Print(ev.Timestamp(), " cpu present=", cpu.Present(), " value=", cpu.Uint(), " tags:")
		for k, v := range ev.Field(1).Entries() {
			fmt.Print(" ", string(k.Bytes()), "=", string(v.Bytes()))
		}
		fmt.Println()
	}
	// Output:
	// 10 cpu present=false value=0 tags: region=eu
	// 20 cpu present=true value=3 tags:
}

// Concatenated streams (tokio telemetry's thread-local batches): each
// header resets schemas, pools and the timestamp base.
func ExampleWriter_Reset() {
	var buf bytes.Buffer
	enc, _ := dial9.NewWriter(&buf)
	for batch := uint64(0); batch < 2; batch++ {
		if batch > 0 {
			_ = enc.Reset(&buf)
		}
		h, _ := enc.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
		_ = enc.WriteUints(h, 5_000_000_000+batch, batch)
	}
	_ = enc.Close()
	dec, _ := dial9.NewBytesReader(buf.Bytes())
	for dec.Next() {
		fmt.Println(dec.Event().TypeID(), dec.Event().Timestamp(), dec.Headers())
	}
	// Output:
	// 0 5000000000 1
	// 0 5000000001 2
}

// Extend a finished trace in place, as upstream's Decoder::into_encoder
// does: the appended frames reuse the schemas and pooled strings the
// trace already has.
func ExampleNewAppendWriter() {
	var trace bytes.Buffer
	enc, _ := dial9.NewWriter(&trace)
	h, _ := enc.Register("Tick", []dial9.FieldDef{{Name: "where", Type: dial9.TypePooledString}})
	_ = enc.Begin(h, 100).PooledString(enc.InternString("main")).End()
	_ = enc.Close()

	r, _ := dial9.NewBytesReader(trace.Bytes())
	for r.NextFrame() { // read to the end: schemas, pools, timestamp base
	}
	app, err := dial9.NewAppendWriter(&trace, r)
	if err != nil {
		log.Fatal(err)
	}
	h, _ = app.Register("Tick", []dial9.FieldDef{{Name: "where", Type: dial9.TypePooledString}}) // known: no frame
	_ = app.Begin(h, 250).PooledString(app.InternString("main")).End()                           // pooled: no frame
	_ = app.Close()

	r, _ = dial9.NewBytesReader(trace.Bytes())
	for ev, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		s, _ := r.LookupString(ev.Field(0).PoolID())
		fmt.Println(ev.Name(), ev.Timestamp(), string(s))
	}
	// Output:
	// Tick 100 main
	// Tick 250 main
}

// Write one stream from four goroutines: each takes its own ThreadWriter,
// registers the schemas it uses (one type id for the whole stream) and
// interns its strings (one pool for the whole stream). Events of one
// goroutine keep their order; batches of different goroutines interleave.
func ExampleSharedWriter() {
	var buf bytes.Buffer
	sw, err := dial9.NewSharedWriter(&buf)
	if err != nil {
		log.Fatal(err)
	}
	var wg sync.WaitGroup
	for worker := range uint64(4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tw, err := sw.Thread()
			if err != nil {
				log.Fatal(err)
			}
			defer tw.Close() // hands the last batch to the stream
			poll, err := tw.Register("PollStartEvent", []dial9.FieldDef{
				{Name: "worker_id", Type: dial9.TypeVarint},
				{Name: "spawn_loc", Type: dial9.TypePooledString},
			})
			if err != nil {
				log.Fatal(err)
			}
			loc := tw.InternString("src/main.rs:10:5")
			for i := range uint64(1000) {
				ts := 1_000_000_000 + i*1500 + worker
				if err := tw.Begin(poll, ts).Varint(worker).PooledString(loc).End(); err != nil {
					log.Fatal(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := sw.Close(); err != nil {
		log.Fatal(err)
	}

	r, _ := dial9.NewBytesReader(buf.Bytes())
	perWorker := map[uint64]int{}
	last := map[uint64]uint64{}
	for ev, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		w := ev.Field(0).Uint()
		if ev.Timestamp() < last[w] {
			log.Fatal("a worker's events out of order")
		}
		last[w] = ev.Timestamp()
		perWorker[w]++
	}
	fmt.Println(perWorker, "schemas:", r.SchemaByID(0).Name, r.SchemaByID(1) == nil)
	// Output:
	// map[0:1000 1:1000 2:1000 3:1000] schemas: PollStartEvent true
}
