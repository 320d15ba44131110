package dial9

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/tracecodec/tracecodec/fuzz"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// decodedEvent is an owned copy of an event for comparisons.
type decodedEvent struct {
	Name     string
	TypeID   uint16
	HasTS    bool
	TS       uint64
	Values   []Value
	Resolved []any // pooled strings and stacks resolved at the event
}

func collectEvents(d *Reader) []decodedEvent {
	var out []decodedEvent
	for d.Next() {
		ev := d.Event()
		de := decodedEvent{Name: ev.Name(), TypeID: ev.TypeID(), HasTS: ev.HasTimestamp()}
		if de.HasTS {
			de.TS = ev.Timestamp()
		}
		for i := 0; i < ev.NumFields(); i++ {
			v := ev.Field(i)
			de.Values = append(de.Values, v.Value())
			if !v.Present() {
				continue
			}
			switch v.Type().Base() {
			case TypePooledString:
				s, ok := d.LookupString(v.PoolID())
				de.Resolved = append(de.Resolved, string(s), ok)
			case TypePooledStackFrames:
				s, ok := d.LookupStack(v.PoolID())
				de.Resolved = append(de.Resolved, s.AppendTo(nil), ok)
			}
		}
		out = append(out, de)
	}
	return out
}

// reencode writes what d decodes with a Writer, frame by frame: schemas
// with their ids, pool and annotation frames as they are, events from their
// values, a Reset at every header. ok is false when the input cannot be
// expressed through the Writer API (one name under two ids in one stream).
func reencode(t testing.TB, data []byte) (out []byte, ok bool) {
	d, err := NewBytesReader(data, WithAnyVersion())
	if err != nil {
		return nil, false
	}
	var buf bytes.Buffer
	e := mustWriter(&buf)
	handles := map[uint16]Handle{}
	headers := d.Headers()
	for d.NextFrame() {
		if d.Headers() != headers {
			headers = d.Headers()
			if err := e.Reset(&buf); err != nil {
				t.Fatal(err)
			}
			clear(handles)
		}
		switch d.Kind() {
		case FrameSchema:
			s := d.Schema()
			opts := []SchemaOption{WithTypeID(s.ID)}
			if !s.HasTimestamp {
				opts = append(opts, WithoutTimestamp())
			}
			h, err := e.Register(s.Name, s.Fields, opts...)
			if err != nil {
				if errors.Is(err, ErrSchemaConflict) {
					return nil, false
				}
				t.Fatalf("register %q: %v", s.Name, err)
			}
			handles[s.ID] = h
		case FrameStringPool:
			var ents []StringPoolEntry
			for _, en := range d.StringPoolEntries() {
				ents = append(ents, StringPoolEntry{ID: en.ID, Data: bytes.Clone(en.Data)})
			}
			must2(t, e.WriteStringPool(ents))
		case FrameStackPool:
			var ents []StackEntry
			for _, en := range d.StackPoolEntries() {
				ents = append(ents, StackEntry{ID: en.ID, Frames: en.Frames.AppendTo(nil)})
			}
			must2(t, e.WriteStackPool(ents))
		case FrameAnnotations:
			id, ents := d.Annotations()
			if h, ok := handles[id]; ok {
				must2(t, e.WriteAnnotations(h, ents))
			}
		case FrameEvent:
			ev := d.Event()
			var vals []Value
			for i := 0; i < ev.NumFields(); i++ {
				vals = append(vals, ev.Field(i).Value())
			}
			if err := e.WriteEvent(handles[ev.TypeID()], ev.Timestamp(), vals); err != nil {
				t.Fatalf("re-encoding event %s at %d: %v", ev.Name(), d.FrameOffset(), err)
			}
		}
	}
	must2(t, e.Flush())
	return buf.Bytes(), true
}

func must2(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// checkRoundTrip: the events of data (up to its first error) equal the
// events of its re-encoding, which decodes without error.
func checkRoundTrip(t testing.TB, data []byte) {
	out, ok := reencode(t, data)
	if !ok {
		return
	}
	d1, _ := NewBytesReader(data, WithAnyVersion())
	want := collectEvents(d1)
	d2, err := NewBytesReader(out)
	if err != nil {
		t.Fatalf("re-encoded stream: %v", err)
	}
	got := collectEvents(d2)
	if d2.Err() != nil {
		t.Fatalf("re-encoded stream: %v", d2.Err())
	}
	if !reflect.DeepEqual(normalizeNaN(got), normalizeNaN(want)) {
		t.Fatalf("round trip differs:\n got  %+v\n want %+v", got, want)
	}
}

// normalizeNaN makes NaN values comparable (DeepEqual treats NaN ≠ NaN).
func normalizeNaN(evs []decodedEvent) []decodedEvent {
	var fix func(v *Value)
	fix = func(v *Value) {
		if math.IsNaN(v.F) {
			v.F = 0
			v.U = math.Float64bits(math.NaN()) // marker
		}
		for i := range v.Elems {
			fix(&v.Elems[i])
		}
	}
	for i := range evs {
		for j := range evs[i].Values {
			fix(&evs[i].Values[j])
		}
	}
	return evs
}

func TestRoundTripVectors(t *testing.T) {
	for name, data := range allVectors(t) {
		t.Run(name, func(t *testing.T) { checkRoundTrip(t, data) })
	}
	// The first 256 KiB of the 0.4-era golden trace (stack pool, optional
	// fields, spans); events up to the cut are compared.
	gz := vectortest.Read(t, "dial9", "golden", "demo-trace@6342350.bin.gz")
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	must(t, err)
	head := make([]byte, 256<<10)
	_, err = io.ReadFull(zr, head)
	must(t, err)
	checkRoundTrip(t, head)
}

// TestRoundTripAllTypes writes every field type, optional variants and
// nested dynamic containers, and reads them back.
func TestRoundTripAllTypes(t *testing.T) {
	var buf bytes.Buffer
	e := mustWriter(&buf)
	str := e.InternString("pooled")
	stk := e.InternStack([]uint64{1, 2, 3})
	var fields []FieldDef
	for ft := TypeI64; ft <= TypeDynamicMap; ft++ {
		fields = append(fields, FieldDef{ft.String(), ft}, FieldDef{"opt" + ft.String(), ft | Optional})
	}
	h, err := e.Register("Everything", fields, WithAnnotations(Annotation{Field: 8, Key: "metrique.unit", Value: "ns"}))
	must(t, err)
	list := List(Varint(1), String("two"), List(Bool(true), F64(2.5)), Map(String("k"), I64(-3)), StackFrames(7), U16(9))
	dmap := Map(Varint(1), StringMap(KV{"a", "b"}), Bytes([]byte{1, 2}), PooledString(str))
	vals := []Value{I64(-5), F64(1.5), Bool(true), String("s"), Bytes([]byte{0, 1}), PooledStack(stk), PooledString(str),
		StackFrames(10, 20), Varint(1 << 40), StringMap(KV{"x", "y"}, KV{"x", "z"}), U8(8), U16(16), U32(32), list, dmap}
	var all []Value
	for _, v := range vals {
		all = append(all, v, v)
	}
	must(t, e.WriteEvent(h, 123, all))
	var absent []Value
	for _, v := range vals {
		absent = append(absent, v, Absent())
	}
	must(t, e.WriteEvent(h, 1<<40, absent))
	must(t, e.Flush())

	d, err := NewBytesReader(buf.Bytes())
	must(t, err)
	evs := collectEvents(d)
	must(t, d.Err())
	if len(evs) != 2 || evs[0].TS != 123 || evs[1].TS != 1<<40 {
		t.Fatalf("events: %+v", evs)
	}
	if !reflect.DeepEqual(evs[0].Values, all) {
		t.Errorf("values:\n got  %+v\n want %+v", evs[0].Values, all)
	}
	if !reflect.DeepEqual(evs[1].Values, absent) {
		t.Errorf("absent values:\n got  %+v\n want %+v", evs[1].Values, absent)
	}
	s := d.SchemaByID(h.ID())
	if len(s.Annotations) != 1 || s.Annotations[0].Key != "metrique.unit" {
		t.Errorf("annotations: %+v", s.Annotations)
	}
	// Field access by name and typed accessors.
	d, _ = NewBytesReader(buf.Bytes())
	if !d.Next() {
		t.Fatal(d.Err())
	}
	ev := d.Event()
	if v, ok := ev.FieldByName("String"); !ok || v.Str() != "s" {
		t.Errorf("FieldByName(String) = %v %v", v, ok)
	}
	if v, _ := ev.FieldByName("optVarint"); v.Uint() != 1<<40 || !v.Present() {
		t.Errorf("optVarint = %d", v.Uint())
	}
	if v, _ := ev.FieldByName("F64"); v.Float() != 1.5 {
		t.Errorf("F64 = %v", v.Float())
	}
	if v, _ := ev.FieldByName("PooledString"); string(must1(ev.String(v.PoolID()))) != "pooled" {
		t.Error("pooled string not resolved")
	}
	if _, ok := ev.FieldByName("nope"); ok {
		t.Error("unknown field found")
	}
}

func must1[T any](v T, ok bool) T { return v }

// TestEncoderChecks: type mismatches, wrong field counts and bad handles are
// refused and leave no bytes behind.
func TestEncoderChecks(t *testing.T) {
	var buf bytes.Buffer
	e := mustWriter(&buf)
	h, err := e.Register("S", []FieldDef{{"a", TypeU8}, {"b", TypeString}})
	must(t, err)
	before := len(e.Buffered())
	base := e.TimestampBase()
	for name, fn := range map[string]func() error{
		"varint into U8":   func() error { return e.Begin(h, 1<<30).Varint(1).String("x").End() },
		"too few fields":   func() error { return e.Begin(h, 1<<30).U8(1).End() },
		"too many fields":  func() error { return e.Begin(h, 1<<30).U8(1).String("x").U8(2).End() },
		"absent required":  func() error { return e.Begin(h, 1<<30).Absent().String("x").End() },
		"out of range":     func() error { return e.Begin(h, 1<<30).Uint(256).String("x").End() },
		"unknown handle":   func() error { return e.Begin(Handle{idx: 7, id: 7}, 1).End() },
		"generic mismatch": func() error { return e.WriteEvent(h, 1<<30, []Value{U16(1), String("x")}) },
	} {
		if err := fn(); !errors.Is(err, ErrEncode) {
			t.Errorf("%s: %v", name, err)
		}
		if len(e.Buffered()) != before || e.TimestampBase() != base {
			t.Errorf("%s: left %d bytes behind", name, len(e.Buffered())-before)
		}
	}
	if _, err := e.Register("T", []FieldDef{{"a", 0x10}}); !errors.Is(err, ErrEncode) {
		t.Errorf("unknown field type: %v", err)
	}
	must(t, e.Begin(h, 5).Uint(255).String("ok").End())
}

func FuzzDecode(f *testing.F) {
	for _, data := range allVectors(f) {
		f.Add(data)
	}
	// The pool-bomb shapes of hostile_test.go, small: gzip-compressed runs
	// of one-entry string-pool frames (dense, one id, sparse ids).
	f.Add(poolBomb(3000, func(i int) uint32 { return uint32(i) }, "ab"))
	f.Add(poolBomb(3000, func(int) uint32 { return 7 }, "ab"))
	f.Add(poolBomb(1000, func(i int) uint32 { return uint32(i) * 2654435761 }, "abcdefgh"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzz.Check(t, data, decodeBytes)
		fuzz.Check(t, data, decodeStream)
	})
}

func FuzzRoundTrip(f *testing.F) {
	for _, data := range allVectors(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		checkRoundTrip(t, data)
	})
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

// TestEncoderWriteErrorIsSticky: after a failed write nothing more is
// buffered and every call reports the error.
func TestEncoderWriteErrorIsSticky(t *testing.T) {
	fw := &failWriter{}
	e := mustWriter(fw)
	h, err := e.Register("S", []FieldDef{{"a", TypeString}})
	must(t, err)
	big := string(bytes.Repeat([]byte{'x'}, defaultFlushSize))
	if err := e.Begin(h, 1).String(big).End(); err == nil {
		t.Fatal("no error from a failing writer")
	}
	n := len(e.Buffered())
	for range 10 {
		if err := e.Begin(h, 2).String(big).End(); err == nil || err.Error() != "disk full" {
			t.Fatalf("later write: %v", err)
		}
		e.InternString(big[:100])
	}
	if len(e.Buffered()) != n || fw.n != 1 {
		t.Errorf("buffer grew from %d to %d; %d writes", n, len(e.Buffered()), fw.n)
	}
	if _, err := e.Register("T", nil); err == nil {
		t.Error("Register after a write error")
	}
	if e.Flush() == nil || e.Close() == nil {
		t.Error("Flush after a write error")
	}
}

// TestUnfinishedEventIsDiscarded: an event begun and never ended does not
// reach the stream; frames written while an event is open go before it.
func TestUnfinishedEventIsDiscarded(t *testing.T) {
	var buf bytes.Buffer
	e := mustWriter(&buf)
	h, err := e.Register("S", []FieldDef{{"a", TypeVarint}, {"b", TypePooledString}})
	must(t, err)
	e.Begin(h, 1<<30).Varint(1) // not ended; needed a reset frame
	e.Begin(h, 5).Varint(2)     // not ended
	must(t, e.WriteEvent(h, 7, []Value{Varint(3), PooledString(e.InternString("x"))}))
	// Interning inside the chain: the pool frames precede the event.
	must(t, e.Begin(h, 8).Varint(4).PooledString(e.InternString("late")).End())
	w := e.Begin(h, 9).Varint(5)
	h2, err := e.Register("T", []FieldDef{{"x", TypeU8}})
	must(t, err)
	must(t, w.PooledString(e.InternString("later")).End())
	must(t, e.WriteUints(h2, 10, 1))
	e.Begin(h, 11).Varint(6)
	must(t, e.Flush())
	if err := e.ew.End(); !errors.Is(err, ErrEncode) {
		t.Errorf("End without Begin: %v", err)
	}
	d, err := NewBytesReader(buf.Bytes())
	must(t, err)
	evs := collectEvents(d)
	must(t, d.Err())
	if d.Resets() != 0 || len(evs) != 4 || evs[0].TS != 7 || evs[1].TS != 8 || evs[2].TS != 9 || evs[3].TS != 10 {
		t.Fatalf("events %+v, %d resets", evs, d.Resets())
	}
	if evs[1].Resolved[0] != "late" || evs[2].Resolved[0] != "later" {
		t.Errorf("pooled strings: %v %v", evs[1].Resolved, evs[2].Resolved)
	}
}
