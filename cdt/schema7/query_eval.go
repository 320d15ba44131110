package schema7

import (
	"iter"
	"math"
	"reflect"
	"strings"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// A field path is resolved once, when the query is parsed, against the
// types it walks (the tick summary's fields, ReplayCheckpoint, the four
// entity row types): evaluation then follows struct field indexes and
// builds a value tree only when the path ends at a list or dict.

type pathKind uint8

const (
	pathNone pathKind = iota // always None
	pathTickIndex
	pathElapsedMs
	pathDtMsI32
	pathModeID
	pathPhaseMarkers
	pathEntityCounts
	pathEntityCount // one pool's count: valuePath.pool
	pathRngStreamCount
	pathTimingSamplesCount
	pathEventCountTotal
	pathTopEventTypes
	pathCheckpoint // walk steps from the checkpoint
	pathEntity     // entities scope: walk entitySteps[pool] from the row
)

// step is one dict-key step of a walk: a struct field, or a key of an
// IntMap.
type step struct {
	field int
	key   string
	isKey bool
}

// walk is the compiled steps of a path below a struct; ok is false when the
// path leads nowhere (None whatever the data).
type walk struct {
	steps []step
	ok    bool
}

type valuePath struct {
	kind pathKind
	pool int
	walk walk
	// entities scope: one walk per pool type, in EntityPools order.
	entity [4]walk
}

var (
	checkpointType = reflect.TypeFor[ReplayCheckpoint]()
	intMapType     = reflect.TypeFor[IntMap]()
	entityTypes    = [4]reflect.Type{
		reflect.TypeFor[CreatureEntitySample](), reflect.TypeFor[ProjectileEntitySample](),
		reflect.TypeFor[SecondaryProjectileEntitySample](), reflect.TypeFor[BonusEntitySample](),
	}
	nullIntType    = reflect.TypeFor[NullInt]()
	nullFloatType  = reflect.TypeFor[NullFloat]()
	nullBoolType   = reflect.TypeFor[NullBool]()
	nullStringType = reflect.TypeFor[NullString]()
)

func isNullType(t reflect.Type) bool {
	return t == nullIntType || t == nullFloatType || t == nullBoolType || t == nullStringType
}

// compileWalk resolves parts (dict keys) below a value of type t.
func compileWalk(t reflect.Type, parts []string) walk {
	var w walk
	for _, part := range parts {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t == intMapType:
			w.steps = append(w.steps, step{key: part, isKey: true})
			t = reflect.TypeFor[int64]()
		case t.Kind() == reflect.Struct && !isNullType(t):
			found := false
			for _, f := range fieldsOf(t) {
				if f.name == part {
					w.steps = append(w.steps, step{field: f.index})
					t = t.Field(f.index).Type
					found = true
					break
				}
			}
			if !found {
				return walk{}
			}
		default: // lists and scalars are not dicts
			return walk{}
		}
	}
	w.ok = true
	return w
}

// compilePath resolves a dotted path of the tick summary or an entity row.
func compilePath(scope, path string) valuePath {
	parts := strings.Split(path, ".")
	head, rest := parts[0], parts[1:]
	if scope == ScopeEntities {
		if head == "tick_index" {
			if len(rest) == 0 {
				return valuePath{kind: pathTickIndex}
			}
			return valuePath{}
		}
		p := valuePath{kind: pathEntity}
		for i, t := range entityTypes {
			p.entity[i] = compileWalk(t, parts)
		}
		return p
	}
	scalar := map[string]pathKind{
		"tick_index": pathTickIndex, "elapsed_ms": pathElapsedMs, "dt_ms_i32": pathDtMsI32, "mode_id": pathModeID,
		"phase_markers": pathPhaseMarkers, "rng_stream_count": pathRngStreamCount,
		"timing_samples_count": pathTimingSamplesCount, "event_count_total": pathEventCountTotal,
		"top_event_types": pathTopEventTypes,
	}
	if k, ok := scalar[head]; ok {
		if len(rest) == 0 {
			return valuePath{kind: k}
		}
		return valuePath{}
	}
	switch head {
	case "entity_counts":
		if len(rest) == 0 {
			return valuePath{kind: pathEntityCounts}
		}
		if len(rest) == 1 {
			for i, name := range EntityPools {
				if rest[0] == name {
					return valuePath{kind: pathEntityCount, pool: i}
				}
			}
		}
	case "checkpoint":
		if w := compileWalk(checkpointType, rest); w.ok {
			return valuePath{kind: pathCheckpoint, walk: w}
		}
	}
	return valuePath{}
}

// follow walks w from v (addressable) and returns the value reached.
func follow(v reflect.Value, w *walk) pyjson.Value {
	if !w.ok {
		return pyjson.NullValue()
	}
	for _, s := range w.steps {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return pyjson.NullValue()
			}
			v = v.Elem()
		}
		if !s.isKey {
			v = v.Field(s.field)
			continue
		}
		m := v.Addr().Interface().(*IntMap)
		var val int64
		found := false
		for _, e := range *m { // a repeated key: the last value, as a Python dict holds
			if e.Key == s.key {
				val, found = e.Value, true
			}
		}
		if !found {
			return pyjson.NullValue()
		}
		return pyjson.IntValue(val)
	}
	return leafValue(v)
}

// leafValue converts the value at the end of a walk: scalars directly,
// lists and dicts through the builtins tree.
func leafValue(v reflect.Value) pyjson.Value {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return pyjson.NullValue()
		}
		v = v.Elem()
	}
	switch t := v.Type(); {
	case t == nullIntType, t == nullFloatType, t == nullBoolType, t == nullStringType:
		if !v.Field(1).Bool() {
			return pyjson.NullValue()
		}
		return leafValue(v.Field(0))
	}
	switch v.Kind() {
	case reflect.Int64, reflect.Int:
		return pyjson.IntValue(v.Int())
	case reflect.Uint64:
		return pyjson.UintValue(v.Uint())
	case reflect.Float64:
		return pyjson.FloatValue(v.Float())
	case reflect.Bool:
		return pyjson.BoolValue(v.Bool())
	case reflect.String:
		return pyjson.StringValue(v.String())
	}
	return toValue(v).Builtins()
}

// tickValue evaluates a ticks-scope path on rec.
func (p *valuePath) tickValue(rec *TickRecord) pyjson.Value {
	c := &rec.Channels
	switch p.kind {
	case pathTickIndex:
		return pyjson.IntValue(int64(rec.TickIndex))
	case pathElapsedMs:
		return pyjson.IntValue(int64(rec.ElapsedMs))
	case pathDtMsI32:
		return pyjson.IntValue(int64(rec.DtMsI32))
	case pathModeID:
		return pyjson.IntValue(int64(rec.ModeID))
	case pathPhaseMarkers:
		return stringList(rec.PhaseMarkers)
	case pathEntityCounts:
		s := Summarize(rec)
		return s.EntityCounts.value()
	case pathEntityCount:
		s := &c.EntitySamples
		return pyjson.IntValue(int64([4]int{len(s.Creatures), len(s.Projectiles), len(s.SecondaryProjectiles), len(s.Bonuses)}[p.pool]))
	case pathRngStreamCount:
		return pyjson.IntValue(int64(len(c.RngStream)))
	case pathTimingSamplesCount:
		return pyjson.IntValue(int64(len(c.TimingSamples)))
	case pathEventCountTotal:
		e := &c.Checkpoint.Events
		return pyjson.IntValue(int64(e.HitCount) + int64(e.PickupCount) + int64(e.SfxCount))
	case pathTopEventTypes:
		s := Summarize(rec)
		return stringList(s.TopEventTypes)
	case pathCheckpoint:
		return follow(reflect.ValueOf(&c.Checkpoint).Elem(), &p.walk)
	}
	return pyjson.NullValue()
}

// entityValue evaluates an entities-scope path on row (a pointer to a row of
// pool) sampled at tick.
func (p *valuePath) entityValue(tick int64, pool int, row reflect.Value) pyjson.Value {
	switch p.kind {
	case pathTickIndex:
		return pyjson.IntValue(tick)
	case pathEntity:
		return follow(row.Elem(), &p.entity[pool])
	}
	return pyjson.NullValue()
}

// compare is the reference's _compare_values: numerically when both sides
// are numbers (bools 0/1, numeric strings included), else == and != by
// Python equality and the orderings on str() of each side.
func compare(l pyjson.Value, op string, r pyjson.Value) bool {
	lf, lok := pyToFloat(l)
	rf, rok := pyToFloat(r)
	if lok && rok {
		switch op {
		case "==":
			return lf == rf
		case "!=":
			return lf != rf
		case ">=":
			return lf >= rf
		case "<=":
			return lf <= rf
		case ">":
			return lf > rf
		default:
			return lf < rf
		}
	}
	switch op {
	case "==":
		return pyEqual(l, r)
	case "!=":
		return !pyEqual(l, r)
	}
	c := pyStrCompare(l, r)
	switch op {
	case ">=":
		return c >= 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	default:
		return c < 0
	}
}

// QueryRow is one matching row of a query.
type QueryRow struct {
	TickIndex int64
	// PoolKind and UID identify the entity row (entities scope only).
	PoolKind string
	UID      int64
	// Left and Right are the values the condition compared, as Python's
	// str() shows them.
	Left, Right string
	value       pyjson.Value
}

// JSON returns the row object (a tick summary, or {"tick_index", …entity
// row}) as compact JSON with the reference's key order.
func (r *QueryRow) JSON() []byte { return pyjson.Encode(nil, r.value, pyjson.Style{Compact: true}) }

// QueryResult is the reference's query result object.
type QueryResult struct {
	Scope      string
	Expression string
	Limit      int
	// MatchCount counts every matching row; Rows holds the first Limit.
	MatchCount int
	Truncated  bool
	Rows       []QueryRow
}

func (q *QueryResult) value() pyjson.Value {
	v := pyjson.NewMap()
	v.Set("scope", pyjson.StringValue(q.Scope))
	v.Set("expression", pyjson.StringValue(q.Expression))
	v.Set("limit", pyjson.IntValue(int64(q.Limit)))
	v.Set("match_count", pyjson.IntValue(int64(q.MatchCount)))
	v.Set("truncated", pyjson.BoolValue(q.Truncated))
	rows := pyjson.Value{Kind: pyjson.List, Items: make([]pyjson.Value, len(q.Rows))}
	for i := range q.Rows {
		rows.Items[i] = q.Rows[i].value
	}
	v.Set("rows", rows)
	return v
}

// JSON returns the result as json.dumps(indent=2) writes the reference's
// object, keys in the reference's order.
func (q *QueryResult) JSON() []byte { return pyjson.Encode(nil, q.value(), pyjson.Style{Indent: 2}) }

// SortedJSON returns the result on one line with sorted keys, as the
// reference's `dbg query --json` prints it.
func (q *QueryResult) SortedJSON() []byte {
	return pyjson.Encode(nil, q.value(), pyjson.Style{SortKeys: true})
}

// MarshalJSON implements json.Marshaler with the reference's key order.
func (q *QueryResult) MarshalJSON() ([]byte, error) {
	return pyjson.Encode(nil, q.value(), pyjson.Style{Compact: true}), nil
}

// Query parses expr (see ParseQuery) and runs it over every row of r (see
// Expr.Run).
func Query(r *cdt.File, expr string, limit int) (*QueryResult, error) {
	e, err := ParseQuery(expr)
	if err != nil {
		return nil, err
	}
	return e.Run(r, limit)
}

// Run evaluates the query over every row of r in file order, as the
// reference's query_trace does: in the ticks scope once per row against its
// tick summary (prev() reads the previous row's), in the entities scope
// once per entity row of every pool. It counts every match and keeps the
// first limit rows (a limit below 1 is 1, as in the reference). Rows are
// decoded one at a time into one reused record and only kept matches are
// built into value trees, so memory does not grow with the trace.
func (e *Expr) Run(r *cdt.File, limit int) (*QueryResult, error) {
	return e.run(Records(r, math.MinInt64, math.MaxInt64), limit)
}

// RunRecords is Run over any sequence of records (for example Records of a
// tick range).
func (e *Expr) RunRecords(recs iter.Seq2[*TickRecord, error], limit int) (*QueryResult, error) {
	return e.run(recs, limit)
}

func (e *Expr) run(recs iter.Seq2[*TickRecord, error], limit int) (*QueryResult, error) {
	limit = max(1, limit)
	res := &QueryResult{Scope: e.scope, Expression: e.text, Limit: limit}
	var err error
	if e.scope == ScopeTicks {
		err = e.runTicks(recs, res)
	} else {
		err = e.runEntities(recs, res)
	}
	if err != nil {
		return nil, err
	}
	res.Truncated = res.MatchCount > len(res.Rows)
	return res, nil
}

func (e *Expr) runTicks(recs iter.Seq2[*TickRecord, error], res *QueryResult) error {
	var prevL, prevR pyjson.Value // the prev() sides' values at the previous row
	first := true
	for rec, err := range recs {
		if err != nil {
			return err
		}
		l, curL := e.left.tickSide(rec, first, prevL)
		r, curR := e.right.tickSide(rec, first, prevR)
		if compare(l, e.op, r) {
			res.MatchCount++
			if len(res.Rows) < res.Limit {
				s := Summarize(rec)
				res.Rows = append(res.Rows, QueryRow{TickIndex: int64(rec.TickIndex), Left: pyStr(l), Right: pyStr(r), value: s.value()})
			}
		}
		prevL, prevR, first = curL, curR, false
	}
	return nil
}

// tickSide evaluates one side on rec; for prev() it returns the previous
// row's value and this row's (to keep for the next row).
func (o *operand) tickSide(rec *TickRecord, first bool, prev pyjson.Value) (val, keep pyjson.Value) {
	switch o.kind {
	case operandField:
		return o.path.tickValue(rec), pyjson.Value{}
	case operandPrev:
		cur := o.path.tickValue(rec)
		if first {
			return pyjson.NullValue(), cur
		}
		return prev, cur
	}
	return o.lit, pyjson.Value{}
}

func (o *operand) entitySide(tick int64, pool int, row reflect.Value) pyjson.Value {
	switch o.kind {
	case operandField:
		return o.path.entityValue(tick, pool, row)
	case operandPrev:
		return pyjson.NullValue() // there is no previous context for entities
	}
	return o.lit
}

func (e *Expr) runEntities(recs iter.Seq2[*TickRecord, error], res *QueryResult) error {
	for rec, err := range recs {
		if err != nil {
			return err
		}
		t := int64(rec.TickIndex)
		s := &rec.Channels.EntitySamples
		for i := range s.Creatures {
			e.entityRow(res, t, 0, reflect.ValueOf(&s.Creatures[i]), int64(s.Creatures[i].UID), s.Creatures[i].PoolKind)
		}
		for i := range s.Projectiles {
			e.entityRow(res, t, 1, reflect.ValueOf(&s.Projectiles[i]), int64(s.Projectiles[i].UID), s.Projectiles[i].PoolKind)
		}
		for i := range s.SecondaryProjectiles {
			e.entityRow(res, t, 2, reflect.ValueOf(&s.SecondaryProjectiles[i]), int64(s.SecondaryProjectiles[i].UID), s.SecondaryProjectiles[i].PoolKind)
		}
		for i := range s.Bonuses {
			e.entityRow(res, t, 3, reflect.ValueOf(&s.Bonuses[i]), int64(s.Bonuses[i].UID), s.Bonuses[i].PoolKind)
		}
	}
	return nil
}

func (e *Expr) entityRow(res *QueryResult, tick int64, pool int, row reflect.Value, uid int64, kind string) {
	l := e.left.entitySide(tick, pool, row)
	r := e.right.entitySide(tick, pool, row)
	if !compare(l, e.op, r) {
		return
	}
	res.MatchCount++
	if len(res.Rows) >= res.Limit {
		return
	}
	fields := toValue(row.Elem()).Builtins()
	v := pyjson.NewMap()
	v.Keys = make([]string, 0, len(fields.Keys)+1)
	v.Vals = make([]pyjson.Value, 0, len(fields.Keys)+1)
	v.Set("tick_index", pyjson.IntValue(tick))
	for i, k := range fields.Keys {
		v.Set(k, fields.Vals[i])
	}
	res.Rows = append(res.Rows, QueryRow{TickIndex: tick, PoolKind: kind, UID: uid, Left: pyStr(l), Right: pyStr(r), value: v})
}
