package duckdbtest

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCTFEnumLabelsInDuckDB: a CTF enumeration is queried by value (its
// integer column keeps its type) and by label (ctf_<field>_label, NULL
// when no label matches, several labels joined by "|"); the structure's
// member labels are in args_json.
func TestCTFEnumLabelsInDuckDB(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	runTracecat(t, "export", "--to", "parquet", filepath.Join("..", "..", "events", "testdata", "ctf-enum", "trace"), out)
	db := openDB(t)
	rows, err := db.Query(`SELECT ctf_u, coalesce(ctf_u_label, 'NULL'), ctf_s, coalesce(ctf_s_label, 'NULL'), typeof(ctf_s), coalesce(ctf_bm_label, 'NULL'),
		coalesce(json_extract_string(args_json, '$.st.m_label'), 'NULL') FROM ` + dataset(out) + ` ORDER BY ctf_u`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var u, s int64
		var ul, sl, st, bl, ml string
		if err := rows.Scan(&u, &ul, &s, &sl, &st, &bl, &ml); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{strconv.FormatInt(u, 10), ul, strconv.FormatInt(s, 10), sl, st, bl, ml}, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 ZERO|LOW -1 NEG|MINUS_ONE|SMALL BIGINT A|B ON",
		"3 LOW|THREE 0 ZERO|SMALL BIGINT NULL OFF",
		"7 NULL -7 NULL BIGINT B NULL",
		"15 HIGH -3 NEG BIGINT A ON",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ` + dataset(out) + ` WHERE 'NEG' IN (SELECT unnest(string_split(ctf_s_label, '|')))`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d rows labelled NEG, want 2", n)
	}
}
