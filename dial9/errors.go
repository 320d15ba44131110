package dial9

import (
	"errors"

	"github.com/tracecodec/tracecodec/traceerr"
)

// FormatError is every decoding error: the byte offset in the (decompressed)
// stream where the problem was found, what is wrong, and the sentinel below
// that it wraps (errors.Is works).
type FormatError = traceerr.FormatError

// Sentinel errors. Decoding errors are *FormatError values wrapping one of
// these; writer errors wrap ErrEncode, ErrSchemaConflict, ErrLimit or
// ErrClosed, or are the io.Writer's own error.
var (
	// ErrBadMagic: the input does not start with "TRC\x00".
	ErrBadMagic = errors.New("dial9: bad magic")
	// ErrUnsupportedVersion: a header's version byte is not 1 (see
	// WithAnyVersion to accept it as the reference decoders do).
	ErrUnsupportedVersion = errors.New("dial9: unsupported version")
	// ErrTruncated: the input ends inside a header or frame.
	ErrTruncated = errors.New("dial9: truncated")
	// ErrUnknownFrame: a frame tag this package does not know; the stream
	// cannot be advanced past it.
	ErrUnknownFrame = errors.New("dial9: unknown frame tag")
	// ErrUnknownType: an event names a type id with no schema.
	ErrUnknownType = errors.New("dial9: unknown event type")
	// ErrUnknownFieldType: a schema uses a field-type tag this package does not know.
	ErrUnknownFieldType = errors.New("dial9: unknown field type")
	// ErrSchemaConflict: a type id (reader) or name (writer) registered
	// again with a different layout.
	ErrSchemaConflict = errors.New("dial9: schema conflict")
	// ErrTimestampOverflow: base + delta does not fit in 64 bits.
	ErrTimestampOverflow = errors.New("dial9: timestamp overflow")
	// ErrCorrupt: any other malformed content (invalid UTF-8 in a schema or
	// field name, a varint longer than 10 bytes, a bad container element,
	// a corrupt gzip member).
	ErrCorrupt = errors.New("dial9: corrupt stream")
	// ErrLimit: a count or length over a Limits value (reader), or a value
	// over the format's maxima (writer).
	ErrLimit = errors.New("dial9: limit exceeded")
	// ErrEncode: a writer call that does not match the schema (wrong value
	// type, wrong number of fields, value out of range).
	ErrEncode = errors.New("dial9: encode error")
	// ErrClosed: a call on a Writer, SharedWriter or ThreadWriter after its
	// Close.
	ErrClosed = errors.New("dial9: closed")
)

const formatName = "dial9"

func newErr(off int64, sentinel error, msg string, args ...any) *FormatError {
	return traceerr.New(formatName, off, sentinel, msg, args...)
}
