package schema7

import (
	"errors"
	"math"
	"testing"

	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

func TestParseQuerySplit(t *testing.T) {
	cases := []struct {
		expr, scope, op, left, right string
	}{
		{"ticks where a == 1", "ticks", "==", "a", "1"},
		{"  entities \t where  x>=2.5  ", "entities", ">=", "x", "2.5"},
		{"ticks where a<=b", "ticks", "<=", "a", "b"},
		{"ticks where a=<b", "ticks", "<", "a=", "b"},             // the shortest left side before an operator
		{"ticks where a >=", "ticks", ">", "a", "="},              // ">=" has nothing behind it, ">" has
		{"ticks where a != b == c", "ticks", "!=", "a", "b == c"}, // the first operator wins
		{"ticks where == == 1", "ticks", "==", "==", "1"},         // the left side is at least one character
		{"ticks where prev( x.y ) < x.y", "ticks", "<", "prev( x.y )", "x.y"},
	}
	for _, c := range cases {
		e, err := ParseQuery(c.expr)
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		if e.Scope() != c.scope || e.op != c.op || e.left.text != c.left || e.right.text != c.right || e.String() != c.expr {
			t.Errorf("%q: got %s %q %s %q", c.expr, e.Scope(), e.left.text, e.op, e.right.text)
		}
	}
}

func TestParseQueryErrors(t *testing.T) {
	const start = "expression must start with 'ticks where ...' or 'entities where ...'"
	const cond = "expression condition must use one of: == != >= <= > <"
	cases := []struct {
		expr string
		col  int
		msg  string
	}{
		{"", 1, start},
		{"tick where a == 1", 1, start},
		{"  ticks when a == 1", 9, start},
		{"ticks where", 12, start},
		{"ticks where ", 12, start},      // one space: nothing is left for the condition
		{"ticks where   ", 13, cond},     // the pattern hands a space to the condition, which has no operator
		{"ticks where\n\n", 12, start},   // newlines cannot be condition characters
		{"ticks wherea == 1", 12, start}, // "where" must be followed by a space
		{"ticks where a b", 13, cond},
		{"ticks where a ==", 13, cond},
		{"ticks where a\n== 1", 14, start}, // '.' does not match a newline
		{"ticks where prev() == 1", 13, "empty prev(...) field path"},
		{"ticks where x == prev(  )", 18, "empty prev(...) field path"},
		{"ticks where a == (1, 2)", 18, "tuple and parenthesised literals are not supported in queries"},
		{"ticks where a == b'x'", 18, "bytes literals are not supported in queries"},
		{"ticks where a == {1, 2}", 18, "set literals are not supported in queries"},
		{"ticks where a == {1: 2}", 19, "dict literals with keys that are not strings are not supported in queries"},
		{"ticks where a == 99999999999999999999999", 18, "integer literal out of 64-bit range"},
		{"ticks where a == '\\N{BULLET}'", 19, `named escapes (\N{...}) are not supported in queries`},
		{"ticks where é == ç ==", 13, ""}, // columns count characters: parses (é == "ç ==")
	}
	for _, c := range cases {
		_, err := ParseQuery(c.expr)
		if c.msg == "" {
			if err != nil {
				t.Errorf("%q: %v", c.expr, err)
			}
			continue
		}
		var qe *QueryError
		if !errors.As(err, &qe) || !errors.Is(err, ErrQuerySyntax) {
			t.Errorf("%q: error %v, want a *QueryError", c.expr, err)
			continue
		}
		if qe.Column() != c.col || qe.Msg != c.msg {
			t.Errorf("%q: column %d %q, want %d %q", c.expr, qe.Column(), qe.Msg, c.col, c.msg)
		}
	}
	var qe *QueryError
	_, err := ParseQuery("ticks where ü b")
	if !errors.As(err, &qe) || qe.Error() != "schema7: query: position 13: "+"expression condition must use one of: == != >= <= > <" {
		t.Errorf("error text %v", err)
	}
}

func TestQueryLiterals(t *testing.T) {
	str := pyjson.StringValue
	i := pyjson.IntValue
	f := pyjson.FloatValue
	cases := []struct {
		text  string
		want  pyjson.Value
		field bool // read as a field path, as the reference does for non-literals
	}{
		{"1", i(1), false},
		{"-5", i(-5), false},
		{"- 5", i(-5), false},
		{"+7", i(7), false},
		{"1_000", i(1000), false},
		{"0x1f", i(31), false},
		{"0X_1F", i(31), false},
		{"-0x10", i(-16), false},
		{"0o17", i(15), false},
		{"0b101", i(5), false},
		{"00", i(0), false},
		{"-9223372036854775808", i(math.MinInt64), false},
		{"18446744073709551615", pyjson.UintValue(math.MaxUint64), false},
		{"1e3", f(1000), false},
		{".5", f(0.5), false},
		{"5.", f(5), false},
		{"01.5", f(1.5), false},
		{"1_0.2_5e1_0", f(10.25e10), false},
		{"1e999", f(math.Inf(1)), false},
		{"'abc'", str("abc"), false},
		{`"it's"`, str("it's"), false},
		{`'a' "b"  'c'`, str("abc"), false},
		{`'\x41\n\t\\\''`, str("A\n\t\\'"), false},
		{`'\101\u00e9\U0001F600'`, str("Aé😀"), false},
		{`'\q'`, str(`\q`), false},
		{`r'\n'`, str(`\n`), false},
		{`u'x'`, str("x"), false},
		{`'''tri'ple'''`, str("tri'ple"), false},
		{"[]", pyjson.ListValue(), false},
		{"[1, 'a', True, None, [2.5],]", pyjson.ListValue(i(1), str("a"), pyjson.BoolValue(true), pyjson.NullValue(), pyjson.ListValue(f(2.5))), false},
		{"TRUE", pyjson.BoolValue(true), false},
		{"False", pyjson.BoolValue(false), false},
		{"Null", pyjson.NullValue(), false},
		{"none", pyjson.NullValue(), false},
		// Not Python literals: the reference reads these as field paths.
		{"01", pyjson.Value{}, true},
		{"1__0", pyjson.Value{}, true},
		{"1abc", pyjson.Value{}, true},
		{"1j", pyjson.Value{}, true},
		{"--1", pyjson.Value{}, true},
		{"[true]", pyjson.Value{}, true},
		{"'abc", pyjson.Value{}, true},
		{"'a\\'", pyjson.Value{}, true},
		{"f'x'", pyjson.Value{}, true},
		{"nan", pyjson.Value{}, true},
		{"inf", pyjson.Value{}, true},
		{"1.5.3", pyjson.Value{}, true},
		{"[1, x]", pyjson.Value{}, true},
		{"checkpoint.kills", pyjson.Value{}, true},
	}
	for _, c := range cases {
		e, err := ParseQuery("ticks where x == " + c.text)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		o := e.right
		if c.field {
			if o.kind != operandField || o.text != c.text {
				t.Errorf("%s: read as %v %q, want the field path", c.text, o.kind, o.text)
			}
			continue
		}
		if o.kind != operandLiteral || o.lit.Kind != c.want.Kind || !pyEqual(o.lit, c.want) ||
			(c.want.Kind == pyjson.Float && math.Signbit(o.lit.F) != math.Signbit(c.want.F)) {
			t.Errorf("%s: got %v %s, want %s", c.text, o.kind, appendPyRepr(nil, o.lit), appendPyRepr(nil, c.want))
		}
	}
	e, err := ParseQuery(`ticks where x == {'a': 1, "b": [2], 'a': 3}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(appendPyRepr(nil, e.right.lit)); got != "{'a': 3, 'b': [2]}" {
		t.Errorf("dict literal %s", got)
	}
}

func TestPyHelpers(t *testing.T) {
	floats := map[string]float64{"1": 1, " 2.5 ": 2.5, "-1e3": -1000, "1_000": 1000, "+.5": 0.5, "5.": 5, "Infinity": math.Inf(1), "-inf": math.Inf(-1)}
	for s, want := range floats {
		if got, ok := pyFloatString(s); !ok || got != want {
			t.Errorf("float(%q) = %v %v, want %v", s, got, ok, want)
		}
	}
	if got, ok := pyFloatString("NaN"); !ok || !math.IsNaN(got) {
		t.Errorf("float('NaN') = %v %v", got, ok)
	}
	for _, s := range []string{"", "abc", "1_", "_1", "1__0", "0x10", "1e", ".", "1.2.3", "- 1", "True", "creature"} {
		if _, ok := pyFloatString(s); ok {
			t.Errorf("float(%q) accepted", s)
		}
	}
	reprs := map[string]string{"abc": "'abc'", "it's": `"it's"`, `a'b"c`: `'a\'b"c'`, "é\n\x01": `'é\n\x01'`, "\u2028": `'\u2028'`}
	for s, want := range reprs {
		if got := pyRepr(s); got != want {
			t.Errorf("repr(%q) = %s, want %s", s, got, want)
		}
	}
	v := pyjson.ListValue(pyjson.NullValue(), pyjson.BoolValue(true), pyjson.FloatValue(1), pyjson.FloatValue(math.Inf(-1)), pyjson.StringValue("x"))
	if got := pyStr(v); got != "[None, True, 1.0, -inf, 'x']" {
		t.Errorf("str(list) = %s", got)
	}
	eq := [][2]pyjson.Value{
		{pyjson.IntValue(1), pyjson.FloatValue(1)},
		{pyjson.BoolValue(true), pyjson.IntValue(1)},
		{pyjson.ListValue(pyjson.IntValue(1)), pyjson.ListValue(pyjson.BoolValue(true))},
		{pyjson.UintValue(1 << 63), pyjson.FloatValue(1 << 63)},
	}
	for _, p := range eq {
		if !pyEqual(p[0], p[1]) {
			t.Errorf("%s != %s", appendPyRepr(nil, p[0]), appendPyRepr(nil, p[1]))
		}
	}
	ne := [][2]pyjson.Value{
		{pyjson.IntValue(1<<53 + 1), pyjson.FloatValue(1 << 53)}, // exact, as Python compares int and float
		{pyjson.StringValue("1"), pyjson.IntValue(1)},
		{pyjson.NullValue(), pyjson.IntValue(0)},
		{pyjson.FloatValue(math.NaN()), pyjson.FloatValue(math.NaN())},
		{pyjson.ListValue(), pyjson.NewMap()},
	}
	for _, p := range ne {
		if pyEqual(p[0], p[1]) {
			t.Errorf("%s == %s", appendPyRepr(nil, p[0]), appendPyRepr(nil, p[1]))
		}
	}
}

// TestQueryEdgeCases pins the reference's coercions on a 20-tick DemoTick
// trace. In it tick t has t%5 creatures (uids 0..), one projectile (uid 11),
// one bonus (uid 2), hit_count t%5, score_xp 3t, phase markers
// [gpur_enter, gpur_exit], no tutorial, all bonus timers 0, choices_dirty
// false.
func TestQueryEdgeCases(t *testing.T) {
	r := traceOf(t, 0, 19, nil, nil)
	cases := []struct {
		expr  string
		count int
		first int64 // tick of the first row, -1 when none
	}{
		// prev() on the first row is None: != matches, == does not, and
		// the orderings compare str(value) with "None".
		{"ticks where checkpoint.score_xp != prev(checkpoint.score_xp)", 20, 0},
		{"ticks where checkpoint.score_xp == prev(checkpoint.score_xp)", 0, -1},
		{"ticks where checkpoint.score_xp > prev(checkpoint.score_xp)", 19, 1},
		{"ticks where prev(checkpoint.score_xp) > checkpoint.score_xp", 1, 0}, // "None" > "0"
		{"ticks where prev(tick_index) == none", 1, 0},
		{"ticks where tick_index == prev(tick_index) + 1", 0, -1}, // "prev(tick_index) + 1" is a (missing) path
		// Strings against numbers: numeric strings coerce, others compare
		// by equality or by str().
		{"ticks where entity_counts.creatures == '4'", 4, 4},
		{"ticks where mode_id == '1'", 20, 0},
		{"ticks where mode_id == ' 1.0 '", 20, 0},
		{"ticks where mode_id == 'one'", 0, -1},
		{"ticks where mode_id != 'one'", 20, 0},
		{"ticks where '10' > '9'", 20, 0},    // both numeric: 10 > 9
		{"ticks where '10' > 'nine'", 0, -1}, // str order: "10" < "nine"
		{"ticks where mode_id < 'a'", 20, 0}, // "1" < "a"
		{"ticks where elapsed_ms >= 100", 14, 6},
		// Bools are 0/1 against numbers, never equal to strings.
		{"ticks where checkpoint.perk.choices_dirty == 0", 20, 0},
		{"ticks where checkpoint.perk.choices_dirty == false", 20, 0},
		{"ticks where checkpoint.perk.choices_dirty == 'False'", 0, -1},
		{"ticks where checkpoint.perk.choices_dirty < 0.5", 20, 0},
		{"ticks where true == 1", 20, 0},
		{"ticks where 1 == 1.0", 20, 0},
		// Missing paths are None.
		{"ticks where nosuch == none", 20, 0},
		{"ticks where nosuch != null", 0, -1},
		{"ticks where nosuch > 0", 20, 0}, // "None" > "0"
		{"ticks where nosuch < 0", 0, -1},
		{"ticks where checkpoint.players.0 == none", 20, 0}, // lists are not dicts
		{"ticks where checkpoint.tutorial.stage_index == none", 20, 0},
		{"ticks where tick_index.x == none", 20, 0},
		{"ticks where entity_counts.nosuch == none", 20, 0},
		{"ticks where checkpoint..kills == none", 20, 0},
		// Lists and dicts compare by value; dicts ignore key order.
		{"ticks where phase_markers == ['gpur_enter', 'gpur_exit']", 20, 0},
		{"ticks where phase_markers == ['gpur_exit', 'gpur_enter']", 0, -1},
		{"ticks where checkpoint.bonus_timers == {'11': 0, '9': 0, '4': 0, '2': 0, '6': 0}", 20, 0},
		{"ticks where checkpoint.bonus_timers.4 == 0", 20, 0},
		{"ticks where checkpoint.bonus_timers.5 == none", 20, 0},
		{"ticks where top_event_types == ['hit_count:0', 'pickup_count:0', 'sfx_count:0']", 4, 0},
		{"ticks where event_count_total == entity_counts.creatures", 20, 0},
		{"ticks where entity_counts == {'creatures': 2, 'projectiles': 1, 'secondary_projectiles': 0, 'bonuses': 1}", 4, 2},
		{"ticks where checkpoint.players == []", 0, -1},
		{"ticks where rng_stream_count == 2", 20, 0},
		{"ticks where timing_samples_count == 1", 20, 0},
		// Entities: {"tick_index", …row}; 80 rows in all (t%5 creatures + 2).
		{"entities where uid >= 0", 80, 0},
		{"entities where active == 1", 80, 0},
		{"entities where active == 'True'", 0, -1},
		{"entities where active >= 0.5", 80, 0},
		{"entities where hp == none", 40, 0},
		{"entities where uid == prev(uid)", 0, -1},
		{"entities where uid != prev(uid)", 80, 0},
		{"entities where pool_kind == 'creature'", 40, 1},
		{"entities where pool_kind > 'bonus'", 60, 0},
		{"entities where tick_index == 3", 5, 3},
		{"entities where pos.x > 0", 80, 0},
		{"entities where pos == {'x': 100.0, 'y': 120.0}", 20, 0},
		{"entities where pos.z == none", 80, 0},
		{"entities where tick_index.x == none", 80, 0},
	}
	for _, c := range cases {
		res, err := Query(r, c.expr, 1)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		first := int64(-1)
		if len(res.Rows) > 0 {
			first = res.Rows[0].TickIndex
		}
		if res.MatchCount != c.count || first != c.first || res.Truncated != (c.count > 1) {
			t.Errorf("%s: %d matches (first tick %d, truncated %v), want %d (first %d)", c.expr, res.MatchCount, first, res.Truncated, c.count, c.first)
		}
	}
}

func TestQueryRowsAndLimit(t *testing.T) {
	r := traceOf(t, 0, 9, nil, nil)
	res, err := Query(r, "ticks where checkpoint.score_xp > prev(checkpoint.score_xp)", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Limit != 1 || len(res.Rows) != 1 || res.MatchCount != 9 || !res.Truncated {
		t.Fatalf("limit 0: %+v", res)
	}
	row := res.Rows[0]
	if row.TickIndex != 1 || row.Left != "3" || row.Right != "0" {
		t.Errorf("row %+v", row)
	}
	res, err = Query(r, "entities where pool_kind == 'bonus'", 100)
	if err != nil {
		t.Fatal(err)
	}
	if res.MatchCount != 10 || len(res.Rows) != 10 || res.Truncated {
		t.Fatalf("entities: %d/%d truncated %v", res.MatchCount, len(res.Rows), res.Truncated)
	}
	if row := res.Rows[3]; row.TickIndex != 3 || row.PoolKind != "bonus" || row.UID != 2 || row.Left != "bonus" || row.Right != "bonus" {
		t.Errorf("entity row %+v", row)
	}
	if got := string(res.Rows[0].JSON()); got[:30] != `{"tick_index":0,"uid":2,"gener` {
		t.Errorf("entity row JSON %s", got)
	}
	if _, err := Query(r, "tick where x == 1", 1); !errors.Is(err, ErrQuerySyntax) {
		t.Errorf("Query with a bad expression: %v", err)
	}
}

// TestQueryEvalAllocs pins evaluation at zero allocations per row when the
// condition reads scalars and no row is kept.
func TestQueryEvalAllocs(t *testing.T) {
	recs := make([]TickRecord, 8)
	for i := range recs {
		recs[i] = DemoTick(int64(i), 1)
	}
	for _, expr := range []string{
		"ticks where checkpoint.score_xp == prev(checkpoint.score_xp)",
		"ticks where checkpoint.bonus_timers.4 > 1",
		"ticks where nosuch < 12345",
		"ticks where entity_counts.creatures > 10",
		"entities where hp > 1000", // "None" > "1000" for the rows without hp, compared without allocating
		"entities where uid > 1000",
		"entities where pool_kind == 'none'",
	} {
		e, err := ParseQuery(expr)
		if err != nil {
			t.Fatal(err)
		}
		seq := func(yield func(*TickRecord, error) bool) {
			for i := range recs {
				if !yield(&recs[i], nil) {
					return
				}
			}
		}
		res := &QueryResult{Limit: 1}
		run := func() {
			if e.scope == ScopeTicks {
				e.runTicks(seq, res)
			} else {
				e.runEntities(seq, res)
			}
		}
		run()
		if a := testing.AllocsPerRun(50, run); a != 0 || (res.MatchCount != 0) != (e.left.text == "hp") {
			t.Errorf("%s: %v allocations per run of %d rows, %d matches", expr, a, len(recs), res.MatchCount)
		}
	}
}
