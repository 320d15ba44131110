package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/tracecodec/tracecodec/events/inspect"
	"io"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
	"github.com/tracecodec/tracecodec/chromeexport"
	"github.com/tracecodec/tracecodec/testgen/cdtdemo"
	"github.com/tracecodec/tracecodec/traceerr"
)

func init() {
	register(&format{
		name:    "cdt",
		lib:     true, // validate and stats: package inspect (cdt.go)
		dump:    cdtDump,
		diff:    cdtDiff,
		convert: cdtConvert,
		sample:  cdtSample,
	})
}

// cdtOpen opens a CDT input for random access. A trace whose trailer or
// footer is missing or damaged (a recorder killed before Close) is opened from
// a forward scan of its complete chunks; File.Recovery then says what was
// read and lost, and every command reports it.
func cdtOpen(in *input) (*cdt.File, func(), error) {
	r, done, err := inspect.OpenCDT(toLib(in))
	if err != nil {
		return nil, nil, err
	}
	in.setRecovery(func() *traceerr.Recovery {
		if rep := r.Recovery(); rep != nil {
			return summaryOf(rep.Summary())
		}
		return nil
	})
	return r, done, nil
}

// cdtRecoveryNote describes what recovery read and lost, for dump and
// convert (as stats says it).
func cdtRecoveryNote(rep *cdt.Recovery) string { return inspect.CDTRecoveryNote(rep) }

// cdtChannelNames are the values --type accepts for dump.
var cdtChannelNames = []string{"checkpoint", "sim_state", "entity_samples", "rng_stream", "timing_samples", "chunks", "meta", "footer"}

func cdtDump(in *input, w *bufio.Writer, o dumpOptions) error {
	if o.Type == "" || o.Type == "tick" {
		// One event per tick through the event layer, text or JSON; the
		// recovery line goes to standard error (printed by dump), every
		// line staying an event.
		return dumpEvents(in, w, o)
	}
	if !containsStr(cdtChannelNames, o.Type) {
		return usageErrorf("--type %q: want tick or a channel view: %s", o.Type, strings.Join(cdtChannelNames, ", "))
	}
	from, to, err := o.bounds("a CDT channel view", inspect.Tick, false)
	if err != nil {
		return err
	}
	r, done, err := cdtOpen(in)
	if err != nil {
		return err
	}
	defer done()
	if err := cdtDumpRecords(r, w, o, from, to); err != nil {
		return err
	}
	if rep := r.Recovery(); rep != nil {
		// As for CTF warnings: the note is the last record of the dump.
		if o.JSON {
			msg, _ := json.Marshal(cdtRecoveryNote(rep))
			fmt.Fprintf(w, `{"record":"warning","message":%s}`+"\n", msg)
		} else {
			fmt.Fprintf(w, "# warning: %s\n", cdtRecoveryNote(rep))
		}
	}
	return nil
}

func cdtDumpRecords(r *cdt.File, w *bufio.Writer, o dumpOptions, from, to int64) error {
	switch o.Type {
	case "chunks":
		return cdtDumpChunks(r, w, o, from, to)
	case "meta":
		meta, err := schema7.ReadMeta(r)
		if err != nil {
			return err
		}
		w.Write(schema7.AppendJSON(nil, meta))
		return w.WriteByte('\n')
	case "footer":
		w.Write(schema7.AppendJSON(nil, schema7.FooterOf(r.Footer())))
		return w.WriteByte('\n')
	}
	var line []byte
	for rec, err := range schema7.Records(r, from, to) {
		if err != nil {
			return err
		}
		line = line[:0]
		if o.JSON {
			line = cdtJSONLine(line, rec, o.Type)
		} else {
			line = cdtTextLine(line, rec, o.Type)
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

func cdtJSONLine(b []byte, rec *schema7.TickRecord, channel string) []byte {
	if channel == "" {
		return schema7.AppendJSON(b, rec)
	}
	b = append(b, `{"tick_index":`...)
	b = strconv.AppendInt(b, int64(rec.TickIndex), 10)
	b = append(b, `,"`...)
	b = append(b, channel...)
	b = append(b, `":`...)
	c := &rec.Channels
	switch channel {
	case "checkpoint":
		b = schema7.AppendJSON(b, &c.Checkpoint)
	case "sim_state":
		b = schema7.AppendJSON(b, &c.SimState)
	case "entity_samples":
		b = schema7.AppendJSON(b, &c.EntitySamples)
	case "rng_stream":
		b = schema7.AppendJSON(b, c.RngStream)
	case "timing_samples":
		b = schema7.AppendJSON(b, c.TimingSamples)
	}
	return append(b, '}')
}

func cdtTextLine(b []byte, rec *schema7.TickRecord, channel string) []byte {
	c := &rec.Channels
	b = fmt.Appendf(b, "tick %d", rec.TickIndex)
	switch channel {
	case "":
		b = fmt.Appendf(b, " elapsed_ms=%d dt_ms=%d mode=%d rng_state=%d score_xp=%d kills=%d players=%d creatures=%d projectiles=%d bonuses=%d rng_draws=%d timing=%d",
			rec.ElapsedMs, rec.DtMsI32, rec.ModeID, c.Checkpoint.RngState, c.Checkpoint.ScoreXP, c.Checkpoint.Kills,
			len(c.SimState.Players), len(c.EntitySamples.Creatures), len(c.EntitySamples.Projectiles),
			len(c.EntitySamples.Bonuses), len(c.RngStream), len(c.TimingSamples))
		if len(rec.PhaseMarkers) > 0 {
			b = fmt.Appendf(b, " markers=%s", strings.Join(rec.PhaseMarkers, ","))
		}
	default:
		b = append(b, ' ')
		b = cdtJSONLine(b, rec, channel)
	}
	return b
}

func cdtDumpChunks(r *cdt.File, w *bufio.Writer, o dumpOptions, from, to int64) error {
	f := r.Footer()
	for i, e := range f.Blocks {
		if e.EndTick < from || e.StartTick > to {
			continue
		}
		if o.JSON {
			fmt.Fprintf(w, `{"block":%d,"start_tick":%d,"end_tick":%d,"file_offset":%d,"compressed_len":%d,"uncompressed_len":%d,"checksum":%d}`+"\n",
				i, e.StartTick, e.EndTick, e.FileOffset, e.CompressedLen, e.UncompressedLen, e.Checksum)
		} else {
			fmt.Fprintf(w, "block %d ticks %d..%d offset %d compressed %d msgpack %d checksum %#016x\n",
				i, e.StartTick, e.EndTick, e.FileOffset, e.CompressedLen, e.UncompressedLen, e.Checksum)
		}
	}
	return nil
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func cdtDiff(a, b *input, w *bufio.Writer, o diffOptions) (int, error) {
	ra, doneA, err := cdtOpen(a)
	if err != nil {
		return exitInvalid, fmt.Errorf("%s: %w", a.Path, err)
	}
	defer doneA()
	rb, doneB, err := cdtOpen(b)
	if err != nil {
		return exitInvalid, fmt.Errorf("%s: %w", b.Path, err)
	}
	defer doneB()
	var opts schema7.DiffOptions
	if o.HasStart {
		opts.TickStart = &o.TickStart
	}
	if o.HasEnd {
		opts.TickEnd = &o.TickEnd
	}
	rep, err := schema7.Diff(ra, rb, opts)
	if err != nil {
		return exitInvalid, err
	}
	if !o.JSON {
		// The JSON report keeps the reference's shape; the text one notes
		// a side read by recovery.
		for _, side := range []struct {
			in *input
			f  *cdt.File
		}{{a, ra}, {b, rb}} {
			if r := side.f.Recovery(); r != nil {
				fmt.Fprintf(w, "# warning: %s: %s\n", side.in.Path, cdtRecoveryNote(r))
			}
		}
	}
	if o.JSON {
		w.Write(rep.JSON())
		w.WriteByte('\n')
	} else {
		cdtDiffText(w, rep)
	}
	if rep.Diverged() {
		return exitInvalid, nil
	}
	return exitOK, nil
}

func cdtDiffText(w *bufio.Writer, rep *schema7.DiffReport) {
	if !rep.Diverged() {
		fmt.Fprintf(w, "ok: %d ticks checked, no divergence\n", rep.CheckedCount)
		return
	}
	m := rep.Mismatch
	switch m.Kind {
	case "missing_channel":
		fmt.Fprintf(w, "diverged: a required channel is not declared by both traces: %s\n", m.DetailJSON())
	case "missing_tick":
		fmt.Fprintf(w, "diverged at tick %d: tick present in only one trace (%d ticks checked)\n", m.TickIndex, rep.CheckedCount)
	default:
		fmt.Fprintf(w, "diverged at tick %d (%d ticks checked): %d channel(s) differ\n", m.TickIndex, rep.CheckedCount, len(m.Channels))
		for _, c := range m.Channels {
			fmt.Fprintf(w, "  %s: %s", c.Channel, c.Kind)
			if len(c.Paths) > 0 {
				fmt.Fprintf(w, " at %s", strings.Join(c.Paths, ", "))
			}
			fmt.Fprintln(w)
		}
	}
}

// cdtDefaultFields are the counter tracks convert --to chrome draws by default.
var cdtDefaultFields = chromeexport.DefaultCDTFields

// cdtConvert writes Chrome trace-event JSON (package chromeexport): one
// counter track ("ph":"C") per numeric field, and a "tick" slice per tick.
func cdtConvert(in *input, to string, out io.Writer, o convertOptions) error {
	if to != "chrome" {
		return usageErrorf("convert --to %s: CDT converts to chrome only", to)
	}
	if len(o.Fields) == 0 {
		return writeChrome(in, out)
	}
	return writeChrome(in, out, chromeexport.WithCDTFields(o.Fields...))
}

// cdtSample writes a small valid trace: 40 synthetic ticks in chunks of 16.
func cdtSample(out io.Writer) error {
	const n = 40
	producer := schema7.AnyMap{schema7.AnyString("impl", "go"), schema7.AnyString("impl_version", "tracecat"),
		schema7.AnyString("platform", "any"), schema7.AnyString("arch", "any")}
	source := schema7.AnyMap{schema7.AnyString("kind", "sample")}
	meta := schema7.NewTraceMeta("1970-01-01T00:00:00+00:00", producer, source, schema7.AnyMap{}, 0, n-1, n)
	w, err := schema7.NewWriter(out, &meta, cdt.WithChunkTicks(16))
	if err != nil {
		return err
	}
	for t := range int64(n) {
		rec := cdtdemo.Tick(t, 0x1234abcd)
		if err := w.Append(&rec); err != nil {
			return err
		}
	}
	return w.Close()
}
