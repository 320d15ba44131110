package schema7

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// fillValue sets every field reachable from v to a non-zero value: each
// slice gets three elements and each pointer a value, down to depth 6.
func fillValue(v reflect.Value, seed int64, depth int) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(seed%100 + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(seed%100 + 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(seed%100) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString("s")
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillValue(v.Field(i), seed+int64(i), depth)
			}
		}
	case reflect.Pointer:
		if depth < 6 {
			v.Set(reflect.New(v.Type().Elem()))
			fillValue(v.Elem(), seed, depth+1)
		}
	case reflect.Slice:
		if depth < 6 {
			v.Set(reflect.MakeSlice(v.Type(), 3, 3))
			for i := range 3 {
				fillValue(v.Index(i), seed+int64(7*i), depth+1)
			}
		}
	}
}

// shrink keeps the first keep items of every list in v and empties every
// map that is an item of a list: decoded, those elements hold only zero
// values and defaults.
func shrink(v *pyjson.Value, keep int, inList bool) {
	switch v.Kind {
	case pyjson.List:
		v.Items = v.Items[:min(len(v.Items), keep)]
		for i := range v.Items {
			shrink(&v.Items[i], keep, true)
		}
	case pyjson.Map:
		if inList {
			v.Keys, v.Vals = nil, nil
		}
		for i := range v.Vals {
			shrink(&v.Vals[i], keep, false)
		}
	}
}

// TestDecodeReusedArrays decodes a row whose every slice has three elements
// with every field set, then into the same record a shorter row (two
// elements per slice, each element an empty map) and every prefix of it
// (which fail part-way through some slice or element): each must decode
// exactly as into a fresh record, for every slice whose array reset keeps.
// The generated decoders leave absent keys at what the element held, so
// this fails if reset stops clearing what the longer row left in an array.
func TestDecodeReusedArrays(t *testing.T) {
	var long TickRecord
	fillValue(reflect.ValueOf(&long).Elem(), 1, 0)
	longRaw, err := long.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	var probe TickRecord
	if err := probe.Decode(longRaw); err != nil {
		t.Fatal(err)
	}
	c := &probe.Channels
	cp := &c.Checkpoint
	lens := map[string]int{
		"PhaseMarkers": len(probe.PhaseMarkers), "Checkpoint.Players": len(cp.Players),
		"Checkpoint.BonusTimers": len(cp.BonusTimers), "Checkpoint.Deaths": len(cp.Deaths),
		"Perk.Choices": len(cp.Perk.Choices), "Perk.PlayerNonzeroCounts": len(cp.Perk.PlayerNonzeroCounts),
		"Events.SfxHead": len(cp.Events.SfxHead), "Events.HitHead": len(cp.Events.HitHead),
		"SimState.Players": len(c.SimState.Players), "WeaponUsageCounts": len(c.SimState.Gameplay.Status.WeaponUsageCounts),
		"Creatures": len(c.EntitySamples.Creatures), "Projectiles": len(c.EntitySamples.Projectiles),
		"SecondaryProjectiles": len(c.EntitySamples.SecondaryProjectiles), "Bonuses": len(c.EntitySamples.Bonuses),
		"RngStream": len(c.RngStream), "TimingSamples": len(c.TimingSamples),
	}
	if cp.Typo == nil || len(cp.Typo.ActiveNames) != 3 {
		t.Fatal("the long row has no typo snapshot with three active names")
	}
	for name, n := range lens {
		if n != 3 && name != "Checkpoint.BonusTimers" {
			t.Fatalf("the long row's %s has %d elements, want 3", name, n)
		}
	}

	v, _, err := pyjson.FromMsgpack(longRaw)
	if err != nil {
		t.Fatal(err)
	}
	shrink(&v, 2, false)
	shortRaw := appendValue(nil, v)
	var fresh TickRecord
	if err := fresh.Decode(shortRaw); err != nil {
		t.Fatalf("the short row: %v", err)
	}
	if n := len(fresh.Channels.EntitySamples.Creatures); n != 2 {
		t.Fatalf("the short row has %d creatures, want 2", n)
	}

	var reused TickRecord
	for end := len(shortRaw); end >= 0; end-- {
		raw := shortRaw[:end]
		if err := reused.Decode(longRaw); err != nil {
			t.Fatal(err)
		}
		fresh = TickRecord{}
		errFresh := fresh.Decode(raw)
		errReused := reused.Decode(raw)
		if (errFresh == nil) != (errReused == nil) || errFresh != nil && errFresh.Error() != errReused.Error() {
			t.Fatalf("prefix %d: fresh record: %v, reused record: %v", end, errFresh, errReused)
		}
		if errFresh != nil {
			// reset keeps the Tutorial and Typo snapshots (emptied), so a
			// row that fails before their keys leaves them allocated; it
			// keeps the inner arrays of PlayerNonzeroCounts, whose elements
			// a successful decode replaces in full, but a failed one can
			// leave an earlier row's inner lists there: not compared.
			fcp, rcp := &fresh.Channels.Checkpoint, &reused.Channels.Checkpoint
			fcp.Perk.PlayerNonzeroCounts, rcp.Perk.PlayerNonzeroCounts = nil, nil
			if fcp.Tutorial == nil && rcp.Tutorial != nil && *rcp.Tutorial == (ReplayTutorialSnapshot{}) {
				rcp.Tutorial = nil
			}
			if fcp.Typo == nil && rcp.Typo != nil && len(rcp.Typo.ActiveNames) == 0 {
				rcp.Typo = nil
			}
		}
		a, _ := fresh.MarshalMsg(nil)
		b, _ := reused.MarshalMsg(nil)
		if !bytes.Equal(a, b) {
			i := 0
			for i < min(len(a), len(b)) && a[i] == b[i] {
				i++
			}
			t.Fatalf("prefix %d of %d (%v): the reused record decodes differently from a fresh one, from byte %d of its encoding:\nfresh  %q\nreused %q",
				end, len(shortRaw), errFresh, i, a[max(0, i-60):min(len(a), i+60)], b[max(0, i-60):min(len(b), i+60)])
		}
	}
}
