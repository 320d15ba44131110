package schema7

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// DiffOptions bound the ticks compared; nil means unbounded (the reference's
// --tick-start / --tick-end, inclusive).
type DiffOptions struct {
	TickStart *int64
	TickEnd   *int64
}

// DiffReport is the result of Diff; JSON renders it exactly as the
// reference's diff_report_to_json + json.dumps(indent=2).
type DiffReport struct {
	Status       string // "ok" or "diverged"
	CheckedCount int
	TickStart    *int64
	TickEnd      *int64
	Mismatch     *Mismatch // nil when Status is "ok"
}

// Mismatch is the first divergence found.
type Mismatch struct {
	// Kind is "tick_mismatch" (channels differ at TickIndex), "missing_tick"
	// (TickIndex is in one trace only) or "missing_channel" (a required channel
	// is not declared in a trace's meta; TickIndex is -1).
	Kind      string
	TickIndex int64
	// Channels lists every mismatching channel at TickIndex in the order
	// checkpoint, rng_stream, sim_state, entity_samples, timing_samples.
	Channels []ChannelMismatch
	detail   pyjson.Value
}

// ChannelMismatch is one channel that differs at the divergent tick.
type ChannelMismatch struct {
	Kind    string // e.g. "checkpoint_field_mismatch", "rng_stream_mismatch"
	Channel string
	// Paths are the differing field paths found by the strict comparison
	// (empty for rng_stream and count/uid-only entity differences).
	Paths  []string
	detail pyjson.Value
}

// DetailJSON returns the channel's detail object as compact JSON.
func (c ChannelMismatch) DetailJSON() []byte {
	return pyjson.Encode(nil, c.detail, pyjson.Style{Compact: true})
}

// DetailJSON returns the mismatch's detail object as compact JSON ("null"
// for a missing_tick).
func (m *Mismatch) DetailJSON() []byte {
	return pyjson.Encode(nil, m.detail, pyjson.Style{Compact: true})
}

func (m *Mismatch) value() pyjson.Value {
	v := pyjson.NewMap()
	v.Set("kind", pyjson.StringValue(m.Kind))
	v.Set("tick_index", pyjson.IntValue(m.TickIndex))
	v.Set("detail", m.detail)
	return v
}

func optInt(p *int64) pyjson.Value {
	if p == nil {
		return pyjson.NullValue()
	}
	return pyjson.IntValue(*p)
}

func (r *DiffReport) value() pyjson.Value {
	v := pyjson.NewMap()
	v.Set("schema_version", pyjson.IntValue(1))
	v.Set("status", pyjson.StringValue(r.Status))
	v.Set("checked_count", pyjson.IntValue(int64(r.CheckedCount)))
	v.Set("tick_start", optInt(r.TickStart))
	v.Set("tick_end", optInt(r.TickEnd))
	if r.Mismatch == nil {
		v.Set("mismatch", pyjson.NullValue())
	} else {
		v.Set("mismatch", r.Mismatch.value())
	}
	return v
}

// JSON returns the report as the reference CLI writes it (json.dumps with
// indent=2, no trailing newline).
func (r *DiffReport) JSON() []byte {
	return pyjson.Encode(nil, r.value(), pyjson.Style{Indent: 2})
}

// MarshalJSON implements json.Marshaler with the reference's key order.
func (r *DiffReport) MarshalJSON() ([]byte, error) {
	return pyjson.Encode(nil, r.value(), pyjson.Style{Compact: true}), nil
}

// Diverged reports whether a mismatch was found.
func (r *DiffReport) Diverged() bool { return r.Mismatch != nil }

// loadRows reads the rows of r in [start, end] into tick → raw row; a
// duplicate tick keeps the last row, as the reference's dict does.
func loadRows(r *cdt.File, o DiffOptions) (map[int64][]byte, error) {
	from, to := int64(-1<<63), int64(1<<63-1)
	if o.TickStart != nil {
		from = *o.TickStart
	}
	if o.TickEnd != nil {
		to = *o.TickEnd
	}
	rows := make(map[int64][]byte)
	var arena []byte
	for row, err := range r.Range(from, to) {
		if err != nil {
			return nil, err
		}
		if len(arena)+len(row.Raw) > cap(arena) {
			arena = make([]byte, 0, max(1<<20, len(row.Raw)))
		}
		start := len(arena)
		arena = append(arena, row.Raw...)
		rows[row.Tick] = arena[start:len(arena):len(arena)]
	}
	return rows, nil
}

// Diff compares two traces tick by tick with the reference's semantics (dbg
// diff): required channels must be declared by both; the sorted union of
// ticks in range is walked; a tick present on one side only is a
// missing_tick; otherwise every channel is compared exactly (no float
// tolerance; a NaN equals nothing, itself included, so a trace holding one
// diverges from itself there, as in the reference) and all mismatching
// channels of the first divergent tick are reported.
func Diff(expected, actual *cdt.File, o DiffOptions) (*DiffReport, error) {
	rep := &DiffReport{Status: "ok", TickStart: o.TickStart, TickEnd: o.TickEnd}
	if m := missingChannel(expected.Meta().Channels, actual.Meta().Channels); m != nil {
		rep.Status, rep.Mismatch = "diverged", m
		return rep, nil
	}
	er, err := loadRows(expected, o)
	if err != nil {
		return nil, err
	}
	ar, err := loadRows(actual, o)
	if err != nil {
		return nil, err
	}
	ticks := make([]int64, 0, len(er)+len(ar))
	for t := range er {
		ticks = append(ticks, t)
	}
	for t := range ar {
		if _, ok := er[t]; !ok {
			ticks = append(ticks, t)
		}
	}
	slices.Sort(ticks)
	var erec, arec TickRecord
	for _, t := range ticks {
		if o.TickEnd != nil && t > *o.TickEnd {
			break
		}
		rep.CheckedCount++
		eraw, eok := er[t]
		araw, aok := ar[t]
		if !eok || !aok {
			rep.Status = "diverged"
			rep.Mismatch = &Mismatch{Kind: "missing_tick", TickIndex: t, detail: pyjson.NullValue()}
			return rep, nil
		}
		if err := erec.Decode(eraw); err != nil {
			return nil, err
		}
		if err := arec.Decode(araw); err != nil {
			return nil, err
		}
		if chs := CompareChannels(&erec.Channels, &arec.Channels); len(chs) > 0 {
			rep.Status = "diverged"
			rep.Mismatch = tickMismatch(t, chs)
			return rep, nil
		}
	}
	return rep, nil
}

func tickMismatch(t int64, chs []ChannelMismatch) *Mismatch {
	d := pyjson.NewMap()
	d.Set("mismatch_count", pyjson.IntValue(int64(len(chs))))
	list := pyjson.ListValue()
	for _, c := range chs {
		m := pyjson.NewMap()
		m.Set("kind", pyjson.StringValue(c.Kind))
		m.Set("channel", pyjson.StringValue(c.Channel))
		m.Set("detail", c.detail)
		list.Items = append(list.Items, m)
	}
	d.Set("mismatches", list)
	return &Mismatch{Kind: "tick_mismatch", TickIndex: t, Channels: chs, detail: d}
}

func missingChannel(e, a []string) *Mismatch {
	for _, ch := range requiredChannels {
		eh, ah := slices.Contains(e, ch), slices.Contains(a, ch)
		if eh && ah {
			continue
		}
		d := pyjson.NewMap()
		d.Set("channel", pyjson.StringValue(ch))
		d.Set("expected_has", pyjson.BoolValue(eh))
		d.Set("actual_has", pyjson.BoolValue(ah))
		return &Mismatch{Kind: "missing_channel", TickIndex: -1, detail: d}
	}
	return nil
}

// CompareChannels compares the five channels of one tick and returns every
// mismatching channel in the reference's order.
func CompareChannels(e, a *ReplayTickChannels) []ChannelMismatch {
	var out []ChannelMismatch
	if c, ok := compareCheckpoint(&e.Checkpoint, &a.Checkpoint); ok {
		out = append(out, c)
	}
	if c, ok := compareRng(e.RngStream, a.RngStream); ok {
		out = append(out, c)
	}
	if c, ok := compareStrict("sim_state", "sim_state_mismatch", "sim_state", &e.SimState, &a.SimState); ok {
		out = append(out, c)
	}
	if c, ok := compareEntities(&e.EntitySamples, &a.EntitySamples); ok {
		out = append(out, c)
	}
	if c, ok := compareStrict("timing_samples", "timing_samples_mismatch", "timing_samples", e.TimingSamples, a.TimingSamples); ok {
		out = append(out, c)
	}
	return out
}

func paths(diffs []fieldDiff) []string {
	out := make([]string, len(diffs))
	for i, d := range diffs {
		out[i] = d.Path
	}
	return out
}

func compareCheckpoint(e, a *ReplayCheckpoint) (ChannelMismatch, bool) {
	diffs := strictCompare("", toValueOf(e).Builtins(), toValueOf(a).Builtins(), nil)
	if len(diffs) == 0 {
		return ChannelMismatch{}, false
	}
	payload := pyjson.NewMap()
	payload.Set("mismatches", diffsValue(diffs))
	d := pyjson.NewMap()
	d.Set("diff_count", pyjson.IntValue(int64(len(diffs))))
	d.Set("payload", payload)
	d.Set("pretty", pyjson.StringValue(prettyJSON(payload)))
	return ChannelMismatch{Kind: "checkpoint_field_mismatch", Channel: "checkpoint", Paths: paths(diffs), detail: d}, true
}

// strictDetail is {diff_count, mismatches, pretty}.
func strictDetail(diffs []fieldDiff) pyjson.Value {
	list := diffsValue(diffs)
	d := pyjson.NewMap()
	d.Set("diff_count", pyjson.IntValue(int64(len(diffs))))
	d.Set("mismatches", list)
	d.Set("pretty", pyjson.StringValue(prettyJSON(list)))
	return d
}

func compareStrict(channel, kind, root string, e, a any) (ChannelMismatch, bool) {
	diffs := strictCompare(root, toValueOf(e), toValueOf(a), nil)
	if len(diffs) == 0 {
		return ChannelMismatch{}, false
	}
	return ChannelMismatch{Kind: kind, Channel: channel, Paths: paths(diffs), detail: strictDetail(diffs)}, true
}

// rngKey is the compared part of a row: (tick_call_index, value_15,
// state_before_u32, state_after_u32), plus caller_static_u32 for schema v8.
type rngKey struct {
	call, value, before, after int64
	caller                     NullInt
	v8                         bool
}

func keyOf(r *RngStreamRow) rngKey {
	k := rngKey{call: int64(r.TickCallIndex), value: int64(r.Value15), before: int64(r.StateBeforeU32), after: int64(r.StateAfterU32)}
	if r.Schema8 {
		k.caller, k.v8 = r.CallerStaticU32, true
	}
	return k
}

func rngRowValue(r *RngStreamRow) pyjson.Value {
	v := pyjson.NewMap()
	v.Set("tick_call_index", pyjson.IntValue(int64(r.TickCallIndex)))
	v.Set("value_15", pyjson.IntValue(int64(r.Value15)))
	v.Set("state_before_u32", pyjson.IntValue(int64(r.StateBeforeU32)))
	v.Set("state_after_u32", pyjson.IntValue(int64(r.StateAfterU32)))
	if r.Schema8 {
		v.Set("caller_static_u32", r.CallerStaticU32.pyValue())
		if r.CallerStaticU32.Valid {
			v.Set("caller_static_hex", pyjson.StringValue(fmt.Sprintf("0x%08x", uint32(r.CallerStaticU32.V))))
		} else {
			v.Set("caller_static_hex", pyjson.NullValue())
		}
		return v
	}
	v.Set("caller_static", r.CallerStatic.pyValue())
	v.Set("branch_id", r.BranchID.pyValue())
	return v
}

// compareRng is the prefix comparison of (tick_call_index, value_15,
// state_before_u32, state_after_u32) tuples. missing_tail and extra_tail
// are max(0, len(expected)−len(actual)) and max(0, len(actual)−len(expected)),
// as the reference computes them.
func compareRng(e, a []RngStreamRow) (ChannelMismatch, bool) {
	n := 0
	for n < len(e) && n < len(a) && keyOf(&e[n]) == keyOf(&a[n]) {
		n++
	}
	if n == len(e) && n == len(a) {
		return ChannelMismatch{}, false
	}
	d := pyjson.NewMap()
	d.Set("prefix_match_len", pyjson.IntValue(int64(n)))
	d.Set("expected_calls", pyjson.IntValue(int64(len(e))))
	d.Set("actual_calls", pyjson.IntValue(int64(len(a))))
	// The tails are the length difference, not what is left after the
	// common prefix: every upstream compare_rng_stream computes
	// max(0, len(expected)-len(actual)) and max(0, len(actual)-len(expected)),
	// so two streams of one differing draw each report 0 and 0.
	d.Set("missing_tail", pyjson.IntValue(int64(max(0, len(e)-len(a)))))
	d.Set("extra_tail", pyjson.IntValue(int64(max(0, len(a)-len(e)))))
	if n < len(e) {
		d.Set("expected_first_mismatch", rngRowValue(&e[n]))
	}
	if n < len(a) {
		d.Set("actual_first_mismatch", rngRowValue(&a[n]))
	}
	return ChannelMismatch{Kind: "rng_stream_mismatch", Channel: "rng_stream", detail: d}, true
}

// entityPool is one pool of EntitySamplesSnapshot as generic rows.
type entityPool struct {
	name string
	uids []int64
	rows []pyjson.Value
}

func pools(s *EntitySamplesSnapshot) [4]entityPool {
	var p [4]entityPool
	p[0].name, p[1].name, p[2].name, p[3].name = "creatures", "projectiles", "secondary_projectiles", "bonuses"
	for i := range s.Creatures {
		p[0].uids = append(p[0].uids, int64(s.Creatures[i].UID))
		p[0].rows = append(p[0].rows, toValueOf(&s.Creatures[i]))
	}
	for i := range s.Projectiles {
		p[1].uids = append(p[1].uids, int64(s.Projectiles[i].UID))
		p[1].rows = append(p[1].rows, toValueOf(&s.Projectiles[i]))
	}
	for i := range s.SecondaryProjectiles {
		p[2].uids = append(p[2].uids, int64(s.SecondaryProjectiles[i].UID))
		p[2].rows = append(p[2].rows, toValueOf(&s.SecondaryProjectiles[i]))
	}
	for i := range s.Bonuses {
		p[3].uids = append(p[3].uids, int64(s.Bonuses[i].UID))
		p[3].rows = append(p[3].rows, toValueOf(&s.Bonuses[i]))
	}
	return p
}

func intList(v []int64) pyjson.Value {
	out := pyjson.ListValue()
	for _, x := range v {
		out.Items = append(out.Items, pyjson.IntValue(x))
	}
	return out
}

func duplicates(uids []int64) []int64 {
	s := slices.Clone(uids)
	slices.Sort(s)
	var d []int64
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] && (len(d) == 0 || d[len(d)-1] != s[i]) {
			d = append(d, s[i])
		}
	}
	return d
}

// byUID maps uid → row; a duplicate uid keeps the last row.
func byUID(p *entityPool) map[int64]pyjson.Value {
	m := make(map[int64]pyjson.Value, len(p.uids))
	for i, u := range p.uids {
		m[u] = p.rows[i]
	}
	return m
}

func compareEntities(e, a *EntitySamplesSnapshot) (ChannelMismatch, bool) {
	ep, ap := pools(e), pools(a)
	d := pyjson.NewMap()
	rowDiffs := pyjson.ListValue()
	var allPaths []string
	for k := range ep {
		x, y := &ep[k], &ap[k]
		if len(x.uids) != len(y.uids) {
			c := pyjson.NewMap()
			c.Set("expected", pyjson.IntValue(int64(len(x.uids))))
			c.Set("actual", pyjson.IntValue(int64(len(y.uids))))
			d.Set(x.name+"_count", c)
		}
		if dx, dy := duplicates(x.uids), duplicates(y.uids); len(dx) > 0 || len(dy) > 0 {
			c := pyjson.NewMap()
			c.Set("expected", intList(dx))
			c.Set("actual", intList(dy))
			d.Set(x.name+"_duplicate_uids", c)
		}
		em, am := byUID(x), byUID(y)
		var missing, extra, common []int64
		for u := range em {
			if _, ok := am[u]; ok {
				common = append(common, u)
			} else {
				missing = append(missing, u)
			}
		}
		for u := range am {
			if _, ok := em[u]; !ok {
				extra = append(extra, u)
			}
		}
		slices.Sort(missing)
		slices.Sort(extra)
		slices.SortFunc(common, cmp.Compare)
		if len(missing) > 0 || len(extra) > 0 {
			c := pyjson.NewMap()
			c.Set("missing", intList(missing))
			c.Set("extra", intList(extra))
			d.Set(x.name+"_uids", c)
		}
		for _, u := range common {
			root := "entity_samples." + x.name + "[uid=" + itoa(u) + "]"
			diffs := strictCompare(root, em[u], am[u], nil)
			if len(diffs) == 0 {
				continue
			}
			allPaths = append(allPaths, paths(diffs)...)
			rd := pyjson.NewMap()
			rd.Set("path", pyjson.StringValue(root))
			list := diffsValue(diffs)
			rd.Set("diff_count", pyjson.IntValue(int64(len(diffs))))
			rd.Set("mismatches", list)
			rd.Set("pretty", pyjson.StringValue(prettyJSON(list)))
			rowDiffs.Items = append(rowDiffs.Items, rd)
		}
	}
	if len(rowDiffs.Items) > 0 {
		d.Set("row_diffs", rowDiffs)
	}
	if len(d.Keys) == 0 {
		return ChannelMismatch{}, false
	}
	return ChannelMismatch{Kind: "entity_sample_mismatch", Channel: "entity_samples", Paths: allPaths, detail: d}, true
}
