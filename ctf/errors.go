package ctf

import (
	"errors"

	"github.com/tracecodec/tracecodec/traceerr"
)

// FormatError is the error type of every decoding failure: the byte offset
// in the data stream file, what is wrong, and one of the sentinels below.
type FormatError = traceerr.FormatError

// Sentinels wrapped by every *FormatError; test with errors.Is.
var (
	// ErrMetadata: the metadata cannot be used to decode data streams (a
	// field class this package does not decode, a field location that does
	// not resolve, no data stream class).
	ErrMetadata = errors.New("ctf: unusable metadata")
	// ErrUnsupported: the metadata holds a field class that babeltrace2
	// 2.1 cannot decode either: a fixed-length integer, bit array, bit map
	// or boolean of more than 64 bits, a floating-point number of other
	// than 32 or 64 bits. The error names the field.
	ErrUnsupported = errors.New("ctf: unsupported field class")
	// ErrBadMagic: a packet header's magic number is not 0xc1fc1fc1 (with
	// WithStrictMagic; without it such packets are read and noted).
	ErrBadMagic = errors.New("ctf: bad packet magic")
	// ErrUUID: a packet header's UUID differs from the metadata's (with
	// WithStrictUUID; without it such packets are read and noted).
	ErrUUID = errors.New("ctf: packet UUID differs from the metadata UUID")
	// ErrTruncated: the data ends inside a packet or an event record.
	ErrTruncated = errors.New("ctf: truncated data stream")
	// ErrCorrupt: packet or event record content that the metadata
	// forbids: sizes that do not add up, an unknown data stream class or
	// event record class, a variant selector matching no option, an empty
	// event record.
	ErrCorrupt = errors.New("ctf: corrupt data stream")
	// ErrLimit: a packet, an event record's field count or the compiled
	// metadata exceeds the Limits.
	ErrLimit = errors.New("ctf: limit exceeded")
	// ErrIndex: an LTTng index file is malformed or disagrees with its data
	// stream.
	ErrIndex = errors.New("ctf: bad packet index")
	// ErrClockCorrelation: the default clock classes of the data streams
	// a Reader merges (one trace's, or a Session's traces') cannot be put
	// on one time line, and babeltrace2 2.1 refuses to merge them too:
	// clock classes of unknown origin without the same identity, one of a
	// known origin beside one of an unknown origin, a stream without a
	// clock class beside one with (see OpenSession). The error names the
	// two streams, their traces and clock classes.
	ErrClockCorrelation = errors.New("ctf: clock classes cannot be correlated")
)

const formatName = "ctf"

func newErr(off int64, sentinel error, msg string, args ...any) *FormatError {
	return traceerr.New(formatName, off, sentinel, msg, args...)
}

// Limits bounds what a reader accepts. A zero field means its default.
type Limits struct {
	// MaxFieldsPerEvent bounds the fields of one event record, counting
	// every array element (default 1<<20).
	MaxFieldsPerEvent int
	// MaxFieldClasses bounds the compiled field classes of a trace's
	// metadata, aliases expanded at each use (default 1<<20).
	MaxFieldClasses int
	// MaxDepth bounds the nesting of field classes (default 64).
	MaxDepth int
}

// DefaultLimits returns the limits used when none are given.
func DefaultLimits() Limits {
	return Limits{MaxFieldsPerEvent: 1 << 20, MaxFieldClasses: 1 << 20, MaxDepth: 64}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxFieldsPerEvent <= 0 {
		l.MaxFieldsPerEvent = d.MaxFieldsPerEvent
	}
	if l.MaxFieldClasses <= 0 {
		l.MaxFieldClasses = d.MaxFieldClasses
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	return l
}

// Option configures a Trace.
type Option func(*options) error

type options struct {
	limits      Limits
	strictUUID  bool
	strictMagic bool
	skipDamaged bool
}

// WithSkipDamagedPackets reads on past damaged packets. An event record
// that cannot be decoded, in a packet whose size is known: the rest of
// that packet is skipped, Stream.Recovery counts its bytes lost and notes
// the first error, and the stream goes on at the next packet. A packet
// whose header or context cannot be decoded (a wrong magic number or UUID
// under WithStrictMagic or WithStrictUUID, an unknown data stream class,
// sizes that contradict each other, a total size past the end of the
// file where the index lists a packet that fits in it, …): when the
// stream's LTTng index (Stream.Index) lists a packet at its offset, the
// packet is skipped whole and the stream goes on at the index's next
// packet; Stream.Recovery counts its bytes lost and notes how many such
// packets and the first error, PacketsRead leaves it out, and the
// tracer's gaps (Stream.Losses, which are the tracer's only: the skipped
// packet is no Loss) go on from the index entry's counters, as if the
// packet had been read (in a group of files read as one stream, the
// packet keeps its place in the group's order, from the index entry's
// times). Without an index entry such a packet still stops
// the stream with its error: the next packet's place is unknown. (A
// stream that ends inside a packet is cut, not damaged: Recovery says so
// either way.) By default either damage stops its stream with its error,
// as babeltrace2 2.1 stops.
func WithSkipDamagedPackets() Option {
	return func(o *options) error {
		o.skipDamaged = true
		return nil
	}
}

// WithStrictUUID refuses a packet whose header holds a UUID other than the
// metadata's with ErrUUID. By default such packets are read, as babeltrace2
// 2.1 reads them, and Stream.Recovery notes how many there were.
func WithStrictUUID() Option {
	return func(o *options) error {
		o.strictUUID = true
		return nil
	}
}

// WithStrictMagic refuses a packet whose header's magic number is not
// 0xc1fc1fc1 with ErrBadMagic. By default such packets are read, as
// babeltrace2 2.1 reads them (it does not check the magic number), and
// Stream.Recovery notes how many there were.
func WithStrictMagic() Option {
	return func(o *options) error {
		o.strictMagic = true
		return nil
	}
}

// WithLimits sets the limits (zero fields keep their defaults).
func WithLimits(l Limits) Option {
	return func(o *options) error {
		if l.MaxFieldsPerEvent < 0 || l.MaxFieldClasses < 0 || l.MaxDepth < 0 {
			return errors.New("ctf: negative limit")
		}
		o.limits = l
		return nil
	}
}
