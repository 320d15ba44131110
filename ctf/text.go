package ctf

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

// Pretty renders events as babeltrace2's `text.pretty` sink does with its
// default options (one line per event):
//
//	[HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) HOSTNAME:PROCNAME:(VPID) NAME: { packet context }, { common context }, { specific context }, { payload }
//
// Times are UTC (babeltrace2 prints local time); a stream without a clock
// prints no time and no delta; the first event's delta is (+?.?????????),
// a delta is the unsigned difference from the previous event; the first
// negative time prints as -S.nnnnnnnnn, later ones as the time of day of
// their absolute value, as babeltrace2 does. The trace environment's
// hostname, procname and vpid print when present. Like babeltrace2 it
// leaves out what its trace IR leaves out: unsigned integers with a role
// (timestamps, sizes, counters, ids, magic, UUID), arrays of them,
// variants whose every option is left out, the packet header, the event
// record header and a packet context with no member left. Enumerations
// (integers with mappings) print as ( "LABEL" : container = N ) with
// every matching label (several in babeltrace2's order, that of its
// libstdc++ hash maps: ctf2meta.BabeltraceMappingOrder), bit maps as 0xN { "FLAG", … }, strings quoted
// with C escapes up to their first NUL, arrays as [ [0] = … ], variants
// and present optionals as { value }, BLOBs as { 0a 1b }, integers in
// their preferred base (hexadecimal and octal values of signed integers
// masked to the nibble or octal digit, binary values with every bit),
// floating point numbers as C's %g.
type Pretty struct {
	last      int64
	started   bool
	negWarned bool // babeltrace2 prints only its first negative time as seconds
	hdrTrace  *Trace
	hdr       string // "HOSTNAME:PROCNAME:(VPID) " of hdrTrace (a string: Pretty stays comparable)
}

// Append appends the line of e (with a final '\n') to dst.
func (p *Pretty) Append(dst []byte, e *Event) []byte {
	if e.Stream.pkt.Class.Clock != nil {
		ns := e.NS()
		dst = append(dst, '[')
		dst = p.appendWall(dst, ns)
		dst = append(dst, "] ("...)
		if !p.started {
			dst = append(dst, "+?.?????????"...)
		} else {
			d := uint64(ns - p.last)
			dst = append(dst, '+')
			dst = strconv.AppendUint(dst, d/1e9, 10)
			dst = append(dst, '.')
			dst = appendPad(dst, d%1e9, 9)
		}
		p.last, p.started = ns, true
		dst = append(dst, ") "...)
	}
	t := e.Stream.t
	if p.hdrTrace != t {
		p.hdrTrace, p.hdr = t, string(appendEnvHeader(nil, t))
	}
	dst = append(dst, p.hdr...)
	dst = append(dst, e.Class.Name...)
	dst = append(dst, ": "...)
	first := true
	scope := func(fs []Field, data []byte, root int32) {
		if !first {
			dst = append(dst, ", "...)
		}
		first = false
		dst = appendField(dst, t, fs, data, int(root))
	}
	pk := &e.Stream.pkt
	if r := pk.ContextRoot; r >= 0 && !allHidden(t.classes[pk.Fields[r].cls]) {
		scope(pk.Fields, pk.data, r)
	}
	for _, r := range [3]int32{e.CommonContext, e.SpecificContext, e.Payload} {
		if r >= 0 {
			scope(e.Fields, e.Stream.data, r)
		}
	}
	return append(dst, '\n')
}

// appendEnvHeader appends what babeltrace2 prints of the trace environment
// before an event's name: "HOSTNAME:PROCNAME:(VPID) ", each when present.
func appendEnvHeader(dst []byte, t *Trace) []byte {
	tc := t.Meta.TraceClass
	if tc == nil || tc.Environment == nil {
		return dst
	}
	dom := false
	if h, ok := tc.Environment["hostname"].(string); ok {
		dst = append(dst, h...)
		dom = true
	}
	if s, ok := tc.Environment["procname"].(string); ok {
		if dom {
			dst = append(dst, ':')
		}
		dst = append(dst, s...)
		dom = true
	}
	if v, ok := envInt(tc.Environment["vpid"]); ok {
		if dom {
			dst = append(dst, ':')
		}
		dst = append(dst, '(')
		dst = strconv.AppendInt(dst, v, 10)
		dst = append(dst, ')')
		dom = true
	}
	if dom {
		dst = append(dst, ' ')
	}
	return dst
}

// appendWall appends a time as babeltrace2's text.pretty sink does
// (print_timestamp_wall, UTC).
func (p *Pretty) appendWall(dst []byte, ns int64) []byte {
	sec, nsec := ns/1e9, ns%1e9 // same signs (truncated division)
	neg := ns < 0
	if neg {
		sec, nsec = -sec, -nsec
	}
	if neg && !p.negWarned {
		p.negWarned = true
		dst = append(dst, '-')
		dst = strconv.AppendInt(dst, sec, 10)
		dst = append(dst, '.')
		return appendPad(dst, uint64(nsec), 9)
	}
	tm := time.Unix(sec, 0).UTC()
	dst = append2(dst, tm.Hour())
	dst = append(dst, ':')
	dst = append2(dst, tm.Minute())
	dst = append(dst, ':')
	dst = append2(dst, tm.Second())
	dst = append(dst, '.')
	return appendPad(dst, uint64(nsec), 9)
}

// envInt returns an integer environment value (the model holds
// ctf2meta.Integer; TSDL metadata parsed before may hold json.Number).
func envInt(v any) (int64, bool) {
	switch x := v.(type) {
	case ctf2meta.Integer:
		return x.Int64()
	case json.Number:
		i, err := x.Int64()
		return i, err == nil
	case int64:
		return x, true
	}
	return 0, false
}

// Hidden reports whether babeltrace2 2.1 leaves a field of this class out
// of its trace IR (and so out of its text): an unsigned integer or BLOB
// with a role, an array or optional of such, or a variant whose every
// option is left out. Structures always stay (possibly empty: { }).
func Hidden(fc *FieldClass) bool {
	switch fc.Kind {
	case KindUint, KindVarUint, KindBlob:
		return fc.roles != 0
	case KindVariant:
		for _, m := range fc.Members {
			if !Hidden(m) {
				return false
			}
		}
		return true
	case KindArray, KindOptional:
		return len(fc.Members) > 0 && Hidden(fc.Members[0])
	}
	return false
}

// allHidden reports whether every member of a structure is hidden:
// babeltrace2 drops such a packet context scope.
func allHidden(fc *FieldClass) bool {
	for _, m := range fc.Members {
		if !Hidden(m) {
			return false
		}
	}
	return true
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

// childAfter returns the index of the sibling after child j of a
// compound field in fs: fs[j].End, or len(fs) (no more) when that is not
// after j. Fields a caller changed (Event.Fields is a view: Next may keep a
// class's End values between its events) cannot make a walk go back or
// read past fs.
func childAfter(fs []Field, j int) int {
	if e := int(fs[j].End); e > j {
		return e
	}
	return len(fs)
}

// appendField renders fs[i] (and its children).
func appendField(dst []byte, t *Trace, fs []Field, data []byte, i int) []byte {
	if i < 0 || i >= len(fs) {
		return dst
	}
	f := &fs[i]
	end := min(int(f.End), len(fs))
	fc := t.classes[f.cls]
	switch fc.Kind {
	case KindStruct:
		dst = append(dst, '{')
		n := 0
		for j := i + 1; j < end; j = childAfter(fs, j) {
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
		for j := i + 1; j < end; j = childAfter(fs, j) {
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
	case KindVariant, KindOptional:
		if j := i + 1; j < end {
			dst = append(dst, "{ "...)
			dst = appendField(dst, t, fs, data, j)
			return append(dst, " }"...)
		}
		return append(dst, "<none>"...)
	case KindString:
		if fc.enc != encUTF8 {
			// convert after dst, quote after that, move the quoted text back
			start := len(dst)
			dst = appendUTF8(dst, data[f.V:f.V+uint64(f.N)], fc.enc)
			mid := len(dst)
			dst = appendQuoted(dst, dst[start:mid])
			return dst[:start+copy(dst[start:], dst[mid:])]
		}
		return appendQuoted(dst, data[f.V:f.V+uint64(f.N)])
	case KindBlob:
		dst = append(dst, "{ "...)
		for _, c := range data[f.V : f.V+uint64(f.N)] {
			dst = append(dst, hexDigits[c>>4], hexDigits[c&15], ' ')
		}
		return append(dst, '}')
	case KindBool:
		if f.V != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case KindFloat:
		return appendCFloat(dst, f.Float())
	}
	switch m := fc.Model.(type) {
	case *ctf2meta.FixedLengthBitArray:
		return appendHex(dst, f.V)
	case *ctf2meta.FixedLengthBitMap:
		return appendBitMap(dst, fc, f.V, m)
	}
	if len(fc.Mappings) > 0 {
		dst = append(dst, "( "...)
		n := 0
		for _, m := range fc.Mappings {
			if inRanges(m.Ranges, f.V, fc.Kind == KindSint || fc.Kind == KindVarSint) {
				n++
			}
		}
		switch n {
		case 0:
			dst = append(dst, "<unknown>"...)
		default:
			if n > 1 {
				dst = append(dst, "{ "...)
			}
			k := 0
			for _, m := range fc.Mappings {
				if inRanges(m.Ranges, f.V, fc.Kind == KindSint || fc.Kind == KindVarSint) {
					if k > 0 {
						dst = append(dst, ", "...)
					}
					dst = appendQuoted(dst, m.Name)
					k++
				}
			}
			if n > 1 {
				dst = append(dst, " }"...)
			}
		}
		dst = append(dst, " : container = "...)
		dst = appendInt(dst, fc, f)
		return append(dst, " )"...)
	}
	return appendInt(dst, fc, f)
}

const hexDigits = "0123456789abcdef"

// appendHex appends 0x and v in upper-case hexadecimal (%PRIX64).
func appendHex(dst []byte, v uint64) []byte {
	dst = append(dst, "0x"...)
	k := len(dst)
	dst = strconv.AppendUint(dst, v, 16)
	for j := k; j < len(dst); j++ {
		if c := dst[j]; c >= 'a' && c <= 'f' {
			dst[j] = c - 'a' + 'A'
		}
	}
	return dst
}

// appendBitMap appends a bit map value and its active flags (a flag is
// active when any of its bits is set), sorted by name, as babeltrace2's
// print_bit_array does.
func appendBitMap(dst []byte, fc *FieldClass, v uint64, m *ctf2meta.FixedLengthBitMap) []byte {
	dst = appendHex(dst, v)
	// fc.Mappings holds the flags in name order (byte-wise, as strcmp).
	n := 0
	for _, fl := range fc.Mappings {
		if v&flagMask(fl.Ranges) == 0 {
			continue
		}
		if n == 0 {
			dst = append(dst, " { "...)
		} else {
			dst = append(dst, ", "...)
		}
		dst = appendQuoted(dst, fl.Name)
		n++
	}
	if n > 0 {
		dst = append(dst, " }"...)
	}
	return dst
}

// flagMask returns the bits of a bit map flag's index ranges.
func flagMask(rs []Range) uint64 {
	var mask uint64
	for _, r := range rs {
		for b := r.Lo; b <= r.Hi && b < 64; b++ {
			mask |= 1 << b
		}
	}
	return mask
}

// appendCFloat appends v as C's printf("%g") does.
func appendCFloat(dst []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(dst, "inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(v):
		if math.Signbit(v) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, v, 'g', 6, 64)
}

// appendInt appends an integer in its preferred display base as
// babeltrace2's print_integer does.
func appendInt(dst []byte, fc *FieldClass, f *Field) []byte {
	signed := fc.Kind == KindSint || fc.Kind == KindVarSint
	n := uint(fc.Bits)
	if n == 0 || n > 64 {
		n = 64 // variable-length integers: a 64-bit field value range
	}
	switch fc.Base {
	case 16:
		v := f.V
		if r := (n + 3) &^ 3; r < 64 {
			v &= 1<<r - 1
		}
		return appendHex(dst, v)
	case 8:
		v := f.V
		if r := (n + 2) / 3 * 3; signed && r < 64 {
			v &= 1<<r - 1
		}
		dst = append(dst, '0')
		return strconv.AppendUint(dst, v, 8)
	case 2:
		dst = append(dst, "0b"...)
		for b := int(n) - 1; b >= 0; b-- {
			dst = append(dst, byte('0'+f.V>>uint(b)&1))
		}
		return dst
	}
	if signed {
		return strconv.AppendInt(dst, int64(f.V), 10)
	}
	return strconv.AppendUint(dst, f.V, 10)
}

// appendQuoted appends b up to its first NUL, quoted with the escapes of
// babeltrace2's print_escape_string.
func appendQuoted[T string | []byte](dst []byte, b T) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case 0:
			return append(dst, '"')
		case '\\', '\'', '"', '?':
			dst = append(dst, '\\', c)
			continue
		}
		if c >= 0x20 && c != 0x7f {
			dst = append(dst, c)
			continue
		}
		switch c {
		case '\a':
			dst = append(dst, '\\', 'a')
		case '\b':
			dst = append(dst, '\\', 'b')
		case 0x1b:
			dst = append(dst, '\\', 'e')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\v':
			dst = append(dst, '\\', 'v')
		default:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return append(dst, '"')
}
