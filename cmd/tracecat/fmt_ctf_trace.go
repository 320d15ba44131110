package main

// A CTF trace folder (metadata and data streams): dump prints its event
// records (babeltrace2's text form, or the JSON Lines schema), validate
// decodes every data stream, convert --to chrome draws its events.

import (
	"bufio"
	"fmt"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/events/inspect"
)

// ctfMetadataRecord are the --type values that select metadata records:
// with them, dump of a trace folder lists its metadata, as for the file.
var ctfMetadataRecord = map[string]bool{"packet": true, "fragment": true, "tsdl": true, "preamble": true, "field-class-alias": true,
	"trace-class": true, "clock-class": true, "data-stream-class": true, "event-record-class": true}

// ctfHasStreams reports whether in is a CTF trace folder with data stream
// files beside its metadata (a metadata file, or a folder of metadata
// alone, holds no events).
func ctfHasStreams(in *input) bool {
	if !in.IsDir() {
		return false
	}
	streams, _, err := ctf.DataStreamFiles(in.Path)
	return err == nil && len(streams) > 0
}

// ctfTraceDump writes the events of a trace folder, merged by time: with
// --json the event layer's JSON Lines, else one line per event record as
// babeltrace2's text.pretty sink prints it (times in UTC).
func ctfTraceDump(in *input, w *bufio.Writer, o dumpOptions) error {
	from, to, err := o.bounds("a CTF trace's event records", inspect.NS, false)
	if err != nil {
		return err
	}
	if o.JSON {
		return dumpEvents(in, w, o)
	}
	tr, err := ctf.OpenDir(in.Path)
	if err != nil {
		return err
	}
	r := tr.NewReader()
	var p ctf.Pretty
	var line []byte
	for n := 0; r.Next(); n++ {
		if n&0xffff == 0 {
			if err := in.interrupted(); err != nil {
				return err
			}
		}
		e := r.Event()
		if o.Type != "" && e.Class.Name != o.Type {
			continue
		}
		if t := e.NS(); t < from || t > to {
			continue
		}
		line = p.Append(line[:0], e)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return r.Err()
}

// ctfTraceCheck decodes every event record of every data stream of a trace
// folder; it returns what it read and the losses the tracer reported.
func ctfTraceCheck(in *input) (string, []string, error) {
	tr, err := ctf.OpenDir(in.Path)
	if err != nil {
		return "", nil, err
	}
	var problems []string
	events := 0
	for _, s := range tr.Streams {
		if err := s.CheckIndex(); err != nil {
			return "", nil, err
		}
		for s.Next() {
			events++
		}
		if err := s.Err(); err != nil {
			return "", nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		for _, l := range s.Losses() {
			if l.Events > 0 {
				problems = append(problems, fmt.Sprintf("%s: packet %d: the tracer discarded %d event records", s.Name, l.Packet, l.Events))
			}
			if l.Packets > 0 {
				problems = append(problems, fmt.Sprintf("%s: packet %d: %d packets lost (sequence number gap)", s.Name, l.Packet, l.Packets))
			}
		}
		if rec := s.Recovery(); len(rec.Notes) > 0 {
			for _, n := range rec.Notes {
				problems = append(problems, s.Name+": "+n)
			}
		}
	}
	return fmt.Sprintf("%d event records in %d data streams", events, len(tr.Streams)), problems, nil
}
