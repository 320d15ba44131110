package ctf2meta

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
)

// Metadata is a decoded CTF 2 metadata stream: its fragments in order, and
// indexes by kind. It is built by FragmentReader (or DecodeMetadata), which checks
// the rules spanning fragments as each one arrives.
type Metadata struct {
	Fragments          []Fragment
	Preamble           *Preamble
	TraceClass         *TraceClass // nil when absent
	Aliases            map[string]*FieldClassAlias
	ClockClasses       map[string]*ClockClass // by id
	DataStreamClasses  []*DataStreamClass
	EventRecordClasses []*EventRecordClass
	// Source says what the input was: packetized or plain, and what was
	// skipped.
	Source Source

	o        *options
	aliasSum map[string]*fcSummary
	dscByID  map[uint64]*DataStreamClass
	erc      map[[2]uint64]*EventRecordClass
	declared map[string]bool // "ns/name" declared by the preamble
}

// DataStreamClass returns the data stream class with id, or nil.
func (m *Metadata) DataStreamClass(id uint64) *DataStreamClass { return m.dscByID[id] }

// EventRecordClass returns the event record class with id in the data
// stream class with id dscID, or nil.
func (m *Metadata) EventRecordClass(dscID, id uint64) *EventRecordClass {
	return m.erc[[2]uint64{dscID, id}]
}

// Resolve follows alias references: it returns the field class an AliasRef
// names (nil if unknown), or fc itself.
func (m *Metadata) Resolve(fc FieldClass) FieldClass {
	for range 1 + len(m.Aliases) {
		a, ok := fc.(AliasRef)
		if !ok {
			return fc
		}
		al := m.Aliases[string(a)]
		if al == nil {
			return nil
		}
		fc = al.FieldClass
	}
	return nil
}

// CountByType returns the number of fragments of each type.
func (m *Metadata) CountByType() map[string]int {
	c := map[string]int{}
	for _, f := range m.Fragments {
		c[f.FragmentType()]++
	}
	return c
}

// Source says what a FragmentReader (or DecodeMetadata, Decode) found in
// its input.
type Source struct {
	// Kind is KindPacketized when the input was packetized metadata (its
	// content then held the JSON text sequence), else KindCTF2.
	Kind Kind
	// Stream summarises the packets of packetized input (zero otherwise).
	Stream StreamInfo
	// LeadingWhitespace counts whitespace bytes skipped before the first RS
	// (babeltrace 2.1 and yactfr would read such a file as TSDL).
	LeadingWhitespace int
}

// FragmentReader reads a CTF 2 metadata stream fragment by fragment,
// streaming from an io.Reader, whether the stream is packetized (any of the
// three header layouts; packets are validated as Reader does) or a plain
// JSON text sequence: the first four bytes decide (Detect). CTF 1.8 TSDL
// text, plain or packetized, is refused with ErrFraming.
//
// It checks the stream rules: preamble first and once, at most one trace
// class (before any data stream class), aliases defined before use with
// unique names, unique clock class ids, data stream class ids and (data
// stream class id, event record class id) pairs, clock classes and parent
// data stream classes before their users, structure scopes, roles valid for
// their scope, declared extensions refused (unless WithExtensions), and at
// least one data stream class at the end.
//
// Offsets (Offset, and those of fragment errors) count bytes of the JSON
// text sequence: of the input when it is plain, of the depacketized content
// when it is packetized (the error message then says "depacketized
// content"); packet errors give input offsets.
type FragmentReader struct {
	src     io.Reader
	pr      *Reader // packetized input
	s       *SeqReader
	o       options
	m       *Metadata
	frag    Fragment
	err     error
	started bool
	done    bool
	bud     memBudget   // Go memory charged for decoded JSON values
	js      jsonScratch // the JSON parser's state kept between fragments
}

// NewFragmentReader returns a FragmentReader of the CTF 2 metadata stream r,
// packetized or plain. Nothing is read until the first Next.
func NewFragmentReader(r io.Reader, opts ...ReaderOption) (*FragmentReader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	d := &FragmentReader{src: r, o: o}
	d.m = newMetadata(&d.o)
	return d, nil
}

func newMetadata(o *options) *Metadata {
	return &Metadata{
		Aliases: map[string]*FieldClassAlias{}, ClockClasses: map[string]*ClockClass{},
		o: o, aliasSum: map[string]*fcSummary{}, dscByID: map[uint64]*DataStreamClass{},
		erc: map[[2]uint64]*EventRecordClass{}, declared: map[string]bool{},
	}
}

// start detects the input's form and sets up the text sequence reader.
func (d *FragmentReader) start() {
	d.started = true
	var head [4]byte
	n, err := io.ReadFull(d.src, head[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		d.err = err
		return
	}
	src := io.MultiReader(bytes.NewReader(head[:n]), d.src)
	d.m.Source.Kind = KindCTF2
	if IsPacketized(head[:n]) {
		d.m.Source.Kind = KindPacketized
		d.pr = &Reader{r: src, o: d.o}
		d.pr.chk = newHeaderCheck(&d.pr.o)
		d.pr.content.r = d.pr
		src = &d.pr.content
	}
	d.s = &SeqReader{r: src, o: d.o}
}

// fail records err, saying "depacketized content" in errors whose offsets
// count bytes of the content of packetized input.
func (d *FragmentReader) fail(err error) {
	var fe *FormatError
	if d.pr != nil && err != d.pr.err && errors.As(err, &fe) {
		e := *fe
		e.Msg = "depacketized content: " + fe.Msg
		err = &e
	}
	d.err = err
}

// Next decodes the next fragment. It returns false at the end of the stream
// or on error; check Err.
func (d *FragmentReader) Next() bool {
	if d.err != nil || d.done {
		return false
	}
	if !d.started {
		if d.start(); d.err != nil {
			return false
		}
	}
	d.frag = nil
	ok := d.s.Next()
	d.m.Source.LeadingWhitespace = d.s.leading
	if d.pr != nil {
		d.m.Source.Stream = d.pr.info
	}
	if !ok {
		if err := d.s.Err(); err != nil {
			d.fail(err)
		} else {
			d.done = true
			if err := d.m.finish(d.s.off); err != nil {
				d.fail(err)
			}
		}
		return false
	}
	// The budget grows with the JSON text read (d.s.off counts it, this
	// fragment included) and is never refunded: decoded values are kept.
	bud := newBudget(&d.o.limits, &d.bud, d.s.off)
	f, err := decodeFragment(d.s.Text(), &d.o, d.s.Offset(), d.s.TextOffset(), d.s.Index(), bud, &d.js)
	if err != nil {
		d.fail(err)
		return false
	}
	if err := d.m.add(f, d.s.Index(), d.s.Offset()); err != nil {
		d.fail(err)
		return false
	}
	d.frag = f
	return true
}

// Fragment returns the current fragment (nil before the first Next and
// after the end).
func (d *FragmentReader) Fragment() Fragment { return d.frag }

// Text returns the current fragment's JSON text (valid until Next).
func (d *FragmentReader) Text() []byte {
	if d.s == nil {
		return nil
	}
	return d.s.Text()
}

// Offset returns the offset of the current fragment's RS byte (in the
// depacketized content when the input is packetized).
func (d *FragmentReader) Offset() int64 {
	if d.s == nil {
		return 0
	}
	return d.s.Offset()
}

// Index returns the 1-based number of the current fragment.
func (d *FragmentReader) Index() int {
	if d.s == nil {
		return 0
	}
	return d.s.Index()
}

// Source returns what has been found so far: the input's form, its packets
// and the whitespace skipped before the first RS.
func (d *FragmentReader) Source() Source { return d.m.Source }

// Err returns the first error, or nil after a complete, valid stream.
func (d *FragmentReader) Err() error { return d.err }

// Metadata returns the fragments decoded so far.
func (d *FragmentReader) Metadata() *Metadata { return d.m }

// All iterates over the remaining fragments; on failure a last (nil, err)
// pair, then it stops.
func (d *FragmentReader) All() iter.Seq2[Fragment, error] {
	return func(yield func(Fragment, error) bool) {
		for d.Next() {
			if !yield(d.frag, nil) {
				return
			}
		}
		if d.err != nil {
			yield(nil, d.err)
		}
	}
}

// DecodeMetadata reads, decodes and checks a whole CTF 2 metadata stream,
// packetized or plain (see FragmentReader); Metadata.Source says which.
func DecodeMetadata(r io.Reader, opts ...ReaderOption) (*Metadata, error) {
	d, err := NewFragmentReader(r, opts...)
	if err != nil {
		return nil, err
	}
	for d.Next() {
	}
	if d.err != nil {
		return nil, d.err
	}
	return d.m, nil
}

// Decode is DecodeMetadata over a stream held in memory.
func Decode(b []byte, opts ...ReaderOption) (*Metadata, error) {
	return DecodeMetadata(bytes.NewReader(b), opts...)
}

func (m *Metadata) finish(end int64) error {
	if m.Preamble == nil {
		return newErr(end, ErrSchema, "empty metadata stream: no preamble fragment")
	}
	if len(m.DataStreamClasses) == 0 {
		return newErr(end, ErrSchema, "missing data-stream-class fragment in metadata stream")
	}
	return nil
}

// fcSummary is what the stream rules need to know about a field class tree
// without walking into aliases again (alias chains could otherwise cost
// exponential time).
type fcSummary struct {
	roles []string // roles used anywhere inside
	exts  []string // "ns/name" extensions used anywhere inside
}

type streamCheck struct {
	m   *Metadata
	num int
	off int64
	err error
	sum fcSummary
}

func (c *streamCheck) fail(kind, msg string, args ...any) {
	if c.err == nil {
		c.err = newErr(c.off, ErrSchema, "fragment #%d (%s): %s", c.num, kind, fmt.Sprintf(msg, args...))
	}
}

// walk checks fc's alias references and gathers roles and extensions.
func (c *streamCheck) walk(kind string, fc FieldClass) {
	if fc == nil || c.err != nil {
		return
	}
	if a, ok := fc.(AliasRef); ok {
		s := c.m.aliasSum[string(a)]
		if s == nil {
			c.fail(kind, "field class alias %q is not defined by an earlier fragment", string(a))
			return
		}
		c.sum.roles = append(c.sum.roles, s.roles...)
		c.sum.exts = append(c.sum.exts, s.exts...)
		return
	}
	c.exts(fc.common())
	switch f := fc.(type) {
	case *FixedLengthUnsignedInteger:
		c.sum.roles = append(c.sum.roles, f.Roles...)
	case *VariableLengthUnsignedInteger:
		c.sum.roles = append(c.sum.roles, f.Roles...)
	case *StaticLengthBlob:
		for _, r := range f.Roles {
			if r != RoleMetadataStreamUUID {
				c.fail(kind, "role %q is not allowed on a static-length BLOB (only metadata-stream-uuid)", r)
			} else if f.Length != 16 {
				c.fail(kind, "a metadata-stream-uuid BLOB must be 16 bytes long, not %d", f.Length)
			}
		}
		c.sum.roles = append(c.sum.roles, f.Roles...)
	case *Structure:
		for i := range f.MemberClasses {
			c.exts(&f.MemberClasses[i].Common)
			c.walk(kind, f.MemberClasses[i].FieldClass)
		}
	case *StaticLengthArray:
		c.walk(kind, f.ElementFieldClass)
	case *DynamicLengthArray:
		c.walk(kind, f.ElementFieldClass)
	case *Optional:
		c.walk(kind, f.FieldClass)
	case *Variant:
		for i := range f.Options {
			c.exts(&f.Options[i].Common)
			c.walk(kind, f.Options[i].FieldClass)
		}
	}
	if ui, ok := fc.(*FixedLengthUnsignedInteger); ok {
		for _, r := range ui.Roles {
			if r == RoleMetadataStreamUUID {
				c.fail(kind, "role metadata-stream-uuid is only allowed on a 16-byte static-length BLOB")
			}
		}
	}
	if ui, ok := fc.(*VariableLengthUnsignedInteger); ok {
		for _, r := range ui.Roles {
			if r == RoleMetadataStreamUUID || r == RolePacketMagicNumber {
				c.fail(kind, "role %s is not allowed on a variable-length integer", r)
			}
		}
	}
}

func (c *streamCheck) exts(cm *Common) {
	if cm == nil {
		return
	}
	for _, ns := range sortedKeys(cm.Extensions) {
		names, _ := cm.Extensions[ns].(map[string]any)
		if len(names) == 0 {
			c.sum.exts = append(c.sum.exts, ns+"/")
		}
		for _, n := range sortedKeys(names) {
			c.sum.exts = append(c.sum.exts, ns+"/"+n)
		}
	}
}

var scopeRoles = map[string]map[string]bool{
	"packet-header-field-class": {RoleDataStreamClassID: true, RoleDataStreamID: true, RoleMetadataStreamUUID: true, RolePacketMagicNumber: true},
	"packet-context-field-class": {RoleDefaultClockTimestamp: true, RoleDiscardedEventRecordCounterSnapshot: true, RolePacketContentLength: true,
		RolePacketEndDefaultClockTimestamp: true, RolePacketSequenceNumber: true, RolePacketTotalLength: true},
	"event-record-header-field-class": {RoleDefaultClockTimestamp: true, RoleEventRecordClassID: true},
}

// scope checks a scope field class: a structure (inline or via an alias),
// whose roles are allowed there.
func (c *streamCheck) scope(kind, name string, fc FieldClass, hasClock bool) {
	if fc == nil || c.err != nil {
		return
	}
	if _, ok := c.m.Resolve(fc).(*Structure); !ok && c.m.Resolve(fc) != nil {
		c.fail(kind, "`%s` must be a structure field class, not %s", name, typeName(c.m.Resolve(fc)))
		return
	}
	before := len(c.sum.roles)
	c.walk(kind, fc)
	allowed := scopeRoles[name]
	for _, r := range c.sum.roles[before:] {
		switch {
		case !allowed[r]:
			c.fail(kind, "role %q is not allowed in `%s`", r, name)
		case r == RoleMetadataStreamUUID && (c.m.Preamble == nil || c.m.Preamble.UUID == nil):
			c.fail(kind, "role metadata-stream-uuid needs a preamble `uuid`")
		case (r == RoleDefaultClockTimestamp || r == RolePacketEndDefaultClockTimestamp) && !hasClock:
			c.fail(kind, "role %q needs a `default-clock-class-id`", r)
		case r == RolePacketMagicNumber:
			st, _ := c.m.Resolve(fc).(*Structure)
			first := FieldClass(nil)
			if st != nil && len(st.MemberClasses) > 0 {
				first = c.m.Resolve(st.MemberClasses[0].FieldClass)
			}
			ui, ok := first.(*FixedLengthUnsignedInteger)
			if !ok || ui.Length != 32 || !contains(ui.Roles, RolePacketMagicNumber) {
				c.fail(kind, "role packet-magic-number must be on the first member, a 32-bit fixed-length unsigned integer")
			}
		}
	}
}

func contains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

func typeName(fc FieldClass) string {
	if fc == nil {
		return "nothing"
	}
	if a, ok := fc.(AliasRef); ok {
		return "alias " + string(a)
	}
	return "a " + fc.Type()
}

func (m *Metadata) add(f Fragment, num int, off int64) error {
	c := &streamCheck{m: m, num: num, off: off}
	kind := f.FragmentType()
	if num == 1 {
		if _, ok := f.(*Preamble); !ok {
			return newErr(off, ErrSchema, "fragment #1 (%s): expecting the preamble fragment first", kind)
		}
	}
	if f, ok := f.(*Preamble); ok {
		if m.Preamble != nil {
			return newErr(off, ErrSchema, "fragment #%d (preamble): the preamble must be the first and only preamble fragment", num)
		}
		m.Preamble = f
		for _, ns := range sortedKeys(f.Extensions) {
			names, ok := f.Extensions[ns].(map[string]any)
			if !ok {
				return newErr(off, ErrSchema, "fragment #%d (preamble): extension namespace `%s` must be an object of extension names", num, ns)
			}
			for _, n := range sortedKeys(names) {
				if !m.o.allowExtensions {
					return newErr(off, ErrUnsupported, "fragment #%d (preamble): declares extension `%s` of namespace `%s`; this reader supports no CTF 2 extension, and CTF 2 requires refusing such metadata", num, n, ns)
				}
				m.declared[ns+"/"+n] = true
			}
		}
		m.Fragments = append(m.Fragments, f)
		return nil
	}
	c.exts(f.common())
	switch f := f.(type) {
	case *FieldClassAlias:
		if m.Aliases[f.Name] != nil {
			c.fail(kind, "duplicate field class alias name %q", f.Name)
		}
		c.walk(kind, f.FieldClass)
		if c.err == nil {
			m.Aliases[f.Name] = f
			// Deduplicated, so that aliases of aliases stay small.
			m.aliasSum[f.Name] = &fcSummary{roles: dedupe(c.sum.roles), exts: dedupe(c.sum.exts)}
		}
	case *TraceClass:
		switch {
		case m.TraceClass != nil:
			c.fail(kind, "more than one trace-class fragment")
		case len(m.DataStreamClasses) > 0:
			c.fail(kind, "the trace-class fragment must come before any data-stream-class fragment")
		}
		c.scope(kind, "packet-header-field-class", f.PacketHeaderFieldClass, false)
		if c.err == nil {
			r := m.scopeRoots(nil, nil)
			r[0] = f.PacketHeaderFieldClass
			c.checkLocations(kind, r, 0)
		}
		if c.err == nil {
			m.TraceClass = f
		}
	case *ClockClass:
		if m.ClockClasses[f.ID] != nil {
			c.fail(kind, "duplicate clock class id %q", f.ID)
		}
		if c.err == nil {
			m.ClockClasses[f.ID] = f
		}
	case *DataStreamClass:
		if m.dscByID[f.ID] != nil {
			c.fail(kind, "duplicate data stream class id %d", f.ID)
		}
		hasClock := f.DefaultClockClassID != ""
		if hasClock && m.ClockClasses[f.DefaultClockClassID] == nil {
			c.fail(kind, "default clock class %q is not defined by an earlier clock-class fragment", f.DefaultClockClassID)
		}
		c.scope(kind, "packet-context-field-class", f.PacketContextFieldClass, hasClock)
		c.scope(kind, "event-record-header-field-class", f.EventRecordHeaderFieldClass, hasClock)
		c.scope(kind, "event-record-common-context-field-class", f.EventRecordCommonContextFieldClass, hasClock)
		for k := 1; k <= 3; k++ {
			c.checkLocations(kind, m.scopeRoots(f, nil), k)
		}
		if c.err == nil {
			m.dscByID[f.ID] = f
			m.DataStreamClasses = append(m.DataStreamClasses, f)
		}
	case *EventRecordClass:
		if m.dscByID[f.DataStreamClassID] == nil {
			c.fail(kind, "data stream class %d is not defined by an earlier data-stream-class fragment", f.DataStreamClassID)
		}
		if m.erc[[2]uint64{f.DataStreamClassID, f.ID}] != nil {
			c.fail(kind, "duplicate event record class id %d in data stream class %d", f.ID, f.DataStreamClassID)
		}
		c.scope(kind, "specific-context-field-class", f.SpecificContextFieldClass, false)
		c.scope(kind, "payload-field-class", f.PayloadFieldClass, false)
		if dsc := m.dscByID[f.DataStreamClassID]; dsc != nil {
			for k := 4; k <= 5; k++ {
				c.checkLocations(kind, m.scopeRoots(dsc, f), k)
			}
		}
		if c.err == nil {
			m.erc[[2]uint64{f.DataStreamClassID, f.ID}] = f
			m.EventRecordClasses = append(m.EventRecordClasses, f)
		}
	}
	if c.err == nil {
		sort.Strings(c.sum.exts)
		for i, e := range c.sum.exts {
			if i > 0 && c.sum.exts[i-1] == e {
				continue
			}
			if !m.declared[e] {
				c.fail(kind, "uses extension %q that the preamble does not declare", e)
			}
		}
	}
	if c.err != nil {
		return c.err
	}
	m.Fragments = append(m.Fragments, f)
	return nil
}

func dedupe(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = append([]string(nil), s...)
	sort.Strings(s)
	out := s[:1]
	for _, e := range s[1:] {
		if e != out[len(out)-1] {
			out = append(out, e)
		}
	}
	return out
}
