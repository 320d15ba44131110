package atf

import (
	"errors"

	"github.com/tracecodec/tracecodec/traceerr"
)

// FormatError is the error type of every decoding and validation failure: it
// names the byte offset and what is wrong there, and wraps one of the sentinels
// below, so errors.Is(err, atf.ErrBadMagic) and errors.As(err, &fe) both work.
type FormatError = traceerr.FormatError

// Sentinels wrapped by every FormatError of this package.
var (
	// ErrBadMagic: the file does not start with "ATI2" (index) or "ATD2"
	// (detail), or a manifest is not a JSON object with a threads list.
	ErrBadMagic = errors.New("atf: bad magic")
	// ErrUnsupportedVersion: the header's version byte is not 1.
	ErrUnsupportedVersion = errors.New("atf: unsupported version")
	// ErrUnsupportedEndian: the header's endian byte is not 1 (little-endian).
	ErrUnsupportedEndian = errors.New("atf: unsupported byte order")
	// ErrTruncated: the input ends before a structure it must hold (a file
	// shorter than its 64-byte header, a footer count larger than the file,
	// an io.ReaderAt that returns less than the size the reader was opened
	// with). Any other error of an io.ReaderAt comes back as a FormatError
	// naming the offset of the failed read and wrapping that error.
	ErrTruncated = errors.New("atf: truncated")
	// ErrCorrupt: a field holds a value the format forbids (an event size other
	// than 32, an offset outside the file, a detail record shorter than its
	// header, links that disagree).
	ErrCorrupt = errors.New("atf: corrupt")
	// ErrChecksum: a footer's non-zero CRC-32 does not match its events section.
	ErrChecksum = errors.New("atf: checksum mismatch")
	// ErrLimit: a count or length is over a Limits value.
	ErrLimit = errors.New("atf: limit exceeded")
	// ErrNotFound: an event sequence number past the end of a file, or a
	// detail_seq that no detail event answers.
	ErrNotFound = errors.New("atf: no such event")
	// ErrClosed: a writer was used after Close.
	ErrClosed = errors.New("atf: writer closed")
	// ErrNotRegular: a path that must be a regular file (an index or detail
	// file, manifest.json) is a device, FIFO, socket or folder; the error
	// names the path.
	ErrNotRegular = errors.New("atf: not a regular file")
)

const formatName = "atf"

func newError(off int64, sentinel error, msg string, args ...any) error {
	return traceerr.New(formatName, off, sentinel, msg, args...)
}

// Limits bound what a reader accepts from its input before it allocates. A
// zero field takes the default given in its comment.
type Limits struct {
	// MaxIndexEvents bounds the events of one index file. Default 1<<32 (the
	// detail back link is a 32-bit sequence number).
	MaxIndexEvents uint64
	// MaxDetailEvents bounds the events of one detail file, and so the size of
	// the offset table built at open (8 bytes per event). Default 0xFFFFFFFF
	// (detail_seq 0xFFFFFFFF means "no detail").
	MaxDetailEvents uint64
	// MaxDetailEventSize bounds one detail record's total_length. Default 16 MiB.
	MaxDetailEventSize uint32
	// MaxManifestBytes bounds manifest.json. Default 64 MiB.
	MaxManifestBytes int64
	// MaxThreads bounds the threads of one session (a merge keeps about 4.2 KiB per thread). Default 4096.
	MaxThreads int
}

// DefaultLimits returns the limits a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{
		MaxIndexEvents:     1 << 32,
		MaxDetailEvents:    NoDetail,
		MaxDetailEventSize: 16 << 20,
		MaxManifestBytes:   64 << 20,
		MaxThreads:         4096,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxIndexEvents == 0 {
		l.MaxIndexEvents = d.MaxIndexEvents
	}
	if l.MaxDetailEvents == 0 {
		l.MaxDetailEvents = d.MaxDetailEvents
	}
	if l.MaxDetailEventSize == 0 {
		l.MaxDetailEventSize = d.MaxDetailEventSize
	}
	if l.MaxManifestBytes == 0 {
		l.MaxManifestBytes = d.MaxManifestBytes
	}
	if l.MaxThreads == 0 {
		l.MaxThreads = d.MaxThreads
	}
	return l
}
