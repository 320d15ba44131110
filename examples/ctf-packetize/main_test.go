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
	if code := run([]string{"-be", "-size", "128", out}, &stdout, &stderr); code != 0 {
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
	if code := run([]string{out, out + "2"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "not a plain CTF 2") {
		t.Errorf("packetized input accepted: %d %s", code, stderr.String())
	}
	if code := run([]string{"a", "b", "c"}, &stdout, &stderr); code != 2 {
		t.Errorf("usage: exit %d", code)
	}
}

// TestNoArguments: "go run ./examples/ctf-packetize" works as it is, writing
// into a temporary folder it removes, and lists the packets.
func TestNoArguments(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "4 fragments in 1 packets") || !strings.Contains(out, "  packet 0 at offset 0: ") {
		t.Errorf("stdout %q", out)
	}
	path := strings.SplitN(out, ":", 2)[0]
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("temporary folder %s left behind (%v)", filepath.Dir(path), err)
	}
}
