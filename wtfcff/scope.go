package wtfcff

import "github.com/tracecodec/tracecodec/internal/wire"

// Scope is a completed scope: a class-1 event (a typed scope event or
// wtf.scope#enter) and the wtf.scope#leave that closed it, in one zone.
type Scope struct {
	// Name is the scope's name: the event type's name, or for
	// wtf.scope#enter its name argument as written (the reference's database
	// removes spaces from it). Valid until the next call to Add.
	Name  []byte
	Type  *EventType
	Zone  *Zone
	Begin uint32 // µs
	End   uint32 // µs
	// Depth is the nesting depth, 0 for a scope with no enclosing scope in
	// its zone.
	Depth int
	// Args is a JSON object with the scope's arguments as the reference's
	// database reports them: the enter event's own arguments (none for
	// wtf.scope#enter, whose name becomes the scope's name) followed by the
	// data appended while the scope was open (wtf.scope#appendData name/value
	// pairs and the arguments of APPEND_SCOPE_DATA events). Appended holds
	// only the appended part. Both are valid until the next call to Add.
	Args     []byte
	Appended []byte
}

// Duration is End - Begin in µs (0 if the leave is earlier than the enter).
func (s *Scope) Duration() uint32 {
	if s.End < s.Begin {
		return 0
	}
	return s.End - s.Begin
}

type openScope struct {
	name  []byte
	typ   *EventType
	begin uint32
	own   []byte // own arguments: JSON object members, comma-separated
	data  []byte // appended members
}

type scopeStack struct {
	open []openScope
	n    int
}

// ScopeTracker pairs scope enters and leaves per zone, as the reference's
// database does: a class-1 event pushes a scope, wtf.scope#leave pops the
// innermost open scope of the current zone, and scope data
// (wtf.scope#appendData, APPEND_SCOPE_DATA events) is merged into the
// innermost open scope's arguments. Feed it every event in stream order;
// after warm-up it does not allocate.
//
// Open scopes keep copies of their names and arguments. Their memory stays
// within the package's budget: more than 64 bytes per byte of records added
// plus 16 MiB (a stream of scope enters naming one long string, say) stops
// the tracker with an ErrLimit error (Err); Add then ignores every event.
type ScopeTracker struct {
	stacks    map[*Zone]*scopeStack
	done      Scope
	unmatched int
	args      []byte
	appended  []byte
	seen      int64 // bytes of the records added
	held      int64 // bytes of the buffers holding copies
	err       error
	// lastZone and lastStack cache the stack of the zone of the previous
	// event: zones change at wtf.zone#set records only, so most events
	// find their stack without a map look-up.
	lastZone  *Zone
	lastStack *scopeStack
}

// Budget of the memory a decoder may hold for what it has read: budgetRatio
// bytes per input byte plus budgetBase.
const (
	budgetRatio = 64
	budgetBase  = 16 << 20
)

// Err is the ErrLimit error that stopped the tracker, or nil.
func (st *ScopeTracker) Err() error { return st.err }

// bufCap is the memory of the buffers Add may grow for stack s when it
// works on its scope slot (-1: none).
func (st *ScopeTracker) bufCap(s *scopeStack, slot int) int64 {
	n := int64(cap(s.open)) * 96 // an openScope's own size
	if slot >= 0 && slot < len(s.open) {
		o := &s.open[slot]
		n += int64(cap(o.name) + cap(o.own) + cap(o.data))
	}
	return n + int64(cap(st.args)+cap(st.appended))
}

// top returns the innermost open scope of zone z, or nil.
func (st *ScopeTracker) top(z *Zone) *openScope {
	if s := st.stack(z); s.n > 0 {
		return &s.open[s.n-1]
	}
	return nil
}

// appendMembers appends e's arguments as JSON object members.
func appendMembers(b []byte, e *Event) []byte {
	t := e.Type
	if len(t.layout) != len(t.Args) {
		for i, a := range t.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, a.Name)
			b = append(b, ':')
			b = e.Arg(i).AppendJSON(b)
		}
		return b
	}
	for i := range t.layout {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t.layout[i].key...) // "name": computed once per signature
		b = appendArgJSON(b, e, i)
	}
	return b
}

// NewScopeTracker returns an empty tracker.
func NewScopeTracker() *ScopeTracker { return &ScopeTracker{stacks: map[*Zone]*scopeStack{}} }

func (st *ScopeTracker) stack(z *Zone) *scopeStack {
	if st.lastStack != nil && z == st.lastZone {
		return st.lastStack
	}
	s := st.stacks[z]
	if s == nil {
		s = &scopeStack{}
		st.stacks[z] = s
	}
	st.lastZone, st.lastStack = z, s
	return s
}

// Add records e. When e is a wtf.scope#leave that closes a scope, Add
// returns that scope (valid until the next call) and true.
func (st *ScopeTracker) Add(e *Event) (sc *Scope, ok bool) {
	// Small enough to inline: most events only count towards the budget
	// (after an error nothing reads it: addScope ignores every event).
	st.seen += int64(e.Size)
	if e.Type.scopeRole != roleNone {
		sc, ok = st.addScope(e)
	}
	return sc, ok
}

// Values of EventType.scopeRole.
const (
	roleUnknown = iota // not classified (a type not made by a constructor)
	roleNone
	roleScope
)

// scopeRoleOf classifies t for ScopeTracker.Add: events that open, close
// or add to a scope, and the others.
func scopeRoleOf(t *EventType) uint8 {
	if t.Class != ClassScope && t.builtin != builtinAppendData && t.builtin != builtinScopeLeave &&
		(t.Flags&FlagAppendScopeData == 0 || len(t.Args) == 0) {
		return roleNone
	}
	return roleScope
}

// addScope is Add for the events that open, close or add to a scope (and
// those of types not classified yet).
func (st *ScopeTracker) addScope(e *Event) (*Scope, bool) {
	if st.err != nil || e.Type.scopeRole == roleUnknown && scopeRoleOf(e.Type) == roleNone {
		return nil, false
	}
	s := st.stack(e.Zone)
	slot := s.n - 1 // the scope data is appended to
	if e.Type.Class == ClassScope {
		slot = s.n // the scope pushed
	}
	before := st.bufCap(s, slot)
	sc, ok := st.add(e, s)
	if st.err != nil {
		return nil, false
	}
	if grown := st.bufCap(s, slot) - before; grown > 0 {
		st.held += grown
		if st.over(0) {
			st.err = newErr(e.Offset, ErrLimit, "open scopes hold %d bytes of copied names and arguments for %d bytes of records: over the memory budget (%d × input + %d MiB)",
				st.held, st.seen, budgetRatio, budgetBase>>20)
			return nil, false
		}
	}
	return sc, ok
}

func (st *ScopeTracker) add(e *Event, s *scopeStack) (*Scope, bool) {
	switch {
	case e.Type.Class == ClassScope:
		if s.n == len(s.open) {
			s.open = append(s.open, openScope{})
		}
		o := &s.open[s.n]
		s.n++
		o.typ, o.begin = e.Type, e.Time
		o.own, o.data = o.own[:0], o.data[:0]
		if e.Type.builtin == builtinScopeEnter {
			o.name = append(o.name[:0], e.Arg(0).Bytes()...)
		} else {
			o.name = append(o.name[:0], e.Type.Name...)
			o.own = appendMembers(o.own, e)
		}
	case e.Type.builtin == builtinAppendData:
		if o := st.top(e.Zone); o != nil {
			if len(o.data) > 0 {
				o.data = append(o.data, ',')
			}
			// Room first, doubling: appending a long value to a long
			// buffer would otherwise reallocate it at nearly every record
			// (append grows large slices by a quarter), copying the
			// scope's data over and over. A growth past the budget is
			// refused before it is allocated.
			n := len(e.Arg(0).Bytes()) + len(e.Arg(1).Bytes()) + 16
			if grow := int64(max(2*cap(o.data), len(o.data)+n) - cap(o.data)); cap(o.data)-len(o.data) < n && st.over(grow) {
				st.err = newErr(e.Offset, ErrLimit, "open scopes would hold %d bytes of copied names and arguments for %d bytes of records: over the memory budget (%d × input + %d MiB)",
					st.held+grow, st.seen, budgetRatio, budgetBase>>20)
				return nil, false
			}
			o.data = wire.Room(o.data, n)
			o.data = appendJSONBytes(o.data, e.Arg(0).Bytes())
			o.data = append(o.data, ':')
			o.data = e.Arg(1).AppendJSON(o.data)
		}
	case e.Type.Flags&FlagAppendScopeData != 0 && len(e.Type.Args) > 0:
		if o := st.top(e.Zone); o != nil {
			if len(o.data) > 0 {
				o.data = append(o.data, ',')
			}
			o.data = appendMembers(o.data, e)
		}
	case e.Type.builtin == builtinScopeLeave:
		if s.n == 0 {
			st.unmatched++
			return nil, false
		}
		s.n--
		o := &s.open[s.n]
		st.args = append(append(st.args[:0], '{'), o.own...)
		if len(o.own) > 0 && len(o.data) > 0 {
			st.args = append(st.args, ',')
		}
		st.args = append(append(st.args, o.data...), '}')
		st.appended = append(append(append(st.appended[:0], '{'), o.data...), '}')
		st.done = Scope{Name: o.name, Type: o.typ, Zone: e.Zone, Begin: o.begin, End: e.Time, Depth: s.n,
			Args: st.args, Appended: st.appended}
		return &st.done, true
	}
	return nil, false
}

// over reports whether the buffers would pass the budget with grow more
// bytes.
func (st *ScopeTracker) over(grow int64) bool {
	return st.held+grow > budgetRatio*st.seen+budgetBase
}

// Depth is the number of open scopes in zone z.
func (st *ScopeTracker) Depth(z *Zone) int {
	if s := st.stacks[z]; s != nil {
		return s.n
	}
	return 0
}

// Open is the number of scopes not closed yet, in every zone.
func (st *ScopeTracker) Open() int {
	n := 0
	for _, s := range st.stacks {
		n += s.n
	}
	return n
}

// Unmatched is the number of wtf.scope#leave records seen with no open scope.
func (st *ScopeTracker) Unmatched() int { return st.unmatched }
