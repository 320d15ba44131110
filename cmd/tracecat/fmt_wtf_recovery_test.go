package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/wtfcff"
)

// legacyWTF is a legacy (BinaryTrace v3) file: a definition of
// legacy#ev(uint32 x) and n events.
func legacyWTF(n int) []byte {
	be := binary.BigEndian
	str := func(b []byte, s string) []byte {
		b = be.AppendUint16(b, uint16(len(s)))
		b = be.AppendUint16(b, uint16(len(s)))
		return append(b, s...)
	}
	ascii := func(b []byte, s string) []byte { return append(be.AppendUint16(b, uint16(len(s))), s...) }
	b := be.AppendUint32(nil, wtfcff.Magic)
	b = be.AppendUint32(b, 1)
	b = be.AppendUint32(b, wtfcff.LegacyFormatVersion)
	b = str(b, `{"contextType":"script","uri":"legacy://t","title":"t"}`)
	b = be.AppendUint32(b, 0)
	b = be.AppendUint32(b, 1000)
	b = be.AppendUint32(b, 0)
	b = str(b, `{}`)
	b = be.AppendUint16(b, 1) // wtf.event#define
	b = be.AppendUint32(b, 0)
	b = be.AppendUint16(b, 2)
	b = be.AppendUint16(b, 0)
	b = be.AppendUint32(b, 0)
	b = ascii(b, "legacy#ev")
	b = ascii(b, "uint32 x")
	for i := range n {
		b = be.AppendUint16(b, 2)
		b = be.AppendUint32(b, uint32(100*i))
		b = be.AppendUint32(b, uint32(i))
	}
	return b
}

// TestWTFRecoveryJSONAndLegacy: a JSON file cut inside its last chunk and a
// legacy file cut inside its last record are read as far as they go by
// validate, stats, dump and convert, which print the same recovery line
// with the events read; convert writes a whole file holding exactly them.
func TestWTFRecoveryJSONAndLegacy(t *testing.T) {
	dir := t.TempDir()
	sample := filepath.Join(dir, "s.wtf-trace")
	if code, _, e := run(t, nil, "sample", "wtf", sample); code != exitOK {
		t.Fatal(e)
	}
	js := filepath.Join(dir, "s.wtf-json")
	if code, _, e := run(t, nil, "convert", "--to", "json", sample, js); code != exitOK {
		t.Fatal(e)
	}
	text, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	// Inside the last chunk's base64 event buffer.
	cutJSON := text[:bytes.LastIndex(text, []byte(`"value":"`))+200]
	legacy := legacyWTF(30)
	cutLegacy := legacy[:len(legacy)-5]
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"cut.wtf-json", cutJSON, "the chunk object at text offset"},
		{"cut-legacy.wtf-trace", cutLegacy, "the legacy event buffer at offset"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var line string
		check := func(cmd string, code int, errOut string) {
			t.Helper()
			m := recoveryLineRE.FindStringSubmatch(errOut)
			if m == nil || m[1] != p || !strings.Contains(m[2], c.want) || strings.Contains(m[2], "read 0 events") {
				t.Fatalf("%s %s: exit %d, no recovery line with %q: %q", c.name, cmd, code, c.want, errOut)
			}
			if line == "" {
				line = m[2]
			} else if m[2] != line {
				t.Fatalf("%s %s: recovery line\n%s\ndiffers from\n%s", c.name, cmd, m[2], line)
			}
		}
		code, _, errOut := run(t, nil, "validate", p)
		check("validate", code, errOut)
		code, out, errOut := run(t, nil, "stats", "--json", p)
		check("stats", code, errOut)
		var st struct{ Recovery struct{ Read float64 } }
		if err := json.Unmarshal([]byte(out), &st); err != nil || st.Recovery.Read <= 0 {
			t.Fatalf("%s stats: %v %s", c.name, err, out)
		}
		code, _, errOut = run(t, nil, "dump", p)
		check("dump", code, errOut)
		for _, to := range []string{"json", "binary"} {
			out := filepath.Join(dir, c.name+"."+to)
			code, _, errOut = run(t, nil, "convert", "--to", to, p, out)
			check("convert --to "+to, code, errOut)
			// The written file is whole, with the events that were read.
			code, vout, verr := run(t, nil, "validate", out)
			if code != exitOK || strings.Contains(verr, "recovery:") {
				t.Fatalf("%s converted to %s: exit %d: %s %s", c.name, to, code, vout, verr)
			}
			var st2 struct {
				Events float64
			}
			_, sout, _ := run(t, nil, "stats", "--json", out)
			if err := json.Unmarshal([]byte(sout), &st2); err != nil || st2.Events != st.Recovery.Read {
				t.Fatalf("%s converted to %s: %v events, the recovery read %v: %s", c.name, to, st2.Events, st.Recovery.Read, sout)
			}
		}
	}
}
