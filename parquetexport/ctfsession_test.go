package parquetexport

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// A folder whose only traces are CTF trace folders (an LTTng session
// folder) is one input, read as events.Open and tracecat dump read it:
// kernel/ and ust/…/64-bit/ merged, a copy of kernel/ (same UUID: the same
// trace, as babeltrace2 reads it) adding no row, every row on the track
// dump shows (the CPU's, shared by the traces). Walked inside a folder
// holding traces of another format, its traces are inputs of their own.
// A session whose clock classes cannot be correlated is refused.
func TestExportCTFSessionOneInput(t *testing.T) {
	root := filepath.Join(t.TempDir(), "session")
	for d, uuid := range map[string]string{
		"kernel":              ctfgen.UUID,
		"kernel-copy":         ctfgen.UUID,
		"ust/uid/1000/64-bit": "5fce9cb8-7b77-4e3b-a0f4-55d4d1e7b0a2",
	} {
		if err := ctfgen.WriteUUID(filepath.Join(root, d), uuid, 600, 2, 6, 1024); err != nil {
			t.Fatal(err)
		}
	}
	in, err := ExpandInputs(root)
	if err != nil || len(in) != 1 || in[0].Path != root || in[0].Format != events.FormatCTF {
		t.Fatalf("inputs %+v, %v; want the session folder, one ctf input", in, err)
	}
	out := filepath.Join(t.TempDir(), "out")
	res, err := Export(context.Background(), out, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	// what the event layer (dump --json) yields for the folder
	r, err := events.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for r.Next() {
		e := r.Event()
		tk := e.Track()
		want = append(want, fmt.Sprintf("%d %s %d %s", e.Time(), e.Name(), tk.ID, tk.Name))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	rows, _ := readAll(t, out)
	var got []string
	for _, row := range rows {
		got = append(got, fmt.Sprintf("%v %v %v %v", row[colTs], row[colName], row[colTrack], row[colTrackName]))
	}
	slices.Sort(got)
	slices.Sort(want)
	if res.Rows != 1200 || len(res.Inputs) != 1 || !slices.Equal(got, want) {
		t.Fatalf("%d rows of %d inputs; want 1200 (the copy adds none) of 1, as events.Open yields them", res.Rows, len(res.Inputs))
	}
	// walked: the session folder beside a dial9 file is no session
	outer := filepath.Dir(root)
	genDial9(t, outer, 10)
	if in, err := ExpandInputs(outer); err != nil || len(in) != 4 {
		t.Errorf("inputs %+v, %v; want the dial9 file and the three trace folders", in, err)
	}
	// clock classes babeltrace2 cannot correlate (not LTTng's, of
	// unknown origin, without UUID, of two traces): refused, saying why
	bad := filepath.Join(t.TempDir(), "bad")
	if err := ctfgen.WriteUncorrelated(bad, 60); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(context.Background(), filepath.Join(t.TempDir(), "o2"), []string{bad}); !errors.Is(err, ctf.ErrClockCorrelation) {
		t.Errorf("Export of a session of clocks that do not correlate: %v, want ctf.ErrClockCorrelation", err)
	}
}
