package cdt

import (
	"errors"

	"github.com/tracecodec/tracecodec/traceerr"
)

// FormatError is the error type of every decoding and validation failure: it
// names the byte offset and wraps one of the sentinels below.
type FormatError = traceerr.FormatError

// Sentinels. Every error returned by this package wraps exactly one of them, so
// callers test causes with errors.Is. The reference reader's message for each
// cause is given in parentheses.
var (
	// ErrSize: the file is too small to hold the fixed header and trailer
	// ("invalid trace file", "invalid trace size").
	ErrSize = errors.New("cdt: invalid trace size")
	// ErrBadMagic: the first 23 bytes are not "crimson_debug_trace_v1\n"
	// ("unsupported trace magic").
	ErrBadMagic = errors.New("cdt: unsupported trace magic")
	// ErrUnsupportedVersion: the container format version is not 1
	// ("unsupported trace format version").
	ErrUnsupportedVersion = errors.New("cdt: unsupported trace format version")
	// ErrTrailer: the last 16 bytes do not start with "CDTFTR1\n"
	// ("missing trace trailer").
	ErrTrailer = errors.New("cdt: missing trace trailer")
	// ErrChunkKind: a chunk kind is not META, TICK or FOTR, or is not the kind
	// expected at that place ("unknown chunk kind", "invalid trace meta chunk",
	// "invalid trace footer chunk", "trace index points at non-tick chunk").
	ErrChunkKind = errors.New("cdt: invalid chunk kind")
	// ErrFlags: a chunk lacks the msgpack flag (bit 1)
	// ("unsupported chunk payload encoding").
	ErrFlags = errors.New("cdt: unsupported chunk payload encoding")
	// ErrSizeMismatch: the decoded payload length differs from the header's
	// uncompressed_len ("chunk size mismatch").
	ErrSizeMismatch = errors.New("cdt: chunk size mismatch")
	// ErrChecksum: BLAKE2b-64 of the payload differs from checksum64
	// ("chunk checksum mismatch").
	ErrChecksum = errors.New("cdt: chunk checksum mismatch")
	// ErrSchemaVersion: META's trace_schema_version is not supported
	// ("unsupported trace schema version").
	ErrSchemaVersion = errors.New("cdt: unsupported trace schema version")
	// ErrFooter: the footer's counts, tick bounds or block index are invalid
	// ("invalid trace footer tick_count", "… tick bounds", "… tick order",
	// "… block index").
	ErrFooter = errors.New("cdt: invalid trace footer")
	// ErrTruncated: a chunk header or payload extends past the end of the input
	// ("truncated chunk header", "truncated chunk payload").
	ErrTruncated = errors.New("cdt: truncated")
	// ErrCorrupt: a payload cannot be decoded: zstd data corruption, a frame
	// without content size, or malformed msgpack (the reference raises
	// zstd.ZstdError or msgspec errors here).
	ErrCorrupt = errors.New("cdt: corrupt payload")
	// ErrLimit: a declared size or count exceeds a Limits field (or a
	// decoding memory budget, for example a zstd chunk that expands beyond
	// MaxDecompressionRatio, or META values that decode to too much memory).
	ErrLimit = errors.New("cdt: limit exceeded")
	// ErrTickOrder: the writer was given a row whose tick_index is lower than
	// the previous row's, negative, or outside the i32 range of chunk headers.
	ErrTickOrder = errors.New("cdt: tick rows must be in non-decreasing order")
	// ErrNoTicks: the writer was closed without any row
	// ("trace must contain at least one tick").
	ErrNoTicks = errors.New("cdt: trace must contain at least one tick")
	// ErrClosed: the writer or reader was used after Close.
	ErrClosed = errors.New("cdt: use of closed writer or reader")
)

const formatName = "cdt"

func newErr(off int64, sentinel error, msg string, args ...any) error {
	return traceerr.New(formatName, off, sentinel, msg, args...)
}

// Limits bound what a reader accepts before it allocates. A zero field means
// the documented default.
type Limits struct {
	// MaxChunkSize bounds compressed_len and uncompressed_len of one chunk.
	// Default 256 MiB (the reference writes ~640 KiB per 256-tick block).
	MaxChunkSize int64
	// MaxBlocks bounds the number of entries in the footer's block index.
	// Default 1<<22.
	MaxBlocks int64
	// MaxRowsPerBlock bounds the number of rows in one TICK chunk. Default 1<<20.
	MaxRowsPerBlock int64
	// MaxDecoderWindow is the zstd window limit. Default 64 MiB.
	MaxDecoderWindow int64
	// MaxDecompressionRatio bounds uncompressed_len / compressed_len of a
	// zstd chunk (chunks of up to MinRatioFloor uncompressed bytes are
	// exempt) and of the file's zstd chunks together (which may exceed it
	// by MinRatioFloor bytes in all), so that decoded memory and time grow
	// with the input, not with what a few hostile bytes claim. Default 100 (the reference's chunks of
	// schema-7 rows compress 10-20:1).
	MaxDecompressionRatio int64
}

// MinRatioFloor is the uncompressed size up to which a chunk is accepted
// whatever its compression ratio (1 MiB): small chunks of repetitive rows
// legitimately compress far better than MaxDecompressionRatio. It is also
// what the chunks of a file together may decompress beyond the ratio: the
// exemption holds once per file, not once per chunk.
const MinRatioFloor = 1 << 20

// DefaultLimits returns the limits used when a field is zero.
func DefaultLimits() Limits {
	return Limits{
		MaxChunkSize:     256 << 20,
		MaxBlocks:        1 << 22,
		MaxRowsPerBlock:  1 << 20,
		MaxDecoderWindow: 64 << 20,

		MaxDecompressionRatio: 100,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxChunkSize <= 0 {
		l.MaxChunkSize = d.MaxChunkSize
	}
	if l.MaxBlocks <= 0 {
		l.MaxBlocks = d.MaxBlocks
	}
	if l.MaxRowsPerBlock <= 0 {
		l.MaxRowsPerBlock = d.MaxRowsPerBlock
	}
	if l.MaxDecoderWindow <= 0 {
		l.MaxDecoderWindow = d.MaxDecoderWindow
	}
	if l.MaxDecompressionRatio <= 0 {
		l.MaxDecompressionRatio = d.MaxDecompressionRatio
	}
	return l
}
