package events_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// countEvents counts r's events and closes it.
func countEvents(t *testing.T, r *events.Reader) (n int, first, last int64) {
	t.Helper()
	defer r.Close()
	for r.Next() {
		if n == 0 {
			first = r.Event().Time()
		}
		last = r.Event().Time()
		n++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return n, first, last
}

// TestNewReaderOverAPipe reads every event format through an os.Pipe and
// gets what OpenBytes gets; the spooled formats leave no file behind.
func TestNewReaderOverAPipe(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	inputs := map[string][]byte{
		"dial9":      genDial9(5000),
		"cdt":        vectortest.Read(t, "cdt", "v7_tiny_3ticks_chunk2.cdt"),
		"atf index":  vectortest.Read(t, "atf", "normal", "session_20250101_120000", "pid_12345", "thread_1", "index.atf"),
		"wtf binary": vectortest.Read(t, "wtf", "det_resources.wtf-trace"),
	}
	for name, b := range inputs {
		want, wf, wl := func() (int, int64, int64) {
			r, err := events.OpenBytes(b)
			if err != nil {
				t.Fatalf("%s: OpenBytes: %v", name, err)
			}
			return countEvents(t, r)
		}()
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { pw.Write(b); pw.Close() }()
		r, err := events.NewReader(pr)
		if err != nil {
			t.Fatalf("%s: NewReader: %v", name, err)
		}
		got, gf, gl := countEvents(t, r)
		pr.Close()
		if got != want || gf != wf || gl != wl || want == 0 {
			t.Errorf("%s: %d events %d..%d over a pipe, want %d %d..%d", name, got, gf, gl, want, wf, wl)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: spool files left: %v", name, left)
		}
	}
}

func TestNewReaderLimits(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	// dial9 streams, spooling nothing: a zero limit reads it.
	r, err := events.NewReader(bytes.NewReader(genDial9(100)), events.WithSpoolLimit(0))
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := countEvents(t, r); n == 0 {
		t.Error("no dial9 events with spooling off")
	}
	cdt := vectortest.Read(t, "cdt", "v7_tiny_3ticks_chunk2.cdt")
	if _, err := events.NewReader(bytes.NewReader(cdt), events.WithSpoolLimit(int64(len(cdt)-1))); !errors.Is(err, events.ErrSpoolLimit) {
		t.Errorf("CDT beyond the spool limit: %v", err)
	}
	if r, err := events.NewReader(bytes.NewReader(cdt), events.WithSpoolLimit(int64(len(cdt)))); err != nil {
		t.Errorf("CDT at the spool limit: %v", err)
	} else {
		r.Close()
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("spool files left: %v", left)
	}
	if _, err := events.NewReader(bytes.NewReader(nil)); !errors.Is(err, events.ErrUnknownFormat) {
		t.Errorf("empty stream: %v", err)
	}
	if _, err := events.NewReader(io.LimitReader(bytes.NewReader(cdt), 0), events.WithSpoolLimit(-1)); !errors.Is(err, events.ErrOption) {
		t.Errorf("negative limit: %v", err)
	}
}
