package schema7

//msgp:limit arrays:8192 maps:4096

// The canonical channel structs reject unknown keys on decode (the reference
// declares them forbid_unknown_fields): the strictgen step of go generate
// turns the generated decoders' skip of unknown keys into ErrUnknownField.

// SimStateSnapshot is the sim_state channel.
type SimStateSnapshot struct {
	Gameplay SnapshotGameplay `msg:"gameplay"`
	Players  []SnapshotPlayer `msg:"players"`
}

// SnapshotGameplay is the gameplay part of SimStateSnapshot.
type SnapshotGameplay struct {
	ModeID           Int                 `msg:"mode_id"`
	QuestStageMajor  Int                 `msg:"quest_stage_major"`
	QuestStageMinor  Int                 `msg:"quest_stage_minor"`
	PerkPendingCount Int                 `msg:"perk_pending_count"`
	PerkChoicesDirty bool                `msg:"perk_choices_dirty"`
	BonusTimers      SnapshotBonusTimers `msg:"bonus_timers"`
	Status           SnapshotStatus      `msg:"status"`
}

// SnapshotBonusTimers are the global bonus timers in milliseconds.
type SnapshotBonusTimers struct {
	WeaponPowerUpMs    Int `msg:"weapon_power_up_ms"`
	ReflexBoostMs      Int `msg:"reflex_boost_ms"`
	EnergizerMs        Int `msg:"energizer_ms"`
	DoubleExperienceMs Int `msg:"double_experience_ms"`
	FreezeMs           Int `msg:"freeze_ms"`
}

// SnapshotStatus is the persistent status part of SnapshotGameplay.
type SnapshotStatus struct {
	QuestUnlockIndex     Int   `msg:"quest_unlock_index"`
	QuestUnlockIndexFull Int   `msg:"quest_unlock_index_full"`
	WeaponUsageCounts    []Int `msg:"weapon_usage_counts"`
}

// SnapshotPlayer is one player of SimStateSnapshot.
type SnapshotPlayer struct {
	Index      Int            `msg:"index"`
	Pos        SnapshotVec2   `msg:"pos"`
	Health     Float          `msg:"health"`
	Weapon     SnapshotWeapon `msg:"weapon"`
	Experience Int            `msg:"experience"`
	Level      Int            `msg:"level"`
}

// SnapshotWeapon is a player's weapon state.
type SnapshotWeapon struct {
	WeaponID       Int   `msg:"weapon_id"`
	Ammo           Float `msg:"ammo"`
	ClipSize       Int   `msg:"clip_size"`
	ReloadActive   bool  `msg:"reload_active"`
	ReloadTimer    Float `msg:"reload_timer"`
	ReloadTimerMax Float `msg:"reload_timer_max"`
	ShotCooldown   Float `msg:"shot_cooldown"`
}

// SnapshotVec2 is a position or velocity.
type SnapshotVec2 struct {
	X Float `msg:"x"`
	Y Float `msg:"y"`
}

// EntitySamplesSnapshot is the entity_samples channel.
type EntitySamplesSnapshot struct {
	Creatures            []CreatureEntitySample            `msg:"creatures"`
	Projectiles          []ProjectileEntitySample          `msg:"projectiles"`
	SecondaryProjectiles []SecondaryProjectileEntitySample `msg:"secondary_projectiles"`
	Bonuses              []BonusEntitySample               `msg:"bonuses"`
}

// CreatureEntitySample is one active creature slot.
type CreatureEntitySample struct {
	UID            Int          `msg:"uid"`
	Generation     Int          `msg:"generation"`
	PoolKind       string       `msg:"pool_kind"`
	Index          Int          `msg:"index"`
	Active         bool         `msg:"active"`
	TypeID         Int          `msg:"type_id"`
	HP             Float        `msg:"hp"`
	Pos            SnapshotVec2 `msg:"pos"`
	Flags          Int          `msg:"flags"`
	AIMode         Int          `msg:"ai_mode"`
	LinkIndex      Int          `msg:"link_index"`
	Heading        Float        `msg:"heading"`
	TargetHeading  Float        `msg:"target_heading"`
	OrbitAngle     Float        `msg:"orbit_angle"`
	OrbitRadius    Float        `msg:"orbit_radius"`
	LifecycleStage Float        `msg:"lifecycle_stage"`
}

// ProjectileEntitySample is one active projectile slot.
type ProjectileEntitySample struct {
	UID          Int          `msg:"uid"`
	Generation   Int          `msg:"generation"`
	PoolKind     string       `msg:"pool_kind"`
	Index        Int          `msg:"index"`
	Active       bool         `msg:"active"`
	TypeID       Int          `msg:"type_id"`
	Angle        Float        `msg:"angle"`
	Pos          SnapshotVec2 `msg:"pos"`
	Vel          SnapshotVec2 `msg:"vel"`
	LifeTimer    Float        `msg:"life_timer"`
	SpeedScale   Float        `msg:"speed_scale"`
	DamagePool   Float        `msg:"damage_pool"`
	HitRadius    Float        `msg:"hit_radius"`
	TravelBudget Float        `msg:"travel_budget"`
	OwnerID      Int          `msg:"owner_id"`
}

// SecondaryProjectileEntitySample is one active secondary projectile slot.
type SecondaryProjectileEntitySample struct {
	UID        Int          `msg:"uid"`
	Generation Int          `msg:"generation"`
	PoolKind   string       `msg:"pool_kind"`
	Index      Int          `msg:"index"`
	Active     bool         `msg:"active"`
	TypeID     Int          `msg:"type_id"`
	Angle      Float        `msg:"angle"`
	Pos        SnapshotVec2 `msg:"pos"`
	Vel        SnapshotVec2 `msg:"vel"`
	Speed      Float        `msg:"speed"`
	TrailTimer Float        `msg:"trail_timer"`
	OwnerID    Int          `msg:"owner_id"`
	TargetID   Int          `msg:"target_id"`
}

// BonusEntitySample is one active bonus slot.
type BonusEntitySample struct {
	UID        Int          `msg:"uid"`
	Generation Int          `msg:"generation"`
	PoolKind   string       `msg:"pool_kind"`
	Index      Int          `msg:"index"`
	Active     bool         `msg:"active"`
	BonusID    Int          `msg:"bonus_id"`
	Picked     bool         `msg:"picked"`
	TimeLeft   Float        `msg:"time_left"`
	TimeMax    Float        `msg:"time_max"`
	Pos        SnapshotVec2 `msg:"pos"`
	Amount     Int          `msg:"amount"`
}

// rngStreamRowV7 is the schema-v7 wire form of RngStreamRow.
type rngStreamRowV7 struct {
	TickCallIndex  Int        `msg:"tick_call_index"`
	Value15        Int        `msg:"value_15"`
	StateBeforeU32 Int        `msg:"state_before_u32"`
	StateAfterU32  Int        `msg:"state_after_u32"`
	CallerStatic   NullString `msg:"caller_static"`
	BranchID       NullString `msg:"branch_id"`
}

// rngStreamRowV8 is the schema-v8 wire form of RngStreamRow (the only wire
// change from v7: caller_static and branch_id became caller_static_u32).
type rngStreamRowV8 struct {
	TickCallIndex   Int     `msg:"tick_call_index"`
	Value15         Int     `msg:"value_15"`
	StateBeforeU32  Int     `msg:"state_before_u32"`
	StateAfterU32   Int     `msg:"state_after_u32"`
	CallerStaticU32 NullInt `msg:"caller_static_u32"`
}

// timingSampleRowFields is the wire form of TimingSampleRow.
type timingSampleRowFields struct {
	TickIndex              Int        `msg:"tick_index"`
	GameplayFrame          NullInt    `msg:"gameplay_frame"`
	Phase                  string     `msg:"phase"`
	WriteKind              string     `msg:"write_kind"`
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
