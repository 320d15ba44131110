package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/tracecodec/tracecodec/parquetexport"
)

// TestExportCommand exports the sample traces of the four event formats
// and checks the files, the summary line, the refusal to overwrite and the
// usage errors.
func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	var ins []string
	for _, f := range []string{"dial9", "atf", "wtf", "cdt"} {
		p := filepath.Join(dir, "sample."+f)
		if code, _, errOut := run(t, nil, "sample", f, p); code != exitOK {
			t.Fatalf("sample %s: %s", f, errOut)
		}
		ins = append(ins, p)
	}
	out := filepath.Join(dir, "out")
	code, stdout, errOut := run(t, nil, append(append([]string{"export", "--to", "parquet", "--hive", "--jobs", "2"}, ins...), out)...)
	if code != exitOK || !strings.Contains(stdout, "of 4 inputs") {
		t.Fatalf("exit %d: %q %q", code, stdout, errOut)
	}
	var rows int64
	for _, f := range []string{"dial9", "atf", "wtf", "cdt"} {
		m, _ := filepath.Glob(filepath.Join(out, "format="+f, "*.parquet"))
		if len(m) != 1 {
			t.Fatalf("format=%s: %v", f, m)
		}
		fh, err := os.Open(m[0])
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := fh.Stat()
		pf, err := parquet.OpenFile(fh, fi.Size())
		if err != nil {
			t.Fatal(err)
		}
		rows += pf.NumRows()
		fh.Close()
	}
	if !strings.Contains(stdout, ": "+itoa(rows)+" rows") {
		t.Errorf("summary %q, files hold %d rows", stdout, rows)
	}
	// OUT exists: refused, exit 1, nothing touched.
	if code, _, errOut := run(t, nil, "export", "--to", "parquet", ins[0], out); code != exitInvalid || !strings.Contains(errOut, "output exists") {
		t.Errorf("existing OUT: exit %d %q", code, errOut)
	}
	for _, args := range [][]string{
		{"export", ins[0], filepath.Join(dir, "o1")},
		{"export", "--to", "csv", ins[0], filepath.Join(dir, "o2")},
		{"export", "--to", "parquet", "--row-group-mib", "0", ins[0], filepath.Join(dir, "o3")},
		{"export", "--to", "parquet", "--memory-mib", "-1", ins[0], filepath.Join(dir, "o4")},
		{"export", "--to", "parquet", ins[0]},
		{"export", "--to", "parquet", ins[0], "-"},
	} {
		if code, _, _ := run(t, nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	// A CTF file named directly holds no events to export.
	ctf := filepath.Join(dir, "metadata")
	run(t, nil, "sample", "ctf", ctf)
	if code, _, errOut := run(t, nil, "export", "--to", "parquet", ctf, filepath.Join(dir, "o4")); code != exitInvalid || !strings.Contains(errOut, "no events") {
		t.Errorf("CTF: exit %d %q", code, errOut)
	}
	if got := strings.Join(parquetexport.DefaultCDTFields, ","); got != strings.Join(cdtDefaultFields, ",") {
		t.Errorf("export's CDT fields %s differ from convert --to chrome's %s", got, strings.Join(cdtDefaultFields, ","))
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
