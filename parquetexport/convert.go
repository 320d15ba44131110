package parquetexport

import (
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/cdt/schema7"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/wire"
)

// maxPairTracks bounds the tracks a converter keeps (names and pairing
// stacks) per input.
const maxPairTracks = 1 << 16

type trackKey struct {
	kind events.TrackKind
	id   uint64
}

// trackInfo is what a converter keeps about one track of the input: its
// name's id in the batch's dictionary and its open begins, innermost last.
type trackInfo struct {
	key      trackKey
	name     string
	nameID   uint32
	gen      uint64 // batch generation nameID belongs to
	open     []openBegin
	overflow int // begins beyond the depth limit still open
}

// openBegin is a begin waiting for its end: its row in the batch and, for
// ATF, the function it calls (an end pairs only with a call of its own
// function).
type openBegin struct {
	row int32
	fid uint64
}

// argRef is a resolved argument: its name, column name and column.
type argRef struct {
	name    string
	colName string
	col     *argCol
}

// nameInfo is what a converter keeps about one event name: its id in the
// batch's dictionary and the columns of the arguments its events had last.
type nameInfo struct {
	name string
	id   uint32
	gen  uint64
	args []argRef
}

// cacheSlots is the size of the converters' direct-mapped caches.
const cacheSlots = 256

// converter turns the events of one input into rows of a batch.
type converter struct {
	o       *options
	prefix  string // "dial9_", "atf_", "wtf_", "cdt_"
	colName map[string]string
	cdtCols []string // column names of o.cdtFields

	b      *batch
	gen    uint64
	source uint32
	src    string

	tracks    map[trackKey]*trackInfo
	trackList []*trackInfo // tracks in the order they were met
	trackSlot [cacheSlots]*trackInfo
	names     [2]map[string]*nameInfo // [0] begins and others, [1] ends
	nameSlot  [2][cacheSlots]*nameInfo

	// ATF columns, resolved once per input.
	atfSeq *argCol
	// ATF function_id and depth columns, resolved at their first value.
	atfArgs  [2]d9Field
	atfSeqNo uint64 // the current ATF event's atf_seq
	// The dial9 reader of the input (pooled strings), nil for others.
	d9dec *dial9.Reader
	// dial9 schemas' plans, per input.
	d9Plans map[*dial9.Schema]*d9Plan
	d9Slot  [cacheSlots]*d9Plan
	// isDial9: the input is a dial9 stream (add takes addDial9's path).
	isDial9 bool
	// isATF: the input is an ATF trace (ends pair by function).
	isATF bool

	carry *batch // open begins kept across a row group boundary
	nOpen int    // open begins of all tracks (at most maxCarry)
	// What the input's pairing did: begins and ends met, pairs made.
	begins, ends, pairs int64
	js                  []byte // args that go to args_json, without braces
	rec                 schema7.TickRecord
}

func newConverter(o *options) *converter {
	return &converter{o: o, colName: map[string]string{}, tracks: map[trackKey]*trackInfo{}, d9Plans: map[*dial9.Schema]*d9Plan{},
		names: [2]map[string]*nameInfo{{}, {}}}
}

// start prepares the converter for an input whose rows go to b.
func (c *converter) start(b *batch, format, source string) {
	c.prefix = format + "_"
	clear(c.colName)
	clear(c.tracks)
	clear(c.trackList)
	c.trackList = c.trackList[:0]
	c.trackSlot = [cacheSlots]*trackInfo{}
	for i := range c.names {
		clear(c.names[i])
		c.nameSlot[i] = [cacheSlots]*nameInfo{}
	}
	c.atfSeq = nil
	c.atfArgs = [2]d9Field{}
	clear(c.d9Plans)
	c.d9dec = nil
	c.d9Slot = [cacheSlots]*d9Plan{}
	c.isDial9 = format == events.FormatDial9
	c.isATF = format == events.FormatATF
	c.src = source
	c.nOpen, c.begins, c.ends, c.pairs = 0, 0, 0, 0
	c.attach(b)
	if format == events.FormatCDT && c.cdtCols == nil {
		for _, f := range c.o.cdtFields {
			c.cdtCols = append(c.cdtCols, "cdt_"+sanitize(f))
		}
	}
}

// attach (re)binds the converter to b after b was reset or replaced: the
// open begins of the old rows are forgotten.
func (c *converter) attach(b *batch) {
	c.b, c.gen = b, b.gen
	c.source = b.srcDict.id(c.src)
	for _, t := range c.tracks {
		t.open, t.overflow = t.open[:0], 0
	}
	c.nOpen = 0
}

// track returns what the converter keeps about e's track (nil beyond
// maxPairTracks tracks).
func (c *converter) track(t *events.Track) *trackInfo {
	k := trackKey{t.Kind, t.ID}
	slot := &c.trackSlot[(t.ID^uint64(t.Kind)<<5)%cacheSlots]
	if ti := *slot; ti != nil && ti.key == k {
		return ti
	}
	ti, ok := c.tracks[k]
	if !ok {
		if len(c.tracks) >= maxPairTracks {
			return nil
		}
		ti = &trackInfo{key: k, name: t.Name, gen: c.b.gen - 1}
		c.tracks[k] = ti
		c.trackList = append(c.trackList, ti)
	}
	*slot = ti
	return ti
}

// trackNameID is the id of t's name in the batch's track_name dictionary.
func (c *converter) trackNameID(ti *trackInfo, t *events.Track) uint32 {
	if ti == nil || ti.name != t.Name {
		return c.b.tnDict.id(t.Name)
	}
	if ti.gen != c.b.gen {
		ti.nameID, ti.gen = c.b.tnDict.id(t.Name), c.b.gen
	}
	return ti.nameID
}

// nameInfo returns what the converter keeps about the event name (table 1
// for ends, whose arguments differ from their begins').
func (c *converter) nameInfo(name string, end int) *nameInfo {
	h := uint(len(name))
	if len(name) > 0 {
		h = h*31 + uint(name[0])*7 + uint(name[len(name)-1])
		if len(name) > 2 {
			h = h*31 + uint(name[len(name)-2])
		}
	}
	slot := &c.nameSlot[end][h%cacheSlots]
	if ni := *slot; ni != nil && (sameString(ni.name, name) || ni.name == name) {
		return ni
	}
	ni, ok := c.names[end][name]
	if !ok {
		ni = &nameInfo{name: name, gen: c.b.gen - 1}
		if len(c.names[end]) < 1<<16 {
			c.names[end][name] = ni
		}
	}
	*slot = ni
	return ni
}

// nameID is the id of the name in the batch's name dictionary.
func (c *converter) nameID(ni *nameInfo) uint32 {
	if ni.gen != c.b.gen {
		ni.id, ni.gen = c.b.nameDict.id(ni.name), c.b.gen
	}
	return ni.id
}

// sanitize makes a column name engines accept unquoted: letters, digits
// and underscores, every other byte replaced by '_'.
func sanitize(s string) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			ok = false
			break
		}
	}
	if ok && s != "" {
		return s
	}
	b := []byte(s)
	for i := range b {
		if !nameByte(b[i]) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

func nameByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// column name of argument name (interned per input, up to 64 Ki names).
func (c *converter) argColumn(name string) string {
	if n, ok := c.colName[name]; ok {
		return n
	}
	n := c.prefix + sanitize(name)
	if len(c.colName) < 1<<16 {
		c.colName[name] = n
	}
	return n
}

// add converts one event.
func (c *converter) add(e *events.Event) {
	if c.isDial9 && dial9Direct {
		if ev := e.Dial9(); ev != nil {
			c.addDial9(e, ev)
			return
		}
	}
	if c.b.gen != c.gen {
		c.attach(c.b)
	}
	kind := e.Kind()
	t := e.Track()
	ti := c.track(&t)
	if kind == events.KindEnd {
		c.ends++
		if c.o.pairDepth > 0 && c.pairEnd(e, ti) {
			return
		}
	}
	name := e.Name()
	end := 0
	if kind == events.KindEnd {
		end = 1
	}
	ni := c.nameInfo(name, end)
	r := c.b.addRow(c.source, e, &t, c.trackNameID(ti, &t), c.nameID(ni), len(name))
	c.js = c.js[:0]
	c.putArgs(r, e, false, ni)
	c.putJSON(r)
	if kind == events.KindBegin {
		c.begins++
		if c.o.pairDepth > 0 && ti != nil {
			c.pushBegin(r, ti, c.beginKey(e))
		}
	}
}

// beginKey is what an end must match to close e: an ATF call's function
// id (0 for the other formats, whose ends close the innermost begin).
func (c *converter) beginKey(e *events.Event) uint64 {
	if !c.isATF {
		return 0
	}
	ev, _, _, ok := e.ATF()
	if !ok {
		return 0
	}
	return ev.FunctionID
}

// addDial9 is add for a dial9 event ev (e's record): the same row, with
// the event name's nameInfo cached in the schema's plan and the fields put
// by putDial9 directly.
func (c *converter) addDial9(e *events.Event, ev *dial9.Event) {
	if c.b.gen != c.gen {
		c.attach(c.b)
	}
	kind := e.Kind()
	t := e.Track()
	// c.track, c.dial9Plan, c.planName, c.trackNameID and c.nameID with
	// their cache hits inline.
	ti := c.trackSlot[(t.ID^uint64(t.Kind)<<5)%cacheSlots]
	if ti == nil || ti.key != (trackKey{t.Kind, t.ID}) {
		ti = c.track(&t)
	}
	p := c.d9Slot[ev.TypeID()%cacheSlots]
	if p == nil || p.schema != ev.Schema() {
		p = c.dial9Plan(ev)
	}
	name := e.Name()
	if kind == events.KindEnd {
		c.ends++
		if c.o.pairDepth > 0 && c.pairEndDial9(e, ev, p, ti) {
			return
		}
	}
	end := 0
	if kind == events.KindEnd {
		end = 1
	}
	ni := p.names[end]
	if ni == nil || !sameString(ni.name, name) {
		ni = c.planName(p, name, end)
	}
	var tn uint32
	if ti != nil && ti.gen == c.b.gen && sameString(ti.name, t.Name) {
		tn = ti.nameID
	} else {
		tn = c.trackNameID(ti, &t)
	}
	nameID := ni.id
	if ni.gen != c.b.gen {
		nameID = c.nameID(ni)
	}
	r := c.b.addRow(c.source, e, &t, tn, nameID, len(name))
	c.js = c.js[:0]
	if ev.NumFields() == e.NumArgs() {
		c.putDial9(r, e, ev, false, ni, p)
	} else {
		c.putArgs(r, e, false, ni)
	}
	if len(c.js) > 0 {
		c.putJSON(r)
	}
	if kind == events.KindBegin {
		c.begins++
		if c.o.pairDepth > 0 && ti != nil {
			c.pushBegin(r, ti, 0)
		}
	}
}

// pushBegin opens the begin of row r on track st. A track holding
// WithMaxPairDepth open begins, or an input holding maxCarry, first lets
// the track's oldest go (it stays a "begin" row: with lost returns, the
// bottom of a deep stack is where the stale calls are); a begin that
// still finds maxCarry open (on other tracks) is counted as an overflow:
// it stays a "begin" row, and the next end of the track (which would be
// its own) an "end" row. All of it whatever the row groups.
func (c *converter) pushBegin(r int, st *trackInfo, key uint64) {
	if c.isDial9 && len(st.open) > 0 {
		// Polls on a worker do not nest: a poll still open when the
		// next begins lost its end, and stays a "begin" row.
		c.nOpen -= len(st.open)
		st.open = st.open[:0]
	}
	if len(st.open) > 0 && (len(st.open) >= c.o.pairDepth || c.nOpen >= maxCarry) {
		st.open = st.open[:copy(st.open, st.open[1:])]
		c.nOpen--
	}
	if st.overflow > 0 || c.nOpen >= maxCarry {
		st.overflow++
		return
	}
	st.open = append(st.open, openBegin{int32(r), key})
	c.nOpen++
}

// matchEnd finds the open begin of st that e closes and pops it (and, for
// ATF, the calls above it, which stay "begin" rows: their returns were
// lost); -1 when e closes none. The begin must not be later than e. An ATF
// return closes the innermost open call of its own function, as a profiler
// unwinds a stack whose returns were lost; another format's end closes the
// innermost open begin of its track (dial9 polls do not nest, see
// pushBegin; a WTF leave closes the innermost scope).
func (c *converter) matchEnd(e *events.Event, st *trackInfo) int {
	if st == nil {
		return -1
	}
	if st.overflow > 0 {
		st.overflow--
		return -1
	}
	b := c.b
	endTs, endTimed := e.Time(), e.HasTime()
	before := func(r int32) bool { return endTimed && b.hasTs.has(int(r)) && endTs < b.ts[r] }
	i := len(st.open) - 1
	if c.isATF {
		key := c.beginKey(e)
		for i >= 0 && (st.open[i].fid != key || before(st.open[i].row)) {
			i--
		}
	} else if i >= 0 && before(st.open[i].row) {
		i = -1
	}
	if i < 0 {
		return -1
	}
	r := int(st.open[i].row)
	c.nOpen -= len(st.open) - i
	st.open = st.open[:i]
	return r
}

// pairEnd turns the row of the begin that e closes into a complete row;
// false when e closes no open begin (it becomes an "end" row).
func (c *converter) pairEnd(e *events.Event, st *trackInfo) bool {
	r := c.matchEnd(e, st)
	if r < 0 {
		return false
	}
	c.completeBegin(e, r)
	if ev := c.dial9Event(e); ev != nil {
		p := c.dial9Plan(ev)
		c.putDial9(r, e, ev, true, c.planName(p, e.Name(), 1), p)
	} else {
		c.putArgs(r, e, true, c.nameInfo(e.Name(), 1))
	}
	c.putJSON(r)
	return true
}

// completeBegin makes row r, the begin that e closes, a complete row
// lasting until e (matchEnd made sure e is not before it); the caller
// stores e's arguments into it.
func (c *converter) completeBegin(e *events.Event, r int) {
	c.pairs++
	b := c.b
	b.kind[r] = uint8(events.KindComplete)
	// matchEnd made sure the end is not before the begin; a difference
	// past int64 (times of opposite signs) is no duration either.
	if d := e.Time() - b.ts[r]; b.hasTs.has(r) && e.HasTime() && d >= 0 {
		b.dur[r] = d
		setBit(b.hasDur, r, true)
	} else {
		setBit(b.hasDur, r, false)
	}
	c.js = c.js[:0]
}

// pairEndDial9 is pairEnd for the dial9 event ev (e's record) of plan p.
func (c *converter) pairEndDial9(e *events.Event, ev *dial9.Event, p *d9Plan, st *trackInfo) bool {
	if ev.NumFields() != e.NumArgs() {
		return c.pairEnd(e, st)
	}
	r := c.matchEnd(e, st)
	if r < 0 {
		return false
	}
	c.completeBegin(e, r)
	ni := p.names[1]
	if ni == nil || !sameString(ni.name, e.Name()) {
		ni = c.planName(p, e.Name(), 1)
	}
	c.putDial9(r, e, ev, true, ni, p)
	if len(c.js) > 0 {
		c.putJSON(r)
	}
	return true
}

// dial9Event is e's dial9 record when putDial9 takes its arguments (nil
// otherwise: putArgs does).
func (c *converter) dial9Event(e *events.Event) *dial9.Event {
	if !c.isDial9 || !dial9Direct {
		return nil
	}
	if ev := e.Dial9(); ev != nil && ev.NumFields() == e.NumArgs() {
		return ev
	}
	return nil
}

// sameString reports whether a and b are the same string in memory (not
// only equal): a quick check before a comparison.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// planName is nameInfo(name, end) through the cache of the plan of the
// event's schema.
func (c *converter) planName(p *d9Plan, name string, end int) *nameInfo {
	ni := p.names[end]
	if ni == nil || ni.name != name {
		// The name depends on the event, not only on its schema (a poll
		// without a worker is an instant named after its schema).
		ni = c.nameInfo(name, end)
		p.names[end] = ni
	}
	return ni
}

// valueCol is the typed column kind of each value kind (0: none).
var valueCol = [...]colKind{
	events.ValueInt: colInt, events.ValueUint: colUint, events.ValueFloat: colFloat,
	events.ValueBool: colBool, events.ValueString: colString, events.ValueBytes: colBytes,
	events.ValueComposite: 0,
}

// argCol resolves argument i called name of kind into its column (ok false
// when the column has another kind), through the name's cache.
func (c *converter) argCol(ni *nameInfo, i int, name string, kind colKind) (*argCol, bool) {
	if i < len(ni.args) {
		if a := &ni.args[i]; a.name == name && a.col.kind == kind {
			return a.col, true
		}
	}
	colName := c.argColumn(name)
	cl, ok := c.b.column(colName, kind)
	if ok && i < 64 {
		for len(ni.args) <= i {
			ni.args = append(ni.args, argRef{col: &argCol{}})
		}
		ni.args[i] = argRef{name: name, colName: colName, col: cl}
	}
	return cl, ok
}

// putArgs stores e's arguments in row r: typed columns where the column has
// the value's type, args_json otherwise. For an end paired into its begin's
// row (end true), values the begin already set are kept and the end's
// differing values go to args_json as "end.NAME".
func (c *converter) putArgs(r int, e *events.Event, end bool, ni *nameInfo) {
	format := e.Format()
	if format == events.FormatCDT {
		c.putCDT(r, e)
	}
	if format == events.FormatDial9 && dial9Direct {
		if ev := e.Dial9(); ev != nil && ev.NumFields() == e.NumArgs() {
			c.putDial9(r, e, ev, end, ni, c.dial9Plan(ev))
			return
		}
	}
	n := -1
	// An ATF event's index record, read once for its arguments and putATF.
	var (
		aev   atf.IndexEvent
		ath   *atf.Thread
		aseq  uint64
		isATF bool
	)
	if format == events.FormatATF {
		aev, ath, aseq, isATF = e.ATF()
		// Two arguments (function_id, depth) unless the event links a
		// detail record its thread holds (as events' NumArgs counts them,
		// without reading the record again).
		if atfDirect && isATF && ath != nil && (!aev.HasDetail() || ath.Detail == nil || uint64(aev.DetailSeq) >= ath.Detail.Len()) {
			c.putATFArgs(r, e, aev, end, ni)
			n = 0
		}
	}
	if n < 0 {
		n = e.NumArgs()
	}
	for i := 0; i < n; i++ {
		c.putArg(r, e, i, end, ni, format)
	}
	if end {
		if s := e.WTFScope(); s != nil && len(s.Appended) > 0 && string(s.Appended) != "{}" && string(s.Appended) != "[]" {
			c.jsonRaw("scope_data", s.Appended)
		}
	}
	if isATF {
		c.atfSeqNo = aseq
		c.putATF(r)
	}
}

// putArg stores argument i of e in row r: its typed column when the column
// has the value's type and the row no value yet, args_json otherwise (see
// putArgs).
func (c *converter) putArg(r int, e *events.Event, i int, end bool, ni *nameInfo, format string) {
	name, v := e.Arg(i)
	vk := v.Kind()
	if vk == events.ValueNull {
		return
	}
	if end && format == events.FormatATF {
		// The return's detail record has columns of its own, of the same
		// types as the call's.
		switch name {
		case "detail_type":
			name = "end_detail_type"
		case "detail":
			name = "end_detail"
		}
	}
	var kind colKind
	if int(vk) < len(valueCol) {
		kind = valueCol[vk]
	}
	if kind != 0 {
		cl, ok := c.argCol(ni, i, name, kind)
		if !ok && cl.has(r) && format == events.FormatCDT {
			return // a top-level entry also exported as a CDT field
		}
		if ok {
			if !cl.has(r) {
				c.setValue(cl, r, v)
				return
			}
			if end && sameValue(c.b, cl, r, v) {
				return
			}
		}
	}
	c.jsonArg(name, v, end)
}

// atfDirect makes the converter take an ATF event's two arguments,
// function_id and depth, from the index record (what events.Event.Arg
// yields) instead of through events.Event.Arg; a test turns it off to prove
// both give the same files.
var atfDirect = true

// putATFArgs is putArgs's loop for an ATF event's function_id and depth.
func (c *converter) putATFArgs(r int, e *events.Event, ev atf.IndexEvent, end bool, ni *nameInfo) {
	vals := [2]uint64{ev.FunctionID, uint64(ev.CallDepth)}
	for i, v := range vals {
		a := &c.atfArgs[i]
		if !a.done {
			name, _ := e.Arg(i)
			if cl, ok := c.b.column(c.argColumn(name), colUint); ok {
				a.col = cl
			}
			a.done = true
		}
		if a.col != nil {
			if !a.col.slot(r) {
				a.col.nums[r] = v
				c.b.size += 9
				continue
			}
			if end && a.col.nums[r] == v {
				continue // the return repeats its call's value (sameValue)
			}
		}
		c.putArg(r, e, i, end, ni, events.FormatATF)
	}
}

// dial9Direct makes the converter read dial9 numeric fields from the
// decoded event (dial9.Event.Uint) instead of through events.Event.Arg; a
// test turns it off to prove both give the same rows.
var dial9Direct = true

// d9Field is how a dial9 field is stored: col is its typed column when the
// field is numeric (the value is dial9.Event.Uint: I64 and F64 bits, bools
// as 0/1, the unsigned types as they are — what events.Event.Arg yields),
// nil when the field takes the generic path.
type d9Field struct {
	kind   colKind // 0: not numeric (nor a pooled string)
	pooled bool    // a pooled string, resolved through the dial9 reader
	col    *argCol // resolved at the field's first value (as putArg would)
	done   bool    // col resolved (nil: the column has another type)
	opt    bool
	size   int64
	fast   bool // col resolved (not nil), numeric and not optional
	// pool caches where a pooled field's strings are in the batch's
	// arena (pooledSpan).
	pool *d9Pool
}

// d9Pool is a pooled field's cache of the arena spans of its strings,
// direct-mapped by pool id; an entry holds for the batch generation gen.
type d9Pool [8]struct {
	id  uint32
	s   span
	gen uint64
}

// d9Plan is the storage of the fields of one dial9 schema.
type d9Plan struct {
	schema *dial9.Schema
	fields []d9Field
	// names caches the nameInfo of the plan's events ([1]: ends), checked
	// against the event's name.
	names [2]*nameInfo
	// putDial9's split loops for new rows (splitPlan): checked once every
	// typed field is resolved; split when they apply.
	checked, split bool
	fast           []fastField
	fastSize       int64 // the sizes of the fast fields' values
	rest           []int // the other fields, in order
}

// fastField is a field of a plan's fast loop: its index and its column.
type fastField struct {
	i   int
	col *argCol
}

// dial9Plan returns the plan of ev's schema.
func (c *converter) dial9Plan(ev *dial9.Event) *d9Plan {
	sc := ev.Schema()
	slot := &c.d9Slot[ev.TypeID()%cacheSlots]
	if p := *slot; p != nil && p.schema == sc {
		return p
	}
	p, ok := c.d9Plans[sc]
	if !ok {
		p = &d9Plan{schema: sc, fields: make([]d9Field, ev.NumFields())}
		for i := range p.fields {
			t := ev.FieldType(i)
			var kind colKind
			size := int64(9)
			switch t.Base() {
			case dial9.TypeI64:
				kind = colInt
			case dial9.TypeF64:
				kind = colFloat
			case dial9.TypeBool:
				kind, size = colBool, 1
			case dial9.TypeVarint, dial9.TypeU8, dial9.TypeU16, dial9.TypeU32:
				kind = colUint
			case dial9.TypePooledString:
				if c.d9dec == nil {
					continue
				}
				p.fields[i] = d9Field{kind: colString, pooled: true, opt: t.IsOptional(), pool: new(d9Pool)}
				continue
			default:
				continue // strings, bytes, pools, stacks, maps, lists
			}
			p.fields[i] = d9Field{kind: kind, opt: t.IsOptional(), size: size}
		}
		if len(c.d9Plans) < 1<<16 {
			c.d9Plans[sc] = p
		}
	}
	*slot = p
	return p
}

// putDial9 is putArgs for a dial9 event: numeric fields straight into their
// columns, the others (and a field whose row already holds a value) through
// putArg.
func (c *converter) putDial9(r int, e *events.Event, ev *dial9.Event, end bool, ni *nameInfo, p *d9Plan) {
	if !end && p.split {
		// A new row: every fast field's column takes its value.
		w, m := r>>6, uint64(1)<<(uint(r)&63)
		for _, ff := range p.fast {
			cl := ff.col
			if w >= len(cl.bits) || r >= cap(cl.nums) {
				cl.putNum(r, ev.Uint(ff.i))
				continue
			}
			// putNum inline: the row is new, its bit clear.
			cl.bits[w] |= m
			cl.n++
			if r >= len(cl.nums) {
				c.b.size += int64(r-len(cl.nums)) * 8 // null slots before r
				cl.nums = cl.nums[:r+1]               // slots without a value hold garbage
			}
			cl.nums[r] = ev.Uint(ff.i)
		}
		c.b.size += p.fastSize
		for _, i := range p.rest {
			c.putField(r, e, ev, end, ni, &p.fields[i], i)
		}
		return
	}
	for i := range p.fields {
		c.putField(r, e, ev, end, ni, &p.fields[i], i)
	}
	if !p.checked {
		c.splitPlan(e, p)
	}
}

// splitPlan sets up putDial9's split loops once every typed field of p is
// resolved: the fast fields apart (fast), the others in order (rest). Only
// when the fields' column names are distinct: then a new row holds no value
// in a fast field's column before the field's own, so that the fast fields
// are stored first without changing what goes where.
func (c *converter) splitPlan(e *events.Event, p *d9Plan) {
	for i := range p.fields {
		if f := &p.fields[i]; f.kind != 0 && !f.done {
			return // not resolved yet
		}
	}
	p.checked = true
	seen := make(map[string]bool, len(p.fields))
	for i := range p.fields {
		name, _ := e.Arg(i)
		col := c.argColumn(name)
		if seen[col] {
			return
		}
		seen[col] = true
	}
	for i := range p.fields {
		f := &p.fields[i]
		if f.fast {
			p.fast = append(p.fast, fastField{i: i, col: f.col})
			p.fastSize += f.size
		} else {
			p.rest = append(p.rest, i)
		}
	}
	p.split = len(p.fast) > 0
}

// putField stores field i of ev, whose storage is f, in row r (see
// putDial9).
func (c *converter) putField(r int, e *events.Event, ev *dial9.Event, end bool, ni *nameInfo, f *d9Field, i int) {
	b := c.b
	if f.fast {
		// A numeric field always present, its column resolved.
		v := ev.Uint(i)
		cl := f.col
		// putNum, inline when the row's bit and slot exist.
		w, m := r>>6, uint64(1)<<(uint(r)&63)
		if w < len(cl.bits) && r < cap(cl.nums) {
			if cl.bits[w]&m == 0 {
				cl.bits[w] |= m
				cl.n++
				if r >= len(cl.nums) {
					b.size += int64(r-len(cl.nums)) * 8 // null slots before r
					cl.nums = cl.nums[:r+1]             // slots without a value hold garbage
				}
				cl.nums[r] = v
				b.size += f.size
				return
			}
		} else if cl.putNum(r, v) {
			b.size += f.size
			return
		}
		if end && cl.nums[r] == v {
			return // the end repeats its begin's value (sameValue)
		}
		c.putArg(r, e, i, end, ni, events.FormatDial9)
		return
	}
	if f.kind != 0 {
		if f.opt && !ev.Field(i).Present() {
			return
		}
		if !f.done {
			name, _ := e.Arg(i)
			if cl, ok := b.column(c.argColumn(name), f.kind); ok {
				f.col = cl
			}
			f.done = true
			f.fast = f.col != nil && !f.pooled && !f.opt
		}
		if f.pooled {
			// As events' dial9 source: the string the pool holds now,
			// null when the id is not in the pool.
			id := uint32(ev.Uint(i))
			bs, ok := c.d9dec.LookupString(id)
			if !ok {
				return
			}
			if f.col != nil && !f.col.has(r) {
				f.col.setStr(r, c.pooledSpan(f, id, bs))
				b.size += 5 + int64(len(bs))
				return
			}
			c.putArg(r, e, i, end, ni, events.FormatDial9)
			return
		}
		if f.col != nil {
			v := ev.Uint(i)
			if f.col.putNum(r, v) {
				b.size += f.size
				return
			}
			if end && f.col.nums[r] == v {
				return // the end repeats its begin's value (sameValue)
			}
		}
	}
	c.putArg(r, e, i, end, ni, events.FormatDial9)
}

// pooledSpan stores the string bs of pool id of field f in the batch's
// arena, or returns where the batch holds it already: a small cache from
// pool id to span, used when the arena's copy has bs's bytes (the pool may
// rebind an id). Rows then share the arena's copy, which writeDictStrings
// recognises by its span.
func (c *converter) pooledSpan(f *d9Field, id uint32, bs []byte) span {
	b := c.b
	ce := &f.pool[id%uint32(len(f.pool))]
	if ce.gen == b.gen && ce.id == id && ce.s.n == uint32(len(bs)) && string(b.bytes(ce.s)) == string(bs) {
		// (A string made valid UTF-8 by putString may differ from bs and
		// is stored again: rare, and the same row values.)
		return ce.s
	}
	s := b.putString(bs)
	ce.id, ce.s, ce.gen = id, s, b.gen
	return s
}

func (c *converter) setValue(cl *argCol, r int, v events.Value) {
	b := c.b
	switch cl.kind {
	case colInt, colUint:
		cl.setNum(r, v.Uint())
		b.size += 9
	case colFloat:
		cl.setNum(r, math.Float64bits(v.Float()))
		b.size += 9
	case colBool:
		var x uint64
		if v.Bool() {
			x = 1
		}
		cl.setNum(r, x)
		b.size++
	case colString:
		cl.setStr(r, b.putString(v.Bytes()))
		b.size += 5 + int64(len(v.Bytes()))
	default:
		cl.setStr(r, b.putBytes(v.Bytes()))
		b.size += 5 + int64(len(v.Bytes()))
	}
}

// sameValue reports whether row r of cl already holds v.
func sameValue(b *batch, cl *argCol, r int, v events.Value) bool {
	switch cl.kind {
	case colInt, colUint, colBool:
		return cl.nums[r] == v.Uint()
	case colFloat:
		return cl.nums[r] == math.Float64bits(v.Float())
	}
	return string(b.bytes(cl.strs[r])) == string(v.Bytes())
}

func (c *converter) jsonKey(name string, end bool) {
	if len(c.js) > 0 {
		c.js = append(c.js, ',')
	}
	start := len(c.js)
	c.js = events.AppendJSONString(c.js, name)
	if end {
		// "end.NAME": rare (an end whose value differs from its begin's).
		c.js = append(c.js[:start+1], append([]byte("end."), c.js[start+1:]...)...)
	}
	c.js = append(c.js, ':')
}

func (c *converter) jsonArg(name string, v events.Value, end bool) {
	c.jsonKey(name, end)
	c.js = v.AppendJSON(c.js)
}

func (c *converter) jsonRaw(name string, raw []byte) {
	c.jsonKey(name, false)
	c.js = append(c.js, raw...)
}

// putJSON stores the collected args_json pairs in row r (merged into what
// the row holds already).
func (c *converter) putJSON(r int) {
	if len(c.js) == 0 {
		return
	}
	b := c.b
	old := b.json[r]
	off := len(b.arena)
	b.arena = wire.Room(b.arena, int(old.n)+len(c.js)+2)
	if old.n == 0 {
		b.arena = append(b.arena, '{')
	} else {
		b.arena = append(b.arena, b.arena[old.off:old.off+old.n-1]...)
		b.arena = append(b.arena, ',')
		b.size -= int64(old.n)
	}
	if utf8.Valid(c.js) {
		b.arena = append(b.arena, c.js...)
	} else {
		// Raw JSON (WTF scope data) with invalid UTF-8: args_json is a
		// STRING.
		b.arena = appendValidUTF8(b.arena, c.js)
	}
	b.arena = append(b.arena, '}')
	b.json[r] = span{uint32(off), uint32(len(b.arena) - off)}
	b.size += int64(len(b.arena) - off)
}

// putATF adds the index record's place: atf_seq (its sequence number in
// the thread's index.atf). The linked detail record's type and payload are
// arguments of the event (detail_type, detail: atf_detail_type STRING and
// atf_detail BINARY, the return's atf_end_detail_type and atf_end_detail).
func (c *converter) putATF(r int) {
	b := c.b
	if c.atfSeq == nil {
		if cl, ok := b.column("atf_seq", colUint); ok {
			c.atfSeq = cl
		}
	}
	if cl := c.atfSeq; cl != nil && !cl.has(r) {
		cl.setNum(r, c.atfSeqNo)
		b.size += 9
	}
}

// putCDT adds the configured numeric fields of a tick (DOUBLE columns).
func (c *converter) putCDT(r int, e *events.Event) {
	row, ok := e.CDT()
	if !ok || len(c.cdtCols) == 0 {
		return
	}
	if err := c.rec.Decode(row.Raw); err != nil {
		c.jsonKey("decode_error", false)
		c.js = events.AppendJSONString(c.js, err.Error())
		return
	}
	for i, f := range c.o.cdtFields {
		v, ok := schema7.LookupNumber(&c.rec, f)
		if !ok {
			continue
		}
		if cl, ok := c.b.column(c.cdtCols[i], colFloat); ok && !cl.has(r) {
			cl.setNum(r, math.Float64bits(v))
			c.b.size += 9
		}
	}
}

// maxCarry bounds the open begins of an input (all tracks together), which
// are carried into the next row group when one is written; a begin beyond
// it stays a "begin" row (pushBegin).
const maxCarry = 1 << 16

// flush writes the sink's batch as a row group, carrying the rows of the
// open begins (at most maxCarry) into the next one so that their ends still
// find them.
func (c *converter) flush(s *sink) error {
	b := s.b
	if c.b != b || c.gen != b.gen {
		return s.flush()
	}
	if c.nOpen == 0 {
		return s.flush()
	}
	if c.carry == nil {
		c.carry = newBatch(b.format)
	}
	cb := c.carry
	cb.reset()
	for _, st := range c.trackList {
		for i, ob := range st.open {
			st.open[i].row = int32(cb.copyRow(b, int(ob.row)))
			b.skipRow(int(ob.row))
		}
	}
	if err := s.flush(); err != nil {
		return err
	}
	for _, st := range c.trackList {
		for i, ob := range st.open {
			st.open[i].row = int32(b.copyRow(cb, int(ob.row)))
		}
	}
	// The carried rows do not count towards the next row group's size
	// (else open begins as large as a row group would make every event
	// write one): they are bounded by maxCarry instead.
	b.carried = b.size
	c.gen = b.gen
	c.source = b.srcDict.id(c.src)
	return nil
}
