package schema7

import (
	"slices"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt"
)

// requiredChannels are the five channels of schema v7, in the reference's
// TRACE_REQUIRED_CHANNELS order.
var requiredChannels = [...]string{"checkpoint", "sim_state", "entity_samples", "rng_stream", "timing_samples"}

// RequiredChannels returns the five channels every schema-v7 trace declares,
// in the reference's TRACE_REQUIRED_CHANNELS order: checkpoint, sim_state,
// entity_samples, rng_stream, timing_samples. The slice is the caller's.
func RequiredChannels() []string { return slices.Clone(requiredChannels[:]) }

// AnyString returns a free-form dict entry holding a string.
func AnyString(key, value string) AnyEntry {
	return AnyEntry{Key: key, Value: msgp.AppendString(nil, value)}
}

// AnyInt returns a free-form dict entry holding an int.
func AnyInt(key string, value int64) AnyEntry {
	return AnyEntry{Key: key, Value: appendInt(nil, value)}
}

// NewTraceMeta returns the META payload the reference recorder writes for
// schema 7: format 1, the five required channels (sorted, as `dbg record`
// writes them) at version 1, and the tick range of the rows to come.
func NewTraceMeta(createdUTC string, producer, source, config AnyMap, startTick, endTick, tickCount int64) TraceMeta {
	chans := RequiredChannels()
	slices.Sort(chans)
	versions := make(IntMap, len(chans))
	for i, c := range chans {
		versions[i] = IntEntry{c, 1}
	}
	return TraceMeta{
		TraceFormatVersion: cdt.FormatVersion,
		TraceSchemaVersion: SchemaVersion,
		CreatedUTC:         createdUTC,
		Producer:           producer,
		Source:             source,
		Channels:           chans,
		ChannelVersions:    versions,
		TickRange:          IntMap{{"start_tick", startTick}, {"end_tick", endTick}, {"tick_count", tickCount}},
		Config:             config,
	}
}
