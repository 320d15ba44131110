// Package traceerr defines FormatError, the one error type behind every
// tracecodec format package's decoding and validation errors.
//
// Each format package (cdt, dial9, atf, ctf2meta, wtfcff) declares
//
//	type FormatError = traceerr.FormatError
//
// and its own block of sentinels, each prefixed with the package name
// ("dial9: truncated"). Every decoding error is a *FormatError that names the
// format, the byte offset where the problem was found and what is wrong, and
// wraps one sentinel, so both
//
//	errors.Is(err, dial9.ErrTruncated)
//	errors.As(err, &fe) // fe *traceerr.FormatError (or *dial9.FormatError, the same type)
//
// work. A tool that handles every format needs one errors.As, not five.
//
// Recovery is the same idea for damaged or unfinished inputs: every format
// package summarises what its reader read, what it lost (bytes and units,
// -1 when unknown), where it stopped and why (a Reason wrapping the package
// sentinel) in one Recovery value, so a tool prints one line (String) and
// one JSON object (MarshalJSON) whatever the format.
package traceerr

import (
	"fmt"
	"strconv"
	"strings"
)

// FormatError is a decoding or validation error at a known place in the input.
//
// Its Error method renders "format: offset N: what is wrong"; Detail renders the
// same without the format name, the shape tracecat prints after a path.
type FormatError struct {
	// Format is the package that raised the error: "cdt", "dial9", "atf",
	// "ctf2meta" or "wtfcff" (the prefix of the error text, as Go packages
	// name their errors). The format names of the event layer and tracecat
	// are "ctf" and "wtf" for the last two: events.FormatName maps them.
	Format string
	// Offset is the byte offset in the input where the problem was found, or
	// -1 when the error has no single place (a missing file, a link between two
	// files).
	Offset int64
	// Err is the package sentinel this error wraps (for example
	// dial9.ErrTruncated); errors.Is matches it.
	Err error
	// Msg says what is wrong, in words. Empty means the sentinel's own text.
	Msg string
}

// New returns a *FormatError; msg is formatted with args as fmt.Sprintf does
// when args are given.
func New(format string, offset int64, sentinel error, msg string, args ...any) *FormatError {
	if len(args) > 0 {
		msg = fmt.Sprintf(msg, args...)
	}
	return &FormatError{Format: format, Offset: offset, Err: sentinel, Msg: msg}
}

// Error renders "format: offset N: what is wrong".
func (e *FormatError) Error() string {
	if e.Format == "" {
		return e.Detail()
	}
	return e.Format + ": " + e.Detail()
}

// Detail renders "offset N: what is wrong" without the format name. When Msg is
// empty the sentinel's text is used, without its "format: " prefix.
func (e *FormatError) Detail() string {
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
		if e.Format != "" {
			msg = strings.TrimPrefix(msg, e.Format+": ")
		}
	}
	if e.Offset < 0 {
		return msg
	}
	return "offset " + strconv.FormatInt(e.Offset, 10) + ": " + msg
}

// Unwrap returns the wrapped sentinel.
func (e *FormatError) Unwrap() error { return e.Err }
