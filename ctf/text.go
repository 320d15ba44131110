package ctf

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"slices"
	"strconv"

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
// floating point numbers as C's %g. It prints from what NewTrace compiled
// of the metadata (the display form of each field class, the text between
// values, kept up to 1 MiB a trace) and from what the stream keeps of its
// packet's context (text up to 4 KiB).
type Pretty struct {
	last      int64
	started   bool
	negWarned bool // babeltrace2 prints only its first negative time as seconds
	hdrTrace  *Trace
	hdr       string  // "HOSTNAME:PROCNAME:(VPID) " of hdrTrace (a string: Pretty stays comparable)
	sec       int64   // the second of the last time printed as a time of day
	secOK     bool    // hms holds sec's time of day
	hms       [8]byte // "HH:MM:SS" of sec
}

// Append appends the line of e (with a final '\n') to dst.
func (p *Pretty) Append(dst []byte, e *Event) []byte {
	st := e.Stream
	if st.pkt.Class.Clock != nil {
		dst = p.appendTimes(dst, e.NS())
	}
	t := st.t
	if cc := e.Class.classCode; cc != nil && cc.head != "" {
		dst = append(dst, cc.head...)
	} else {
		if p.hdrTrace != t {
			p.hdrTrace, p.hdr = t, string(appendEnvHeader(nil, t))
		}
		dst = append(dst, p.hdr...)
		dst = append(dst, e.Class.Name...)
		dst = append(dst, ": "...)
	}
	sep := false
	pk := &st.pkt
	if r := pk.ContextRoot; r >= 0 && !t.classes[pk.Fields[r].cls].allHid {
		// the same for each event record of the packet: kept by the
		// stream (up to maxContextText bytes) until its next packet
		if pk.textOK {
			dst = append(dst, st.ctxText...)
		} else {
			n := len(dst)
			dst = appendField(dst, t, pk.Fields, pk.data, int(r))
			if len(dst)-n <= maxContextText {
				st.ctxText = append(st.ctxText[:0], dst[n:]...)
				pk.textOK = true
			}
		}
		sep = true
	}
	// the common context, specific context and payload: the same three
	// steps (not a loop over an array of them: fewer instructions)
	fs, data := e.Fields, st.data
	if r := e.CommonContext; r >= 0 {
		if sep {
			dst = append(dst, ", "...)
		}
		sep = true
		dst = appendField(dst, t, fs, data, int(r))
	}
	if r := e.SpecificContext; r >= 0 {
		if sep {
			dst = append(dst, ", "...)
		}
		sep = true
		dst = appendField(dst, t, fs, data, int(r))
	}
	if r := e.Payload; r >= 0 {
		if sep {
			dst = append(dst, ", "...)
		}
		dst = appendField(dst, t, fs, data, int(r))
	}
	return append(dst, '\n')
}

// maxContextText bounds the text of a packet context a stream keeps for
// Pretty (Stream.ctxText).
const maxContextText = 4 << 10

// appendTimes appends "[TIME] (+DELTA) " for an event at ns.
func (p *Pretty) appendTimes(dst []byte, ns int64) []byte {
	if ns < 0 && !p.negWarned {
		dst = append(dst, '[')
		dst = p.appendWall(dst, ns)
		dst = append(dst, "] ("...)
	} else {
		// "[HH:MM:SS.nnnnnnnnn] (" of the absolute value, written in place
		sec, nsec := ns/1e9, ns%1e9 // same signs (truncated division)
		if ns < 0 {
			sec, nsec = -sec, -nsec
		}
		if sec != p.sec || !p.secOK {
			tod := uint64(sec) % 86400 // UTC: days of 86400 s
			b := p.hms[:]
			put2(b[0:], tod/3600)
			b[2] = ':'
			put2(b[3:], tod/60%60)
			b[5] = ':'
			put2(b[6:], tod%60)
			p.sec, p.secOK = sec, true
		}
		var n int
		dst, n = grow(dst, 22)
		b := dst[n : n+22]
		b[0] = '['
		*(*[8]byte)(b[1:9]) = p.hms
		b[9] = '.'
		put9(b[10:], uint64(nsec))
		b[19], b[20], b[21] = ']', ' ', '('
	}
	if !p.started {
		dst = append(dst, "+?.?????????) "...)
	} else {
		d := uint64(ns - p.last)
		if d < 1e9 {
			var n int
			dst, n = grow(dst, 14)
			b := dst[n : n+14]
			b[0], b[1], b[2] = '+', '0', '.'
			put9(b[3:], d)
			b[12], b[13] = ')', ' '
		} else {
			dst = append(dst, '+')
			dst = appendDec(dst, d/1e9)
			dst = append(dst, '.')
			dst = appendPad(dst, d%1e9, 9)
			dst = append(dst, ") "...)
		}
	}
	p.last, p.started = ns, true
	return dst
}

// digits2 holds the two decimal digits of 0 to 99.
const digits2 = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// put2 writes v (< 100) as two digits to b.
func put2(b []byte, v uint64) {
	_ = b[1]
	b[0], b[1] = digits2[v*2], digits2[v*2+1]
}

// digits3 holds the three decimal digits of 0 to 999, little-endian in
// the low three bytes.
var digits3 = func() (d [1000]uint32) {
	for i := range d {
		d[i] = uint32('0'+i/100) | uint32('0'+i/10%10)<<8 | uint32('0'+i%10)<<16
	}
	return d
}()

// put9 writes v (< 1e9) as nine digits to b[:9]; it writes b[9] too (the
// byte after, len(b) ≥ 10: the caller writes it after).
func put9(b []byte, v uint64) {
	_ = b[9]
	hi, lo := v/1e6, v%1e6
	mid, lo := lo/1e3, lo%1e3
	binary.LittleEndian.PutUint32(b[0:], digits3[hi%1000])
	binary.LittleEndian.PutUint32(b[3:], digits3[mid])
	binary.LittleEndian.PutUint32(b[6:], digits3[lo])
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

// appendWall appends the first negative time as babeltrace2's text.pretty
// sink does (print_timestamp_wall): -S.nnnnnnnnn.
func (p *Pretty) appendWall(dst []byte, ns int64) []byte {
	sec, nsec := -(ns / 1e9), -(ns % 1e9) // same signs (truncated division)
	p.negWarned = true
	dst = append(dst, '-')
	dst = strconv.AppendInt(dst, sec, 10)
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

// appendPad appends v in decimal, zero-padded to w digits.
func appendPad(dst []byte, v uint64, w int) []byte {
	var b [20]byte
	s := appendDec(b[:0], v)
	for i := len(s); i < w; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// pow10 holds 10^0 to 10^19.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// grow returns dst extended by n bytes (to be written) and the index of the
// first of them.
func grow(dst []byte, n int) ([]byte, int) {
	l := len(dst)
	if cap(dst)-l < n {
		dst = slices.Grow(dst, n)
	}
	return dst[:l+n], l
}

// appendSdec appends the signed integer v (two's complement) in decimal.
func appendSdec(dst []byte, v uint64) []byte {
	if int64(v) < 0 {
		dst = append(dst, '-')
		v = -v
	}
	return appendDec(dst, v)
}

// appendDec appends v in decimal.
func appendDec(dst []byte, v uint64) []byte {
	switch {
	case v < 10:
		return append(dst, byte('0'+v))
	case v < 100:
		return append(dst, digits2[v*2], digits2[v*2+1])
	case v < 1000:
		d := digits3[v]
		return append(dst, byte(d), byte(d>>8), byte(d>>16))
	case v < 10000:
		q, r := v/100, v%100
		return append(dst, digits2[q*2], digits2[q*2+1], digits2[r*2], digits2[r*2+1])
	}
	n := bits.Len64(v) * 1233 >> 12 // log10 of 2^Len64, rounded down
	if v >= pow10[n] {
		n++
	}
	dst, l := grow(dst, n)
	b := dst[l:]
	i := n
	for v >= 100 && i >= 2 {
		q := v / 100
		r := v - q*100
		i -= 2
		b[i], b[i+1] = digits2[r*2], digits2[r*2+1]
		v = q
	}
	if v >= 10 && i == 2 {
		b[0], b[1] = digits2[v*2], digits2[v*2+1]
	} else if i == 1 {
		b[0] = byte('0' + v)
	}
	return dst
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
	fc := t.classes[f.cls]
	switch fc.show {
	case showUdec:
		return appendDec(dst, f.V)
	case showSdec:
		return appendSdec(dst, f.V)
	case showStruct:
		end := min(int(f.End), len(fs))
		n := 0
		for j := i + 1; j < end; j = childAfter(fs, j) {
			mc := t.classes[fs[j].cls]
			if mc.hidden {
				continue
			}
			if pre := mc.pre; pre != "" {
				// ", NAME = ", its comma the brace of the first member
				dst = append(dst, pre...)
				if n == 0 {
					dst[len(dst)-len(pre)] = '{'
				}
			} else {
				if n == 0 {
					dst = append(dst, "{ "...)
				} else {
					dst = append(dst, ", "...)
				}
				dst = append(dst, mc.Name...)
				dst = append(dst, " = "...)
			}
			switch v := fs[j].V; mc.show {
			case showUdec:
				dst = appendDec(dst, v)
			case showSdec:
				dst = appendSdec(dst, v)
			case showInt:
				dst = appendInt(dst, mc, &fs[j])
			case showEnum:
				dst = appendEnum(dst, mc, &fs[j])
			case showString:
				if mc.enc != encUTF8 {
					dst = appendField(dst, t, fs, data, j)
					break
				}
				f := &fs[j]
				dst = appendQuoted(dst, data[f.V:f.V+uint64(f.N)])
			default:
				dst = appendField(dst, t, fs, data, j)
			}
			n++
		}
		if n == 0 {
			return append(dst, "{ }"...)
		}
		return append(dst, " }"...)
	case showArray:
		end := min(int(f.End), len(fs))
		dst = append(dst, '[')
		k := 0
		for j := i + 1; j < end; j = childAfter(fs, j) {
			switch {
			case k == 0:
				dst = append(dst, " [0] = "...)
			case k < 10:
				dst = append(dst, ',', ' ', '[', byte('0'+k), ']', ' ', '=', ' ')
			default:
				dst = append(dst, ", ["...)
				dst = appendDec(dst, uint64(k))
				dst = append(dst, "] = "...)
			}
			dst = appendField(dst, t, fs, data, j)
			k++
		}
		return append(dst, " ]"...)
	case showVariant:
		if j := i + 1; j < min(int(f.End), len(fs)) {
			dst = append(dst, "{ "...)
			dst = appendField(dst, t, fs, data, j)
			return append(dst, " }"...)
		}
		return append(dst, "<none>"...)
	case showString:
		if fc.enc != encUTF8 {
			// convert after dst, quote after that, move the quoted text back
			start := len(dst)
			dst = appendUTF8(dst, data[f.V:f.V+uint64(f.N)], fc.enc)
			mid := len(dst)
			dst = appendQuoted(dst, dst[start:mid])
			return dst[:start+copy(dst[start:], dst[mid:])]
		}
		return appendQuoted(dst, data[f.V:f.V+uint64(f.N)])
	case showBlob:
		dst = append(dst, "{ "...)
		for _, c := range data[f.V : f.V+uint64(f.N)] {
			dst = append(dst, hexDigits[c>>4], hexDigits[c&15], ' ')
		}
		return append(dst, '}')
	case showBool:
		if f.V != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case showFloat:
		return appendCFloat(dst, f.Float())
	case showBitArray:
		return appendHex(dst, f.V)
	case showBitMap:
		return appendBitMap(dst, fc, f.V)
	case showEnum:
		return appendEnum(dst, fc, f)
	}
	return appendInt(dst, fc, f)
}

// appendEnum appends an integer with mappings: ( "LABEL" : container = N ),
// ( { "A", "B" } : container = N ) or ( <unknown> : container = N ).
func appendEnum(dst []byte, fc *FieldClass, f *Field) []byte {
	signed := fc.Kind == KindSint || fc.Kind == KindVarSint
	n, first := 0, 0
	for k := range fc.Mappings {
		if inRanges(fc.Mappings[k].Ranges, f.V, signed) {
			if n == 0 {
				first = k
			}
			n++
		}
	}
	switch {
	case n == 1 && first < len(fc.labels) && fc.labels[first] != "":
		dst = append(dst, fc.labels[first]...)
	case n == 0:
		dst = append(dst, "( <unknown> : container = "...)
	default:
		dst = append(dst, "( "...)
		if n > 1 {
			dst = append(dst, "{ "...)
		}
		k := 0
		for _, m := range fc.Mappings[first:] {
			if inRanges(m.Ranges, f.V, signed) {
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
		dst = append(dst, " : container = "...)
	}
	dst = appendInt(dst, fc, f)
	return append(dst, " )"...)
}

const hexDigits = "0123456789abcdef"

// appendHex appends 0x and v in upper-case hexadecimal (%PRIX64).
func appendHex(dst []byte, v uint64) []byte {
	n := max((bits.Len64(v)+3)/4, 1) // digits
	v <<= 4 * uint(16-n)             // the first digit on top
	dst, l := grow(dst, 18)
	b := dst[l : l+18]
	b[0], b[1] = '0', 'x'
	binary.BigEndian.PutUint64(b[2:], hexDigits8(uint32(v>>32)))
	if n > 8 {
		binary.BigEndian.PutUint64(b[10:], hexDigits8(uint32(v)))
	}
	return dst[:l+2+n]
}

// hexDigits8 returns the eight upper-case hexadecimal digits of x, the
// first in the top byte.
func hexDigits8(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000FFFF0000FFFF
	v = (v | v<<8) & 0x00FF00FF00FF00FF
	v = (v | v<<4) & 0x0F0F0F0F0F0F0F0F // a nibble a byte
	letters := (v + 0x0606060606060606) >> 4 & 0x0101010101010101
	return v + 0x3030303030303030 + letters*('A'-'0'-10)
}

// appendBitMap appends a bit map value and its active flags (a flag is
// active when any of its bits is set), sorted by name, as babeltrace2's
// print_bit_array does.
func appendBitMap(dst []byte, fc *FieldClass, v uint64) []byte {
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
		return appendSdec(dst, f.V)
	}
	return appendDec(dst, f.V)
}

// quotePlain marks the bytes appendQuoted copies as they are.
var quotePlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != 0x7f && c != '\\' && c != '\'' && c != '"' && c != '?'
	}
	return t
}()

// appendQuoted appends b up to its first NUL, quoted with the escapes of
// babeltrace2's print_escape_string.
func appendQuoted[T string | []byte](dst []byte, b T) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(b); i++ {
		j := i
		for j < len(b) && quotePlain[b[j]] {
			j++
		}
		dst = append(dst, b[i:j]...)
		if j == len(b) {
			break
		}
		i = j
		c := b[i]
		switch c {
		case 0:
			return append(dst, '"')
		case '\\', '\'', '"', '?':
			dst = append(dst, '\\', c)
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

// Display forms of a field class (FieldClass.show), set by setText.
const (
	showInt      uint8 = iota // an integer in base 2, 8 or 16 (appendInt)
	showUdec                  // an unsigned integer in decimal
	showSdec                  // a signed integer in decimal
	showEnum                  // an integer with mappings
	showBitArray              // a bit array: 0xN
	showBitMap                // a bit map: 0xN { "FLAG", … }
	showStruct
	showArray
	showVariant // variant or optional
	showString
	showBlob
	showBool
	showFloat
)

// textBudget bounds the bytes of constant text setText keeps for a trace
// (FieldClass.pre, FieldClass.labels, classCode.head): 1 MiB, whatever the
// metadata (many field or event record classes, long names, many labels;
// Limits.MaxFieldClasses bounds the classes, not their names). Text past it
// is not kept: Pretty prints those names from the classes, as fast as it
// did before it kept any.
var textBudget = 1 << 20

// setText sets how Pretty prints each field class (show, hidden, allHid)
// and keeps, within textBudget bytes, the constant text around values:
// ", NAME = " before each shown structure member, `( "LABEL" : container = `
// before an integer with one matching mapping, and
// "HOSTNAME:PROCNAME:(VPID) NAME: " before each event record. It returns
// the bytes kept.
func (t *Trace) setText() int {
	cs := t.classes
	// children are compiled after their parent: from the last class
	// back, a member's hidden is set before its parent's
	hid := func(fc, m *FieldClass) bool {
		if m.id > fc.id {
			return m.hidden
		}
		return Hidden(m)
	}
	every := func(fc *FieldClass) bool { // every member hidden
		for _, m := range fc.Members {
			if !hid(fc, m) {
				return false
			}
		}
		return true
	}
	for i := len(cs) - 1; i >= 0; i-- {
		fc := cs[i]
		fc.show = showOf(fc)
		switch fc.Kind {
		case KindUint, KindVarUint, KindBlob:
			fc.hidden = fc.roles != 0
		case KindVariant:
			fc.hidden = every(fc)
		case KindArray, KindOptional:
			fc.hidden = len(fc.Members) > 0 && hid(fc, fc.Members[0])
		case KindStruct:
			fc.allHid = every(fc)
		}
	}
	// the text kept goes to one string, the strings kept its substrings
	var arena []byte
	type keptText struct {
		dst    *string
		off, n uint32
	}
	var ks []keptText
	left := textBudget
	keep := func(dst *string, most int, write func([]byte) []byte) bool {
		if most > left {
			return false
		}
		off := len(arena)
		arena = write(arena)
		n := len(arena) - off
		left -= n
		ks = append(ks, keptText{dst, uint32(off), uint32(n)})
		return true
	}
	if len(t.dscs) > 0 {
		hdr := appendEnvHeader(nil, t)
		ids := make([]uint64, 0, len(t.dscs))
		for id := range t.dscs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			sc := t.dscs[id]
			evs := make([]uint64, 0, len(sc.events))
			for id := range sc.events {
				evs = append(evs, id)
			}
			slices.Sort(evs)
			for _, id := range evs {
				if ec := sc.events[id]; ec.classCode != nil {
					keep(&ec.head, len(hdr)+len(ec.Name)+2, func(b []byte) []byte {
						return append(append(append(b, hdr...), ec.Name...), ": "...)
					})
				}
			}
		}
	}
	for _, fc := range cs {
		switch fc.show {
		case showStruct:
			for _, m := range fc.Members {
				if !m.hidden {
					keep(&m.pre, len(m.Name)+5, func(b []byte) []byte {
						return append(append(append(b, ", "...), m.Name...), " = "...)
					})
				}
			}
		case showEnum:
			// a label quotes to at most 4 bytes a byte; a string header
			// is 16 bytes
			most := 16 * len(fc.Mappings)
			for _, m := range fc.Mappings {
				most += 4*len(m.Name) + 19
			}
			if most > left {
				continue
			}
			fc.labels = make([]string, len(fc.Mappings))
			left -= 16 * len(fc.labels)
			for k, m := range fc.Mappings {
				keep(&fc.labels[k], 4*len(m.Name)+19, func(b []byte) []byte {
					return append(appendQuoted(append(b, "( "...), m.Name), " : container = "...)
				})
			}
		}
	}
	if len(ks) == 0 {
		return textBudget - left
	}
	text := string(arena)
	for _, k := range ks {
		*k.dst = text[k.off : k.off+k.n]
	}
	return textBudget - left
}

// showOf returns the display form of a field class.
func showOf(fc *FieldClass) uint8 {
	switch fc.Kind {
	case KindStruct:
		return showStruct
	case KindArray:
		return showArray
	case KindVariant, KindOptional:
		return showVariant
	case KindString:
		return showString
	case KindBlob:
		return showBlob
	case KindBool:
		return showBool
	case KindFloat:
		return showFloat
	}
	switch fc.Model.(type) {
	case *ctf2meta.FixedLengthBitArray:
		return showBitArray
	case *ctf2meta.FixedLengthBitMap:
		return showBitMap
	}
	switch {
	case len(fc.Mappings) > 0:
		return showEnum
	case fc.Base == 2 || fc.Base == 8 || fc.Base == 16:
		return showInt
	case fc.Kind == KindSint || fc.Kind == KindVarSint:
		return showSdec
	}
	return showUdec
}
