package schema7

import (
	"encoding/json"
	"testing"
)

func rngRows(vals ...int64) []RngStreamRow {
	out := make([]RngStreamRow, len(vals))
	for i, v := range vals {
		out[i] = RngStreamRow{TickCallIndex: Int(i + 1), Value15: Int(v), StateBeforeU32: Int(v * 3), StateAfterU32: Int(v * 7)}
	}
	return out
}

// TestRngTailCounts pins missing_tail/extra_tail to the reference's
// max(0, len(expected)−len(actual)) / max(0, len(actual)−len(expected)),
// including the cases where the streams differ before either ends (which the
// vectors do not cover: there the old len−prefix formula disagreed).
func TestRngTailCounts(t *testing.T) {
	cases := []struct {
		name                   string
		e, a                   []RngStreamRow
		prefix, missing, extra int
	}{
		{"one draw each, different", rngRows(5), rngRows(6), 0, 0, 0},
		{"actual longer, differ at 0", rngRows(5), rngRows(6, 7, 8), 0, 0, 2},
		{"expected longer, differ at 1", rngRows(5, 6, 7, 8), rngRows(5, 9), 1, 2, 0},
		{"same length, differ at 2", rngRows(1, 2, 3, 4), rngRows(1, 2, 9, 9), 2, 0, 0},
		{"actual is a prefix", rngRows(1, 2, 3), rngRows(1), 1, 2, 0},
		{"expected is a prefix", rngRows(1, 2), rngRows(1, 2, 3), 2, 0, 1},
		{"expected empty", nil, rngRows(1), 0, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, ok := compareRng(c.e, c.a)
			if !ok {
				t.Fatal("no mismatch reported")
			}
			var d map[string]any
			if err := json.Unmarshal(m.DetailJSON(), &d); err != nil {
				t.Fatal(err)
			}
			if got := d["prefix_match_len"].(float64); int(got) != c.prefix {
				t.Errorf("prefix_match_len %v, want %d", got, c.prefix)
			}
			if got := d["missing_tail"].(float64); int(got) != c.missing {
				t.Errorf("missing_tail %v, want %d", got, c.missing)
			}
			if got := d["extra_tail"].(float64); int(got) != c.extra {
				t.Errorf("extra_tail %v, want %d", got, c.extra)
			}
			_, hasE := d["expected_first_mismatch"]
			_, hasA := d["actual_first_mismatch"]
			if hasE != (c.prefix < len(c.e)) || hasA != (c.prefix < len(c.a)) {
				t.Errorf("first-mismatch rows present %v/%v for prefix %d of %d/%d", hasE, hasA, c.prefix, len(c.e), len(c.a))
			}
		})
	}
	if _, ok := compareRng(rngRows(1, 2), rngRows(1, 2)); ok {
		t.Error("equal streams reported as a mismatch")
	}
}
