package dial9

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// eventLog decodes every event with next and records everything a reader
// can see of it, then the error.
func eventLog(d *Reader, next func(*Reader) bool) string {
	var sb strings.Builder
	for next(d) {
		ev := d.Event()
		fmt.Fprintf(&sb, "%d@%d ts=%d off=%d %s %x:", ev.TypeID(), d.StreamOffset(), ev.Timestamp(), d.FrameOffset(), d.Schema().Name, ev.Payload())
		for i := 0; i < ev.NumFields(); i++ {
			v := ev.Field(i)
			fmt.Fprintf(&sb, " %v/%d/%t/%x", ev.FieldType(i), ev.Uint(i), v.Present(), v.Raw())
		}
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "err: %v", d.Err())
	return sb.String()
}

// generalNext is Next without its fast path: NextFrame (which parses every
// event frame with event) until an event.
func generalNext(d *Reader) bool {
	for d.NextFrame() {
		if d.Kind() == FrameEvent {
			return true
		}
	}
	return false
}

func fastNext(d *Reader) bool { return d.Next() }

// checkFastPath decodes data with Next and with the general parser, from a
// byte slice and streaming, and requires identical results.
func checkFastPath(t testing.TB, name string, data []byte) {
	t.Helper()
	dec := func(stream bool) *Reader {
		var d *Reader
		var err error
		if stream {
			d, err = NewReader(bytes.NewReader(data), WithBufferSize(16))
		} else {
			d, err = NewBytesReader(data)
		}
		if err != nil {
			return nil
		}
		return d
	}
	for _, stream := range []bool{false, true} {
		d1, d2 := dec(stream), dec(stream)
		if d1 == nil || d2 == nil {
			continue
		}
		// In lockstep, without formatting: the logs (eventLog) are built
		// only to show a difference. (Formatting every event made each
		// fuzz execution cost milliseconds.)
		if sameEvents(d1, d2) {
			continue
		}
		fast, general := eventLog(dec(stream), fastNext), eventLog(dec(stream), generalNext)
		t.Fatalf("%s (stream %t): Next and the general parser differ\nNext:\n%s\ngeneral:\n%s", name, stream, fast, general)
	}
}

// sameEvents reads fast with Next and general with the general parser and
// reports whether they see the same events, field by field (what eventLog
// records), and the same error.
// schemaName is the name of the current event's schema ("" without one):
// two readers of the same bytes hold equal schemas, not the same pointers.
func schemaName(d *Reader) string {
	if s := d.Schema(); s != nil {
		return s.Name
	}
	return ""
}

func sameEvents(fast, general *Reader) bool {
	for {
		ok1, ok2 := fastNext(fast), generalNext(general)
		if ok1 != ok2 {
			return false
		}
		if !ok1 {
			break
		}
		a, b := fast.Event(), general.Event()
		if a.TypeID() != b.TypeID() || fast.StreamOffset() != general.StreamOffset() || a.Timestamp() != b.Timestamp() ||
			fast.FrameOffset() != general.FrameOffset() || schemaName(fast) != schemaName(general) || !bytes.Equal(a.Payload(), b.Payload()) || a.NumFields() != b.NumFields() {
			return false
		}
		for i := 0; i < a.NumFields(); i++ {
			va, vb := a.Field(i), b.Field(i)
			if a.FieldType(i) != b.FieldType(i) || a.Uint(i) != b.Uint(i) || va.Present() != vb.Present() || !bytes.Equal(va.Raw(), vb.Raw()) {
				return false
			}
		}
	}
	e1, e2 := fast.Err(), general.Err()
	return (e1 == nil) == (e2 == nil) && (e1 == nil || e1.Error() == e2.Error())
}

// fastPathStream has every simpleType field, varints of every length (the
// last ones close to the end, where Next leaves them to the general
// parser), and a type the fast path does not take.
func fastPathStream(t testing.TB) []byte {
	var buf bytes.Buffer
	e := mustWriter(&buf)
	all, err := e.Register("All", []FieldDef{{"v", TypeVarint}, {"u8", TypeU8}, {"u16", TypeU16}, {"u32", TypeU32},
		{"b", TypeBool}, {"i", TypeI64}, {"f", TypeF64}, {"s", TypeStackFrames}, {"ps", TypePooledString}, {"pk", TypePooledStackFrames}})
	must2(t, err)
	vs, err := e.Register("Vs", []FieldDef{{"a", TypeVarint}, {"b", TypeVarint}})
	must2(t, err)
	opt, err := e.Register("Opt", []FieldDef{{"a", TypeVarint | Optional}, {"s", TypeString}})
	must2(t, err)
	ts := uint64(5)
	for _, i := range []int{0, 1, 7, 8, 20, 49, 56, 63, 64} {
		v := uint64(1)<<uint(i) - 1
		ts += uint64(i) * 1000
		must2(t, e.Begin(all, ts).Varint(v).U8(uint8(i)).U16(uint16(v)).U32(uint32(v)).Bool(i%2 == 0).I64(-int64(i)).
			F64(float64(i)/3).Stack([]uint64{v, uint64(i)}[:i%3]).PooledString(uint32(i)).PooledStack(uint32(v)).End())
		must2(t, e.Begin(opt, ts).Varint(v).String("x").End())
		must2(t, e.WriteUints(vs, ts+uint64(i)<<30, math.MaxUint64-v, v))
	}
	must2(t, e.WriteUints(vs, ts, 300, math.MaxUint64))
	must2(t, e.Flush())
	return buf.Bytes()
}

func TestFastPathMatchesGeneral(t *testing.T) {
	data := fastPathStream(t)
	checkFastPath(t, "stream", data)
	for n := range len(data) {
		checkFastPath(t, fmt.Sprintf("truncated to %d", n), data[:n])
	}
	c := make([]byte, len(data))
	for i := range data {
		for _, x := range []byte{0x00, 0x7f, 0x80, 0xff} {
			copy(c, data)
			c[i] = x
			checkFastPath(t, fmt.Sprintf("byte %d = %#x", i, x), c)
		}
	}
}

func TestFastPathMatchesGeneralVectors(t *testing.T) {
	dir := vectortest.Dir(t, "dial9")
	n := 0
	err := filepath.WalkDir(dir, func(path string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(path, ".bin") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checkFastPath(t, path, data)
		n++
		return nil
	})
	must2(t, err)
	if n == 0 {
		t.Fatal("no .bin vectors")
	}
}

// FuzzFastPath checks Next's fast path against the general parser on
// arbitrary input.
func FuzzFastPath(f *testing.F) {
	// Small seeds (1 KB and ≈350 bytes): each input that finds new
	// coverage is minimised before the fuzzer goes on, and minimising
	// costs time per byte (a 3.4 KB seed of 200 events left the CI smoke
	// with 3 executions in its time).
	f.Add(fastPathStream(f))
	var buf bytes.Buffer
	e := mustWriter(&buf)
	var w workload
	w.register(e)
	for i := range 20 {
		must2(f, w.writeEvent(e, i, uint64(1000*i)))
	}
	must2(f, e.Flush())
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastPath(t, "input", data)
	})
}

// TestVarint8 checks the word-at-a-time varint decoder against uvarint:
// every length from 1 to 8 bytes (and longer ones, which it leaves to the
// caller), overlong encodings, every value of every byte in each position.
func TestVarint8(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		var w [8]byte
		copy(w[:], b)
		v, k := varint8(binary.LittleEndian.Uint64(w[:]))
		wv, wk := uvarint(b)
		if wk > 8 || wk <= 0 {
			wv, wk = 0, 0
		}
		if v != wv || k != wk {
			t.Fatalf("% x: varint8 %d (%d bytes), uvarint %d (%d bytes)", b, v, k, wv, wk)
		}
	}
	for _, v := range []uint64{0, 1, 127, 128, 300, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28, 1<<35 + 5, 1<<42 - 1, 1<<49 + 3, 1<<56 - 1, 1 << 56, 1<<63 + 1, math.MaxUint64} {
		b := binary.AppendUvarint(nil, v)
		check(append(b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
	}
	for k := 1; k <= 9; k++ {
		for pos := 0; pos < k; pos++ {
			for x := 0; x < 256; x++ {
				b := bytes.Repeat([]byte{0x80}, k)
				b[k-1] = 0
				b[pos] = byte(x)
				if pos != k-1 {
					b[pos] |= 0x80
				}
				check(append(b, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01))
			}
		}
	}
}

// TestSameEventsSeesDifferences: the lockstep comparison FuzzFastPath and
// checkFastPath use fails on streams that differ in one event field, in
// length, or in the error, and passes on the same stream.
func TestSameEventsSeesDifferences(t *testing.T) {
	data := fastPathStream(t)
	open := func(b []byte) *Reader {
		d, err := NewBytesReader(b)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if !sameEvents(open(data), open(data)) {
		t.Fatal("the same stream differs")
	}
	last := bytes.Clone(data)
	last[len(last)-1] ^= 1 // the last event's last field byte
	if sameEvents(open(data), open(last)) {
		t.Error("a changed field byte went unseen")
	}
	if sameEvents(open(data), open(data[:len(data)-1])) {
		t.Error("a cut stream went unseen")
	}
}

// TestStackView pins Stack over its 8-byte groups: Len, At, Raw and
// AppendTo give the encoded addresses back, an empty stack has none, and
// At past the end panics as a slice index does.
func TestStackView(t *testing.T) {
	b := binary.LittleEndian.AppendUint64(nil, 0x1122334455667788)
	b = binary.LittleEndian.AppendUint64(b, 2)
	b = binary.LittleEndian.AppendUint64(b, math.MaxUint64)
	s := stackOf(b)
	if s.Len() != 3 || s.At(0) != 0x1122334455667788 || s.At(1) != 2 || s.At(2) != math.MaxUint64 {
		t.Fatalf("stack of %x: len %d, %v", b, s.Len(), s.AppendTo(nil))
	}
	if !bytes.Equal(s.Raw(), b) || len(s.Raw()) != 24 || fmt.Sprint(s.AppendTo([]uint64{9})) != "[9 1234605616436508552 2 18446744073709551615]" {
		t.Errorf("Raw %x, AppendTo %v", s.Raw(), s.AppendTo([]uint64{9}))
	}
	for _, e := range []Stack{{}, stackOf(nil), stackOf(b[:0])} {
		if e.Len() != 0 || e.Raw() != nil || len(e.AppendTo(nil)) != 0 {
			t.Errorf("empty stack: len %d, raw %x", e.Len(), e.Raw())
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("At(3) of a 3-address stack did not panic")
		}
	}()
	_ = s.At(3)
}

// TestEventAccessorsCheckNumFields pins the one check of Event.Uint and
// Event.Field: i < NumFields() of the current event, although the
// Reader's value and offset arrays are as long as its widest schema's
// (an index past the event's last field once read a value left there by
// an earlier, wider event).
func TestEventAccessorsCheckNumFields(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	wide, err := w.Register("Wide", []FieldDef{{"a", TypeVarint}, {"b", TypeVarint}, {"c", TypeVarint}})
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := w.Register("Narrow", []FieldDef{{"a", TypeVarint}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteUints(wide, 10, 7, 8, 9); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteUints(narrow, 11, 5); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	d, err := NewBytesReader(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !d.Next() || !bytes.Equal(d.Event().Payload(), []byte{7, 8, 9}) {
		t.Fatalf("wide event: payload %x, %v", d.Event().Payload(), d.Err())
	}
	if !d.Next() {
		t.Fatalf("two events expected: %v", d.Err())
	}
	ev := d.Event()
	if ev.NumFields() != 1 || ev.Uint(0) != 5 || ev.Field(0).Uint() != 5 || !bytes.Equal(ev.Payload(), []byte{5}) {
		t.Fatalf("narrow event: %d fields, Uint(0) %d, Field(0) %d, payload %x", ev.NumFields(), ev.Uint(0), ev.Field(0).Uint(), ev.Payload())
	}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Uint(1)", func() { _ = ev.Uint(1) }},
		{"Uint(-1)", func() { _ = ev.Uint(-1) }},
		{"Field(1)", func() { _ = ev.Field(1) }},
		{"Field(-1)", func() { _ = ev.Field(-1) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s of a one-field event did not panic", c.name)
				}
			}()
			c.f()
		}()
	}
}

// TestViewFitsInRegisters pins View at 32 bytes: up to that size (four
// words) the compiler keeps a struct in registers, so that Event.Field
// and View's accessors inline without copying the View through memory
// (with its type first it padded to 40 and cost 7 instructions per event
// reading every field of the codec_iai stream).
func TestViewFitsInRegisters(t *testing.T) {
	if s := unsafe.Sizeof(View{}); s > 4*unsafe.Sizeof(uintptr(0)) {
		t.Errorf("View is %d bytes", s)
	}
}

// TestStackOfMatchesUnsafeSlice pins stackOf's view, built from a slice's
// three words, against unsafe.Slice over the same bytes: same data
// pointer, length and capacity, for lengths that are and are not
// multiples of 8, and a view of a sub-slice.
func TestStackOfMatchesUnsafeSlice(t *testing.T) {
	if unsafe.Sizeof(stackHeader{}) != unsafe.Sizeof([][8]byte(nil)) ||
		unsafe.Offsetof(stackHeader{}.len) != unsafe.Sizeof(uintptr(0)) ||
		unsafe.Offsetof(stackHeader{}.cap) != 2*unsafe.Sizeof(uintptr(0)) {
		t.Fatalf("stackHeader is not a slice's layout")
	}
	buf := make([]byte, 200)
	for i := range buf {
		buf[i] = byte(i)
	}
	for _, b := range [][]byte{buf, buf[:8], buf[:15], buf[3:131], buf[:7], buf[:0], buf[8:8]} {
		got := stackOf(b).a
		n := len(b) >> 3
		if n == 0 {
			if got != nil {
				t.Errorf("%d bytes: %d addresses, want none", len(b), len(got))
			}
			continue
		}
		want := unsafe.Slice((*[8]byte)(unsafe.Pointer(&b[0])), n)
		if len(got) != len(want) || cap(got) != cap(want) || &got[0] != &want[0] || &got[n-1] != &want[n-1] {
			t.Errorf("%d bytes: len %d cap %d data %p, want len %d cap %d data %p", len(b), len(got), cap(got), &got[0], len(want), cap(want), &want[0])
		}
		if s := stackOf(b); s.At(n-1) != binary.LittleEndian.Uint64(b[8*(n-1):]) {
			t.Errorf("%d bytes: last address %x", len(b), s.At(n-1))
		}
	}
}
