package schema7

// The three types below have fields whose defaults are not Go zero values
// (owner_id = -1, stage_index = -1, write_kind = "snapshot", …). Their wire
// code is generated for an unexported twin struct with the same fields and
// tags (checkpoint.go, canonical.go; the conversions below only compile while
// the fields agree, and a test compares the tags); their UnmarshalMsg sets the
// defaults before decoding so that absent keys read as the reference reads
// them.

// ReplayDeathLedgerEntry is one death of a checkpoint.
type ReplayDeathLedgerEntry struct {
	CreatureIndex Int   `msg:"creature_index"` // creature pool index
	TypeID        Int   `msg:"type_id"`        // creature type
	RewardValue   Float `msg:"reward_value"`
	XPAwarded     Int   `msg:"xp_awarded"`
	OwnerID       Int   `msg:"owner_id"` // default -1
}

// NewReplayDeathLedgerEntry returns an entry holding the reference defaults.
func NewReplayDeathLedgerEntry() ReplayDeathLedgerEntry { return ReplayDeathLedgerEntry{OwnerID: -1} }

// MarshalMsg implements msgp.Marshaler.
func (z *ReplayDeathLedgerEntry) MarshalMsg(b []byte) ([]byte, error) {
	return (*replayDeathLedgerEntryFields)(z).MarshalMsg(b)
}

// UnmarshalMsg implements msgp.Unmarshaler; absent keys take their defaults.
func (z *ReplayDeathLedgerEntry) UnmarshalMsg(b []byte) ([]byte, error) {
	*z = NewReplayDeathLedgerEntry()
	return (*replayDeathLedgerEntryFields)(z).UnmarshalMsg(b)
}

// Msgsize implements msgp.Sizer.
func (z *ReplayDeathLedgerEntry) Msgsize() int { return (*replayDeathLedgerEntryFields)(z).Msgsize() }

// ReplayTutorialSnapshot is the tutorial state (mode 8). Every key has a
// default; the non-zero ones are noted.
type ReplayTutorialSnapshot struct {
	StageIndex             Int     `msg:"stage_index"` // default -1
	StageTimerMs           Int     `msg:"stage_timer_ms"`
	StageTransitionTimerMs Int     `msg:"stage_transition_timer_ms"` // default -1000
	HintIndex              Int     `msg:"hint_index"`                // default -1
	HintAlpha              Int     `msg:"hint_alpha"`
	HintFadeIn             bool    `msg:"hint_fade_in"`
	RepeatSpawnCount       Int     `msg:"repeat_spawn_count"`
	HintBonusCreatureRef   NullInt `msg:"hint_bonus_creature_ref"` // int | None
	PromptText             string  `msg:"prompt_text"`
	PromptAlpha            Float   `msg:"prompt_alpha"`
	HintText               string  `msg:"hint_text"`
	HintAlphaOverlay       Float   `msg:"hint_alpha_overlay"`
}

// NewReplayTutorialSnapshot returns a snapshot holding the reference defaults.
func NewReplayTutorialSnapshot() ReplayTutorialSnapshot {
	return ReplayTutorialSnapshot{StageIndex: -1, StageTransitionTimerMs: -1000, HintIndex: -1}
}

// MarshalMsg implements msgp.Marshaler.
func (z *ReplayTutorialSnapshot) MarshalMsg(b []byte) ([]byte, error) {
	return (*replayTutorialSnapshotFields)(z).MarshalMsg(b)
}

// UnmarshalMsg implements msgp.Unmarshaler; absent keys take their defaults.
func (z *ReplayTutorialSnapshot) UnmarshalMsg(b []byte) ([]byte, error) {
	*z = NewReplayTutorialSnapshot()
	return (*replayTutorialSnapshotFields)(z).UnmarshalMsg(b)
}

// Msgsize implements msgp.Sizer.
func (z *ReplayTutorialSnapshot) Msgsize() int { return (*replayTutorialSnapshotFields)(z).Msgsize() }

// TimingSampleRow is one timing sample of the timing_samples channel. Only
// tick_index is required; the Null* fields default to None. Unknown keys are
// rejected.
type TimingSampleRow struct {
	TickIndex              Int        `msg:"tick_index"`
	GameplayFrame          NullInt    `msg:"gameplay_frame"`
	Phase                  string     `msg:"phase"`      // default ""
	WriteKind              string     `msg:"write_kind"` // default "snapshot"
	FrameDtF32             NullFloat  `msg:"frame_dt_f32"`
	FrameDtMsI32           NullInt    `msg:"frame_dt_ms_i32"`
	FrameDtMsF32           NullFloat  `msg:"frame_dt_ms_f32"`
	TimeScaleActiveEntry   NullBool   `msg:"time_scale_active_entry"`
	TimeScaleActiveCurrent NullBool   `msg:"time_scale_active_current"`
	TimeScaleFactor        NullFloat  `msg:"time_scale_factor"`
	BonusReflexBoostTimer  NullFloat  `msg:"bonus_reflex_boost_timer"`
	ModeFn                 NullString `msg:"mode_fn"`
	PlayerIndex            NullInt    `msg:"player_index"`
}

// NewTimingSampleRow returns a row holding the reference defaults.
func NewTimingSampleRow() TimingSampleRow { return TimingSampleRow{WriteKind: "snapshot"} }

// MarshalMsg implements msgp.Marshaler.
func (z *TimingSampleRow) MarshalMsg(b []byte) ([]byte, error) {
	return (*timingSampleRowFields)(z).MarshalMsg(b)
}

// UnmarshalMsg implements msgp.Unmarshaler; absent keys take their defaults.
func (z *TimingSampleRow) UnmarshalMsg(b []byte) ([]byte, error) {
	*z = NewTimingSampleRow()
	return (*timingSampleRowFields)(z).UnmarshalMsg(b)
}

// Msgsize implements msgp.Sizer.
func (z *TimingSampleRow) Msgsize() int { return (*timingSampleRowFields)(z).Msgsize() }
