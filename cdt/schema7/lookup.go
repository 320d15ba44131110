package schema7

import (
	"reflect"
	"strconv"
	"strings"
)

// LookupNumber resolves a dotted field path in a tick row to a number, for
// counter tracks and queries: "elapsed_ms", "checkpoint.score_xp",
// "sim_state.players[0].health", "channels.rng_stream". The leading
// "channels." may be omitted. Ints, floats and bools give their value; a list
// gives its length. ok is false for unknown paths, out-of-range indexes,
// None and strings.
func LookupNumber(rec *TickRecord, path string) (v float64, ok bool) {
	if v, ok = lookup(reflect.ValueOf(rec).Elem(), path); ok {
		return v, true
	}
	return lookup(reflect.ValueOf(&rec.Channels).Elem(), path)
}

func lookup(v reflect.Value, path string) (float64, bool) {
	for path != "" {
		var seg string
		seg, path, _ = strings.Cut(path, ".")
		name, idx, hasIdx := seg, "", false
		if i := strings.IndexByte(seg, '['); i >= 0 && strings.HasSuffix(seg, "]") {
			name, idx, hasIdx = seg[:i], seg[i+1:len(seg)-1], true
		}
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return 0, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return 0, false
		}
		found := false
		for _, f := range fieldsOf(v.Type()) {
			if f.name == name {
				v, found = v.Field(f.index), true
				break
			}
		}
		if !found {
			return 0, false
		}
		if hasIdx {
			i, err := strconv.Atoi(idx)
			if err != nil || v.Kind() != reflect.Slice || i < 0 || i >= v.Len() {
				return 0, false
			}
			v = v.Index(i)
		}
	}
	return number(v)
}

func number(v reflect.Value) (float64, bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, false
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case Int:
		return float64(x), true
	case Uint:
		return float64(x), true
	case WeaponID:
		return float64(x), true
	case Float:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case NullInt:
		return float64(x.V), x.Valid
	case NullFloat:
		return x.V, x.Valid
	case NullBool:
		if !x.Valid {
			return 0, false
		}
		if x.V {
			return 1, true
		}
		return 0, true
	}
	if v.Kind() == reflect.Slice {
		return float64(v.Len()), true
	}
	return 0, false
}
