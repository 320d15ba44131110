package parquetexport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/testgen/tracegen"
)

// writePooledRebinds writes a dial9 stream whose pool ids are rebound
// between events (to strings of the same and of other lengths) and used by
// two pooled fields of one schema, some ids undefined; n rounds of 6
// events. want is the value each event's fields must export as ("" for
// null).
func writePooledRebinds(t *testing.T, path string, n int) (want [][2]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := dial9.NewWriter(f)
	if err != nil {
		t.Fatal(err)
	}
	h, err := w.Register("Loc", []dial9.FieldDef{{Name: "a", Type: dial9.TypePooledString}, {Name: "b", Type: dial9.TypePooledString}})
	if err != nil {
		t.Fatal(err)
	}
	pool := map[uint32]string{}
	bind := func(id uint32, s string) {
		if err := w.WriteStringPool([]dial9.StringPoolEntry{{ID: id, Data: []byte(s), ValidUTF8: true}}); err != nil {
			t.Fatal(err)
		}
		pool[id] = s
	}
	ts := uint64(1000)
	ev := func(a, b uint32) {
		ts += 10
		if err := w.Begin(h, ts).PooledString(a).PooledString(b).End(); err != nil {
			t.Fatal(err)
		}
		want = append(want, [2]string{pool[a], pool[b]})
	}
	for i := range n {
		bind(1, fmt.Sprintf("first-%04d", i))
		bind(2, "second")
		ev(1, 2)
		ev(2, 1)
		bind(1, fmt.Sprintf("again-%04d", i)) // same length, other bytes
		ev(1, 1)
		bind(2, fmt.Sprintf("longer-second-%d", i))
		ev(2, 2)
		ev(9, 1) // 9 is never bound: null
		bind(1+8, "collides with 1 in the cache")
		ev(9, 1)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestDial9PooledStringsRebound: pooled strings shared within a row group
// (pooledSpan, writeDictStrings' span cache) export the string the pool
// holds at each event, also when ids are rebound, collide in the cache or
// are undefined, across many row groups; and the direct path writes the
// same files as the event layer.
func TestDial9PooledStringsRebound(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "pool.bin")
	want := writePooledRebinds(t, in, 3000)
	out, _ := exportBothPaths(t, &dial9Direct, filepath.Join(dir, "o"), []string{in}, WithConcurrency(1), WithRowGroupBytes(64<<10))
	rows, groups := readAll(t, out)
	if groups < 4 {
		t.Errorf("%d row groups, want several", groups)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i]["ts_ns"].(int64) < rows[j]["ts_ns"].(int64) })
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	str := func(v any) string {
		switch v := v.(type) {
		case nil:
			return ""
		case string:
			return v
		case []byte:
			return string(v)
		}
		return fmt.Sprintf("%T %v", v, v)
	}
	bad := 0
	for i, r := range rows {
		got := [2]string{str(r["dial9_a"]), str(r["dial9_b"])}
		if got != want[i] && bad < 5 {
			t.Errorf("row %d: %q, want %q", i, got, want[i])
			bad++
		}
	}
}

// TestDial9CollidingColumns: fields whose column names collide (x.y and
// x_y both become dial9_x_y) keep putDial9 off its split loop: the first
// field's value takes the column, the second goes to args_json, as through
// the event layer.
func TestDial9CollidingColumns(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "collide.bin")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := dial9.NewWriter(f)
	if err != nil {
		t.Fatal(err)
	}
	h, err := w.Register("Both", []dial9.FieldDef{{Name: "x.y", Type: dial9.TypeVarint}, {Name: "z", Type: dial9.TypeVarint}, {Name: "x_y", Type: dial9.TypeVarint}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		if err := w.WriteUints(h, uint64(1000+i), uint64(i), uint64(2*i), uint64(3*i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out, _ := exportBothPaths(t, &dial9Direct, filepath.Join(dir, "o"), []string{in}, WithConcurrency(1))
	rows, _ := readAll(t, out)
	if len(rows) != 5000 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		ts := r["ts_ns"].(int64) - 1000
		j := fmt.Sprint(r["args_json"])
		if r["dial9_x_y"] != ts || r["dial9_z"] != 2*ts || j != fmt.Sprintf(`{"x_y":%d}`, 3*ts) {
			t.Fatalf("row %v", r)
		}
	}
}

// TestCarriedBeginsDeterministic: the open begins carried into the next row
// group (here the calls open on 8 ATF threads) are carried track by track in
// the order the tracks were met, so that the same input gives the same files
// on every run (their dictionary ids follow the carried rows).
func TestCarriedBeginsDeterministic(t *testing.T) {
	dir := t.TempDir()
	in, err := tracegen.ATFSession(filepath.Join(dir, "atf"), 8, 3000)
	if err != nil {
		t.Fatal(err)
	}
	var first map[string][]byte
	for run := range 4 {
		out := filepath.Join(dir, fmt.Sprint("o", run))
		res, err := Export(context.Background(), out, []string{in}, WithConcurrency(1), WithRowGroupBytes(16<<10))
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, f := range res.Files {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			files[f] = b
		}
		if run == 0 {
			first = files
			continue
		}
		if !reflect.DeepEqual(files, first) {
			t.Fatalf("run %d wrote other files than run 0", run)
		}
	}
}

// TestStringsValidUTF8: STRING columns (dictionary and typed) and
// args_json hold valid UTF-8 whatever the input's bytes: each invalid run
// becomes U+FFFD, as strings.ToValidUTF8 does.
func TestStringsValidUTF8(t *testing.T) {
	for _, s := range []string{"ok", "a\xffb", "\xff\xfe", "x\xc3", "é\x80\x80z"} {
		got := string(appendValidUTF8([]byte("\xef\xbf\xbd"), []byte(s)))[3:]
		if want := strings.ToValidUTF8(s, "\uFFFD"); got != want || validText(s) != want {
			t.Errorf("%q: %q and %q, want %q", s, got, validText(s), want)
		}
	}
	var buf bytes.Buffer
	w, _ := dial9.NewWriter(&buf)
	h, err := w.Register("BadName", []dial9.FieldDef{{Name: "label", Type: dial9.TypeString}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Begin(h, 5).String("caf\xe9").End(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "bad.bin")
	os.WriteFile(in, buf.Bytes(), 0o666)
	out := filepath.Join(t.TempDir(), "out")
	res, err := Export(context.Background(), out, []string{in})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readAll(t, out)
	if len(rows) != 1 || res.Rows != 1 || rows[0]["name"] != "BadName" || rows[0]["dial9_label"] != "caf\uFFFD" {
		t.Errorf("rows %v, result %+v", rows, res)
	}
}
