// Package ferr is the error type behind every format package's exported
// FormatError, and the helper that checks lengths and counts read from the input.
//
// The error type itself is public, in package traceerr. Each format package declares
//
//	type FormatError = traceerr.FormatError
//
// and its own block of sentinels (ErrBadMagic, ErrTruncated, ErrLimit, …). Every
// decoding error is a *FormatError that names the format, the byte offset where
// the problem was found, what is wrong, and wraps one sentinel, so both
// errors.Is(err, pkg.ErrTruncated) and errors.As(err, &fe) work.
//
// # Limits
//
// Every package that reads counts or lengths from its input offers
//
//	type Limits struct{ MaxX int64; … } // zero field = the documented default
//	func DefaultLimits() Limits
//
// and checks each value with a Checker before allocating: against the format's
// own maximum, the caller's limit, and what the remaining input can hold.
package ferr

import "github.com/tracecodec/tracecodec/traceerr"

// Error is the public traceerr.FormatError; format packages alias it as FormatError.
type Error = traceerr.FormatError

// New returns a *traceerr.FormatError; see traceerr.New.
func New(format string, offset int64, sentinel error, msg string, args ...any) *Error {
	return traceerr.New(format, offset, sentinel, msg, args...)
}

// Checker validates lengths and counts read from the input for one format.
type Checker struct {
	Format    string
	Limit     error // sentinel for "over the caller's or the format's limit"
	Truncated error // sentinel for "more than the remaining input can hold"
}

// Count checks that n items of at least minSize bytes each, declared at offset
// off, are within limit and fit in the remaining bytes of input. what names the
// field in the error ("string length", "map entries"). minSize may be 0 for items
// that can be empty; the limit check still applies.
func (c Checker) Count(off int64, what string, n, limit uint64, remaining int64, minSize uint64) error {
	if n > limit {
		return New(c.Format, off, c.Limit, "%s %d exceeds the limit of %d", what, n, limit)
	}
	if remaining < 0 {
		remaining = 0
	}
	if minSize > 0 && n > uint64(remaining)/minSize {
		return New(c.Format, off, c.Truncated, "%s %d needs at least %d bytes, only %d remain", what, n, satMul(n, minSize), remaining)
	}
	return nil
}

func satMul(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}
