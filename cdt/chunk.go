package cdt

import (
	"math"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/tracecodec/tracecodec/internal/checksum"
	"github.com/tracecodec/tracecodec/internal/hugebuf"
)

// Readers and writers with default settings share one stateless zstd decoder
// and one encoder per level: both are safe for concurrent DecodeAll/EncodeAll
// calls, and creating them is the dominant cost of opening or writing a small
// trace.
var (
	sharedDecOnce sync.Once
	sharedDec     *zstd.Decoder
	sharedEncMu   sync.Mutex
	sharedEnc     = map[encKey]*zstd.Encoder{}
)

// decoderFor returns the shared decoder for default limits, or a new one the
// caller owns (owned = true) for other limits.
func decoderFor(lim Limits) (dec *zstd.Decoder, owned bool, err error) {
	if lim == DefaultLimits() {
		sharedDecOnce.Do(func() {
			sharedDec, err = newDecoder(lim, runtime.GOMAXPROCS(0))
		})
		if sharedDec == nil && err == nil {
			err = errNoDecoder
		}
		return sharedDec, false, err
	}
	dec, err = newDecoder(lim, runtime.GOMAXPROCS(0))
	return dec, true, err
}

type noDecoder struct{}

func (noDecoder) Error() string { return "cdt: zstd decoder unavailable" }

var errNoDecoder error = noDecoder{}

// encoderFor returns the shared stateless encoder for key.
func encoderFor(key encKey) (*zstd.Encoder, error) {
	sharedEncMu.Lock()
	defer sharedEncMu.Unlock()
	if e := sharedEnc[key]; e != nil {
		return e, nil
	}
	e, err := newEncoder(key, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	sharedEnc[key] = e
	return e, nil
}

// encKey is an encoder's settings: its level, whether it stores literals
// raw (no Huffman coding), and its window.
type encKey struct {
	level  zstd.EncoderLevel
	raw    bool
	window int
}

// The writer's encoders, by the size of the payload (see encKind).
const (
	encSmall = iota // under rawLiteralsMin
	encLarge        // from rawLiteralsMin to smallWindow bytes
	encHuge         // more than smallWindow bytes
	encKinds
)

// smallWindow is the window of the encoders for payloads of up to that
// many bytes; larger payloads go to encoders with the library's default
// window of 8 MiB. A single-segment frame no larger than the window is
// compressed to the same bytes whatever the window (the frame header
// records none), but the encoder allocates a history of the window's size
// and clears it (8 MiB per encoder: 3 % of a fresh h8-shaped write).
const smallWindow = 1 << 20

// encKind is the kind of encoder for a payload of n bytes.
func encKind(n int) int {
	switch {
	case n < rawLiteralsMin:
		return encSmall
	case n <= smallWindow:
		return encLarge
	}
	return encHuge
}

// Encoders of one-goroutine writers: each writer takes its own encoder of
// concurrency 1 (takeEncoder) and gives it back at Close (giveEncoder),
// for the next writer to reuse. A shared encoder of concurrency n hands
// its n internal encoders out in turn, so one writer's chunks went through
// both of them on two cores: two histories of a chunk's size to fault in
// (the copy of each payload into the history was 71 % of the write's page
// faults in the side-by-side benchmark) and two sets of match tables
// taking turns in the cache.
var (
	idleEncMu sync.Mutex
	idleEnc   = map[encKey][]*zstd.Encoder{}
)

// takeEncoder returns an idle encoder of concurrency 1 for key, or a new
// one.
func takeEncoder(key encKey) (*zstd.Encoder, error) {
	idleEncMu.Lock()
	if l := idleEnc[key]; len(l) > 0 {
		e := l[len(l)-1]
		l[len(l)-1] = nil
		idleEnc[key] = l[:len(l)-1]
		idleEncMu.Unlock()
		return e, nil
	}
	idleEncMu.Unlock()
	return newEncoder(key, 1)
}

// giveEncoder keeps e for the next writer, up to GOMAXPROCS idle encoders
// per key (more writers than that at once were not running in parallel).
func giveEncoder(key encKey, e *zstd.Encoder) {
	idleEncMu.Lock()
	if len(idleEnc[key]) < runtime.GOMAXPROCS(0) {
		idleEnc[key] = append(idleEnc[key], e)
	}
	idleEncMu.Unlock()
}

func newEncoder(key encKey, concurrency int) (*zstd.Encoder, error) {
	return zstd.NewWriter(nil,
		zstd.WithEncoderLevel(key.level),
		zstd.WithNoEntropyCompression(key.raw),
		zstd.WithWindowSize(key.window),
		zstd.WithEncoderCRC(false),
		zstd.WithSingleSegment(true),
		zstd.WithLowerEncoderMem(true),
		zstd.WithEncoderConcurrency(concurrency))
}

// rawLiteralsMin is the payload size from which CompressionFastest and
// CompressionDefault store literals raw. In a large TICK chunk of msgpack
// rows the literals that matches leave are mostly float bytes, which Huffman
// coding does not shrink: the encoder tries and keeps the raw literals
// (v7_small_300ticks.cdt and the h5 rows of the side-by-side benchmark in
// 256-tick chunks come out byte for byte the same, h8's rows 0.07 % larger
// at the fastest level), while trying costs a fifth of the fastest level's
// time and a third of the default level's. In a small chunk, with few
// matches, Huffman coding saves 10 % and more, and is kept.
const rawLiteralsMin = 64 << 10

// newDecoder returns a zstd decoder for stateless DecodeAll use with memory
// and window limits set (the library defaults of 64 GiB are unsafe).
func newDecoder(lim Limits, concurrency int) (*zstd.Decoder, error) {
	if concurrency < 1 {
		concurrency = 1
	}
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(concurrency),
		zstd.WithDecoderMaxMemory(uint64(lim.MaxChunkSize)),
		zstd.WithDecoderMaxWindow(uint64(lim.MaxDecoderWindow)),
		// DecodeAll never writes past cap(dst), which decodePayload sets to
		// the chunk's uncompressed_len: more frames after the first, or a
		// frame that lies about its content size, cannot grow the output.
		zstd.WithDecodeAllCapLimit(true),
	)
}

// checkHeader validates the parts of a chunk header that can be checked before
// its payload is read: a known kind, lengths within limits and, for zstd
// chunks, the compression ratio.
func checkHeader(off int64, h *ChunkHeader, lim Limits) error {
	if !h.Kind.known() {
		return newErr(off, ErrChunkKind, "unknown chunk kind: %s", h.Kind)
	}
	if int64(h.CompressedLen) > lim.MaxChunkSize || int64(h.UncompressedLen) > lim.MaxChunkSize {
		return newErr(off+16, ErrLimit, "chunk lengths %d/%d exceed the limit of %d bytes",
			h.CompressedLen, h.UncompressedLen, lim.MaxChunkSize)
	}
	if h.Flags&FlagZstd != 0 && int64(h.UncompressedLen) > MinRatioFloor &&
		int64(h.UncompressedLen) > lim.MaxDecompressionRatio*int64(h.CompressedLen) {
		return newErr(off+20, ErrLimit, "chunk expands %d bytes to %d, beyond the decompression ratio limit of %d:1 (Limits.MaxDecompressionRatio)",
			h.CompressedLen, h.UncompressedLen, lim.MaxDecompressionRatio)
	}
	return nil
}

// decodePayload turns the stored bytes of the chunk whose header is at off into
// its msgpack payload, with the reference reader's checks in its order:
// decompress if flags&1, require flags&2, compare the length, compare the
// checksum (left to the caller when sum is nil, see Iterator.fill).
// Decompressed bytes are appended to dst[:0]; raw chunks return stored
// itself. The frame's declared content size is checked against the
// header before anything is decompressed.
func decodePayload(off int64, h *ChunkHeader, stored, dst []byte, reused bool, dec *zstd.Decoder, sum *checksum.Blake2b64) ([]byte, error) {
	payload := stored
	if h.Flags&FlagZstd != 0 {
		var zh zstd.Header
		if err := zh.Decode(stored); err != nil {
			return nil, newErr(off+ChunkHeaderSize, ErrCorrupt, "zstd frame header: %v", err)
		}
		if !zh.HasFCS || zh.Skippable {
			return nil, newErr(off+ChunkHeaderSize, ErrCorrupt, "zstd frame header has no content size")
		}
		if zh.FrameContentSize != uint64(h.UncompressedLen) {
			if h.Flags&FlagMsgpack == 0 {
				return nil, newErr(off+12, ErrFlags, "unsupported chunk payload encoding: flags %#x lack the msgpack bit", h.Flags)
			}
			return nil, newErr(off+20, ErrSizeMismatch, "chunk size mismatch: zstd frame content size %d, header uncompressed_len %d",
				zh.FrameContentSize, h.UncompressedLen)
		}
		if need := int(h.UncompressedLen) + decodeSlack; cap(dst) < need {
			dst = hugebuf.Make(0, bufCap(need, reused))
		}
		// The decoder never writes past cap(dst) (WithDecodeAllCapLimit),
		// memory already held; a longer payload fails here or at the
		// length check below.
		out, err := dec.DecodeAll(stored, dst[:0])
		if err != nil {
			return nil, newErr(off+ChunkHeaderSize, ErrCorrupt, "zstd decompression error: %v", err)
		}
		payload = out
	}
	if h.Flags&FlagMsgpack == 0 {
		return nil, newErr(off+12, ErrFlags, "unsupported chunk payload encoding: flags %#x lack the msgpack bit", h.Flags)
	}
	if len(payload) != int(h.UncompressedLen) {
		return nil, newErr(off+20, ErrSizeMismatch, "chunk size mismatch: payload is %d bytes, header uncompressed_len %d",
			len(payload), h.UncompressedLen)
	}
	if sum != nil {
		if got := sum.Sum(payload); got != h.Checksum {
			return nil, checksumError(off, got, h.Checksum)
		}
	}
	return payload, nil
}

// bufCap is the capacity to allocate for a buffer that must hold need
// bytes: need for a buffer used once (a cached block), a quarter more for
// one that is reused chunk after chunk (an iterator's, a stream's), so that
// the chunks of a file, which differ a little in size, are all
// decompressed into the memory the first one took. In a fresh process
// every new page is a page fault, which cost more than the decompression
// itself in the side-by-side benchmark (five 1 000-tick chunks of ≈4 MB,
// each a few kB larger than the one before: 3 000 page faults and
// 0.13 CPU-s, 1 800 and 0.09 with the headroom). Pages of the headroom
// that are never written are never faulted in. need is within the
// chunk-size limit already; the result stays within a quarter of it.
func bufCap(need int, reused bool) int {
	if !reused || need > math.MaxInt/2 {
		return need
	}
	return need + need/4
}

// decodeSlack is the room left in a decompression buffer past the
// payload's declared length: with it the zstd decoder copies the frame's
// last block with its wide (over-writing) copies too, instead of falling
// back to its byte-exact ones at the end of an exactly sized buffer. It
// must be at least the decoder's over-allocation (16 bytes in
// klauspost/compress); a frame longer than declared still fails the length
// check.
const decodeSlack = 64

// checksumError reports a payload whose BLAKE2b-64 (got) differs from the
// checksum64 of the chunk header at off.
func checksumError(off int64, got, want uint64) error {
	return newErr(off+24, ErrChecksum, "chunk checksum mismatch: payload %#016x, header checksum64 %#016x", got, want)
}
