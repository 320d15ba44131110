// Package duckdbtest reads the Parquet datasets of package parquetexport
// back with a real engine, DuckDB, through its Go bindings. It is a module
// of its own so that the bindings (cgo, a prebuilt DuckDB library) are a
// test dependency only: the tracecodec module does not require them, and
// `go test ./...` at the module root does not build them. CI runs it with
// `cd parquetexport/duckdbtest && go test ./...`.
package duckdbtest

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// tracecat is the path of a tracecat binary built by TestMain.
var tracecat string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "duckdbtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// vectortest looks for ../shared/vectors beside the nearest go.mod,
	// which is this module's: point it at the tracecodec module's.
	if os.Getenv("TRACECODEC_VECTORS") == "" {
		if v, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "vectors")); err == nil {
			if fi, err := os.Stat(v); err == nil && fi.IsDir() {
				os.Setenv("TRACECODEC_VECTORS", v)
			}
		}
	}
	tracecat = filepath.Join(dir, "tracecat")
	if runtime.GOOS == "windows" {
		tracecat += ".exe"
	}
	// Built in the tracecodec module itself (../..), with its go.sum.
	build := exec.Command("go", "build", "-o", tracecat, "./cmd/tracecat")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building tracecat: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// openDB opens an in-memory DuckDB.
func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// dataset is the read_parquet expression over every file of an export.
func dataset(dir string) string {
	return fmt.Sprintf("read_parquet('%s', union_by_name = true, hive_partitioning = false)", filepath.ToSlash(filepath.Join(dir, "**", "*.parquet")))
}

// runTracecat runs the built tracecat and returns its standard output.
func runTracecat(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(tracecat, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tracecat %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// runTracecatErr runs tracecat and returns its output and error.
func runTracecatErr(args ...string) (string, error) {
	out, err := exec.Command(tracecat, args...).CombinedOutput()
	return string(out), err
}

// sampleInputs writes the sample trace of each event format (tracecat
// sample FORMAT) as dir/samples/sample.FORMAT and returns their paths.
func sampleInputs(t *testing.T, dir string) []string {
	t.Helper()
	var ins []string
	for _, f := range []string{"dial9", "atf", "wtf", "cdt", "ctf"} {
		p := filepath.Join(dir, "samples", "sample."+f)
		os.MkdirAll(filepath.Dir(p), 0o777)
		runTracecat(t, "sample", f, p)
		ins = append(ins, p)
	}
	return ins
}

// columnSet is the set of the column names of the relation from (a table,
// view or read_parquet expression).
func columnSet(t *testing.T, db *sql.DB, from string) map[string]bool {
	t.Helper()
	rows, err := db.Query(`SELECT column_name FROM (DESCRIBE SELECT * FROM ` + from + `)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols[c] = true
	}
	return cols
}
