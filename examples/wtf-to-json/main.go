// Command wtf-to-json converts a Web Tracing Framework trace to JSON.
//
//	go run ./examples/wtf-to-json [-events] [IN.wtf-trace [OUT.wtf-json]]
//
// By default it writes the JSON container the reference tools load (event
// buffers stay base64). With -events the event buffers are decoded into the
// package's readable JSON event encoding (one object per event with its name,
// time in µs and named arguments). With no input it writes a small trace of
// its own first and converts that; with no output it prints to standard
// output.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tracecodec/tracecodec/wtfcff"
)

func main() {
	events := flag.Bool("events", false, "decode event buffers into JSON events")
	flag.Parse()
	if err := run(flag.Args(), *events, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wtf-to-json:", err)
		os.Exit(1)
	}
}

func run(args []string, events bool, stdout io.Writer) error {
	var data []byte
	var err error
	if len(args) > 0 {
		data, err = os.ReadFile(args[0])
	} else {
		data, err = sampleTrace()
	}
	if err != nil {
		return err
	}
	out := stdout
	if len(args) > 1 {
		f, err := os.Create(args[1])
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	return convert(data, events, out)
}

// convert reads any WTF container (binary, legacy or JSON) and writes the
// JSON container.
func convert(data []byte, events bool, out io.Writer) error {
	src, err := wtfcff.NewBytesReader(data)
	if err != nil {
		return err
	}
	var jw *wtfcff.JSONWriter
	open := func() error { // after the first chunk: a JSON header's version is known then
		version := src.WTFVersion()
		if src.Kind() == wtfcff.KindBinary {
			version = wtfcff.JSONVersion(uint32(version))
		}
		jw, err = wtfcff.NewJSONWriter(out, wtfcff.WithWTFVersion(version))
		return err
	}
	dec := wtfcff.NewDecoder()
	for chunk, err := range src.All() {
		if err != nil {
			return err
		}
		if jw == nil {
			if err := open(); err != nil {
				return err
			}
		}
		c := *chunk
		if events {
			if c, err = wtfcff.ChunkToJSONEvents(&c, dec); err != nil {
				return err
			}
		}
		if err := jw.WriteChunk(&c); err != nil {
			return err
		}
	}
	if jw == nil {
		if err := open(); err != nil {
			return err
		}
	}
	if err := jw.Close(); err != nil {
		return err
	}
	_, err = io.WriteString(out, "\n")
	return err
}

// sampleTrace writes a small binary trace: a zone, a typed scope with a
// nested generic scope, and a mark.
func sampleTrace() ([]byte, error) {
	var buf bytes.Buffer
	w, err := wtfcff.NewWriter(&buf, wtfcff.WithFileHeader(wtfcff.FileHeader{Timebase: 1700000000000}))
	if err != nil {
		return nil, err
	}
	frame, err := w.Define(0, "demo#frame(uint32 number, ascii label, float32[] times)", wtfcff.ClassScope, 0)
	if err != nil {
		return nil, err
	}
	zone, err := w.CreateZone(0, "Main", "script", "demo.js")
	if err != nil {
		return nil, err
	}
	steps := []error{
		w.SetZone(0, zone),
		w.Begin(frame, 1000).Uint32(1).ASCII("first frame").Float32s([]float32{0.5, 1.25}).End(),
		w.EnterScope(1100, "layout"),
		w.LeaveScope(1800),
		w.LeaveScope(2500),
		w.Mark(2600, "done", `{"frames":1}`),
		w.Close(),
	}
	for _, err := range steps {
		if err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
