package ctf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// A Reader's error names the data stream file its offset is in (a trace
// has many), and still wraps the stream's *FormatError and sentinel.
func TestReaderErrNamesStream(t *testing.T) {
	src := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace")
	dir := filepath.Join(t.TempDir(), "trace")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "index"))
	p := filepath.Join(dir, "channel0_1")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[20] = 5 // packet 0's stream_id: no such data stream class
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	r := tr.NewReader()
	for r.Next() {
	}
	err = r.Err()
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), "channel0_1: ctf: offset 0: packet 0: unknown data stream class 5") {
		t.Fatalf("err %v", err)
	}
}
