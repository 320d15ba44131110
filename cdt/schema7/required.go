package schema7

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/tinylib/msgp/msgp"
)

// ErrMissingField is wrapped by CheckRequired's error for a key the
// reference requires (a field without a default) that is absent.
var ErrMissingField = errors.New("schema7: object missing required field")

// optionalKeys lists, per type, the keys that have defaults in the reference
// ("*": every key). Every other key is required.
var optionalKeys = map[reflect.Type][]string{
	reflect.TypeFor[TickRecord]():             {"phase_markers"},
	reflect.TypeFor[ReplayTickChannels]():     {"rng_stream", "timing_samples"},
	reflect.TypeFor[ReplayCheckpoint]():       {"deaths", "perk", "events", "tutorial", "typo"},
	reflect.TypeFor[Vec2]():                   {"*"},
	reflect.TypeFor[ReplayDeathLedgerEntry](): {"owner_id"},
	reflect.TypeFor[ReplayPerkSnapshot]():     {"*"},
	reflect.TypeFor[ReplayEventSummary]():     {"*"},
	reflect.TypeFor[ReplayTutorialSnapshot](): {"*"},
	reflect.TypeFor[ReplayTypoSnapshot]():     {"*"},
	reflect.TypeFor[TimingSampleRow](): {"gameplay_frame", "phase", "write_kind", "frame_dt_f32", "frame_dt_ms_i32",
		"frame_dt_ms_f32", "time_scale_active_entry", "time_scale_active_current", "time_scale_factor",
		"bonus_reflex_boost_timer", "mode_fn", "player_index"},
}

var rngRequired = []string{"tick_call_index", "value_15", "state_before_u32", "state_after_u32"}

// CheckRequired reports a required key that is absent anywhere in raw, the
// msgpack encoding of a value of x's type (for example a *TickRecord and a
// cdt.Row.Raw). The decoders here leave such fields at their zero value;
// the reference rejects them, and so does tracecat validate through this
// check.
func CheckRequired(raw []byte, x any) error {
	t := reflect.TypeOf(x)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	rest, err := checkRequired(t, raw, "$")
	if err == nil && len(rest) != 0 {
		err = errTrailing
	}
	if err != nil {
		return &DecodeError{What: t.Name(), Err: err}
	}
	return nil
}

func checkRequired(t reflect.Type, b []byte, path string) ([]byte, error) {
	if t == reflect.TypeFor[RngStreamRow]() {
		return checkKeys(b, path, rngRequired)
	}
	if t.Kind() == reflect.Pointer {
		if msgp.IsNil(b) {
			return b[1:], nil
		}
		return checkRequired(t.Elem(), b, path)
	}
	if t.Implements(valuerType) {
		return msgp.Skip(b)
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkStruct(t, b, path)
	case reflect.Slice:
		et := t.Elem()
		if et.Kind() != reflect.Struct && et.Kind() != reflect.Pointer {
			return msgp.Skip(b)
		}
		n, rest, err := msgp.ReadArrayHeaderBytes(b)
		if err != nil {
			return b, err
		}
		for i := range n {
			if rest, err = checkRequired(et, rest, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return rest, err
			}
		}
		return rest, nil
	}
	return msgp.Skip(b)
}

func checkStruct(t reflect.Type, b []byte, path string) ([]byte, error) {
	fields := fieldsOf(t)
	n, rest, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return b, err
	}
	seen := make([]bool, len(fields))
	for range n {
		var key []byte
		if key, rest, err = msgp.ReadMapKeyZC(rest); err != nil {
			return rest, err
		}
		i := slices.IndexFunc(fields, func(f fieldInfo) bool { return f.name == string(key) })
		if i < 0 {
			if rest, err = msgp.Skip(rest); err != nil {
				return rest, err
			}
			continue
		}
		seen[i] = true
		if rest, err = checkRequired(t.Field(fields[i].index).Type, rest, path+"."+fields[i].name); err != nil {
			return rest, err
		}
	}
	opt := optionalKeys[t]
	if slices.Contains(opt, "*") {
		return rest, nil
	}
	for i, f := range fields {
		if !seen[i] && !slices.Contains(opt, f.name) {
			return rest, &detailError{ErrMissingField, fmt.Sprintf("object missing required field `%s` at %s", f.name, path)}
		}
	}
	return rest, nil
}

// checkKeys checks that a map holds the required keys.
func checkKeys(b []byte, path string, required []string) ([]byte, error) {
	n, rest, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return b, err
	}
	found := 0
	for range n {
		var key []byte
		if key, rest, err = msgp.ReadMapKeyZC(rest); err != nil {
			return rest, err
		}
		if slices.Contains(required, string(key)) {
			found++
		}
		if rest, err = msgp.Skip(rest); err != nil {
			return rest, err
		}
	}
	if found < len(required) {
		return rest, &detailError{ErrMissingField, fmt.Sprintf("object missing required field at %s (one of %v)", path, required)}
	}
	return rest, nil
}
