package schema7

import "math"

// DemoTick returns a synthetic but fully populated schema-v7 row for tick t
// of a run seeded with seed: one player, up to four creatures, projectiles,
// a bonus, two MSVC-CRT rand() draws and a timing sample — the shape of the
// reference's 300-tick vector (about 2.5 kB of msgpack). It exists for
// samples, examples and benchmarks; nothing in it is game data.
func DemoTick(t int64, seed uint32) TickRecord {
	state := seed
	for range t % 64 {
		state = state*214013 + 2531011
	}
	rng := make([]RngStreamRow, 2)
	for i := range rng {
		before := state
		state = state*214013 + 2531011
		rng[i] = RngStreamRow{
			TickCallIndex: Int(i + 1), Value15: Int(state >> 16 & 0x7fff),
			StateBeforeU32: Int(before), StateAfterU32: Int(state),
			CallerStatic: NullString{"0x004281a2", i == 0},
		}
	}
	elapsed := t * 50 / 3
	x := float64(float32(400 + 40*math.Sin(float64(t)/30)))
	y := float64(float32(300 + 40*math.Cos(float64(t)/30)))
	nc := int(t % 5)
	creatures := make([]CreatureEntitySample, nc)
	for i := range creatures {
		creatures[i] = CreatureEntitySample{
			UID: Int(i), Generation: 1, PoolKind: "creature", Index: Int(i), Active: true, TypeID: Int(i % 3),
			HP: Float(20 - float64(t%8)*0.5), Pos: SnapshotVec2{Float(x + float64(i)*10), Float(y - float64(i)*7)},
			Flags: 4, AIMode: 1, LinkIndex: -1, Heading: Float(float32(float64(t) * 0.01)), TargetHeading: 1.5,
			OrbitAngle: 0.25, OrbitRadius: 32, LifecycleStage: 1,
		}
	}
	usage := make([]Int, 53)
	usage[1] = Int(t / 7)
	timing := NewTimingSampleRow()
	timing.TickIndex = Int(t)
	timing.GameplayFrame = NullInt{t + 1, true}
	timing.Phase = "gpur_enter"
	timing.FrameDtF32 = NullFloat{float64(float32(1.0 / 60)), true}
	timing.FrameDtMsI32 = NullInt{16, true}
	timing.FrameDtMsF32 = NullFloat{float64(float32(1000.0 / 60)), true}
	timing.ModeFn = NullString{"gameplay_update_and_render", true}
	timing.PlayerIndex = NullInt{0, true}
	death := NewReplayDeathLedgerEntry()
	death.CreatureIndex, death.TypeID, death.RewardValue, death.XPAwarded = 3, 18, 75, 10
	var deaths []ReplayDeathLedgerEntry
	if t%40 == 39 {
		deaths = append(deaths, death)
	}
	round4 := func(f float64) Float { return Float(math.Round(f*1e4) / 1e4) }
	return TickRecord{
		TickIndex: Int(t), ElapsedMs: Int(elapsed), DtMsI32: 16, ModeID: 1,
		Channels: ReplayTickChannels{
			Checkpoint: ReplayCheckpoint{
				TickIndex: Int(t), RngState: Int(state), ElapsedMs: Int(elapsed), ScoreXP: Int(t * 3), Kills: Int(t / 40),
				CreatureCount: Int(nc), PerkPending: 0,
				Players:     []ReplayPlayerCheckpoint{{Pos: Vec2{round4(x), round4(y)}, Health: 100, WeaponID: 1, Ammo: 12, Experience: Int(t * 3), Level: 1}},
				BonusTimers: IntMap{{"4", 0}, {"9", 0}, {"2", 0}, {"6", 0}, {"11", 0}},
				Deaths:      deaths,
				Perk:        ReplayPerkSnapshot{Choices: []Int{}, PlayerNonzeroCounts: [][][]Int{{}}},
				Events:      ReplayEventSummary{HitCount: Int(nc), SfxHead: []string{}, HitHead: []ReplayHitSummaryEntry{}},
			},
			SimState: SimStateSnapshot{
				Gameplay: SnapshotGameplay{ModeID: 1, QuestStageMajor: -1, QuestStageMinor: -1,
					Status: SnapshotStatus{WeaponUsageCounts: usage}},
				Players: []SnapshotPlayer{{Pos: SnapshotVec2{Float(x), Float(y)}, Health: 100,
					Weapon:     SnapshotWeapon{WeaponID: 1, Ammo: 12, ClipSize: 12, ReloadTimerMax: 1.2},
					Experience: Int(t * 3), Level: 1}},
			},
			EntitySamples: EntitySamplesSnapshot{
				Creatures: creatures,
				Projectiles: []ProjectileEntitySample{{UID: 11, Generation: 1, PoolKind: "projectile", Index: 11, Active: true,
					TypeID: 4, Angle: 0.25, Pos: SnapshotVec2{Float(x), Float(y)}, Vel: SnapshotVec2{3, 4}, LifeTimer: 0.5,
					SpeedScale: 1, DamagePool: 8, HitRadius: 1.5, TravelBudget: 9, OwnerID: -100}},
				SecondaryProjectiles: []SecondaryProjectileEntitySample{},
				Bonuses: []BonusEntitySample{{UID: 2, Generation: 1, PoolKind: "bonus", Index: 2, Active: true, BonusID: 9,
					TimeLeft: Float(10 - float64(t%10)), TimeMax: 10, Pos: SnapshotVec2{100, 120}, Amount: 1}},
			},
			RngStream:     rng,
			TimingSamples: []TimingSampleRow{timing},
		},
		PhaseMarkers: []string{"gpur_enter", "gpur_exit"},
	}
}
