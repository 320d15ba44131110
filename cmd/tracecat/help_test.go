package main

import (
	"encoding/json"
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

// TestEveryCommandHasHelp runs "CMD -h", "CMD --help" and "help CMD" for every
// command: exit 0, the help on standard output, with a usage line, a
// description, every flag with a default and at least one example that runs
// that command.
func TestEveryCommandHasHelp(t *testing.T) {
	if len(commands) < 12 {
		t.Fatalf("only %d commands registered", len(commands))
	}
	for _, cmd := range commands {
		code, out, errOut := run(t, nil, cmd.name, "-h")
		if code != exitOK || errOut != "" {
			t.Errorf("%s -h: exit %d, stderr %q", cmd.name, code, errOut)
			continue
		}
		for _, alt := range [][]string{{cmd.name, "--help"}, {"help", cmd.name}} {
			if c2, out2, _ := run(t, nil, alt...); c2 != exitOK || out2 != out {
				t.Errorf("%v: exit %d, output differs from -h:\n%s", alt, c2, out2)
			}
		}
		if !strings.Contains(out, "usage: tracecat "+cmd.name) || len(cmd.doc) < 40 || !strings.Contains(out, cmd.doc) {
			t.Errorf("%s: help lacks usage or description:\n%s", cmd.name, out)
		}
		if len(cmd.examples) == 0 {
			t.Errorf("%s: no example", cmd.name)
		}
		for _, ex := range cmd.examples {
			if !strings.HasPrefix(ex, "tracecat "+cmd.name) || !strings.Contains(out, "\n  "+ex+"\n") {
				t.Errorf("%s: example %q not shown or not of this command", cmd.name, ex)
			}
		}
		// Every flag line says its default.
		if _, flags, ok := strings.Cut(out, "\nflags:\n"); ok {
			flags, _, _ = strings.Cut(flags, "\n\nexample")
			for _, entry := range strings.Split(flags, "\n  --")[0:] {
				entry = strings.Join(strings.Fields(entry), " ")
				if !strings.Contains(entry, "(default") && !strings.Contains(entry, "(required") && !strings.Contains(entry, "alias of") {
					t.Errorf("%s: flag without a default: %q", cmd.name, entry)
				}
			}
		}
	}
}

// TestFlagsSayTheirUnits pins the units the time and tick flags state.
func TestFlagsSayTheirUnits(t *testing.T) {
	for cmd, wants := range map[string][]string{
		"dump":    {"--from TIME", "in ns on the trace's clock", "1200 or 1200ns, 250us, 3ms, 1.5s", "tick:N for a CDT tick index", "index:N", "--to TIME", "--thread ID", "--type NAME", "refused with exit 2"},
		"merge":   {"--from TIME", "in ns"},
		"diff":    {"--tick-start TICK", "--tick-end TICK"},
		"bisect":  {"--window-before N", "(default: 12)", "--window-after N", "(default: 6)"},
		"convert": {"--to FORMAT", "chrome (ATF, dial9, WTF, CDT, a CTF trace folder)", "packetized", "(required)"},
		"stats":   {"--json", "µs for WTF"},
	} {
		_, out, _ := run(t, nil, "help", cmd)
		flat := strings.Join(strings.Fields(out), " ")
		for _, w := range wants {
			if !strings.Contains(flat, w) {
				t.Errorf("help %s lacks %q:\n%s", cmd, w, out)
			}
		}
	}
}

func TestHelpListAndUnknownCommand(t *testing.T) {
	code, out, _ := run(t, nil, "help")
	if code != exitOK {
		t.Fatalf("help: exit %d", code)
	}
	for _, cmd := range commands {
		if !strings.Contains(out, "\n  "+cmd.name+" ") {
			t.Errorf("help does not list %s:\n%s", cmd.name, out)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}} {
		if c, o, _ := run(t, nil, args...); c != exitOK || o != out {
			t.Errorf("%v: exit %d", args, c)
		}
	}
	// No arguments: the list on stderr, exit 2.
	if c, o, e := run(t, nil); c != exitUsage || o != "" || !strings.Contains(e, "commands:") {
		t.Errorf("no args: exit %d stdout %q", c, o)
	}
	code, out, errOut := run(t, nil, "dupm", "x")
	if code != exitUsage || out != "" || !strings.Contains(errOut, `unknown command "dupm"`) ||
		!strings.Contains(errOut, `Did you mean "dump"?`) || !strings.Contains(errOut, "tracecat help") {
		t.Errorf("unknown command: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := run(t, nil, "help", "frobnicate"); code != exitUsage || !strings.Contains(errOut, "unknown command") {
		t.Errorf("help of an unknown command: exit %d %q", code, errOut)
	}
}

// TestUsageErrorsPointToHelp: a usage error exits 2 with the command's usage
// line and the hint on standard error, nothing on standard output.
func TestUsageErrorsPointToHelp(t *testing.T) {
	for _, args := range [][]string{
		{"validate"}, {"stats"}, {"stats", "--bogus", "a", "b"}, {"dump", "--bogus", "x"}, {"convert", "a", "b"},
		{"bisect", "a"}, {"bisect", "--window-before", "-1", "a", "b"}, {"version", "extra"}, {"dump", "--from", "1.5", "x"},
	} {
		code, out, errOut := run(t, nil, args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "usage: tracecat "+args[0]) ||
			!strings.Contains(errOut, "tracecat help "+args[0]) {
			t.Errorf("%v: exit %d stdout %q stderr %q", args, code, out, errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, nil, "version")
	if code != exitOK || !strings.HasPrefix(out, "tracecat github.com/tracecodec/tracecodec ") {
		t.Fatalf("exit %d: %q", code, out)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/tracecodec/tracecodec", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-23T18:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionText(bi, true), "tracecat github.com/tracecodec/tracecodec v1.2.3\nrevision 0123abcd (2026-11-23T18:00:00Z, modified)\nbuilt with go1.26.8\n"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	bi = &debug.BuildInfo{Main: debug.Module{Path: "github.com/tracecodec/tracecodec"}}
	if got := versionText(bi, true); got != "tracecat github.com/tracecodec/tracecodec (devel)\nrevision unknown (not built from a VCS checkout)\n" {
		t.Errorf("devel: %q", got)
	}
	if got := versionText(nil, false); !strings.HasPrefix(got, "tracecat (devel)\n") {
		t.Errorf("no build info: %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"dump", "dump", 0}, {"dupm", "dump", 2}, {"stat", "stats", 1}, {"abc", "", 3}, {"kitten", "sitting", 3}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("%q %q: %d want %d", c.a, c.b, got, c.d)
		}
	}
	if suggestCommand("stat") != "stats" || suggestCommand("zzzzzz") != "" {
		t.Error("suggestions")
	}
}

// TestConvertCTFToChromeExplains: the README says CTF metadata does not open
// in a trace viewer; the tool says why and writes nothing.
func TestConvertCTFToChromeExplains(t *testing.T) {
	dir := t.TempDir()
	in, out := dir+"/metadata", dir+"/out.json"
	ctfSampleMetadata(t, in)
	code, _, errOut := run(t, nil, "convert", "--to", "chrome", in, out)
	if code != exitUsage || !strings.Contains(errOut, "no Chrome trace form") {
		t.Errorf("exit %d %q", code, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// TestEventFormatsConvertToChrome pins the README's claim: ATF, dial9, WTF
// and CDT traces convert to Chrome trace-event JSON a viewer opens.
func TestEventFormatsConvertToChrome(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"atf", "cdt", "dial9", "wtf"} {
		in, out := dir+"/sample."+f, dir+"/"+f+".json"
		if code, _, e := run(t, nil, "sample", f, in); code != exitOK {
			t.Fatalf("%s: %s", f, e)
		}
		if code, _, e := run(t, nil, "convert", "--to", "chrome", in, out); code != exitOK {
			t.Fatalf("%s: exit %d %s", f, code, e)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []map[string]any `json:"traceEvents"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil || len(doc.TraceEvents) < 2 {
			t.Errorf("%s: %v, %d trace events", f, err, len(doc.TraceEvents))
		}
	}
}

// TestHelpExamplesParse runs every example (in a temporary folder, on files
// that mostly do not exist): none may be a usage error, so the flags and
// argument counts the help shows are ones the command accepts.
func TestHelpExamplesParse(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, cmd := range commands {
		for _, ex := range cmd.examples {
			ex, _, _ = strings.Cut(ex, "#")
			args := shellFields(ex)[1:]
			if code, _, errOut := run(t, nil, args...); code == exitUsage {
				t.Errorf("%q: usage error: %s", ex, errOut)
			}
		}
	}
}

// shellFields splits an example command line as a shell would for the
// quoting the examples use: words separated by spaces, "double quotes"
// keeping spaces inside one word.
func shellFields(s string) []string {
	var out []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				out = append(out, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, word.String())
	}
	return out
}
