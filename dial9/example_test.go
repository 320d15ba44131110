package dial9_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/tracecodec/tracecodec/dial9"
)

// Write a small stream with a pooled string and read it back.
func Example() {
	var buf bytes.Buffer
	enc := dial9.NewEncoder(&buf)
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
	if err := enc.Flush(); err != nil {
		log.Fatal(err)
	}

	dec, err := dial9.NewDecoder(buf.Bytes())
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
	enc := dial9.NewEncoder(new(bytes.Buffer))
	h, _ := enc.Register("Pitfall", []dial9.FieldDef{{Name: "x", Type: dial9.TypeU16}})
	fmt.Println(enc.Begin(h, 1).Varint(300).End())
	fmt.Println(enc.Begin(h, 1).U16(300).End())
	fmt.Println(enc.WriteUints(h, 2, 70000))
	// Output:
	// dial9 encode error: Pitfall field 0 (x) is U16, got a Varint value
	// <nil>
	// dial9 encode error: Pitfall field 0 (x): 70000 does not fit in U16
}

// The generic value form, with optional fields and dynamic containers.
func ExampleEncoder_WriteEvent() {
	var buf bytes.Buffer
	enc := dial9.NewEncoder(&buf)
	h, _ := enc.Register("Custom", []dial9.FieldDef{
		{Name: "cpu", Type: dial9.Optional | dial9.TypeVarint},
		{Name: "tags", Type: dial9.TypeDynamicMap},
	})
	_ = enc.WriteEvent(h, 10, []dial9.Value{dial9.Absent(), dial9.Map(dial9.String("region"), dial9.String("eu"))})
	_ = enc.WriteEvent(h, 20, []dial9.Value{dial9.Varint(3), dial9.Map()})
	_ = enc.Flush()

	dec, _ := dial9.NewDecoder(buf.Bytes())
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
func ExampleEncoder_Reset() {
	var buf bytes.Buffer
	enc := dial9.NewEncoder(&buf)
	for batch := uint64(0); batch < 2; batch++ {
		if batch > 0 {
			_ = enc.Reset(&buf)
		}
		h, _ := enc.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
		_ = enc.WriteUints(h, 5_000_000_000+batch, batch)
	}
	_ = enc.Flush()
	dec, _ := dial9.NewDecoder(buf.Bytes())
	for dec.Next() {
		fmt.Println(dec.Event().TypeID(), dec.Event().Timestamp(), dec.Headers())
	}
	// Output:
	// 0 5000000000 1
	// 0 5000000001 2
}
