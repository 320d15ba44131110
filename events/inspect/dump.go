package inspect

import (
	"io"

	"github.com/tracecodec/tracecodec/events"
)

// DumpOptions say how Dump writes.
type DumpOptions struct {
	// JSON writes JSON Lines (Event.AppendJSON) instead of text lines
	// (AppendText). Both forms carry the same records in the same order.
	JSON bool
	// Filter selects the events written.
	Filter Filter
	// Progress, when set, is called every ProgressEvery events read
	// (written or not) with the count so far, and once at the end; a non-nil
	// error it returns (an interrupt) ends the dump with that error.
	Progress func(read int64) error
}

// ProgressEvery is how many events Dump reads between calls of
// DumpOptions.Progress.
const ProgressEvery = 1 << 14

// Dump writes the events of r that pass o.Filter to w, one line each, in the
// reader's order (for an ATF session the cross-thread merge order, the same
// in text and JSON). It returns the number of lines written; the error is
// the first of the filter's (wrapping ErrUnsupported), the writer's, the
// progress callback's and r.Err().
func Dump(w io.Writer, r *events.Reader, o DumpOptions) (written int64, err error) {
	m, err := o.Filter.Compile(r.Format())
	if err != nil {
		return 0, err
	}
	var line []byte
	var read int64
	for r.Next() {
		read++
		if o.Progress != nil && read%ProgressEvery == 0 {
			if err := o.Progress(read); err != nil {
				return written, err
			}
		}
		ev := r.Event()
		if !m.Match(ev) {
			continue
		}
		if o.JSON {
			line = ev.AppendJSON(line[:0])
		} else {
			line = AppendText(line[:0], ev)
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return written, err
		}
		written++
	}
	if o.Progress != nil {
		if err := o.Progress(read); err != nil {
			return written, err
		}
	}
	return written, r.Err()
}
