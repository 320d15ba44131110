package schema7

import (
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// BisectOptions configure Bisect. Zero WindowBefore/WindowAfter mean the
// reference defaults 12 and 6; set Exact to use zeros literally.
type BisectOptions struct {
	DiffOptions
	WindowBefore int64
	WindowAfter  int64
	Exact        bool
}

// BisectReport is the reference's bisect report: the first bad tick and a
// window of ticks around it (first_bad − before .. first_bad + after, not
// clamped).
type BisectReport struct {
	Status       string
	CheckedCount int
	FirstBadTick *int64
	Mismatch     *Mismatch
	WindowStart  *int64
	WindowEnd    *int64
}

// Bisect finds the first divergent tick as Diff does (the reference's
// bisect is the same linear walk, not a binary search) and reports a window
// around it.
func Bisect(expected, actual *cdt.File, o BisectOptions) (*BisectReport, error) {
	before, after := o.WindowBefore, o.WindowAfter
	if !o.Exact {
		if before == 0 {
			before = 12
		}
		if after == 0 {
			after = 6
		}
	}
	d, err := Diff(expected, actual, o.DiffOptions)
	if err != nil {
		return nil, err
	}
	rep := &BisectReport{Status: d.Status, CheckedCount: d.CheckedCount, Mismatch: d.Mismatch}
	if d.Mismatch != nil {
		t := d.Mismatch.TickIndex
		ws, we := t-before, t+after
		rep.FirstBadTick, rep.WindowStart, rep.WindowEnd = &t, &ws, &we
	}
	return rep, nil
}

func (r *BisectReport) value() pyjson.Value {
	v := pyjson.NewMap()
	v.Set("schema_version", pyjson.IntValue(1))
	v.Set("status", pyjson.StringValue(r.Status))
	v.Set("checked_count", pyjson.IntValue(int64(r.CheckedCount)))
	v.Set("first_bad_tick", optInt(r.FirstBadTick))
	if r.Mismatch == nil {
		v.Set("mismatch", pyjson.NullValue())
	} else {
		v.Set("mismatch", r.Mismatch.value())
	}
	v.Set("window_start", optInt(r.WindowStart))
	v.Set("window_end", optInt(r.WindowEnd))
	return v
}

// JSON returns the report as json.dumps(indent=2) writes it.
func (r *BisectReport) JSON() []byte { return pyjson.Encode(nil, r.value(), pyjson.Style{Indent: 2}) }

// MarshalJSON implements json.Marshaler with the reference's key order.
func (r *BisectReport) MarshalJSON() ([]byte, error) {
	return pyjson.Encode(nil, r.value(), pyjson.Style{Compact: true}), nil
}
