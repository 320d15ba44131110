package wtfcff_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tracecodec/tracecodec/wtfcff"
)

// Write a trace, then read its events back.
func Example() {
	var file bytes.Buffer
	w, _ := wtfcff.NewWriter(&file, wtfcff.WithFileHeader(wtfcff.FileHeader{Timebase: 1700000000000}))
	frame, _ := w.Define(0, "app#frame(uint32 number, ascii label)", wtfcff.ClassScope, 0)
	zone, _ := w.CreateZone(0, "Main", "script", "app.js")
	w.SetZone(0, zone)
	w.Begin(frame, 1500).Uint32(1).ASCII("first").End()
	w.LeaveScope(2250)
	w.Close()

	r, _ := wtfcff.NewReader(&file)
	dec := wtfcff.NewDecoder()
	for r.Next() {
		if !dec.SetChunk(r.Chunk()) {
			continue // the file header chunk
		}
		for dec.Next() {
			if e := dec.Event(); !e.IsInternal() {
				fmt.Printf("%d µs %s %s\n", e.Time, e.Name(), e.AppendArgsJSON(nil))
			}
		}
	}
	fmt.Println(r.Err(), dec.Err())
	// Output:
	// 1500 µs app#frame {"number":1,"label":"first"}
	// 2250 µs wtf.scope#leave {}
	// <nil> <nil>
}

// Convert a binary trace to the JSON container the reference tools load.
func ExampleBinaryToJSON() {
	var bin bytes.Buffer
	w, _ := wtfcff.NewWriter(&bin)
	w.Mark(10, "hello", `{"n":1}`)
	w.Close()

	var js bytes.Buffer
	if err := wtfcff.BinaryToJSON(&js, &bin, wtfcff.JSONComplete); err != nil {
		fmt.Println(err)
	}
	lines := strings.Split(js.String(), "\n")
	fmt.Println(strings.Join(lines[:4], "\n"))
	fmt.Println(strings.Contains(js.String(), `"type":"binary_event_buffer","mode":"base64"`))
	// Output:
	// {
	//   "wtfVersion": 1436947200000,
	//   "formatVersion": 10,
	//   "chunks": [
	// true
}

// Pair scope enters and leaves.
func ExampleScopeTracker() {
	var file bytes.Buffer
	w, _ := wtfcff.NewWriter(&file)
	w.EnterScope(100, "outer")
	w.EnterScope(150, "inner")
	w.LeaveScope(180)
	w.LeaveScope(400)
	w.Close()

	src, _ := wtfcff.NewBytesReader(file.Bytes())
	dec, st := wtfcff.NewDecoder(), wtfcff.NewScopeTracker()
	for src.Next() {
		if dec.SetChunk(src.Chunk()) {
			for dec.Next() {
				if s, ok := st.Add(dec.Event()); ok {
					fmt.Printf("%s depth %d: %d µs\n", s.Name, s.Depth, s.Duration())
				}
			}
		}
	}
	// Output:
	// inner depth 1: 30 µs
	// outer depth 0: 300 µs
}

// Render events in the package's JSON event encoding.
func ExampleAppendEventJSON() {
	var file bytes.Buffer
	w, _ := wtfcff.NewWriter(&file, wtfcff.WithoutBuiltins())
	et, _ := w.Define(0, "net#packet(uint16 port, uint8[] head, any meta)", wtfcff.ClassInstance, 0)
	w.Begin(et, 42).Uint16(443).Uint8s([]byte{0x16, 0x03}).Any(`{"tls":true}`).End()
	w.Close()

	src, _ := wtfcff.NewBytesReader(file.Bytes())
	dec := wtfcff.NewDecoder()
	for src.Next() {
		if dec.SetChunk(src.Chunk()) {
			for dec.Next() {
				os.Stdout.Write(append(wtfcff.AppendEventJSON(nil, dec.Event()), '\n'))
			}
		}
	}
	// Output:
	// {"name":"wtf.event#define","time":0,"args":{"wireId":2,"eventClass":0,"flags":0,"name":"net#packet","args":"uint16 port, uint8[] head, any meta"}}
	// {"name":"net#packet","time":42,"args":{"port":443,"head":[22,3],"meta":{"tls":true}}}
}

// Iterate over the events of a file of any container kind.
func ExampleEvents() {
	var file bytes.Buffer
	w, _ := wtfcff.NewWriter(&file)
	w.Mark(5, "start", "")
	w.TimeStamp(9, "tick", "42")
	w.Close()

	src, _ := wtfcff.NewBytesReader(file.Bytes())
	for e, err := range wtfcff.Events(src) {
		if err != nil {
			fmt.Println(err)
			break
		}
		if !e.IsInternal() {
			fmt.Println(e.Time, e.Name(), string(e.AppendArgsJSON(nil)))
		}
	}
	// Output:
	// 5 wtf.trace#mark {"name":"start","value":null}
	// 9 wtf.trace#timeStamp {"name":"tick","value":42}
}

// Index a file's chunks, then read one directly.
func ExampleOpen() {
	var file bytes.Buffer
	w, _ := wtfcff.NewWriter(&file, wtfcff.WithChunkSize(512))
	for i := range 40 {
		w.Mark(uint32(i*10), "tick", "")
	}
	w.Close()

	f, err := wtfcff.Open(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ci := range f.Chunks() {
		fmt.Printf("chunk %d: %s, %d bytes at %d\n", ci.ID, ci.Type, ci.Length, ci.Offset)
	}
	c, _, _ := f.ReadChunk(len(f.Chunks())-1, nil)
	p, _ := c.Part(wtfcff.PartBinaryEventBuffer)
	fmt.Println("last event buffer:", len(p.Data), "bytes")
	// Output:
	// chunk 1: file_header, 224 bytes at 12
	// chunk 2: event_data, 1204 bytes at 236
	// chunk 3: event_data, 568 bytes at 1440
	// chunk 4: event_data, 136 bytes at 2008
	// last event buffer: 80 bytes
}

// Write one trace from several goroutines: each takes a ThreadWriter, whose
// events all land in its own zone; times are durations since the trace start.
func ExampleSharedWriter() {
	var file bytes.Buffer
	sw, _ := wtfcff.NewSharedWriter(&file, wtfcff.WithFileHeader(wtfcff.FileHeader{Timebase: 1700000000000}))
	job, _ := sw.Define("app#job(uint32 id)", wtfcff.ClassScope, 0)
	var wg sync.WaitGroup
	for _, name := range []string{"worker-1", "worker-2"} {
		tw, _ := sw.Thread(name) // one per goroutine
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer tw.Close() // hands the last chunk over
			for i := range 3 {
				start := time.Duration(i) * time.Millisecond
				tw.Begin(job, start).Uint32(uint32(i)).End()
				tw.LeaveScope(start + 250*time.Microsecond)
			}
		}()
	}
	wg.Wait()
	sw.Close()

	r, _ := wtfcff.NewBytesReader(file.Bytes())
	st := wtfcff.NewScopeTracker()
	perZone := map[string][]string{}
	for e, err := range wtfcff.Events(r) {
		if err != nil {
			panic(err)
		}
		if s, ok := st.Add(e); ok {
			perZone[e.Zone.Name] = append(perZone[e.Zone.Name], fmt.Sprintf("%s@%dµs+%d", s.Name, s.Begin, s.Duration()))
		}
	}
	fmt.Println("worker-1:", perZone["worker-1"])
	fmt.Println("worker-2:", perZone["worker-2"])
	// Output:
	// worker-1: [app#job@0µs+250 app#job@1000µs+250 app#job@2000µs+250]
	// worker-2: [app#job@0µs+250 app#job@1000µs+250 app#job@2000µs+250]
}
