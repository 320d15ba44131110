package schema7

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// ErrNotFound is matched (errors.Is) by the errors of the inspection
// commands when what they look for is not in the trace: Tick ("schema7: tick N
// not found"), Entity ("schema7: entity uid N not found in requested range") and
// Focus ("schema7: tick N missing in one of the traces"). The texts after the
// prefix are the reference's.
var ErrNotFound = errors.New("schema7: not found")

// notFound is an ErrNotFound with the reference's message.
type notFound struct{ msg string }

func (e *notFound) Error() string        { return "schema7: " + e.msg }
func (e *notFound) Is(target error) bool { return target == ErrNotFound }

// EntityPools are the names of the entity_samples pools in the reference's
// order (ENTITY_SAMPLE_KINDS).
var EntityPools = [4]string{"creatures", "projectiles", "secondary_projectiles", "bonuses"}

// EntityCounts is the number of rows in each entity_samples pool of a tick.
type EntityCounts struct {
	Creatures            int
	Projectiles          int
	SecondaryProjectiles int
	Bonuses              int
}

// TickSummary is the reference's tick summary (dbg tick, and the row of a
// "ticks where" query): the row's scalars and phase markers, its checkpoint,
// the size of each entity pool, of rng_stream and of timing_samples, and the
// tick's event counts.
type TickSummary struct {
	TickIndex    int64
	ElapsedMs    int64
	DtMsI32      int64
	ModeID       int64
	PhaseMarkers []string
	// Checkpoint is the row's checkpoint channel (shared with the record the
	// summary was made from).
	Checkpoint         *ReplayCheckpoint
	EntityCounts       EntityCounts
	RngStreamCount     int
	TimingSamplesCount int
	// EventCountTotal is hit_count + pickup_count + sfx_count.
	EventCountTotal int64
	// TopEventTypes are "name:count" for hit_count, pickup_count and
	// sfx_count, sorted by descending count then name (at most 8, as the
	// reference caps it).
	TopEventTypes []string
}

// Summarize returns the tick summary of rec. The summary shares rec's
// checkpoint and phase markers: it is valid as long as rec is not decoded
// into again.
func Summarize(rec *TickRecord) TickSummary {
	c := &rec.Channels
	s := TickSummary{
		TickIndex:    int64(rec.TickIndex),
		ElapsedMs:    int64(rec.ElapsedMs),
		DtMsI32:      int64(rec.DtMsI32),
		ModeID:       int64(rec.ModeID),
		PhaseMarkers: rec.PhaseMarkers,
		Checkpoint:   &c.Checkpoint,
		EntityCounts: EntityCounts{
			Creatures: len(c.EntitySamples.Creatures), Projectiles: len(c.EntitySamples.Projectiles),
			SecondaryProjectiles: len(c.EntitySamples.SecondaryProjectiles), Bonuses: len(c.EntitySamples.Bonuses),
		},
		RngStreamCount:     len(c.RngStream),
		TimingSamplesCount: len(c.TimingSamples),
	}
	counts := eventCounts(&c.Checkpoint.Events)
	for _, ec := range counts {
		s.EventCountTotal += ec.count
	}
	s.TopEventTypes = make([]string, 0, len(counts))
	for _, ec := range counts {
		s.TopEventTypes = append(s.TopEventTypes, ec.name+":"+strconv.FormatInt(ec.count, 10))
	}
	return s
}

type eventCount struct {
	name  string
	count int64
}

// eventCounts are the tick's event counters sorted by (−count, name), the
// order of top_event_types.
func eventCounts(e *ReplayEventSummary) [3]eventCount {
	c := [3]eventCount{{"hit_count", int64(e.HitCount)}, {"pickup_count", int64(e.PickupCount)}, {"sfx_count", int64(e.SfxCount)}}
	slices.SortFunc(c[:], func(a, b eventCount) int {
		switch {
		case a.count > b.count:
			return -1
		case a.count < b.count:
			return 1
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return c
}

// Tick reads tick n of r with the reference's lookup (the first footer block
// covering n, the first row of it with that tick) and summarizes it. A tick
// that is not there is an ErrNotFound "schema7: tick N not found".
func Tick(r *cdt.File, n int64) (*TickSummary, error) {
	row, ok, err := r.Tick(n)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &notFound{fmt.Sprintf("tick %d not found", n)}
	}
	rec := new(TickRecord)
	if err := rec.Decode(row.Raw); err != nil {
		return nil, err
	}
	s := Summarize(rec)
	return &s, nil
}

func stringList(v []string) pyjson.Value {
	out := pyjson.Value{Kind: pyjson.List, Items: make([]pyjson.Value, len(v))}
	for i, s := range v {
		out.Items[i] = pyjson.StringValue(s)
	}
	return out
}

func (c EntityCounts) value() pyjson.Value {
	v := pyjson.NewMap()
	v.Set("creatures", pyjson.IntValue(int64(c.Creatures)))
	v.Set("projectiles", pyjson.IntValue(int64(c.Projectiles)))
	v.Set("secondary_projectiles", pyjson.IntValue(int64(c.SecondaryProjectiles)))
	v.Set("bonuses", pyjson.IntValue(int64(c.Bonuses)))
	return v
}

// value is the summary as the reference's builtins object, keys in its order.
func (s *TickSummary) value() pyjson.Value {
	v := pyjson.NewMap()
	v.Set("tick_index", pyjson.IntValue(s.TickIndex))
	v.Set("elapsed_ms", pyjson.IntValue(s.ElapsedMs))
	v.Set("dt_ms_i32", pyjson.IntValue(s.DtMsI32))
	v.Set("mode_id", pyjson.IntValue(s.ModeID))
	v.Set("phase_markers", stringList(s.PhaseMarkers))
	if s.Checkpoint != nil {
		v.Set("checkpoint", toValueOf(s.Checkpoint).Builtins())
	} else {
		v.Set("checkpoint", pyjson.NewMap())
	}
	v.Set("entity_counts", s.EntityCounts.value())
	v.Set("rng_stream_count", pyjson.IntValue(int64(s.RngStreamCount)))
	v.Set("timing_samples_count", pyjson.IntValue(int64(s.TimingSamplesCount)))
	v.Set("event_count_total", pyjson.IntValue(s.EventCountTotal))
	v.Set("top_event_types", stringList(s.TopEventTypes))
	return v
}

// JSON returns the summary as json.dumps(indent=2) writes the reference's
// object (what --json-out writes), keys in the reference's order.
func (s *TickSummary) JSON() []byte { return pyjson.Encode(nil, s.value(), pyjson.Style{Indent: 2}) }

// SortedJSON returns the summary on one line with sorted keys, as the
// reference's `dbg tick --json` prints it (json.dumps(sort_keys=True)).
func (s *TickSummary) SortedJSON() []byte {
	return pyjson.Encode(nil, s.value(), pyjson.Style{SortKeys: true})
}

// MarshalJSON implements json.Marshaler with the reference's key order.
func (s *TickSummary) MarshalJSON() ([]byte, error) {
	return pyjson.Encode(nil, s.value(), pyjson.Style{Compact: true}), nil
}
