package parquetexport_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/parquetexport"
)

// A CTF trace folder exports its event records, one row each.
func TestExportCTFTrace(t *testing.T) {
	in := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace")
	res, err := parquetexport.Export(context.Background(), filepath.Join(t.TempDir(), "out"), []string{in})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 80 {
		t.Fatalf("%d rows, want 80", res.Rows)
	}
}
