package main

// A CTF trace folder (metadata and data streams): dump prints its event
// records (babeltrace2's text form, or the JSON Lines schema), convert --to
// chrome draws its events; validate (package inspect) decodes every data
// stream.

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
)

// ctfMetadataRecord are the --type values that select metadata records:
// with them, dump of a trace folder lists its metadata, as for the file.
var ctfMetadataRecord = map[string]bool{"packet": true, "fragment": true, "tsdl": true, "preamble": true, "field-class-alias": true,
	"trace-class": true, "clock-class": true, "data-stream-class": true, "event-record-class": true}

// ctfTraceDump writes the events of a trace folder (or of the CTF trace
// folders below a folder: an LTTng session), merged by time: with
// --json the event layer's JSON Lines, else one line per event record as
// babeltrace2's text.pretty sink prints it (times in UTC). With a filter
// the events are read through the event layer, whose matcher --json uses,
// so that both select the same records.
func ctfTraceDump(in *input, w *bufio.Writer, o dumpOptions) error {
	if _, _, err := o.bounds("a CTF trace folder", inspect.NS, true); err != nil {
		return err
	}
	if o.JSON {
		return dumpEvents(in, w, o)
	}
	if o.Type != "" || o.Thread != "" || o.From != nil || o.To != nil || in.Variant() == "session" {
		// a folder of CTF traces is opened as one by the event layer
		return ctfFilteredDump(in, w, o)
	}
	tr, err := ctf.OpenDir(in.Path)
	if err != nil {
		return err
	}
	defer tr.Close()
	in.setRecovery(tr.Recovery)
	r := tr.NewReader()
	return ctfPrint(in, w, r.Next, r.Event, nil, r.Err)
}

// ctfFilteredDump is ctfTraceDump with --type, --thread, --from or --to:
// the event layer's tracks (a CPU's data stream, its rotated files
// together) and filters (an event record without a clock has no time, so a
// bound drops it) select the records, printed as babeltrace2 does.
func ctfFilteredDump(in *input, w *bufio.Writer, o dumpOptions) error {
	m, err := o.filter().Compile(in.det.Format)
	if err != nil {
		return err
	}
	r, err := openEvents(in)
	if err != nil {
		return err
	}
	defer r.Close()
	cr, ok := r.Underlying().(*ctf.Reader)
	if !ok {
		return fmt.Errorf("%s: not read as a CTF trace", in.Path)
	}
	return ctfPrint(in, w, r.Next, cr.Event, func() bool { return m.Match(r.Event()) }, r.Err)
}

// ctfPrint writes the event records that next steps to (and keep, when not
// nil, accepts) as babeltrace2's text.pretty sink prints them, then returns
// err().
func ctfPrint(in *input, w *bufio.Writer, next func() bool, event func() *ctf.Event, keep func() bool, err func() error) error {
	var p ctf.Pretty
	var line []byte
	for n := 0; next(); n++ {
		if n&0xffff == 0 {
			if err := in.interrupted(); err != nil {
				return err
			}
		}
		if keep != nil && !keep() {
			continue
		}
		line = p.Append(line[:0], event())
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return err()
}

// ctfSessionLine is validate's line for a folder of CTF trace folders (an
// LTTng session folder, events.CTFSession), after its traces' lines: that
// dump, stats and export read them as one trace, which traces share a
// trace identity (one trace, their equal packets read once, as babeltrace2
// 2.1 reads them); or, bad, why they cannot be read as one (clock classes
// babeltrace2 cannot correlate, ctf.ErrClockCorrelation).
func ctfSessionLine(path string) (line string, bad bool) {
	dirs := events.CTFSession(path)
	ss, err := ctf.OpenSession(path, dirs)
	if err != nil {
		return fmt.Sprintf("%s: session: %s", path, errText(err)), true
	}
	defer ss.Close()
	line = fmt.Sprintf("%s: session: ok (%d CTF traces, read as one by dump, stats and export: %s", path, len(ss.Dirs), strings.Join(ss.Dirs, ", "))
	same := map[int][]string{}
	for i := range ss.Traces {
		if g := ss.Group(i); g != i {
			same[g] = append(same[g], ss.Dirs[i])
		}
	}
	for i, d := range ss.Dirs {
		if o := same[i]; len(o) > 0 {
			line += fmt.Sprintf("; %s and %s share their trace's UUID: one trace, equal packets read once", d, strings.Join(o, ", "))
		}
	}
	return line + ")", false
}
