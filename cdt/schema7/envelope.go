package schema7

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file envelope.go -o envelope_gen.go -io=false -tests=false
//go:generate go run github.com/tinylib/msgp@v1.6.5 -unexported -file checkpoint.go -o checkpoint_gen.go -io=false -tests=false
//go:generate go run github.com/tinylib/msgp@v1.6.5 -unexported -file canonical.go -o canonical_gen.go -io=false -tests=false
//go:generate go run ./internal/strictgen -intern -inline envelope_gen.go
//go:generate go run ./internal/strictgen -intern -inline checkpoint_gen.go
//go:generate go run ./internal/strictgen -strict -intern -inline canonical_gen.go

//msgp:limit arrays:8192 maps:4096

// TraceMeta is the META payload. Unknown keys are ignored on decode.
type TraceMeta struct {
	TraceFormatVersion Int      `msg:"trace_format_version"`
	TraceSchemaVersion Int      `msg:"trace_schema_version"`
	CreatedUTC         string   `msg:"created_utc"`
	Producer           AnyMap   `msg:"producer"`
	Source             AnyMap   `msg:"source"`
	Channels           []string `msg:"channels"`
	ChannelVersions    IntMap   `msg:"channel_versions"`
	TickRange          IntMap   `msg:"tick_range"`
	Config             AnyMap   `msg:"config"`
}

// TickBlock is the TICK payload: the rows of one chunk.
type TickBlock struct {
	StartTick Int          `msg:"start_tick"`
	EndTick   Int          `msg:"end_tick"`
	Ticks     []TickRecord `msg:"ticks"`
}

// TickRecord is one tick row. Wire order puts phase_markers after channels.
type TickRecord struct {
	TickIndex    Int                `msg:"tick_index"`
	ElapsedMs    Int                `msg:"elapsed_ms"`
	DtMsI32      Int                `msg:"dt_ms_i32"`
	ModeID       Int                `msg:"mode_id"`
	Channels     ReplayTickChannels `msg:"channels"`
	PhaseMarkers []string           `msg:"phase_markers"`
}

// ReplayTickChannels holds the five schema-v7 channels of a row. Unknown keys
// are ignored at this level; the canonical channel structs reject them.
type ReplayTickChannels struct {
	Checkpoint    ReplayCheckpoint      `msg:"checkpoint"`
	SimState      SimStateSnapshot      `msg:"sim_state"`
	EntitySamples EntitySamplesSnapshot `msg:"entity_samples"`
	RngStream     []RngStreamRow        `msg:"rng_stream"`
	TimingSamples []TimingSampleRow     `msg:"timing_samples"`
}

// TickBlockIndexEntry is one footer index entry.
type TickBlockIndexEntry struct {
	StartTick       Int  `msg:"start_tick"`
	EndTick         Int  `msg:"end_tick"`
	FileOffset      Int  `msg:"file_offset"`
	CompressedLen   Int  `msg:"compressed_len"`
	UncompressedLen Int  `msg:"uncompressed_len"`
	Checksum        Uint `msg:"checksum"`
}

// TraceFooter is the FOTR payload.
type TraceFooter struct {
	TraceFormatVersion Int                   `msg:"trace_format_version"`
	TickBlocks         []TickBlockIndexEntry `msg:"tick_blocks"`
	TickCount          Int                   `msg:"tick_count"`
	FirstTick          Int                   `msg:"first_tick"`
	LastTick           Int                   `msg:"last_tick"`
	ChannelCounts      IntMap                `msg:"channel_counts"`
}
