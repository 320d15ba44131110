package fuzz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeT records failures instead of stopping the real test, so the helpers'
// own failure paths can be tested.
type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
}

// lengthPrefixed is a tiny well-behaved decoder: a byte count then that many bytes.
func lengthPrefixed(b []byte) error {
	if len(b) == 0 {
		return errors.New("empty")
	}
	if int(b[0]) > len(b)-1 {
		return errors.New("short")
	}
	return nil
}

func TestSweepAcceptsWellBehavedDecoder(t *testing.T) {
	data := append([]byte{20}, make([]byte, 20)...)
	calls := 0
	Sweep(t, data, func(b []byte) error { calls++; return lengthPrefixed(b) })
	if want := len(data) + len(data) + 64; calls != want {
		t.Fatalf("calls = %d, want %d", calls, want)
	}
}

func TestSweepCatchesPanic(t *testing.T) {
	ft := &fakeT{TB: t}
	Truncations(ft, []byte{3, 1, 2, 3}, func(b []byte) error {
		_ = b[3] // panics on short prefixes
		return nil
	})
	if !ft.failed || !strings.Contains(ft.msg, "panicked") {
		t.Fatalf("panic not reported: %q", ft.msg)
	}
}

func TestSweepCatchesHang(t *testing.T) {
	ft := &fakeT{TB: t}
	release := make(chan struct{})
	defer close(release)
	Corruptions(ft, []byte{1, 2}, func(b []byte) error {
		if b[0] == 0xFE {
			<-release
		}
		return nil
	}, Options{Timeout: 50 * time.Millisecond})
	if !ft.failed || !strings.Contains(ft.msg, "did not return") {
		t.Fatalf("hang not reported: %q", ft.msg)
	}
}

var keep [][]byte

func TestSweepCatchesHugeAllocation(t *testing.T) {
	ft := &fakeT{TB: t}
	Check(ft, []byte{1, 2, 3}, func(b []byte) error {
		keep = append(keep[:0], make([]byte, 64<<20))
		return nil
	})
	if !ft.failed || !strings.Contains(ft.msg, "allocated") {
		t.Fatalf("allocation not reported: %q", ft.msg)
	}
	keep = nil
}

func TestPositionsSampling(t *testing.T) {
	p := positions(100000, 100)
	if len(p) > 100 || p[0] != 0 || p[len(p)-1] != 99999 {
		t.Fatalf("bad sample: len %d first %d last %d", len(p), p[0], p[len(p)-1])
	}
	for i := 1; i < len(p); i++ {
		if p[i] <= p[i-1] {
			t.Fatal("not increasing")
		}
	}
	if len(positions(5, 100)) != 5 || len(positions(0, 100)) != 0 {
		t.Fatal("small inputs must be swept fully")
	}
}

func FuzzSeeded(f *testing.F) {
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "a.bin"), []byte{2, 9, 9}, 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("skip me"), 0o644)
	SeedDir(f, dir, func(p string) bool { return strings.HasSuffix(p, ".bin") })
	SeedFiles(f, filepath.Join(dir, "missing"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = lengthPrefixed(b)
	})
}
