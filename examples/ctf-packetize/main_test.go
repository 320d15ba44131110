package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

func TestBuiltin(t *testing.T) {
	out := filepath.Join(t.TempDir(), "metadata")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-be", "-size", "128", "", out}, &stdout, &stderr); code == 0 {
		t.Error("empty IN path accepted")
	}
	if code := run([]string{"-be", "-size", "128"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "(not written): CTF 2 JSON text sequence input, 4 fragments in") {
		t.Fatalf("no argument: exit %d: %s %s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	inPath := filepath.Join(t.TempDir(), "in")
	os.WriteFile(inPath, []byte(builtin), 0o644)
	if code := run([]string{"-be", "-size", "128", inPath, out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "4 fragments in") || !strings.Contains(stdout.String(), "big-endian") {
		t.Errorf("stdout %q", stdout.String())
	}
	raw, _ := os.ReadFile(out)
	plain, info, err := ctf2meta.Depacketize(nil, raw)
	if err != nil || string(plain) != builtin || info.ByteOrder != ctf2meta.BigEndian || len(raw)%128 != 0 {
		t.Fatalf("%v %+v", err, info)
	}
}

func TestLTTngMetadata(t *testing.T) {
	in := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace", "metadata")
	out := filepath.Join(t.TempDir(), "metadata")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-layout", "2.0-37", in, out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "44 fragments in 18 packets") {
		t.Errorf("stdout %q", stdout.String())
	}
	// Packetized input is repacketized: same text, other layout.
	stdout.Reset()
	if code := run([]string{out, out + "2"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "packetized input, 44 fragments in 18 packets") {
		t.Errorf("packetized input: %d %s %s", code, stdout.String(), stderr.String())
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(out + "2")
	pa, _, _ := ctf2meta.Depacketize(nil, a)
	pb, info, _ := ctf2meta.Depacketize(nil, b)
	if !bytes.Equal(pa, pb) || info.Layout != ctf2meta.LayoutPMETA {
		t.Errorf("repacketized text differs or layout %v", info.Layout)
	}
	if code := run([]string{"-layout", "x"}, &stdout, &stderr); code != 1 {
		t.Errorf("bad layout: exit %d", code)
	}
	if code := run([]string{"a", "b", "c"}, &stdout, &stderr); code != 2 {
		t.Errorf("usage: exit %d", code)
	}
}
