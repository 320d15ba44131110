package wtfcff

import (
	"errors"
	"io"
)

// ReaderOption configures a Reader, a File or a JSONReader.
type ReaderOption func(*readerOptions) error

type readerOptions struct {
	limits Limits
}

// WithLimits sets the reader's limits (zero fields take DefaultLimits values).
func WithLimits(l Limits) ReaderOption {
	return func(o *readerOptions) error { o.limits = l; return nil }
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

// ChunkSource is what event decoding consumes: a sequence of chunks. *Reader
// (binary), *JSONReader and the legacy reader implement it.
type ChunkSource interface {
	Next() bool
	Chunk() *Chunk
	Err() error
}

// Reader streams the chunks of a binary CFF file from an io.Reader, one chunk
// at a time. It keeps one chunk in memory and reuses its buffer: the Chunk
// returned by Chunk, and every Part.Data in it, is valid until the next call
// to Next. After warm-up (the largest chunk seen) Next does not allocate.
//
// Chunks whose type the reference does not know are delivered too (check
// Chunk.Type.Known and skip them, as the reference does), with their parts
// when their part table is consistent; parts of unknown types are kept.
type Reader struct {
	r          io.Reader
	o          readerOptions
	off        int64
	wtfVersion uint32
	buf        []byte
	parts      []Part
	chunk      Chunk
	err        error
	done       bool
	hdr        [chunkHeaderSize]byte // read buffer kept in the struct so it does not escape per call
}

// NewReader reads and checks the 12-byte file header and returns a Reader
// positioned before the first chunk. A file holding only the header is a valid
// empty trace (the reference fails on files under 48 bytes because it views the
// header as a 12-word array; this package does not mirror that accident).
func NewReader(r io.Reader, opts ...ReaderOption) (*Reader, error) {
	o, err := applyReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	var hdr [fileHeaderSize]byte
	n, rerr := io.ReadFull(r, hdr[:])
	if rerr != nil && !errors.Is(rerr, io.ErrUnexpectedEOF) && !errors.Is(rerr, io.EOF) {
		return nil, rerr
	}
	v, err := parseFileHeaderWords(hdr[:n])
	if err != nil {
		return nil, err
	}
	return &Reader{r: r, o: o, off: fileHeaderSize, wtfVersion: v}, nil
}

// Reset makes the reader read a new file from src, keeping its buffers (so
// reading many files does not allocate after the first).
func (r *Reader) Reset(src io.Reader) error {
	hdr := r.hdr[:fileHeaderSize]
	n, rerr := io.ReadFull(src, hdr)
	if rerr != nil && !errors.Is(rerr, io.ErrUnexpectedEOF) && !errors.Is(rerr, io.EOF) {
		return rerr
	}
	v, err := parseFileHeaderWords(hdr[:n])
	r.r, r.off, r.wtfVersion, r.err, r.done, r.chunk = src, fileHeaderSize, v, err, false, Chunk{}
	return err
}

// WTFVersion is the header's version word (the build number mod 2^32; the
// reference never checks it).
func (r *Reader) WTFVersion() uint32 { return r.wtfVersion }

// Next reads the next chunk. It returns false at the end of the file or on an
// error (see Err); errors are sticky.
func (r *Reader) Next() bool {
	if r.err != nil || r.done {
		return false
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
		r.err = newErr(r.off, ErrTruncated, "chunk header too small: %d bytes left, need %d", n, chunkHeaderSize)
		return false
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
		r.err = newErr(r.off, ErrTruncated, "chunk %d declares %d bytes, only %d present: data does not contain the entire chunk",
			h.ID, length, got)
		return false
	}
	c, perr := parseChunk(r.buf, r.off, &r.o.limits, r.parts)
	if perr != nil {
		r.err = perr
		return false
	}
	r.parts = c.Parts
	r.chunk = c
	r.off += length
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
func (r *Reader) Chunk() *Chunk { return &r.chunk }

// Err returns the first error met, or nil at a clean end of file.
func (r *Reader) Err() error { return r.err }

// Offset is the absolute offset of the next chunk.
func (r *Reader) Offset() int64 { return r.off }

// ChunkInfo is one entry of a File's chunk index.
type ChunkInfo struct {
	Offset    int64
	ID        uint32
	Type      ChunkType
	Length    int64
	StartTime uint32
	EndTime   uint32
	PartCount int
}

// File gives random access to the chunks of a binary CFF file over an
// io.ReaderAt. Open builds the chunk index with one walk over the chunk
// headers; ReadChunk then reads any chunk directly. A File is safe for
// concurrent use when its io.ReaderAt is.
type File struct {
	r          io.ReaderAt
	size       int64
	o          readerOptions
	wtfVersion uint32
	index      []ChunkInfo
}

// Open checks the file header and indexes every chunk. It fails where the
// streaming Reader would: a truncated or inconsistent chunk header, a chunk
// extending past the end, trailing bytes too short for a chunk header.
func Open(r io.ReaderAt, size int64, opts ...ReaderOption) (*File, error) {
	o, err := applyReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	var hdr [chunkHeaderSize]byte
	n, rerr := r.ReadAt(hdr[:fileHeaderSize], 0)
	if n < fileHeaderSize && int64(n) < size && rerr != nil {
		return nil, rerr
	}
	v, err := parseFileHeaderWords(hdr[:min(n, int(min(size, fileHeaderSize)))])
	if err != nil {
		return nil, err
	}
	f := &File{r: r, size: size, o: o, wtfVersion: v}
	for off := int64(fileHeaderSize); off < size; {
		if size-off < chunkHeaderSize {
			return nil, newErr(off, ErrTruncated, "chunk header too small: %d bytes left, need %d", size-off, chunkHeaderSize)
		}
		if _, err := r.ReadAt(hdr[:], off); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		h := readChunkHeader(hdr[:])
		ci := ChunkInfo{Offset: off, ID: h.ID, Type: h.Type, Length: h.Length, StartTime: h.StartTime, EndTime: h.EndTime}
		if err := h.checkLimits(off, &o.limits); err != nil {
			return nil, err
		}
		switch {
		case ci.Length < h.tableEnd():
			return nil, newErr(off+8, ErrCorrupt, "chunk %d: length %d is smaller than its header and part table: chunk header missing part lengths", ci.ID, ci.Length)
		case ci.Length > size-off:
			return nil, newErr(off, ErrTruncated, "chunk %d declares %d bytes, only %d present: data does not contain the entire chunk", ci.ID, ci.Length, size-off)
		}
		ci.PartCount = int(h.Parts)
		f.index = append(f.index, ci)
		off += ci.Length
	}
	return f, nil
}

// WTFVersion is the header's version word.
func (f *File) WTFVersion() uint32 { return f.wtfVersion }

// Chunks returns the chunk index in file order (do not modify it).
func (f *File) Chunks() []ChunkInfo { return f.index }

// ReadChunk reads and parses chunk i of the index into buf (reused when large
// enough) and returns the chunk, whose part data points into the returned
// buffer.
func (f *File) ReadChunk(i int, buf []byte) (Chunk, []byte, error) {
	if i < 0 || i >= len(f.index) {
		return Chunk{}, buf, errors.New("wtf: chunk index out of range")
	}
	ci := f.index[i]
	if int64(cap(buf)) < ci.Length {
		buf = make([]byte, ci.Length)
	}
	buf = buf[:ci.Length]
	if n, err := f.r.ReadAt(buf, ci.Offset); int64(n) < ci.Length {
		if err == nil || errors.Is(err, io.EOF) {
			return Chunk{}, buf, newErr(ci.Offset, ErrTruncated, "chunk %d: read %d of %d bytes", ci.ID, n, ci.Length)
		}
		return Chunk{}, buf, err
	}
	c, err := parseChunk(buf, ci.Offset, &f.o.limits, nil)
	return c, buf, err
}

// FileHeader reads the first file_header chunk and parses its header part.
func (f *File) FileHeader() (*FileHeader, error) {
	for i, ci := range f.index {
		if ci.Type == ChunkFileHeader {
			c, _, err := f.ReadChunk(i, nil)
			if err != nil {
				return nil, err
			}
			return c.FileHeader()
		}
	}
	return nil, newErr(fileHeaderSize, ErrCorrupt, "no file_header chunk")
}
