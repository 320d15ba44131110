package schema7

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// ErrTickRange is wrapped by ParseTickRange's errors.
var ErrTickRange = errors.New("schema7: invalid tick range")

// tickRangeError is an ErrTickRange with the reference's message.
type tickRangeError struct{ msg string }

func (e *tickRangeError) Error() string        { return "schema7: " + e.msg }
func (e *tickRangeError) Is(target error) bool { return target == ErrTickRange }

// ParseTickRange parses the reference's --ticks syntax: "A..B", "A..",
// "..B", "N" (= N..N) or "" (everything), with Python int() syntax for each
// bound (surrounding spaces, a sign, digits with single underscores). An
// open bound is math.MinInt64 or math.MaxInt64. A start above the end is an
// error, as in the reference.
func ParseTickRange(s string) (from, to int64, err error) {
	from, to = math.MinInt64, math.MaxInt64
	raw := strings.TrimFunc(s, isPySpace)
	if raw == "" {
		return from, to, nil
	}
	left, right, ok := strings.Cut(raw, "..")
	if !ok {
		n, err := pyInt(raw)
		return n, n, err
	}
	if strings.TrimFunc(left, isPySpace) != "" {
		if from, err = pyInt(left); err != nil {
			return 0, 0, err
		}
	}
	if strings.TrimFunc(right, isPySpace) != "" {
		if to, err = pyInt(right); err != nil {
			return 0, 0, err
		}
	}
	if from > to {
		return 0, 0, &tickRangeError{fmt.Sprintf("invalid tick range %s: start > end", pyRepr(s))}
	}
	return from, to, nil
}

// pyInt is Python's int(s) for an int64: surrounding whitespace, an optional
// sign, decimal digits with single underscores between them.
func pyInt(s string) (int64, error) {
	t := strings.TrimFunc(s, isPySpace)
	bad := &tickRangeError{"invalid literal for int() with base 10: " + pyRepr(s)}
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || !validDigits(digits) {
		return 0, bad
	}
	// Python's ints are unbounded; a bound beyond int64 is clamped (ParseInt
	// returns the nearest int64 with its range error), which selects the
	// same ticks.
	n, _ := strconv.ParseInt(t[:len(t)-len(digits)]+strings.ReplaceAll(digits, "_", ""), 10, 64)
	return n, nil
}

// validDigits reports whether s is decimal digits with single underscores
// between digits.
func validDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '_' && i > 0 && i < len(s)-1 && s[i-1] != '_':
		default:
			return false
		}
	}
	return true
}

// EntitySample is one row of an entity's history: the tick it was sampled
// at and the row, from whichever pool holds it (exactly one of the four
// pointers is set).
type EntitySample struct {
	TickIndex           int64
	Creature            *CreatureEntitySample
	Projectile          *ProjectileEntitySample
	SecondaryProjectile *SecondaryProjectileEntitySample
	Bonus               *BonusEntitySample
}

// row returns the sample's row and its pool_kind.
func (s *EntitySample) row() (any, string) {
	switch {
	case s.Creature != nil:
		return s.Creature, s.Creature.PoolKind
	case s.Projectile != nil:
		return s.Projectile, s.Projectile.PoolKind
	case s.SecondaryProjectile != nil:
		return s.SecondaryProjectile, s.SecondaryProjectile.PoolKind
	case s.Bonus != nil:
		return s.Bonus, s.Bonus.PoolKind
	}
	return nil, "unknown"
}

// PoolKind is the row's pool_kind field ("creature", "projectile", …).
func (s *EntitySample) PoolKind() string { _, k := s.row(); return k }

// value is the row's builtins with tick_index added last, as the
// reference's snapshot dict.
func (s *EntitySample) value() pyjson.Value {
	r, _ := s.row()
	var v pyjson.Value
	if r == nil {
		v = pyjson.NewMap()
	} else {
		v = toValueOf(r).Builtins()
	}
	v.Set("tick_index", pyjson.IntValue(s.TickIndex))
	return v
}

// EntityHistory is the reference's entity history (dbg entity): every row
// of one uid, in any pool, over a tick range.
type EntityHistory struct {
	EntityUID int64
	// PoolKind is the first sample's pool_kind.
	PoolKind string
	// SpawnTick and DespawnTick are the first and last samples' ticks.
	SpawnTick   int64
	DespawnTick int64
	Samples     []EntitySample
}

// Entity collects every entity row whose uid is uid in the ticks from ≤
// tick_index ≤ to of r (file order; in each tick the pools creatures,
// projectiles, secondary_projectiles, bonuses in turn), as the reference's
// entity_history does. Rows of different pools that share the uid are all
// collected. Memory grows with the number of matching rows (about 200
// bytes each). No row is an ErrNotFound "schema7: entity uid N not found in
// requested range".
func Entity(r *cdt.File, uid, from, to int64) (*EntityHistory, error) {
	h := &EntityHistory{EntityUID: uid}
	for rec, err := range Records(r, from, to) {
		if err != nil {
			return nil, err
		}
		h.add(rec, uid)
	}
	if len(h.Samples) == 0 {
		return nil, &notFound{fmt.Sprintf("entity uid %d not found in requested range", uid)}
	}
	h.PoolKind = h.Samples[0].PoolKind()
	h.SpawnTick = h.Samples[0].TickIndex
	h.DespawnTick = h.Samples[len(h.Samples)-1].TickIndex
	return h, nil
}

func (h *EntityHistory) add(rec *TickRecord, uid int64) {
	t := int64(rec.TickIndex)
	s := &rec.Channels.EntitySamples
	for i := range s.Creatures {
		if int64(s.Creatures[i].UID) == uid {
			row := s.Creatures[i]
			h.Samples = append(h.Samples, EntitySample{TickIndex: t, Creature: &row})
		}
	}
	for i := range s.Projectiles {
		if int64(s.Projectiles[i].UID) == uid {
			row := s.Projectiles[i]
			h.Samples = append(h.Samples, EntitySample{TickIndex: t, Projectile: &row})
		}
	}
	for i := range s.SecondaryProjectiles {
		if int64(s.SecondaryProjectiles[i].UID) == uid {
			row := s.SecondaryProjectiles[i]
			h.Samples = append(h.Samples, EntitySample{TickIndex: t, SecondaryProjectile: &row})
		}
	}
	for i := range s.Bonuses {
		if int64(s.Bonuses[i].UID) == uid {
			row := s.Bonuses[i]
			h.Samples = append(h.Samples, EntitySample{TickIndex: t, Bonus: &row})
		}
	}
}

func (h *EntityHistory) value() pyjson.Value {
	v := pyjson.NewMap()
	v.Set("entity_uid", pyjson.IntValue(h.EntityUID))
	v.Set("pool_kind", pyjson.StringValue(h.PoolKind))
	v.Set("spawn_tick", pyjson.IntValue(h.SpawnTick))
	v.Set("despawn_tick", pyjson.IntValue(h.DespawnTick))
	samples := pyjson.Value{Kind: pyjson.List, Items: make([]pyjson.Value, len(h.Samples))}
	for i := range h.Samples {
		samples.Items[i] = h.Samples[i].value()
	}
	v.Set("samples", samples)
	return v
}

// JSON returns the history as json.dumps(indent=2) writes the reference's
// object, keys in the reference's order.
func (h *EntityHistory) JSON() []byte { return pyjson.Encode(nil, h.value(), pyjson.Style{Indent: 2}) }

// SortedJSON returns the history on one line with sorted keys, as the
// reference's `dbg entity --json` prints it.
func (h *EntityHistory) SortedJSON() []byte {
	return pyjson.Encode(nil, h.value(), pyjson.Style{SortKeys: true})
}

// MarshalJSON implements json.Marshaler with the reference's key order.
func (h *EntityHistory) MarshalJSON() ([]byte, error) {
	return pyjson.Encode(nil, h.value(), pyjson.Style{Compact: true}), nil
}
