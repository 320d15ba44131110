package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/traceerr"
)

// Input is what Validate and FormatStats read: a trace file or folder
// (Path), or the bytes of one (Data). The hooks let a caller such as
// tracecat stop the read on an interrupt and show progress; all are
// optional.
type Input struct {
	// Path names the input: a file or folder, or a name (tracecat uses
	// "-") when Data holds the input.
	Path string
	// Data, when not nil, is the whole input.
	Data []byte
	// Format is the input's event-layer format name ("dial9", "wtf", …)
	// and Variant its variant as events.Detection names it; an empty
	// Format means detect both from Path or Data.
	Format, Variant string
	// Size is the input's size in bytes; 0 means ask the file system (or
	// len(Data)).
	Size int64
	// Open, when set, opens the input for streaming in place of opening
	// Path (or reading Data).
	Open func() (io.ReadCloser, error)
	// OpenAt, when set, opens the input for random access in place of
	// opening Path (or reading Data).
	OpenAt func() (r io.ReaderAt, size int64, close func() error, err error)
	// Events, when set, opens the event reader of the input in place of
	// events.Open(Path) (or events.OpenBytes(Data)).
	Events func() (*events.Reader, error)
	// Progress, when set, is called with the bytes of the input read so
	// far, about every MiB.
	Progress func(read int64)
	// Interrupted, when set, is called every ProgressEvery events of the
	// event pass of FormatStats; an error it returns ends the read with
	// that error. (To stop every read promptly, make Open and OpenAt
	// return readers that fail once interrupted, as tracecat does.)
	Interrupted func() error
}

// FileInput is the Input of a file or folder at path.
func FileInput(path string) Input { return Input{Path: path} }

// detect fills in Format, Variant and Size when they are not set.
func (in *Input) detect() error {
	if in.Size == 0 {
		if in.Data != nil {
			in.Size = int64(len(in.Data))
		} else if fi, err := os.Stat(in.Path); err == nil && fi.Mode().IsRegular() {
			in.Size = fi.Size()
		}
	}
	if in.Format != "" {
		return nil
	}
	var d events.Detection
	if in.Data != nil {
		d = events.DetectBytes(in.Data)
	} else {
		var err error
		if d, err = events.Detect(in.Path); err != nil {
			return err
		}
	}
	if d.Format == "" || d.Format == events.FormatUnknown {
		return fmt.Errorf("%s: unrecognised format", in.Path)
	}
	in.Format, in.Variant = d.Format, d.Variant
	return nil
}

func (in *Input) open() (io.ReadCloser, error) {
	if in.Open != nil {
		return in.Open()
	}
	if in.Data != nil {
		return io.NopCloser(bytes.NewReader(in.Data)), nil
	}
	return os.Open(in.Path)
}

func (in *Input) openAt() (io.ReaderAt, int64, func() error, error) {
	if in.OpenAt != nil {
		return in.OpenAt()
	}
	if in.Data != nil {
		return bytes.NewReader(in.Data), int64(len(in.Data)), func() error { return nil }, nil
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, 0, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	return f, fi.Size(), f.Close, nil
}

func (in *Input) events() (*events.Reader, error) {
	if in.Events != nil {
		return in.Events()
	}
	if in.Data != nil {
		return events.OpenBytes(in.Data, events.WithName(in.Path))
	}
	return events.Open(in.Path)
}

func (in *Input) interrupted() error {
	if in.Interrupted == nil {
		return nil
	}
	return in.Interrupted()
}

// Report is what validate prints for one input.
type Report struct {
	Format string // the event-layer format name
	// Summary is the line after "ok": what the input holds.
	Summary string
	// Problems lists what the input lost, recovered or contradicts about
	// itself, one line each (validate prints them as warnings).
	Problems []string
	// Recovery is what the format's reader recovered, nil when the input
	// was read cleanly; Format is the event-layer name.
	Recovery *traceerr.Recovery
	// Notes are what the input does that its format allows but a reader
	// may not expect, one line each: validate prints them as warnings, and
	// --strict does not fail on them (an ATF thread whose timestamps go
	// back: the reference's own writers produce such files).
	Notes []string
	// CrashLoss is what a writer of the format that was killed could have
	// lost without leaving a trace a reader can see (the README's table);
	// validate's ok line says it. Empty for CTF, which tracecodec does not
	// write.
	CrashLoss string
}

// CrashLoss is what a killed writer of the event-layer format f can lose
// without a trace, as validate's ok line and the README's table say it
// ("" for CTF and unknown formats).
func CrashLoss(f string) string {
	switch f {
	case events.FormatCDT:
		return "the open chunk (a missing footer shows the crash)"
	case events.FormatDial9:
		return "each thread's unflushed batch (64 KiB by default); a stream cut at a frame boundary reads as complete"
	case events.FormatATF:
		return "up to 127 events per thread (a missing footer shows the crash)"
	case events.FormatWTF:
		return "each thread's open chunk (1 MiB by default); a file cut at a chunk boundary reads as complete"
	}
	return ""
}

// StrictLosses is why validate --strict fails the input: its problems and
// its recovery line; none means the input passes strict mode.
func (r Report) StrictLosses() []string {
	losses := append([]string(nil), r.Problems...)
	if r.Recovery != nil {
		losses = append(losses, "recovery: "+r.Recovery.String())
	}
	return losses
}

// Validate reads in the way tracecat validate does and returns its verdict:
// an error for an input that fails (a cut dial9 stream, a torn WTF file, …;
// the error says what was read before the damage), otherwise a Report. A
// failing input's Report still has Format and, when the reader recovered
// something before failing, Recovery (tracecat prints its recovery line).
// It covers every format of the events layer: dial9, WTF, CDT, ATF and
// CTF.
func Validate(in Input) (Report, error) {
	if err := in.detect(); err != nil {
		return Report{}, err
	}
	f := in.Format
	var err error
	rep := Report{Format: f, CrashLoss: CrashLoss(f)}
	switch f {
	case events.FormatDial9:
		rep.Summary, rep.Recovery, err = validateDial9(&in)
	case events.FormatWTF:
		rep.Summary, rep.Problems, rep.Recovery, err = validateWTF(&in)
	case events.FormatCDT:
		rep.Summary, rep.Recovery, err = validateCDT(&in)
	case events.FormatATF:
		rep.Summary, rep.Problems, rep.Notes, err = validateATF(&in)
		rep.Recovery = ATFRecovery(in)
	case events.FormatCTF:
		rep.Summary, rep.Problems, rep.Notes, rep.Recovery, err = validateCTF(&in)
	default:
		return rep, fmt.Errorf("inspect: validate of %q: %w", f, events.ErrUnknownFormat)
	}
	if err != nil {
		return Report{Format: f, Recovery: rep.Recovery}, err
	}
	return rep, nil
}

// FormatStats reads in the way tracecat stats does and returns its keys in
// the order stats --json prints them: "format" first, the format's own
// keys, the event keys of Scan and "recovery" (the recovery summary, or
// nil for a clean input). Like Validate, it covers dial9, WTF, CDT, ATF
// and CTF (the event keys for a CTF trace folder with data streams, after
// its metadata keys, with the trace's own: data_streams, data_packets,
// events_by_stream, events_by_name, events_discarded, packets_lost).
func FormatStats(in Input) (StatList, error) {
	if err := in.detect(); err != nil {
		return nil, err
	}
	f := in.Format
	var err error
	var st StatList
	var rec *traceerr.Recovery
	withEvents := true
	switch f {
	case events.FormatDial9:
		st, err = statsDial9(&in)
	case events.FormatWTF:
		st, err = statsWTF(&in)
	case events.FormatCDT:
		st, err = statsCDT(&in)
	case events.FormatATF:
		var lone bool
		st, lone, err = statsATF(&in)
		withEvents = !lone
	case events.FormatCTF:
		st, rec, err = statsCTF(&in)
		withEvents = false
	default:
		return nil, fmt.Errorf("inspect: stats of %q: %w", f, events.ErrUnknownFormat)
	}
	if err != nil {
		return nil, err
	}
	if withEvents {
		if st, rec, err = st.withEvents(&in); err != nil {
			return nil, err
		}
	}
	if f == events.FormatATF {
		rec = ATFRecovery(in) // with the links walked, as validate reports them
	}
	var rv any
	if rec != nil {
		rv = rec
	}
	st = st.Merge(StatList{{"recovery", rv}})
	return append(StatList{{"format", f}}, st...), nil
}

// withEvents sets the event keys of Scan in st, with the event reader's
// recovery summary (nil when clean).
func (st StatList) withEvents(in *Input) (StatList, *traceerr.Recovery, error) {
	r, err := in.events()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	s, err := Scan(r, func(int64) error { return in.interrupted() })
	if err != nil {
		return nil, nil, err
	}
	return st.Merge(EventKeys(s)), cleanRecovery(r.Recovery()), nil
}

// cleanRecovery is r with the event-layer format name, nil when clean.
func cleanRecovery(r *traceerr.Recovery) *traceerr.Recovery {
	if r == nil || r.Clean() {
		return nil
	}
	if name := events.FormatName(r.Format); name != r.Format {
		c := *r
		c.Format = name
		r = &c
	}
	return r
}

// Stat is one key of stats; StatList keeps the keys in order.
type Stat struct {
	Key   string
	Value any
}

// StatList is the keys of stats in the order it prints them.
type StatList []Stat

// MarshalJSON writes the keys in list order, without HTML escaping.
func (s StatList) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshalJSON(kv.Key)
		v, err := marshalJSON(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("stats key %s: %w", kv.Key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// Get returns the value of key and whether s has it.
func (s StatList) Get(key string) (any, bool) {
	for _, kv := range s {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Merge sets each key of add in s (replacing the value in place, or
// appending).
func (s StatList) Merge(add StatList) StatList {
	for _, kv := range add {
		found := false
		for i := range s {
			if s[i].Key == kv.Key {
				s[i].Value, found = kv.Value, true
				break
			}
		}
		if !found {
			s = append(s, kv)
		}
	}
	return s
}

// EventKeys are the keys stats adds for every event format, from Scan, in
// the order stats prints them (times nil when no event has one): events,
// first_ns and last_ns (the first and last timed event in stream order),
// min_ns and max_ns, and time_backwards (Stats.Backwards: events earlier
// than the one before them on their track).
func EventKeys(s Stats) StatList {
	var first, last, lo, hi any
	if s.Timed {
		first, last, lo, hi = s.First, s.Last, s.Min, s.Max
	}
	return StatList{{"events", s.Events}, {"first_ns", first}, {"last_ns", last}, {"min_ns", lo}, {"max_ns", hi}, {"time_backwards", s.Backwards}}
}

// ratio rounds a ratio to two decimals, as stats prints every ratio (nil
// when den is 0).
func ratio(num, den float64) any {
	if den == 0 {
		return nil
	}
	return math.Round(num/den*100) / 100
}

// marshalJSON is json.Marshal without HTML escaping: "<", ">" and "&" stay as
// they are, as in the event layer's lines.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
