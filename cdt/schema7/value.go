package schema7

import (
	"reflect"
	"strings"
	"sync"

	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// pyValuer is implemented by the scalar and map types.
type pyValuer interface{ pyValue() pyjson.Value }

func (z Int) pyValue() pyjson.Value   { return pyjson.IntValue(int64(z)) }
func (z Uint) pyValue() pyjson.Value  { return pyjson.UintValue(uint64(z)) }
func (z Float) pyValue() pyjson.Value { return pyjson.FloatValue(float64(z)) }

func (z NullInt) pyValue() pyjson.Value {
	if !z.Valid {
		return pyjson.NullValue()
	}
	return pyjson.IntValue(z.V)
}

func (z NullFloat) pyValue() pyjson.Value {
	if !z.Valid {
		return pyjson.NullValue()
	}
	return pyjson.FloatValue(z.V)
}

func (z NullBool) pyValue() pyjson.Value {
	if !z.Valid {
		return pyjson.NullValue()
	}
	return pyjson.BoolValue(z.V)
}

func (z NullString) pyValue() pyjson.Value {
	if !z.Valid {
		return pyjson.NullValue()
	}
	return pyjson.StringValue(z.V)
}

func (m IntMap) pyValue() pyjson.Value {
	v := pyjson.NewMap()
	for _, e := range m {
		v.Set(e.Key, pyjson.IntValue(e.Value))
	}
	return v
}

// pyValue converts the raw values with one memory budget for the whole map
// (pyjson.Budget of their total size: 256 KiB plus 160 bytes per byte, at most
// 4 MiB); a value that does not fit renders as "<undecodable: …>", as a
// malformed one does.
func (m AnyMap) pyValue() pyjson.Value {
	v := pyjson.NewMap()
	n := 0
	for _, e := range m {
		n += len(e.Value)
	}
	budget := pyjson.Budget(n)
	for _, e := range m {
		x, _, err := pyjson.FromMsgpackBudget(e.Value, &budget)
		if err != nil {
			x = pyjson.StringValue("<undecodable: " + err.Error() + ">")
		}
		v.Set(e.Key, x)
	}
	return v
}

type fieldInfo struct {
	name  string
	index int
}

var fieldCache sync.Map // reflect.Type → []fieldInfo

func fieldsOf(t reflect.Type) []fieldInfo {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]fieldInfo)
	}
	var out []fieldInfo
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("msg")
		if tag == "" || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		out = append(out, fieldInfo{name, i})
	}
	fieldCache.Store(t, out)
	return out
}

var valuerType = reflect.TypeFor[pyValuer]()

// toValue converts any payload value of this package into a pyjson.Value:
// structs become maps in declaration order tagged with their Python class
// name, None becomes null, nil slices empty lists.
func toValue(v reflect.Value) pyjson.Value {
	if v.Type().Implements(valuerType) {
		return v.Interface().(pyValuer).pyValue()
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return pyjson.NullValue()
		}
		return toValue(v.Elem())
	case reflect.Bool:
		return pyjson.BoolValue(v.Bool())
	case reflect.String:
		return pyjson.StringValue(v.String())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return pyjson.IntValue(v.Int())
	case reflect.Float64:
		return pyjson.FloatValue(v.Float())
	case reflect.Slice:
		items := make([]pyjson.Value, v.Len())
		for i := range items {
			items[i] = toValue(v.Index(i))
		}
		return pyjson.Value{Kind: pyjson.List, Items: items}
	case reflect.Struct:
		fs := fieldsOf(v.Type())
		out := pyjson.Value{Kind: pyjson.Map, Type: v.Type().Name(),
			Keys: make([]string, len(fs)), Vals: make([]pyjson.Value, len(fs))}
		for i, f := range fs {
			out.Keys[i] = f.name
			out.Vals[i] = toValue(v.Field(f.index))
		}
		return out
	}
	return pyjson.StringValue("<" + v.Type().String() + ">")
}

// toValueOf converts a payload value of this package (a struct, slice or scalar)
// into the JSON value tree the reference's msgspec.to_builtins produces.
func toValueOf(x any) pyjson.Value { return toValue(reflect.ValueOf(x)) }

// AppendJSON appends x (a payload value of this package) as compact JSON
// exactly as json.dumps(msgspec.to_builtins(x), separators=(",", ":")) writes it.
// The free-form dicts (AnyMap: TraceMeta's producer, source and config) are
// rendered within a memory budget of 256 KiB plus 160 bytes per msgpack byte,
// at most 4 MiB per dict (a TraceMeta has three); a value beyond it renders as the string
// "<undecodable: …>", as malformed msgpack does.
func AppendJSON(dst []byte, x any) []byte {
	return pyjson.Encode(dst, toValueOf(x), pyjson.Style{Compact: true})
}
