package schema7

import (
	"slices"
	"strings"
	"unicode"

	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// fieldDiff is one difference found by the strict comparison: its path, kind
// ("value_mismatch", "type_mismatch", "length_mismatch", "missing_actual",
// "missing_expected") and both sides.
type fieldDiff struct {
	Path     string
	Kind     string
	Expected pyjson.Value
	Actual   pyjson.Value
}

func (d fieldDiff) value() pyjson.Value {
	v := pyjson.NewMap()
	v.Set("path", pyjson.StringValue(d.Path))
	v.Set("kind", pyjson.StringValue(d.Kind))
	v.Set("expected", d.Expected)
	v.Set("actual", d.Actual)
	return v
}

func diffsValue(diffs []fieldDiff) pyjson.Value {
	out := pyjson.Value{Kind: pyjson.List, Items: make([]pyjson.Value, len(diffs))}
	for i, d := range diffs {
		out.Items[i] = d.value()
	}
	return out
}

// strictCompare walks expected and actual as the reference's strict_compare
// does: different Python types → type_mismatch; structs field by field in
// declaration order; dicts over the sorted union of keys; lists by length,
// then element by element, then the surplus; leaves by ==.
func strictCompare(path string, e, a pyjson.Value, out []fieldDiff) []fieldDiff {
	if e.TypeName() != a.TypeName() {
		return append(out, fieldDiff{path, "type_mismatch", pyjson.StringValue(e.TypeName()), pyjson.StringValue(a.TypeName())})
	}
	switch e.Kind {
	case pyjson.Map:
		if e.Type != "" { // a struct: both sides have the same fields
			for i, k := range e.Keys {
				av, _ := a.Get(k)
				out = strictCompare(joinField(path, k), e.Vals[i], av, out)
			}
			return out
		}
		keys := slices.Clone(e.Keys)
		for _, k := range a.Keys {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			ev, eok := e.Get(k)
			av, aok := a.Get(k)
			p := joinKey(path, k)
			switch {
			case !aok:
				out = append(out, fieldDiff{p, "missing_actual", ev.Builtins(), pyjson.NullValue()})
			case !eok:
				out = append(out, fieldDiff{p, "missing_expected", pyjson.NullValue(), av.Builtins()})
			default:
				out = strictCompare(p, ev, av, out)
			}
		}
		return out
	case pyjson.List:
		ne, na := len(e.Items), len(a.Items)
		if ne != na {
			out = append(out, fieldDiff{path, "length_mismatch", pyjson.IntValue(int64(ne)), pyjson.IntValue(int64(na))})
		}
		for i := range min(ne, na) {
			out = strictCompare(indexPath(path, i), e.Items[i], a.Items[i], out)
		}
		for i := na; i < ne; i++ {
			out = append(out, fieldDiff{indexPath(path, i), "missing_actual", e.Items[i].Builtins(), pyjson.NullValue()})
		}
		for i := ne; i < na; i++ {
			out = append(out, fieldDiff{indexPath(path, i), "missing_expected", pyjson.NullValue(), a.Items[i].Builtins()})
		}
		return out
	}
	if !pyjson.Equal(e, a) {
		out = append(out, fieldDiff{path, "value_mismatch", e, a})
	}
	return out
}

func joinField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// joinKey renders a mapping key as the reference does: .key for identifiers,
// [json.dumps(key)] otherwise.
func joinKey(path, key string) string {
	if isIdentifier(key) {
		return joinField(path, key)
	}
	return path + "[" + string(pyjson.AppendString(nil, key)) + "]"
}

func indexPath(path string, i int) string {
	var b strings.Builder
	b.WriteString(path)
	b.WriteByte('[')
	b.WriteString(itoa(int64(i)))
	b.WriteByte(']')
	return b.String()
}

func itoa(i int64) string { return string(pyjson.Encode(nil, pyjson.IntValue(i), pyjson.Style{})) }

// isIdentifier approximates Python's str.isidentifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) || (i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))) {
			continue
		}
		return false
	}
	return true
}

// prettyJSON is json.dumps(v, sort_keys=True, indent=2, default=repr).
func prettyJSON(v pyjson.Value) string {
	return string(pyjson.Encode(nil, v, pyjson.Style{Indent: 2, SortKeys: true}))
}
