package parquetexport

import (
	"math"
	"testing"
)

// TestMinMax: minMaxInt and minMaxUint against a plain loop, for lengths
// around the four-value step and values at the ends of both orders.
func TestMinMax(t *testing.T) {
	pool := []int64{0, 1, -1, 7, -7, math.MaxInt64, math.MinInt64, 42, -42, 1 << 40}
	for n := 1; n <= 13; n++ {
		for start := range pool {
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = pool[(start+i*3)%len(pool)]
			}
			mn, mx := vals[0], vals[0]
			umn, umx := uint64(vals[0]), uint64(vals[0])
			for _, v := range vals {
				mn, mx = min(mn, v), max(mx, v)
				umn, umx = min(umn, uint64(v)), max(umx, uint64(v))
			}
			if a, b := minMaxInt(vals, vals[0], vals[0]); a != mn || b != mx {
				t.Errorf("minMaxInt(%v) = %d, %d, want %d, %d", vals, a, b, mn, mx)
			}
			if a, b := minMaxUint(vals, vals[0], vals[0]); uint64(a) != umn || uint64(b) != umx {
				t.Errorf("minMaxUint(%v) = %d, %d, want %d, %d", vals, uint64(a), uint64(b), umn, umx)
			}
		}
	}
}
