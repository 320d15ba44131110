package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// vectorInputs lists every file and folder under ../shared/vectors that detect
// assigns to a format, with that format.
func vectorInputs(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Dir(vectortest.Dir(t, "dial9"))
	inputs := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		in, err := newInput(p, nil)
		if err == nil && in.det.Format != "unknown" {
			inputs[p] = in.det.Format
		}
		return nil
	})
	return inputs
}

// checkOutcome asserts the CLI contract: exit 0 or 1 (never usage or a crash),
// and on 1 a "PATH: " message on standard error.
func checkOutcome(t *testing.T, what, path string, code int, stderr string) {
	t.Helper()
	switch code {
	case exitOK:
	case exitInvalid:
		if !strings.HasPrefix(stderr, path+": ") {
			t.Errorf("%s %s: exit 1 without a 'PATH: what is wrong' message: %q", what, path, stderr)
		}
	default:
		t.Errorf("%s %s: exit %d, stderr %q", what, path, code, stderr)
	}
}

// TestEveryCommandOnEveryVector runs validate, stats --json, dump --json and
// convert --to chrome on every vector the detector recognises.
func TestEveryCommandOnEveryVector(t *testing.T) {
	inputs := vectorInputs(t)
	if len(inputs) == 0 {
		t.Fatal("no vectors recognised")
	}
	out := t.TempDir()
	validated := map[string]int{}
	for path, format := range inputs {
		f := formats[format]
		if f == nil {
			t.Errorf("%s: detected as %s, which has no tracecat support", path, format)
			continue
		}
		// A folder of CTF traces (an LTTng session) is one trace for dump,
		// convert and stats; validate walks it, one input per trace
		// folder (each checked on its own here).
		session := events.CTFSession(path) != nil
		if !session {
			vcode, _, verr := run(t, nil, "validate", path)
			checkOutcome(t, "validate", path, vcode, verr)
			if vcode == exitOK {
				validated[format]++
			}
		}

		code, stdout, stderr := run(t, nil, "stats", "--json", path)
		checkOutcome(t, "stats", path, code, stderr)
		if code == exitOK {
			var m map[string]any
			if err := json.Unmarshal([]byte(stdout), &m); err != nil {
				t.Errorf("stats --json %s: not JSON: %v", path, err)
			} else if m["format"] != format {
				t.Errorf("stats --json %s: format %v", path, m["format"])
			}
		}

		code, stdout, stderr = run(t, nil, "dump", "--json", path)
		checkOutcome(t, "dump", path, code, stderr)
		sc := bufio.NewScanner(strings.NewReader(stdout))
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			if !json.Valid(sc.Bytes()) {
				t.Errorf("dump --json %s: line %d is not JSON: %.200s", path, n, sc.Text())
				break
			}
		}

		if f.convert != nil {
			dst := filepath.Join(out, "chrome.json")
			code, _, stderr = run(t, nil, "convert", "--to", "chrome", path, dst)
			if fi, err := os.Stat(path); format == "ctf" && err == nil && !fi.IsDir() {
				// A CTF metadata file has no events to show; convert --to
				// chrome must be refused cleanly as a usage error, not crash.
				if code != exitUsage || !strings.HasPrefix(stderr, path+": ") {
					t.Errorf("convert %s: exit %d %q, want 2 and the path", path, code, stderr)
				}
				continue
			}
			checkOutcome(t, "convert", path, code, stderr)
			if code == exitOK {
				b, err := os.ReadFile(dst)
				if err != nil {
					t.Errorf("convert %s: %v", path, err)
					continue
				}
				if !validChromeTrace(b) {
					t.Errorf("convert --to chrome %s: not trace-event JSON: %.200s", path, b)
				}
			} else if _, err := os.Stat(dst); err == nil {
				os.Remove(dst)
			}
		}
	}
	for _, f := range []string{"cdt", "dial9", "atf", "ctf", "wtf"} {
		if formats[f] != nil && validated[f] == 0 {
			t.Errorf("no %s vector validated", f)
		}
	}
}

// validChromeTrace accepts both trace-event JSON shapes: an array of events or
// an object with a traceEvents array, each event having ph and (except
// metadata) a numeric ts.
func validChromeTrace(b []byte) bool {
	var events []map[string]any
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		if json.Unmarshal(b, &events) != nil {
			return false
		}
	} else {
		var obj struct {
			TraceEvents []map[string]any `json:"traceEvents"`
		}
		if json.Unmarshal(b, &obj) != nil || obj.TraceEvents == nil {
			return false
		}
		events = obj.TraceEvents
	}
	for _, e := range events {
		ph, ok := e["ph"].(string)
		if !ok {
			return false
		}
		if ph != "M" {
			if _, ok := e["ts"].(float64); !ok {
				return false
			}
		}
	}
	return true
}

func TestEveryFormatRegisteredWithSample(t *testing.T) {
	for _, name := range []string{"cdt", "dial9", "atf", "ctf", "wtf"} {
		f := formats[name]
		if f == nil {
			t.Errorf("%s: not registered", name)
			continue
		}
		if (!f.lib && (f.validate == nil || f.stats == nil)) || f.dump == nil || !f.hasSample() || f.convert == nil {
			t.Errorf("%s: missing one of validate/stats/dump/convert/sample", name)
		}
	}
	if formats["cdt"] != nil && formats["cdt"].diff == nil {
		t.Error("cdt: no diff")
	}
	if formats["atf"] != nil && formats["atf"].merge == nil {
		t.Error("atf: no merge")
	}
}

// TestDemo runs the README's main command in-process: every format's sample is
// written, detected as that format, validated and summarised.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := run(t, nil, "demo", dir)
	if code != exitOK {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, stderr)
	}
	for name := range formats {
		path := filepath.Join(dir, sampleName[name])
		if !strings.Contains(out, path+": "+name) {
			t.Errorf("demo output lacks the detection of %s as %s", path, name)
		}
		if !strings.Contains(out, "format: "+name+"\n") {
			t.Errorf("demo output lacks stats for %s", name)
		}
		if !strings.Contains(out, "$ tracecat dump "+path+"\n") {
			t.Errorf("demo output lacks a dump of %s", name)
		}
		// A few event lines of the dump (CTF's in babeltrace2's text form:
		// "[time] (+delta) host class: ..."), and the Chrome file written.
		_, dump, _ := strings.Cut(out, "$ tracecat dump "+path+"\n")
		lines := strings.SplitN(dump, "\n", demoDumpLines+1)
		for _, l := range lines[:demoDumpLines] {
			f := strings.Fields(l)
			if name == "ctf" && (len(f) < 4 || !strings.HasPrefix(l, "[") || !strings.HasPrefix(f[3], "gen:")) ||
				name != "ctf" && (len(f) < 3 || !strings.Contains(l, " [")) {
				t.Errorf("%s: demo dump line %q is no event line", name, l)
			}
		}
		if !strings.Contains(lines[demoDumpLines], "more lines") {
			t.Errorf("%s: demo dump shows no count of the lines left out: %q", name, lines[demoDumpLines])
		}
		chrome := path + ".chrome.json"
		if _, err := os.Stat(chrome); err != nil || !strings.Contains(out, "wrote "+chrome+"\n") {
			t.Errorf("demo did not write or name %s: %v", chrome, err)
		}
	}
	// The CTF sample's 400 events are counted, and every input is exported.
	if !strings.Contains(out, "ok (plain text; CTF 1.8 TSDL, ") || !strings.Contains(out, "; 400 event records in 2 data streams)") ||
		!strings.Contains(out, "\nevents: 400\n") || !strings.Contains(out, " of 5 inputs ") {
		t.Errorf("demo output lacks the CTF sample's events or an export input:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "parquet")); err != nil || !strings.Contains(out, "wrote "+filepath.Join(dir, "parquet")) || !strings.Contains(out, "Outputs in "+dir) {
		t.Errorf("demo did not write or name the Parquet dataset: %v", err)
	}
}

func TestHeadWriter(t *testing.T) {
	var b strings.Builder
	h := &headWriter{w: &b, lines: 2}
	for _, s := range []string{"a\nb", "\nc\n", "d\ne\n"} {
		h.Write([]byte(s))
	}
	if b.String() != "a\nb\n" || h.more != 3 {
		t.Errorf("%q, %d more", b.String(), h.more)
	}
}
