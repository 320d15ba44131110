package parquetexport

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// CTF enumerations export as their integer column plus a string column of
// their labels, "ctf_<field>_label" (several joined by "|", null when no
// label matches); a structure's member labels stay in its JSON.
func TestExportCTFEnumLabels(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Export(context.Background(), out, []string{"../events/testdata/ctf-enum/trace"}); err != nil {
		t.Fatal(err)
	}
	rows, _ := readAll(t, out)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	want := []struct {
		u, s, bm             any
		uLabel, sLabel, bmLb any
		json                 string
	}{
		{int64(0), int64(-1), int64(3), "ZERO|LOW", "NEG|MINUS_ONE|SMALL", "A|B", `"st":{"m":1,"m_label":"ON"}`},
		{int64(3), int64(0), int64(0), "LOW|THREE", "ZERO|SMALL", nil, `"st":{"m":0,"m_label":"OFF"}`},
		{int64(7), int64(-7), int64(4), nil, nil, "B", `"st":{"m":5,"m_label":null}`},
		{int64(15), int64(-3), int64(1), "HIGH", "NEG", "A", `"st":{"m":1,"m_label":"ON"}`},
	}
	for i, w := range want {
		r := rows[i]
		got := []any{r["ctf_u"], r["ctf_s"], r["ctf_bm"], r["ctf_u_label"], r["ctf_s_label"], r["ctf_bm_label"]}
		exp := []any{w.u, w.s, w.bm, w.uLabel, w.sLabel, w.bmLb}
		for k := range got {
			if fmt.Sprintf("%T %v", got[k], got[k]) != fmt.Sprintf("%T %v", exp[k], exp[k]) {
				t.Errorf("row %d column %d: %T %v, want %T %v (row %v)", i, k, got[k], got[k], exp[k], exp[k], r)
			}
		}
		if js, _ := r["args_json"].(string); !strings.Contains(js, w.json) {
			t.Errorf("row %d: args_json %q, want %s in it", i, js, w.json)
		}
	}
}
