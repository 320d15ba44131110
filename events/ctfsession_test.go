package events_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// ctfSessionDirs are the trace folders of the session writeCTFSession
// writes, in babeltrace2's order on equal times (by UUID), and their
// UUIDs (distinct, as LTTng's kernel and user-space traces': traces
// sharing one are read as one trace, their equal packets once).
var (
	ctfSessionDirs  = []string{"kernel", "ust/uid/1000/64-bit"}
	ctfSessionUUIDs = []string{ctfgen.UUID, "5fce9cb8-7b77-4e3b-a0f4-55d4d1e7b0a2"}
)

// writeCTFSession writes an LTTng-shaped session folder: two traces of n
// events over 2 streams each (ctfgen), and returns it.
func writeCTFSession(t testing.TB, n int) string {
	root := t.TempDir()
	for i, d := range ctfSessionDirs {
		if err := ctfgen.WriteUUID(filepath.Join(root, d), ctfSessionUUIDs[i], n, 2, 6, 4096); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// ctfEventLine is what the session test compares of an event.
func ctfEventLine(e *events.Event) string {
	return string(e.AppendJSON(nil))
}

type timedLine struct {
	time int64
	line string
}

func readTimed(t *testing.T, path string) []timedLine {
	t.Helper()
	r, err := events.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []timedLine
	for r.Next() {
		out = append(out, timedLine{r.Event().Time(), ctfEventLine(r.Event())})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCTFSessionFolder: events.Open on a folder whose only traces are CTF
// trace folders (an LTTng session folder) reads them as one trace: every
// event of each, merged by time, equal times in trace order, the records
// naming the trace folder before the file; CTFSession lists the folders.
func TestCTFSessionFolder(t *testing.T) {
	root := writeCTFSession(t, 400)
	if got := events.CTFSession(root); !slices.Equal(got, ctfSessionDirs) {
		t.Fatalf("CTFSession = %q, want %q", got, ctfSessionDirs)
	}
	if got := events.CTFSession(filepath.Join(root, "kernel")); got != nil {
		t.Errorf("CTFSession of a trace folder = %q, want nil", got)
	}
	// the merge of the traces read alone, stable by time (trace order on
	// equal times); the record's stream names the trace folder too
	var want []timedLine
	for _, d := range ctfSessionDirs {
		for _, l := range readTimed(t, filepath.Join(root, d)) {
			l.line = strings.Replace(l.line, `"stream":"`, `"stream":"`+d+"/", 1)
			want = append(want, l)
		}
	}
	slices.SortStableFunc(want, func(a, b timedLine) int { return int(min(max(a.time-b.time, -1), 1)) })
	r, err := events.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Detection(); d.Format != events.FormatCTF || d.Variant != "session" {
		t.Errorf("detection %v", d)
	}
	var got []timedLine
	for r.Next() {
		got = append(got, timedLine{r.Event().Time(), ctfEventLine(r.Event())})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if len(got) != 800 || len(got) != len(want) {
		t.Fatalf("%d events, want %d (800)", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d:\n got  %s\n want %s", i, got[i].line, want[i].line)
		}
	}
}

// TestCTFSessionMixed: a folder holding CTF traces and a trace of another
// format is no session: Open refuses it as before.
func TestCTFSessionMixed(t *testing.T) {
	root := writeCTFSession(t, 40)
	if err := os.WriteFile(filepath.Join(root, "ust", "app.dial9.bin"), genDial9(10), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := events.CTFSession(root); got != nil {
		t.Errorf("CTFSession = %q, want nil", got)
	}
	if _, err := events.Open(root); !errors.Is(err, events.ErrUnknownFormat) {
		t.Errorf("Open: %v, want ErrUnknownFormat", err)
	}
	if got := events.CTFSession(t.TempDir()); got != nil {
		t.Errorf("CTFSession of an empty folder = %q", got)
	}
}

// TestCTFSessionErrorsNameTrace: what goes wrong in a session names the
// trace folder and the file: metadata that does not parse, a data stream
// cut short (the recovery's reason).
func TestCTFSessionErrorsNameTrace(t *testing.T) {
	root := writeCTFSession(t, 400)
	ust := filepath.Join(root, "ust/uid/1000/64-bit")
	f := filepath.Join(ust, "channel0_1")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, b[:len(b)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(ust, "index"))
	r, err := events.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	rec := r.Recovery()
	if rec == nil || rec.Reason == nil || !strings.HasPrefix(rec.Reason.Error(), "ust/uid/1000/64-bit/channel0_1: ") {
		t.Errorf("recovery %+v: want a reason naming ust/uid/1000/64-bit/channel0_1", rec)
	}
	r.Close()
	if err := os.WriteFile(filepath.Join(ust, "metadata"), []byte("/* CTF 1.8 */ trace { major = 1; "), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := events.Open(root); err == nil || !strings.HasPrefix(err.Error(), "ust/uid/1000/64-bit: metadata: ") {
		t.Errorf("Open: %v, want an error naming ust/uid/1000/64-bit: metadata", err)
	}
}

// TestCTFSessionZeroAllocs: reading a session allocates nothing per event
// after warm-up, arguments and JSON included.
func TestCTFSessionZeroAllocs(t *testing.T) {
	zeroAllocsCTFLabels(t, writeCTFSession(t, 20000))
}
