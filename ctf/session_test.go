package ctf

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// TestSessionOrder: a Session puts its traces in babeltrace2 2.1's muxer
// order — by namespace, then the name src.ctf.fs gives each trace
// (hostname "/" folder; the hostname alone for traces sharing a UUID),
// then UUID — not in folder or UUID order, and on equal times its Reader
// yields the events of the first trace first; errors name the folder.
// Each trace renames its first event class, so the order shows in the
// text: with BABELTRACE2 set, babeltrace2 prints the same lines.
func TestSessionOrder(t *testing.T) {
	root := t.TempDir()
	uuids := map[string]string{
		"a":     "ffffffff-7b77-4e3b-a0f4-55d4d1e7b0a1", // the largest UUID: still before c
		"b":     ctfgen.UUID,
		"c":     "00000000-7b77-4e3b-a0f4-55d4d1e7b0a1", // the smallest: still after a (gen/a < gen/c)
		"d/sub": ctfgen.UUID,                            // b's UUID: one trace named gen, first (gen < gen/0)
		"0":     "",                                     // no UUID (its packets still hold one): gen/0, before gen/a
	}
	for dir, uuid := range uuids {
		p := filepath.Join(root, dir)
		if err := ctfgen.Write(p, 40, 1, 2, 4096); err != nil {
			t.Fatal(err)
		}
		repl := `uuid = "` + uuid + `";`
		if uuid == "" {
			repl = ""
		}
		name := strings.Split(dir, "/")[0]
		if name == "d" {
			name = "b" // one trace with b
		}
		if err := ctfgen.EditMetadata(p, `uuid = "`+ctfgen.UUID+`";`, repl, `name = "gen:small_0";`, `name = "gen:small_0_`+name+`";`); err != nil {
			t.Fatal(err)
		}
	}
	s, err := OpenSession(root, []string{"0", "a", "b", "c", "d/sub"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if want := []string{"b", "d/sub", "0", "a", "c"}; !slices.Equal(s.Dirs, want) {
		t.Fatalf("order %q, want %q", s.Dirs, want)
	}
	// the five traces are the same events at the same times; b and d/sub
	// share their UUID: one trace, as babeltrace2 reads them, whose equal
	// packets are read once (b's). Each time yields the events of b, 0, a
	// and c, in that order.
	lines, err := prettyReader(s.NewReader())
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4*40 {
		t.Fatalf("%d events, want %d", len(lines), 4*40)
	}
	for i, want := range []string{"gen:small_0_b:", "gen:small_0_0:", "gen:small_0_a:", "gen:small_0_c:"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("event %d: %s, want %s", i, lines[i], want)
		}
	}
	if bt, ok, ran := babeltrace2Text(t, root); ran && (!ok || !slices.Equal(bt, lines)) {
		t.Errorf("babeltrace2 (ok %v) prints other lines: %d vs our %d", ok, len(bt), len(lines))
	}
	if _, err := OpenSession(root, []string{"a", "nowhere"}); err == nil || !strings.HasPrefix(err.Error(), "nowhere: ") {
		t.Errorf("OpenSession of a missing folder: %v", err)
	}
}
