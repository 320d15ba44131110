//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNonRegularInputsNeverBlock: a FIFO named as an input, or found in a
// walked folder (also as a CTF trace's "metadata" or an ATF manifest), is an
// error naming it; nothing opens it, so nothing blocks.
func TestNonRegularInputsNeverBlock(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"metadata", "x.atf", "manifest.json"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	fifo := filepath.Join(dir, "x.atf")
	for _, args := range [][]string{
		{"detect", fifo}, {"validate", fifo}, {"stats", fifo}, {"dump", fifo},
		{"detect", dir}, {"validate", dir}, {"stats", dir},
	} {
		done := make(chan struct{})
		var code int
		var out, errOut string
		go func() {
			code, out, errOut = run(t, nil, args...)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%v blocks on a FIFO", args)
		}
		if code != exitInvalid {
			t.Errorf("%v: exit %d, want %d", args, code, exitInvalid)
		}
		if !strings.Contains(out+errOut, "not a regular file") || !strings.Contains(out+errOut, fifo) {
			t.Errorf("%v: the FIFO is not named as not a regular file:\n%s%s", args, out, errOut)
		}
	}
}
