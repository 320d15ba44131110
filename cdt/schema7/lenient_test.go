package schema7

import (
	"errors"
	"strings"
	"testing"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// rowValue encodes a DemoTick row, lets edit change its generic JSON-like
// tree, and re-encodes the tree as msgpack (maps keep their order).
func rowWith(t *testing.T, edit func(v *pyjson.Value)) []byte {
	t.Helper()
	rec := DemoTick(39, 2) // has a death entry and a timing row
	raw, _ := rec.MarshalMsg(nil)
	v, _, err := pyjson.FromMsgpack(raw)
	if err != nil {
		t.Fatal(err)
	}
	edit(&v)
	return appendValue(nil, v)
}

func appendValue(b []byte, v pyjson.Value) []byte {
	switch v.Kind {
	case pyjson.Null:
		return msgp.AppendNil(b)
	case pyjson.Bool:
		return msgp.AppendBool(b, v.B)
	case pyjson.Int:
		return appendInt(b, v.I)
	case pyjson.Float:
		return msgp.AppendFloat64(b, v.F)
	case pyjson.String:
		return msgp.AppendString(b, v.S)
	case pyjson.List:
		b = msgp.AppendArrayHeader(b, uint32(len(v.Items)))
		for _, it := range v.Items {
			b = appendValue(b, it)
		}
		return b
	}
	b = msgp.AppendMapHeader(b, uint32(len(v.Keys)))
	for i, k := range v.Keys {
		b = msgp.AppendString(b, k)
		b = appendValue(b, v.Vals[i])
	}
	return b
}

// at walks a path of map keys and list indexes ("channels", "sim_state", 0 …).
func at(v *pyjson.Value, path ...any) *pyjson.Value {
	for _, p := range path {
		switch p := p.(type) {
		case string:
			found := false
			for i, k := range v.Keys {
				if k == p {
					v, found = &v.Vals[i], true
					break
				}
			}
			if !found {
				panic("no key " + p)
			}
		case int:
			v = &v.Items[p]
		}
	}
	return v
}

func drop(v *pyjson.Value, key string) {
	for i, k := range v.Keys {
		if k == key {
			v.Keys = append(v.Keys[:i:i], v.Keys[i+1:]...)
			v.Vals = append(v.Vals[:i:i], v.Vals[i+1:]...)
			return
		}
	}
	panic("no key " + key)
}

func TestDecodeLenient(t *testing.T) {
	var rec TickRecord
	// Unknown keys: ignored in TickRecord, ReplayTickChannels and the
	// checkpoint family …
	raw := rowWith(t, func(v *pyjson.Value) {
		v.Set("extra", pyjson.StringValue("x"))
		at(v, "channels").Set("rng_marks", pyjson.ListValue())
		at(v, "channels", "checkpoint", "players", 0).Set("future", pyjson.IntValue(1))
	})
	if err := rec.Decode(raw); err != nil {
		t.Fatalf("unknown keys outside the canonical channels: %v", err)
	}
	// … rejected inside the canonical channel structs.
	for _, path := range [][]any{
		{"channels", "sim_state", "gameplay"},
		{"channels", "entity_samples", "bonuses", 0, "pos"},
		{"channels", "rng_stream", 0},
		{"channels", "timing_samples", 0},
	} {
		raw := rowWith(t, func(v *pyjson.Value) { at(v, path...).Set("extra", pyjson.IntValue(1)) })
		err := rec.Decode(raw)
		if !errors.Is(err, ErrUnknownField) || !strings.Contains(err.Error(), "`extra`") {
			t.Fatalf("extra key at %v: %v", path, err)
		}
	}
	// Absent defaulted keys take the reference defaults, in any key order.
	raw = rowWith(t, func(v *pyjson.Value) {
		drop(at(v, "channels", "checkpoint", "deaths", 0), "owner_id")
		drop(at(v, "channels", "timing_samples", 0), "write_kind")
		drop(at(v, "channels", "timing_samples", 0), "mode_fn")
		drop(v, "phase_markers")
		cp := at(v, "channels", "checkpoint")
		cp.Keys[0], cp.Keys[1] = cp.Keys[1], cp.Keys[0]
		cp.Vals[0], cp.Vals[1] = cp.Vals[1], cp.Vals[0]
		cp.Set("tutorial", pyjson.NewMap())
		drop(cp, "tutorial") // the first "tutorial" (null); the map stays
	})
	if err := rec.Decode(raw); err != nil {
		t.Fatal(err)
	}
	cp := &rec.Channels.Checkpoint
	if cp.Deaths[0].OwnerID != -1 || rec.Channels.TimingSamples[0].WriteKind != "snapshot" ||
		rec.Channels.TimingSamples[0].ModeFn.Valid || len(rec.PhaseMarkers) != 0 || cp.TickIndex != 39 {
		t.Fatalf("defaults not applied: %+v %+v", cp.Deaths[0], rec.Channels.TimingSamples[0])
	}
	if tu := cp.Tutorial; tu == nil || tu.StageIndex != -1 || tu.StageTransitionTimerMs != -1000 || tu.HintIndex != -1 {
		t.Fatalf("tutorial defaults: %+v", cp.Tutorial)
	}
	// Float fields accept float32 and integers; int fields reject floats.
	raw = rowWith(t, func(v *pyjson.Value) {
		*at(v, "channels", "sim_state", "players", 0, "health") = pyjson.IntValue(77)
	})
	if err := rec.Decode(raw); err != nil || rec.Channels.SimState.Players[0].Health != 77 {
		t.Fatalf("int for float: %v %v", err, rec.Channels.SimState.Players[0].Health)
	}
	f32 := msgp.AppendFloat32(nil, 2.5)
	var f Float
	if _, err := f.UnmarshalMsg(f32); err != nil || f != 2.5 {
		t.Fatalf("float32 for float: %v %v", err, f)
	}
	raw = rowWith(t, func(v *pyjson.Value) { *at(v, "elapsed_ms") = pyjson.FloatValue(1.5) })
	if err := rec.Decode(raw); err == nil {
		t.Fatal("float accepted for an int field")
	}
	raw = rowWith(t, func(v *pyjson.Value) { *at(v, "channels", "checkpoint", "kills") = pyjson.BoolValue(true) })
	if err := rec.Decode(raw); err == nil {
		t.Fatal("bool accepted for an int field")
	}
}

func TestCheckRequired(t *testing.T) {
	r, _ := openVector(t, "v7_small_300ticks")
	if err := CheckRequired(r.MetaPayload(), &TraceMeta{}); err != nil {
		t.Fatal(err)
	}
	for row, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckRequired(row.Raw, &TickRecord{}); err != nil {
			t.Fatalf("tick %d: %v", row.Tick, err)
		}
	}
	// Defaulted keys may go; required ones may not.
	ok := rowWith(t, func(v *pyjson.Value) {
		drop(at(v, "channels", "checkpoint", "deaths", 0), "owner_id")
		drop(at(v, "channels", "timing_samples", 0), "phase")
		drop(v, "phase_markers")
	})
	if err := CheckRequired(ok, &TickRecord{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path []any
		key  string
	}{
		{nil, "elapsed_ms"},
		{[]any{"channels", "sim_state", "gameplay", "status"}, "weapon_usage_counts"},
		{[]any{"channels", "entity_samples", "bonuses", 0}, "amount"},
		{[]any{"channels", "checkpoint", "players", 0}, "level"},
		{[]any{"channels", "rng_stream", 1}, "value_15"},
		{[]any{"channels", "timing_samples", 0}, "tick_index"},
	} {
		raw := rowWith(t, func(v *pyjson.Value) { drop(at(v, c.path...), c.key) })
		if err := CheckRequired(raw, &TickRecord{}); !errors.Is(err, ErrMissingField) {
			t.Fatalf("%v without %s: %v", c.path, c.key, err)
		}
	}
}
