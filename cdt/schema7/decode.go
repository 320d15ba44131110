package schema7

import (
	"errors"
	"fmt"

	"github.com/tracecodec/tracecodec/cdt"
)

// SchemaVersion is the trace_schema_version this package writes.
const SchemaVersion = 7

// DecodeError is returned when a payload does not decode as its schema type;
// its text starts with "schema7: decoding <What>: ".
// It matches both cdt.ErrCorrupt and the underlying cause (for example
// ErrUnknownField or msgp.ErrLimitExceeded) with errors.Is.
type DecodeError struct {
	What string // the payload type, e.g. "TickRecord"
	Err  error  // the msgp error, with its field path
}

// Error returns "schema7: decoding <What>: <cause>".
func (e *DecodeError) Error() string { return fmt.Sprintf("schema7: decoding %s: %v", e.What, e.Err) }

// Unwrap returns cdt.ErrCorrupt and the cause.
func (e *DecodeError) Unwrap() []error { return []error{cdt.ErrCorrupt, e.Err} }

var errTrailing = errors.New("trailing bytes after the payload")

type unmarshaler interface {
	UnmarshalMsg(b []byte) ([]byte, error)
}

func decodeExact(what string, raw []byte, into unmarshaler) error {
	rest, err := into.UnmarshalMsg(raw)
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("%w (%d)", errTrailing, len(rest))
	}
	if err != nil {
		return &DecodeError{What: what, Err: err}
	}
	return nil
}

// Decode replaces r with the TickRecord encoded in raw (one msgpack map, e.g.
// cdt.Row.Raw). Absent defaulted keys take their defaults; unknown keys are
// ignored except inside the canonical channel structs. Decode reuses the
// arrays of r's slices (and its Tutorial/Typo snapshots): copy what must
// outlive the next Decode into the same r.
func (r *TickRecord) Decode(raw []byte) error {
	r.reset()
	return decodeExact("TickRecord", raw, r)
}

// Decode replaces m with the TraceMeta encoded in raw (cdt.File.MetaPayload).
func (m *TraceMeta) Decode(raw []byte) error {
	*m = TraceMeta{}
	return decodeExact("TraceMeta", raw, m)
}

// Decode replaces f with the TraceFooter encoded in raw.
func (f *TraceFooter) Decode(raw []byte) error {
	*f = TraceFooter{}
	return decodeExact("TraceFooter", raw, f)
}

// Decode replaces b with the TickBlock encoded in raw.
func (b *TickBlock) Decode(raw []byte) error {
	*b = TickBlock{}
	return decodeExact("TickBlock", raw, b)
}

// ReadMeta decodes the META payload of an open trace.
func ReadMeta(r *cdt.File) (*TraceMeta, error) {
	m := new(TraceMeta)
	if err := m.Decode(r.MetaPayload()); err != nil {
		return nil, err
	}
	return m, nil
}

// FooterOf converts the container's footer into its schema form.
func FooterOf(f *cdt.Footer) *TraceFooter {
	out := &TraceFooter{
		TraceFormatVersion: Int(f.FormatVersion),
		TickCount:          Int(f.TickCount),
		FirstTick:          Int(f.FirstTick),
		LastTick:           Int(f.LastTick),
		TickBlocks:         make([]TickBlockIndexEntry, len(f.Blocks)),
	}
	for i, b := range f.Blocks {
		out.TickBlocks[i] = TickBlockIndexEntry{
			StartTick: Int(b.StartTick), EndTick: Int(b.EndTick), FileOffset: Int(b.FileOffset),
			CompressedLen: Int(b.CompressedLen), UncompressedLen: Int(b.UncompressedLen), Checksum: Uint(b.Checksum),
		}
	}
	for _, c := range f.ChannelCounts {
		out.ChannelCounts = append(out.ChannelCounts, IntEntry{c.Channel, c.Count})
	}
	return out
}
