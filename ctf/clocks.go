package ctf

import (
	"fmt"
	"strings"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

// Clock correlation: babeltrace2 2.1's muxer (its clock correlation
// validator, under the message interchange protocol version 1 its command
// line negotiates) merges the data streams of one or several traces only
// when their default clock classes can be put on one time line. The first
// stream's clock class sets the expectation, every other stream must meet
// it:
//   - no clock class: no stream may have one;
//   - a known origin (the Unix epoch, or a CTF 2 custom origin): every
//     stream's clock class has the same known origin;
//   - an unknown origin and an identity (a name and a UID; for CTF 1.8 the
//     clock's name and its uuid): every clock class has an unknown origin
//     and that identity (namespace, name and UID);
//   - an unknown origin without identity: every stream has that very clock
//     class (the same clock of the same trace, or of traces sharing a UUID,
//     which babeltrace2 reads as one).
//
// babeltrace2 translates a CTF 1.8 clock with `absolute = true` to the
// Unix epoch origin, and so a clock named "monotonic" of a trace whose
// environment's tracer_name starts with "lttng" (older LTTng versions
// forgot the attribute).

// clockOrigin is the origin of a clock class as babeltrace2 sees it.
type clockOrigin struct {
	known, unix          bool
	namespace, name, uid string // a custom origin
}

func (o clockOrigin) String() string {
	switch {
	case o.unix:
		return "the Unix epoch"
	case o.known:
		return fmt.Sprintf("origin %q/%q/%q", o.namespace, o.name, o.uid)
	}
	return "an unknown origin"
}

// clockOf describes, for the correlation check, the default clock class
// cc of a data stream class of trace t (nil: none), as babeltrace2 2.1
// translates it.
func clockOf(t *Trace, cc *ctf2meta.ClockClass) (o clockOrigin, hasID bool) {
	if cc == nil {
		return o, false
	}
	switch {
	case cc.Origin != nil && cc.Origin.UnixEpoch:
		o = clockOrigin{known: true, unix: true}
	case cc.Origin != nil && t.TSDL:
		// TSDL has only the Unix epoch
	case cc.Origin != nil:
		o = clockOrigin{known: true, namespace: cc.Origin.Namespace, name: cc.Origin.Name, uid: cc.Origin.UID}
	case t.TSDL && cc.Name == "monotonic" && lttngTrace(t):
		o = clockOrigin{known: true, unix: true}
	}
	return o, cc.Name != "" && cc.UID != ""
}

// lttngTrace says the environment's tracer_name of TSDL trace t starts
// with "lttng", as babeltrace2 recognises an LTTng trace.
func lttngTrace(t *Trace) bool {
	if tc := t.Meta.TraceClass; tc != nil {
		n, ok := tc.Environment["tracer_name"].(string)
		return ok && strings.HasPrefix(n, "lttng")
	}
	return false
}

// clockUse is a data stream's default clock class for the check: of
// stream class class of trace t, whose folder is dir ("" for a single
// trace), in trace group group (traces sharing a UUID share one), read
// from file name.
type clockUse struct {
	t     *Trace
	dir   string
	name  string
	group int
	class uint64
	cc    *ctf2meta.ClockClass
}

func (u *clockUse) where() string {
	if u.dir == "" {
		return u.name
	}
	return u.dir + "/" + u.name
}

func (u *clockUse) describe() string {
	if u.cc == nil {
		return fmt.Sprintf("%s (data stream class %d) has no clock class", u.where(), u.class)
	}
	o, hasID := clockOf(u.t, u.cc)
	id := "no identity (name and UID)"
	if hasID {
		id = fmt.Sprintf("identity %q/%q/%q", u.cc.Namespace, u.cc.Name, u.cc.UID)
	}
	return fmt.Sprintf("%s (data stream class %d) has clock class %q: %s, %s", u.where(), u.class, u.cc.ID, o, id)
}

// checkClocks applies babeltrace2's clock correlation rule to the data
// streams us, the first one setting the expectation: the error names the
// first stream and the first one that does not meet it, and wraps
// ErrClockCorrelation.
func checkClocks(us []clockUse) error {
	if len(us) < 2 {
		return nil
	}
	ref := &us[0]
	ro, rID := clockOf(ref.t, ref.cc)
	for i := 1; i < len(us); i++ {
		u := &us[i]
		o, hasID := clockOf(u.t, u.cc)
		var why string
		switch {
		case ref.cc == nil:
			if u.cc != nil {
				why = "expecting no clock class, got one"
			}
		case u.cc == nil:
			why = "expecting a clock class, got none"
		case ro.known:
			switch {
			case !o.known:
				why = "expecting a clock class with a known origin, got one with an unknown origin"
			case o != ro:
				why = "expecting a clock class with a known origin, got one with a different origin"
			}
		case rID:
			switch {
			case o.known:
				why = "expecting a clock class with an unknown origin and a specific identity, got one with a known origin"
			case !hasID:
				why = "expecting a clock class with an unknown origin and a specific identity, got one without identity"
			case u.cc.Namespace != ref.cc.Namespace || u.cc.Name != ref.cc.Name || u.cc.UID != ref.cc.UID:
				why = "expecting a clock class with an unknown origin and a specific identity, got one with a different identity"
			}
		case u.group != ref.group || u.cc.ID != ref.cc.ID:
			why = "expecting the same clock class (its origin is unknown and it has no identity), got another one"
		}
		if why != "" {
			return fmt.Errorf("%w: %s; %s: %s (babeltrace2 refuses to merge them too)", ErrClockCorrelation, ref.describe(), u.describe(), why)
		}
	}
	return nil
}
