package wtfcff

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strconv"
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

// strArg is a string-table argument: its index and its layout offset.
type strArg struct{ arg, off int32 }

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
		if l.str {
			t.strArgs = append(t.strArgs, strArg{arg: int32(i), off: l.off})
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
	n := len(dst)
	if cap(dst)-n < len(t.layout) {
		dst = slices.Grow(dst, len(t.layout))
	}
	dst = dst[:n+len(t.layout)]
	out := dst[n:]
	layout := t.layout[:len(out)]
	for i := range layout {
		l := &layout[i]
		if l.off < 0 {
			out[i] = d.value(i)
			continue
		}
		v := Value{Type: l.typ, word: binary.LittleEndian.Uint32(rec[l.off:])}
		if l.str {
			v.data, v.null = d.strs.Lookup(v.word)
			v.null = !v.null
		}
		out[i] = v
	}
	return dst
}

// appendArgJSON appends argument i of e as Value.AppendJSON does, reading
// one-slot numbers straight from the record.
func appendArgJSON(b []byte, e *Event, i int) []byte {
	if a := e.Type.direct[i]; int(a.off) < len(e.rec) {
		w := binary.LittleEndian.Uint32(e.rec[a.off:])
		switch a.typ {
		case ArgInt32:
			return appendInt32(b, int32(w))
		case ArgUint32, ArgFlowID, ArgTime32:
			return appendUint32(b, w)
		case ArgUint8:
			return appendUint32(b, uint32(uint8(w)))
		case ArgUint16:
			return appendUint32(b, uint32(uint16(w)))
		case ArgInt8:
			return appendInt32(b, int32(int8(w)))
		case ArgInt16:
			return appendInt32(b, int32(int16(w)))
		case ArgBool:
			return strconv.AppendBool(b, w&0xFF != 0)
		case ArgFloat32:
			return appendFloat32(b, math.Float32frombits(w))
		}
	}
	if l := &e.Type.layout[i]; l.str && l.off >= 0 && e.rec != nil && l.typ != ArgAny {
		// An ascii or utf8 ordinal at a fixed offset, as Value.AppendJSON
		// writes it.
		str, ok := e.d.strs.Lookup(binary.LittleEndian.Uint32(e.rec[l.off:]))
		if !ok {
			return append(b, "null"...)
		}
		return appendJSONBytes(b, str)
	}
	return e.Arg(i).AppendJSON(b)
}

// decimalPairs holds "00" to "99".
const decimalPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// appendUint32 appends v in decimal, as strconv.AppendUint does.
func appendUint32(b []byte, v uint32) []byte {
	if v < 10 {
		return append(b, byte('0'+v))
	}
	var buf [10]byte
	i := len(buf)
	for v >= 100 {
		q := v / 100
		r := 2 * (v - 100*q)
		i -= 2
		buf[i], buf[i+1] = decimalPairs[r], decimalPairs[r+1]
		v = q
	}
	if v >= 10 {
		i -= 2
		buf[i], buf[i+1] = decimalPairs[2*v], decimalPairs[2*v+1]
	} else {
		i--
		buf[i] = byte('0' + v)
	}
	return append(b, buf[i:]...)
}

// appendInt32 appends v in decimal, as strconv.AppendInt does.
func appendInt32(b []byte, v int32) []byte {
	if v < 0 {
		return appendUint32(append(b, '-'), uint32(-int64(v)))
	}
	return appendUint32(b, uint32(v))
}
