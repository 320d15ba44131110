package main

import (
	"bufio"
	"errors"
	"io"
	"strconv"

	"github.com/tracecodec/tracecodec/traceerr"
	"github.com/tracecodec/tracecodec/wtfcff"
)

func init() {
	register(&format{
		name:    "wtf",
		lib:     true, // validate and stats: package inspect (wtf.go)
		dump:    wtfDump,
		convert: wtfConvert,
		sample:  wtfSample,
	})
}

// wtfSource opens the input with wtfcff.NewReader, which picks the binary,
// JSON or legacy container by the first bytes (a damaged file goes to the
// binary reader, which reports what is wrong). A file whose last chunk is
// torn is read as far as it goes (WithRecovery), whatever its container
// (binary, JSON text cut short, legacy file cut inside a record): every
// command reads what can be recovered, and says what was lost (wtfLost).
// (validate and stats read the input in package inspect, wtf.go.)
func wtfSource(in *input) (*wtfcff.Reader, func() error, error) {
	rc, err := in.Reader()
	if err != nil {
		return nil, nil, err
	}
	src, err := wtfcff.NewReader(bufio.NewReaderSize(rc, 256<<10), wtfcff.WithRecovery())
	if err != nil {
		rc.Close()
		return nil, nil, err
	}
	in.wtfEvents = 0
	in.setRecovery(func() *traceerr.Recovery {
		if rec := wtfLost(src); rec != nil {
			sum := rec.Summary(in.wtfEvents)
			return &sum
		}
		return nil
	})
	return src, rc.Close, nil
}

// wtfLost is the reader's recovery report when the input was torn, else nil.
func wtfLost(src *wtfcff.Reader) *wtfcff.Recovery {
	if rec := src.Recovery(); rec.Torn {
		return rec
	}
	return nil
}

// wtfDump prints the events through the event layer (text or JSON Lines).
func wtfDump(in *input, w *bufio.Writer, o dumpOptions) error {
	return dumpEvents(in, w, o)
}

func wtfConvert(in *input, to string, out io.Writer, _ convertOptions) error {
	switch to {
	case "json", "json-partial", "json-events", "binary", "chrome":
	default:
		return usageErrorf("wtf converts to json, json-partial, json-events, binary or chrome, not %q", to)
	}
	if to == "chrome" {
		return wtfToChrome(in, out)
	}
	src, closeFn, err := wtfSource(in)
	if err != nil {
		return err
	}
	defer closeFn()
	version := src.WTFVersion()
	if src.Kind() == wtfcff.KindBinary {
		version = wtfcff.JSONVersion(uint32(version))
	}
	var write func(c *wtfcff.Chunk) error
	var finish func() error
	dec := wtfcff.NewDecoder()
	enc := wtfcff.NewEventEncoder()
	if to == "binary" {
		var cw *wtfcff.ChunkWriter
		write = func(c *wtfcff.Chunk) error {
			if cw == nil {
				if src.Kind() == wtfcff.KindJSON {
					version = src.WTFVersion()
				}
				var err error
				if cw, err = wtfcff.NewChunkWriter(out, wtfcff.WithWTFVersion(version)); err != nil {
					return err
				}
			}
			// JSON or legacy event buffers become binary event buffers, so
			// the reference can load the result.
			cc := *c
			if p, ok := c.Part(wtfcff.PartLegacyEventBuffer); ok && p.Data != nil {
				j, err := wtfcff.ChunkToJSONEvents(c, dec)
				if err != nil {
					return err
				}
				cc = j
			}
			b, err := wtfcff.ChunkFromJSONEvents(&cc, enc)
			if err != nil {
				return err
			}
			return cw.WriteChunk(&b)
		}
		finish = func() error {
			if cw == nil {
				_, err := wtfcff.NewChunkWriter(out, wtfcff.WithWTFVersion(version))
				return err
			}
			return nil
		}
	} else {
		mode := wtfcff.JSONComplete
		if to == "json-partial" {
			mode = wtfcff.JSONPartial
		}
		var jw *wtfcff.JSONWriter
		write = func(c *wtfcff.Chunk) error {
			if jw == nil {
				if src.Kind() == wtfcff.KindJSON {
					version = src.WTFVersion()
				}
				var err error
				if jw, err = wtfcff.NewJSONWriter(out, wtfcff.WithWTFVersion(version), wtfcff.WithJSONMode(mode)); err != nil {
					return err
				}
			}
			_, legacy := c.Part(wtfcff.PartLegacyEventBuffer)
			if to == "json-events" || legacy {
				j, err := wtfcff.ChunkToJSONEvents(c, dec)
				if err != nil {
					return err
				}
				if to != "json-events" {
					if j, err = wtfcff.ChunkFromJSONEvents(&j, enc); err != nil {
						return err
					}
				}
				return jw.WriteChunk(&j)
			}
			return jw.WriteChunk(c)
		}
		finish = func() error {
			if jw == nil {
				var err error
				if src.Kind() == wtfcff.KindJSON {
					version = src.WTFVersion()
				}
				if jw, err = wtfcff.NewJSONWriter(out, wtfcff.WithWTFVersion(version), wtfcff.WithJSONMode(mode)); err != nil {
					return err
				}
			}
			return jw.Close()
		}
	}
	for src.Next() {
		c := src.Chunk()
		if src.Kind() != wtfcff.KindLegacy && to != "json-events" {
			// The decoder follows the definitions and zones so that a torn
			// last chunk (binary or JSON) can be cut after its last whole
			// record and written out. Chunks are still copied as they are:
			// an error in their events does not stop the conversion. (A
			// legacy chunk is re-encoded by write, whose decoding drops a
			// cut record.)
			if c.Torn {
				if err := wtfcff.TrimTorn(c, dec); err != nil {
					return err
				}
				in.wtfEvents += int64(src.Recovery().SalvagedEvents)
			} else if dec.SetChunk(c) {
				for dec.Next() {
					in.wtfEvents++
				}
			}
		}
		if err := write(c); err != nil {
			return err
		}
		if src.Kind() == wtfcff.KindLegacy && c.Type == wtfcff.ChunkEventData {
			// write decoded the legacy records (WithRecovery counts them).
			in.wtfEvents += int64(src.Recovery().SalvagedEvents)
		}
	}
	if err := src.Err(); err != nil {
		return err
	}
	if err := finish(); err != nil {
		return err
	}
	return nil
}

// wtfToChrome writes Chrome trace-event JSON through the event layer (see
// chrome.go): one thread per zone, scopes as B/E slices whose E is named (data
// appended to a scope in its E's arguments), time ranges as async b/e slices,
// other events as instants with their arguments. A torn file is read as far as
// it goes (the recovery line says what was lost).
func wtfToChrome(in *input, out io.Writer) error {
	return writeChrome(in, out)
}

// wtfSample writes a small trace: two zones, nested scopes with arguments,
// instance events, a mark and a time stamp.
func wtfSample(out io.Writer) error {
	w, err := wtfcff.NewWriter(out, wtfcff.WithFileHeader(wtfcff.FileHeader{Timebase: 1700000000000,
		ContextInfo: &wtfcff.ContextInfo{ContextType: "script", URI: "tracecat://sample", Title: "tracecat sample"}}))
	if err != nil {
		return err
	}
	frame, err := w.Define(0, "app#frame(uint32 number, ascii label)", wtfcff.ClassScope, 0)
	if err != nil {
		return err
	}
	draw, err := w.Define(0, "app#draw(uint16 calls, float32 ms, uint8[] mask)", wtfcff.ClassInstance, 0)
	if err != nil {
		return err
	}
	main, _ := w.CreateZone(0, "Main", "script", "app.js")
	worker, _ := w.CreateZone(0, "Worker", "script", "worker.js")
	for i := uint32(0); i < 20; i++ {
		t := 1000 + i*16000
		zone := main
		if i%5 == 4 {
			zone = worker
		}
		errs := []error{
			w.SetZone(t, zone),
			w.Begin(frame, t).Uint32(i).ASCII("frame").End(),
			w.EnterScope(t+100, "layout"),
			w.AppendScopeData(t+200, "nodes", strconv.Itoa(int(40+i))),
			w.LeaveScope(t + 3000),
			w.Begin(draw, t+3500).Uint16(uint16(10 + i)).Float32(float32(i) / 4).Uint8s([]byte{1, 2, byte(i)}).End(),
			w.LeaveScope(t + 9000),
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	if err := errors.Join(w.Mark(400000, "done", `{"frames":20}`), w.TimeStamp(400001, "end", "")); err != nil {
		return err
	}
	return w.Close()
}
