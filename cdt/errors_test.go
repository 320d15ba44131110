package cdt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/tracecodec/tracecodec/internal/checksum"
)

var testMeta = []byte("\x82\xb4trace_format_version\x01\xb4trace_schema_version\x07")

func testRow(tick int64) []byte {
	return append([]byte("\x81\xaatick_index"), appendInt(nil, tick)...)
}

// rawChunk encodes a raw (flags = 2) chunk.
func rawChunk(kind ChunkKind, start, end int32, payload []byte) []byte {
	h := ChunkHeader{Kind: kind, StartTick: start, EndTick: end, Flags: FlagMsgpack,
		CompressedLen: uint32(len(payload)), UncompressedLen: uint32(len(payload)),
		Checksum: checksum.NewBlake2b64().Sum(payload)}
	return append(AppendChunkHeader(nil, h), payload...)
}

// buildFile assembles a raw-chunk file with one TICK chunk of ticks 0..2 and
// the footer f (its block index is filled in unless keepIndex).
func buildFile(f Footer, keepIndex bool) []byte {
	file := append([]byte(Magic), 1, 0, 0, 0)
	file = append(file, rawChunk(KindMeta, -1, -1, testMeta)...)
	tickOff := int64(len(file))
	payload := appendBlockPrefix(nil, 0, 2, 3)
	for t := range int64(3) {
		payload = append(payload, testRow(t)...)
	}
	file = append(file, rawChunk(KindTick, 0, 2, payload)...)
	if !keepIndex {
		f.Blocks = []BlockIndexEntry{{0, 2, tickOff, int64(len(payload)), int64(len(payload)), checksum.NewBlake2b64().Sum(payload)}}
	}
	footerOff := len(file)
	file = append(file, rawChunk(KindFooter, -1, -1, appendFooter(nil, &f))...)
	file = append(file, TrailerMagic...)
	return binary.LittleEndian.AppendUint64(file, uint64(footerOff))
}

func openAndValidate(data []byte, opts ...ReaderOption) error {
	r, err := Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Validate()
}

func TestSentinels(t *testing.T) {
	good := Footer{FormatVersion: 1, TickCount: 3, FirstTick: 0, LastTick: 2}
	if err := openAndValidate(buildFile(good, false)); err != nil {
		t.Fatalf("the base file is invalid: %v", err)
	}
	tickAt := int64(HeaderSize + ChunkHeaderSize + len(testMeta))
	patch := func(f func(b []byte)) []byte {
		b := buildFile(good, false)
		f(b)
		return b
	}
	footerOffsetAt := func(b []byte) int { return len(b) - 8 }
	cases := []struct {
		name string
		data []byte
		opts []ReaderOption
		want error
	}{
		{"tick_count 0", buildFile(Footer{TickCount: 0, FirstTick: 0, LastTick: 2}, false), nil, ErrFooter},
		{"negative first_tick", buildFile(Footer{TickCount: 3, FirstTick: -1, LastTick: 2}, false), nil, ErrFooter},
		{"first > last", buildFile(Footer{TickCount: 3, FirstTick: 5, LastTick: 2}, false), nil, ErrFooter},
		{"empty block index", buildFile(good, true), nil, ErrFooter},
		{"unknown chunk kind", patch(func(b []byte) { copy(b[tickAt:], "XXXX") }), nil, ErrChunkKind},
		{"footer_offset at META", patch(func(b []byte) { binary.LittleEndian.PutUint64(b[footerOffsetAt(b):], uint64(HeaderSize)) }), nil, ErrChunkKind},
		{"index entry at META", buildFile(Footer{TickCount: 3, LastTick: 2, Blocks: []BlockIndexEntry{{0, 2, int64(HeaderSize), 1, 1, 1}}}, true), nil, ErrChunkKind},
		{"uncompressed_len mismatch", patch(func(b []byte) { b[tickAt+20]++ }), nil, ErrSizeMismatch},
		{"footer_offset past the end", patch(func(b []byte) { binary.LittleEndian.PutUint64(b[footerOffsetAt(b):], 1<<40) }), nil, ErrTruncated},
		{"compressed_len past the end", patch(func(b []byte) { binary.LittleEndian.PutUint32(b[tickAt+16:], 1<<20) }), nil, ErrTruncated},
		{"chunk over the size limit", buildFile(good, false), []ReaderOption{WithLimits(Limits{MaxChunkSize: 16})}, ErrLimit},
		{"payload checksum", patch(func(b []byte) { b[tickAt+ChunkHeaderSize+3] ^= 1 }), nil, ErrChecksum},
		{"flags without msgpack", patch(func(b []byte) { b[tickAt+12] = 0 }), nil, ErrFlags},
		{"schema not accepted", buildFile(good, false), []ReaderOption{WithSchemaVersions(8)}, ErrSchemaVersion},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := openAndValidate(c.data, c.opts...)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Offset < 0 {
				t.Fatalf("no offset in %v", err)
			}
		})
	}
}
