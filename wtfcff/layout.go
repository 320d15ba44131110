package wtfcff

import (
	"encoding/binary"
	"encoding/json"
)

// argLayout is where an argument of a binary record sits and how it reads,
// computed once per signature so that decoding a record does no per-argument
// type dispatch beyond what the argument needs.
type argLayout struct {
	typ ArgType
	// off is the byte offset of the argument's slot from the start of the
	// record when every argument before it takes one slot, else -1 (the
	// argument follows an array and its place is found per record).
	off int32
	str bool // a string-table ordinal (ascii, utf8, any)
	// key is the argument as a JSON object member key: "name":
	key string
}

// directArg is where Event.Arg reads a non-string argument at a fixed
// offset (off notDirect, past every record: any other argument).
type directArg struct {
	off uint32
	typ ArgType
}

const notDirect = 1<<32 - 1

// setLayout computes t's per-argument layout and the derived flags from
// t.Args and t.builtin.
func (t *EventType) setLayout() {
	t.layout = make([]argLayout, len(t.Args))
	t.direct = make([]directArg, len(t.Args))
	t.fixedArgs = len(t.Args)
	off := int32(8)
	for i, a := range t.Args {
		l := &t.layout[i]
		l.typ, l.str, l.off = a.Type, a.Type.IsString(), -1
		switch {
		case off < 0:
		case a.Type.IsArray():
			t.fixedArgs, off = i, -1
		default:
			l.off = off
			off += 4
		}
		l.key = string(append(appendJSONString(nil, a.Name), ':'))
		t.direct[i] = directArg{off: notDirect, typ: a.Type}
		if !l.str && l.off >= 0 {
			t.direct[i].off = uint32(l.off)
		}
	}
	switch t.builtin {
	case builtinDefine, builtinZoneCreate, builtinZoneDelete, builtinZoneSet:
		t.internal = true
	}
}

// validJSON is json.Valid with a fast answer for the values any arguments
// mostly hold: plain integers and the literals.
func validJSON(b []byte) bool {
	switch string(b) {
	case "true", "false", "null", "0":
		return true
	}
	i := 0
	if len(b) > 0 && b[0] == '-' {
		i = 1
	}
	if i < len(b) && b[i] >= '1' && b[i] <= '9' && len(b) <= 18 {
		j := i + 1
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == len(b) {
			return true
		}
	}
	return json.Valid(b)
}

// Args appends every argument of the event to dst, as Arg(i) for each i
// would return them, and returns the extended slice: one call per record
// rather than one per argument, for readers that take every argument (as
// the reference's database does when it loads a trace). It does not
// allocate when dst has room.
func (e *Event) Args(dst []Value) []Value {
	t := e.Type
	if e.rec == nil || len(t.layout) != len(t.Args) {
		for i := range t.Args {
			dst = append(dst, e.Arg(i))
		}
		return dst
	}
	d, rec := e.d, e.rec
	for i := range t.layout {
		l := &t.layout[i]
		switch {
		case l.off < 0:
			dst = append(dst, d.value(i))
		case !l.str:
			dst = append(dst, Value{Type: l.typ, word: binary.LittleEndian.Uint32(rec[l.off:])})
		default:
			w := binary.LittleEndian.Uint32(rec[l.off:])
			str, ok := d.strs.Lookup(w)
			dst = append(dst, Value{Type: l.typ, word: w, data: str, null: !ok})
		}
	}
	return dst
}
