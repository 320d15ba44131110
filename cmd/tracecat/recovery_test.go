package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/cdt"
)

// damagedSample writes format's sample and damages it as a crash, a cut
// copy or a lenient writer would: it returns the damaged file's path.
func damagedSample(t *testing.T, dir, format string) string {
	t.Helper()
	if format == "ctf-trace" { // the sample trace folder, a data stream cut inside its last packet
		p := filepath.Join(dir, "damaged-sample-ctf")
		if code, _, e := run(t, nil, "sample", "ctf", p); code != exitOK {
			t.Fatal(e)
		}
		s := filepath.Join(p, "channel0_1")
		data, err := os.ReadFile(s)
		if err != nil || len(data) != 8192 {
			t.Fatal(len(data), err)
		}
		if err := os.WriteFile(s, data[:4096+100], 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := filepath.Join(dir, sampleName[format])
	if code, _, e := run(t, nil, "sample", format, full); code != exitOK {
		t.Fatal(e)
	}
	if format == "ctf" { // the sample is a trace folder: damage its metadata, packetized
		full = filepath.Join(dir, "sample-ctf-metadata.packetized")
		if code, _, e := run(t, nil, "convert", "--to", "packetized", filepath.Join(dir, sampleName[format], "metadata"), full); code != exitOK {
			t.Fatal(e)
		}
	}
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	switch format {
	case "cdt": // killed while writing its third chunk
		f, err := cdt.OpenBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		data = data[:f.Footer().Blocks[2].FileOffset+100]
		f.Close()
	case "dial9": // cut inside its last event frame
		data = data[:len(data)-3]
	case "wtf": // the last chunk torn
		data = data[:len(data)-101]
	case "atf": // killed mid-event: no footer, 7 bytes of a torn event
		data = data[:atf.HeaderSize+2*atf.IndexEventSize+7]
	case "ctf": // 5 trailing bytes after the last metadata packet
		data = append(data, 1, 2, 3, 4, 5)
	}
	p := filepath.Join(dir, "damaged-"+filepath.Base(full))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var recoveryLineRE = regexp.MustCompile(`(?m)^(.*): recovery: (read .*)$`)

// TestRecoveryLineEveryFormatEveryCommand: for a damaged input of every
// format, validate, stats, dump and convert print the same recovery line on
// standard error (what was read, what was lost, where, why), stats --json
// has the same summary as its "recovery" object, and validate --strict
// fails saying it.
func TestRecoveryLineEveryFormatEveryCommand(t *testing.T) {
	cases := []struct {
		format   string
		validate int    // validate's exit code without --strict
		unit     string // the summary's unit
		want     string // in the line
		to       string // a convert target
	}{
		{"cdt", exitInvalid, "ticks", "read 32 ticks in ", "chrome"},
		{"dial9", exitInvalid, "events", "and 1 event from offset", "chrome"},
		{"wtf", exitInvalid, "events", "wtfcff: offset", "json"},
		{"atf", exitInvalid, "events", "read 2 events in 128 bytes; lost 7 bytes and an unknown number of events from offset 128: atf: ", "chrome"},
		{"ctf", exitOK, "packets", "read 1 packet in 4096 bytes; lost 5 bytes and an unknown number of packets from offset 4096: ctf2meta: offset 4096: 5 trailing byte(s)", "plain"},
		// A trace folder whose data stream is cut inside its last packet:
		// validate fails as babeltrace2 2.1.2 does (exit 1); the others
		// read the 397 event records before the cut. Only validate and
		// stats printed a line (validate a warning).
		{"ctf-trace", exitInvalid, "events", "read 397 events in 12372 bytes; lost 16 bytes and an unknown number of events: channel0_1: ctf: offset 4096: packet 1 is cut: the file ends 3996 bytes before its declared size of 4096 bytes; note: channel0_1: the last packet is cut", "chrome"},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			p := damagedSample(t, dir, tc.format)
			var line string
			check := func(cmd string, code, wantCode int, errOut string) {
				t.Helper()
				if code != wantCode {
					t.Fatalf("%s: exit %d, want %d: %s", cmd, code, wantCode, errOut)
				}
				m := recoveryLineRE.FindStringSubmatch(errOut)
				if m == nil || m[1] != p || !strings.Contains(m[2], tc.want) {
					t.Fatalf("%s: no recovery line with %q in %q", cmd, tc.want, errOut)
				}
				if line == "" {
					line = m[2]
				} else if m[2] != line {
					t.Fatalf("%s: recovery line\n%s\ndiffers from\n%s", cmd, m[2], line)
				}
			}
			code, _, errOut := run(t, nil, "validate", p)
			check("validate", code, tc.validate, errOut)
			code, out, errOut := run(t, nil, "stats", p)
			check("stats", code, exitOK, errOut)
			if !strings.Contains(out, "recovery: "+line+"\n") {
				t.Errorf("stats text has no recovery key: %s", out)
			}
			code, out, errOut = run(t, nil, "stats", "--json", p)
			check("stats --json", code, exitOK, errOut)
			var st struct {
				Recovery struct {
					Format, Unit string
					Read         float64
					Clean        bool
					Reason       string
				}
			}
			if err := json.Unmarshal([]byte(out), &st); err != nil || st.Recovery.Unit != tc.unit || st.Recovery.Clean || st.Recovery.Read <= 0 ||
				!strings.Contains(line, st.Recovery.Reason) || st.Recovery.Reason == "" {
				t.Errorf("stats --json recovery: %+v (%v) in %s", st.Recovery, err, out)
			}
			code, _, errOut = run(t, nil, "dump", p)
			check("dump", code, exitOK, errOut)
			code, _, errOut = run(t, nil, "dump", "--json", p)
			check("dump --json", code, exitOK, errOut)
			code, _, errOut = run(t, nil, "convert", "--to", tc.to, p, filepath.Join(dir, "out"))
			check("convert", code, exitOK, errOut)
			code, _, errOut = run(t, nil, "validate", "--strict", p)
			// Formats whose validate already fails on the damage fail the
			// same way; the others fail with "strict: recovery: LINE".
			if code != exitInvalid || !strings.Contains(errOut, line) || tc.validate == exitOK && !strings.Contains(errOut, p+": strict: recovery: "+line) {
				t.Errorf("validate --strict: exit %d: %s", code, errOut)
			}
			// The undamaged sample prints no recovery line anywhere.
			full := filepath.Join(dir, sampleName[strings.TrimSuffix(tc.format, "-trace")])
			if tc.format == "ctf-trace" {
				full = filepath.Join(dir, "sample-ctf")
				if code, _, e := run(t, nil, "sample", "ctf", full); code != exitOK {
					t.Fatal(e)
				}
			}
			for _, args := range [][]string{{"validate", full}, {"stats", "--json", full}, {"dump", full}} {
				code, out, errOut := run(t, nil, args...)
				if code != exitOK || strings.Contains(errOut, "recovery:") || args[0] == "stats" && !strings.Contains(out, `"recovery":null`) {
					t.Errorf("%v: exit %d, %s %s", args, code, out, errOut)
				}
			}
			t.Logf("%s: %s", tc.format, line)
		})
	}
}

// With many inputs, validate and stats print the recovery line of each
// damaged one in its result.
func TestRecoveryLineManyInputs(t *testing.T) {
	dir := t.TempDir()
	a := damagedSample(t, dir, "atf")
	c := damagedSample(t, dir, "ctf")
	code, out, _ := run(t, nil, "validate", a, c)
	if code != exitInvalid || !strings.Contains(out, a+": recovery: read 2 events") || !strings.Contains(out, c+": recovery: read 1 packet in 4096 bytes") {
		t.Errorf("validate: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, nil, "stats", "--json", a, c)
	if code != exitOK || strings.Count(out, `"recovery":{"format":`) != 2 {
		t.Errorf("stats --json: exit %d\n%s", code, out)
	}
}

// export prints the recovery line of every damaged input it exported, the
// same line dump prints.
func TestRecoveryLineExport(t *testing.T) {
	dir := t.TempDir()
	var ins []string
	lines := map[string]string{}
	for _, f := range []string{"dial9", "cdt", "wtf"} {
		p := damagedSample(t, dir, f)
		ins = append(ins, p)
		_, _, errOut := run(t, nil, "dump", p)
		m := recoveryLineRE.FindStringSubmatch(errOut)
		if m == nil {
			t.Fatalf("%s: dump prints no recovery line: %s", f, errOut)
		}
		lines[p] = m[0]
	}
	code, _, errOut := run(t, nil, append(append([]string{"export", "--to", "parquet"}, ins...), filepath.Join(dir, "out"))...)
	if code != exitOK {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	for _, l := range lines {
		if !strings.Contains(errOut, l+"\n") {
			t.Errorf("export: no line %q in %s", l, errOut)
		}
	}
}
