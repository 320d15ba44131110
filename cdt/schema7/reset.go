package schema7

// reuse returns s emptied, keeping its array with every element zeroed so
// that a decode into it starts from zero values.
func reuse[T any](s []T) []T {
	clear(s[:cap(s)])
	return s[:0]
}

// reset sets r to its zero value but keeps the arrays of its slices (and its
// optional snapshots), so decoding the next row into r allocates only what
// the row needs beyond them.
func (r *TickRecord) reset() {
	c := &r.Channels
	cp, es := &c.Checkpoint, &c.EntitySamples
	phase := reuse(r.PhaseMarkers)
	players := reuse(cp.Players)
	bonus := reuse(cp.BonusTimers)
	deaths := reuse(cp.Deaths)
	choices := reuse(cp.Perk.Choices)
	counts := cp.Perk.PlayerNonzeroCounts[:0] // every element is decoded in full: keep the inner arrays
	sfx := reuse(cp.Events.SfxHead)
	hits := reuse(cp.Events.HitHead)
	tutorial := cp.Tutorial
	if tutorial != nil {
		*tutorial = ReplayTutorialSnapshot{}
	}
	typo := cp.Typo
	if typo != nil {
		*typo = ReplayTypoSnapshot{ActiveNames: reuse(typo.ActiveNames)}
	}
	simPlayers := reuse(c.SimState.Players)
	usage := reuse(c.SimState.Gameplay.Status.WeaponUsageCounts)
	creatures := reuse(es.Creatures)
	projectiles := reuse(es.Projectiles)
	secondary := reuse(es.SecondaryProjectiles)
	bonuses := reuse(es.Bonuses)
	rng := reuse(c.RngStream)
	timing := reuse(c.TimingSamples)

	*r = TickRecord{PhaseMarkers: phase}
	cp.Players, cp.BonusTimers, cp.Deaths = players, bonus, deaths
	cp.Perk.Choices, cp.Perk.PlayerNonzeroCounts = choices, counts
	cp.Events.SfxHead, cp.Events.HitHead = sfx, hits
	cp.Tutorial, cp.Typo = tutorial, typo
	c.SimState.Players, c.SimState.Gameplay.Status.WeaponUsageCounts = simPlayers, usage
	es.Creatures, es.Projectiles, es.SecondaryProjectiles, es.Bonuses = creatures, projectiles, secondary, bonuses
	c.RngStream, c.TimingSamples = rng, timing
}
