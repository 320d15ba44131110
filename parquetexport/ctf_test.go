package parquetexport_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/parquetexport"
	"github.com/tracecodec/tracecodec/testgen/tracegen"
)

// A CTF trace folder exports its event records, one row each.
func TestExportCTFTrace(t *testing.T) {
	in := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace")
	res, err := parquetexport.Export(context.Background(), filepath.Join(t.TempDir(), "out"), []string{in})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 80 {
		t.Fatalf("%d rows, want 80", res.Rows)
	}
}

// A folder holding CTF trace folders only (an LTTng session: kernel/ and
// ust/uid/…/64-bit/, and a folder of metadata alone, a trace without
// events) is one input, read as one trace; walked inside a folder holding
// another trace (a dial9 file), each trace folder is one input, as for the
// other formats.
func TestExpandInputsWalksCTFTraces(t *testing.T) {
	plain := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace")
	ctf2 := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace")
	root := t.TempDir()
	for dst, src := range map[string]string{
		filepath.Join(root, "session", "ust", "uid", "1000", "64-bit"): plain,
		filepath.Join(root, "session", "kernel"):                       ctf2,
	} {
		copyDir(t, src, dst)
	}
	// Metadata alone: a CTF trace folder without data streams, no events.
	meta := filepath.Join(root, "session", "meta-only")
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(plain, "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(meta, "metadata"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(root, "session")
	in, err := parquetexport.ExpandInputs(session)
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 1 || in[0].Format != "ctf" || in[0].Path != session {
		t.Fatalf("inputs %+v", in)
	}
	res, err := parquetexport.Export(context.Background(), filepath.Join(t.TempDir(), "out"), []string{session})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 160 || len(res.Inputs) != 1 {
		t.Fatalf("%d rows of %d inputs, want 80 + 0 + 80 of 1", res.Rows, len(res.Inputs))
	}
	if err := tracegen.Dial9GzipFile(filepath.Join(root, "seg.bin.gz"), 1_000_000, 10); err != nil {
		t.Fatal(err)
	}
	in, err = parquetexport.ExpandInputs(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 4 || in[0].Format != "dial9" || in[1].Format != "ctf" || in[2].Format != "ctf" || in[3].Format != "ctf" ||
		in[1].Path != filepath.Join(root, "session", "kernel") ||
		in[2].Path != meta ||
		in[3].Path != filepath.Join(root, "session", "ust", "uid", "1000", "64-bit") {
		t.Fatalf("inputs %+v", in)
	}
}

// copyDir copies the regular files of src (one level of folders below it,
// as a CTF trace's index/) into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A walked folder whose CTF data stream files lie beside no CTF metadata
// (missing, empty, not CTF) holds events no one can read: the export names
// it (ErrInput) instead of leaving it out in silence, and with
// WithKeepGoing lists it in Skipped, once per folder, and exports the rest.
func TestExportNamesCTFStreamsWithoutMetadata(t *testing.T) {
	plain := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace")
	root := t.TempDir()
	for _, d := range []string{"good", "emptymeta", "nometa", "notctf"} {
		copyDir(t, plain, filepath.Join(root, d))
	}
	if err := os.WriteFile(filepath.Join(root, "emptymeta", "metadata"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "nometa", "metadata")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notctf", "metadata"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := parquetexport.ExpandInputs(root)
	if !errors.Is(err, parquetexport.ErrInput) || !strings.Contains(err.Error(), filepath.Join(root, "emptymeta")+": CTF data stream files") {
		t.Fatalf("ExpandInputs: %v, want ErrInput naming emptymeta", err)
	}
	if _, err := parquetexport.Export(context.Background(), filepath.Join(t.TempDir(), "out"), []string{root}); !errors.Is(err, parquetexport.ErrInput) {
		t.Fatalf("Export: %v, want ErrInput", err)
	}
	res, err := parquetexport.Export(context.Background(), filepath.Join(t.TempDir(), "out"), []string{root}, parquetexport.WithKeepGoing(true))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 80 || len(res.Inputs) != 1 || res.Inputs[0].Path != filepath.Join(root, "good") {
		t.Fatalf("%d rows from %+v, want 80 from good", res.Rows, res.Inputs)
	}
	want := map[string]string{"emptymeta": "no trace block", "nometa": "no metadata beside it", "notctf": "unexpected `hello`"}
	if len(res.Skipped) != len(want) {
		t.Fatalf("skipped %v, want %d folders", res.Skipped, len(want))
	}
	for _, s := range res.Skipped {
		w, ok := want[filepath.Base(s.Path)]
		if !ok || !strings.Contains(s.Err.Error(), "whose metadata cannot be used (") || !strings.Contains(s.Err.Error(), w) {
			t.Errorf("skipped %s: %v, want one of %v", s.Path, s.Err, want)
		}
	}
}
