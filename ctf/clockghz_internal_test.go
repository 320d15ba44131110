package ctf

import (
	"fmt"
	"math"
	"testing"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

// refNS is StreamClass.NS for a 1 GHz clock as the general code computes
// it (ns), spelled out: the value plus the offset's cycles (2^63 added on a
// carry), plus the offset's seconds in ns.
func refNS(sc *StreamClass, cycles uint64) int64 {
	cy := cycles + sc.clockOffCy
	if cy < cycles {
		cy += 1 << 63
	}
	return int64(cy+sc.clockOffNS) + sc.clockNeg*1e9
}

// TestClockNSInlinedPart: NS's inlined part (a 1 GHz clock's value whose
// sum with the offset's cycles does not carry) gives what the general code
// gives, for offsets before, at and after the origin and values up to
// 2^64 − 1, at the edge of the carry too; other frequencies never take it.
func TestClockNSInlinedPart(t *testing.T) {
	offsets := []struct {
		s  int64
		cy uint64
	}{{0, 0}, {1_700_000_000, 123_456_789}, {-10, 0}, {-10, 5}, {0, 999_999_999}, {9_000_000_000, 0}, {-9_000_000_000, 7}}
	for _, freq := range []uint64{1e9, 2_800_130_166} {
		for _, o := range offsets {
			meta := fmt.Sprintf(`/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
trace { major = 1; minor = 8; byte_order = le; };
clock { name = c; freq = %d; offset_s = %d; offset = %d; };
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := clk_t;
stream { event.header := struct { clk_t timestamp; }; };
event { name = "a"; fields := struct { uint8_t v; }; };
`, freq, o.s, o.cy)
			m, err := ctf2meta.ParseTSDL([]byte(meta))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := NewTrace(m)
			if err != nil {
				t.Fatal(err)
			}
			sc := tr.StreamClass(0)
			if (sc.ghzEnd != 0) != (freq == 1e9) {
				t.Fatalf("%d Hz: inlined part for values below %d", freq, sc.ghzEnd)
			}
			if freq != 1e9 {
				continue
			}
			inlined := 0
			for _, c := range []uint64{0, 1, 1e9, 1 << 40, 1 << 62, 1 << 63, math.MaxUint64 - o.cy - 1, math.MaxUint64 - o.cy, math.MaxUint64 - o.cy + 1, math.MaxUint64 - 1, math.MaxUint64} {
				if got, want := sc.NS(c), refNS(sc, c); got != want {
					t.Errorf("offset %d s %d cycles: NS(%d) = %d, want %d", o.s, o.cy, c, got, want)
				}
				if got, want := sc.NS(c), sc.ns(c); got != want {
					t.Errorf("offset %d s %d cycles: NS(%d) = %d, ns %d", o.s, o.cy, c, got, want)
				}
				if c < sc.ghzEnd {
					inlined++
				}
			}
			if inlined < 6 {
				t.Errorf("offset %d s %d cycles: %d values took the inlined part", o.s, o.cy, inlined)
			}
		}
	}
}
