package events

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/dial9"
)

// A dial9 stream with timestamps at and past 2^63: the layer carries
// MaxInt64 for them and Recovery says how many were saturated (issue 21:
// never clamped silently); a stream without them has no such note.
func TestTimesPastInt64Reported(t *testing.T) {
	write := func(stamps ...uint64) []byte {
		var buf bytes.Buffer
		w, err := dial9.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.Register("Mark", []dial9.FieldDef{{Name: "v", Type: dial9.TypeVarint}})
		if err != nil {
			t.Fatal(err)
		}
		for _, ts := range stamps {
			if err := w.WriteUints(id, ts, 1); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	var exact []string // ts_ns of the JSON lines
	read := func(b []byte) ([]int64, string) {
		r, err := OpenBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var times []int64
		exact = exact[:0]
		for r.Next() {
			times = append(times, r.Event().Time())
			line := string(r.Event().AppendJSON(nil))
			i := strings.Index(line, `"ts_ns":`) + len(`"ts_ns":`)
			exact = append(exact, line[i:i+strings.IndexByte(line[i:], ',')])
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		if rec := r.Recovery(); rec != nil {
			return times, rec.String()
		}
		return times, ""
	}

	times, note := read(write(5, 1<<63, math.MaxUint64, math.MaxInt64))
	want := []int64{5, math.MaxInt64, math.MaxInt64, math.MaxInt64}
	if len(times) != len(want) {
		t.Fatalf("times %v, want %v", times, want)
	}
	for i := range want {
		if times[i] != want[i] {
			t.Fatalf("times %v, want %v", times, want)
		}
	}
	if !strings.Contains(note, "2 timestamps at or past 2^63") || !strings.Contains(note, "read 4 events") {
		t.Errorf("recovery %q, want a note of 2 saturated timestamps after 4 events", note)
	}
	// The JSON lines carry them exactly (uint64).
	if want := []string{"5", "9223372036854775808", "18446744073709551615", "9223372036854775807"}; strings.Join(exact, " ") != strings.Join(want, " ") {
		t.Errorf("JSON ts_ns %v, want %v", exact, want)
	}

	if _, note := read(write(5, math.MaxInt64)); note != "" {
		t.Errorf("no time past 2^63, but recovery %q", note)
	}
}
