// Package vectortest finds the shared reference vectors for tests.
//
// The vectors live outside the repository, in ../shared/vectors/<format>/ beside
// the module root (CI checks the repository out with shared/ next to it). Tests
// call Dir or Path, which skip the test with a message when the folder is absent,
// so a plain clone still passes. TRACECODEC_VECTORS overrides the location of the
// vectors folder.
package vectortest

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// ModuleRoot walks up from the working directory to the folder holding go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("vectortest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Root returns the vectors folder (../shared/vectors from the module root, or
// $TRACECODEC_VECTORS), or an error when it does not exist.
func Root() (string, error) {
	if env := os.Getenv("TRACECODEC_VECTORS"); env != "" {
		if fi, err := os.Stat(env); err != nil || !fi.IsDir() {
			return "", errors.New("vectortest: TRACECODEC_VECTORS=" + env + " is not a folder")
		}
		return env, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(root), "shared", "vectors")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", errors.New("vectortest: " + dir + " not found")
	}
	return dir, nil
}

// Dir returns ../shared/vectors/<format>, skipping the test when it is absent.
func Dir(tb testing.TB, format string) string {
	tb.Helper()
	root, err := Root()
	if err != nil {
		tb.Skipf("reference vectors unavailable: %v", err)
	}
	dir := filepath.Join(root, format)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		tb.Skipf("reference vectors for %s unavailable: %s not found", format, dir)
	}
	return dir
}

// Path returns a file or folder inside ../shared/vectors/<format>, skipping the
// test when it is absent.
func Path(tb testing.TB, format string, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir(tb, format)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("reference vector %s unavailable: %v", p, err)
	}
	return p
}

// Read returns the contents of a vector file, skipping the test when it is absent.
func Read(tb testing.TB, format string, elem ...string) []byte {
	tb.Helper()
	p := Path(tb, format, elem...)
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatalf("reading %s: %v", p, err)
	}
	return b
}

// CTFTraceDirs lists, sorted, the folders under root that hold a file named
// metadata: the CTF trace folders (and folders of metadata alone).
func CTFTraceDirs(root string) []string {
	var dirs []string
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Name() == "metadata" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs
}
