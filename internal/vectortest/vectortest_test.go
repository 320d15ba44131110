package vectortest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
}

func TestMissingFormatSkips(t *testing.T) {
	ok := t.Run("inner", func(t *testing.T) {
		Dir(t, "no-such-format-folder")
		t.Fatal("Dir returned for a missing folder")
	})
	if !ok {
		t.Fatal("inner test failed instead of skipping")
	}
}

func TestOverride(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "dial9"), 0o755)
	os.WriteFile(filepath.Join(dir, "dial9", "x.bin"), []byte("TRC\x00"), 0o644)
	t.Setenv("TRACECODEC_VECTORS", dir)
	if got := string(Read(t, "dial9", "x.bin")); got != "TRC\x00" {
		t.Fatalf("got %q", got)
	}
}
