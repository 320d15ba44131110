package ctf2meta

import (
	"errors"

	"github.com/tracecodec/tracecodec/traceerr"
)

// FormatError is the error type of every decoding and validation failure: it
// names the byte offset (of the packet, or of the fragment's RS byte) and what
// is wrong, and wraps one of the sentinels below. Messages start with
// "packet N:" or "fragment #N:" so the index is always given too.
type FormatError = traceerr.FormatError

// Sentinels wrapped by every *FormatError; test with errors.Is. Each text
// starts with "ctf2meta: ".
var (
	// ErrBadMagic: a packet does not start with 0x75d11d57 in either byte order.
	ErrBadMagic = errors.New("ctf2meta: bad metadata packet magic")
	// ErrUnsupportedVersion: a packet header version other than 1.8 or 2.0, or a
	// preamble version other than 2.
	ErrUnsupportedVersion = errors.New("ctf2meta: unsupported metadata version")
	// ErrUnsupported: a feature the format allows to be refused: non-zero
	// compression/encryption/checksum schemes, a non-zero checksum in strict
	// mode, declared CTF 2 extensions.
	ErrUnsupported = errors.New("ctf2meta: unsupported metadata feature")
	// ErrTruncated: the input ends inside a packet header, a packet's content
	// or a JSON text.
	ErrTruncated = errors.New("ctf2meta: truncated metadata")
	// ErrCorrupt: a packet header violates the packet layout rules (sizes,
	// byte order, UUID, header size), or bytes follow the last packet.
	ErrCorrupt = errors.New("ctf2meta: corrupt metadata packet")
	// ErrFraming: the CTF 2 metadata stream is not a valid RFC 7464 JSON text
	// sequence (no RS first, empty or invalid JSON text, not an object).
	ErrFraming = errors.New("ctf2meta: invalid JSON text sequence")
	// ErrSchema: a CTF 2 fragment or the fragment sequence violates the CTF 2
	// metadata schema (missing/invalid property, ordering, uniqueness).
	ErrSchema = errors.New("ctf2meta: invalid CTF 2 metadata")
	// ErrLimit: a packet, fragment, fragment count, nesting depth or the
	// memory budget of decoded values exceeds the Limits.
	ErrLimit = errors.New("ctf2meta: metadata limit exceeded")
	// ErrClosed: a Writer or FragmentWriter is used after Close.
	ErrClosed = errors.New("ctf2meta: writer closed")
)

const formatName = "ctf2meta"

func newErr(off int64, sentinel error, msg string, args ...any) *FormatError {
	return traceerr.New(formatName, off, sentinel, msg, args...)
}

// Limits bounds what a reader accepts. A zero field means its default.
type Limits struct {
	// MaxPacketBytes is the largest total packet size accepted (default 64 MiB;
	// the format's own maximum is 2^32-1 bits).
	MaxPacketBytes int64
	// MaxFragmentBytes is the largest JSON text of one fragment (default 16 MiB).
	MaxFragmentBytes int64
	// MaxFragments is the largest number of fragments in one metadata stream
	// (default 1<<20).
	MaxFragments int64
	// MaxDepth is the deepest nesting of field classes (default 64). JSON
	// values may nest 3 × MaxDepth + 8 deep (200 by default), enough for
	// structure members (three JSON levels each) nested MaxDepth deep.
	MaxDepth int
	// MaxMemory caps the Go memory the decoded JSON values of one metadata
	// stream may take, as charged per value (default 1 GiB). Whatever the
	// cap, they may take at most MemoryPerInputByte (32) bytes per byte of
	// JSON text read plus MemoryBase (1 MiB): a denser text, such as an
	// attribute array of millions of one-digit numbers, fails with ErrLimit.
	MaxMemory int64
}

// DefaultLimits returns the limits used when none are given.
func DefaultLimits() Limits {
	return Limits{MaxPacketBytes: 64 << 20, MaxFragmentBytes: 16 << 20, MaxFragments: 1 << 20, MaxDepth: 64, MaxMemory: 1 << 30}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxPacketBytes <= 0 {
		l.MaxPacketBytes = d.MaxPacketBytes
	}
	if l.MaxFragmentBytes <= 0 {
		l.MaxFragmentBytes = d.MaxFragmentBytes
	}
	if l.MaxFragments <= 0 {
		l.MaxFragments = d.MaxFragments
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = d.MaxMemory
	}
	return l
}

// ReaderOption configures a Reader, Depacketize, ToPlain, SeqReader,
// FragmentReader, DecodeMetadata, Decode or DecodeFragment. Options are
// validated when the reader is built.
type ReaderOption func(*options) error

type options struct {
	strict          bool
	limits          Limits
	allowUnknown    bool
	allowExtensions bool
	rejectShortV20  bool
}

// buildOptions applies opts; without options it does not allocate.
func buildOptions(opts []ReaderOption) (options, error) {
	if len(opts) == 0 {
		return options{limits: DefaultLimits()}, nil
	}
	o := new(options)
	for _, f := range opts {
		if f == nil {
			continue
		}
		if err := f(o); err != nil {
			return *o, err
		}
	}
	o.limits = o.limits.withDefaults()
	return *o, nil
}

// WithStrict selects babeltrace-compatible strictness (default false, which
// follows the CTF2-PMETA-1.0 document and the lenient behaviour of babeltrace
// 2.1.2): a non-zero packet checksum field is rejected instead of ignored,
// bytes after the last packet are an error instead of a warning, the last
// packet's padding must be complete, and whitespace before the first RS of a
// CTF 2 metadata stream is an error instead of being skipped.
func WithStrict(strict bool) ReaderOption {
	return func(o *options) error { o.strict = strict; return nil }
}

// WithLimits sets the limits; zero fields keep their defaults.
func WithLimits(l Limits) ReaderOption {
	return func(o *options) error {
		if l.MaxPacketBytes < 0 || l.MaxFragmentBytes < 0 || l.MaxFragments < 0 || l.MaxDepth < 0 || l.MaxMemory < 0 {
			return errors.New("ctf2meta: negative limit")
		}
		o.limits = l
		return nil
	}
}

// WithUnknownProperties makes the fragment decoder ignore (and drop) JSON
// object properties the CTF 2 schema does not define, instead of rejecting
// them as babeltrace 2.1 does (default false: reject).
func WithUnknownProperties(allow bool) ReaderOption {
	return func(o *options) error { o.allowUnknown = allow; return nil }
}

// WithExtensions makes a FragmentReader (and DecodeMetadata) accept a preamble that declares
// extensions (default false: refuse the metadata, as CTF 2 requires of a
// consumer that does not support them). Accepted extensions are kept as
// opaque JSON values and are otherwise ignored.
func WithExtensions(allow bool) ReaderOption {
	return func(o *options) error { o.allowExtensions = allow; return nil }
}

// WithShortV20 sets whether the packet reader accepts the 37-byte header
// with version 2.0 (LayoutV20Short, the LTTng kernel ring-buffer layout);
// default true. With false such packets fail with ErrUnsupportedVersion, as
// a reader supporting only CTF 1.8 and CTF2-PMETA-1.0 would.
func WithShortV20(accept bool) ReaderOption {
	return func(o *options) error { o.rejectShortV20 = !accept; return nil }
}
