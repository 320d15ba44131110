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
	if code := run(nil, &stdout, &stderr); code != 2 {
		t.Errorf("usage: exit %d", code)
	}
}
