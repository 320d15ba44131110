package main

import (
	"bytes"
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
