package ctf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// TestCTF2ClockOrigins: two CTF 2 traces of different identities (LTTng
// 2.15's CTF 2 vector, the second copy's trace class UID changed) whose
// clock classes have the origins of each case: a Session reads them where
// babeltrace2 2.1's muxer correlates their clocks (the Unix epoch on both,
// one custom origin on both, an unknown origin with one identity on both)
// and refuses them with ErrClockCorrelation where it does not (two custom
// origins, a custom origin beside the Unix epoch, an unknown origin beside
// a known one, two identities). With BABELTRACE2 set, babeltrace2 refuses
// the same cases and prints the same text for the others.
func TestCTF2ClockOrigins(t *testing.T) {
	src := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json/trace")
	const (
		traceUID = `"uid": "624812db-465e-464f-9ecc-a215d07bc420"`
		clockUID = `"uid": "3beafdc8-94f8-4b34-b7e7-2d2a16137b6e"`
		unix     = `"origin": "unix-epoch",`
		customA  = `"origin": {"namespace": "example.org", "name": "ptp", "uid": "domain-0"},`
		customB  = `"origin": {"namespace": "example.org", "name": "ptp", "uid": "domain-1"},`
		otherClk = `"uid": "3beafdc8-94f8-4b34-b7e7-2d2a16137b6f"`
	)
	type side struct{ origin, clock string } // the clock class's origin ("": none) and UID line
	cases := []struct {
		name   string
		a, b   side
		refuse string // the reason the error gives, "" when read
	}{
		{"unix-epoch-both", side{unix, clockUID}, side{unix, clockUID}, ""},
		{"custom-same", side{customA, clockUID}, side{customA, otherClk}, ""},
		{"custom-differ", side{customA, clockUID}, side{customB, clockUID}, "got one with a different origin"},
		{"custom-and-unix-epoch", side{customA, clockUID}, side{unix, clockUID}, "got one with a different origin"},
		{"unknown-same-identity", side{"", clockUID}, side{"", clockUID}, ""},
		{"unknown-other-identity", side{"", clockUID}, side{"", otherClk}, "got one with a different identity"},
		{"unknown-and-custom", side{"", clockUID}, side{customA, clockUID}, "got one with a known origin"},
		{"custom-and-unknown", side{customA, clockUID}, side{"", clockUID}, "got one with an unknown origin"},
	}
	meta, err := os.ReadFile(filepath.Join(src, "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{traceUID, clockUID, unix} {
		if strings.Count(string(meta), old) != 1 {
			t.Fatalf("the vector's metadata holds %q %d times, want once", old, strings.Count(string(meta), old))
		}
	}
	one, err := prettyReader(openDirT(t, src).NewReader())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for i, sd := range []side{c.a, c.b} {
				d := filepath.Join(root, string(rune('a'+i)))
				if err := os.CopyFS(d, os.DirFS(src)); err != nil {
					t.Fatal(err)
				}
				m := strings.Replace(string(meta), unix, sd.origin, 1)
				m = strings.Replace(m, clockUID, sd.clock, 1)
				if i == 1 {
					m = strings.Replace(m, traceUID, `"uid": "624812db-465e-464f-9ecc-a215d07bc421"`, 1)
				}
				if err := os.WriteFile(filepath.Join(d, "metadata"), []byte(m), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := OpenSession(root, []string{"a", "b"})
			var got []string
			if c.refuse != "" {
				if !errors.Is(err, ErrClockCorrelation) || !strings.Contains(err.Error(), c.refuse) {
					t.Errorf("OpenSession: %v, want ErrClockCorrelation: …%s…", err, c.refuse)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if s.Group(0) == s.Group(1) {
					t.Errorf("one trace; want two (their UIDs differ)")
				}
				if got, err = prettyReader(s.NewReader()); err != nil || len(got) != 2*len(one) {
					t.Errorf("%d events, %v; want %d", len(got), err, 2*len(one))
				}
			}
			bt, ok, ran := babeltrace2Text(t, root)
			if !ran {
				return
			}
			if ok != (c.refuse == "") {
				t.Errorf("babeltrace2 reads it: %v; we refuse it: %v", ok, c.refuse != "")
			}
			if ok && c.refuse == "" && strings.Join(bt, "\n") != strings.Join(got, "\n") {
				t.Errorf("%d lines, babeltrace2 printed %d, or they differ", len(got), len(bt))
			}
		})
	}
}
