package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputAnswers pins what tracecat says about inputs that are no
// trace: an empty folder, an empty file, a folder where one trace is wanted,
// and usage errors of convert and diff.
func TestBadInputAnswers(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	emptyFile := filepath.Join(dir, "empty.bin")
	os.WriteFile(emptyFile, nil, 0o644)
	traces := filepath.Join(dir, "traces")
	os.Mkdir(traces, 0o755)
	d9a, d9b := filepath.Join(traces, "a.dial9.bin"), filepath.Join(traces, "b.dial9.bin")
	run(t, nil, "sample", "dial9", d9a)
	run(t, nil, "sample", "dial9", d9b)

	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"validate", empty}, exitInvalid, "0 inputs: 0 ok, 0 invalid; no inputs: no trace found", ""},
		{[]string{"stats", empty}, exitInvalid, "no inputs", ""},
		{[]string{"detect", empty}, exitInvalid, "no inputs", ""},
		{[]string{"validate", emptyFile}, exitInvalid, "", emptyFile + ": empty file (0 bytes)"},
		{[]string{"dump", emptyFile}, exitInvalid, "", "empty file"},
		{[]string{"detect", emptyFile}, exitInvalid, "unknown (empty file)", ""},
		{[]string{"validate", traces, emptyFile}, exitInvalid, emptyFile + ": empty file", ""},
		{[]string{"dump", traces}, exitUsage, "", "a folder, not a trace folder"},
		{[]string{"convert", "--to", "chrome", traces, filepath.Join(dir, "o.json")}, exitUsage, "", "a folder, not a trace folder"},
		{[]string{"convert", "--to", "pdf", d9a, filepath.Join(dir, "o.pdf")}, exitUsage, "", `--to "pdf": want one of chrome`},
		{[]string{"convert", "--to", "binary", d9a, filepath.Join(dir, "o.bin")}, exitUsage, "", "dial9 converts only to chrome"},
		{[]string{"diff", d9a, d9b}, exitUsage, "", "diff compares CDT traces"},
		{[]string{"merge", d9a}, exitUsage, "", "merge is not supported for dial9"},
	} {
		code, out, errOut := run(t, nil, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%v: exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", tc.args, code, tc.code, out, tc.stdout, errOut, tc.stderr)
		}
	}
	for _, p := range []string{filepath.Join(dir, "o.pdf"), filepath.Join(dir, "o.bin"), filepath.Join(dir, "o.json")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written by a refused convert", p)
		}
	}
}

// TestStdinTerminalHint: reading "-" from a terminal says so instead of
// waiting silently; "-" as an output does not.
func TestStdinTerminalHint(t *testing.T) {
	old := stdinIsTerminal
	defer func() { stdinIsTerminal = old }()
	stdinIsTerminal = func(io.Reader) bool { return true }
	_, _, errOut := run(t, []byte{}, "stats", "-")
	if !strings.Contains(errOut, "standard input, which is a terminal") || !strings.Contains(errOut, "Ctrl-D") {
		t.Errorf("stats - on a terminal: %q", errOut)
	}
	p := filepath.Join(t.TempDir(), "s.dial9.bin")
	run(t, nil, "sample", "dial9", p)
	if _, _, errOut := run(t, []byte{}, "convert", "--to", "chrome", p, "-"); strings.Contains(errOut, "terminal") {
		t.Errorf("convert to standard output hinted: %q", errOut)
	}
	stdinIsTerminal = func(io.Reader) bool { return false }
	if _, _, errOut := run(t, []byte{}, "stats", "-"); strings.Contains(errOut, "terminal") {
		t.Errorf("hint without a terminal: %q", errOut)
	}
}

// TestProgressOnEveryLongCommand: dump, merge and convert of one large
// input show a progress line on a terminal, as validate and stats do.
func TestProgressOnEveryLongCommand(t *testing.T) {
	oldTerm, oldThreshold := stderrIsTerminal, progressThreshold
	defer func() { stderrIsTerminal, progressThreshold, progressShown = oldTerm, oldThreshold, nil }()
	stderrIsTerminal = func() bool { return true }
	progressThreshold = 1
	var labels []string
	progressShown = func(p *progress) { labels = append(labels, p.label) }
	saved := os.Stderr
	devnull, _ := os.Open(os.DevNull)
	os.Stderr = devnull
	defer func() { os.Stderr = saved; devnull.Close() }()
	dir := t.TempDir()
	p := filepath.Join(dir, "s.dial9.bin")
	run(t, nil, "sample", "dial9", p)
	for _, args := range [][]string{
		{"dump", p},
		{"dump", "--json", p},
		{"convert", "--to", "chrome", p, filepath.Join(dir, "o.json")},
	} {
		labels = nil
		cmd := args[0]
		if code, _, errOut := run(t, nil, args...); code != exitOK {
			t.Fatalf("%s: %s", cmd, errOut)
		}
		if !slicesHasPrefix(labels, cmd) {
			t.Errorf("%s: progress labels %q", cmd, labels)
		}
	}
}

func slicesHasPrefix(labels []string, prefix string) bool {
	for _, l := range labels {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// TestOneFormatName: stats names the format "wtf" in its recovery summary
// as in its "format" key, not the package name "wtfcff".
func TestOneFormatName(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.wtf-trace")
	run(t, nil, "sample", "wtf", p)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-5], 0o644)
	code, out, errOut := run(t, nil, "stats", "--json", p)
	var st struct {
		Format   string `json:"format"`
		Recovery *struct {
			Format string `json:"format"`
		} `json:"recovery"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != exitOK || st.Format != "wtf" || st.Recovery == nil || st.Recovery.Format != "wtf" {
		t.Errorf("exit %d %s %s", code, out, errOut)
	}
}

// dump and convert of a folder that holds trace folders of several formats
// (CTF trace folders beside a trace of another format: not an LTTng
// session folder, which is read as one trace) name the trace folders
// inside it (the first three, and how many), instead of "give a file
// inside it" (a CTF channel file alone holds packet headers only).
func TestFolderOfTracesNamesThem(t *testing.T) {
	session := t.TempDir()
	for _, d := range []string{"kernel", "ust/uid/1000/64-bit", "ust/uid/1001/64-bit", "ust/uid/1002/64-bit"} {
		p := filepath.Join(session, d)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if code, _, errb := run(t, nil, "sample", "ctf", p); code != exitOK {
			t.Fatalf("sample: %s", errb)
		}
	}
	if code, _, errb := run(t, nil, "sample", "dial9", filepath.Join(session, "ust", "app.dial9.bin")); code != exitOK {
		t.Fatalf("sample: %s", errb)
	}
	out := filepath.Join(t.TempDir(), "o.json")
	for _, args := range [][]string{{"dump", session}, {"convert", "--to", "chrome", session, out}} {
		code, _, errb := run(t, nil, args...)
		if code != exitUsage || !strings.Contains(errb, "give one of the 4 trace folders inside it (kernel, ust/uid/1000/64-bit, ust/uid/1001/64-bit, …)") {
			t.Errorf("%s: exit %d %q", args[0], code, errb)
		}
	}
	code, _, errb := run(t, nil, "dump", filepath.Join(session, "ust"))
	if code != exitUsage || !strings.Contains(errb, "give one of the 3 trace folders inside it (uid/1000/64-bit, uid/1001/64-bit, uid/1002/64-bit)") {
		t.Errorf("dump ust: exit %d %q", code, errb)
	}
}

// convert (every format) and sample refuse an OUT that is a folder before
// any work, as a usage error naming it: convert wrote its output, then
// failed to rename it ("rename .out.tmpNNN out: file exists", after the
// input's path), and OUT "/tmp" put the temporary file in "/".
func TestConvertOutIsAFolder(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	d9 := filepath.Join(dir, "s.dial9.bin")
	ctf := filepath.Join(dir, "ctf")
	run(t, nil, "sample", "dial9", d9)
	run(t, nil, "sample", "ctf", ctf)
	for _, args := range [][]string{
		{"convert", "--to", "chrome", d9, out},
		{"convert", "--to", "chrome", ctf, out},
		{"convert", "--to", "plain", filepath.Join(ctf, "metadata"), out},
		{"sample", "wtf", out},
	} {
		code, _, errb := run(t, nil, args...)
		if code != exitUsage || !strings.Contains(errb, out+" is a folder: OUT names the file to write") {
			t.Errorf("%v: exit %d %q", args, code, errb)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("%v: left %s", args, e.Name())
			}
		}
	}
}

// A CTF trace folder but for its metadata (missing, empty, not CTF, a
// folder): dump and convert say what is wrong with the metadata (exit 1)
// instead of "a folder, not a trace folder … give a file inside it", and a
// data stream file given alone says the same; a folder named metadata was
// read as a trace folder ("stat …/metadata/metadata").
func TestCTFFolderWithoutUsableMetadata(t *testing.T) {
	for name, spoil := range map[string]func(string) error{
		"missing": os.Remove,
		"empty":   func(p string) error { return os.WriteFile(p, nil, 0o644) },
		"not ctf": func(p string) error { return os.WriteFile(p, []byte("hello\n"), 0o644) },
		"folder": func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o755)
		},
	} {
		want := map[string]string{
			"missing": "no metadata beside it",
			"empty":   "no trace block",
			"not ctf": "unexpected `hello`",
			"folder":  "is a folder, not a file",
		}[name]
		dir := filepath.Join(t.TempDir(), "trace")
		if code, _, errb := run(t, nil, "sample", "ctf", dir); code != exitOK {
			t.Fatalf("sample: %s", errb)
		}
		if err := spoil(filepath.Join(dir, "metadata")); err != nil {
			t.Fatal(err)
		}
		code, _, errb := run(t, nil, "dump", dir)
		if code != exitInvalid || !strings.Contains(errb, "a CTF trace folder whose metadata cannot be used (") || !strings.Contains(errb, want) {
			t.Errorf("%s: dump: exit %d %q, want %q", name, code, errb, want)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() == "metadata" || e.IsDir() {
				continue
			}
			code, out, errb := run(t, nil, "validate", filepath.Join(dir, e.Name()))
			if out += errb; code != exitInvalid || !strings.Contains(out, want) {
				t.Errorf("%s: validate %s: exit %d %q, want %q", name, e.Name(), code, out, want)
			}
			break
		}
	}
}
