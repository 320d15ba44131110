package lincost

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, a ...any) {
	r.failed = append(r.failed, fmt.Sprintf(f, a...))
}
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...) }

var sink [][]byte

// TestCheckAllocs: a decoder allocating in proportion to its input passes,
// with or without a fixed cost; one allocating in proportion to the square
// of its input, or a per-element object for every element seen so far,
// fails.
func TestCheckAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("-cover")
	}
	gen := func(s int) []byte { return make([]byte, 1000*s) }
	linear := func(in []byte) (int, error) {
		sink = append(sink[:0], make([]byte, 8<<20), make([]byte, 3*len(in)))
		for i := 0; i < len(in); i += 64 {
			sink = append(sink, make([]byte, 16))
		}
		return len(in), nil
	}
	quadratic := func(in []byte) (int, error) {
		sink = append(sink[:0], make([]byte, len(in)*len(in)/1000))
		return len(in), nil
	}
	quadraticObjects := func(in []byte) (int, error) {
		sink = sink[:0]
		for i := 0; i < len(in)/64; i++ {
			for j := 0; j < i/16; j++ {
				sink = append(sink, make([]byte, 1))
			}
		}
		return len(in), nil
	}
	for _, c := range []struct {
		name string
		dec  Decode
		fail bool
	}{{"linear", linear, false}, {"quadratic bytes", quadratic, true}, {"quadratic objects", quadraticObjects, true}} {
		r := &recorder{TB: t}
		CheckAllocs(r, c.name, gen, c.dec)
		if (len(r.failed) > 0) != c.fail {
			t.Errorf("%s: failures %q, want failing %v", c.name, r.failed, c.fail)
		}
	}
	sink = nil
}
