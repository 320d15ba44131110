package ctf

import (
	"math"
	"strconv"
	"time"
)

// Pretty renders events as babeltrace2's `text.pretty` sink does with its
// default options (one line per event):
//
//	[HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) HOSTNAME NAME: { packet context }, { common context }, { specific context }, { payload }
//
// Times are UTC (babeltrace2 prints local time). Like babeltrace2 it hides
// the fields the CTF reader consumes (unsigned integers with a role:
// timestamps, sizes, counters, ids, magic, UUID), the packet header and the
// event record header, and a scope with no field left; enumerations (integers
// with mappings) print as ( "LABEL" : container = N ), strings quoted with
// C escapes, arrays as [ [0] = … ], variants as { option = … }, floating
// point numbers with %g. The first event's delta is (+?.?????????).
type Pretty struct {
	last    int64
	started bool
}

// Append appends the line of e (with a final '\n') to dst.
func (p *Pretty) Append(dst []byte, e *Event) []byte {
	ns := e.NS()
	dst = append(dst, '[')
	if e.Stream.pkt.Class.Clock != nil {
		tm := time.Unix(0, 0).Add(time.Duration(ns)).UTC()
		if ns < 0 || ns > math.MaxInt64/2 {
			tm = time.Unix(ns/1e9, ns%1e9).UTC()
		}
		dst = append2(dst, tm.Hour())
		dst = append(dst, ':')
		dst = append2(dst, tm.Minute())
		dst = append(dst, ':')
		dst = append2(dst, tm.Second())
		dst = append(dst, '.')
		dst = appendPad(dst, uint64(tm.Nanosecond()), 9)
	} else {
		dst = strconv.AppendUint(dst, e.Cycles, 10)
	}
	dst = append(dst, "] ("...)
	if !p.started {
		dst = append(dst, "+?.?????????"...)
	} else {
		d := ns - p.last
		dst = append(dst, '+')
		if d < 0 {
			dst = append(dst[:len(dst)-1], '-')
			d = -d
		}
		dst = strconv.AppendInt(dst, d/1e9, 10)
		dst = append(dst, '.')
		dst = appendPad(dst, uint64(d%1e9), 9)
	}
	p.last, p.started = ns, true
	dst = append(dst, ") "...)
	if tc := e.Stream.t.Meta.TraceClass; tc != nil {
		if h, ok := tc.Environment["hostname"].(string); ok {
			dst = append(dst, h...)
			dst = append(dst, ' ')
		}
	}
	dst = append(dst, e.Class.Name...)
	dst = append(dst, ": "...)
	first := true
	t := e.Stream.t
	scope := func(fs []Field, data []byte, root int32) {
		if root < 0 || Hidden(t.classes[fs[root].cls]) {
			return
		}
		if !first {
			dst = append(dst, ", "...)
		}
		first = false
		dst = appendField(dst, t, fs, data, int(root))
	}
	pk := &e.Stream.pkt
	scope(pk.Fields, pk.data, pk.ContextRoot)
	scope(e.Fields, e.Stream.data, e.CommonContext)
	scope(e.Fields, e.Stream.data, e.SpecificContext)
	scope(e.Fields, e.Stream.data, e.Payload)
	return append(dst, '\n')
}

// Hidden reports whether babeltrace2 leaves a field of this class out of
// its trace IR (and so out of its text): an unsigned integer with a role,
// or a structure, array or variant with nothing else inside.
func Hidden(fc *FieldClass) bool {
	switch fc.Kind {
	case KindUint, KindVarUint:
		return fc.roles != 0
	case KindBlob:
		return fc.roles != 0
	case KindStruct, KindVariant:
		for _, m := range fc.Members {
			if !Hidden(m) {
				return false
			}
		}
		return true
	case KindArray, KindOptional:
		return Hidden(fc.Members[0])
	}
	return false
}

func append2(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/10), byte('0'+v%10))
}

func appendPad(dst []byte, v uint64, w int) []byte {
	var b [20]byte
	s := strconv.AppendUint(b[:0], v, 10)
	for i := len(s); i < w; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendField renders fs[i] (and its children).
func appendField(dst []byte, t *Trace, fs []Field, data []byte, i int) []byte {
	f := &fs[i]
	fc := t.classes[f.cls]
	switch fc.Kind {
	case KindStruct:
		dst = append(dst, '{')
		n := 0
		for j := i + 1; j < int(f.End); j = int(fs[j].End) {
			if Hidden(t.classes[fs[j].cls]) {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, ' ')
			dst = append(dst, t.classes[fs[j].cls].Name...)
			dst = append(dst, " = "...)
			dst = appendField(dst, t, fs, data, j)
			n++
		}
		return append(dst, " }"...)
	case KindArray:
		dst = append(dst, '[')
		k := 0
		for j := i + 1; j < int(f.End); j = int(fs[j].End) {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, " ["...)
			dst = strconv.AppendInt(dst, int64(k), 10)
			dst = append(dst, "] = "...)
			dst = appendField(dst, t, fs, data, j)
			k++
		}
		return append(dst, " ]"...)
	case KindVariant:
		dst = append(dst, "{ "...)
		if j := i + 1; j < int(f.End) {
			dst = append(dst, t.classes[fs[j].cls].Name...)
			dst = append(dst, " = "...)
			dst = appendField(dst, t, fs, data, j)
		}
		return append(dst, " }"...)
	case KindOptional:
		if j := i + 1; j < int(f.End) {
			return appendField(dst, t, fs, data, j)
		}
		return append(dst, "<none>"...)
	case KindString:
		return appendQuoted(dst, data[f.V:f.V+uint64(f.N)])
	case KindBlob:
		dst = append(dst, '[')
		for k, c := range data[f.V : f.V+uint64(f.N)] {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, " 0x"...)
			dst = append(dst, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
		return append(dst, " ]"...)
	case KindBool:
		if f.V != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case KindFloat:
		return strconv.AppendFloat(dst, f.Float(), 'g', 6, 64)
	}
	if len(fc.Mappings) > 0 {
		var labels [8]string
		n := 0
		for _, m := range fc.Mappings {
			if inRanges(m.Ranges, f.V, fc.Kind == KindSint || fc.Kind == KindVarSint) && n < len(labels) {
				labels[n] = m.Name
				n++
			}
		}
		dst = append(dst, "( "...)
		switch n {
		case 0:
			dst = append(dst, "<unknown>"...)
		case 1:
			dst = strconv.AppendQuote(dst, labels[0])
		default:
			dst = append(dst, "{ "...)
			for k := 0; k < n; k++ {
				if k > 0 {
					dst = append(dst, ", "...)
				}
				dst = strconv.AppendQuote(dst, labels[k])
			}
			dst = append(dst, " }"...)
		}
		dst = append(dst, " : container = "...)
		dst = appendInt(dst, fc, f, 10)
		return append(dst, " )"...)
	}
	return appendInt(dst, fc, f, fc.Base)
}

func appendInt(dst []byte, fc *FieldClass, f *Field, base int) []byte {
	signed := fc.Kind == KindSint || fc.Kind == KindVarSint
	switch base {
	case 16:
		dst = append(dst, "0x"...)
		k := len(dst)
		dst = strconv.AppendUint(dst, maskBits(fc, f), 16)
		for j := k; j < len(dst); j++ { // babeltrace2 prints %PRIX64
			if c := dst[j]; c >= 'a' && c <= 'f' {
				dst[j] = c - 'a' + 'A'
			}
		}
		return dst
	case 8:
		dst = append(dst, '0')
		return strconv.AppendUint(dst, maskBits(fc, f), 8)
	case 2:
		dst = append(dst, "0b"...)
		return strconv.AppendUint(dst, maskBits(fc, f), 2)
	}
	if signed {
		return strconv.AppendInt(dst, int64(f.V), 10)
	}
	return strconv.AppendUint(dst, f.V, 10)
}

// maskBits returns the raw bits of a (maybe sign-extended) integer.
func maskBits(fc *FieldClass, f *Field) uint64 {
	n := fc.Bits
	if n == 0 || n >= 64 {
		return f.V
	}
	return f.V & (1<<n - 1)
}

func appendQuoted(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	for _, c := range b {
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\v':
			dst = append(dst, '\\', 'v')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\a':
			dst = append(dst, '\\', 'a')
		case '\b':
			dst = append(dst, '\\', 'b')
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
