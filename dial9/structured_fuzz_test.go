package dial9

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"testing"
)

// byteSource hands out fuzz input as small decisions; it returns zeros once
// the input is used up.
type byteSource struct{ b []byte }

func (s *byteSource) u8() uint8 {
	if len(s.b) == 0 {
		return 0
	}
	v := s.b[0]
	s.b = s.b[1:]
	return v
}

func (s *byteSource) u64() uint64 {
	var v [8]byte
	n := copy(v[:], s.b)
	s.b = s.b[n:]
	return binary.LittleEndian.Uint64(v[:])
}

func (s *byteSource) str() string {
	n := int(s.u8() % 12)
	n = min(n, len(s.b))
	v := string(s.b[:n])
	s.b = s.b[n:]
	return v
}

// value draws a value of base type t; depth bounds nested containers.
func (s *byteSource) value(t FieldType, strs, stacks uint32, depth int) Value {
	switch t {
	case TypeI64:
		return I64(int64(s.u64()))
	case TypeF64:
		f := math.Float64frombits(s.u64())
		if math.IsNaN(f) {
			f = 0.5
		}
		return F64(f)
	case TypeBool:
		return Bool(s.u8()&1 == 1)
	case TypeString:
		return String(s.str())
	case TypeBytes:
		return Bytes([]byte(s.str()))
	case TypePooledString:
		return PooledString(uint32(s.u8()) % (strs + 2)) // sometimes undefined
	case TypePooledStackFrames:
		return PooledStack(uint32(s.u8()) % (stacks + 2))
	case TypeStackFrames:
		n := int(s.u8() % 4)
		fr := make([]uint64, n)
		for i := range fr {
			fr[i] = s.u64()
		}
		return StackFrames(fr...)
	case TypeVarint:
		return Varint(s.u64() >> (s.u8() % 64))
	case TypeStringMap:
		n := int(s.u8() % 3)
		kv := make([]KV, n)
		for i := range kv {
			kv[i] = KV{s.str(), s.str()}
		}
		return StringMap(kv...)
	case TypeU8:
		return U8(s.u8())
	case TypeU16:
		return U16(uint16(s.u64()))
	case TypeU32:
		return U32(uint32(s.u64()))
	case TypeDynamicList, TypeDynamicMap:
		n := int(s.u8() % 3)
		if depth > 2 {
			n = 0
		}
		per := 1
		if t == TypeDynamicMap {
			per = 2
		}
		elems := make([]Value, 0, n*per)
		for range n * per {
			et := FieldType(s.u8()%15 + 1)
			elems = append(elems, s.value(et, strs, stacks, depth+1))
		}
		return Value{Type: t, Elems: elems}
	}
	return Value{}
}

type writtenEvent struct {
	Name   string
	TS     uint64
	Values []Value
}

// FuzzStructuredRoundTrip drives the Writer with calls drawn from the
// input (schemas of every field type, optional fields, pools, timestamps
// around the reset thresholds, stream resets) and checks that decoding
// returns exactly what was written.
func FuzzStructuredRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x03\x05\x01\x02\x09\x0e\x0f\x89\x87\x04\x00\x00\x01\xff\xff\xff\x20"))
	f.Add(bytes.Repeat([]byte{0x91, 0x07, 0x3c, 0xe1, 0x00, 0xff}, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &byteSource{b: data}
		var buf bytes.Buffer
		e := mustWriter(&buf)
		type reg struct {
			h      Handle
			name   string
			fields []FieldDef
		}
		var regs []reg
		var want []writtenEvent
		var strs, stacks uint32
		ts := uint64(0)
		for steps := 0; steps < 64 && len(s.b) > 0; steps++ {
			switch op := s.u8() % 8; {
			case op == 0 || len(regs) == 0:
				nf := int(s.u8() % 5)
				fields := make([]FieldDef, nf)
				for i := range fields {
					ft := FieldType(s.u8()%15 + 1)
					if s.u8()%4 == 0 {
						ft |= Optional
					}
					fields[i] = FieldDef{Name: string(rune('a' + i)), Type: ft}
				}
				name := "S" + string(rune('A'+len(regs)))
				h, err := e.Register(name, fields)
				if err != nil {
					t.Fatal(err)
				}
				regs = append(regs, reg{h, name, fields})
			case op == 1:
				e.InternString(s.str())
				strs++
			case op == 2:
				e.InternStack([]uint64{s.u64(), uint64(s.u8())})
				stacks++
			case op == 3 && s.u8()%4 == 0:
				must2(t, e.Reset(&buf))
				regs, strs, stacks = nil, 0, 0
			default:
				r := regs[int(s.u8())%len(regs)]
				switch s.u8() % 4 {
				case 0:
					ts += uint64(s.u8())
				case 1:
					ts += 0xFFFFFF + uint64(s.u8()%3) - 1
				case 2:
					ts -= min(ts, uint64(s.u8()))
				default:
					ts = s.u64()
				}
				vals := make([]Value, len(r.fields))
				for i, fd := range r.fields {
					if fd.Type.IsOptional() && s.u8()%2 == 0 {
						continue // absent
					}
					vals[i] = s.value(fd.Type.Base(), strs, stacks, 0)
				}
				if err := e.WriteEvent(r.h, ts, vals); err != nil {
					t.Fatalf("write %s: %v", r.name, err)
				}
				want = append(want, writtenEvent{r.name, ts, vals})
			}
		}
		must2(t, e.Flush())
		d, err := NewBytesReader(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var got []writtenEvent
		for d.Next() {
			ev := d.Event()
			w := writtenEvent{Name: ev.Name(), TS: ev.Timestamp()}
			for i := 0; i < ev.NumFields(); i++ {
				w.Values = append(w.Values, ev.Field(i).Value())
			}
			got = append(got, w)
		}
		if d.Err() != nil {
			t.Fatalf("decode: %v", d.Err())
		}
		if !reflect.DeepEqual(canon(got), canon(want)) {
			t.Fatalf("round trip:\n got  %+v\n want %+v", got, want)
		}
	})
}

// canon makes written and decoded values comparable: empty and nil slices
// are equal.
func canon(evs []writtenEvent) []writtenEvent {
	var fix func(v *Value)
	fix = func(v *Value) {
		if len(v.B) == 0 {
			v.B = nil
		}
		if len(v.Stack) == 0 {
			v.Stack = nil
		}
		if len(v.Pairs) == 0 {
			v.Pairs = nil
		}
		if len(v.Elems) == 0 {
			v.Elems = nil
		}
		for i := range v.Elems {
			fix(&v.Elems[i])
		}
	}
	for i := range evs {
		if len(evs[i].Values) == 0 {
			evs[i].Values = nil
		}
		for j := range evs[i].Values {
			fix(&evs[i].Values[j])
		}
	}
	return evs
}
