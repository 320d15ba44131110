package schema7

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
	"github.com/tracecodec/tracecodec/fuzz"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

var querySeeds = []string{
	"ticks where checkpoint.kills > prev(checkpoint.kills)",
	"entities where pos.x >= 600.5",
	"ticks where checkpoint.bonus_timers == {'11': 0, '9': [1, 2.5e3, -0x1f, None]}",
	`entities where pool_kind != r'\n' "x" '\u00e9'`,
	"ticks where a=<b",
	"  ticks   where   ",
	"ticks where prev() == 1",
	"ticks where x == (1,)",
	"ticks where x == b''",
	"ticks where [[[[[[1]]]]]] == x",
	"entities where 1_000 < 0o17",
}

// FuzzQueryParse: parsing never panics and takes time linear in the input;
// an error is a *QueryError pointing inside the expression; an expression
// that parses evaluates on a few rows without panicking.
func FuzzQueryParse(f *testing.F) {
	for _, s := range querySeeds {
		f.Add(s)
	}
	recs := []TickRecord{DemoTick(0, 1), DemoTick(1, 1), DemoTick(39, 1)}
	seq := func(yield func(*TickRecord, error) bool) {
		for i := range recs {
			if !yield(&recs[i], nil) {
				return
			}
		}
	}
	f.Fuzz(func(t *testing.T, expr string) {
		start := time.Now()
		e, err := ParseQuery(expr)
		if d := time.Since(start); len(expr) < 1<<16 && d > 2*time.Second {
			t.Fatalf("parsing %d bytes took %v", len(expr), d)
		}
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) || qe.Offset < 0 || qe.Offset > len(expr) || qe.Expr != expr {
				t.Fatalf("error %v (%T) for %q", err, err, expr)
			}
			return
		}
		if e.Scope() != ScopeTicks && e.Scope() != ScopeEntities {
			t.Fatalf("scope %q", e.Scope())
		}
		res, err := e.RunRecords(seq, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) > 2 || res.MatchCount < len(res.Rows) {
			t.Fatalf("result %+v", res)
		}
		_ = res.SortedJSON()
	})
}

// TestQueryParseLinear feeds long adversarial expressions: parsing stays
// linear (a quadratic scan of these would take minutes).
func TestQueryParseLinear(t *testing.T) {
	n := 1 << 20
	for _, expr := range []string{
		"ticks where a" + strings.Repeat(" ", n) + "b",
		"ticks where " + strings.Repeat("a", n),
		"ticks where x == " + strings.Repeat("[", n),
		"ticks where x == '" + strings.Repeat(`\x41`, n/4) + "'",
		"ticks where x == {" + strings.Repeat("'k': 1, ", n/8) + "}",
		"ticks where " + strings.Repeat("=", n),
	} {
		start := time.Now()
		ParseQuery(expr)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%q…: %v", expr[:20], d)
		}
	}
}

// fuzzTrace writes the rows packed in data (each a 2-byte big-endian length
// and that many bytes) into a trace; rows the writer rejects are skipped. It
// returns nil when no row was accepted.
func fuzzTrace(data []byte) *cdt.File {
	meta := NewTraceMeta("x", nil, nil, nil, 0, 0, 1)
	var buf bytes.Buffer
	// Raw chunks: a zstd encoder per execution made each one take most of
	// a second, and the fuzzer ran a handful of inputs in its time.
	w, err := NewWriter(&buf, &meta, cdt.WithChunkTicks(3), cdt.WithRawChunks())
	if err != nil {
		return nil
	}
	n := 0
	for len(data) >= 2 {
		l := int(binary.BigEndian.Uint16(data))
		data = data[2:]
		l = min(l, len(data))
		if w.WriteRow(data[:l]) == nil {
			n++
		}
		data = data[l:]
	}
	if w.Close() != nil || n == 0 {
		return nil
	}
	r, err := cdt.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil
	}
	return r
}

func packRows(rows ...[]byte) []byte {
	var out []byte
	for _, r := range rows {
		out = binary.BigEndian.AppendUint16(out, uint16(len(r)))
		out = append(out, r...)
	}
	return out
}

// FuzzInspectTrace runs Tick, Entity, Focus and Query on traces whose rows
// are fuzzed msgpack: whatever the rows hold, the commands return a result
// or an error, never panic.
func FuzzInspectTrace(f *testing.F) {
	var demo [][]byte
	for t := range int64(4) {
		rec := DemoTick(t, 7)
		b, _ := rec.MarshalMsg(nil)
		demo = append(demo, b)
	}
	f.Add(packRows(demo...), int64(1), int64(2))
	f.Add(packRows(demo[0], demo[2]), int64(11), int64(0))
	vectorSeeds := 0
	if r, _ := openVectorIfPresent(f, "v7_diverge_B"); r != nil {
		rows, err := r.Block(1)
		if err == nil && len(rows) > 3 {
			f.Add(packRows(rows[0].Raw, rows[1].Raw, rows[2].Raw), int64(1), rows[1].Tick)
			vectorSeeds++
		}
	}
	fuzz.NeedSeeds(f, vectorSeeds, "v7_diverge_B.cdt is absent or has no block 1 of 4 rows")
	golden := traceOfTB(f, 0, 5)
	exprs := []string{
		"ticks where checkpoint.kills >= prev(checkpoint.kills)",
		"ticks where checkpoint == none",
		"entities where pos.x > 1",
		"entities where uid == 1",
	}
	f.Fuzz(func(t *testing.T, data []byte, uid, tick int64) {
		r := fuzzTrace(data)
		if r == nil {
			return
		}
		defer r.Close()
		if s, err := Tick(r, tick); err == nil {
			_ = s.JSON()
		}
		if h, err := Entity(r, uid, tick-2, tick+2); err == nil {
			if len(h.Samples) == 0 || h.SpawnTick > h.DespawnTick {
				t.Fatalf("history %+v", h)
			}
			_ = h.SortedJSON()
		}
		for _, pair := range [][2]*cdt.File{{golden, r}, {r, golden}, {r, r}} {
			rep, err := Focus(pair[0], pair[1], tick)
			if err != nil {
				if !errors.Is(err, ErrNotFound) && !errors.Is(err, cdt.ErrCorrupt) {
					t.Fatalf("focus error %v", err)
				}
				continue
			}
			if pair[0] == pair[1] && rep.Diverged && !nanOnly(rep) {
				t.Fatalf("a trace diverges from itself: %s", rep.JSON())
			}
			_ = rep.JSON()
		}
		for _, expr := range exprs {
			if res, err := Query(r, expr, 3); err == nil {
				_ = res.JSON()
			}
		}
	})
}

func traceOfTB(tb testing.TB, from, to int64) *cdt.File {
	tb.Helper()
	meta := NewTraceMeta("x", nil, nil, nil, from, to, to-from+1)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &meta, cdt.WithChunkTicks(4))
	if err != nil {
		tb.Fatal(err)
	}
	for tick := from; tick <= to; tick++ {
		rec := DemoTick(tick, 5)
		if err := w.Append(&rec); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	r, err := cdt.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}

// openVectorIfPresent opens a vector when the vectors are available, else
// returns nil (a fuzz target keeps its other seeds).
func openVectorIfPresent(tb testing.TB, name string) (*cdt.File, error) {
	root, err := vectortest.Root()
	if err != nil {
		return nil, err
	}
	r, err := cdt.OpenFile(filepath.Join(root, "cdt", name+".cdt"))
	if err != nil {
		return nil, err
	}
	tb.Cleanup(func() { r.Close() })
	return r, nil
}

// nanOnly reports whether every difference in rep, a trace compared with
// itself, is a NaN leaf on both sides. The reference compares leaves with
// == (exact, no tolerance), and Python's nan == nan is False for two
// decoded floats, so a trace holding a NaN diverges from itself there as it
// does here; any other difference is a bug.
func nanOnly(rep *FocusReport) bool {
	if len(rep.Mismatches) == 0 {
		return false
	}
	for _, m := range rep.Mismatches {
		nan, other := nanLeaves(m.detail)
		if len(m.Paths) == 0 || nan == 0 || other > 0 {
			return false
		}
	}
	return true
}

// nanLeaves counts the difference rows ({path, kind, expected, actual})
// under v that are value mismatches of two NaNs, and the other ones.
func nanLeaves(v pyjson.Value) (nan, other int) {
	if v.Kind == pyjson.Map {
		if k, ok := v.Get("kind"); ok && k.Kind == pyjson.String {
			e, _ := v.Get("expected")
			a, _ := v.Get("actual")
			if k.S == "value_mismatch" && e.Kind == pyjson.Float && a.Kind == pyjson.Float && math.IsNaN(e.F) && math.IsNaN(a.F) {
				nan++
			} else {
				other++
			}
		}
	}
	for _, c := range append(slices.Clone(v.Items), v.Vals...) {
		n, o := nanLeaves(c)
		nan, other = nan+n, other+o
	}
	return nan, other
}
