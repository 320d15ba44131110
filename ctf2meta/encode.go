package ctf2meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MarshalFragment returns the compact JSON text of f (keys in alphabetical
// order, like babeltrace 2.1 and LTTng 2.15), without RS. Properties equal to
// their default are omitted unless the decoded object had them; decoding the
// text gives back f. babeltrace 2.1.2's CTF 2 output is reproduced byte for
// byte.
func MarshalFragment(f Fragment) ([]byte, error) { return marshalFragment(f, "") }

// marshalFragment is MarshalFragment with an indent per level ("" = compact).
func marshalFragment(f Fragment, indent string) ([]byte, error) {
	v, err := fragmentValue(f)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetIndent("", indent)
	e.SetEscapeHTML(false) // babeltrace writes <, > and & as they are
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// AppendFragment appends RS, the JSON text of f and, if lf, an LF (the
// RFC 7464 form) to dst.
func AppendFragment(dst []byte, f Fragment, lf bool) ([]byte, error) {
	return appendFragment(dst, f, lf, "")
}

func appendFragment(dst []byte, f Fragment, lf bool, indent string) ([]byte, error) {
	b, err := marshalFragment(f, indent)
	if err != nil {
		return dst, err
	}
	dst = append(dst, RS)
	dst = append(dst, b...)
	if lf {
		dst = append(dst, '\n')
	}
	return dst, nil
}

// FragmentWriter writes fragments as a CTF 2 metadata stream (an RFC 7464
// JSON text sequence): RS, then each fragment's JSON text with sorted keys,
// compact by default (the babeltrace 2.1 form) or indented (WithIndent, the
// LTTng 2.15 form), followed by LF with WithLF(true). To write packetized
// metadata, give it a packet Writer as w.
//
// Each WriteFragment writes its fragment to w in one Write call; Flush and
// Close do not flush or close w. Errors are sticky; use after Close returns
// ErrClosed. A FragmentWriter is not safe for concurrent use.
type FragmentWriter struct {
	w      io.Writer
	o      writerOptions
	buf    []byte
	n      int
	err    error
	closed bool
}

// WithIndent makes a FragmentWriter pretty-print each fragment with indent
// per nesting level, as LTTng 2.15 does with two spaces (default "": compact,
// as babeltrace 2.1). indent may hold only spaces and tabs.
func WithIndent(indent string) WriterOption {
	return func(o *writerOptions) error {
		for i := 0; i < len(indent); i++ {
			if indent[i] != ' ' && indent[i] != '\t' {
				return fmt.Errorf("ctf2meta: WithIndent: %q is not spaces and tabs", indent)
			}
		}
		o.fragmentOpt = "WithIndent"
		o.indent = indent
		return nil
	}
}

// WithLF makes a FragmentWriter write LF after each fragment, the form RFC
// 7464 recommends (default false: babeltrace 2.1 and LTTng 2.15 write no LF).
// Readers accept both forms.
func WithLF(lf bool) WriterOption {
	return func(o *writerOptions) error {
		o.fragmentOpt = "WithLF"
		o.lf = lf
		return nil
	}
}

// NewFragmentWriter returns a FragmentWriter writing to w. It accepts the
// fragment options WithIndent and WithLF.
func NewFragmentWriter(w io.Writer, opts ...WriterOption) (*FragmentWriter, error) {
	o, err := buildWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.packetOpt != "" {
		return nil, errors.New("ctf2meta: " + o.packetOpt + " applies to a packet Writer, not to a FragmentWriter: pass NewFragmentWriter a packet Writer")
	}
	return &FragmentWriter{w: w, o: o}, nil
}

// WriteFragment writes one fragment. It checks only that f can be encoded;
// the rules spanning fragments (preamble first, ids unique, …) are the
// caller's, as FragmentReader checks them on reading.
func (e *FragmentWriter) WriteFragment(f Fragment) error {
	if e.err != nil {
		return e.err
	}
	if e.closed {
		return ErrClosed
	}
	b, err := appendFragment(e.buf[:0], f, e.o.lf, e.o.indent)
	if err != nil {
		return err
	}
	e.buf = b
	if _, err := e.w.Write(b); err != nil {
		e.err = err
		return err
	}
	e.n++
	return nil
}

// Fragments returns the number of fragments written.
func (e *FragmentWriter) Fragments() int { return e.n }

// Flush returns the sticky error, if any: every fragment is already handed
// to the underlying writer by WriteFragment, which Flush does not flush.
func (e *FragmentWriter) Flush() error {
	if e.err != nil {
		return e.err
	}
	if e.closed {
		return ErrClosed
	}
	return nil
}

// Close ends the stream; it does not close the underlying writer (close a
// packet Writer given as w yourself, to write its last packet). A second
// Close returns nil.
func (e *FragmentWriter) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	return e.err
}

// Encode writes all the fragments of m, in order, to w, as a FragmentWriter
// built with opts does.
func (m *Metadata) Encode(w io.Writer, opts ...WriterOption) error {
	e, err := NewFragmentWriter(w, opts...)
	if err != nil {
		return err
	}
	for _, f := range m.Fragments {
		if err := e.WriteFragment(f); err != nil {
			return err
		}
	}
	return e.Close()
}

type obj = map[string]any

func putCommon(o obj, c *Common) {
	if len(c.Attributes) > 0 {
		o["attributes"] = c.Attributes
	}
	if len(c.Extensions) > 0 {
		o["extensions"] = c.Extensions
	}
}

// putExplicit writes back the properties the decoded object had that were
// omitted because they hold their default value.
func putExplicit(o obj, c *Common, bitOrder string) {
	for _, k := range c.present {
		if _, ok := o[k]; ok {
			continue
		}
		switch k {
		case "preferred-display-base":
			o[k] = 10
		case "alignment", "minimum-alignment":
			o[k] = 1
		case "encoding":
			o[k] = "utf-8"
		case "media-type":
			o[k] = "application/octet-stream"
		case "bit-order":
			o[k] = bitOrder
		case "attributes", "extensions", "mappings", "environment":
			o[k] = obj{}
		case "roles", "member-classes":
			o[k] = []any{}
		case "id", "data-stream-class-id":
			o[k] = 0
		case "namespace", "name", "uid", "description", "default-clock-class-id":
			o[k] = ""
		case "offset-from-origin":
			if _, ok := o[k]; !ok {
				o[k] = obj{}
			}
		case "offset-from-origin.seconds", "offset-from-origin.cycles":
			oo, ok := o["offset-from-origin"].(obj)
			if !ok {
				oo = obj{}
				o["offset-from-origin"] = oo
			}
			if sub := k[len("offset-from-origin."):]; oo[sub] == nil {
				oo[sub] = 0
			}
		}
	}
}

func putStr(o obj, k, v string) {
	if v != "" {
		o[k] = v
	}
}

func fragmentValue(f Fragment) (obj, error) {
	o := obj{"type": f.FragmentType()}
	var err error
	switch f := f.(type) {
	case *Preamble:
		putCommon(o, &f.Common)
		o["version"] = 2
		if f.UUID != nil {
			u := make([]int, 16)
			for i, b := range f.UUID {
				u[i] = int(b)
			}
			o["uuid"] = u
		}
	case *FieldClassAlias:
		putCommon(o, &f.Common)
		o["name"] = f.Name
		if o["field-class"], err = fieldClassValue(f.FieldClass); err != nil {
			return nil, err
		}
	case *TraceClass:
		putCommon(o, &f.Common)
		putStr(o, "namespace", f.Namespace)
		if f.NameSet {
			o["name"] = f.Name
		} else {
			putStr(o, "name", f.Name)
		}
		putStr(o, "uid", f.UID)
		if len(f.Environment) > 0 {
			o["environment"] = f.Environment
		}
		err = putFC(o, "packet-header-field-class", f.PacketHeaderFieldClass)
	case *ClockClass:
		putCommon(o, &f.Common)
		o["id"] = f.ID
		putStr(o, "namespace", f.Namespace)
		putStr(o, "name", f.Name)
		putStr(o, "uid", f.UID)
		putStr(o, "description", f.Description)
		o["frequency"] = f.Frequency
		if f.Origin != nil {
			if f.Origin.UnixEpoch {
				o["origin"] = "unix-epoch"
			} else {
				oo := obj{"name": f.Origin.Name, "uid": f.Origin.UID}
				putStr(oo, "namespace", f.Origin.Namespace)
				o["origin"] = oo
			}
		}
		if f.OffsetFromOrigin != (ClockOffset{}) {
			oo := obj{}
			if f.OffsetFromOrigin.Seconds != 0 {
				oo["seconds"] = f.OffsetFromOrigin.Seconds
			}
			if f.OffsetFromOrigin.Cycles != 0 {
				oo["cycles"] = f.OffsetFromOrigin.Cycles
			}
			o["offset-from-origin"] = oo
		}
		if f.Precision != nil {
			o["precision"] = *f.Precision
		}
		if f.Accuracy != nil {
			o["accuracy"] = *f.Accuracy
		}
	case *DataStreamClass:
		putCommon(o, &f.Common)
		if f.ID != 0 {
			o["id"] = f.ID
		}
		putStr(o, "namespace", f.Namespace)
		putStr(o, "name", f.Name)
		putStr(o, "uid", f.UID)
		putStr(o, "default-clock-class-id", f.DefaultClockClassID)
		if err = putFC(o, "packet-context-field-class", f.PacketContextFieldClass); err == nil {
			if err = putFC(o, "event-record-header-field-class", f.EventRecordHeaderFieldClass); err == nil {
				err = putFC(o, "event-record-common-context-field-class", f.EventRecordCommonContextFieldClass)
			}
		}
	case *EventRecordClass:
		putCommon(o, &f.Common)
		if f.ID != 0 {
			o["id"] = f.ID
		}
		if f.DataStreamClassID != 0 {
			o["data-stream-class-id"] = f.DataStreamClassID
		}
		putStr(o, "namespace", f.Namespace)
		putStr(o, "name", f.Name)
		putStr(o, "uid", f.UID)
		if err = putFC(o, "specific-context-field-class", f.SpecificContextFieldClass); err == nil {
			err = putFC(o, "payload-field-class", f.PayloadFieldClass)
		}
	default:
		return nil, fmt.Errorf("ctf2meta: cannot encode fragment %T", f)
	}
	putExplicit(o, f.common(), "")
	return o, err
}

func putFC(o obj, k string, fc FieldClass) error {
	if fc == nil {
		return nil
	}
	v, err := fieldClassValue(fc)
	o[k] = v
	return err
}

func putBitArray(o obj, b *BitArray) {
	o["length"] = b.Length
	o["byte-order"] = b.ByteOrder
	def := "first-to-last"
	if b.ByteOrder == "big-endian" {
		def = "last-to-first"
	}
	if b.BitOrder != "" && b.BitOrder != def {
		o["bit-order"] = b.BitOrder
	}
	if b.Alignment > 1 {
		o["alignment"] = b.Alignment
	}
}

func putInt(o obj, p *IntegerProps) {
	if p.PreferredDisplayBase != 0 && p.PreferredDisplayBase != 10 {
		o["preferred-display-base"] = p.PreferredDisplayBase
	}
	if len(p.Mappings) > 0 {
		if p.validOrder() {
			o["mappings"] = orderedRangeMap{p.MappingOrder, p.Mappings}
		} else {
			o["mappings"] = rangeMapValue(p.Mappings)
		}
	}
}

// orderedRangeMap writes mappings in their metadata order
// (IntegerProps.MappingOrder), not sorted: babeltrace2's label order
// derives from it.
type orderedRangeMap struct {
	keys []string
	m    map[string]RangeSet
}

func (o orderedRangeMap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, k := range o.keys {
		rs := o.m[k]
		if i > 0 {
			b.WriteByte(',')
		}
		if err := e.Encode(k); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := e.Encode(rangeSetValue(rs)); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func putRoles(o obj, roles []string) {
	if len(roles) > 0 {
		o["roles"] = roles
	}
}

func putEncoding(o obj, e string) {
	if e != "" && e != "utf-8" {
		o["encoding"] = e
	}
}

func putMediaType(o obj, m string) {
	if m != "" && m != "application/octet-stream" {
		o["media-type"] = m
	}
}

func putAlign(o obj, k string, a uint64) {
	if a > 1 {
		o[k] = a
	}
}

func rangeSetValue(rs RangeSet) [][2]Integer {
	out := make([][2]Integer, len(rs))
	for i, r := range rs {
		out[i] = [2]Integer{r.Lower, r.Upper}
	}
	return out
}

func rangeMapValue(m map[string]RangeSet) obj {
	o := make(obj, len(m))
	for k, rs := range m {
		o[k] = rangeSetValue(rs)
	}
	return o
}

func locationValue(l FieldLocation) obj {
	p := make([]any, len(l.Path))
	for i, e := range l.Path {
		if !e.Parent {
			p[i] = e.Name
		}
	}
	o := obj{"path": p}
	putStr(o, "origin", l.Origin)
	return o
}

func fieldClassValue(fc FieldClass) (any, error) {
	if fc == nil {
		return nil, fmt.Errorf("ctf2meta: missing field class")
	}
	if a, ok := fc.(AliasRef); ok {
		return string(a), nil
	}
	o := obj{"type": fc.Type()}
	if c := fc.common(); c != nil {
		putCommon(o, c)
	}
	var err error
	switch f := fc.(type) {
	case *FixedLengthBitArray:
		putBitArray(o, &f.BitArray)
	case *FixedLengthBoolean:
		putBitArray(o, &f.BitArray)
	case *FixedLengthFloatingPointNumber:
		putBitArray(o, &f.BitArray)
	case *FixedLengthBitMap:
		putBitArray(o, &f.BitArray)
		o["flags"] = rangeMapValue(f.Flags)
	case *FixedLengthUnsignedInteger:
		putBitArray(o, &f.BitArray)
		putInt(o, &f.IntegerProps)
		putRoles(o, f.Roles)
	case *FixedLengthSignedInteger:
		putBitArray(o, &f.BitArray)
		putInt(o, &f.IntegerProps)
	case *VariableLengthUnsignedInteger:
		putInt(o, &f.IntegerProps)
		putRoles(o, f.Roles)
	case *VariableLengthSignedInteger:
		putInt(o, &f.IntegerProps)
	case *NullTerminatedString:
		putEncoding(o, f.Encoding)
	case *StaticLengthString:
		o["length"] = f.Length
		putEncoding(o, f.Encoding)
	case *DynamicLengthString:
		o["length-field-location"] = locationValue(f.LengthFieldLocation)
		putEncoding(o, f.Encoding)
	case *StaticLengthBlob:
		o["length"] = f.Length
		putMediaType(o, f.MediaType)
		putRoles(o, f.Roles)
	case *DynamicLengthBlob:
		o["length-field-location"] = locationValue(f.LengthFieldLocation)
		putMediaType(o, f.MediaType)
	case *Structure:
		putAlign(o, "minimum-alignment", f.MinimumAlignment)
		if len(f.MemberClasses) > 0 {
			ms := make([]any, len(f.MemberClasses))
			for i := range f.MemberClasses {
				m := &f.MemberClasses[i]
				mo := obj{"name": m.Name}
				putCommon(mo, &m.Common)
				if mo["field-class"], err = fieldClassValue(m.FieldClass); err != nil {
					return nil, err
				}
				putExplicit(mo, &m.Common, "")
				ms[i] = mo
			}
			o["member-classes"] = ms
		}
	case *StaticLengthArray:
		o["length"] = f.Length
		putAlign(o, "minimum-alignment", f.MinimumAlignment)
		o["element-field-class"], err = fieldClassValue(f.ElementFieldClass)
	case *DynamicLengthArray:
		o["length-field-location"] = locationValue(f.LengthFieldLocation)
		putAlign(o, "minimum-alignment", f.MinimumAlignment)
		o["element-field-class"], err = fieldClassValue(f.ElementFieldClass)
	case *Optional:
		o["selector-field-location"] = locationValue(f.SelectorFieldLocation)
		if len(f.SelectorFieldRanges) > 0 {
			o["selector-field-ranges"] = rangeSetValue(f.SelectorFieldRanges)
		}
		o["field-class"], err = fieldClassValue(f.FieldClass)
	case *Variant:
		o["selector-field-location"] = locationValue(f.SelectorFieldLocation)
		opts := make([]any, len(f.Options))
		for i := range f.Options {
			op := &f.Options[i]
			oo := obj{"selector-field-ranges": rangeSetValue(op.SelectorFieldRanges)}
			putStr(oo, "name", op.Name)
			putCommon(oo, &op.Common)
			if oo["field-class"], err = fieldClassValue(op.FieldClass); err != nil {
				return nil, err
			}
			putExplicit(oo, &op.Common, "")
			opts[i] = oo
		}
		o["options"] = opts
	default:
		return nil, fmt.Errorf("ctf2meta: cannot encode field class %T", fc)
	}
	if c := fc.common(); c != nil {
		putExplicit(o, c, bitOrderOf(fc))
	}
	return o, err
}

func bitOrderOf(fc FieldClass) string {
	switch f := fc.(type) {
	case *FixedLengthBitArray:
		return f.BitOrder
	case *FixedLengthBitMap:
		return f.BitOrder
	case *FixedLengthBoolean:
		return f.BitOrder
	case *FixedLengthUnsignedInteger:
		return f.BitOrder
	case *FixedLengthSignedInteger:
		return f.BitOrder
	case *FixedLengthFloatingPointNumber:
		return f.BitOrder
	}
	return ""
}
