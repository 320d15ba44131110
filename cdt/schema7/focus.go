package schema7

import (
	"fmt"
	"slices"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// maxFocusUIDs caps the missing/extra uid lists of FocusReport.EntityPresence.
const maxFocusUIDs = 32

// EntityPresence compares the set of uids of one entity pool at the focus
// tick: counts of distinct uids on each side, and the uids only the golden
// trace (missing) or only the candidate (extra) has, ascending, at most 32
// each.
type EntityPresence struct {
	Pool           string // "creatures", "projectiles", "secondary_projectiles", "bonuses"
	ExpectedCount  int
	CandidateCount int
	MissingUIDs    []int64
	ExtraUIDs      []int64
	// Diverged is true when the uid sets differ.
	Diverged bool
}

// FocusReport is the reference's focus report (dbg focus): one tick of a
// golden and a candidate trace compared channel by channel, side by side.
type FocusReport struct {
	TickIndex int64
	// Diverged is true when any channel differs (or any pool's uid set).
	Diverged bool
	// Mismatches are the channels that differ, in Diff's order and with
	// Diff's details (checkpoint, rng_stream, sim_state, entity_samples,
	// timing_samples).
	Mismatches []ChannelMismatch
	// CheckpointDiffCount is the number of checkpoint field differences.
	CheckpointDiffCount int
	// RngOK, EntitySamplesOK, SimStateOK and TimingSamplesOK are true when
	// the channel is equal.
	RngOK, EntitySamplesOK, SimStateOK, TimingSamplesOK bool
	EntityPresence                                      [4]EntityPresence
	// TimingExpectedCount and TimingCandidateCount are the two sides'
	// timing_samples row counts.
	TimingExpectedCount, TimingCandidateCount int
	// Rng is the rng_stream comparison's counts (as in its detail).
	Rng RngCounts
}

// RngCounts summarises an rng_stream comparison: the length of the common
// prefix of draws, each side's number of draws, and the reference's tail
// counts max(0, expected−actual) and max(0, actual−expected).
type RngCounts struct {
	PrefixMatchLen, ExpectedCalls, ActualCalls, MissingTail, ExtraTail int
}

func rngCounts(e, a []RngStreamRow) RngCounts {
	n := 0
	for n < len(e) && n < len(a) && keyOf(&e[n]) == keyOf(&a[n]) {
		n++
	}
	return RngCounts{n, len(e), len(a), max(0, len(e)-len(a)), max(0, len(a)-len(e))}
}

// Focus compares tick n of golden and candidate (each read with the
// reference's lookup, see Tick) with Diff's channel comparisons and reports
// every channel, equal or not: the checkpoint field differences, the
// rng_stream comparison detail with its ok flag, each entity pool's uid
// presence, and entity_samples, sim_state and timing_samples as {ok,
// detail}. A tick absent from either trace is an ErrNotFound "schema7: tick N
// missing in one of the traces".
func Focus(golden, candidate *cdt.File, n int64) (*FocusReport, error) {
	var recs [2]TickRecord
	for i, r := range [2]*cdt.File{golden, candidate} {
		row, ok, err := r.Tick(n)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &notFound{fmt.Sprintf("tick %d missing in one of the traces", n)}
		}
		if err := recs[i].Decode(row.Raw); err != nil {
			return nil, err
		}
	}
	return FocusRecords(n, &recs[0], &recs[1]), nil
}

// FocusRecords is Focus on two decoded rows.
func FocusRecords(tick int64, e, a *TickRecord) *FocusReport {
	rep := &FocusReport{
		TickIndex: tick, Mismatches: CompareChannels(&e.Channels, &a.Channels),
		RngOK: true, EntitySamplesOK: true, SimStateOK: true, TimingSamplesOK: true,
		TimingExpectedCount: len(e.Channels.TimingSamples), TimingCandidateCount: len(a.Channels.TimingSamples),
		Rng: rngCounts(e.Channels.RngStream, a.Channels.RngStream),
	}
	for _, m := range rep.Mismatches {
		switch m.Channel {
		case "checkpoint":
			rep.CheckpointDiffCount = len(m.Paths)
		case "rng_stream":
			rep.RngOK = false
		case "sim_state":
			rep.SimStateOK = false
		case "entity_samples":
			rep.EntitySamplesOK = false
		case "timing_samples":
			rep.TimingSamplesOK = false
		}
	}
	ep, ap := pools(&e.Channels.EntitySamples), pools(&a.Channels.EntitySamples)
	diverged := len(rep.Mismatches) > 0
	for k := range ep {
		p := presence(ep[k].uids, ap[k].uids)
		p.Pool = EntityPools[k]
		rep.EntityPresence[k] = p
		diverged = diverged || p.Diverged
	}
	rep.Diverged = diverged
	return rep
}

func uidSet(uids []int64) []int64 {
	s := slices.Clone(uids)
	slices.Sort(s)
	return slices.Compact(s)
}

func presence(e, a []int64) EntityPresence {
	es, as := uidSet(e), uidSet(a)
	p := EntityPresence{ExpectedCount: len(es), CandidateCount: len(as), MissingUIDs: []int64{}, ExtraUIDs: []int64{}}
	for _, u := range es {
		if _, found := slices.BinarySearch(as, u); !found {
			p.MissingUIDs = append(p.MissingUIDs, u)
		}
	}
	for _, u := range as {
		if _, found := slices.BinarySearch(es, u); !found {
			p.ExtraUIDs = append(p.ExtraUIDs, u)
		}
	}
	p.Diverged = len(p.MissingUIDs) > 0 || len(p.ExtraUIDs) > 0 || len(es) != len(as)
	p.MissingUIDs = p.MissingUIDs[:min(len(p.MissingUIDs), maxFocusUIDs)]
	p.ExtraUIDs = p.ExtraUIDs[:min(len(p.ExtraUIDs), maxFocusUIDs)]
	return p
}

func (r *FocusReport) mismatch(channel string) (ChannelMismatch, bool) {
	for _, m := range r.Mismatches {
		if m.Channel == channel {
			return m, true
		}
	}
	return ChannelMismatch{}, false
}

// okDetail is {"ok": …, "detail": …} with detail null when equal.
func (r *FocusReport) okDetail(channel string, extra func(v *pyjson.Value)) pyjson.Value {
	m, found := r.mismatch(channel)
	v := pyjson.NewMap()
	v.Set("ok", pyjson.BoolValue(!found))
	if extra != nil {
		extra(&v)
	}
	if found {
		v.Set("detail", m.detail)
	} else {
		v.Set("detail", pyjson.NullValue())
	}
	return v
}

// value is the report object: the typed-era reference's focus_tick object
// without what schema v7 has no data for (policy, rng_marks, replay_step).
func (r *FocusReport) value() pyjson.Value {
	v := pyjson.NewMap()
	v.Set("tick_index", pyjson.IntValue(r.TickIndex))
	v.Set("diverged", pyjson.BoolValue(r.Diverged))
	v.Set("checkpoint_diff_count", pyjson.IntValue(int64(r.CheckpointDiffCount)))
	if m, ok := r.mismatch("checkpoint"); ok {
		d := pyjson.NewMap()
		payload, _ := m.detail.Get("payload")
		pretty, _ := m.detail.Get("pretty")
		d.Set("payload", payload)
		d.Set("pretty", pretty)
		v.Set("checkpoint_diff", d)
	} else {
		v.Set("checkpoint_diff", pyjson.NullValue())
	}
	rng := pyjson.NewMap()
	if m, ok := r.mismatch("rng_stream"); ok {
		rng.Keys = slices.Clone(m.detail.Keys)
		rng.Vals = slices.Clone(m.detail.Vals)
	}
	rng.Set("ok", pyjson.BoolValue(r.RngOK))
	v.Set("rng_stream", rng)
	pres := pyjson.NewMap()
	for _, p := range r.EntityPresence {
		o := pyjson.NewMap()
		o.Set("expected_count", pyjson.IntValue(int64(p.ExpectedCount)))
		o.Set("candidate_count", pyjson.IntValue(int64(p.CandidateCount)))
		o.Set("missing_uids", intList(p.MissingUIDs))
		o.Set("extra_uids", intList(p.ExtraUIDs))
		pres.Set(p.Pool, o)
	}
	v.Set("entity_presence", pres)
	v.Set("entity_samples", r.okDetail("entity_samples", nil))
	v.Set("sim_state", r.okDetail("sim_state", nil))
	v.Set("timing_samples", r.okDetail("timing_samples", func(o *pyjson.Value) {
		o.Set("expected_count", pyjson.IntValue(int64(r.TimingExpectedCount)))
		o.Set("candidate_count", pyjson.IntValue(int64(r.TimingCandidateCount)))
	}))
	return v
}

// JSON returns the report as json.dumps(indent=2) writes it, keys in the
// reference's order.
func (r *FocusReport) JSON() []byte { return pyjson.Encode(nil, r.value(), pyjson.Style{Indent: 2}) }

// SortedJSON returns the report on one line with sorted keys, as the
// reference's `dbg focus --json` prints it.
func (r *FocusReport) SortedJSON() []byte {
	return pyjson.Encode(nil, r.value(), pyjson.Style{SortKeys: true})
}

// MarshalJSON implements json.Marshaler with the reference's key order.
func (r *FocusReport) MarshalJSON() ([]byte, error) {
	return pyjson.Encode(nil, r.value(), pyjson.Style{Compact: true}), nil
}
