package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// sampleFolder writes a folder holding a sample of every format, a nested
// folder with one more, a file that is no trace and a symbolic link.
func sampleFolder(t *testing.T) (dir string, traces int) {
	t.Helper()
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "nested", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	for n, name := range sampleName {
		if code, _, e := run(t, nil, "sample", n, filepath.Join(dir, name)); code != exitOK {
			t.Fatalf("sample %s: %s", n, e)
		}
		traces++
	}
	if code, _, e := run(t, nil, "sample", "dial9", filepath.Join(dir, "nested", "deeper", "more.dial9.bin")); code != exitOK {
		t.Fatal(e)
	}
	traces++
	os.WriteFile(filepath.Join(dir, "nested", "README.md"), []byte("notes\n"), 0o644)
	os.Symlink(filepath.Join(dir, sampleName["cdt"]), filepath.Join(dir, "nested", "link.cdt")) // not read: only regular files
	return dir, traces
}

func TestManyInputsValidate(t *testing.T) {
	dir, traces := sampleFolder(t)
	code, out, errOut := run(t, nil, "validate", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != traces+1 {
		t.Fatalf("exit %d, %d lines:\n%s%s", code, len(lines), out, errOut)
	}
	for _, l := range lines[:traces] {
		if !strings.HasPrefix(l, dir) || !strings.Contains(l, ": ok") {
			t.Errorf("line %q", l)
		}
	}
	if want := "6 inputs: 6 ok, 0 invalid (atf 1, cdt 1, ctf 1, dial9 2, wtf 1); 1 files skipped (not traces)"; lines[traces] != want {
		t.Errorf("summary %q, want %q", lines[traces], want)
	}
	// A named file that is no trace, a missing path and a damaged file fail
	// the run; the others still get their line, in argument order.
	bad := filepath.Join(dir, "bad.cdt")
	os.WriteFile(bad, []byte("crimson_debug_trace_v1\n\x01\x00"), 0o644)
	code, out, _ = run(t, nil, "validate", filepath.Join(dir, sampleName["wtf"]), filepath.Join(dir, "nested", "README.md"), filepath.Join(dir, "missing"), bad)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != exitInvalid || len(lines) != 5 || !strings.Contains(lines[0], ": ok") || !strings.HasSuffix(lines[1], "README.md: unrecognised format") ||
		!strings.Contains(lines[2], "missing: ") || !strings.Contains(lines[3], "bad.cdt: offset") || lines[4] != "4 inputs: 1 ok, 3 invalid (cdt 1, wtf 1)" {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestManyInputsStatsAndDetect(t *testing.T) {
	dir, traces := sampleFolder(t)
	code, out, _ := run(t, nil, "stats", "--json", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != traces+1 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, l := range lines[:traces] {
		var st map[string]any
		if err := json.Unmarshal([]byte(l), &st); err != nil || !strings.HasPrefix(st["path"].(string), dir) || st["format"] == nil {
			t.Errorf("line %q: %v", l, err)
		}
		if st["format"] != "ctf" && st["events"] == nil {
			t.Errorf("no events key: %s", l)
		}
	}
	var sum struct {
		Summary struct{ Inputs, OK, Invalid, Skipped int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[traces]), &sum); err != nil || sum.Summary.Inputs != traces || sum.Summary.OK != traces || sum.Summary.Skipped != 1 {
		t.Errorf("summary %s: %v", lines[traces], err)
	}
	code, out, _ = run(t, nil, "stats", dir)
	if code != exitOK || strings.Count(out, "== ") != traces || !strings.HasSuffix(out, "6 inputs: 6 ok, 0 invalid (atf 1, cdt 1, ctf 1, dial9 2, wtf 1); 1 files skipped (not traces)\n") {
		t.Errorf("text stats:\n%s", out)
	}
	code, out, _ = run(t, nil, "detect", dir, filepath.Join(dir, sampleName["atf"]))
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != traces+2 || lines[traces+1] != "7 inputs: 7 recognised, 0 unknown (atf 2, cdt 1, ctf 1, dial9 2, wtf 1); 1 files skipped (not traces)" {
		t.Errorf("detect:\n%s", out)
	}
}

// TestManyInputsTraceFolders: ATF sessions and CTF traces met while walking
// are one input each.
func TestManyInputsTraceFolders(t *testing.T) {
	root := vectortest.Dir(t, "atf")
	code, out, _ := run(t, nil, "validate", filepath.Join(root, "normal"), filepath.Join(root, "crash_flushed"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// The normal session's ok line, its warning that thread 2's times go
	// back (a note, not a failure), then the crashed session's error.
	if code != exitInvalid || len(lines) < 3 || !strings.Contains(lines[0], "session_20250101_120000: ok (4 threads, 22 events, 8 detail events); a crash could lose") ||
		!strings.Contains(lines[1], "session_20250101_120000: warning: thread 2: timestamps go back 1 times") ||
		!strings.Contains(lines[2], "session_20250101_120500: manifest.json: no manifest.json") || !strings.Contains(lines[2], "thread_0/index.atf: offset 224: no valid footer") ||
		lines[len(lines)-1] != "2 inputs: 1 ok, 1 invalid (atf 2); 6 files skipped (not traces)" {
		t.Errorf("exit %d:\n%s", code, out)
	}
	ctf := vectortest.Dir(t, "ctf")
	_, out, _ = run(t, nil, "detect", filepath.Join(ctf, "lttng-2.15.1-ust-ctf2-json"))
	if !strings.Contains(out, "lttng-2.15.1-ust-ctf2-json/trace: ctf (trace)\n") || strings.Contains(out, "trace/metadata") {
		t.Errorf("CTF trace folder not one input:\n%s", out)
	}
}

// TestValidateStrict: a lenient reading passes by default and says what it
// recovered; --strict fails with what was lost. What a writer that did not
// finish left (ATF files without footer) fails either way.
func TestValidateStrict(t *testing.T) {
	atfDir := vectortest.Dir(t, "atf")
	ctfDir := vectortest.Dir(t, "ctf")
	lenient := filepath.Join(ctfDir, "mutated-from-lttng-ctf1.8", "trailing-10-bytes", "trace")
	for _, p := range []string{
		filepath.Join(atfDir, "crash_flushed", "session_20250101_120500"),
		filepath.Join(atfDir, "malformed", "idx_unfinalized_torn.atf"),
		filepath.Join(atfDir, "malformed", "det_footer_stripped.atf"),
		lenient,
	} {
		code, out, errOut := run(t, nil, "validate", p)
		if p == lenient && (code != exitOK || !strings.HasPrefix(out, "ok (")) {
			t.Errorf("%s: lenient: exit %d %q", p, code, out)
		}
		if p != lenient && (code != exitInvalid || !strings.Contains(errOut, "no valid footer") || !strings.Contains(errOut, "lost without a trace")) {
			t.Errorf("%s: crashed writer: exit %d %q", p, code, errOut)
		}
		code, out, errOut = run(t, nil, "validate", "--strict", p)
		if code != exitInvalid || out != "" || !strings.Contains(errOut, p+": ") || p == lenient && !strings.Contains(errOut, p+": strict: ") {
			t.Errorf("%s: strict: exit %d %q %q", p, code, out, errOut)
		}
	}
	_, _, errOut := run(t, nil, "validate", "--strict", filepath.Join(atfDir, "malformed", "idx_unfinalized_torn.atf"))
	if !strings.Contains(errOut, "no valid footer") {
		t.Errorf("strict does not say what was lost: %q", errOut)
	}
	_, _, errOut = run(t, nil, "validate", "--strict", filepath.Join(ctfDir, "mutated-from-lttng-ctf1.8", "trailing-10-bytes", "trace"))
	if !strings.Contains(errOut, "10 trailing byte(s)") {
		t.Errorf("strict does not say what was lost: %q", errOut)
	}
	// A clean input passes --strict; many inputs fail together.
	normal := filepath.Join(atfDir, "normal", "session_20250101_120000")
	if code, out, _ := run(t, nil, "validate", "--strict", normal); code != exitOK || !strings.HasPrefix(out, "ok (") {
		t.Errorf("clean session under --strict: exit %d %q", code, out)
	}
	code, out, _ := run(t, nil, "validate", "--strict", normal, filepath.Join(atfDir, "crash_flushed"))
	if code != exitInvalid || !strings.Contains(out, "session_20250101_120500: manifest.json: no manifest.json") || !strings.HasSuffix(out, "2 inputs: 1 ok, 1 invalid (atf 2); 3 files skipped (not traces)\n") {
		t.Errorf("many under --strict: exit %d\n%s", code, out)
	}
}
