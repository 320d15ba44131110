package schema7

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// The generated decoders (internal/strictgen -inline) expect what msgspec
// writes: keys in declaration order as fixstrs, ints in their shortest form,
// floats as float64. Every other encoding of the same values takes their
// fallback paths, which must decode the same record. These tests re-encode
// the rows of the 300-tick vector and of DemoTick in such other forms.

// reencode writes v as msgpack like appendValue, but with every map's
// entries reversed when reverse, keys and strings as str8 when str8Keys, ints as
// int64 when wideInts, and every map's first entry repeated at its end when
// dupFirst.
type reencode struct {
	reverse, str8Keys, wideInts, dupFirst bool
}

func (o reencode) append(b []byte, v pyjson.Value) []byte {
	switch v.Kind {
	case pyjson.Int:
		if o.wideInts && !v.Unsigned {
			return append(b, 0xd3, byte(v.I>>56), byte(v.I>>48), byte(v.I>>40), byte(v.I>>32), byte(v.I>>24), byte(v.I>>16), byte(v.I>>8), byte(v.I))
		}
		if v.Unsigned {
			return msgp.AppendUint64(b, v.U)
		}
		return appendInt(b, v.I)
	case pyjson.String:
		if o.str8Keys && len(v.S) < 256 {
			return append(append(b, 0xd9, byte(len(v.S))), v.S...)
		}
		return msgp.AppendString(b, v.S)
	case pyjson.List:
		b = msgp.AppendArrayHeader(b, uint32(len(v.Items)))
		for _, it := range v.Items {
			b = o.append(b, it)
		}
		return b
	case pyjson.Map:
	default:
		return appendValue(b, v)
	}
	idx := make([]int, len(v.Keys))
	for i := range idx {
		idx[i] = i
	}
	if o.reverse {
		slices.Reverse(idx)
	}
	if o.dupFirst && len(idx) > 0 {
		idx = append(idx, idx[0])
	}
	b = msgp.AppendMapHeader(b, uint32(len(idx)))
	for _, i := range idx {
		if k := v.Keys[i]; o.str8Keys && len(k) < 256 {
			b = append(append(b, 0xd9, byte(len(k))), k...)
		} else {
			b = msgp.AppendString(b, k)
		}
		b = o.append(b, v.Vals[i])
	}
	return b
}

func predictRows(t *testing.T) [][]byte {
	var raws [][]byte
	if r, err := openVectorIfPresent(t, "v7_small_300ticks"); err == nil && r != nil {
		for row, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			raws = append(raws, slices.Clone(row.Raw))
		}
	}
	for i := range 8 {
		rec := DemoTick(int64(37+i), uint32(i%4))
		raw, _ := rec.MarshalMsg(nil)
		raws = append(raws, raw)
	}
	return raws
}

// TestDecodeFallbackPaths decodes the rows re-encoded in other forms. With
// str8 keys no key matches its expected encoding, so every key takes the
// original key read and string switch: a form decodes exactly as the same
// form with str8 keys. Without repeated keys, the forms also decode as the
// row itself (reversed dicts, IntMap, keep their wire order: compared as
// Python dicts). A repeated key is decoded again over the first one, which
// for some hand-written types differs from decoding it once, before and
// after the fast paths alike.
func TestDecodeFallbackPaths(t *testing.T) {
	forms := map[string]reencode{
		"as written":           {},
		"keys reversed":        {reverse: true},
		"int64 ints":           {wideInts: true},
		"first key repeated":   {dupFirst: true},
		"all of them together": {reverse: true, wideInts: true, dupFirst: true},
	}
	raws := predictRows(t)
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			var orig, got, slow TickRecord
			for i, raw := range raws {
				if err := orig.Decode(raw); err != nil {
					t.Fatal(err)
				}
				v, _, err := pyjson.FromMsgpack(raw)
				if err != nil {
					t.Fatal(err)
				}
				if err := got.Decode(form.append(nil, v)); err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
				str8 := form
				str8.str8Keys = true
				if err := slow.Decode(str8.append(nil, v)); err != nil {
					t.Fatalf("row %d, str8 keys: %v", i, err)
				}
				if !reflect.DeepEqual(&got, &slow) {
					t.Fatalf("row %d decodes differently with str8 keys", i)
				}
				switch {
				case form.dupFirst:
				case !form.reverse:
					if !reflect.DeepEqual(&orig, &got) {
						t.Fatalf("row %d decodes differently", i)
					}
				default:
					a, _ := orig.MarshalMsg(nil)
					b, _ := got.MarshalMsg(nil)
					va, _, _ := pyjson.FromMsgpack(a)
					vb, _, _ := pyjson.FromMsgpack(b)
					if !pyjson.Equal(va, vb) {
						t.Fatalf("row %d decodes differently", i)
					}
				}
			}
		})
	}
}

// TestDecodeFallbackErrors: an unknown key fails with the same error
// whether the keys before it came in order or not.
func TestDecodeFallbackErrors(t *testing.T) {
	rec := DemoTick(39, 2)
	raw, _ := rec.MarshalMsg(nil)
	v, _, err := pyjson.FromMsgpack(raw)
	if err != nil {
		t.Fatal(err)
	}
	creature := at(&v, "channels", "entity_samples", "creatures", 0)
	creature.Keys = append(creature.Keys, "bogus")
	creature.Vals = append(creature.Vals, pyjson.IntValue(1))
	var msgs []string
	for _, form := range []reencode{{}, {reverse: true}, {str8Keys: true}} {
		var got TickRecord
		err := got.Decode(form.append(nil, v))
		if !errors.Is(err, ErrUnknownField) {
			t.Fatalf("%+v: unknown key: %v", form, err)
		}
		msgs = append(msgs, err.Error())
	}
	t.Log(msgs[0])
	if msgs[1] != msgs[0] || msgs[2] != msgs[0] {
		t.Errorf("errors differ:\n%s", strings.Join(msgs, "\n"))
	}
}
