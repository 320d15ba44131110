package inspect

// wtf: validate and the stats keys of a WTF trace (binary, JSON or legacy
// container), read chunk by chunk.

import (
	"bufio"
	"fmt"
	"sort"

	"github.com/tracecodec/tracecodec/traceerr"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// wtfWalk calls fn for every chunk and every event of the input, in order.
// The input is opened with wtfcff.NewReader, which picks the binary, JSON
// or legacy container by the first bytes; a file whose last chunk is torn
// is read as far as it goes (WithRecovery). The Recovery it returns says
// what a torn last chunk lost (nil when the file is whole), also with an
// error; decoded counts
// the events decoded (for its summary).
func wtfWalk(in *Input, onChunk func(c *wtfcff.Chunk) error, onEvent func(e *wtfcff.Event) error) (dec *wtfcff.Decoder, rec *wtfcff.Recovery, decoded int64, err error) {
	rc, err := in.open()
	if err != nil {
		return nil, nil, 0, err
	}
	defer rc.Close()
	src, err := wtfcff.NewReader(bufio.NewReaderSize(rc, 256<<10), wtfcff.WithRecovery())
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() {
		// A failing read still says what a torn file lost (the recovery
		// line tracecat prints with the error).
		if r := src.Recovery(); r.Torn {
			rec = r
		}
	}()
	dec = wtfcff.NewDecoder()
	var read int64
	for src.Next() {
		c := src.Chunk()
		read += c.Length
		if in.Progress != nil {
			in.Progress(read)
		}
		if onChunk != nil {
			if err := onChunk(c); err != nil {
				return dec, nil, decoded, err
			}
		}
		if c.Type == wtfcff.ChunkFileHeader {
			if _, err := c.FileHeader(); err != nil {
				return dec, nil, decoded, err
			}
		}
		if !dec.SetChunk(c) {
			continue
		}
		for dec.Next() {
			decoded++
			if onEvent != nil {
				if err := onEvent(dec.Event()); err != nil {
					return dec, nil, decoded, err
				}
			}
		}
		if err := dec.Err(); err != nil {
			return dec, nil, decoded, err
		}
	}
	if err := src.Err(); err != nil {
		return dec, nil, decoded, err
	}
	return dec, nil, decoded, nil
}

// validateWTF reads every chunk and event; like the reference's warnings,
// the summary names chunks and parts of unknown types that were skipped. A
// torn file fails validation with what was read and what was lost.
func validateWTF(in *Input) (string, []string, *traceerr.Recovery, error) {
	chunks, events, unknownChunks, unknownParts := 0, 0, 0, 0
	dec, rec, decoded, err := wtfWalk(in, func(c *wtfcff.Chunk) error {
		chunks++
		if !c.Type.Known() {
			unknownChunks++
			return nil
		}
		for _, p := range c.Parts {
			if !p.Type.Known() {
				unknownParts++
			}
		}
		return nil
	}, func(*wtfcff.Event) error { events++; return nil })
	if err != nil {
		var r *traceerr.Recovery
		if rec != nil {
			r = cleanRecovery(new(rec.Summary(decoded)))
		}
		return "", nil, r, err
	}
	s := fmt.Sprintf("%d chunks, %d events", chunks, events)
	if unknownChunks > 0 || unknownParts > 0 {
		s += fmt.Sprintf("; skipped %d chunks and %d parts of unknown types", unknownChunks, unknownParts)
	}
	if rec != nil {
		return "", nil, cleanRecovery(new(rec.Summary(decoded))), &wtfcff.FormatError{Format: "wtfcff", Offset: rec.TornOffset, Err: wtfcff.ErrTruncated,
			Msg: fmt.Sprintf("the file is torn; %s recoverable: %s", s, rec)}
	}
	return s, wtfOddities(dec.Oddities()), nil, nil
}

// wtfOddities are the problems of what the decoder read as the reference
// does though no writer produces it (warnings; --strict fails on them).
func wtfOddities(o wtfcff.Oddities) []string {
	var ps []string
	if o.PastTable > 0 {
		ps = append(ps, fmt.Sprintf("offset %d: %d string arguments name ordinals past their chunk's string table (read as null, as the reference does)", o.FirstPastTable, o.PastTable))
	}
	if o.Rebinds > 0 {
		ps = append(ps, fmt.Sprintf("offset %d: %d wtf.event#define records bind a wire id already bound to another event type (the later definition wins, as in the reference)", o.FirstRebind, o.Rebinds))
	}
	return ps
}

// statsWTF is the WTF keys of stats: events and events_by_name count every
// wire-level record, wtf.event#define and wtf.zone#* included (the event
// layer yields definitions and zone records as metadata events; first_ns …
// max_ns leave them out); zones counts the zones of the reference's
// database: the default zone (renamed by the first create) and the
// distinct zones created (by name, type and location).
func statsWTF(in *Input) (StatList, error) {
	chunks, events, user, scopes := 0, 0, 0, 0
	byName := map[string]int{}
	var first, last uint32
	haveTime := false
	var header *wtfcff.FileHeader
	st := wtfcff.NewScopeTracker()
	dec, rec, _, err := wtfWalk(in, func(c *wtfcff.Chunk) error {
		chunks++
		if c.Type == wtfcff.ChunkFileHeader && header == nil {
			header, _ = c.FileHeader()
		}
		return nil
	}, func(e *wtfcff.Event) error {
		events++
		byName[e.Name()]++
		if _, ok := st.Add(e); ok {
			scopes++
		}
		if !e.IsInternal() {
			user++
			if !haveTime || e.Time < first {
				first = e.Time
			}
			if !haveTime || e.Time > last {
				last = e.Time
			}
			haveTime = true
		}
		return nil
	})
	if err == nil {
		err = st.Err()
	}
	if err != nil {
		return nil, err
	}
	zones := len(dec.Zones())
	var types []string
	for _, t := range dec.Types() {
		types = append(types, t.Name)
	}
	sort.Strings(types)
	s := StatList{
		{"container", wtfContainer(in.Variant)},
		{"chunks", chunks},
		{"events", events},
		{"events_by_name", byName},
		{"zones", zones},
		{"user_events", user},
		{"scopes", scopes},
		{"event_types", len(types)},
	}
	if haveTime {
		s = append(s, Stat{"first_us", first}, Stat{"last_us", last})
	} else {
		s = append(s, Stat{"first_us", nil}, Stat{"last_us", nil})
	}
	if header != nil {
		s = append(s, Stat{"timebase_ms", header.Timebase})
	}
	if in.Size > 0 && events > 0 {
		s = append(s, Stat{"bytes_per_event", ratio(float64(in.Size), float64(events))})
	}
	s = append(s, Stat{"recovered", rec != nil})
	if rec != nil {
		least, most := rec.LostEvents()
		lost := any([]int64{least, most})
		if most < 0 {
			lost = nil // unknown: the torn chunk's header is cut
		}
		s = append(s, Stat{"lost_bytes", rec.LostBytes()}, Stat{"lost_events_range", lost}, Stat{"recovery", rec.String()})
	}
	return s, nil
}

// wtfContainer is the stats key container of a WTF variant.
func wtfContainer(variant string) string {
	switch variant {
	case "legacy big-endian":
		return "legacy"
	case "json":
		return "json"
	}
	return "binary"
}
