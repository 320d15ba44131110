package duckdbtest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracecodec/tracecodec/parquetexport"
)

// query is one query of tools/parquetcheck/queries.json, which both DuckDB
// (here) and the second engine (tools/parquetcheck/check.mjs) run over a
// table t of the dataset.
type query struct {
	Name  string   `json:"name"`
	SQL   string   `json:"sql"`
	Needs []string `json:"needs,omitempty"`
	// DuckDB's answer: the columns and the rows, each value a string
	// (integers exact) or null; skipped when the dataset lacks a column
	// of Needs.
	Columns []string    `json:"columns,omitempty"`
	Rows    [][]*string `json:"rows"`
	Skipped bool        `json:"skipped,omitempty"`
}

// answerSet is DuckDB's answers over one dataset.
type answerSet struct {
	Name    string  `json:"name"`
	Path    string  `json:"path"`
	Hive    bool    `json:"hive"`
	Queries []query `json:"queries"`
}

// TestSecondEngine exports three datasets — the sample traces of the four
// formats (Hive-partitioned), the messy ATF session and dial9 stream of
// TestCompleteRowsBelongTogether in 16 KiB row groups, and the vectors
// (with --keep-going) when present — runs the queries of
// tools/parquetcheck/queries.json on them with DuckDB and writes the
// answers to answers.json beside them (in $PARQUETCHECK_OUT when set, to
// keep them). When node and the second engine's packages are installed
// ($PARQUETCHECK_DEPS, default /tmp/parquetcheck: see
// tools/parquetcheck/README.md) it runs tools/parquetcheck/check.mjs,
// which reads the files with Polars (its own Parquet reader, in Rust) and
// must get the same answers; without them it is skipped.
func TestSecondEngine(t *testing.T) {
	node, err := exec.LookPath("node")
	deps := os.Getenv("PARQUETCHECK_DEPS")
	if deps == "" {
		deps = "/tmp/parquetcheck"
	}
	if err != nil || !dirExists(filepath.Join(deps, "node_modules", "nodejs-polars")) {
		t.Skipf("node or %s/node_modules/nodejs-polars missing: tools/parquetcheck/run.sh installs them and runs this test", deps)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "tools", "parquetcheck", "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var queries []query
	if err := json.Unmarshal(raw, &queries); err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("PARQUETCHECK_OUT")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in")
	var sets []answerSet

	// The samples, Hive-partitioned.
	samples := sampleInputs(t, in)
	runTracecat(t, append(append([]string{"export", "--to", "parquet", "--hive"}, samples...), filepath.Join(dir, "samples"))...)
	sets = append(sets, answerSet{Name: "samples", Path: filepath.Join(dir, "samples"), Hive: true})

	// The messy inputs, in many row groups.
	pid, _, err := messyATF(filepath.Join(in, "messy", "atf"), 8, 3000)
	if err != nil {
		t.Fatal(err)
	}
	d9 := filepath.Join(in, "messy", "polls.bin")
	if _, err := messyDial9(d9, 10000); err != nil {
		t.Fatal(err)
	}
	if _, err := parquetexport.Export(context.Background(), filepath.Join(dir, "messy"), []string{pid, d9}, parquetexport.WithRowGroupBytes(16<<10)); err != nil {
		t.Fatal(err)
	}
	sets = append(sets, answerSet{Name: "messy", Path: filepath.Join(dir, "messy")})

	// The vectors, when present.
	if v := os.Getenv("TRACECODEC_VECTORS"); v != "" && dirExists(v) {
		var ins []string
		for _, f := range []string{"atf", "dial9", "wtf", "cdt"} {
			if dirExists(filepath.Join(v, f)) {
				ins = append(ins, filepath.Join(v, f))
			}
		}
		out := filepath.Join(dir, "vectors")
		if _, err := runTracecatErr(append(append([]string{"export", "--to", "parquet", "--keep-going"}, ins...), out)...); err != nil && !dirExists(out) {
			t.Fatalf("export of the vectors: %v", err)
		}
		sets = append(sets, answerSet{Name: "vectors", Path: out})
	}

	db := openDB(t)
	for i := range sets {
		s := &sets[i]
		glob := filepath.ToSlash(filepath.Join(s.Path, "**", "*.parquet"))
		if _, err := db.Exec(fmt.Sprintf(`CREATE OR REPLACE VIEW t AS SELECT * FROM read_parquet('%s', union_by_name = true, hive_partitioning = %v)`, glob, s.Hive)); err != nil {
			t.Fatal(err)
		}
		cols := columnSet(t, db, "t")
		for _, q := range queries {
			for _, c := range q.Needs {
				if !cols[c] {
					q.Skipped = true
				}
			}
			if !q.Skipped {
				q.Columns, q.Rows = duckRows(t, db, q.SQL)
			}
			if q.Rows == nil {
				q.Rows = [][]*string{}
			}
			if q.Name == "negative durations (none)" && len(q.Rows) != 0 {
				t.Errorf("%s: negative durations: %v", s.Name, q.Rows)
			}
			s.Queries = append(s.Queries, q)
		}
	}
	answers := filepath.Join(dir, "answers.json")
	b, err := json.MarshalIndent(sets, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(answers, b, 0o666); err != nil {
		t.Fatal(err)
	}
	t.Logf("DuckDB's answers over %d datasets: %s", len(sets), answers)

	cmd := exec.Command(node, filepath.Join("..", "..", "tools", "parquetcheck", "check.mjs"), "--deps", deps, answers)
	out, err := cmd.CombinedOutput()
	t.Logf("tools/parquetcheck/check.mjs:\n%s", out)
	if err != nil {
		t.Errorf("the second engine's answers differ from DuckDB's: %v", err)
	}
}

// duckRows runs q and returns its columns and rows as strings (nil for
// NULL; integers exact, floats in Go's shortest form).
func duckRows(t *testing.T, db *sql.DB, q string) ([]string, [][]*string) {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]*string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			var s string
			switch x := v.(type) {
			case nil:
				continue
			case string:
				s = x
			case []byte:
				s = string(x)
			case float64:
				s = strconv.FormatFloat(x, 'g', -1, 64)
			case float32:
				s = strconv.FormatFloat(float64(x), 'g', -1, 32)
			default:
				s = fmt.Sprint(x)
			}
			row[i] = &s
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}
