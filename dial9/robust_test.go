package dial9

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/tracecodec/tracecodec/fuzz"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// allVectors returns every .bin vector (not the golden gzip traces).
func allVectors(t testing.TB) map[string][]byte {
	dir := vectortest.Dir(t, "dial9")
	out := map[string][]byte{}
	for _, sub := range []string{"v0.2.0", "v0.4.0", "handmade"} {
		files, _ := filepath.Glob(filepath.Join(dir, sub, "*.bin"))
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[sub+"/"+filepath.Base(p)] = b
		}
	}
	if len(out) < 30 {
		t.Fatalf("only %d vectors found", len(out))
	}
	return out
}

// decodeAll decodes a whole input, rendering every frame as JSON.
func decodeAll(d *Reader, err error) (frames []string, outErr error) {
	if err != nil {
		return nil, err
	}
	for d.NextFrame() {
		m := dumpFrame(d)
		b, _ := json.Marshal(m)
		frames = append(frames, string(b))
	}
	return frames, d.Err()
}

func sameErr(a, b error) bool {
	var fa, fb *FormatError
	if errors.As(a, &fa) != errors.As(b, &fb) {
		return false
	}
	if fa == nil {
		return (a == nil) == (b == nil)
	}
	return fa.Offset == fb.Offset && errors.Is(fa.Err, fb.Err)
}

// TestStreamingMatchesBytes decodes every vector through an io.Reader
// delivering one byte per Read into a 16-byte initial buffer: frames and
// errors must be those of the byte-slice decoder.
func TestStreamingMatchesBytes(t *testing.T) {
	for name, data := range allVectors(t) {
		want, werr := decodeAll(NewBytesReader(data, WithAnyVersion()))
		got, gerr := decodeAll(NewReader(iotest.OneByteReader(bytes.NewReader(data)), WithAnyVersion(), WithBufferSize(16)))
		// A streaming decoder cannot see that a count is more than the rest of
		// the input: it reports the limit where the byte decoder reports truncation.
		if errors.Is(gerr, ErrLimit) && errors.Is(werr, ErrTruncated) {
			gerr = werr
		}
		if !reflect.DeepEqual(got, want) || !sameErr(gerr, werr) {
			t.Errorf("%s: streaming differs:\n got  %d frames, %v\n want %d frames, %v", name, len(got), gerr, len(want), werr)
		}
	}
}

func TestVersionByte(t *testing.T) {
	data := vectortest.Read(t, "dial9", "handmade", "hm02_version_2_header.bin")
	_, err := NewBytesReader(data)
	var fe *FormatError
	if !errors.Is(err, ErrUnsupportedVersion) || !errors.As(err, &fe) || fe.Offset != 4 {
		t.Fatalf("version 2: %v", err)
	}
	// A mid-stream header with version 2 is refused the same way.
	s := append(encode(t, func(e *Writer) {}), "TRC\x00\x02"...)
	d, err := NewBytesReader(s)
	must(t, err)
	if d.NextFrame() || !errors.Is(d.Err(), ErrUnsupportedVersion) {
		t.Fatalf("mid-stream version 2: %v", d.Err())
	}
}

func TestErrorsAreFormatErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrBadMagic},
		{"short magic", []byte("TR"), ErrTruncated},
		{"wrong magic", []byte("TRX\x00\x01"), ErrBadMagic},
		{"no version", []byte("TRC\x00"), ErrTruncated},
		{"truncated reset", []byte("TRC\x00\x01\x05\x01\x02"), ErrTruncated},
		{"partial header mid-stream", []byte("TRC\x00\x01TRC"), ErrTruncated},
		{"T that is no header", []byte("TRC\x00\x01TXYZ\x01"), ErrUnknownFrame},
		{"unknown field type", []byte("TRC\x00\x01\x01\x00\x00\x01\x00X\x01\x01\x00\x01\x00x\x10"), ErrUnknownFieldType},
		{"timestamp overflow", append(AppendTimestampReset(AppendSchema([]byte("TRC\x00\x01"), &Schema{Name: "A", HasTimestamp: true}), ^uint64(0)), 2, 0, 0, 1, 0, 0), ErrTimestampOverflow},
	} {
		d, err := NewBytesReader(tc.data)
		if err == nil {
			for d.NextFrame() {
			}
			err = d.Err()
		}
		var fe *FormatError
		if !errors.Is(err, tc.want) || !errors.As(err, &fe) || fe.Offset < 0 {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestLimits checks that declared sizes over the limits fail before
// anything is allocated, in both decoding modes.
func TestLimits(t *testing.T) {
	lim := Limits{MaxStringLen: 10, MaxStackFrames: 2, MaxMapEntries: 2, MaxPoolEntries: 2, MaxDepth: 2}
	ev := func(typ FieldType, payload ...byte) []byte {
		b := AppendSchema([]byte("TRC\x00\x01"), &Schema{Name: "S", HasTimestamp: true, Fields: []FieldDef{{"x", typ}}})
		b = append(b, 2, 0, 0, 0, 0, 0)
		return append(b, payload...)
	}
	u32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	big := bytes.Repeat([]byte{0}, 200)
	cases := map[string][]byte{
		"string":      ev(TypeString, append(u32(11), big...)...),
		"stack":       ev(TypeStackFrames, append(u32(3), big...)...),
		"map":         ev(TypeStringMap, append(u32(3), big...)...),
		"list":        ev(TypeDynamicList, append(u32(3), big...)...),
		"depth":       ev(TypeDynamicList, append(append(append(u32(1), 14), u32(1)...), append([]byte{14}, append(u32(1), 9, 0)...)...)...),
		"pool":        append([]byte("TRC\x00\x01\x03"), append(u32(3), big...)...),
		"stack pool":  append([]byte("TRC\x00\x01\x04"), append(u32(1), append(u32(0), append(u32(3), big...)...)...)...),
		"pool string": append([]byte("TRC\x00\x01\x03"), append(u32(1), append(u32(0), append(u32(11), big...)...)...)...),
	}
	for name, data := range cases {
		for _, mode := range []string{"bytes", "reader"} {
			var d *Reader
			var err error
			if mode == "bytes" {
				d, err = NewBytesReader(data, WithLimits(lim))
			} else {
				d, err = NewReader(bytes.NewReader(data), WithLimits(lim))
			}
			must(t, err)
			for d.NextFrame() {
			}
			if !errors.Is(d.Err(), ErrLimit) {
				t.Errorf("%s (%s): got %v, want ErrLimit", name, mode, d.Err())
			}
		}
	}
	// Frame size limit of a streaming decoder.
	data := ev(TypeString, append(u32(1000), bytes.Repeat([]byte{'a'}, 1000)...)...)
	d, err := NewReader(bytes.NewReader(data), WithLimits(Limits{MaxFrameSize: 100}), WithBufferSize(16))
	must(t, err)
	for d.NextFrame() {
	}
	if !errors.Is(d.Err(), ErrLimit) {
		t.Errorf("frame size: %v", d.Err())
	}
}

// TestHostileHugeCounts: huge declared counts with short input fail as
// truncation without allocating anything near their size.
func TestHostileHugeCounts(t *testing.T) {
	u32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	inputs := [][]byte{
		append([]byte("TRC\x00\x01\x03"), u32(0xFFFFFFFF)...),
		append([]byte("TRC\x00\x01\x04"), append(u32(1), append(u32(0), u32(0xFFFFFFFF)...)...)...),
		append(AppendSchema([]byte("TRC\x00\x01"), &Schema{Name: "S", HasTimestamp: true, Fields: []FieldDef{{"x", TypeStringMap}}}), append([]byte{2, 0, 0, 0, 0, 0}, u32(0xFFFFFFFF)...)...),
	}
	for i, data := range inputs {
		fuzz.Check(t, data, decodeBytes, fuzz.Options{AllocConst: 1 << 20})
		d, err := NewBytesReader(data)
		must(t, err)
		for d.NextFrame() {
		}
		if !errors.Is(d.Err(), ErrTruncated) {
			t.Errorf("input %d: %v", i, d.Err())
		}
	}
}

func decodeBytes(data []byte) error {
	d, err := NewBytesReader(data)
	if err != nil {
		return err
	}
	for d.NextFrame() {
		if d.Kind() == FrameEvent {
			touchEvent(d)
		}
	}
	return d.Err()
}

func decodeStream(data []byte) error {
	d, err := NewReader(bytes.NewReader(data), WithBufferSize(64))
	if err != nil {
		return err
	}
	for d.Next() {
		touchEvent(d)
	}
	return d.Err()
}

// touchEvent reads every value of the current event, nested ones included.
func touchEvent(d *Reader) {
	ev := d.Event()
	for i := 0; i < ev.NumFields(); i++ {
		if ev.Uint(i) != ev.Field(i).Uint() {
			panic("Event.Uint differs from View.Uint")
		}
		_ = ev.Field(i).Value()
		if v := ev.Field(i); v.Type().Base() == TypePooledString {
			d.LookupString(v.PoolID())
		}
	}
}

// TestSweepVectors runs truncation and corruption sweeps over every vector
// in both decoding modes, and a short sweep over the golden gzip traces.
func TestSweepVectors(t *testing.T) {
	for name, data := range allVectors(t) {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			o := fuzz.Options{}
			if raceEnabled {
				o = fuzz.Options{MaxCases: 128, RandomEdits: 16}
			}
			fuzz.Sweep(t, data, decodeBytes, o)
			fuzz.Sweep(t, data, decodeStream, fuzz.Options{MaxCases: 64, RandomEdits: 16})
		})
	}
	if testing.Short() || raceEnabled {
		return
	}
	for _, name := range []string{"demo-trace@6050208.bin.gz", "demo-trace@6342350.bin.gz"} {
		gz := vectortest.Read(t, "dial9", "golden", name)
		// Each case decodes a 4 MB trace: few cases, a generous time bound
		// for a loaded machine.
		fuzz.Sweep(t, gz, decodeBytes, fuzz.Options{MaxCases: 4, RandomEdits: 2, Timeout: time.Minute})
	}
}

func TestGzipErrors(t *testing.T) {
	var plain bytes.Buffer
	e := mustWriter(&plain)
	h, err := e.Register("A", []FieldDef{{"a", TypeVarint}})
	must(t, err)
	for i := range 1000 {
		must(t, e.WriteUints(h, uint64(i)*10, uint64(i)))
	}
	must(t, e.Flush())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	full := gz.Bytes()

	d, err := NewBytesReader(full)
	must(t, err)
	n := 0
	for d.Next() {
		n++
	}
	if d.Err() != nil || n != 1000 {
		t.Fatalf("gzip: %d events, %v", n, d.Err())
	}
	if err := decodeBytes(full[:len(full)/2]); !errors.Is(err, ErrTruncated) {
		t.Errorf("cut gzip: %v", err)
	}
	bad := bytes.Clone(full)
	bad[len(bad)-5] ^= 0xff // CRC trailer
	if err := decodeBytes(bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("bad gzip trailer: %v", err)
	}
	// Concatenated gzip members read as one stream.
	two := append(bytes.Clone(full), full...)
	d, err = NewBytesReader(two)
	must(t, err)
	n = 0
	for d.Next() {
		n++
	}
	if d.Err() != nil || n != 2000 || d.Headers() != 2 {
		t.Errorf("two members: %d events, %d headers, %v", n, d.Headers(), d.Err())
	}
	// An I/O error is passed through, not a FormatError.
	d, err = NewReader(io.MultiReader(bytes.NewReader(plain.Bytes()[:100]), iotest.ErrReader(io.ErrClosedPipe)))
	must(t, err)
	for d.Next() {
	}
	var fe *FormatError
	if !errors.Is(d.Err(), io.ErrClosedPipe) || errors.As(d.Err(), &fe) {
		t.Errorf("I/O error: %v", d.Err())
	}
}

// TestHandmadeSmallAllocations: every hand-made hostile vector is decoded
// (or refused) allocating no more than 256 KiB + 64 bytes per input byte.
func TestHandmadeSmallAllocations(t *testing.T) {
	for name, data := range allVectors(t) {
		if !strings.HasPrefix(name, "handmade/") {
			continue
		}
		fuzz.Check(t, data, decodeBytes, fuzz.Options{AllocConst: 256 << 10})
		fuzz.Check(t, data, decodeStream, fuzz.Options{AllocConst: 256 << 10})
	}
}

func TestAllYieldsErrorLast(t *testing.T) {
	data := vectortest.Read(t, "dial9", "handmade", "hm05_event_unknown_type_id.bin")
	d, err := NewBytesReader(data)
	must(t, err)
	var events int
	var last error
	for ev, err := range d.All() {
		if err != nil {
			last = err
			if ev != nil {
				t.Error("event with the error")
			}
			continue
		}
		events++
	}
	if events != 1 || !errors.Is(last, ErrUnknownType) {
		t.Errorf("%d events, error %v", events, last)
	}
	// Breaking out early stops cleanly.
	d, _ = NewBytesReader(vectortest.Read(t, "dial9", "v0.2.0", "10_varint_edges.bin"))
	for range d.All() {
		break
	}
	if !d.Next() || d.Event().Field(0).Uint() != 1 {
		t.Error("decoder does not resume after a break")
	}
}

// TestAnnotations: annotation frames attach to their schema and accumulate;
// an identical re-registration after them is accepted (upstream 0.4 reports
// a spurious conflict); a frame for an unknown type id attaches to nothing.
func TestAnnotations(t *testing.T) {
	var buf bytes.Buffer
	e := mustWriter(&buf)
	fields := []FieldDef{{"lat", TypeVarint}, {"name", TypeString}}
	h, err := e.Register("Req", fields, WithAnnotations(Annotation{0, "metrique.unit", "microseconds"}))
	must(t, err)
	must(t, e.WriteAnnotations(h, []Annotation{{1, "k", "v"}}))
	must(t, e.Flush())
	out := AppendSchema(buf.Bytes(), &Schema{ID: h.ID(), Name: "Req", HasTimestamp: true, Fields: fields})
	out = AppendAnnotations(out, 99, []Annotation{{0, "x", "y"}})
	d, err := NewBytesReader(out)
	must(t, err)
	var kinds []FrameKind
	for d.NextFrame() {
		kinds = append(kinds, d.Kind())
		if d.Kind() == FrameAnnotations {
			id, ents := d.Annotations()
			if (id == 99) != (d.Schema() == nil) || len(ents) != 1 {
				t.Errorf("annotations frame for %d: schema %v, %d entries", id, d.Schema(), len(ents))
			}
		}
	}
	must(t, d.Err())
	want := []FrameKind{FrameSchema, FrameAnnotations, FrameAnnotations, FrameSchema, FrameAnnotations}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("frames %v, want %v", kinds, want)
	}
	s := d.SchemaByID(h.ID())
	if len(s.Annotations) != 2 || s.Annotations[0].Value != "microseconds" || s.Annotations[1].Key != "k" {
		t.Errorf("annotations: %+v", s.Annotations)
	}
}
