package schema7

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/cdt"
)

// The public defaulted types and their generated wire twins must keep the
// same msg tags (the Go conversion between them ignores tags).
func TestDefaultedTypesMatchTheirWireTwins(t *testing.T) {
	pairs := [][2]reflect.Type{
		{reflect.TypeFor[ReplayDeathLedgerEntry](), reflect.TypeFor[replayDeathLedgerEntryFields]()},
		{reflect.TypeFor[ReplayTutorialSnapshot](), reflect.TypeFor[replayTutorialSnapshotFields]()},
		{reflect.TypeFor[TimingSampleRow](), reflect.TypeFor[timingSampleRowFields]()},
	}
	for _, p := range pairs {
		pub, twin := p[0], p[1]
		if pub.NumField() != twin.NumField() {
			t.Fatalf("%s has %d fields, %s %d", pub, pub.NumField(), twin, twin.NumField())
		}
		for i := range pub.NumField() {
			a, b := pub.Field(i), twin.Field(i)
			if a.Name != b.Name || a.Type != b.Type || a.Tag.Get("msg") != b.Tag.Get("msg") {
				t.Errorf("%s.%s %s %q differs from %s.%s %s %q", pub, a.Name, a.Type, a.Tag, twin, b.Name, b.Type, b.Tag)
			}
		}
	}
}

func TestRequiredChannelsIsACopy(t *testing.T) {
	a := RequiredChannels()
	want := []string{"checkpoint", "sim_state", "entity_samples", "rng_stream", "timing_samples"}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("RequiredChannels() = %v", a)
	}
	a[0] = "changed"
	if RequiredChannels()[0] != "checkpoint" {
		t.Fatal("RequiredChannels shares its slice")
	}
}

func TestSentinelTextsArePrefixed(t *testing.T) {
	for _, e := range []error{ErrMissingField, ErrUnknownField, ErrWeaponID} {
		if !strings.HasPrefix(e.Error(), "schema7: ") {
			t.Errorf("%q lacks the schema7: prefix", e)
		}
	}
	var id WeaponID
	_, e := id.UnmarshalMsg([]byte{0x7f})
	if !errors.Is(e, ErrWeaponID) || e.Error() != "invalid WeaponId value 127" {
		t.Errorf("weapon id error %q", e)
	}
	de := &DecodeError{What: "TickRecord", Err: e}
	if de.Error() != "schema7: decoding TickRecord: invalid WeaponId value 127" || !errors.Is(de, ErrWeaponID) {
		t.Errorf("DecodeError %q", de)
	}
}

func TestAllRecords(t *testing.T) {
	var buf bytes.Buffer
	meta := NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, 19, 20)
	w, err := NewWriter(&buf, &meta, cdt.WithChunkTicks(6))
	if err != nil {
		t.Fatal(err)
	}
	for tick := range int64(20) {
		rec := DemoTick(tick, 3)
		if err := w.Append(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := cdt.OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []int64
	for rec, err := range AllRecords(f) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, int64(rec.TickIndex))
	}
	if len(got) != 20 || got[0] != 0 || got[19] != 19 {
		t.Fatalf("AllRecords: %v", got)
	}
	// The footer counts the required channels (schema7.NewWriter's default).
	if cc := f.Footer().ChannelCounts; len(cc) != 5 || cc[0].Channel != "checkpoint" || cc[0].Count != 20 {
		t.Fatalf("channel_counts %v", cc)
	}
}

// A row that does not decode is reported at its chunk's offset as a
// *cdt.FormatError that still matches the cause.
func TestRecordsErrorIsAFormatError(t *testing.T) {
	var buf bytes.Buffer
	meta := NewTraceMeta("2026-01-01T00:00:00+00:00", nil, nil, nil, 0, 9, 10)
	w, err := NewWriter(&buf, &meta, cdt.WithChunkTicks(4))
	if err != nil {
		t.Fatal(err)
	}
	for tick := range int64(10) {
		rec := DemoTick(tick, 1)
		if tick == 6 {
			rec.Channels.Checkpoint.Players[0].WeaponID = 99
		}
		if err := w.Append(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := cdt.OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	var last error
	for rec, err := range AllRecords(f) {
		if err != nil {
			last = err
			break
		}
		if int64(rec.TickIndex) != int64(n) {
			t.Fatalf("row %d has tick %d", n, rec.TickIndex)
		}
		n++
	}
	var fe *cdt.FormatError
	var de *DecodeError
	if n != 6 || !errors.As(last, &fe) || fe.Offset != f.Footer().Blocks[1].FileOffset || fe.Format != "schema7" ||
		!errors.As(last, &de) || !errors.Is(last, ErrWeaponID) || !errors.Is(last, cdt.ErrCorrupt) ||
		!strings.Contains(last.Error(), "schema7: offset ") || !strings.Contains(last.Error(), "row 2: decoding TickRecord") {
		t.Fatalf("after %d rows: %v", n, last)
	}
}
