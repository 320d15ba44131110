package chromeexport

import (
	"errors"
	"fmt"
)

// ErrOption: an option's value is out of range.
var ErrOption = errors.New("chromeexport: invalid option")

// DefaultMaxDepth is how many slices may be open at once on one thread by
// default (WithMaxDepth).
const DefaultMaxDepth = 1 << 16

// maxOpenTotal bounds the open slices of all threads together; a begin beyond
// it is written as an instant, as one beyond a thread's depth is.
const maxOpenTotal = 1 << 20

// DefaultCDTFields are the numeric CDT fields written as counter tracks by
// default (dotted paths as schema7.LookupNumber resolves them);
// parquetexport.DefaultCDTFields is a copy of it (the same set as typed
// columns).
var DefaultCDTFields = []string{
	"checkpoint.score_xp", "checkpoint.kills", "checkpoint.creature_count",
	"entity_samples.creatures", "entity_samples.projectiles", "rng_stream", "dt_ms_i32",
}

// Option configures Write and Convert.
type Option func(*options) error

type options struct {
	cdtFields []string
	maxDepth  int
	base      int64
	hasBase   bool
}

func newOptions(opts []Option) (options, error) {
	o := options{cdtFields: DefaultCDTFields, maxDepth: DefaultMaxDepth}
	for _, f := range opts {
		if err := f(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// WithCDTFields sets the numeric CDT fields written as counter tracks, one
// "C" series each (paths as schema7.LookupNumber takes them: "checkpoint.kills",
// "sim_state.players[0].health"). A field a tick does not have is left out of
// that tick. Default DefaultCDTFields; no field is an error.
func WithCDTFields(fields ...string) Option {
	return func(o *options) error {
		if len(fields) == 0 {
			return fmt.Errorf("%w: WithCDTFields needs at least one field", ErrOption)
		}
		for _, f := range fields {
			if f == "" {
				return fmt.Errorf("%w: WithCDTFields: empty field name", ErrOption)
			}
		}
		o.cdtFields = append([]string(nil), fields...)
		return nil
	}
}

// WithMaxDepth sets how many slices may be open at once on one thread; a begin
// beyond it, and the end that closes it, are written as instants. Default
// DefaultMaxDepth; n must be at least 1.
func WithMaxDepth(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%w: WithMaxDepth(%d): want at least 1", ErrOption, n)
		}
		o.maxDepth = n
		return nil
	}
}

// WithTimeBase sets the time (ns, on the trace's clock) that ts 0 stands for,
// for example to line up the exports of several traces. Default: the time of
// the first event that has one.
func WithTimeBase(ns int64) Option {
	return func(o *options) error {
		o.base, o.hasBase = ns, true
		return nil
	}
}
