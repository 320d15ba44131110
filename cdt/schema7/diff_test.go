package schema7

import (
	"bytes"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

func i64(v int64) *int64 { return &v }

func TestDiffVectors(t *testing.T) {
	a, _ := openVector(t, "v7_diverge_A")
	b, _ := openVector(t, "v7_diverge_B")
	cases := []struct {
		file string
		run  func() ([]byte, error)
	}{
		{"diff_A_vs_B.json", func() ([]byte, error) { r, err := Diff(a, b, DiffOptions{}); return jsonOf(r, err) }},
		{"diff_A_vs_A.json", func() ([]byte, error) { r, err := Diff(a, a, DiffOptions{}); return jsonOf(r, err) }},
		{"diff_A_vs_B_window_0_200.json", func() ([]byte, error) {
			r, err := Diff(a, b, DiffOptions{TickStart: i64(0), TickEnd: i64(200)})
			return jsonOf(r, err)
		}},
		{"bisect_A_vs_B.json", func() ([]byte, error) {
			r, err := Bisect(a, b, BisectOptions{})
			if err != nil {
				return nil, err
			}
			return r.JSON(), nil
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			want := vectortest.Read(t, "cdt", c.file)
			if err := jsonValuesEqual(got, want); err != nil {
				t.Fatalf("report differs: %v\n%s", err, got)
			}
			if !bytes.Equal(append(got, '\n'), want) {
				t.Errorf("values equal but bytes differ from %s", c.file)
			}
		})
	}
}

func jsonOf(r *DiffReport, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return r.JSON(), nil
}
