package schema7

// The three types below have fields whose defaults are not Go zero values
// (owner_id = -1, stage_index = -1, write_kind = "snapshot", …). Their wire
// code is generated for an unexported twin struct; these wrappers set the
// defaults before decoding so that absent keys read as the reference reads them.

// ReplayDeathLedgerEntry is one death of a checkpoint: creature_index,
// type_id, reward_value (float), xp_awarded, owner_id (default -1).
type ReplayDeathLedgerEntry replayDeathLedgerEntryFields

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

// ReplayTutorialSnapshot is the tutorial state (mode 8): stage_index (-1),
// stage_timer_ms, stage_transition_timer_ms (-1000), hint_index (-1),
// hint_alpha, hint_fade_in, repeat_spawn_count, hint_bonus_creature_ref
// (int | None), prompt_text, prompt_alpha, hint_text, hint_alpha_overlay.
type ReplayTutorialSnapshot replayTutorialSnapshotFields

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

// TimingSampleRow is one timing sample: tick_index, gameplay_frame,
// phase (""), write_kind ("snapshot"), frame_dt_f32, frame_dt_ms_i32,
// frame_dt_ms_f32, time_scale_active_entry, time_scale_active_current,
// time_scale_factor, bonus_reflex_boost_timer, mode_fn, player_index (all
// nullable, default None). Unknown keys are rejected.
type TimingSampleRow timingSampleRowFields

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
