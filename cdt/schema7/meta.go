package schema7

import (
	"slices"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt"
)

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
	chans := slices.Clone(cdt.RequiredChannels)
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
