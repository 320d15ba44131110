package ctf2meta

import "strings"

// Scope order: a field location may only refer to its own scope or an
// earlier one (a field that is decoded before).
var scopeOrder = []struct{ origin, property string }{
	{OriginPacketHeader, "packet-header-field-class"},
	{OriginPacketContext, "packet-context-field-class"},
	{OriginEventRecordHeader, "event-record-header-field-class"},
	{OriginEventRecordCommonContext, "event-record-common-context-field-class"},
	{OriginEventRecordSpecificContext, "specific-context-field-class"},
	{OriginEventRecordPayload, "payload-field-class"},
}

// scopeRoots returns the root structures of the scopes an event record
// class (erc may be nil) of data stream class dsc (may be nil) sees, in order.
func (m *Metadata) scopeRoots(dsc *DataStreamClass, erc *EventRecordClass) [6]FieldClass {
	var r [6]FieldClass
	if m.TraceClass != nil {
		r[0] = m.TraceClass.PacketHeaderFieldClass
	}
	if dsc != nil {
		r[1], r[2], r[3] = dsc.PacketContextFieldClass, dsc.EventRecordHeaderFieldClass, dsc.EventRecordCommonContextFieldClass
	}
	if erc != nil {
		r[4], r[5] = erc.SpecificContextFieldClass, erc.PayloadFieldClass
	}
	return r
}

// checkLocations checks the field locations inside scope k: the path must
// resolve through structures to a member of the right kind (an unsigned
// integer for lengths, an integer or, for optionals, a boolean for
// selectors) in scope k or an earlier one. Paths through other field
// classes (arrays, optionals, variants) and the insides of aliases are not
// followed; they are accepted.
func (c *streamCheck) checkLocations(kind string, roots [6]FieldClass, k int) {
	if roots[k] == nil || c.err != nil {
		return
	}
	c.locWalk(kind, roots, k, roots[k], nil)
}

func (c *streamCheck) locWalk(kind string, roots [6]FieldClass, k int, fc FieldClass, stack []*Structure) {
	if fc == nil || c.err != nil {
		return
	}
	switch f := fc.(type) {
	case *Structure:
		stack = append(stack, f)
		for i := range f.MemberClasses {
			c.locWalk(kind, roots, k, f.MemberClasses[i].FieldClass, stack)
		}
	case *StaticLengthArray:
		c.locWalk(kind, roots, k, f.ElementFieldClass, stack)
	case *DynamicLengthArray:
		c.location(kind, roots, k, f.LengthFieldLocation, "length", stack)
		c.locWalk(kind, roots, k, f.ElementFieldClass, stack)
	case *DynamicLengthString:
		c.location(kind, roots, k, f.LengthFieldLocation, "length", stack)
	case *DynamicLengthBlob:
		c.location(kind, roots, k, f.LengthFieldLocation, "length", stack)
	case *Optional:
		c.location(kind, roots, k, f.SelectorFieldLocation, "optional selector", stack)
		c.locWalk(kind, roots, k, f.FieldClass, stack)
	case *Variant:
		c.location(kind, roots, k, f.SelectorFieldLocation, "variant selector", stack)
		for i := range f.Options {
			c.locWalk(kind, roots, k, f.Options[i].FieldClass, stack)
		}
	}
}

func locString(l FieldLocation) string {
	var b strings.Builder
	if l.Origin != "" {
		b.WriteString(l.Origin)
		b.WriteByte(':')
	}
	for i, e := range l.Path {
		if i > 0 {
			b.WriteByte('/')
		}
		if e.Parent {
			b.WriteString("..")
		} else {
			b.WriteString(e.Name)
		}
	}
	return b.String()
}

func (c *streamCheck) location(kind string, roots [6]FieldClass, k int, loc FieldLocation, what string, stack []*Structure) {
	path := loc.Path
	var node FieldClass
	if loc.Origin != "" {
		t := -1
		for i, s := range scopeOrder {
			if s.origin == loc.Origin {
				t = i
			}
		}
		switch {
		case t > k:
			c.fail(kind, "%s location %s refers to the %s scope, which is decoded after `%s`", what, locString(loc), loc.Origin, scopeOrder[k].property)
			return
		case roots[t] == nil:
			c.fail(kind, "%s location %s refers to the %s scope, which has no field class", what, locString(loc), loc.Origin)
			return
		}
		node = roots[t]
	} else {
		level := len(stack) - 1
		for len(path) > 0 && path[0].Parent {
			path = path[1:]
			level--
		}
		if level < 0 {
			c.fail(kind, "%s location %s goes above the root of `%s`", what, locString(loc), scopeOrder[k].property)
			return
		}
		node = stack[level]
	}
	for _, e := range path {
		if e.Parent {
			return // not followed
		}
		st, ok := c.m.Resolve(node).(*Structure)
		if !ok {
			return // through arrays, optionals, variants: not followed
		}
		node = nil
		for i := range st.MemberClasses {
			if st.MemberClasses[i].Name == e.Name {
				node = st.MemberClasses[i].FieldClass
				break
			}
		}
		if node == nil {
			c.fail(kind, "%s location %s: no member %q", what, locString(loc), e.Name)
			return
		}
	}
	target := c.m.Resolve(node)
	switch target.(type) {
	case *FixedLengthUnsignedInteger, *VariableLengthUnsignedInteger, *Optional, *Variant, nil:
		return
	case *FixedLengthSignedInteger, *VariableLengthSignedInteger:
		if what != "length" {
			return
		}
	case *FixedLengthBoolean:
		if what == "optional selector" {
			return
		}
	}
	want := map[string]string{"length": "an unsigned integer", "optional selector": "a boolean or an integer", "variant selector": "an integer"}[what]
	c.fail(kind, "%s location %s names %s, not %s", what, locString(loc), typeName(target), want)
}
