package parquetexport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/testgen/tracegen"
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
		_, n := exportBothPaths(t, &dial9Direct, filepath.Join(tmp, fmt.Sprint("o", i)), []string{p}, WithConcurrency(1), WithKeepGoing(true))
		total += n
	}
	if total < 100_000 {
		t.Errorf("only %d rows compared", total)
	}
}

// exportBothPaths exports ins into dir+"-direct" with *flag (dial9Direct or
// atfDirect) set, so that the converter reads the codec's fields straight
// from the decoded record, and into dir+"-layer" with it cleared (through
// events.Event.Arg); it fails t unless the files are byte-for-byte equal, and
// returns the first folder and its row count.
func exportBothPaths(t *testing.T, flag *bool, dir string, ins []string, opts ...Option) (string, int64) {
	t.Helper()
	a, n := exportFiles(t, flag, true, dir+"-direct", ins, opts...)
	b, _ := exportFiles(t, flag, false, dir+"-layer", ins, opts...)
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
		_, n := exportBothPaths(t, &atfDirect, filepath.Join(tmp, fmt.Sprint("o", i)), []string{p}, WithConcurrency(1), WithKeepGoing(true))
		total += n
	}
	if total < 10_000 {
		t.Errorf("only %d rows compared", total)
	}
}

// exportFiles exports ins with *flag set to direct and returns the files'
// bytes by name and the rows written.
func exportFiles(t *testing.T, flag *bool, direct bool, out string, ins []string, opts ...Option) (files map[string][]byte, rows int64) {
	t.Helper()
	defer func(old bool) { *flag = old }(*flag)
	*flag = direct
	res, err := Export(context.Background(), out, ins, opts...)
	if err != nil {
		t.Fatalf("%s: %v", ins, err)
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
