package parquetexport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracecodec/tracecodec/internal/tracegen"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// TestDial9DirectEqualsEventLayer exports every dial9 vector (and a
// generated stream) with the converter reading numeric fields straight from
// the decoded dial9 event and again through events.Event.Arg: the datasets
// hold the same rows.
func TestDial9DirectEqualsEventLayer(t *testing.T) {
	dir := vectortest.Dir(t, "dial9")
	ins, err := ExpandInputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	paths := []string{genDial9(t, tmp, 3000)}
	for _, in := range ins {
		paths = append(paths, in.Path)
	}
	if len(paths) < 10 {
		t.Fatalf("only %d dial9 inputs", len(paths))
	}
	// Same inputs and options: the files are byte-for-byte equal (one row
	// group each, so no carried begins whose order could differ).
	var total int64
	for i, p := range paths {
		_, n := exportBothPaths(t, filepath.Join(tmp, fmt.Sprint("o", i)), []string{p}, WithConcurrency(1), WithKeepGoing(true))
		total += n
	}
	if total < 100_000 {
		t.Errorf("only %d rows compared", total)
	}
}

// exportBothPaths exports ins into dir+"-direct" with the converter reading
// dial9 fields straight from the decoded event, and into dir+"-layer"
// through events.Event.Arg, fails t unless the files are byte-for-byte
// equal, and returns the first folder and its row count.
func exportBothPaths(t *testing.T, dir string, ins []string, opts ...Option) (string, int64) {
	t.Helper()
	export := func(direct bool, out string) (map[string][]byte, int64) {
		defer func(old bool) { dial9Direct = old }(dial9Direct)
		dial9Direct = direct
		res, err := Export(context.Background(), out, ins, opts...)
		if err != nil {
			t.Fatalf("%s: %v", ins, err)
		}
		files := map[string][]byte{}
		for _, f := range res.Files {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			files[f] = b
		}
		return files, res.Rows
	}
	a, n := export(true, dir+"-direct")
	b, _ := export(false, dir+"-layer")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("%s: direct and event-layer files differ", ins)
	}
	return dir + "-direct", n
}

// TestATFDirectEqualsEventLayer: the same for ATF's function_id and depth,
// over every ATF vector and a generated 3-thread session.
func TestATFDirectEqualsEventLayer(t *testing.T) {
	ins, err := ExpandInputs(vectortest.Dir(t, "atf"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	s, err := tracegen.ATFSession(tmp, 3, 2000)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{s}
	for _, in := range ins {
		paths = append(paths, in.Path)
	}
	var total int64
	for i, p := range paths {
		a, n := exportFiles(t, &atfDirect, true, filepath.Join(tmp, fmt.Sprintf("o%d-a", i)), p)
		b, _ := exportFiles(t, &atfDirect, false, filepath.Join(tmp, fmt.Sprintf("o%d-b", i)), p)
		total += n
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: direct and event-layer files differ", p)
		}
	}
	if total < 10_000 {
		t.Errorf("only %d rows compared", total)
	}
}

// exportFiles exports p with *flag set to direct and returns the files'
// bytes by name and the rows written.
func exportFiles(t *testing.T, flag *bool, direct bool, out, p string) (files map[string][]byte, rows int64) {
	t.Helper()
	defer func(old bool) { *flag = old }(*flag)
	*flag = direct
	res, err := Export(context.Background(), out, []string{p}, WithConcurrency(1), WithKeepGoing(true))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	files = map[string][]byte{}
	for _, f := range res.Files {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	return files, res.Rows
}
