package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
)

// The CDT inspection commands: the reference's `crimson dbg tick`, `entity`,
// `query` and `focus`, top-level like diff and bisect. --json prints the
// reference's object as its CLI prints it (one line, sorted keys); without
// it a readable text view.

// The four commands; help.go's table lists them after bisect.
var (
	tickCommand = &command{
		name: "tick", args: "[--json] TRACE.cdt TICK", summary: "one CDT tick summarised",
		doc: `Summarises tick TICK of a CDT trace as the reference's "dbg tick" does:
tick_index, elapsed_ms, dt_ms_i32, mode_id, phase_markers, the checkpoint, the
number of rows of each entity pool (entity_counts), of rng_stream and of
timing_samples, and the tick's event counts (event_count_total and
top_event_types, "name:count" by descending count).

The tick is looked up as the reference does: the first chunk whose range covers
it, the first row of that chunk with that tick. Exit 1 when the trace has no such
tick ("tick N not found") or cannot be read.`,
		examples: []string{"tracecat tick --json run.cdt 237"},
		run:      (*cli).cmdTick,
	}
	entityCommand = &command{
		name: "entity", args: "[--json] [--ticks RANGE] TRACE.cdt UID", summary: "one CDT entity uid across ticks",
		doc: `Lists every entity row whose uid is UID, in any pool (creatures, projectiles,
secondary_projectiles, bonuses), tick by tick, as the reference's "dbg entity"
does: {entity_uid, pool_kind, spawn_tick, despawn_tick, samples}, where pool_kind
and spawn_tick come from the first sample and despawn_tick from the last. Rows of
different pools that share the uid are all listed.

Exit 1 when no row has the uid in the range ("entity uid N not found in requested
range") or the trace cannot be read.`,
		examples: []string{"tracecat entity --ticks 200..240 run.cdt 1"},
		run:      (*cli).cmdEntity,
	}
	queryCommand = &command{
		name: "query", args: "[--json] [--limit N] TRACE.cdt EXPRESSION", summary: "CDT ticks or entity rows matching a condition",
		doc: `Runs the reference's "dbg query" language over a CDT trace, streaming:

  ticks where LHS OP RHS       each tick's summary (as "tracecat tick" prints it)
  entities where LHS OP RHS    each entity row, with its tick_index

OP is one of == != >= <= > <. A side is prev(PATH) (the previous tick's value;
None on the first tick and for entities), true/false/none/null, a Python literal
(1_000, 0x1f, 2.5e3, 'text', [1, 2], {'k': 1}) or a dotted PATH into the summary
or row (checkpoint.score_xp, entity_counts.creatures, pos.x, bonus_timers keys
such as checkpoint.bonus_timers.4); a path that leads nowhere is None. When both
sides are numbers (bools count as 0/1, numeric strings as their value) they
compare numerically; otherwise == and != compare values and the orderings compare
the sides' text, as the reference's Python does (so "nosuch > 0" is true: "None"
sorts after "0").

Prints the match count and the first --limit rows. Exit 2 when the expression does
not parse (the message points at the position), 1 when the trace cannot be read,
0 otherwise, matches or not.`,
		examples: []string{
			`tracecat query run.cdt "ticks where checkpoint.kills > prev(checkpoint.kills)"`,
			`tracecat query --json --limit 10 run.cdt "entities where hp < 5"`,
		},
		run: (*cli).cmdQuery,
	}
	focusCommand = &command{
		name: "focus", args: "[--json] --tick TICK GOLDEN.cdt CANDIDATE.cdt", summary: "one CDT tick of two traces, channel by channel",
		doc: `Compares one tick of a golden and a candidate CDT trace channel by channel, as
the reference's "dbg focus" does, and reports every channel whether it differs or
not: the checkpoint's field differences, the rng_stream comparison (common prefix,
draw counts, missing and extra tails), the uids present in each entity pool
(missing and extra uids, at most 32 each), and entity_samples, sim_state and
timing_samples as {ok, detail}. Run "tracecat diff" first to find the tick.

Exit 0 when the tick agrees, 1 when it diverges (like diff), when either trace
lacks the tick ("tick N missing in one of the traces") or cannot be read.`,
		examples: []string{"tracecat focus --tick 237 golden.cdt candidate.cdt"},
		run:      (*cli).cmdFocus,
	}
)

// printJSON writes b and a newline to standard output.
func (c *cli) printJSON(b []byte) int {
	if _, err := fmt.Fprintf(c.stdout, "%s\n", b); err != nil {
		return c.fail("-", err)
	}
	return exitOK
}

func (c *cli) cmdTick(args []string) int {
	fs := c.flags("tick")
	asJSON := fs.Bool("json", false, "print the reference's summary object on one line (sorted keys)")
	pos, code, ok := c.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	n, has, err := parseInt(pos[1])
	if err != nil || !has {
		return c.usageError("tick", "TICK: not an integer: %q", pos[1])
	}
	r, done, err := c.openCDT(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	defer done()
	s, err := schema7.Tick(r, n)
	if err != nil {
		return c.fail(pos[0], err)
	}
	if *asJSON {
		return c.printJSON(s.SortedJSON())
	}
	w := bufio.NewWriter(c.stdout)
	cp := s.Checkpoint
	fmt.Fprintf(w, "tick %d  elapsed_ms=%d dt_ms_i32=%d mode_id=%d phase_markers=[%s]\n",
		s.TickIndex, s.ElapsedMs, s.DtMsI32, s.ModeID, strings.Join(s.PhaseMarkers, ","))
	fmt.Fprintf(w, "checkpoint  score_xp=%d kills=%d creature_count=%d perk_pending=%d rng_state=%d players=%d deaths=%d\n",
		cp.ScoreXP, cp.Kills, cp.CreatureCount, cp.PerkPending, cp.RngState, len(cp.Players), len(cp.Deaths))
	ec := s.EntityCounts
	fmt.Fprintf(w, "entity_counts  creatures=%d projectiles=%d secondary_projectiles=%d bonuses=%d\n",
		ec.Creatures, ec.Projectiles, ec.SecondaryProjectiles, ec.Bonuses)
	fmt.Fprintf(w, "rows  rng_stream=%d timing_samples=%d\n", s.RngStreamCount, s.TimingSamplesCount)
	fmt.Fprintf(w, "events  total=%d  %s\n", s.EventCountTotal, strings.Join(s.TopEventTypes, " "))
	if err := w.Flush(); err != nil {
		return c.fail("-", err)
	}
	return exitOK
}

func (c *cli) cmdEntity(args []string) int {
	fs := c.flags("entity")
	asJSON := fs.Bool("json", false, "print the reference's history object on one line (sorted keys)")
	ticks := fs.String("ticks", "", "tick `RANGE`, inclusive: A..B, A.., ..B or N (default: every tick)")
	pos, code, ok := c.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	from, to, err := schema7.ParseTickRange(*ticks)
	if err != nil {
		return c.usageError("entity", "--ticks: %v", strings.TrimPrefix(err.Error(), "schema7: "))
	}
	uid, has, err := parseInt(pos[1])
	if err != nil || !has {
		return c.usageError("entity", "UID: not an integer: %q", pos[1])
	}
	r, done, err := c.openCDT(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	defer done()
	h, err := schema7.Entity(r, uid, from, to)
	if err != nil {
		return c.fail(pos[0], err)
	}
	if *asJSON {
		return c.printJSON(h.SortedJSON())
	}
	w := bufio.NewWriter(c.stdout)
	fmt.Fprintf(w, "uid %d  pool_kind=%s spawn_tick=%d despawn_tick=%d samples=%d\n",
		h.EntityUID, h.PoolKind, h.SpawnTick, h.DespawnTick, len(h.Samples))
	for i := range h.Samples {
		s := &h.Samples[i]
		fmt.Fprintf(w, "tick %d  %s", s.TickIndex, s.PoolKind())
		switch {
		case s.Creature != nil:
			e := s.Creature
			fmt.Fprintf(w, " index=%d generation=%d type_id=%d hp=%v pos=(%v,%v) ai_mode=%d heading=%v",
				e.Index, e.Generation, e.TypeID, e.HP, e.Pos.X, e.Pos.Y, e.AIMode, e.Heading)
		case s.Projectile != nil:
			e := s.Projectile
			fmt.Fprintf(w, " index=%d generation=%d type_id=%d pos=(%v,%v) vel=(%v,%v) life_timer=%v owner_id=%d",
				e.Index, e.Generation, e.TypeID, e.Pos.X, e.Pos.Y, e.Vel.X, e.Vel.Y, e.LifeTimer, e.OwnerID)
		case s.SecondaryProjectile != nil:
			e := s.SecondaryProjectile
			fmt.Fprintf(w, " index=%d generation=%d type_id=%d pos=(%v,%v) vel=(%v,%v) owner_id=%d target_id=%d",
				e.Index, e.Generation, e.TypeID, e.Pos.X, e.Pos.Y, e.Vel.X, e.Vel.Y, e.OwnerID, e.TargetID)
		case s.Bonus != nil:
			e := s.Bonus
			fmt.Fprintf(w, " index=%d generation=%d bonus_id=%d picked=%v time_left=%v pos=(%v,%v) amount=%d",
				e.Index, e.Generation, e.BonusID, e.Picked, e.TimeLeft, e.Pos.X, e.Pos.Y, e.Amount)
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return c.fail("-", err)
	}
	return exitOK
}

func (c *cli) cmdQuery(args []string) int {
	fs := c.flags("query")
	asJSON := fs.Bool("json", false, "print the reference's result object on one line (sorted keys)")
	limit := fs.Int("limit", schema7.DefaultQueryLimit, "keep and print the first `N` matching rows, at least 1 (every match is counted)")
	pos, code, ok := c.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	if *limit < 1 {
		return c.usageError("query", "--limit must be at least 1")
	}
	e, err := schema7.ParseQuery(pos[1])
	if err != nil {
		var qe *schema7.QueryError
		if errors.As(err, &qe) {
			fmt.Fprintf(c.stderr, "tracecat query: %s\n", strings.TrimPrefix(err.Error(), "schema7: query: "))
			if !strings.Contains(qe.Expr, "\n") && utf8.ValidString(qe.Expr) {
				fmt.Fprintf(c.stderr, "  %s\n  %s^\n", qe.Expr, strings.Repeat(" ", qe.Column()-1))
			}
		} else {
			fmt.Fprintf(c.stderr, "tracecat query: %v\n", err)
		}
		return exitUsage
	}
	r, done, err := c.openCDT(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	defer done()
	res, err := e.Run(r, *limit)
	if err != nil {
		return c.fail(pos[0], err)
	}
	if *asJSON {
		return c.printJSON(res.SortedJSON())
	}
	w := bufio.NewWriter(c.stdout)
	fmt.Fprintf(w, "%s: %d match", res.Expression, res.MatchCount)
	if res.MatchCount != 1 {
		w.WriteString("es")
	}
	if res.Truncated {
		fmt.Fprintf(w, " (first %d shown)", len(res.Rows))
	}
	w.WriteByte('\n')
	left, op, right := e.Condition()
	litL, litR := e.Literals()
	side := func(text string, lit bool, value string) string {
		if lit {
			return text
		}
		return text + "=" + value
	}
	for _, row := range res.Rows {
		fmt.Fprintf(w, "tick %d", row.TickIndex)
		if e.Scope() == schema7.ScopeEntities {
			fmt.Fprintf(w, "  %s uid=%d", row.PoolKind, row.UID)
		}
		fmt.Fprintf(w, "  %s %s %s\n", side(left, litL, row.Left), op, side(right, litR, row.Right))
	}
	if err := w.Flush(); err != nil {
		return c.fail("-", err)
	}
	return exitOK
}

func (c *cli) cmdFocus(args []string) int {
	fs := c.flags("focus")
	asJSON := fs.Bool("json", false, "print the reference's report object on one line (sorted keys)")
	tickFlag := fs.String("tick", "", "the `TICK` index to compare (required)")
	pos, code, ok := c.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	n, has, err := parseInt(*tickFlag)
	if err != nil {
		return c.usageError("focus", "--tick: %v", err)
	}
	if !has {
		return c.usageError("focus", "--tick is required")
	}
	var files [2]*cdt.File
	for i, p := range pos {
		r, done, err := c.openCDT(p)
		if err != nil {
			return c.fail(p, err)
		}
		defer done()
		files[i] = r
	}
	rep, err := schema7.Focus(files[0], files[1], n)
	if err != nil {
		return c.fail(pos[0]+" vs "+pos[1], err)
	}
	if *asJSON {
		if code := c.printJSON(rep.SortedJSON()); code != exitOK {
			return code
		}
	} else if err := writeFocusText(c.stdout, rep); err != nil {
		return c.fail("-", err)
	}
	if rep.Diverged {
		return exitInvalid
	}
	return exitOK
}

func writeFocusText(out io.Writer, rep *schema7.FocusReport) error {
	w := bufio.NewWriter(out)
	if rep.Diverged {
		fmt.Fprintf(w, "tick %d: diverged\n", rep.TickIndex)
	} else {
		fmt.Fprintf(w, "tick %d: ok, every channel agrees\n", rep.TickIndex)
	}
	paths := map[string][]string{}
	for _, m := range rep.Mismatches {
		paths[m.Channel] = m.Paths
	}
	status := func(ok bool) string {
		if ok {
			return "ok"
		}
		return "differs"
	}
	list := func(p []string) string {
		if len(p) == 0 {
			return ""
		}
		const show = 6
		s := strings.Join(p[:min(len(p), show)], ", ")
		if len(p) > show {
			s += fmt.Sprintf(", … (%d in all)", len(p))
		}
		return ": " + s
	}
	fmt.Fprintf(w, "  checkpoint      %s (%d field differences)%s\n", status(rep.CheckpointDiffCount == 0), rep.CheckpointDiffCount, list(paths["checkpoint"]))
	g := rep.Rng
	fmt.Fprintf(w, "  rng_stream      %s: prefix_match_len=%d expected_calls=%d actual_calls=%d missing_tail=%d extra_tail=%d\n",
		status(rep.RngOK), g.PrefixMatchLen, g.ExpectedCalls, g.ActualCalls, g.MissingTail, g.ExtraTail)
	fmt.Fprintf(w, "  sim_state       %s%s\n", status(rep.SimStateOK), list(paths["sim_state"]))
	fmt.Fprintf(w, "  entity_samples  %s%s\n", status(rep.EntitySamplesOK), list(paths["entity_samples"]))
	fmt.Fprintf(w, "  timing_samples  %s (%d vs %d rows)%s\n", status(rep.TimingSamplesOK), rep.TimingExpectedCount, rep.TimingCandidateCount, list(paths["timing_samples"]))
	for _, p := range rep.EntityPresence {
		fmt.Fprintf(w, "  %-22s uids %d vs %d", p.Pool, p.ExpectedCount, p.CandidateCount)
		if len(p.MissingUIDs) > 0 {
			fmt.Fprintf(w, "  missing %v", p.MissingUIDs)
		}
		if len(p.ExtraUIDs) > 0 {
			fmt.Fprintf(w, "  extra %v", p.ExtraUIDs)
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}
