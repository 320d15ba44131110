package main

// A CTF trace folder (metadata and data streams): dump prints its event
// records (babeltrace2's text form, or the JSON Lines schema), convert --to
// chrome draws its events; validate (package inspect) decodes every data
// stream.

import (
	"bufio"
	"fmt"
	"strconv"
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
	in.ctfLosses = r.Losses
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
//
// Lines are gathered in a buffer of its own and handed to w ctfPrintChunk
// bytes at a time: one Write per chunk, not per line, and (w's buffer being
// empty then, and no larger than a chunk) written through without a copy.
func ctfPrint(in *input, w *bufio.Writer, next func() bool, event func() *ctf.Event, keep func() bool, err func() error) error {
	var p ctf.Pretty
	buf := make([]byte, 0, ctfPrintChunk+4<<10)
	for n := 0; next(); n++ {
		if n&0xffff == 0 {
			if err := in.interrupted(); err != nil {
				return err
			}
		}
		if keep != nil && !keep() {
			continue
		}
		buf = p.Append(buf, event())
		if len(buf) >= ctfPrintChunk {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	return err()
}

// ctfPrintChunk is the size of ctfPrint's writes.
const ctfPrintChunk = 64 << 10

// ctfLossLine is dump's warning about the gaps the tracer of a CTF trace
// reported (discarded event records, lost packets), "" when none: one
// line with the totals where babeltrace2 prints a warning per gap;
// validate lists each gap, stats counts them.
func ctfLossLine(t ctf.LossTotals) string {
	var parts []string
	if t.EventGaps > 0 {
		parts = append(parts, "discarded "+nouns(t.Events, "event record")+" ("+nouns(uint64(t.EventGaps), "gap")+")")
	}
	if t.PacketGaps > 0 {
		parts = append(parts, "lost "+nouns(t.Packets, "packet")+" ("+nouns(uint64(t.PacketGaps), "gap")+")")
	}
	if len(parts) == 0 {
		return ""
	}
	return "the tracer " + strings.Join(parts, " and ") + " in " + nouns(uint64(t.Streams), "data stream") +
		": the events printed have holes there (validate lists each gap, stats counts them)"
}

// nouns is "N noun", with an s unless N is 1.
func nouns(n uint64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatUint(n, 10) + " " + noun + "s"
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
	line += ")"
	if len(same) > 0 {
		line += ctfSessionGaps(path, ss)
	}
	return line, false
}

// ctfSessionGaps is the warning lines (each after a newline) of the gaps
// the tracer reported across the trace folders of a session whose traces
// share a trace identity: a data stream whose files lie in several of
// them (LTTng's rotation chunks) is one stream to babeltrace2, which
// warns of a discarded-record counter's growth or a packet_seq_num jump
// from one folder's last packet of it to the next folder's first. The
// traces' own lines list the gaps inside each folder; the session's
// packet headers and contexts are read (ctf.Reader.ReadPackets: not its
// event records, which the traces' lines read) for those across them. A
// packet that fails to read is the trace's line's failure: the gaps
// before it are listed.
func ctfSessionGaps(path string, ss *ctf.Session) string {
	dir := map[*ctf.Stream]string{}
	for i, tr := range ss.Traces {
		for _, s := range tr.Streams {
			dir[s] = ss.Dirs[i]
		}
	}
	ss.NewScanner().ReadPackets()
	var out strings.Builder
	for i, tr := range ss.Traces {
		for _, s := range tr.Streams {
			for _, l := range s.Losses() {
				if l.From == nil || dir[l.From] == ss.Dirs[i] {
					continue
				}
				at := fmt.Sprintf("\n%s: session: warning: %s/%s: packet %d: ", path, ss.Dirs[i], s.Name, l.Packet)
				if l.Events > 0 {
					fmt.Fprintf(&out, "%sthe tracer discarded %d event records (counted from the packet before it, in %s/%s)", at, l.Events, dir[l.From], l.From.Name)
				}
				if l.Packets > 0 {
					fmt.Fprintf(&out, "%s%d packets lost (sequence number gap from the packet before it, in %s/%s)", at, l.Packets, dir[l.From], l.From.Name)
				}
			}
		}
	}
	return out.String()
}
