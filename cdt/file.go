package cdt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"slices"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/tracecodec/tracecodec/internal/checksum"
	"github.com/tracecodec/tracecodec/internal/hugebuf"
)

// File gives random access to a CDT v1 file through its footer index. Open
// performs every check of the reference reader, in its order; TICK chunks are
// read on demand. A File is safe for concurrent use.
type File struct {
	r            io.ReaderAt
	size         int64
	opts         readerOptions
	closer       io.Closer
	recovery     *Recovery
	dec          *zstd.Decoder
	ownDec       bool
	meta         Meta
	metaPayload  []byte
	metaHeader   ChunkHeader
	footer       Footer
	footerOffset int64
	footerHeader ChunkHeader

	sums    sync.Pool // *checksum.Blake2b64
	buffers sync.Pool // *block: iterator buffers

	mu     sync.Mutex
	cache  []*block // most recently used last
	closed bool
	arena  arena // a sequential iterator's batch memory, kept between iterators
}

// block is one decoded TICK chunk. Its payload is never reused, so rows handed
// out from the cache stay valid.
type block struct {
	offset  int64
	header  ChunkHeader
	start   int64
	end     int64
	payload []byte
	stored  []byte // reused read buffer (zstd chunks only)
	rows    []Row
	index   int    // footer index entry
	nrows   int    // lazy blocks: row count
	ticks   []byte // lazy blocks: the rows, not split
}

// Open reads and validates the header, trailer, META and FOTR chunks of the
// CDT file r of the given size.
func Open(r io.ReaderAt, size int64, opts ...ReaderOption) (*File, error) {
	o := defaultReaderOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	rd := &File{r: r, size: size, opts: o}
	rd.sums.New = func() any { return checksum.NewBlake2b64() }
	dec, owned, err := decoderFor(o.limits)
	if err != nil {
		return nil, err
	}
	rd.dec, rd.ownDec = dec, owned
	if err := rd.open(); err != nil {
		if owned {
			dec.Close()
		}
		return nil, err
	}
	return rd, nil
}

// OpenFile opens the named file with Open; Close closes the file.
//
// A file shorter than a header and a trailer (27 bytes; an empty file
// included) fails with ErrSize: it holds nothing to recover, with or
// without WithRecovery, and events.Open answers the same. A file cut after
// its header (a writer killed before Close) fails with ErrTrailer unless
// WithRecovery is given, which reads its complete TICK chunks instead;
// events.Open and tracecat always pass WithRecovery, so they read what such
// a file holds and report the loss (File.Recovery).
func OpenFile(name string, opts ...ReaderOption) (*File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	rd, err := Open(f, st.Size(), opts...)
	if err != nil {
		f.Close()
		return nil, err
	}
	rd.closer = f
	return rd, nil
}

// OpenBytes opens a CDT file held in memory with Open. The File reads b in
// place; the caller must not modify b while the File is in use.
func OpenBytes(b []byte, opts ...ReaderOption) (*File, error) {
	return Open(bytes.NewReader(b), int64(len(b)), opts...)
}

// Close releases the decoder and, for OpenFile, the file.
func (rd *File) Close() error {
	rd.mu.Lock()
	if rd.closed {
		rd.mu.Unlock()
		return nil
	}
	rd.closed = true
	rd.cache = nil
	a := rd.arena
	rd.arena = arena{}
	rd.mu.Unlock()
	a.release()
	if rd.ownDec {
		rd.dec.Close()
	}
	if rd.closer != nil {
		return rd.closer.Close()
	}
	return nil
}

func (rd *File) readAt(p []byte, off int64) error {
	n, err := rd.r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return newErr(off, ErrTruncated, "reading %d bytes: %v", len(p), err)
}

func (rd *File) open() error {
	if rd.size < int64(HeaderSize) {
		return newErr(0, ErrSize, "invalid trace file: %d bytes, need at least %d", rd.size, HeaderSize)
	}
	var head [HeaderSize]byte
	if err := rd.readAt(head[:], 0); err != nil {
		return err
	}
	if string(head[:len(Magic)]) != Magic {
		return newErr(0, ErrBadMagic, "unsupported trace magic %q", head[:len(Magic)])
	}
	if v := binary.LittleEndian.Uint32(head[len(Magic):]); v != FormatVersion {
		return newErr(int64(len(Magic)), ErrUnsupportedVersion, "unsupported trace format version: %d", v)
	}
	if rd.size < int64(MinFileSize) {
		return newErr(0, ErrSize, "invalid trace size: %d bytes, need at least %d", rd.size, MinFileSize)
	}
	// The reference checks the trailer before META. With WithRecovery a bad
	// trailer is kept as the reason and META is read first: only a trace
	// whose META is intact can be recovered.
	footerOff, tailErr := rd.readTrailer()
	if tailErr != nil && !rd.opts.recovery {
		return tailErr
	}
	sum := rd.sums.Get().(*checksum.Blake2b64)
	defer rd.sums.Put(sum)
	h, payload, err := rd.readChunk(int64(HeaderSize), nil, sum)
	if err != nil {
		return err
	}
	if h.Kind != KindMeta {
		return newErr(int64(HeaderSize), ErrChunkKind, "invalid trace meta chunk: kind %s", h.Kind)
	}
	rd.metaHeader = h
	rd.metaPayload = payload
	if rd.meta, err = parseMeta(int64(HeaderSize), payload); err != nil {
		return err
	}
	if !slices.Contains(rd.opts.schemaVersions, rd.meta.SchemaVersion) {
		return newErr(int64(HeaderSize), ErrSchemaVersion, "unsupported trace schema version: %d (supported: %s)",
			rd.meta.SchemaVersion, joinInts(rd.opts.schemaVersions))
	}
	if tailErr == nil {
		tailErr = rd.readFooter(footerOff, sum)
	}
	if tailErr != nil && rd.opts.recovery && !errors.Is(tailErr, ErrLimit) {
		// A limit is not damage: recovery would meet it again.
		return rd.recoverIndex(tailErr)
	}
	return tailErr
}

// readTrailer checks the 16-byte trailer and returns its footer_offset.
func (rd *File) readTrailer() (int64, error) {
	var trailer [TrailerSize]byte
	trailerOff := rd.size - TrailerSize
	if err := rd.readAt(trailer[:], trailerOff); err != nil {
		return 0, err
	}
	if string(trailer[:8]) != TrailerMagic {
		return 0, newErr(trailerOff, ErrTrailer, "missing trace trailer (found %q)", trailer[:8])
	}
	footerOff := binary.LittleEndian.Uint64(trailer[8:])
	if footerOff > uint64(math.MaxInt64) {
		return 0, newErr(trailerOff+8, ErrTruncated, "truncated chunk header: footer_offset %d is past the end", footerOff)
	}
	return int64(footerOff), nil
}

// readFooter reads and checks the FOTR chunk at off.
func (rd *File) readFooter(off int64, sum *checksum.Blake2b64) error {
	rd.footerOffset = off
	h, payload, err := rd.readChunk(off, nil, sum)
	if err != nil {
		return err
	}
	if h.Kind != KindFooter {
		return newErr(off, ErrChunkKind, "invalid trace footer chunk: kind %s", h.Kind)
	}
	rd.footerHeader = h
	f, err := parseFooter(off, payload, rd.opts.limits)
	if err != nil {
		return err
	}
	if err := checkFooter(off, &f); err != nil {
		return err
	}
	if err := checkBlockIndex(off, f.Blocks, rd.opts.limits); err != nil {
		return err
	}
	rd.footer = f
	return nil
}

func checkFooter(off int64, f *Footer) error {
	switch {
	case f.TickCount <= 0:
		return newErr(off, ErrFooter, "invalid trace footer tick_count %d", f.TickCount)
	case f.FirstTick < 0 || f.LastTick < 0:
		return newErr(off, ErrFooter, "invalid trace footer tick bounds %d..%d", f.FirstTick, f.LastTick)
	case f.FirstTick > f.LastTick:
		return newErr(off, ErrFooter, "invalid trace footer tick order %d > %d", f.FirstTick, f.LastTick)
	case len(f.Blocks) == 0:
		return newErr(off, ErrFooter, "invalid trace footer block index: no blocks")
	}
	return nil
}

func joinInts(v []int64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s
}

// readChunk reads and decodes the chunk at off. The decompressed payload is
// appended to dst[:0] (raw chunks use a fresh buffer).
func (rd *File) readChunk(off int64, dst []byte, sum *checksum.Blake2b64) (ChunkHeader, []byte, error) {
	h, payload, _, err := rd.readChunkInto(off, nil, dst, false, sum)
	return h, payload, err
}

// readChunkInto is readChunk reading the stored bytes into storedBuf[:0]
// (reallocated when too small) and returning that buffer. For raw chunks the
// payload aliases the stored buffer. reused says the caller keeps both
// buffers for the next chunks (see bufCap).
func (rd *File) readChunkInto(off int64, storedBuf, dst []byte, reused bool, sum *checksum.Blake2b64) (ChunkHeader, []byte, []byte, error) {
	var hb [ChunkHeaderSize]byte
	if off < 0 || off > rd.size-ChunkHeaderSize {
		return ChunkHeader{}, nil, storedBuf, newErr(off, ErrTruncated, "truncated chunk header: offset %d, file size %d", off, rd.size)
	}
	if err := rd.readAt(hb[:], off); err != nil {
		return ChunkHeader{}, nil, storedBuf, err
	}
	h := ParseChunkHeader(&hb)
	if err := checkHeader(off, &h, rd.opts.limits); err != nil {
		return h, nil, storedBuf, err
	}
	if int64(h.CompressedLen) > rd.size-off-ChunkHeaderSize {
		return h, nil, storedBuf, newErr(off+16, ErrTruncated, "truncated chunk payload: compressed_len %d, %d bytes remain",
			h.CompressedLen, rd.size-off-ChunkHeaderSize)
	}
	stored := storedBuf
	if cap(stored) < int(h.CompressedLen) {
		stored = hugebuf.Make(int(h.CompressedLen), bufCap(int(h.CompressedLen), reused))
	}
	stored = stored[:h.CompressedLen]
	if err := rd.readAt(stored, off+ChunkHeaderSize); err != nil {
		return h, nil, stored, err
	}
	payload, err := decodePayload(off, &h, stored, dst, reused, rd.dec, sum)
	return h, payload, stored, err
}

// Meta returns the container-level fields of the META payload.
func (rd *File) Meta() Meta { return rd.meta }

// MetaPayload returns the META chunk's msgpack payload (a TraceMeta). The
// caller must not modify it.
func (rd *File) MetaPayload() []byte { return rd.metaPayload }

// Footer returns the decoded footer. The caller must not modify it.
func (rd *File) Footer() *Footer { return &rd.footer }

// FooterOffset returns the file offset of the FOTR chunk header, or -1 when
// the footer was rebuilt by recovery (see Recovery).
func (rd *File) FooterOffset() int64 { return rd.footerOffset }

// Size returns the file size given to Open.
func (rd *File) Size() int64 { return rd.size }

// NumBlocks returns the number of entries in the footer's block index.
func (rd *File) NumBlocks() int { return len(rd.footer.Blocks) }

// loadBlock returns footer block i, from the cache when possible.
func (rd *File) loadBlock(i int) (*block, error) {
	e := &rd.footer.Blocks[i]
	rd.mu.Lock()
	if rd.closed {
		rd.mu.Unlock()
		return nil, ErrClosed
	}
	for j, b := range rd.cache {
		if b.offset == e.FileOffset {
			rd.cache = append(append(rd.cache[:j:j], rd.cache[j+1:]...), b)
			rd.mu.Unlock()
			return b, nil
		}
	}
	rd.mu.Unlock()
	b, err := rd.decodeBlock(e.FileOffset, nil, false)
	if err != nil {
		return nil, err
	}
	if rd.opts.cacheBlocks > 0 {
		rd.mu.Lock()
		if len(rd.cache) >= rd.opts.cacheBlocks {
			rd.cache = append(rd.cache[:0], rd.cache[len(rd.cache)-rd.opts.cacheBlocks+1:]...)
		}
		rd.cache = append(rd.cache, b)
		rd.mu.Unlock()
	}
	return b, nil
}

// decodeBlock reads the TICK chunk at off, reusing into's buffers when given.
func (rd *File) decodeBlock(off int64, into *block, lazy bool) (*block, error) {
	sum := rd.sums.Get().(*checksum.Blake2b64)
	b, err := rd.fetchBlock(off, into, sum)
	rd.sums.Put(sum)
	if err != nil {
		return nil, err
	}
	if err := rd.parseFetched(b, lazy); err != nil {
		return nil, err
	}
	return b, nil
}

// fetchBlock reads the chunk at off and decompresses its payload into b
// (into, when given), checking everything up to and including the checksum
// — which is left to the caller when sum is nil. The chunk's kind and
// payload are checked by parseFetched.
func (rd *File) fetchBlock(off int64, into *block, sum *checksum.Blake2b64) (*block, error) {
	b := into
	if b == nil {
		b = &block{}
	}
	storedBuf := b.stored
	if into == nil || unsafe.SliceData(b.stored) == unsafe.SliceData(b.payload) {
		// Cached blocks keep their memory; a raw chunk's payload aliases its
		// stored buffer, which must then not be read into again.
		storedBuf = nil
	}
	h, payload, stored, err := rd.readChunkInto(off, storedBuf, b.payload, into != nil, sum)
	if err != nil {
		return nil, err
	}
	if into != nil {
		b.stored = stored
	}
	b.offset, b.header, b.payload = off, h, payload
	return b, nil
}

// parseFetched checks that a fetched chunk is a TICK chunk and parses its
// TickBlock payload: split into rows, or (lazy) only its prefix.
func (rd *File) parseFetched(b *block, lazy bool) error {
	if b.header.Kind != KindTick {
		return newErr(b.offset, ErrChunkKind, "trace index points at non-tick chunk %s", b.header.Kind)
	}
	if err := rd.checkEntry(b.offset, &b.header); err != nil {
		return err
	}
	var err error
	if lazy {
		b.rows = b.rows[:0]
		b.start, b.end, b.nrows, b.ticks, err = parseBlockLazy(b.offset, b.payload, rd.opts.limits)
	} else {
		b.start, b.end, b.rows, err = parseBlock(b.offset, b.payload, b.rows, rd.opts.limits)
		b.nrows, b.ticks = len(b.rows), nil
	}
	return err
}

// Block returns the rows of footer block i (0 ≤ i < NumBlocks) through the
// cache. The rows' Raw bytes stay valid for the life of the program.
func (rd *File) Block(i int) ([]Row, error) {
	if i < 0 || i >= len(rd.footer.Blocks) {
		return nil, fmt.Errorf("cdt: block %d out of range [0, %d)", i, len(rd.footer.Blocks))
	}
	b, err := rd.loadBlock(i)
	if err != nil {
		return nil, err
	}
	return b.rows, nil
}

// Tick returns the row with tick_index i with the reference's semantics: the
// first footer block whose range covers i, then the first row of that block
// with that tick (later blocks are not searched). ok is false when there is
// none. Raw stays valid for the life of the program.
func (rd *File) Tick(i int64) (row Row, ok bool, err error) {
	for bi := range rd.footer.Blocks {
		e := &rd.footer.Blocks[bi]
		if e.StartTick <= i && i <= e.EndTick {
			b, err := rd.loadBlock(bi)
			if err != nil {
				return Row{}, false, err
			}
			for _, r := range b.rows {
				if r.Tick == i {
					return r, true, nil
				}
			}
			return Row{}, false, nil
		}
	}
	return Row{}, false, nil
}

// Validate decodes every TICK chunk of the footer index, checking each as the
// reference does when it reads it.
func (rd *File) Validate() error {
	it := rd.Iter(math.MinInt64, math.MaxInt64)
	defer it.Close()
	for it.Next() {
	}
	return it.Err()
}

// All iterates over every row in footer order. See Iter for the lifetime of
// each row.
func (rd *File) All() iter.Seq2[Row, error] { return rd.Range(math.MinInt64, math.MaxInt64) }

// Range iterates over the rows with from ≤ tick_index ≤ to, in footer order.
// Unlike the half-open windows of API.md, both bounds are inclusive, as tick
// windows are in the reference's tools (dbg diff --tick-start/--tick-end) and
// so that the last tick index is reachable. See Iter for the lifetime of each
// row.
func (rd *File) Range(from, to int64) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		rd.Iter(from, to).All()(yield)
	}
}

// ReadChunk reads, decodes and checks the chunk whose header is at off (any
// kind), returning its header and msgpack payload.
func (rd *File) ReadChunk(off int64) (ChunkHeader, []byte, error) {
	sum := rd.sums.Get().(*checksum.Blake2b64)
	defer rd.sums.Put(sum)
	return rd.readChunk(off, nil, sum)
}

func (rd *File) getBuffer() *block {
	if b, ok := rd.buffers.Get().(*block); ok {
		return b
	}
	return &block{}
}

func (rd *File) putBuffer(b *block) {
	b.rows, b.ticks = b.rows[:0], nil
	rd.buffers.Put(b)
}
