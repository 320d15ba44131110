package duckdbtest

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeQueries are the README's DuckDB queries, one per format, over the
// export of the tracecat sample traces, with the result the README shows.
var readmeQueries = []struct{ format, query, result string }{
	{"dial9", `SELECT track_name, count(*) AS polls, sum(dur_ns) AS busy_ns, max(dur_ns) AS longest_ns
FROM read_parquet('out/**/*.parquet', union_by_name = true, hive_partitioning = true)
WHERE format = 'dial9' AND kind = 'complete'
GROUP BY track_name ORDER BY track_name`, `track_name | polls | busy_ns | longest_ns
worker 0 | 4 | 100000 | 25000
worker 1 | 4 | 100000 | 25000`},
	{"atf", `SELECT track_name, name, count(*) AS calls, sum(dur_ns) AS total_ns
FROM read_parquet('out/**/*.parquet', union_by_name = true, hive_partitioning = true)
WHERE format = 'atf' AND kind = 'complete'
GROUP BY ALL ORDER BY ALL`, `track_name | name | calls | total_ns
thread_0 | 0x52dc64e800000001 | 1 | 850
thread_0 | 0x52dc64e800000003 | 1 | 200
thread_0 | 0x52dc64e800000004 | 1 | 100`},
	{"wtf", `SELECT track_name, name, kind, count(*) AS n, sum(dur_ns) AS total_ns
FROM read_parquet('out/**/*.parquet', union_by_name = true, hive_partitioning = true)
WHERE format = 'wtf' AND kind <> 'metadata'
GROUP BY ALL ORDER BY ALL`, `track_name | name | kind | n | total_ns
Main | app#draw | instant | 16 | NULL
Main | app#frame | complete | 16 | 144000000
Main | layout | complete | 16 | 46400000
Main | wtf.scope#appendData | instant | 16 | NULL
Worker | app#draw | instant | 4 | NULL
Worker | app#frame | complete | 4 | 36000000
Worker | layout | complete | 4 | 11600000
Worker | wtf.scope#appendData | instant | 4 | NULL
Worker | wtf.trace#mark | instant | 1 | NULL
Worker | wtf.trace#timeStamp | instant | 1 | NULL`},
	{"cdt", `SELECT count(*) AS ticks, max(ts_ns) AS last_ns, max(cdt_checkpoint_score_xp) AS score_xp,
       max(cdt_checkpoint_kills) AS kills, avg(cdt_entity_samples_creatures) AS creatures
FROM read_parquet('out/**/*.parquet', union_by_name = true, hive_partitioning = true)
WHERE format = 'cdt'`, `ticks | last_ns | score_xp | kills | creatures
40 | 650000000 | 117 | 0 | 2`},
	{"ctf", `SELECT track_name, name, ctf_e, ctf_e_label, count(*) AS n, min(ts_ns) AS first_ns
FROM read_parquet('out/**/*.parquet', union_by_name = true, hive_partitioning = true)
WHERE format = 'ctf' AND ctf_e IS NOT NULL GROUP BY ALL ORDER BY ALL`, `track_name | name | ctf_e | ctf_e_label | n | first_ns
cpu 0 | gen:str_1 | 1 | GREEN | 17 | 1700000000000003318
cpu 0 | gen:str_1 | 7 | BLUE | 17 | 1700000000000010101
cpu 0 | gen:str_4 | 4 | BLUE | 17 | 1700000000000006561
cpu 0 | gen:str_4 | 10 | BLUE | 16 | 1700000000000014063
cpu 1 | gen:str_1 | 1 | GREEN | 17 | 1700000000000002683
cpu 1 | gen:str_1 | 7 | BLUE | 17 | 1700000000000007831
cpu 1 | gen:str_4 | 4 | BLUE | 17 | 1700000000000005068
cpu 1 | gen:str_4 | 10 | BLUE | 16 | 1700000000000010063`},
}

// TestReadmeQueries runs the README's queries on the export of the sample
// traces (tracecat sample FORMAT) and compares their results with the
// README's.
func TestReadmeQueries(t *testing.T) {
	dir := t.TempDir()
	ins := sampleInputs(t, dir)
	runTracecat(t, append(append([]string{"export", "--to", "parquet", "--hive"}, ins...), filepath.Join(dir, "out"))...)
	db := openDB(t)
	if _, err := db.Exec(fmt.Sprintf("SET file_search_path = '%s'", filepath.ToSlash(dir))); err != nil {
		t.Fatal(err)
	}
	for _, q := range readmeQueries {
		got := table(t, db, q.query)
		if got != q.result {
			t.Errorf("%s: got\n%s\nwant\n%s", q.format, got, q.result)
		}
	}
}

// table renders a query's result as DuckDB's CLI does in its list mode:
// a header line and one line per row, columns separated by " | ".
func table(t *testing.T, db *sql.DB, q string) string {
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	lines := []string{strings.Join(cols, " | ")}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		cells := make([]string, len(cols))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				cells[i] = "NULL"
			case float64:
				cells[i] = fmt.Sprintf("%.4g", x)
			default:
				cells[i] = fmt.Sprint(x)
			}
		}
		lines = append(lines, strings.Join(cells, " | "))
	}
	return strings.Join(lines, "\n")
}

// TestReadmeColumnTable exports the sample traces and the ATF vectors
// (whose calls and returns link detail records) and checks that every
// column DuckDB sees is in the README's column table with the type it
// gives: the fixed columns by name, the argument columns by their
// format's row (dial9_<field>, wtf_<arg>, cdt_<field>).
func TestReadmeColumnTable(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The table's rows: | `a`, `b` | TYPE, TYPE | text |
	documented := map[string]string{}
	section := string(readme)
	if i := strings.Index(section, "## Querying a fleet of traces with SQL"); i >= 0 {
		section = section[i:]
		if j := strings.Index(section[3:], "\n## "); j >= 0 {
			section = section[:j+3]
		}
	}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		names := strings.Split(cells[1], ",")
		types := strings.Split(cells[2], ",")
		for i, n := range names {
			n = strings.Trim(strings.TrimSpace(n), "`")
			ty := strings.TrimSpace(types[min(i, len(types)-1)])
			documented[n] = ty
		}
	}
	dir := t.TempDir()
	ins := sampleInputs(t, dir)
	withDetail := false
	if v := os.Getenv("TRACECODEC_VECTORS"); v != "" {
		if s := filepath.Join(v, "atf", "normal", "session_20250101_120000"); dirExists(s) {
			ins = append(ins, s)
			withDetail = true
		}
	}
	out := filepath.Join(dir, "out")
	runTracecat(t, append(append([]string{"export", "--to", "parquet"}, ins...), out)...)
	db := openDB(t)
	rows, err := db.Query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ` + dataset(out) + `)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	duck := map[string]string{"VARCHAR": "STRING", "UBIGINT": "UINT64", "BIGINT": "INT64", "DOUBLE": "DOUBLE", "BLOB": "BINARY", "BOOLEAN": "BOOLEAN"}
	seen := 0
	for rows.Next() {
		var name, ty string
		if err := rows.Scan(&name, &ty); err != nil {
			t.Fatal(err)
		}
		seen++
		if name == "atf_end_detail_type" {
			withDetail = false // seen
		}
		want, ok := documented[name]
		if !ok {
			for _, p := range []string{"dial9_", "wtf_", "cdt_", "ctf_"} {
				if strings.HasPrefix(name, p) {
					want, ok = documented[p+map[string]string{"dial9_": "<field>", "wtf_": "<arg>", "cdt_": "<field>", "ctf_": "<field>"}[p]], true
				}
			}
		}
		if !ok {
			t.Errorf("column %s (%s) is not in the README's table", name, ty)
			continue
		}
		if strings.HasPrefix(want, "by ") {
			continue // typed from the format's schema
		}
		if duck[ty] != want {
			t.Errorf("column %s: DuckDB reads %s, the README says %s", name, ty, want)
		}
	}
	for _, c := range []string{"track", "atf_detail_type", "atf_end_detail_type", "atf_end_detail"} {
		if _, ok := documented[c]; !ok {
			t.Errorf("README table lacks %s", c)
		}
	}
	if withDetail {
		t.Errorf("the ATF vectors' export has no atf_end_detail_type column")
	}
	t.Logf("%d columns checked against %d documented names", seen, len(documented))
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
