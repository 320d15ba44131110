package events_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/traceerr"
)

func count(t *testing.T, r *events.Reader) int {
	t.Helper()
	n := 0
	for r.Next() {
		n++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOpenReaderAtAndName: the three openers read the same events; WithName
// lets a damaged file be named by its extension, so its codec says what is
// wrong instead of ErrUnknownFormat.
func TestOpenReaderAtAndName(t *testing.T) {
	data := genDial9(400)
	r1, err := events.OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := events.OpenReaderAt(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "trace.bin")
	os.WriteFile(p, data, 0o644)
	r3, err := events.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if a, b, c := count(t, r1), count(t, r2), count(t, r3); a != 400 || b != a || c != a {
		t.Errorf("events: bytes %d, ReaderAt %d, file %d", a, b, c)
	}
	for _, r := range []*events.Reader{r1, r2, r3} {
		if err := r.Close(); err != nil || r.Close() != nil {
			t.Errorf("close: %v", err)
		}
	}

	damaged := []byte("not a trace at all")
	if _, err := events.OpenReaderAt(bytes.NewReader(damaged), int64(len(damaged))); !errors.Is(err, events.ErrUnknownFormat) {
		t.Errorf("unnamed damaged input: %v", err)
	}
	_, err = events.OpenReaderAt(bytes.NewReader(damaged), int64(len(damaged)), events.WithName("run.cdt"))
	var fe *traceerr.FormatError
	if !errors.As(err, &fe) {
		t.Errorf("damaged run.cdt: %v, want the CDT reader's FormatError", err)
	}
	if _, err := events.OpenBytes(data, events.WithConcurrency(0)); !errors.Is(err, events.ErrOption) {
		t.Errorf("WithConcurrency(0): %v", err)
	}
	if _, err := events.Open(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file opened")
	}
}

// TestRecovered: traces left by a writer that died are read as far as they
// go, and Reader.Recovered says so.
func TestRecovered(t *testing.T) {
	cdtData := genCDT(600)
	for _, tc := range []struct {
		name      string
		data      []byte
		events    int
		recovered bool
	}{
		{"cdt whole", cdtData, 600, false},
		{"cdt without footer", cdtData[:len(cdtData)-200], 600, true}, // the footer and trailer cut, every chunk whole
		{"atf whole", genATF(100), 100, false},
		{"atf torn", genATF(100)[:64+50*32+7], 50, true},
	} {
		r, err := events.OpenBytes(tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := count(t, r); n != tc.events || r.Recovered() != tc.recovered {
			t.Errorf("%s: %d events, recovered %v; want %d, %v", tc.name, n, r.Recovered(), tc.events, tc.recovered)
		}
		r.Close()
	}
	p := vectortest.Path(t, "atf", "crash_flushed", "session_20250101_120500")
	r, err := events.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, r); n != 8 || !r.Recovered() {
		t.Errorf("crashed session: %d events, recovered %v", n, r.Recovered())
	}
	r.Close()
}
