package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/tracecodec/tracecodec/dial9"
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
	ctfSampleMetadata(t, ctf)
	if code, _, errOut := run(t, nil, "export", "--to", "parquet", ctf, filepath.Join(dir, "o4")); code != exitInvalid || !strings.Contains(errOut, "no events") {
		t.Errorf("CTF: exit %d %q", code, errOut)
	}
	if got := strings.Join(parquetexport.DefaultCDTFields, ","); got != strings.Join(cdtDefaultFields, ",") {
		t.Errorf("export's CDT fields %s differ from convert --to chrome's %s", got, strings.Join(cdtDefaultFields, ","))
	}
}

// TestExportNamesFailures: a failing input is named with the codec's
// offset and reason, nothing is written; --keep-going skips a path
// holding no events (a CTF metadata file) with a note and exports the rest; too
// many argument columns stop the export (exit 1); the unpaired begins and
// ends of an input are noted.
func TestExportNamesFailures(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.cdt")
	run(t, nil, "sample", "cdt", good)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(data) / 2; i < len(data)/2+64; i++ {
		data[i] = 0xff
	}
	bad := filepath.Join(dir, "bad.cdt")
	os.WriteFile(bad, data, 0o666)
	metaDir := filepath.Join(dir, "meta")
	os.MkdirAll(metaDir, 0o777)
	meta := filepath.Join(metaDir, "metadata") // a CTF metadata file alone
	ctfSampleMetadata(t, meta)
	out := filepath.Join(dir, "out")
	code, _, errOut := run(t, nil, "export", "--to", "parquet", good, bad, out)
	if code != exitInvalid || !strings.Contains(errOut, "bad.cdt: cdt: offset ") || !strings.Contains(errOut, "nothing written") {
		t.Errorf("bad input: exit %d %q", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written", out)
	}
	code, _, errOut = run(t, nil, "export", "--to", "parquet", good, meta, out)
	if code != exitInvalid || !strings.Contains(errOut, "metadata: ctf") || !strings.Contains(errOut, "no events") {
		t.Errorf("CTF metadata file: exit %d %q", code, errOut)
	}
	code, stdout, errOut := run(t, nil, "export", "--to", "parquet", "--keep-going", good, meta, out)
	if code != exitOK || !strings.Contains(errOut, meta+": note: skipped") || !strings.Contains(stdout, "of 1 inputs") {
		t.Errorf("--keep-going over a CTF metadata file: exit %d %q %q", code, stdout, errOut)
	}
	// A dial9 stream whose event has 3 fields, under --max-columns 2.
	d9 := filepath.Join(dir, "s.bin")
	run(t, nil, "sample", "dial9", d9)
	code, _, errOut = run(t, nil, "export", "--to", "parquet", "--max-columns", "2", d9, filepath.Join(dir, "o2"))
	if code != exitInvalid || !strings.Contains(errOut, "more than 2 typed argument columns") || !strings.Contains(errOut, "s.bin") {
		t.Errorf("--max-columns 2: exit %d %q", code, errOut)
	}
	if code, _, _ := run(t, nil, "export", "--to", "parquet", "--max-columns", "0", d9, filepath.Join(dir, "o3")); code != exitUsage {
		t.Errorf("--max-columns 0: exit %d", code)
	}
	// A poll without its end and an end without its poll: noted.
	var buf bytes.Buffer
	w, _ := dial9.NewWriter(&buf)
	ps, _ := w.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	pe, _ := w.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	w.WriteUints(pe, 10, 1)
	w.WriteUints(ps, 20, 1)
	w.WriteUints(pe, 30, 1)
	w.WriteUints(ps, 40, 1)
	w.Close()
	polls := filepath.Join(dir, "polls.bin")
	os.WriteFile(polls, buf.Bytes(), 0o666)
	code, _, errOut = run(t, nil, "export", "--to", "parquet", polls, filepath.Join(dir, "o4"))
	if code != exitOK || !strings.Contains(errOut, polls+": note: 1 begins and 1 ends not paired") {
		t.Errorf("unpaired polls: exit %d %q", code, errOut)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
