package wtfcff

import (
	"errors"

	"github.com/tracecodec/tracecodec/traceerr"
)

// FormatError is the error every decoding function returns for bad input: it
// names the byte offset where the problem was found (absolute in the file for
// the binary container; inside the JSON text for the JSON container) and wraps
// one of the sentinels below, so errors.Is and errors.As both work.
type FormatError = traceerr.FormatError

const formatName = "wtfcff"

// Sentinels wrapped by every FormatError.
var (
	// ErrBadMagic: the file does not start with 0xDEADBEEF (little-endian CFF)
	// nor with DE AD BE EF (legacy big-endian), or a JSON document is not a
	// WTF CFF document.
	ErrBadMagic = errors.New("wtfcff: bad magic")
	// ErrUnsupportedVersion: a CFF format version other than 10, or a legacy
	// format version other than 3.
	ErrUnsupportedVersion = errors.New("wtfcff: unsupported format version")
	// ErrTruncated: the input ends inside a header, chunk, part or event.
	ErrTruncated = errors.New("wtfcff: truncated")
	// ErrCorrupt: a structure is inconsistent (a part outside its chunk, a chunk
	// shorter than its part table, bad header JSON, a part type that does not
	// belong in its chunk, a malformed event definition).
	ErrCorrupt = errors.New("wtfcff: corrupt")
	// ErrUndefinedEvent: an event record uses a wire id that no
	// wtf.event#define record has defined (the reference's
	// "Undefined event type N").
	ErrUndefinedEvent = errors.New("wtfcff: undefined event type")
	// ErrUnsupportedType: an event definition names an argument type that has
	// no wire encoding (bool[], ascii[], an unknown type name …); the error is
	// raised when an event of that type is decoded.
	ErrUnsupportedType = errors.New("wtfcff: unsupported argument type")
	// ErrLimit: a declared size or count exceeds a Limits value.
	ErrLimit = errors.New("wtfcff: limit exceeded")
	// ErrArgument: a Writer call does not match the event's signature (wrong
	// argument type or count, a wire id out of range, a string with a NUL).
	ErrArgument = errors.New("wtfcff: argument does not match the event signature")
	// ErrClosed: a write to a Writer, SharedWriter, ThreadWriter, ChunkWriter
	// or JSONWriter after its Close, or a read from a closed File.
	ErrClosed = errors.New("wtfcff: closed")
)

// Limits bounds what a reader accepts. A zero field takes its default.
type Limits struct {
	// MaxChunkSize is the largest chunk (header, part table and data) read,
	// in bytes, and the largest legacy file (read whole: its events form one
	// buffer). Default 256 MiB (the JS writer's chunks are 1 MiB).
	MaxChunkSize int64
	// MaxParts is the largest part count of one chunk. Default 4096.
	MaxParts int64
	// MaxEventTypes is the largest number of distinct event types (by name)
	// a stream may define. Default 65535 (wire ids are 16 bits).
	MaxEventTypes int64
	// MaxZones is the largest number of zones a stream may create. Default 65536.
	MaxZones int64
}

// DefaultLimits returns the limits used when none are given.
func DefaultLimits() Limits {
	return Limits{
		MaxChunkSize:  256 << 20,
		MaxParts:      4096,
		MaxEventTypes: 65535,
		MaxZones:      65536,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxChunkSize <= 0 {
		l.MaxChunkSize = d.MaxChunkSize
	}
	if l.MaxParts <= 0 {
		l.MaxParts = d.MaxParts
	}
	if l.MaxEventTypes <= 0 {
		l.MaxEventTypes = d.MaxEventTypes
	}
	if l.MaxZones <= 0 {
		l.MaxZones = d.MaxZones
	}
	return l
}

func newErr(off int64, sentinel error, msg string, args ...any) *FormatError {
	return traceerr.New(formatName, off, sentinel, msg, args...)
}
