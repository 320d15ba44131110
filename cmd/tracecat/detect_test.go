package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// run executes tracecat in-process and returns exit code, stdout and stderr.
func run(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &cli{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb}
	code := c.run(args)
	return code, out.String(), errb.String()
}

// sidecar reports files in the vector folders that are descriptions of the
// vectors, not traces: detect must call them unknown.
func sidecar(name string) bool {
	for _, ext := range []string{".md", ".json", ".txt", ".ref", ".sha256", ".tsv", ".stderr"} {
		if strings.HasSuffix(name, ext) && !strings.HasSuffix(name, ".wtf-json") {
			return true
		}
	}
	return name == "SHA256SUMS" || strings.HasPrefix(name, "LICENSE") || strings.HasPrefix(name, "COPYING")
}

// expectedFile is the format each vector file must be detected as.
func expectedFile(rel string) string {
	name := filepath.Base(rel)
	top := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
	switch {
	case name == "base_metadata.json": // actf's reference metadata: a real CTF 2 stream
		return "ctf"
	case sidecar(name):
		return "unknown"
	case name == "hm01_bad_magic.bin": // dial9 has no extension to fall back on
		return "unknown"
	}
	return top // every other file in <format>/ is a trace of that format
}

func TestDetectEveryVectorFile(t *testing.T) {
	root := filepath.Dir(vectortest.Dir(t, "dial9"))
	seen := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			return nil
		}
		want := expectedFile(rel)
		code, out, _ := run(t, nil, "detect", p)
		got := strings.TrimPrefix(strings.TrimSpace(out), p+": ")
		if f, _, _ := strings.Cut(got, " "); f != want {
			t.Errorf("%s: detected %q, want %s", rel, got, want)
		}
		if (want == "unknown") != (code == exitInvalid) {
			t.Errorf("%s: exit %d", rel, code)
		}
		seen[want]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cdt", "dial9", "atf", "ctf", "wtf"} {
		if seen[f] == 0 {
			t.Errorf("no %s vector files found", f)
		}
	}
}

func TestDetectVectorFolders(t *testing.T) {
	root := filepath.Dir(vectortest.Dir(t, "atf"))
	cases := map[string]string{
		"atf/normal/session_20250101_120000":                             "atf (session)",
		"atf/normal/session_20250101_120000/pid_12345":                   "atf (session)",
		"atf/normal/session_20250101_120000/pid_12345/thread_1":          "atf (thread)",
		"atf/crash_flushed/session_20250101_120500":                      "atf (session)",
		"atf/crash_flushed/session_20250101_120500/pid_23456/thread_0":   "atf (thread)",
		"ctf/lttng-2.15.1-ust-ctf2-json/trace":                           "ctf (trace)",
		"ctf/mutated-ctf2-framing/leading-LF-before-RS/trace":            "ctf (trace)",
		"ctf/third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-be": "ctf (trace)",
	}
	for rel, want := range cases {
		p := filepath.Join(root, rel)
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		_, out, _ := run(t, nil, "detect", p)
		if got := strings.TrimPrefix(strings.TrimSpace(out), p+": "); got != want {
			t.Errorf("%s: got %q want %q", rel, got, want)
		}
	}
	// A folder that is no trace is walked: its trace files each get a line,
	// then a summary; files that are no trace are counted as skipped.
	for rel, want := range map[string]struct {
		summary string
		lines   int
	}{
		"atf/malformed": {"10 inputs: 10 recognised, 0 unknown (atf 10); 1 files skipped (not traces)", 10},
		"dial9/golden":  {"2 inputs: 2 recognised, 0 unknown (dial9 2); 11 files skipped (not traces)", 2},
	} {
		code, out, _ := run(t, nil, "detect", filepath.Join(root, rel))
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != exitOK || lines[len(lines)-1] != want.summary || len(lines) != want.lines+1 {
			t.Errorf("%s: exit %d\n%s", rel, code, out)
		}
	}
	// Every session, pid and thread folder is ATF; every folder holding a CTF
	// metadata file is a CTF trace.
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		var want string
		switch {
		case strings.HasPrefix(name, "session_") || strings.HasPrefix(name, "pid_") || strings.HasPrefix(name, "thread_"):
			want = "atf"
		case fileExists(filepath.Join(p, "metadata")):
			want = "ctf"
		default:
			return nil
		}
		_, out, _ := run(t, nil, "detect", p)
		if got := strings.TrimPrefix(strings.TrimSpace(out), p+": "); !strings.HasPrefix(got, want+" ") {
			t.Errorf("%s: got %q want %s", p, got, want)
		}
		return nil
	})
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestDetectUnsignedTSDL(t *testing.T) {
	dir := t.TempDir()
	meta := filepath.Join(dir, "metadata")
	os.WriteFile(meta, []byte("/* no signature */\ntypealias integer { size = 8; } := uint8_t;\ntrace { major = 1; };\n"), 0o644)
	if _, out, _ := run(t, nil, "detect", meta); out != meta+": ctf (TSDL metadata, no signature)\n" {
		t.Fatalf("got %q", out)
	}
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("trace { major = 1; };"), 0o644)
	if _, out, _ := run(t, nil, "detect", other); out != other+": unknown\n" {
		t.Fatalf("a file not named metadata: %q", out)
	}
	os.WriteFile(meta, []byte("tracers are fun"), 0o644)
	if _, out, _ := run(t, nil, "detect", meta); out != meta+": unknown\n" {
		t.Fatalf("prose: %q", out)
	}
}

func TestDetectRandomBytesIsUnknown(t *testing.T) {
	p := filepath.Join(t.TempDir(), "random")
	b := make([]byte, 1<<12)
	rand.Read(b)
	b[0] = 0x42 // never a magic's first byte
	os.WriteFile(p, b, 0o644)
	code, out, _ := run(t, nil, "detect", p)
	if code != exitInvalid || out != p+": unknown\n" {
		t.Fatalf("exit %d, %q", code, out)
	}
}

func TestDetectMagics(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"crimson_debug_trace_v1\n\x01\x00\x00\x00", "cdt (v1)"},
		{"TRC\x00\x01", "dial9"},
		{"ATI2", "atf (index)"},
		{"ATD2", "atf (detail)"},
		{"\x57\x1d\xd1\x75", "ctf (packetized metadata, little-endian)"},
		{"\x75\xd1\x1d\x57", "ctf (packetized metadata, big-endian)"},
		{"\x1e{\"type\":\"preamble\"}", "ctf (CTF 2 JSON metadata)"},
		{"/* CTF 1.8 */", "ctf (TSDL metadata)"},
		{"\xef\xbe\xad\xde", "wtf (binary)"},
		{"\xde\xad\xbe\xef", "wtf (legacy big-endian)"},
		{"{\n \"wtfVersion\": 1}", "wtf (json)"},
		{"", "unknown (empty file)"},
		{"{}", "unknown"},
		{`{"file":"x","file_header":{"wtfVersion":1}}`, "unknown"},
		{`{"a":{"b":[1,{"c":2}]},"wtfVersion":1}`, "wtf (json)"},
	}
	for _, c := range cases {
		code, out, _ := run(t, []byte(c.in), "detect", "-")
		if want := "-: " + c.want + "\n"; out != want {
			t.Errorf("%q: got %q want %q", c.in, out, want)
		}
		if strings.HasPrefix(c.want, "unknown") != (code == exitInvalid) {
			t.Errorf("%q: exit %d", c.in, code)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"nope"}, {"detect"}, {"validate"}, {"stats"}, {"dump", "a", "b"}, {"convert", "a", "b"},
		{"dump", "--from", "x", "a"}, {"dump", "--to", "1.5", "a"}, {"diff", "--tick-end", "z", "a", "b"}} {
		if code, _, _ := run(t, nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, _, _ := run(t, nil, "validate", filepath.Join(t.TempDir(), "missing")); code != exitInvalid {
		t.Errorf("missing file: exit %d", code)
	}
}
