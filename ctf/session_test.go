package ctf

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// TestSessionOrder: a Session puts its traces in babeltrace2's muxer order
// — by UUID, then by name (hostname/folder) — not in folder order, and on equal times its Reader
// yields the events of the first trace first; errors name the folder.
func TestSessionOrder(t *testing.T) {
	root := t.TempDir()
	uuids := map[string]string{
		"a":     "ffffffff-7b77-4e3b-a0f4-55d4d1e7b0a1", // the largest UUID
		"b":     ctfgen.UUID,
		"d/sub": ctfgen.UUID, // b's UUID: then by name, gen/b < gen/d/sub
		"0":     "",          // no UUID (its packets still hold one): last, as babeltrace2 2.1 orders it
	}
	for dir, uuid := range uuids {
		p := filepath.Join(root, dir)
		if err := ctfgen.Write(p, 40, 1, 2, 4096); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(p, "metadata"))
		if err != nil {
			t.Fatal(err)
		}
		old := `uuid = "` + ctfgen.UUID + `";`
		if !strings.Contains(string(b), old) {
			t.Fatalf("no %s in the metadata", old)
		}
		repl := `uuid = "` + uuid + `";`
		if uuid == "" {
			repl = ""
		}
		if err := os.WriteFile(filepath.Join(p, "metadata"), []byte(strings.Replace(string(b), old, repl, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := OpenSession(root, []string{"0", "a", "b", "d/sub"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if want := []string{"b", "d/sub", "a", "0"}; !slices.Equal(s.Dirs, want) {
		t.Fatalf("order %q, want %q", s.Dirs, want)
	}
	// the four traces are the same events at the same times; b and d/sub
	// share their UUID: one trace, as babeltrace2 reads them, whose equal
	// packets are read once (b's). Each time yields the events of b, a
	// and 0, in that order.
	r := s.NewReader()
	var order []*Trace
	n := 0
	for ; r.Next(); n++ {
		if n < 3 {
			order = append(order, r.Event().Stream.t)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []*Trace{s.Traces[0], s.Traces[2], s.Traces[3]}; !slices.Equal(order, want) || n != 3*40 {
		t.Errorf("%d events, the first three not of b, a, 0", n)
	}
	if _, err := OpenSession(root, []string{"a", "nowhere"}); err == nil || !strings.HasPrefix(err.Error(), "nowhere: ") {
		t.Errorf("OpenSession of a missing folder: %v", err)
	}
}
