package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// TestBisectVector: "tracecat bisect A B" prints the reference's dbg bisect
// report byte for byte and exits 1 (diverged).
func TestBisectVector(t *testing.T) {
	a := vectortest.Path(t, "cdt", "v7_diverge_A.cdt")
	b := vectortest.Path(t, "cdt", "v7_diverge_B.cdt")
	want := vectortest.Read(t, "cdt", "bisect_A_vs_B.json")
	code, out, errOut := run(t, nil, "bisect", a, b)
	if code != exitInvalid || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if strings.TrimSpace(out) != strings.TrimSpace(string(want)) {
		t.Fatalf("report differs from bisect_A_vs_B.json:\n%s", out)
	}

	// Identical traces: status ok, nulls, exit 0.
	code, out, _ = run(t, nil, "bisect", a, a)
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("A vs A: exit %d, %v\n%s", code, err, out)
	}
	if rep["status"] != "ok" || rep["first_bad_tick"] != nil || rep["mismatch"] != nil || rep["window_start"] != nil || rep["checked_count"] != float64(400) {
		t.Errorf("A vs A: %v", rep)
	}

	// The window follows the flags, literally (0 is 0, not the default).
	code, out, _ = run(t, nil, "bisect", "--window-before", "0", "--window-after", "100", a, b)
	rep = nil
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitInvalid {
		t.Fatalf("window: exit %d %v", code, err)
	}
	if rep["window_start"] != float64(237) || rep["window_end"] != float64(337) {
		t.Errorf("window %v..%v", rep["window_start"], rep["window_end"])
	}
	// --tick-end before the divergence: ok.
	code, out, _ = run(t, nil, "bisect", "--tick-end", "200", a, b)
	if code != exitOK || !strings.Contains(out, `"checked_count": 201`) {
		t.Errorf("--tick-end 200: exit %d\n%s", code, out)
	}
}

func TestBisectRejectsOtherFormats(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.bin")
	if code, _, errOut := run(t, nil, "sample", "dial9", p); code != exitOK {
		t.Fatal(errOut)
	}
	code, _, errOut := run(t, nil, "bisect", p, p)
	if code != exitInvalid || !strings.Contains(errOut, "not a CDT trace") {
		t.Errorf("exit %d %q", code, errOut)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
}
