package wtfcff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// consume does what a tool does with a file: every chunk, every argument
// of every event, scopes paired, and (binary files) the JSON conversion.
// Events are not rendered as text: a dump's size is the size of the strings
// its events refer to, however often, which no decoder can bound.
func consume(data []byte) error {
	r, err := NewBytesReader(data, WithRecovery())
	if err != nil {
		return err
	}
	st := NewScopeTracker()
	n := 0
	for e, err := range Events(r) {
		if err != nil {
			return err
		}
		for i := range e.NumArgs() {
			v := e.Arg(i)
			n += len(v.Bytes()) + v.Len() + int(v.Int())
		}
		st.Add(e)
	}
	_ = n
	if err := st.Err(); err != nil {
		return err
	}
	if Sniff(data) == KindBinary {
		return BinaryToJSON(io.Discard, bytes.NewReader(data), JSONComplete)
	}
	return nil
}

// checkBudget runs fn on input and fails when it allocates more than the
// package's memory budget (budgetRatio × input + budgetBase: all the bytes
// allocated, so peak memory is below it too) or runs for more than a
// generous time (a linear decoder takes milliseconds per megabyte here).
func checkBudget(t *testing.T, input []byte, fn func([]byte) error) error {
	t.Helper()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	err := fn(input)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&m1)
	alloc := int64(m1.TotalAlloc - m0.TotalAlloc)
	limit := budgetRatio*int64(len(input)) + budgetBase
	t.Logf("%d bytes in: %d bytes allocated (%.1f × input), %v, error: %v", len(input), alloc, float64(alloc)/float64(len(input)), elapsed, err)
	if alloc > limit {
		t.Errorf("allocated %d bytes for %d input bytes: over the budget of %d", alloc, len(input), limit)
	}
	if maxTime := 10*time.Second + time.Duration(len(input)>>20)*time.Second; elapsed > maxTime && !raceEnabled {
		t.Errorf("took %v for %d bytes", elapsed, len(input))
	}
	return err
}

// rec appends an event record: wire id, time, then one 4-byte slot per value.
func rec(b []byte, wire uint32, slots ...uint32) []byte {
	b = binary.LittleEndian.AppendUint32(b, wire)
	b = binary.LittleEndian.AppendUint32(b, 0)
	for _, s := range slots {
		b = binary.LittleEndian.AppendUint32(b, s)
	}
	return b
}

// hostileFile is a binary file: a file_header chunk, then one event_data
// chunk with the given strings and event buffer.
func hostileFile(t *testing.T, strs []string, events []byte) []byte {
	t.Helper()
	table, ok := AppendStringTable(nil, strs)
	if !ok {
		t.Fatal("NUL in a string")
	}
	b := AppendFileHeader(nil, 1)
	b = AppendChunk(b, &Chunk{ID: 1, Type: ChunkFileHeader, StartTime: InvalidTime, EndTime: InvalidTime,
		Parts: []Part{{Type: PartFileHeader, Data: []byte(`{"timebase":0}`)}}})
	return AppendChunk(b, &Chunk{ID: 2, Type: ChunkEventData, StartTime: InvalidTime, EndTime: InvalidTime,
		Parts: []Part{{Type: PartStringTable, Data: table}, {Type: PartBinaryEventBuffer, Data: events}}})
}

// define is a wtf.event#define record for wire id wire, with the name and
// signature at string ordinals name and sig.
func define(b []byte, wire, class, name, sig uint32) []byte {
	return rec(b, 1, wire, class, 0, name, sig)
}

// TestHostileInputs: each class of hostile input, generated here, stays
// within the memory budget and ends in time, with an error where the input
// is wrong.
func TestHostileInputs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds inputs of several megabytes; the bounds hold without the race detector's own memory and time")
	}
	t.Run("many defines sharing one long signature", func(t *testing.T) {
		var sig strings.Builder
		for i := range 20000 {
			if i > 0 {
				sig.WriteString(", ")
			}
			sig.WriteString("uint8 a" + strconv.Itoa(i))
		}
		strs := []string{sig.String()}
		var ev []byte
		for i := range 20000 {
			strs = append(strs, "n#"+strconv.Itoa(i))
			ev = define(ev, uint32(2+i), 0, uint32(1+i), 0)
		}
		if err := checkBudget(t, hostileFile(t, strs, ev), consume); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("many zones sharing a long location", func(t *testing.T) {
		strs := []string{strings.Repeat("x", 1<<20), "script", "wtf.zone#create", "uint16 zoneId, ascii name, ascii type, ascii location"}
		ev := define(nil, 2, 0, 2, 3)
		for i := range 30000 {
			strs = append(strs, "z"+strconv.Itoa(i))
			ev = rec(ev, 2, uint32(i), uint32(len(strs)-1), 1, 0)
		}
		if err := checkBudget(t, hostileFile(t, strs, ev), consume); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("many distinct event types", func(t *testing.T) {
		var strs []string
		var ev []byte
		for i := range 65535 {
			strs = append(strs, "type"+strconv.Itoa(i)+"#x")
			ev = define(ev, uint32(2+i%65000), 0, uint32(i), EmptyString)
		}
		if err := checkBudget(t, hostileFile(t, strs, ev), consume); !errors.Is(err, ErrLimit) {
			t.Fatalf("65535 types and wtf.event#define: %v", err)
		}
	})
	t.Run("deep scope nesting", func(t *testing.T) {
		ev := define(nil, 2, ClassScope, 0, 1)
		for range 300000 {
			ev = rec(ev, 2, EmptyString)
		}
		if err := checkBudget(t, hostileFile(t, []string{"wtf.scope#enter", "ascii name"}, ev), consume); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("nested scopes copying one long name", func(t *testing.T) {
		ev := define(nil, 2, ClassScope, 0, 1)
		for range 200000 {
			ev = rec(ev, 2, 2)
		}
		err := checkBudget(t, hostileFile(t, []string{"wtf.scope#enter", "ascii name", strings.Repeat("n", 64<<10)}, ev), consume)
		if !errors.Is(err, ErrLimit) {
			t.Fatalf("want ErrLimit, got %v", err)
		}
	})
	t.Run("scope data appended from one long string", func(t *testing.T) {
		ev := define(nil, 2, ClassScope, 0, 1)
		ev = define(ev, 3, 0, 2, 3)
		ev = rec(ev, 2, EmptyString)
		for range 100000 {
			ev = rec(ev, 3, 4, 5)
		}
		strs := []string{"wtf.scope#enter", "ascii name", "wtf.scope#appendData", "ascii name, any value", "k", `"` + strings.Repeat("v", 64<<10) + `"`}
		if err := checkBudget(t, hostileFile(t, strs, ev), consume); !errors.Is(err, ErrLimit) {
			t.Fatalf("want ErrLimit, got %v", err)
		}
	})
	t.Run("huge declared counts", func(t *testing.T) {
		hdr := AppendFileHeader(nil, 0)
		chunk := func(length, parts uint32) []byte {
			b := bytes.Clone(hdr)
			for _, v := range []uint32{1, 2, length, InvalidTime, InvalidTime, parts} {
				b = binary.LittleEndian.AppendUint32(b, v)
			}
			return append(b, make([]byte, 1000)...)
		}
		stream := func(b []byte) error { // the streaming reader, as for a pipe
			r, err := NewReader(bytes.NewReader(b))
			if err != nil {
				return err
			}
			for range r.All() {
			}
			return r.Err()
		}
		for _, in := range [][]byte{chunk(0xFFFFFFF0, 1), chunk(250<<20, 0), chunk(24, 0xFFFFFFFF), chunk(1<<20, 80000)} {
			if checkBudget(t, in, consume) == nil || checkBudget(t, in, stream) == nil {
				t.Errorf("%x: no error", in[12:36])
			}
		}
		// An array count of 2^31 - 1 in an event.
		ev := define(nil, 2, 0, 0, 1)
		ev = rec(ev, 2, 0x7FFFFFFF)
		if err := checkBudget(t, hostileFile(t, []string{"a#b", "uint32[] v"}, ev), consume); !errors.Is(err, ErrTruncated) {
			t.Errorf("array count: %v", err)
		}
		// Legacy strings and arrays claiming more than the file holds.
		legacy := []byte{0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 1, 0, 0, 0, 3, 0xFF, 0xFE, 0xFF, 0xFF}
		if err := checkBudget(t, legacy, consume); !errors.Is(err, ErrTruncated) {
			t.Errorf("legacy: %v", err)
		}
	})
	t.Run("JSON container with huge arrays", func(t *testing.T) {
		doc := func(parts string) []byte {
			return []byte(`{"wtfVersion":1,"formatVersion":10,"chunks":[{"id":1,"type":"event_data","parts":[` + parts + `]}]}`)
		}
		strTable := doc(`{"type":"string_table","value":[""` + strings.Repeat(`,""`, 2_000_000) + `]},{"type":"binary_event_buffer","mode":"base64","value":""}`)
		if err := checkBudget(t, strTable, consume); err != nil {
			t.Error(err)
		}
		defineJSON := `{"name":"wtf.event#define","time":0,"args":{"wireId":2,"eventClass":0,"flags":0,"name":"a#b","args":"uint8[] v"}}`
		events := doc(`{"type":"json_event_buffer","events":[` + defineJSON + strings.Repeat(`,{"name":"a#b","time":1}`, 300_000) + `]}`)
		if err := checkBudget(t, events, consume); err != nil { // the missing array is null
			t.Error(err)
		}
		events = doc(`{"type":"json_event_buffer","events":[` + defineJSON + strings.Repeat(`,{"name":"a#b","time":1,"args":{"v":[]}}`, 200_000) + `]}`)
		if err := checkBudget(t, events, consume); err != nil {
			t.Error(err)
		}
		numbers := doc(`{"type":"json_event_buffer","events":[` + defineJSON + `,{"name":"a#b","time":1,"args":{"v":[0` + strings.Repeat(",0", 3_000_000) + `]}}]}`)
		if err := checkBudget(t, numbers, consume); err != nil {
			t.Error(err)
		}
		parts := doc(strings.Repeat(`{},`, 1_000_000) + `{}`)
		if err := checkBudget(t, parts, consume); !errors.Is(err, ErrLimit) {
			t.Errorf("a million parts: %v", err)
		}
		deep := doc(`{"type":"json_event_buffer","events":[` + defineJSON + `,{"name":"a#b","time":1,"args":{"v":` + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + `}}]}`)
		if err := checkBudget(t, deep, consume); err == nil {
			t.Error("nesting 200 000 deep: no error")
		}
		chunks := []byte(`{"wtfVersion":1,"formatVersion":10,"chunks":[{}` + strings.Repeat(`,{}`, 1_000_000) + `]}`)
		if err := checkBudget(t, chunks, consume); err != nil {
			t.Error(err)
		}
	})
	t.Run("many chunks", func(t *testing.T) {
		b := AppendFileHeader(nil, 0)
		for i := range 200000 {
			b = AppendChunk(b, &Chunk{ID: uint32(i), Type: ChunkType(9), Parts: []Part{{Type: PartType(7)}}})
		}
		open := func(b []byte) error {
			f, err := OpenBytes(b)
			if err != nil {
				return err
			}
			for _, err := range f.All() {
				if err != nil {
					return err
				}
			}
			return nil
		}
		if err := checkBudget(t, b, open); err != nil {
			t.Error(err)
		}
		if err := checkBudget(t, b, consume); err != nil {
			t.Error(err)
		}
	})
}
