package parquetexport

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/wtfcff"
)

// wtfAppendData is one WTF scope holding n wtf.scope#appendData records,
// each naming the same JSON string of size bytes (one string table entry:
// the writer interns it); without scope, n wtf.trace#mark records naming
// it, outside any scope.
func wtfAppendData(t *testing.T, n, size int, scope bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := wtfcff.NewWriter(&buf, wtfcff.WithChunkSize(size+n*16+1<<16))
	if err != nil {
		t.Fatal(err)
	}
	big := `"` + strings.Repeat("x", size-2) + `"`
	if !scope {
		for i := range n {
			if err := w.Mark(uint32(2+i), "k", big); err != nil {
				t.Fatal(err)
			}
		}
	} else {
		if err := w.EnterScope(1, "scope"); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := w.AppendScopeData(uint32(2+i), "k", big); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.LeaveScope(uint32(n + 2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRepeatedStringReferencesExport: 20 000 appendData records naming one
// 1 MiB string (1.37 MB of input, issue 21). The decoder charges every
// reference, the scope tracker the scope data it holds, and the export the
// strings it copies into its rows, each as the input asks for them: the
// export stops with ErrLimit within the budget (it allocated 652 MB,
// peaked at 354 MB and took 4–35 s before) and writes nothing. The same
// string named by 20 000 marks outside any scope (no scope data: only the
// rows hold it) stops at the export's own charge.
func TestRepeatedStringReferencesExport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds inputs of a megabyte")
	}
	for _, c := range []struct {
		name  string
		scope bool
		want  error
		says  string
	}{
		{"appendData in one scope", true, wtfcff.ErrLimit, "open scopes"},
		{"marks", false, ErrLimit, "the rows so far hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := wtfAppendData(t, 20000, 1<<20, c.scope)
			in := writeInput(t, "append.wtf-trace", data)
			out, err := exportUnderBudget(t, in, int64(len(data)))
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("got %v, want %v saying %q", err, c.want, c.says)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written", out)
			}
		})
	}
	// A few references to a long string are exported.
	for _, scope := range []bool{true, false} {
		data := wtfAppendData(t, 3, 1<<20, scope)
		out, err := exportUnderBudget(t, writeInput(t, "few.wtf-trace", data), int64(len(data)))
		if err != nil {
			t.Fatalf("scope %v: %v", scope, err)
		}
		if rows, _ := readAll(t, out); len(rows) == 0 {
			t.Errorf("scope %v: no rows", scope)
		}
	}
}
