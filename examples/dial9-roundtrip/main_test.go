package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var out bytes.Buffer
	if err := run(filepath.Join(t.TempDir(), "trace.bin.gz"), &out); err != nil {
		t.Fatal(err)
	}
	want := `1000001200 PollStartEvent worker=0 task=0 spawn_loc=src/task0.rs:1:1
1000003200 PollStartEvent worker=1 task=1 spawn_loc=src/task1.rs:1:1
1000005200 PollStartEvent worker=2 task=2 spawn_loc=src/task2.rs:1:1
PollEndEvent: 2000 events
PollStartEvent: 2000 events
2 streams
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestNoArguments: "go run ./examples/dial9-roundtrip" works as it is and
// leaves no file behind.
func TestNoArguments(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out bytes.Buffer
	if err := runArgs(nil, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "PollStartEvent: 2000 events\n2 streams\n") {
		t.Errorf("output %q", out.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if err := runArgs([]string{"a", "b"}, &out); err == nil {
		t.Error("two arguments accepted")
	}
}
