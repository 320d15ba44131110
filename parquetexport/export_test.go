package parquetexport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/testgen/tracegen"
)

// readAll reads every row of every Parquet file under dir as maps (the
// test's own check; the engine checks are in duckdbtest).
func readAll(t *testing.T, dir string) (rows []map[string]any, rowGroups int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, _ := f.Stat()
		pf, err := parquet.OpenFile(f, fi.Size())
		if err != nil {
			return err
		}
		rowGroups += len(pf.RowGroups())
		r := parquet.NewGenericReader[map[string]any](f, pf.Schema())
		defer r.Close()
		buf := make([]map[string]any, 256)
		for {
			for i := range buf {
				buf[i] = map[string]any{}
			}
			n, err := r.Read(buf)
			rows = append(rows, buf[:n]...)
			if err != nil {
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows, rowGroups
}

func genDial9(t *testing.T, dir string, n int) string {
	t.Helper()
	p := filepath.Join(dir, "seg.bin.gz")
	if err := tracegen.Dial9GzipFile(p, 1_000_000, n); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOptionsRejected(t *testing.T) {
	for _, o := range []Option{WithRowGroupBytes(100), WithRowGroupBytes(2 << 30), WithMemoryBytes(100), WithMemoryBytes(100 << 30), WithConcurrency(0), WithMaxPairDepth(-1), WithCDTFields("")} {
		if _, err := Export(context.Background(), filepath.Join(t.TempDir(), "o"), []string{"x"}, o); !errors.Is(err, ErrOption) {
			t.Errorf("got %v, want ErrOption", err)
		}
	}
}

func TestExistsAndNoInputs(t *testing.T) {
	dir := t.TempDir()
	in := genDial9(t, dir, 10)
	if _, err := Export(context.Background(), dir, []string{in}); !errors.Is(err, ErrExists) {
		t.Errorf("existing output: %v", err)
	}
	if _, err := Export(context.Background(), filepath.Join(dir, "o"), []string{filepath.Join(dir, "*.nothing")}); !errors.Is(err, ErrNoInputs) {
		t.Errorf("empty glob: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o777)
	if _, err := Export(context.Background(), filepath.Join(dir, "o"), []string{empty}); !errors.Is(err, ErrNoInputs) {
		t.Errorf("empty folder: %v", err)
	}
}

// TestPollsPairedAcrossRowGroups: with row groups far smaller than the
// input, every PollStart/PollEnd still becomes one complete row (open
// begins are carried into the next row group), and there are many row
// groups.
func TestPollsPairedAcrossRowGroups(t *testing.T) {
	dir := t.TempDir()
	const polls = 5000
	in := genDial9(t, dir, polls)
	out := filepath.Join(dir, "out")
	res, err := Export(context.Background(), out, []string{in}, WithRowGroupBytes(16<<10), WithConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	rows, groups := readAll(t, out)
	if groups < 10 {
		t.Errorf("%d row groups, want many", groups)
	}
	if int64(len(rows)) != res.Rows || res.Events != polls*tracegen.Dial9EventsPerPoll || len(rows) != polls*3 {
		t.Fatalf("%d rows (result %d), %d events", len(rows), res.Rows, res.Events)
	}
	var complete int
	var dur int64
	for _, r := range rows {
		switch r["kind"] {
		case "complete":
			complete++
			dur += r["dur_ns"].(int64)
			if r["name"] != "poll" || r["dial9_task_id"] == nil || r["dial9_spawn_loc"] == nil {
				t.Fatalf("complete row without its begin's fields: %v", r)
			}
		case "begin", "end":
			t.Fatalf("unpaired row %v", r)
		}
	}
	var want int64
	for i := range polls {
		want += int64(tracegen.PollDur(i))
	}
	if complete != polls || dur != want {
		t.Errorf("%d complete rows, total duration %d; want %d, %d", complete, dur, polls, want)
	}
}

func TestHiveLayoutAndTempFolder(t *testing.T) {
	dir := t.TempDir()
	in := genDial9(t, dir, 100)
	sess, err := tracegen.ATFSession(filepath.Join(dir, "atf"), 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	res, err := Export(context.Background(), out, []string{in, sess}, WithHivePartitioning(true))
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, f := range res.Files {
		parts = append(parts, filepath.Dir(f))
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if strings.Join(parts, " ") != "format=atf format=dial9" && strings.Join(parts, " ") != "format=dial9 format=atf" {
		t.Errorf("files %v", res.Files)
	}
	rows, _ := readAll(t, out)
	for _, r := range rows {
		if _, ok := r["format"]; ok {
			t.Fatalf("format column inside a Hive partition: %v", r)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".out.tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary folders left: %v", left)
	}
}

// TestFailureWritesNothing: a corrupt input stops the export, and neither
// the output nor the temporary folder remains; WithKeepGoing exports the
// other inputs and lists it.
func TestFailureWritesNothing(t *testing.T) {
	dir := t.TempDir()
	good := genDial9(t, dir, 100)
	// A stream whose first header is cut has nothing to recover: it fails.
	bad := filepath.Join(dir, "bad.bin")
	os.WriteFile(bad, []byte("TRC\x00"), 0o666)
	out := filepath.Join(dir, "out")
	if _, err := Export(context.Background(), out, []string{good, bad}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "bad.bin") {
		t.Errorf("got %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*out*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	res, err := Export(context.Background(), out, []string{good, bad}, WithKeepGoing(true))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Path != bad {
		t.Errorf("failed: %v", res.Failed)
	}
	if rows, _ := readAll(t, out); len(rows) < 300 {
		t.Errorf("%d rows", len(rows))
	}
}

// A .bin.gz cut in half is exported as far as it decompresses and decodes,
// and Result.Recovered says what was lost.
func TestRecoveredInputs(t *testing.T) {
	dir := t.TempDir()
	good := genDial9(t, dir, 100)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.bin.gz")
	os.WriteFile(cut, data[:len(data)/2], 0o666)
	res, err := Export(context.Background(), filepath.Join(dir, "out"), []string{good, cut})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 0 || len(res.Recovered) != 1 || res.Recovered[0].Path != cut {
		t.Fatalf("failed %v, recovered %v", res.Failed, res.Recovered)
	}
	r := res.Recovered[0].Recovery
	if r.Format != "dial9" || r.Unit != "events" || r.Read <= 0 || r.Clean() || !errors.Is(r.Reason, dial9.ErrTruncated) {
		t.Errorf("recovery %+v", r)
	}
	if res.Events <= r.Read {
		t.Errorf("%d events exported, %d from the cut input", res.Events, r.Read)
	}
}

func TestCancelRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	in := genDial9(t, dir, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Export(ctx, filepath.Join(dir, "out"), []string{in}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*out*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestNewColumnsStartNewFile: a row group bringing argument columns the
// current file lacks goes to a new file with the union of the columns;
// inputs with the same columns share a file.
func TestNewColumnsStartNewFile(t *testing.T) {
	dir := t.TempDir()
	a := genDial9(t, dir, 2000)
	a2 := filepath.Join(dir, "a2.bin")
	f, _ := os.Create(a2)
	if err := tracegen.Dial9(f, 5, 10); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var buf bytes.Buffer
	w, _ := dial9.NewWriter(&buf)
	h, _ := w.Register("Other", []dial9.FieldDef{{Name: "extra.field", Type: dial9.TypeVarint}})
	w.WriteUints(h, 7, 42)
	w.Close()
	b := filepath.Join(dir, "z.bin")
	os.WriteFile(b, buf.Bytes(), 0o666)
	out := filepath.Join(dir, "out")
	res, err := Export(context.Background(), out, []string{a, a2, b}, WithConcurrency(1), WithRowGroupBytes(16<<10))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 {
		t.Fatalf("%d files %v, want 2", len(res.Files), res.Files)
	}
	rows, _ := readAll(t, filepath.Join(out, res.Files[1]))
	last := rows[len(rows)-1]
	if last["dial9_extra_field"] != int64(42) || last["name"] != "Other" {
		t.Errorf("last row %v", last)
	}
	if _, ok := last["dial9_task_id"]; !ok {
		t.Errorf("second file lacks the first one's columns: %v", last)
	}
}

// TestConvertAllocs pins zero allocations per event once the batch and
// the names are warm.
func TestConvertAllocs(t *testing.T) {
	dir := t.TempDir()
	in := genDial9(t, dir, 2000)
	o, _ := buildOptions(nil)
	c := newConverter(&o)
	b := newBatch(events.FormatDial9)
	var evs []*events.Reader
	for range 3 {
		r, err := events.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		evs = append(evs, r)
	}
	c.start(b, events.FormatDial9, in)
	for evs[0].Next() { // warm-up: columns, names, buffers
		c.add(evs[0].Event())
	}
	b.reset()
	c.attach(b)
	for evs[1].Next() {
		c.add(evs[1].Event())
	}
	b.reset()
	c.attach(b)
	r := evs[2]
	allocs := testing.AllocsPerRun(1000, func() {
		if r.Next() {
			c.add(r.Event())
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per event", allocs)
	}
}

// TestCodecsDoNotLinkParquet: no codec package (nor events) depends on the
// Parquet library, so a program importing only dial9 does not link it.
func TestCodecsDoNotLinkParquet(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	pkgs := []string{"dial9", "atf", "wtfcff", "cdt", "cdt/schema7", "ctf2meta", "events"}
	for _, p := range pkgs {
		out, err := exec.Command(goBin, "list", "-deps", "github.com/tracecodec/tracecodec/"+p).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", p, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.Contains(dep, "parquet") {
				t.Errorf("%s depends on %s", p, dep)
			}
		}
	}
}

// TestMemoryBoundShared: WithMemoryBytes caps the row groups below
// WithRowGroupBytes, and bounds the workers to the row groups it holds.
func TestMemoryBoundShared(t *testing.T) {
	o, _ := buildOptions([]Option{WithRowGroupBytes(1 << 20), WithMemoryBytes(256 << 10), WithConcurrency(8)})
	if got := o.rowGroupLimit(); got != 256<<10 {
		t.Errorf("row group limit %d, want 256 KiB", got)
	}
	if got := o.workers(100); got != 1 {
		t.Errorf("%d workers in one row group of memory", got)
	}
	o, _ = buildOptions([]Option{WithRowGroupBytes(1 << 20), WithMemoryBytes(3 << 20), WithConcurrency(8)})
	if got, got2 := o.workers(100), o.workers(2); got != 3 || got2 != 2 || o.rowGroupLimit() != 1<<20 {
		t.Errorf("%d, %d workers; limit %d", got, got2, o.rowGroupLimit())
	}
	if d, _ := buildOptions(nil); d.memoryBytes != DefaultMemoryRowGroups*DefaultRowGroupBytes {
		t.Errorf("default memory %d", d.memoryBytes)
	}

	dir := t.TempDir()
	in := genDial9(t, dir, 20000)
	k := 0
	groups := func(opts ...Option) (int, int) {
		k++
		out := filepath.Join(dir, fmt.Sprint("o", k))
		if _, err := Export(context.Background(), out, []string{in}, append(opts, WithConcurrency(1))...); err != nil {
			t.Fatal(err)
		}
		rows, g := readAll(t, out)
		return g, len(rows)
	}
	gSmall, rSmall := groups(WithRowGroupBytes(64 << 10))
	gMem, rMem := groups(WithRowGroupBytes(1<<20), WithMemoryBytes(64<<10))
	gBig, rBig := groups(WithRowGroupBytes(1 << 20))
	if rSmall != rMem || rMem != rBig || rBig == 0 {
		t.Fatalf("rows %d, %d, %d", rSmall, rMem, rBig)
	}
	if gMem != gSmall || gBig >= gMem {
		t.Errorf("row groups: 64 KiB groups %d, 1 MiB groups in 64 KiB of memory %d, 1 MiB groups %d", gSmall, gMem, gBig)
	}
}
