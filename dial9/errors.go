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
// these; encoder errors wrap ErrEncode, ErrSchemaConflict or ErrLimit.
var (
	// ErrBadMagic: the input does not start with "TRC\x00".
	ErrBadMagic = errors.New("not a dial9 stream (bad magic)")
	// ErrUnsupportedVersion: a header's version byte is not 1 (see
	// WithAnyVersion to accept it as the reference decoders do).
	ErrUnsupportedVersion = errors.New("unsupported dial9 version")
	// ErrTruncated: the input ends inside a header or frame.
	ErrTruncated = errors.New("truncated dial9 stream")
	// ErrUnknownFrame: a frame tag this package does not know; the stream
	// cannot be advanced past it.
	ErrUnknownFrame = errors.New("unknown frame tag")
	// ErrUnknownType: an event names a type id with no schema.
	ErrUnknownType = errors.New("event type id has no schema")
	// ErrUnknownFieldType: a schema uses a field-type tag this package does not know.
	ErrUnknownFieldType = errors.New("unknown field type")
	// ErrSchemaConflict: a type id (decoder) or name (encoder) registered
	// again with a different layout.
	ErrSchemaConflict = errors.New("schema registered again with a different layout")
	// ErrTimestampOverflow: base + delta does not fit in 64 bits.
	ErrTimestampOverflow = errors.New("timestamp overflows 64 bits")
	// ErrCorrupt: any other malformed content (invalid UTF-8 in a schema or
	// field name, a varint longer than 10 bytes, a bad container element).
	ErrCorrupt = errors.New("corrupt dial9 stream")
	// ErrLimit: a count or length over a Limits value.
	ErrLimit = errors.New("dial9 limit exceeded")
	// ErrEncode: an encoder call that does not match the schema (wrong value
	// type, wrong number of fields, value out of range).
	ErrEncode = errors.New("dial9 encode error")
)

const formatName = "dial9"

func newErr(off int64, sentinel error, msg string, args ...any) *FormatError {
	return traceerr.New(formatName, off, sentinel, msg, args...)
}
