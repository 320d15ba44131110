package events

// maxPairTracks bounds the tracks a pairer keeps stacks for; events of
// further tracks pass through unpaired.
const maxPairTracks = 1 << 16

type trackKey struct {
	kind TrackKind
	id   uint64
}

// openBegin is what a pairer keeps of a begin until its end.
type openBegin struct {
	name    string
	time    int64
	hasTime bool
	track   *Track
}

type pairStack struct {
	open     []openBegin
	overflow int // begins beyond the depth limit still open
}

// pairer turns begin/end pairs into complete events (see WithPairing).
type pairer struct {
	in       nexter // the events to pair
	src      source // in's source, for its error
	maxDepth int
	stacks   map[trackKey]*pairStack
	order    []*pairStack // creation order, for a deterministic drain
	drain    []openBegin
	draining bool
}

func newPairer(maxDepth int, in nexter, src source) *pairer {
	return &pairer{in: in, src: src, maxDepth: maxDepth, stacks: map[trackKey]*pairStack{}}
}

// stack returns the track's stack, creating it while under maxPairTracks.
func (p *pairer) stack(t *Track, create bool) *pairStack {
	k := trackKey{t.Kind, t.ID}
	if st, ok := p.stacks[k]; ok {
		return st
	}
	if !create || len(p.stacks) >= maxPairTracks {
		return nil
	}
	st := &pairStack{}
	p.stacks[k] = st
	p.order = append(p.order, st)
	return st
}

func (p *pairer) next(e *Event) bool {
	if !p.draining {
		for p.in.next(e) {
			switch e.kind {
			case KindBegin:
				st := p.stack(e.track, true)
				if st == nil {
					return true
				}
				if st.overflow > 0 || len(st.open) >= p.maxDepth {
					st.overflow++
					return true
				}
				st.open = append(st.open, openBegin{e.name, e.time, e.hasTime, e.track})
				continue
			case KindEnd:
				st := p.stack(e.track, false)
				if st == nil {
					return true
				}
				if st.overflow > 0 {
					st.overflow--
					return true
				}
				if len(st.open) == 0 {
					return true
				}
				b := st.open[len(st.open)-1]
				st.open = st.open[:len(st.open)-1]
				e.kind, e.name = KindComplete, b.name
				if b.hasTime && e.hasTime {
					e.dur = e.time - b.time
				}
				e.time, e.hasTime, e.utime = b.time, b.hasTime, 0
			}
			return true
		}
		if p.src.err() != nil {
			return false
		}
		p.draining = true
		for _, st := range p.order {
			p.drain = append(p.drain, st.open...)
			st.open = st.open[:0]
		}
	}
	if len(p.drain) == 0 {
		return false
	}
	b := p.drain[0]
	p.drain = p.drain[1:]
	e.reset()
	e.kind, e.name, e.time, e.hasTime, e.track = KindBegin, b.name, b.time, b.hasTime, b.track
	e.args, e.rec = nil, nil
	return true
}
