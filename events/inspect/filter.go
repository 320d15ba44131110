package inspect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/events"
)

// ErrUnsupported is wrapped by Filter.Compile when a filter asks for
// something the format does not have (a thread in a CDT trace, a tick
// range outside CDT) or names it in a way the format cannot read (an ATF
// --type that is no event kind). tracecat answers it with exit 2, a usage
// error: the filter is refused rather than silently ignored.
var ErrUnsupported = errors.New("filter not supported for this format")

// Filter selects events the same way for every format; it is what tracecat
// dump's --type, --thread, --from and --to flags build. The zero Filter keeps
// every event.
type Filter struct {
	// Type keeps events whose name is Type, or whose format-level record
	// type is Type: the dial9 schema name ("PollStart" as well as the
	// event name "poll"), the ATF event kind ("call", "return",
	// "exception" or a number), the WTF event type ("wtf.scope#enter" as
	// well as the scope's name). "" keeps all.
	Type string
	// Thread keeps events of one thread, worker or zone: the ATF thread id
	// ("7" or "thread_7"), the dial9 worker id ("3", or the track name
	// "worker 3", "blocking"), the WTF zone name, the CTF track: its ID
	// ("3" or "cpu 3" for CPU 3; 4294967296 + N for the stream without
	// cpu_id whose first file is the N-th) or its name (a stream without
	// cpu_id: its file name, after its trace's folder in a session).
	// CDT traces have one track: a Thread is refused for them. "" keeps
	// all.
	Thread string
	// From and To bound the time, both inclusive, when set: nanoseconds
	// compared with Event.Time (events without a time are dropped once a
	// bound is set), or, in unit Tick, a CDT tick index compared with
	// Event.Tick (refused for other formats); unit Index is refused.
	From, To *Time
}

// Matcher is a Filter compiled for one format.
type Matcher struct {
	f         Filter
	format    string
	all       bool
	atfKind   atf.EventKind
	hasKind   bool
	threadID  uint64
	hasThread bool // Thread parsed as a number (CTF: a track ID)
}

// Compile checks f against a format (events.FormatDial9, FormatATF,
// FormatWTF, FormatCDT, FormatCTF) and returns its matcher. Errors wrap ErrUnsupported
// and say which flag and why.
func (f Filter) Compile(format string) (*Matcher, error) {
	m := &Matcher{f: f, format: format}
	m.all = f.Type == "" && f.Thread == "" && f.From == nil && f.To == nil
	for _, b := range []*Time{f.From, f.To} {
		switch {
		case b == nil, b.Unit == NS:
		case b.Unit == Tick && format == events.FormatCDT:
		case b.Unit == Tick:
			return nil, fmt.Errorf("%w: %s is a CDT tick index, and this is a %s trace: give a time in ns (1200, 250us, 1.5s)", ErrUnsupported, b, format)
		default:
			return nil, fmt.Errorf("%w: %s counts records; events are selected by time in ns (1200, 250us, 1.5s)", ErrUnsupported, b)
		}
	}
	if f.From != nil && f.To != nil && f.From.Unit != f.To.Unit {
		return nil, fmt.Errorf("%w: a range from %s to %s mixes ticks and ns", ErrUnsupported, f.From, f.To)
	}
	if f.Type != "" && format == events.FormatATF {
		k, ok := atf.ParseEventKind(f.Type)
		if !ok {
			return nil, fmt.Errorf("%w: type %q: ATF events are call, return, exception or a kind number", ErrUnsupported, f.Type)
		}
		m.atfKind, m.hasKind = k, true
	}
	if f.Thread != "" {
		switch format {
		case events.FormatCDT:
			return nil, fmt.Errorf("%w: thread %q: a CDT trace has one track (its ticks), no threads", ErrUnsupported, f.Thread)
		case events.FormatATF:
			id, err := strconv.ParseUint(strings.TrimPrefix(f.Thread, "thread_"), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%w: thread %q: want an ATF thread id (7 or thread_7)", ErrUnsupported, f.Thread)
			}
			m.threadID, m.hasThread = id, true
		case events.FormatDial9:
			if id, err := strconv.ParseUint(strings.TrimPrefix(f.Thread, "worker "), 10, 64); err == nil {
				m.threadID, m.hasThread = id, true
			}
		case events.FormatCTF:
			if id, err := strconv.ParseUint(strings.TrimPrefix(f.Thread, "cpu "), 10, 64); err == nil {
				m.threadID, m.hasThread = id, true
			}
		}
	}
	return m, nil
}

// Match reports whether ev passes the filter. It allocates nothing.
func (m *Matcher) Match(ev *events.Event) bool {
	if m.all {
		return true
	}
	f := &m.f
	if f.Type != "" && !m.matchType(ev) {
		return false
	}
	if f.Thread != "" && !m.matchThread(ev) {
		return false
	}
	for i, b := range [2]*Time{f.From, f.To} {
		if b == nil {
			continue
		}
		var v int64
		if b.Unit == Tick {
			t, ok := ev.Tick()
			if !ok {
				return false
			}
			v = t
		} else {
			if !ev.HasTime() {
				return false
			}
			v = ev.Time()
		}
		if i == 0 && v < b.Value || i == 1 && v > b.Value {
			return false
		}
	}
	return true
}

func (m *Matcher) matchType(ev *events.Event) bool {
	switch m.format {
	case events.FormatATF:
		a, _, _, ok := ev.ATF()
		return ok && a.Kind == m.atfKind
	case events.FormatDial9:
		if d := ev.Dial9(); d != nil && d.Name() == m.f.Type {
			return true
		}
	case events.FormatWTF:
		if w := ev.WTF(); w != nil && w.Name() == m.f.Type {
			return true
		}
	}
	return ev.Name() == m.f.Type
}

func (m *Matcher) matchThread(ev *events.Event) bool {
	switch m.format {
	case events.FormatATF:
		_, th, _, ok := ev.ATF()
		return ok && th != nil && uint64(th.ID) == m.threadID
	case events.FormatDial9:
		t := ev.Track()
		if m.hasThread {
			return t.Kind == events.TrackWorker && t.ID == m.threadID
		}
		return t.Name == m.f.Thread
	case events.FormatWTF:
		if w := ev.WTF(); w != nil && w.Zone != nil {
			return w.Zone.Name == m.f.Thread
		}
		return false
	case events.FormatCTF:
		if m.hasThread {
			return ev.Track().ID == m.threadID
		}
	}
	return ev.Track().Name == m.f.Thread
}
