package ctf2meta

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// fragmentsJSON is the CTF 2 JSON of every fragment of m, one per line: a
// model compared as text.
func fragmentsJSON(tb testing.TB, m *Metadata) string {
	tb.Helper()
	var b strings.Builder
	for _, f := range m.Fragments {
		out, err := MarshalFragment(f)
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(out)
		b.WriteByte('\n')
	}
	return b.String()
}

// metadataFiles returns every metadata file under root, by path.
func metadataFiles(root string) map[string][]byte {
	out := map[string][]byte{}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Name() == "metadata" {
			if b, err := os.ReadFile(p); err == nil {
				rel, _ := filepath.Rel(root, p)
				out[rel] = b
			}
		}
		return nil
	})
	return out
}

// TSDL → model → TSDL → model gives the same model, and the written TSDL
// is a fixed point, for every TSDL metadata of the vectors that ParseTSDL
// reads (the interop traces and part of babeltrace's test traces); CTF 2
// metadata converts, or is refused with ErrUnsupported, and its TSDL is a
// fixed point too.
func TestTSDLRoundTripVectors(t *testing.T) {
	tsdl, ctf2, _ := tsdlRoundTrip(t, vectortest.Dir(t, "ctf"))
	if tsdl < 8 || ctf2 < 3 {
		t.Errorf("too few metadata streams read: %d TSDL, %d CTF 2", tsdl, ctf2)
	}
}

// The same for every metadata stream of babeltrace's CTF test traces
// (tests/data/ctf-traces of babeltrace v2.1.2) when CTF_BT_TRACES names
// them.
func TestTSDLRoundTripBabeltrace(t *testing.T) {
	root := os.Getenv("CTF_BT_TRACES")
	if root == "" {
		t.Skip("CTF_BT_TRACES not set")
	}
	if tsdl, ctf2, _ := tsdlRoundTrip(t, root); tsdl < 50 || ctf2 < 30 {
		t.Errorf("only %d TSDL and %d CTF 2 metadata streams read", tsdl, ctf2)
	}
}

// tsdlRoundTrip checks every metadata file under root; it returns how many
// TSDL and CTF 2 streams round-trip and how many CTF 2 were refused.
func tsdlRoundTrip(t *testing.T, root string) (tsdl, ctf2, refused int) {
	for rel, raw := range metadataFiles(root) {
		var buf bytes.Buffer
		if _, err := ToPlain(&buf, bytes.NewReader(raw)); err != nil {
			continue // the vectors every reader rejects
		}
		plain := buf.Bytes()
		var m1 *Metadata
		var err error
		isTSDL := ContentVersion(plain) != "2.0"
		if isTSDL {
			m1, err = ParseTSDL(plain)
		} else {
			m1, err = Decode(plain)
		}
		if err != nil {
			continue // fail/ traces
		}
		t1, notes, err := AppendTSDL(nil, m1)
		if err != nil {
			if isTSDL || !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: %v", rel, err)
			} else {
				t.Logf("%s: refused: %v", rel, err)
				refused++
			}
			continue
		}
		m2, err := ParseTSDL(t1)
		if err != nil {
			t.Errorf("%s: the written TSDL does not parse: %v\n%s", rel, err, t1)
			continue
		}
		if isTSDL {
			if a, b := fragmentsJSON(t, m1), fragmentsJSON(t, m2); a != b {
				t.Errorf("%s: the model differs after TSDL → model → TSDL → model:\n%s\n%s", rel, a, b)
			}
			if len(notes) > 0 {
				t.Errorf("%s: notes %q for a model from TSDL", rel, notes)
			}
			tsdl++
		} else {
			ctf2++
			t.Logf("%s: notes %q", rel, notes)
		}
		t2, _, err := AppendTSDL(nil, m2)
		if err != nil || !bytes.Equal(t1, t2) {
			t.Errorf("%s: the TSDL is not a fixed point (%v):\n%s\n---\n%s", rel, err, t1, t2)
		}
	}
	t.Logf("%d TSDL and %d CTF 2 metadata round-trip, %d CTF 2 refused", tsdl, ctf2, refused)
	return tsdl, ctf2, refused
}

// babeltrace2 2.1.2 reads every trace the same way with its metadata
// replaced by AppendTSDL's text: same exit status, same text output, event
// for event. BABELTRACE2 names the babeltrace2 binary; the traces are the
// vectors with data streams and, when CTF_BT_TRACES names babeltrace's
// tests/data/ctf-traces, every succeed/ trace there (fl-bm's bit map has no
// TSDL form: refused).
func TestTSDLBabeltraceAccepts(t *testing.T) {
	bt := os.Getenv("BABELTRACE2")
	if bt == "" {
		t.Skip("BABELTRACE2 not set")
	}
	var dirs []string
	for _, d := range []string{"lttng-2.13.9-ust-ctf1.8-packetized-1pkt", "lttng-2.15.1-ust-ctf1.8-plaintext", "lttng-2.15.1-ust-ctf2-json",
		"mutated-from-lttng-ctf1.8/all-headers-big-endian", "mutated-from-lttng-ctf1.8/trailing-10-bytes", "mutated-ctf2-framing/LF-after-each-fragment"} {
		dirs = append(dirs, vectortest.Path(t, "ctf", d, "trace"))
	}
	if root := os.Getenv("CTF_BT_TRACES"); root != "" {
		for _, v := range []string{"1", "2"} {
			for p := range metadataFiles(filepath.Join(root, v, "succeed")) {
				dirs = append(dirs, filepath.Dir(filepath.Join(root, v, "succeed", p)))
			}
		}
	}
	run := func(dir string) (string, error) {
		cmd := exec.Command(bt, dir)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		return string(out), err
	}
	same, refused := 0, 0
	for _, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, "metadata"))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := ToPlain(&buf, bytes.NewReader(raw)); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		var m *Metadata
		if ContentVersion(buf.Bytes()) == "2.0" {
			m, err = Decode(buf.Bytes())
		} else {
			m, err = ParseTSDL(buf.Bytes())
		}
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		text, _, err := AppendTSDL(nil, m)
		if err != nil {
			if strings.HasSuffix(dir, "fl-bm") && errors.Is(err, ErrUnsupported) {
				refused++
				continue
			}
			t.Errorf("%s: %v", dir, err)
			continue
		}
		conv := t.TempDir()
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Name() != "metadata" {
				if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(conv, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := os.WriteFile(filepath.Join(conv, "metadata"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := run(dir)
		got, gerr := run(conv)
		if werr != nil || want == "" {
			t.Errorf("%s: babeltrace2 does not read the original: %v", dir, werr)
			continue
		}
		if gerr != nil || got != want {
			t.Errorf("%s: babeltrace2 on the original: %v, %d bytes; with the written TSDL: %v, %d bytes", dir, werr, len(want), gerr, len(got))
			continue
		}
		same++
	}
	t.Logf("%d of %d traces read identically by babeltrace2 through the written TSDL, %d refused", same, len(dirs), refused)
}
