package schema7

//msgp:limit arrays:8192 maps:4096

// ReplayCheckpoint is the checkpoint channel (replay checkpoint format 4).
// Unknown keys are ignored on decode.
type ReplayCheckpoint struct {
	TickIndex     Int                      `msg:"tick_index"`
	RngState      Int                      `msg:"rng_state"`
	ElapsedMs     Int                      `msg:"elapsed_ms"`
	ScoreXP       Int                      `msg:"score_xp"`
	Kills         Int                      `msg:"kills"`
	CreatureCount Int                      `msg:"creature_count"`
	PerkPending   Int                      `msg:"perk_pending"`
	Players       []ReplayPlayerCheckpoint `msg:"players"`
	// BonusTimers keeps the writer's insertion order ("4","9","2","6","11").
	BonusTimers IntMap                   `msg:"bonus_timers"`
	Deaths      []ReplayDeathLedgerEntry `msg:"deaths"`
	Perk        ReplayPerkSnapshot       `msg:"perk"`
	Events      ReplayEventSummary       `msg:"events"`
	Tutorial    *ReplayTutorialSnapshot  `msg:"tutorial"`
	Typo        *ReplayTypoSnapshot      `msg:"typo"`
}

// ReplayPlayerCheckpoint is one player of a checkpoint.
type ReplayPlayerCheckpoint struct {
	Pos        Vec2     `msg:"pos"`
	Health     Float    `msg:"health"`
	WeaponID   WeaponID `msg:"weapon_id"`
	Ammo       Float    `msg:"ammo"`
	Experience Int      `msg:"experience"`
	Level      Int      `msg:"level"`
}

// Vec2 is grim.geom.Vec2 (both fields default to 0.0).
type Vec2 struct {
	X Float `msg:"x"`
	Y Float `msg:"y"`
}

// replayDeathLedgerEntryFields is the wire form of ReplayDeathLedgerEntry.
type replayDeathLedgerEntryFields struct {
	CreatureIndex Int   `msg:"creature_index"`
	TypeID        Int   `msg:"type_id"`
	RewardValue   Float `msg:"reward_value"`
	XPAwarded     Int   `msg:"xp_awarded"`
	OwnerID       Int   `msg:"owner_id"`
}

// ReplayPerkSnapshot is the perk state of a checkpoint.
type ReplayPerkSnapshot struct {
	PendingCount        Int       `msg:"pending_count"`
	ChoicesDirty        bool      `msg:"choices_dirty"`
	Choices             []Int     `msg:"choices"`
	PlayerNonzeroCounts [][][]Int `msg:"player_nonzero_counts"`
}

// ReplayEventSummary counts a tick's events and keeps the first few.
type ReplayEventSummary struct {
	HitCount    Int                     `msg:"hit_count"`
	PickupCount Int                     `msg:"pickup_count"`
	SfxCount    Int                     `msg:"sfx_count"`
	SfxHead     []string                `msg:"sfx_head"`
	HitHead     []ReplayHitSummaryEntry `msg:"hit_head"`
}

// ReplayHitSummaryEntry is one hit of ReplayEventSummary.HitHead.
type ReplayHitSummaryEntry struct {
	TypeID Int  `msg:"type_id"`
	Origin Vec2 `msg:"origin"`
	Hit    Vec2 `msg:"hit"`
	Target Vec2 `msg:"target"`
}

// replayTutorialSnapshotFields is the wire form of ReplayTutorialSnapshot.
type replayTutorialSnapshotFields struct {
	StageIndex             Int     `msg:"stage_index"`
	StageTimerMs           Int     `msg:"stage_timer_ms"`
	StageTransitionTimerMs Int     `msg:"stage_transition_timer_ms"`
	HintIndex              Int     `msg:"hint_index"`
	HintAlpha              Int     `msg:"hint_alpha"`
	HintFadeIn             bool    `msg:"hint_fade_in"`
	RepeatSpawnCount       Int     `msg:"repeat_spawn_count"`
	HintBonusCreatureRef   NullInt `msg:"hint_bonus_creature_ref"`
	PromptText             string  `msg:"prompt_text"`
	PromptAlpha            Float   `msg:"prompt_alpha"`
	HintText               string  `msg:"hint_text"`
	HintAlphaOverlay       Float   `msg:"hint_alpha_overlay"`
}

// ReplayTypoSnapshot is the typo-mode state (mode 4).
type ReplayTypoSnapshot struct {
	InputText       string                `msg:"input_text"`
	SubmitCount     Int                   `msg:"submit_count"`
	MatchCount      Int                   `msg:"match_count"`
	SpawnCooldownMs Int                   `msg:"spawn_cooldown_ms"`
	ActiveNames     []ReplayTypoNameEntry `msg:"active_names"`
}

// ReplayTypoNameEntry is one active typo name.
type ReplayTypoNameEntry struct {
	CreatureIndex Int    `msg:"creature_index"`
	Name          string `msg:"name"`
}
