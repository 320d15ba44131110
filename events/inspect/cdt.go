package inspect

// cdt: validate and the stats keys of a CDT trace, read with random access.

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
	"github.com/tracecodec/tracecodec/traceerr"
)

// OpenCDT opens a CDT input for random access, as tracecat does for every
// command; done closes the file and the input. A trace whose trailer or
// footer is missing or damaged (a recorder killed before Close) is opened
// from a forward scan of its complete chunks; File.Recovery then says what
// was read and lost. Chunks are decompressed and checksummed ahead on every
// core.
func OpenCDT(in Input) (f *cdt.File, done func(), err error) {
	if err := in.detect(); err != nil {
		return nil, nil, err
	}
	return cdtOpen(&in)
}

func cdtOpen(in *Input) (*cdt.File, func(), error) {
	if in.Variant == "v2" {
		return nil, nil, errors.New("CDT container v2 (crimson_debug_trace_v2) is not supported; this build reads container v1")
	}
	ra, size, closeFn, err := in.openAt()
	if err != nil {
		return nil, nil, err
	}
	r, err := cdt.Open(ra, size, cdt.WithConcurrency(runtime.GOMAXPROCS(0)), cdt.WithRecovery())
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return r, func() { r.Close(); closeFn() }, nil
}

// cdtRecovery is the recovery summary of r, nil when read cleanly.
func cdtRecovery(r *cdt.File) *traceerr.Recovery {
	if rep := r.Recovery(); rep != nil {
		return cleanRecovery(new(rep.Summary()))
	}
	return nil
}

// CDTRecoveryNote describes what recovery read and lost, as stats (the
// format's "recovery" key before the summary replaces it), dump and
// convert say it.
func CDTRecoveryNote(rep *cdt.Recovery) string {
	return "trace not closed: " + rep.String()
}

// validateCDT checks the metadata and every tick record against schema 7
// (required fields present); a trace without a usable footer fails, with
// what a forward scan recovers.
func validateCDT(in *Input) (string, *traceerr.Recovery, error) {
	r, done, err := cdtOpen(in)
	if err != nil {
		return "", nil, err
	}
	defer done()
	s, err := validateCDTFile(r)
	return s, cdtRecovery(r), err
}

func validateCDTFile(r *cdt.File) (string, error) {
	if _, err := schema7.ReadMeta(r); err != nil {
		return "", err
	}
	if err := schema7.CheckRequired(r.MetaPayload(), &schema7.TraceMeta{}); err != nil {
		return "", err
	}
	var rec schema7.TickRecord
	n := 0
	for row, err := range r.All() {
		if err != nil {
			return "", err
		}
		if err := rec.Decode(row.Raw); err != nil {
			return "", fmt.Errorf("tick %d: %w", row.Tick, err)
		}
		if err := schema7.CheckRequired(row.Raw, &rec); err != nil {
			return "", fmt.Errorf("tick %d: %w", row.Tick, err)
		}
		n++
	}
	if rep := r.Recovery(); rep != nil {
		// A trace without a usable footer is not valid; say what a reader
		// recovers (every row above was checked).
		var fe *cdt.FormatError
		if errors.As(rep.Reason, &fe) {
			e := *fe
			if e.Msg == "" {
				e.Msg = strings.TrimPrefix(e.Err.Error(), "cdt: ")
			}
			e.Msg += fmt.Sprintf(" (a forward scan recovers %d ticks in %d complete chunks; %s)", n, rep.Chunks, cdtLoss(rep))
			return "", &e
		}
		return "", fmt.Errorf("%w (a forward scan recovers %d ticks in %d complete chunks; %s)", rep.Reason, n, rep.Chunks, cdtLoss(rep))
	}
	return fmt.Sprintf("%d ticks in %d chunks, schema %d", n, r.NumBlocks(), r.Meta().SchemaVersion), nil
}

// cdtLoss says what recovery lost.
func cdtLoss(rep *cdt.Recovery) string {
	switch {
	case rep.LostBytes == 0:
		return "nothing after them was lost"
	case rep.LostTicks > 0:
		return fmt.Sprintf("%d bytes lost from offset %d, with ticks %d..%d", rep.LostBytes, rep.ReadBytes, rep.LostFrom, rep.LostTo)
	case rep.LostTicks < 0:
		return fmt.Sprintf("%d bytes lost from offset %d, ticks unknown", rep.LostBytes, rep.ReadBytes)
	}
	return fmt.Sprintf("%d bytes lost from offset %d (footer and trailer, no ticks)", rep.LostBytes, rep.ReadBytes)
}

// statsCDT is the CDT keys of stats, from the footer (or, for a recovered
// trace, the complete chunks read). events, first_ns … max_ns (set by
// FormatStats): every tick is an event, timed by its elapsed_ms.
func statsCDT(in *Input) (StatList, error) {
	r, done, err := cdtOpen(in)
	if err != nil {
		return nil, err
	}
	defer done()
	f := r.Footer()
	var clen, ulen int64
	for _, b := range f.Blocks {
		clen += b.CompressedLen
		ulen += b.UncompressedLen
	}
	st := StatList{
		{"ticks", f.TickCount},
		{"first_tick", f.FirstTick},
		{"last_tick", f.LastTick},
		{"tick_chunks", len(f.Blocks)},
		{"schema_version", r.Meta().SchemaVersion},
		{"format_version", r.Meta().FormatVersion},
		{"created_utc", r.Meta().CreatedUTC},
		{"channels", r.Meta().Channels},
		{"size", r.Size()},
		{"tick_bytes_compressed", clen},
		{"tick_bytes_msgpack", ulen},
	}
	if f.TickCount > 0 {
		st = append(st, Stat{"bytes_per_tick", ratio(float64(r.Size()), float64(f.TickCount))})
	}
	if rep := r.Recovery(); rep == nil {
		st = append(st, Stat{"recovered", false})
	} else {
		// Recovered: the counts are those of the complete chunks read.
		st = append(st, Stat{"recovered", true}, Stat{"read_bytes", rep.ReadBytes}, Stat{"lost_bytes", rep.LostBytes},
			Stat{"lost_ticks", rep.LostTicks}, Stat{"recovery", CDTRecoveryNote(rep)})
	}
	return st, nil
}
