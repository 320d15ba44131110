package parquetexport

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/tracegen"
)

// TestGenerateBigInputs writes the inputs of the package doc's memory and
// throughput measurement when TRACECODEC_BIG_DIR names a folder: 16 dial9
// streams of 1.6 M polls (≈ 1 GiB, 102 M events) under dial9/, and an
// 8-thread ATF session of 1.1 M outer calls per thread (≈ 1.1 GiB, 35 M
// events) under atf/. Skipped otherwise.
func TestGenerateBigInputs(t *testing.T) {
	dir := os.Getenv("TRACECODEC_BIG_DIR")
	if dir == "" {
		t.Skip("TRACECODEC_BIG_DIR not set")
	}
	d9 := filepath.Join(dir, "dial9")
	if err := os.MkdirAll(d9, 0o777); err != nil {
		t.Fatal(err)
	}
	for k := range 16 {
		f, err := os.Create(filepath.Join(d9, fmt.Sprintf("seg-%02d.bin", k)))
		if err != nil {
			t.Fatal(err)
		}
		if err := tracegen.Dial9(f, uint64(k)<<40, 1_600_000); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tracegen.ATFSession(filepath.Join(dir, "atf"), 8, 1_100_000); err != nil {
		t.Fatal(err)
	}
}
