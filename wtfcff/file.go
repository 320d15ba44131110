package wtfcff

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
)

// ChunkInfo is one entry of a File's chunk index.
type ChunkInfo struct {
	// Offset is the absolute offset of the chunk header.
	Offset int64
	// ID is the chunk's id word (readers ignore it).
	ID uint32
	// Type is the chunk's type word.
	Type ChunkType
	// Length is the chunk's length: header, part table, parts and padding.
	Length int64
	// StartTime and EndTime are the header's time words (InvalidTime in
	// files written by the JS library and by this package).
	StartTime uint32
	EndTime   uint32
	// PartCount is the number of entries of the part table.
	PartCount int
	// Torn marks the last entry of a File opened WithRecovery whose last
	// chunk the file cuts short and from which something can be salvaged:
	// Length is then the bytes present, and ReadChunk delivers the chunk
	// as a recovering Reader does (Chunk.Torn).
	Torn bool
}

// File gives random access to the chunks of a binary CFF file: Open builds
// the chunk index with one walk over the chunk headers; ReadChunk then reads
// any chunk directly, and All reads them in order. A File is safe for
// concurrent use when its io.ReaderAt is (each All has its own state).
//
// Only the binary container has a layout that allows this; JSON and legacy
// files are read with NewReader. WTF writers leave the chunk time words unset
// (InvalidTime), so a File has no time index and no Range: decode the events
// (Events) to select by time.
type File struct {
	r          io.ReaderAt
	data       []byte // OpenBytes: chunks are views
	closer     io.Closer
	size       int64
	o          readerOptions
	wtfVersion uint32
	index      []ChunkInfo
	closed     bool
	rec        Recovery    // what Open read and what the torn chunk lost
	recBase    Recovery    // rec before the torn chunk's salvage (copied per read)
	tornHdr    chunkHeader // the torn chunk's header (rec.Salvaged)
}

// Open checks the file header and indexes every chunk. It fails where the
// streaming Reader would: a truncated or inconsistent chunk header, a chunk
// extending past the end, trailing bytes too short for a chunk header. With
// WithRecovery a last chunk cut short (or trailing bytes too short for a
// chunk header) ends the index instead, as in a recovering Reader: what can
// be salvaged of the torn chunk is its last entry (ChunkInfo.Torn), and
// Recovery says what was read and what was lost.
func Open(r io.ReaderAt, size int64, opts ...ReaderOption) (*File, error) {
	o, err := applyReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	var hdr [chunkHeaderSize]byte
	n, rerr := r.ReadAt(hdr[:min(fileHeaderSize, max(size, 0))], 0)
	if int64(n) < min(size, fileHeaderSize) && rerr != nil {
		return nil, rerr
	}
	v, err := parseFileHeaderWords(hdr[:n])
	if err != nil {
		return nil, err
	}
	f := &File{r: r, size: size, o: o, wtfVersion: v}
	f.rec = Recovery{Kind: KindBinary, Size: size, ReadBytes: fileHeaderSize}
	for off := int64(fileHeaderSize); off < size; {
		if size-off < chunkHeaderSize {
			if o.recover {
				f.rec.Torn, f.rec.TornOffset, f.rec.PresentBytes = true, off, size-off
				f.rec.Reason = "the chunk header is cut"
				break
			}
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
		case ci.Length > size-off && o.recover:
			ci.PartCount = int(h.Parts)
			if err := f.tear(ci, h); err != nil {
				return nil, err
			}
			return f, nil
		case ci.Length > size-off:
			return nil, newErr(off, ErrTruncated, "chunk %d declares %d bytes, only %d present: data does not contain the entire chunk (open it WithRecovery to read what it holds)", ci.ID, ci.Length, size-off)
		}
		ci.PartCount = int(h.Parts)
		f.index = append(f.index, ci)
		off += ci.Length
		f.rec.Chunks, f.rec.ReadBytes = len(f.index), off
	}
	return f, nil
}

// tear records the torn last chunk ci (header h) of a recovering Open: its
// present bytes are read once to work out what can be salvaged.
func (f *File) tear(ci ChunkInfo, h chunkHeader) error {
	present := f.size - ci.Offset
	f.rec.Torn, f.rec.TornOffset, f.rec.TornID = true, ci.Offset, ci.ID
	f.rec.DeclaredBytes, f.rec.PresentBytes = ci.Length, present
	f.recBase, f.tornHdr = f.rec, h
	b := make([]byte, present)
	if n, err := f.r.ReadAt(b, ci.Offset); int64(n) < present {
		if err == nil || errors.Is(err, io.EOF) {
			return newErr(ci.Offset, ErrTruncated, "chunk %d: read %d of %d bytes", ci.ID, n, present)
		}
		return err
	}
	if _, ok := salvageChunk(b, ci.Offset, &h, &f.rec, nil); ok {
		f.rec.Salvaged = true
		ci.Length, ci.Torn = present, true
		f.index = append(f.index, ci)
	}
	return nil
}

// Recovery says what Open read and, for a file opened WithRecovery whose
// last chunk is cut short, what that chunk held, what can be salvaged of it
// (parts, bytes) and what is lost. The event counts of the torn chunk are
// filled in the report that the Chunk ReadChunk (or All) returns for it
// carries (Chunk.Recovery), as a Decoder decodes it: each read of the torn
// chunk has its own, so a File stays safe for concurrent use.
func (f *File) Recovery() *Recovery { return &f.rec }

// OpenBytes is Open over a file held in memory: chunks and their parts are
// views of b (not copied), valid as long as b is.
func OpenBytes(b []byte, opts ...ReaderOption) (*File, error) {
	f, err := Open(bytes.NewReader(b), int64(len(b)), opts...)
	if err != nil {
		return nil, err
	}
	f.data = b
	return f, nil
}

// OpenFile opens the binary CFF file at path (a regular file) and indexes
// it; the caller closes the File.
func OpenFile(path string, opts ...ReaderOption) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, fmt.Errorf("wtfcff: %s is not a regular file", path)
	}
	f, err := Open(fh, st.Size(), opts...)
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// Close closes the file OpenFile opened (a no-op for Open and OpenBytes).
// Reads after Close fail with ErrClosed; a second Close returns nil.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// WTFVersion is the binary header's version word (the build number mod 2^32).
func (f *File) WTFVersion() int64 { return int64(f.wtfVersion) }

// Chunks returns the chunk index in file order (do not modify it).
func (f *File) Chunks() []ChunkInfo { return f.index }

// ReadChunk reads and parses chunk i of the index into buf (reused when large
// enough) and returns the chunk, whose part data points into the returned
// buffer (into the input for OpenBytes, where buf is not used).
func (f *File) ReadChunk(i int, buf []byte) (Chunk, []byte, error) {
	return f.readChunk(i, buf, nil)
}

func (f *File) readChunk(i int, buf []byte, parts []Part) (Chunk, []byte, error) {
	if f.closed {
		return Chunk{}, buf, ErrClosed
	}
	if i < 0 || i >= len(f.index) {
		return Chunk{}, buf, fmt.Errorf("wtfcff: chunk index %d out of range [0, %d)", i, len(f.index))
	}
	ci := f.index[i]
	b, buf, err := f.chunkBytes(ci, buf)
	if err != nil {
		return Chunk{}, buf, err
	}
	if ci.Torn {
		return f.salvageTorn(ci, b, buf, parts)
	}
	c, err := parseChunk(b, ci.Offset, &f.o.limits, parts)
	return c, buf, err
}

// chunkBytes returns the bytes of chunk ci: a slice of the input for
// OpenBytes, else read into buf (reused when large enough, returned).
func (f *File) chunkBytes(ci ChunkInfo, buf []byte) (b, out []byte, err error) {
	if f.data != nil {
		return f.data[ci.Offset : ci.Offset+ci.Length], buf, nil
	}
	if int64(cap(buf)) < ci.Length {
		buf = make([]byte, ci.Length)
	}
	buf = buf[:ci.Length]
	if n, err := f.r.ReadAt(buf, ci.Offset); int64(n) < ci.Length {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, buf, newErr(ci.Offset, ErrTruncated, "chunk %d: read %d of %d bytes", ci.ID, n, ci.Length)
		}
		return nil, buf, err
	}
	return buf, buf, nil
}

// salvageTorn salvages the torn last chunk's bytes b into a report of its
// own.
func (f *File) salvageTorn(ci ChunkInfo, b, buf []byte, parts []Part) (Chunk, []byte, error) {
	rec := new(Recovery)
	*rec = f.recBase
	h := f.tornHdr
	c, ok := salvageChunk(b, ci.Offset, &h, rec, parts[:0])
	if !ok {
		return Chunk{}, buf, newErr(ci.Offset, ErrTruncated, "chunk %d: %s", ci.ID, rec.Reason)
	}
	rec.Salvaged = true
	return c, buf, nil
}

// All reads every chunk in file order, reusing one buffer per iteration: the
// *Chunk is valid until the next iteration. On failure it yields a last
// (nil, err) pair and stops.
func (f *File) All() iter.Seq2[*Chunk, error] {
	return func(yield func(*Chunk, error) bool) {
		var buf []byte
		var c Chunk
		var err error
		for i := range f.index {
			if c, buf, err = f.readChunk(i, buf, c.Parts); err != nil {
				yield(nil, err)
				return
			}
			if !yield(&c, nil) {
				return
			}
		}
	}
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
