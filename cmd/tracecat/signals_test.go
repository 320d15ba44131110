//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracecodec/tracecodec/dial9"
)

// buildTracecat builds the command into a temporary folder.
func buildTracecat(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "tracecat")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// writeLargeDial9 writes a dial9 trace of n poll start/end pairs.
func writeLargeDial9(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	enc, err := dial9.NewWriter(bw)
	if err != nil {
		t.Fatal(err)
	}
	start, err := enc.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "task_id", Type: dial9.TypeVarint}})
	if err != nil {
		t.Fatal(err)
	}
	end, err := enc.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	if err != nil {
		t.Fatal(err)
	}
	ts := uint64(1_000_000_000)
	for i := range uint64(n) {
		ts += 1000
		if err := enc.WriteUints(start, ts, i%8, i); err != nil {
			t.Fatal(err)
		}
		ts += 500
		if err := enc.WriteUints(end, ts, i%8); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptRemovesTemporaryOutput starts `tracecat convert` on a large
// trace, waits until its temporary output exists, sends SIGINT (then, in a
// second run, SIGTERM) and checks that the process exits 130 (143) leaving
// neither the temporary file nor the target behind.
func TestInterruptRemovesTemporaryOutput(t *testing.T) {
	bin := buildTracecat(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "big.dial9.bin")
	writeLargeDial9(t, in, 2_000_000)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		outDir := t.TempDir()
		out := filepath.Join(outDir, "big.json")
		cmd := exec.Command(bin, "convert", "--to", "chrome", in, out)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()

		// Wait until the temporary output has data in it: the conversion is
		// then well under way.
		deadline := time.Now().Add(60 * time.Second)
		var tmp string
	wait:
		for {
			select {
			case err := <-exited:
				t.Fatalf("%v: convert finished (%v) before it could be interrupted; make the input larger\n%s", c.sig, err, stderr.String())
			default:
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%v: no temporary output appeared", c.sig)
			}
			matches, _ := filepath.Glob(filepath.Join(outDir, ".big.json.tmp*"))
			if len(matches) == 1 {
				if fi, err := os.Stat(matches[0]); err == nil && fi.Size() > 0 {
					tmp = matches[0]
					break wait
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		var err error
		select {
		case err = <-exited:
			t.Logf("%v: exited %v after the signal; stderr %q", c.sig, time.Since(sent).Round(time.Millisecond), stderr.String())
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: convert did not exit", c.sig)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.code {
			t.Errorf("%v: exit %v, want %d; stderr %q", c.sig, err, c.code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: stderr %q", c.sig, stderr.String())
		}
		if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: temporary output %s left behind (%v)", c.sig, tmp, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: incomplete output %s renamed into place (%v)", c.sig, out, err)
		}
		if left, _ := os.ReadDir(outDir); len(left) != 0 {
			t.Errorf("%v: files left in the output folder: %v", c.sig, left)
		}
	}
}

// TestOutputModeFollowsUmask: files tracecat writes get 0666 less the umask,
// as os.Create gives, not os.CreateTemp's 0600.
func TestOutputModeFollowsUmask(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		umask int
		mode  os.FileMode
	}{{0o022, 0o644}, {0o002, 0o664}, {0o077, 0o600}} {
		old := syscall.Umask(c.umask)
		out := filepath.Join(dir, "sample.cdt")
		code, _, errOut := run(t, nil, "sample", "cdt", out)
		syscall.Umask(old)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != c.mode {
			t.Errorf("umask %03o: mode %v, want %v", c.umask, fi.Mode().Perm(), c.mode)
		}
		os.Remove(out)
	}
}

// TestCancelledRunCleansUp runs convert and demo in-process with a context
// cancelled as a signal would: the commands stop, the temporary output and
// demo's folder are gone, and the exit code is 130.
func TestCancelledRunCleansUp(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.dial9.bin")
	writeLargeDial9(t, in, 1000)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&interruptError{syscall.SIGINT})
	var out, errb strings.Builder
	c := &cli{stdout: &out, stderr: &errb, ctx: ctx}
	code := c.run([]string{"convert", "--to", "chrome", in, filepath.Join(dir, "out.json")})
	if exitCode(ctx, code) != 130 || !strings.Contains(errb.String(), "tracecat: interrupted (SIGINT)") {
		t.Errorf("convert: exit %d → %d, stderr %q", code, exitCode(ctx, code), errb.String())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*out.json*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	demoDir := filepath.Join(dir, "demo")
	code = c.run([]string{"demo", demoDir})
	if _, err := os.Stat(demoDir); !errors.Is(err, os.ErrNotExist) || code == exitOK {
		t.Errorf("demo: exit %d, folder it created still there (%v)", code, err)
	}
	// A folder demo did not create stays.
	if code = c.run([]string{"demo", dir}); code == exitOK {
		t.Errorf("demo: exit %d", code)
	}
	if _, err := os.Stat(in); err != nil {
		t.Errorf("demo removed a folder it did not create: %v", err)
	}
	if exitCode(context.Background(), 1) != 1 || (&interruptError{syscall.SIGTERM}).exitCode() != 143 {
		t.Error("exit codes")
	}
}

// TestInterruptBeforeRename: once the temporaries are removed (the forced
// exit path), a late commit must not rename its output into place.
func TestInterruptBeforeRename(t *testing.T) {
	dir := t.TempDir()
	c := &cli{stdout: os.Stdout, stderr: os.Stderr}
	target := filepath.Join(dir, "out")
	w, commit, err := c.createOutput(target)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("partial"))
	removeTemporaries()
	defer func() {
		temporaries.Lock()
		temporaries.closed = false
		temporaries.Unlock()
	}()
	if err := commit(true); err == nil {
		t.Error("commit after the interrupt succeeded")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}

// TestForcedExitRemovesTemporaries covers a command that neither reads nor
// writes after the signal: the watcher removes the registered temporary
// file and folder itself and exits 130 after forceExitAfter. The test binary
// re-runs itself as that command (TRACECAT_FORCED_EXIT_HELPER).
func TestForcedExitRemovesTemporaries(t *testing.T) {
	if dir := os.Getenv("TRACECAT_FORCED_EXIT_HELPER"); dir != "" {
		_, _ = watchSignals(context.Background())
		f, err := createTemp(filepath.Join(dir, "out.json"))
		if err != nil {
			os.Exit(3)
		}
		addTemporary(f.Name(), false)
		demo := filepath.Join(dir, "demo")
		os.Mkdir(demo, 0o777)
		os.WriteFile(filepath.Join(demo, "sample.cdt"), []byte("x"), 0o666)
		addTemporary(demo, true)
		os.WriteFile(filepath.Join(dir, "ready"), nil, 0o666)
		time.Sleep(time.Minute) // busy elsewhere: never looks at the context
		os.Exit(4)
	}
	if testing.Short() {
		t.Skip("waits for the forced exit")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestForcedExitRemovesTemporaries$")
	cmd.Env = append(os.Environ(), "TRACECAT_FORCED_EXIT_HELPER="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("helper never got ready")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130", err)
	}
	if waited := time.Since(start); waited < forceExitAfter/2 || waited > 20*time.Second {
		t.Errorf("exited %v after the signal", waited)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 || left[0].Name() != "ready" {
		t.Errorf("left behind: %v", left)
	}
}
