package duckdbtest

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/cdt/schema7"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/parquetexport"
)

// expected is what an input's rows must add up to, read through the event
// layer (the codec's own reading, unpaired) with a pairing of our own.
type expected struct {
	records  int64
	perName  map[string]int64
	minTs    int64
	maxTs    int64
	timed    bool
	pairs    int64
	durSum   int64
	fidSum   big.Int // ATF: function_id of the paired calls
	intSums  map[string]*big.Int
	fltSums  map[string]float64
	colKinds map[string]events.ValueKind
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			b[i] = '_'
		}
	}
	return string(b)
}

// cdtField is the set of CDT field columns.
var cdtField = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range parquetexport.DefaultCDTFields {
		m["cdt_"+sanitize(f)] = true
	}
	return m
}()

type openBegin struct {
	name  string
	ts    int64
	timed bool
	fid   uint64
}

// expect reads path through package events.
func expect(path string) (*expected, error) {
	r, err := events.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	x := &expected{perName: map[string]int64{}, minTs: math.MaxInt64, maxTs: math.MinInt64,
		intSums: map[string]*big.Int{}, fltSums: map[string]float64{}, colKinds: map[string]events.ValueKind{}}
	type key struct {
		k  events.TrackKind
		id uint64
	}
	stacks := map[key][]openBegin{}
	for r.Next() {
		e := r.Event()
		x.records++
		x.perName[e.Name()]++
		if e.HasTime() {
			x.timed = true
			x.minTs = min(x.minTs, e.Time())
			x.maxTs = max(x.maxTs, e.Time())
		}
		t := e.Track()
		k := key{t.Kind, t.ID}
		var fid uint64
		if v, ok := e.ArgByName("function_id"); ok && e.Format() == events.FormatATF {
			fid = v.Uint()
		}
		// The export's pairing rules (see the parquetexport doc): an ATF
		// return closes the innermost open call of its function, the
		// calls above it unwound; dial9 polls do not nest; an end never
		// closes a later begin.
		switch e.Kind() {
		case events.KindBegin:
			if e.Format() == events.FormatDial9 {
				stacks[k] = stacks[k][:0]
			}
			stacks[k] = append(stacks[k], openBegin{e.Name(), e.Time(), e.HasTime(), fid})
		case events.KindEnd:
			st := stacks[k]
			later := func(b openBegin) bool { return b.timed && e.HasTime() && e.Time() < b.ts }
			i := len(st) - 1
			if e.Format() == events.FormatATF {
				for i >= 0 && (st[i].fid != fid || later(st[i])) {
					i--
				}
			} else if i >= 0 && later(st[i]) {
				i = -1
			}
			if i >= 0 {
				b := st[i]
				stacks[k] = st[:i]
				x.pairs++
				// The complete row carries the begin's name.
				x.perName[e.Name()]--
				x.perName[b.name]++
				if b.timed && e.HasTime() {
					x.durSum += e.Time() - b.ts
				}
				x.fidSum.Add(&x.fidSum, new(big.Int).SetUint64(b.fid))
			}
		}
		kind := e.Kind()
		if row, ok := e.CDT(); ok {
			// The CDT field columns hold schema7's reading of the row.
			var rec schema7.TickRecord
			if err := rec.Decode(row.Raw); err != nil {
				return nil, err
			}
			for _, f := range parquetexport.DefaultCDTFields {
				if v, ok := schema7.LookupNumber(&rec, f); ok {
					x.fltSums["cdt_"+sanitize(f)] += v
					x.colKinds["cdt_"+sanitize(f)] = events.ValueFloat
				}
			}
		}
		for name, v := range e.Args {
			col := e.Format() + "_" + sanitize(name)
			vk := v.Kind()
			if vk == events.ValueNull || vk == events.ValueComposite {
				continue
			}
			if cdtField[col] {
				continue
			}
			first, seen := x.colKinds[col]
			if !seen {
				x.colKinds[col], first = vk, vk
			}
			if first != vk || kind != events.KindInstant && kind != events.KindCounter && kind != events.KindMetadata {
				continue
			}
			switch vk {
			case events.ValueInt, events.ValueUint:
				s := x.intSums[col]
				if s == nil {
					s = new(big.Int)
					x.intSums[col] = s
				}
				if vk == events.ValueInt {
					s.Add(s, big.NewInt(v.Int()))
				} else {
					s.Add(s, new(big.Int).SetUint64(v.Uint()))
				}
			case events.ValueFloat:
				x.fltSums[col] += v.Float()
			}
		}
	}
	return x, r.Err()
}

// TestVectorsThroughDuckDB exports every vector (file or trace folder) on
// its own with tracecat export and checks with DuckDB that the rows add up
// to what the event layer reads and to what tracecat stats reports: records
// per name, total records, min/max ts_ns, number and total duration of the
// complete rows, and the sum of every numeric argument column over the
// instant, counter and metadata rows.
func TestVectorsThroughDuckDB(t *testing.T) {
	root := filepath.Dir(vectortest.Dir(t, "dial9"))
	var inputs []parquetexport.Input
	for _, f := range []string{"dial9", "atf", "wtf", "cdt", "ctf"} {
		list, err := parquetexport.ExpandInputs(filepath.Join(root, f))
		if err != nil && !errors.Is(err, parquetexport.ErrNoInputs) {
			t.Fatal(err)
		}
		inputs = append(inputs, list...)
	}
	db := openDB(t)
	checked := map[string]int{}
	for _, in := range inputs {
		x, err := expect(in.Path)
		out := filepath.Join(t.TempDir(), "out")
		cmd := []string{"export", "--to", "parquet", "--jobs", "1", in.Path, out}
		if err != nil {
			// An input the event layer cannot read fails the export.
			if _, xerr := runTracecatErr(cmd...); xerr == nil {
				t.Errorf("%s: events fail (%v) but export succeeds", in.Path, err)
			}
			continue
		}
		if x.records == 0 {
			// A trace without events: an empty dataset.
			runTracecat(t, cmd...)
			continue
		}
		runTracecat(t, cmd...)
		checked[in.Format]++
		t.Run(strings.TrimPrefix(in.Path, root+"/"), func(t *testing.T) {
			checkInput(t, db, out, in, x)
		})
	}
	t.Logf("inputs checked per format: %v; numeric columns summed: %v", checked, summed)
	for _, f := range []string{"dial9", "atf", "wtf", "cdt"} {
		if checked[f] == 0 {
			t.Errorf("no %s vector checked", f)
		}
		if summed[f] == 0 && f != "atf" {
			t.Errorf("no numeric %s column summed", f)
		}
	}
}

// summed counts the numeric columns compared, per format.
var summed = map[string]int{}

func checkInput(t *testing.T, db *sql.DB, out string, in parquetexport.Input, x *expected) {
	ds := dataset(out)
	// Records per name: a complete row holds a begin and an end.
	rows, err := db.Query(fmt.Sprintf(`SELECT name, sum(CASE WHEN kind = 'complete' THEN 2 ELSE 1 END)::BIGINT FROM %s GROUP BY name`, ds))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for rows.Next() {
		var n string
		var c int64
		if err := rows.Scan(&n, &c); err != nil {
			t.Fatal(err)
		}
		got[n] = c
	}
	rows.Close()
	if !equalCounts(got, x.perName) {
		t.Errorf("records per name: duckdb %v, events %v", trim(got), trim(x.perName))
	}
	var total, pairs int64
	var durSum, fidSum sql.NullString
	var minTs, maxTs sql.NullInt64
	q := fmt.Sprintf(`SELECT sum(CASE WHEN kind = 'complete' THEN 2 ELSE 1 END)::BIGINT,
		count(*) FILTER (kind = 'complete'), CAST(sum(dur_ns) AS VARCHAR),
		min(least(ts_ns, ts_ns + coalesce(dur_ns, 0))), max(greatest(ts_ns, ts_ns + coalesce(dur_ns, 0))),
		%s FROM %s`, fidExpr(in.Format), ds)
	if err := db.QueryRow(q).Scan(&total, &pairs, &durSum, &minTs, &maxTs, &fidSum); err != nil {
		t.Fatal(err)
	}
	if total != x.records || pairs != x.pairs {
		t.Errorf("records %d complete %d, events read %d pairs %d", total, pairs, x.records, x.pairs)
	}
	if want := strconv.FormatInt(x.durSum, 10); x.pairs > 0 && durSum.String != want {
		t.Errorf("sum(dur_ns) %q, want %s", durSum.String, want)
	}
	if in.Format == "atf" && fidSum.String != x.fidSum.String() {
		t.Errorf("sum(atf_function_id) of complete rows %q, want %s", fidSum.String, x.fidSum.String())
	}
	if x.timed && (minTs.Int64 != x.minTs || maxTs.Int64 != x.maxTs) {
		t.Errorf("ts_ns %d..%d, events %d..%d", minTs.Int64, maxTs.Int64, x.minTs, x.maxTs)
	}
	// tracecat stats agrees on the totals and the time range.
	var st map[string]any
	if err := json.Unmarshal([]byte(runTracecat(t, "stats", "--json", in.Path)), &st); err != nil {
		t.Fatal(err)
	}
	if ev, ok := st["events"].(float64); !ok || int64(ev) != total {
		t.Errorf("tracecat stats events %v, duckdb %d", st["events"], total)
	}
	// stats leaves metadata records (WTF definitions, zones) out of
	// min_ns/max_ns; JSON numbers are float64, exact to 2^53.
	var lo, hi sql.NullInt64
	if err := db.QueryRow(fmt.Sprintf(`SELECT min(least(ts_ns, ts_ns + coalesce(dur_ns, 0))), max(greatest(ts_ns, ts_ns + coalesce(dur_ns, 0)))
		FROM %s WHERE kind <> 'metadata'`, ds)).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	if v, ok := st["min_ns"].(float64); ok && lo.Valid && v != float64(lo.Int64) {
		t.Errorf("tracecat stats min_ns %v, duckdb %d", v, lo.Int64)
	}
	if v, ok := st["max_ns"].(float64); ok && hi.Valid && v != float64(hi.Int64) {
		t.Errorf("tracecat stats max_ns %v, duckdb %d", v, hi.Int64)
	}
	if byType, ok := st["events_by_type"].(map[string]any); ok && in.Format == "dial9" {
		checkDial9Types(t, db, ds, byType)
	}
	if byName, ok := st["events_by_name"].(map[string]any); ok && in.Format == "wtf" {
		var n float64
		for _, v := range byName {
			n += v.(float64)
		}
		if int64(n) != total {
			t.Errorf("tracecat stats events_by_name adds up to %v, duckdb %d", n, total)
		}
	}
	// Sums of every numeric column over instant, counter and metadata rows.
	cols := columnSet(t, db, ds)
	for col, want := range x.intSums {
		if !cols[col] {
			t.Errorf("no column %s", col)
			continue
		}
		var s sql.NullString
		if err := db.QueryRow(fmt.Sprintf(`SELECT CAST(coalesce(sum(%q), 0) AS VARCHAR) FROM %s WHERE kind IN ('instant', 'counter', 'metadata')`, col, ds)).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s.String != want.String() {
			t.Errorf("sum(%s) = %s, events %s", col, s.String, want)
		}
	}
	for col, want := range x.fltSums {
		var s sql.NullFloat64
		if err := db.QueryRow(fmt.Sprintf(`SELECT sum(%q) FROM %s WHERE kind IN ('instant', 'counter', 'metadata')`, col, ds)).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if math.Abs(s.Float64-want) > 1e-9*math.Max(1, math.Abs(want)) && !(math.IsNaN(want) && math.IsNaN(s.Float64)) {
			t.Errorf("sum(%s) = %v, events %v", col, s.Float64, want)
		}
	}
	summed[in.Format] += len(x.intSums) + len(x.fltSums)
}

// fidExpr sums the function ids of ATF's complete rows.
func fidExpr(format string) string {
	if format != "atf" {
		return "NULL::VARCHAR"
	}
	return "CAST(coalesce(sum(atf_function_id::HUGEINT) FILTER (kind = 'complete'), 0) AS VARCHAR)"
}

// checkDial9Types compares tracecat stats' events_by_type with the rows:
// PollStart/PollEnd on a worker are the two halves of "poll" rows, every
// other schema is its own name.
func checkDial9Types(t *testing.T, db *sql.DB, ds string, byType map[string]any) {
	var polls float64
	want := map[string]int64{}
	for ty, v := range byType {
		switch ty {
		case "PollStartEvent", "PollEndEvent", "PollStart", "PollEnd":
			polls += v.(float64)
		default:
			want[ty] = int64(v.(float64))
		}
	}
	rows, err := db.Query(fmt.Sprintf(`SELECT name, sum(CASE WHEN kind = 'complete' THEN 2 ELSE 1 END)::BIGINT FROM %s GROUP BY name`, ds))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int64{}
	var gotPolls int64
	for rows.Next() {
		var n string
		var c int64
		rows.Scan(&n, &c)
		if n == "poll" || strings.HasPrefix(n, "Poll") {
			gotPolls += c
			continue
		}
		got[n] = c
	}
	if !equalCounts(got, want) || gotPolls != int64(polls) {
		t.Errorf("dial9 per type: duckdb %v + %d polls, tracecat stats %v + %v polls", trim(got), gotPolls, trim(want), polls)
	}
}

// equalCounts compares counts, a missing key counting 0.
func equalCounts(a, b map[string]int64) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// trim renders a count map, shortened for error messages.
func trim(m map[string]int64) string {
	var ks []string
	for k, v := range m {
		ks = append(ks, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(ks)
	if len(ks) > 20 {
		ks = append(ks[:20], "…")
	}
	return strings.Join(ks, " ")
}
