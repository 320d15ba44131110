package inspect

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Unit is what a Time counts.
type Unit uint8

// Units of a Time.
const (
	// NS is nanoseconds on the trace's own clock: the ts_ns every output
	// of tracecat prints.
	NS Unit = iota
	// Tick is a CDT tick index ("tick:300"), compared with Event.Tick.
	Tick
	// Index is a record's position in a file that has no clock ("index:8":
	// a CTF metadata packet or fragment).
	Index
)

// Time is a bound of a range, as the --from and --to flags of tracecat take
// it: nanoseconds, or a tick or record index where the format counts so.
type Time struct {
	Value int64
	Unit  Unit
}

// String renders t as ParseTime reads it back: "1500ns", "tick:300" or
// "index:8".
func (t Time) String() string {
	switch t.Unit {
	case Tick:
		return "tick:" + strconv.FormatInt(t.Value, 10)
	case Index:
		return "index:" + strconv.FormatInt(t.Value, 10)
	}
	return strconv.FormatInt(t.Value, 10) + "ns"
}

// ErrTime is wrapped by every error of ParseTime.
var ErrTime = errors.New("bad time")

// timeUnits are the suffixes ParseTime accepts, in nanoseconds.
var timeUnits = []struct {
	suffix string
	ns     int64
}{
	{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"μs", 1e3}, {"ms", 1e6}, {"s", 1e9},
}

// ParseTime reads a time bound: a number of nanoseconds with an optional
// unit suffix — "1200" and "1200ns" are 1 200 ns, "250us" (or "250µs") is
// 250 000 ns, "3ms", "1.5s" — or "tick:N" for a CDT tick index, or
// "index:N" for a record's position (CTF metadata packets and fragments). A decimal
// fraction is allowed when the result is a whole number of nanoseconds; "_"
// may separate digits ("1_700_000_000s"); a leading "-" is allowed (clocks
// may be signed). Errors wrap ErrTime and say what is wrong.
func ParseTime(s string) (Time, error) {
	raw := s
	for _, p := range []struct {
		prefix string
		unit   Unit
	}{{"tick:", Tick}, {"index:", Index}} {
		if rest, ok := strings.CutPrefix(s, p.prefix); ok {
			v, err := strconv.ParseInt(strings.ReplaceAll(rest, "_", ""), 10, 64)
			if err != nil || rest == "" {
				return Time{}, fmt.Errorf("%w %q: %sN wants an integer", ErrTime, raw, p.prefix)
			}
			return Time{Value: v, Unit: p.unit}, nil
		}
	}
	unit := int64(1)
	for _, u := range timeUnits {
		// "ns", "us" and "ms" come before "s" in timeUnits.
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, unit = num, u.ns
			break
		}
	}
	s = strings.ReplaceAll(s, "_", "")
	neg := false
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		s, neg = rest, true
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" && frac == "" || !digitsOnly(intPart) || !digitsOnly(frac) || hasDot && frac == "" {
		return Time{}, fmt.Errorf("%w %q: want nanoseconds with an optional unit (1200, 1200ns, 250us, 3ms, 1.5s), tick:N or index:N", ErrTime, raw)
	}
	// value = (intPart.frac) × unit, exactly.
	m, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return Time{}, fmt.Errorf("%w %q: not a number", ErrTime, raw)
	}
	m.Mul(m, big.NewInt(unit))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	q, r := new(big.Int).QuoRem(m, den, new(big.Int))
	if r.Sign() != 0 {
		return Time{}, fmt.Errorf("%w %q: finer than 1 ns", ErrTime, raw)
	}
	if neg {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return Time{}, fmt.Errorf("%w %q: beyond ±%d ns", ErrTime, raw, int64(math.MaxInt64))
	}
	return Time{Value: q.Int64()}, nil
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
