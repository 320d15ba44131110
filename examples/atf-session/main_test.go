package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.TempDir(), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasPrefix(lines[0], "session session_20250101_120000/pid_4242: 4 threads, 24 events, 8 detail events") {
		t.Errorf("header %q", lines[0])
	}
	if len(lines) != 1+24 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	if !strings.Contains(lines[1], "thread 0  CALL") || !strings.Contains(out.String(), "compute  [x0=31]") {
		t.Errorf("timeline:\n%s", out.String())
	}
}

// TestNoArguments: "go run ./examples/atf-session" works as it is and leaves
// no folder behind.
func TestNoArguments(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out bytes.Buffer
	if err := runArgs(nil, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "4 threads, 24 events, 8 detail events") {
		t.Errorf("output %q", out.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if err := runArgs([]string{"a", "b"}, &out); err == nil {
		t.Error("two arguments accepted")
	}
}
