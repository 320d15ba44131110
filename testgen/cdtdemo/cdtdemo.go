// Package cdtdemo builds synthetic schema-v7 rows for tracecat's sample
// command, the schema7 tests and benchmarks. It is not game data and not
// part of the module's stable API (see package testgen).
package cdtdemo

import (
	"math"

	"github.com/tracecodec/tracecodec/cdt/schema7"
)

// Tick returns a synthetic but fully populated schema-v7 row for tick t
// of a run seeded with seed: one player, up to four creatures, projectiles,
// a bonus, two MSVC-CRT rand() draws and a timing sample — the shape of the
// reference's 300-tick vector (about 2.5 kB of msgpack).
func Tick(t int64, seed uint32) schema7.TickRecord {
	state := seed
	for range t % 64 {
		state = state*214013 + 2531011
	}
	rng := make([]schema7.RngStreamRow, 2)
	for i := range rng {
		before := state
		state = state*214013 + 2531011
		rng[i] = schema7.RngStreamRow{
			TickCallIndex: schema7.Int(i + 1), Value15: schema7.Int(state >> 16 & 0x7fff),
			StateBeforeU32: schema7.Int(before), StateAfterU32: schema7.Int(state),
			CallerStatic: schema7.NullString{V: "0x004281a2", Valid: i == 0},
		}
	}
	elapsed := t * 50 / 3
	x := float64(float32(400 + 40*math.Sin(float64(t)/30)))
	y := float64(float32(300 + 40*math.Cos(float64(t)/30)))
	nc := int(t % 5)
	creatures := make([]schema7.CreatureEntitySample, nc)
	for i := range creatures {
		creatures[i] = schema7.CreatureEntitySample{
			UID: schema7.Int(i), Generation: 1, PoolKind: "creature", Index: schema7.Int(i), Active: true, TypeID: schema7.Int(i % 3),
			HP: schema7.Float(20 - float64(t%8)*0.5), Pos: schema7.SnapshotVec2{X: schema7.Float(x + float64(i)*10), Y: schema7.Float(y - float64(i)*7)},
			Flags: 4, AIMode: 1, LinkIndex: -1, Heading: schema7.Float(float32(float64(t) * 0.01)), TargetHeading: 1.5,
			OrbitAngle: 0.25, OrbitRadius: 32, LifecycleStage: 1,
		}
	}
	usage := make([]schema7.Int, 53)
	usage[1] = schema7.Int(t / 7)
	timing := schema7.NewTimingSampleRow()
	timing.TickIndex = schema7.Int(t)
	timing.GameplayFrame = schema7.NullInt{V: t + 1, Valid: true}
	timing.Phase = "gpur_enter"
	timing.FrameDtF32 = schema7.NullFloat{V: float64(float32(1.0 / 60)), Valid: true}
	timing.FrameDtMsI32 = schema7.NullInt{V: 16, Valid: true}
	timing.FrameDtMsF32 = schema7.NullFloat{V: float64(float32(1000.0 / 60)), Valid: true}
	timing.ModeFn = schema7.NullString{V: "gameplay_update_and_render", Valid: true}
	timing.PlayerIndex = schema7.NullInt{V: 0, Valid: true}
	death := schema7.NewReplayDeathLedgerEntry()
	death.CreatureIndex, death.TypeID, death.RewardValue, death.XPAwarded = 3, 18, 75, 10
	var deaths []schema7.ReplayDeathLedgerEntry
	if t%40 == 39 {
		deaths = append(deaths, death)
	}
	round4 := func(f float64) schema7.Float { return schema7.Float(math.Round(f*1e4) / 1e4) }
	return schema7.TickRecord{
		TickIndex: schema7.Int(t), ElapsedMs: schema7.Int(elapsed), DtMsI32: 16, ModeID: 1,
		Channels: schema7.ReplayTickChannels{
			Checkpoint: schema7.ReplayCheckpoint{
				TickIndex: schema7.Int(t), RngState: schema7.Int(state), ElapsedMs: schema7.Int(elapsed), ScoreXP: schema7.Int(t * 3), Kills: schema7.Int(t / 40),
				CreatureCount: schema7.Int(nc), PerkPending: 0,
				Players:     []schema7.ReplayPlayerCheckpoint{{Pos: schema7.Vec2{X: round4(x), Y: round4(y)}, Health: 100, WeaponID: 1, Ammo: 12, Experience: schema7.Int(t * 3), Level: 1}},
				BonusTimers: schema7.IntMap{{Key: "4", Value: 0}, {Key: "9", Value: 0}, {Key: "2", Value: 0}, {Key: "6", Value: 0}, {Key: "11", Value: 0}},
				Deaths:      deaths,
				Perk:        schema7.ReplayPerkSnapshot{Choices: []schema7.Int{}, PlayerNonzeroCounts: [][][]schema7.Int{{}}},
				Events:      schema7.ReplayEventSummary{HitCount: schema7.Int(nc), SfxHead: []string{}, HitHead: []schema7.ReplayHitSummaryEntry{}},
			},
			SimState: schema7.SimStateSnapshot{
				Gameplay: schema7.SnapshotGameplay{ModeID: 1, QuestStageMajor: -1, QuestStageMinor: -1,
					Status: schema7.SnapshotStatus{WeaponUsageCounts: usage}},
				Players: []schema7.SnapshotPlayer{{Pos: schema7.SnapshotVec2{X: schema7.Float(x), Y: schema7.Float(y)}, Health: 100,
					Weapon:     schema7.SnapshotWeapon{WeaponID: 1, Ammo: 12, ClipSize: 12, ReloadTimerMax: 1.2},
					Experience: schema7.Int(t * 3), Level: 1}},
			},
			EntitySamples: schema7.EntitySamplesSnapshot{
				Creatures: creatures,
				Projectiles: []schema7.ProjectileEntitySample{{UID: 11, Generation: 1, PoolKind: "projectile", Index: 11, Active: true,
					TypeID: 4, Angle: 0.25, Pos: schema7.SnapshotVec2{X: schema7.Float(x), Y: schema7.Float(y)}, Vel: schema7.SnapshotVec2{X: 3, Y: 4}, LifeTimer: 0.5,
					SpeedScale: 1, DamagePool: 8, HitRadius: 1.5, TravelBudget: 9, OwnerID: -100}},
				SecondaryProjectiles: []schema7.SecondaryProjectileEntitySample{},
				Bonuses: []schema7.BonusEntitySample{{UID: 2, Generation: 1, PoolKind: "bonus", Index: 2, Active: true, BonusID: 9,
					TimeLeft: schema7.Float(10 - float64(t%10)), TimeMax: 10, Pos: schema7.SnapshotVec2{X: 100, Y: 120}, Amount: 1}},
			},
			RngStream:     rng,
			TimingSamples: []schema7.TimingSampleRow{timing},
		},
		PhaseMarkers: []string{"gpur_enter", "gpur_exit"},
	}
}
