package parquetexport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// The memory budget of the README, as the codec packages' hostile tests
// assert it: every byte allocated (so peak memory too) under
// exportBudgetRatio × input + exportBudgetBase.
const (
	exportBudgetRatio = 64
	exportBudgetBase  = 16 << 20
)

// exportUnderBudget exports the file in (of size bytes) into a new folder
// with opts and fails t when the export allocates more than the budget or
// takes more than a generous time; it returns the export's error and the
// output folder.
func exportUnderBudget(t *testing.T, in string, size int64, opts ...Option) (string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	_, err := Export(context.Background(), out, []string{in}, append(opts, WithConcurrency(1))...)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&m1)
	alloc := int64(m1.TotalAlloc - m0.TotalAlloc)
	limit := exportBudgetRatio*size + exportBudgetBase
	t.Logf("%d bytes in: %d bytes allocated (%.1f × input), %v, error: %v", size, alloc, float64(alloc)/float64(size), elapsed, err)
	if alloc > limit {
		t.Errorf("allocated %d bytes for %d input bytes: over the budget of %d", alloc, size, limit)
	}
	if maxTime := 20*time.Second + time.Duration(size>>20)*2*time.Second; elapsed > maxTime {
		t.Errorf("took %v for %d bytes", elapsed, size)
	}
	return out, err
}

// writeInput writes data to a file in a new folder and returns its path.
func writeInput(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o666); err != nil {
		t.Fatal(err)
	}
	return p
}

// dial9Schemas is a dial9 stream of schemas schemas of fields varint
// fields each, every field name distinct, and one event per schema.
func dial9Schemas(t *testing.T, schemas, fields int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := dial9.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]uint64, fields)
	for s := range schemas {
		defs := make([]dial9.FieldDef, fields)
		for f := range defs {
			defs[f] = dial9.FieldDef{Name: fmt.Sprintf("s%d_f%d", s, f), Type: dial9.TypeVarint}
		}
		h, err := w.Register(fmt.Sprintf("Schema%d", s), defs)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteUints(h, uint64(1000+s), vals...); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// wtfWideEvent is a WTF binary trace with one event type of args uint8
// arguments and events events of it.
func wtfWideEvent(t *testing.T, args, events int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := wtfcff.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var sig strings.Builder
	sig.WriteString("app#wide(")
	for i := range args {
		if i > 0 {
			sig.WriteString(", ")
		}
		fmt.Fprintf(&sig, "uint8 a%d", i)
	}
	sig.WriteString(")")
	et, err := w.Define(0, sig.String(), wtfcff.ClassInstance, 0)
	if err != nil {
		t.Fatal(err)
	}
	for e := range events {
		eb := w.Begin(et, uint32(10+e))
		for i := range args {
			eb.Uint8(uint8(i))
		}
		if err := eb.End(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestManyArgumentColumns (issue 21): inputs whose distinct argument names
// would each cost a column — a dial9 stream of 4 096 schemas × 64 distinct
// field names, one dial9 schema of 65 535 fields, a WTF event type of
// 20 000 arguments — stop the export with ErrLimit past WithMaxColumns,
// write nothing, and stay within the memory budget and in time; under a
// cap that admits their columns they are exported, still within it.
func TestManyArgumentColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds inputs of megabytes")
	}
	cases := []struct {
		name, file string
		gen        func(t *testing.T) []byte
		columns    int // typed argument columns the input asks for
	}{
		{"dial9 4096 schemas x 64 fields", "wide.bin", func(t *testing.T) []byte { return dial9Schemas(t, 4096, 64) }, 4096 * 64},
		{"dial9 one schema of 65535 fields", "fields.bin", func(t *testing.T) []byte { return dial9Schemas(t, 1, 65535) }, 65535},
		{"wtf event type of 20000 arguments", "wide.wtf-trace", func(t *testing.T) []byte { return wtfWideEvent(t, 20000, 3) }, 20000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.gen(t)
			in := writeInput(t, c.file, data)
			out, err := exportUnderBudget(t, in, int64(len(data)))
			if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), in) || !strings.Contains(err.Error(), fmt.Sprint(DefaultMaxColumns)) {
				t.Errorf("got %v, want ErrLimit naming %s and the limit", err, in)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written", out)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".out.tmp-*")); len(left) != 0 {
				t.Errorf("temporary folders left: %v", left)
			}
		})
	}
	// Below the cap: the dial9 schema of 2 000 fields and the WTF event
	// of 2 000 arguments are exported, within the budget.
	t.Run("under the cap", func(t *testing.T) {
		for _, data := range [][]byte{dial9Schemas(t, 1, 2000), wtfWideEvent(t, 2000, 50)} {
			name := "under.bin"
			if bytes.HasPrefix(data, []byte("TRC")) == false {
				name = "under.wtf-trace"
			}
			in := writeInput(t, name, data)
			out, err := exportUnderBudget(t, in, int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			rows, _ := readAll(t, out)
			if len(rows) == 0 {
				t.Errorf("%s: no rows", name)
			}
		}
	})
}

// TestSparseColumnsCounted: the null slots of argument columns count
// towards the row group size, so that a stream whose every event has
// fields of its own (thousands of columns, each with values far apart)
// writes smaller row groups instead of holding columns × rows slots.
func TestSparseColumnsCounted(t *testing.T) {
	data := dial9Schemas(t, 600, 2)
	in := writeInput(t, "sparse.bin", data)
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Export(context.Background(), out, []string{in}, WithRowGroupBytes(256<<10)); err != nil {
		t.Fatal(err)
	}
	// 600 rows of 2 values: the values alone are 44 KB, one row group;
	// with the null slots behind them (8 B per row between a column's
	// values, about 8 × rows² per row group) at least three.
	groups := 0
	m, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	for _, p := range m {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		pf, err := parquet.OpenFile(f, fi.Size())
		if err != nil {
			t.Fatal(err)
		}
		groups += len(pf.RowGroups())
		f.Close()
	}
	if groups < 3 {
		t.Errorf("%d row groups: the null slots are not counted", groups)
	}
}
