package wtfcff

import (
	"bytes"
	"errors"
	"io"
	"iter"
)

// ReaderOption configures a Reader, a File, a JSONReader, a LegacyReader or
// a Decoder.
type ReaderOption func(*readerOptions) error

type readerOptions struct {
	limits  Limits
	recover bool
}

// WithLimits sets the reader's limits (zero fields take DefaultLimits values).
// Default: DefaultLimits().
func WithLimits(l Limits) ReaderOption {
	return func(o *readerOptions) error {
		if l.MaxChunkSize < 0 || l.MaxParts < 0 || l.MaxEventTypes < 0 || l.MaxZones < 0 {
			return errors.New("wtfcff: negative limit")
		}
		o.limits = l
		return nil
	}
}

// WithRecovery makes a Reader, JSONReader, LegacyReader or File deliver
// what can be salvaged from a last chunk that the input cuts short (a writer
// that crashed or was killed mid-chunk) instead of failing: the chunk is
// delivered with its complete parts and, when its string table is whole, the
// event buffer cut after the last complete record (for JSON, its complete
// base64 groups); Next then ends without an error and Recovery says what was
// lost. A JSON document that ends between chunks ends without an error; a
// legacy file's cut record is dropped by the Decoder. Default: off (a torn
// binary chunk is ErrTruncated, and Recovery still says what a recovering
// read would salvage; a cut JSON text is ErrTruncated).
func WithRecovery() ReaderOption {
	return func(o *readerOptions) error { o.recover = true; return nil }
}

func applyReaderOptions(opts []ReaderOption) (readerOptions, error) {
	var o readerOptions
	for _, f := range opts {
		if err := f(&o); err != nil {
			return o, err
		}
	}
	o.limits = o.limits.withDefaults()
	return o, nil
}

// ChunkSource is a sequence of chunks read front to back: *Reader,
// *JSONReader and *LegacyReader implement it. Next advances (false at the end
// or on an error), Chunk is the current chunk (valid until the next Next), Err
// the error that stopped Next, All the same chunks as an iterator.
type ChunkSource interface {
	Next() bool
	Chunk() *Chunk
	Err() error
	All() iter.Seq2[*Chunk, error]
}

// ChunkSeq is anything whose chunks can be iterated: every ChunkSource and
// *File. Events takes one.
type ChunkSeq interface {
	All() iter.Seq2[*Chunk, error]
}

// allChunks is All for a ChunkSource: the chunks, then a last (nil, err) on
// failure.
func allChunks(s ChunkSource) iter.Seq2[*Chunk, error] {
	return func(yield func(*Chunk, error) bool) {
		for s.Next() {
			if !yield(s.Chunk(), nil) {
				return
			}
		}
		if err := s.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// Reader reads the chunks of a WTF file front to back, whatever its
// container: binary CFF (streamed one chunk at a time, its buffer reused),
// JSON CFF (through a JSONReader) or legacy BinaryTrace v3 (through a
// LegacyReader, read whole within Limits.MaxChunkSize). The container is
// chosen by the first bytes (see Sniff and Kind).
//
// The Chunk returned by Chunk, and every Part.Data in it, is valid until the
// next call to Next. Over memory (NewBytesReader) binary chunks are views of
// the input. After warm-up (the largest chunk seen) Next does not allocate on
// binary input.
//
// Chunks whose type the reference does not know are delivered too (check
// Chunk.Type.Known and skip them, as the reference does), with their parts
// when their part table is consistent; parts of unknown types are kept.
type Reader struct {
	kind       Kind
	r          io.Reader
	data       []byte // NewBytesReader: the whole input (chunks are views)
	o          readerOptions
	off        int64
	wtfVersion uint32
	buf        []byte
	parts      []Part
	chunk      Chunk
	err        error
	done       bool
	json       *JSONReader
	legacy     *LegacyReader
	rec        Recovery
	hdr        [chunkHeaderSize]byte // read buffer kept in the struct so it does not escape per call
}

// NewReader reads the first bytes of r, picks the container they announce,
// checks the file header and returns a Reader positioned before the first
// chunk. A binary file holding only the header is a valid empty trace (the
// reference fails on files under 48 bytes because it views the header as a
// 12-word array; this package does not mirror that accident).
func NewReader(r io.Reader, opts ...ReaderOption) (*Reader, error) {
	o, err := applyReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	rd := &Reader{o: o}
	if err := rd.start(r, nil); err != nil {
		return nil, err
	}
	return rd, nil
}

// NewBytesReader is NewReader over a file held in memory: binary chunks and
// their parts are views of b (not copied), valid as long as b is.
func NewBytesReader(b []byte, opts ...ReaderOption) (*Reader, error) {
	o, err := applyReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	rd := &Reader{o: o}
	if err := rd.start(nil, b); err != nil {
		return nil, err
	}
	return rd, nil
}

// start sniffs the container of src (or of data when src is nil) and reads
// its header.
func (r *Reader) start(src io.Reader, data []byte) error {
	r.r, r.data, r.off, r.err, r.done, r.chunk = src, data, 0, nil, false, Chunk{}
	r.json, r.legacy, r.rec = nil, nil, Recovery{}
	var head []byte
	if data != nil {
		head = data[:min(len(data), fileHeaderSize)]
	} else {
		n, err := io.ReadFull(src, r.hdr[:4])
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return err
		}
		head = r.hdr[:n]
	}
	r.kind = Sniff(head)
	switch r.kind {
	case KindJSON:
		if data != nil {
			r.json = newJSONBytesReader(data, r.o)
			return nil
		}
		r.json = newJSONReader(io.MultiReader(bytes.NewReader(bytes.Clone(head)), src), r.o)
		return nil
	case KindLegacy:
		if data == nil {
			var err error
			if data, err = readAllLimited(io.MultiReader(bytes.NewReader(bytes.Clone(head)), src), r.o.limits.MaxChunkSize); err != nil {
				return err
			}
		}
		lr, err := newLegacyReader(data, r.o)
		if err != nil {
			return err
		}
		r.legacy = lr
		return nil
	}
	if data == nil && len(head) == 4 {
		n, err := io.ReadFull(src, r.hdr[4:fileHeaderSize])
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return err
		}
		head = r.hdr[:4+n]
	}
	v, err := parseFileHeaderWords(head)
	if err != nil {
		return err
	}
	r.kind, r.off, r.wtfVersion = KindBinary, fileHeaderSize, v
	r.rec.Kind, r.rec.Size = KindBinary, -1
	if data != nil {
		r.rec.Size = int64(len(data))
	}
	r.rec.ReadBytes = fileHeaderSize
	return nil
}

// readAllLimited reads r whole, failing with ErrLimit past max bytes.
func readAllLimited(r io.Reader, max int64) ([]byte, error) {
	var buf []byte
	got, err := readGrow(r, &buf, max+1)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	if got > max {
		return nil, newErr(max, ErrLimit, "legacy file is larger than the limit of %d bytes", max)
	}
	return buf, nil
}

// Reset makes the reader read a new file from src, keeping its options and
// buffers (so reading many binary files does not allocate after the first).
func (r *Reader) Reset(src io.Reader) error {
	err := r.start(src, nil)
	r.err = err
	return err
}

// Kind is the container being read: KindBinary, KindJSON or KindLegacy.
func (r *Reader) Kind() Kind { return r.kind }

// WTFVersion is the header's WTF version: the binary or legacy header's
// 32-bit word (the build number mod 2^32; JSONVersion maps the known words
// back), or a JSON header's full number (valid once Next has returned true,
// or after the end).
func (r *Reader) WTFVersion() int64 {
	switch {
	case r.json != nil:
		return r.json.WTFVersion()
	case r.legacy != nil:
		return int64(r.legacy.WTFVersion())
	}
	return int64(r.wtfVersion)
}

// Next reads the next chunk. It returns false at the end of the file or on an
// error (see Err); errors are sticky.
func (r *Reader) Next() bool {
	switch {
	case r.json != nil:
		return r.json.Next()
	case r.legacy != nil:
		return r.legacy.Next()
	}
	if r.err != nil || r.done {
		return false
	}
	if r.data != nil {
		return r.nextBytes()
	}
	hdr := r.hdr[:]
	n, err := io.ReadFull(r.r, hdr)
	if n == 0 && errors.Is(err, io.EOF) {
		r.done = true
		return false
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		r.err = err
		return false
	}
	if n < chunkHeaderSize {
		return r.tornHeader(int64(n))
	}
	h := readChunkHeader(hdr)
	if err := h.checkLimits(r.off, &r.o.limits); err != nil {
		r.err = err
		return false
	}
	length := h.Length
	if length < h.tableEnd() {
		r.err = newErr(r.off+8, ErrCorrupt, "chunk %d: length %d is smaller than its header and part table (%d bytes): chunk header missing part lengths",
			h.ID, length, h.tableEnd())
		return false
	}
	r.buf = append(r.buf[:0], hdr...)
	got, err := readGrow(r.r, &r.buf, length)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		r.err = err
		return false
	}
	if got < length {
		return r.tornChunk(r.buf, &h)
	}
	return r.parse(r.buf, length)
}

// nextBytes is Next over memory: chunks are views of r.data.
func (r *Reader) nextBytes() bool {
	rest := r.data[r.off:]
	if len(rest) == 0 {
		r.done = true
		return false
	}
	if len(rest) < chunkHeaderSize {
		return r.tornHeader(int64(len(rest)))
	}
	h := readChunkHeader(rest)
	if err := h.checkLimits(r.off, &r.o.limits); err != nil {
		r.err = err
		return false
	}
	if h.Length < h.tableEnd() {
		r.err = newErr(r.off+8, ErrCorrupt, "chunk %d: length %d is smaller than its header and part table (%d bytes): chunk header missing part lengths",
			h.ID, h.Length, h.tableEnd())
		return false
	}
	if h.Length > int64(len(rest)) {
		return r.tornChunk(rest, &h)
	}
	return r.parse(rest[:h.Length], h.Length)
}

func (r *Reader) parse(b []byte, length int64) bool {
	c, perr := parseChunk(b, r.off, &r.o.limits, r.parts)
	if perr != nil {
		r.err = perr
		return false
	}
	r.parts = c.Parts
	r.chunk = c
	r.off += length
	r.rec.Chunks++
	r.rec.ReadBytes = r.off
	return true
}

// readGrow appends bytes from r to *buf until it holds want bytes, growing the
// buffer by at most 1 MiB beyond what has arrived, so a lying length costs only
// what the input really delivers. It returns the length reached.
func readGrow(r io.Reader, buf *[]byte, want int64) (int64, error) {
	const step = 1 << 20
	b := *buf
	for int64(len(b)) < want {
		next := min(want, int64(len(b))+step)
		if int64(cap(b)) < next {
			nb := make([]byte, len(b), max(next, min(want, int64(2*cap(b)))))
			copy(nb, b)
			b = nb
		}
		start := len(b)
		b = b[:next]
		n, err := io.ReadFull(r, b[start:])
		if err != nil {
			b = b[:start+n]
			*buf = b
			return int64(len(b)), err
		}
	}
	*buf = b
	return int64(len(b)), nil
}

// Chunk returns the chunk read by the last successful Next.
func (r *Reader) Chunk() *Chunk {
	switch {
	case r.json != nil:
		return r.json.Chunk()
	case r.legacy != nil:
		return r.legacy.Chunk()
	}
	return &r.chunk
}

// Err returns the first error met, or nil at a clean end of file.
func (r *Reader) Err() error {
	switch {
	case r.json != nil:
		return r.json.Err()
	case r.legacy != nil:
		return r.legacy.Err()
	}
	return r.err
}

// All iterates over the remaining chunks (see ChunkSource); the *Chunk is
// valid until the next iteration.
func (r *Reader) All() iter.Seq2[*Chunk, error] { return allChunks(r) }

// Offset is the absolute offset of the next binary chunk.
func (r *Reader) Offset() int64 { return r.off }
