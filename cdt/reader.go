package cdt

import (
	"encoding/binary"
	"errors"
	"io"
	"iter"
	"slices"

	"github.com/klauspost/compress/zstd"
	"github.com/tracecodec/tracecodec/internal/checksum"
)

// Reader walks a CDT file forward from an io.Reader without using the
// footer index: header, META, then every TICK chunk in file order, then FOTR
// and the trailer. It reads traces whose writer died before Close: when the
// input ends before a complete FOTR chunk and trailer (or inside a chunk), the
// complete chunks are delivered and Recovered reports true. Rows are valid
// until the next call to Next; after warm-up Next allocates nothing per row.
type Reader struct {
	r           io.Reader
	opts        readerOptions
	dec         *zstd.Decoder
	ownDec      bool
	sum         *checksum.Blake2b64
	off         int64
	meta        Meta
	metaPayload []byte
	stored      []byte
	payload     []byte
	rows        []Row
	ri          int
	row         Row
	footer      *Footer
	footerOff   int64
	budget      ratioBudget // the zstd chunks read so far
	blocks      int
	recovered   bool
	recovery    *Recovery
	ticks       int64
	first, last int64
	done        bool
	closed      bool
	err         error
}

// NewReader reads the file header and META chunk from r.
func NewReader(r io.Reader, opts ...ReaderOption) (*Reader, error) {
	o := defaultReaderOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	dec, owned, err := decoderFor(o.limits)
	if err != nil {
		return nil, err
	}
	s := &Reader{r: r, opts: o, dec: dec, ownDec: owned, sum: checksum.NewBlake2b64()}
	if err := s.start(); err != nil {
		if owned {
			dec.Close()
		}
		return nil, err
	}
	return s, nil
}

func (s *Reader) start() error {
	var head [HeaderSize]byte
	n, err := io.ReadFull(s.r, head[:])
	s.off += int64(n)
	if err != nil {
		return newErr(0, ErrSize, "invalid trace file: %d bytes, need at least %d", n, HeaderSize)
	}
	if string(head[:len(Magic)]) != Magic {
		return newErr(0, ErrBadMagic, "unsupported trace magic %q", head[:len(Magic)])
	}
	if v := binary.LittleEndian.Uint32(head[len(Magic):]); v != FormatVersion {
		return newErr(int64(len(Magic)), ErrUnsupportedVersion, "unsupported trace format version: %d", v)
	}
	off := s.off
	h, payload, err := s.readChunk()
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return newErr(off, ErrTruncated, "truncated META chunk")
		}
		return err
	}
	if h.Kind != KindMeta {
		return newErr(off, ErrChunkKind, "invalid trace meta chunk: kind %s", h.Kind)
	}
	s.metaPayload = slices.Clone(payload)
	if s.meta, err = parseMeta(off, payload); err != nil {
		return err
	}
	if !slices.Contains(s.opts.schemaVersions, s.meta.SchemaVersion) {
		return newErr(off, ErrSchemaVersion, "unsupported trace schema version: %d (supported: %s)",
			s.meta.SchemaVersion, joinInts(s.opts.schemaVersions))
	}
	return nil
}

// readFull reads n bytes into buf[:0] in steps, so a lying length costs only
// what the input delivers. A short read returns io.ErrUnexpectedEOF (io.EOF
// when nothing at all was read).
func (s *Reader) readFull(buf []byte, n int) ([]byte, error) {
	buf = buf[:0]
	for len(buf) < n {
		step := min(n-len(buf), max(len(buf), 64<<10))
		if cap(buf)-len(buf) < step {
			buf = slices.Grow(buf, step)
		}
		m, err := io.ReadFull(s.r, buf[len(buf):len(buf)+step])
		buf = buf[:len(buf)+m]
		s.off += int64(m)
		if err != nil {
			if len(buf) == 0 && err == io.EOF {
				return buf, io.EOF
			}
			return buf, io.ErrUnexpectedEOF
		}
	}
	return buf, nil
}

// readChunk reads the next chunk; io.EOF / io.ErrUnexpectedEOF (unwrapped)
// report the end of the input at or inside a chunk.
func (s *Reader) readChunk() (ChunkHeader, []byte, error) {
	off := s.off
	var hb [ChunkHeaderSize]byte
	b, err := s.readFull(hb[:0], ChunkHeaderSize)
	if err != nil {
		return ChunkHeader{}, nil, err
	}
	h := ParseChunkHeader((*[ChunkHeaderSize]byte)(b))
	if err := checkHeader(off, &h, s.opts.limits); err != nil {
		return h, nil, err
	}
	if err := s.budget.charge(off, &h, s.opts.limits); err != nil {
		return h, nil, err
	}
	s.stored, err = s.readFull(s.stored, int(h.CompressedLen))
	if err != nil {
		return h, nil, io.ErrUnexpectedEOF
	}
	payload, err := decodePayload(off, &h, s.stored, s.payload, true, s.dec, s.sum)
	if err != nil {
		return h, nil, err
	}
	if h.Flags&FlagZstd != 0 {
		s.payload = payload
	}
	return h, payload, nil
}

// Next advances to the next row; false at the end or on error. After Close
// it returns false and Err returns ErrClosed.
func (s *Reader) Next() bool {
	if s.closed {
		if s.err == nil {
			s.err = ErrClosed
		}
		return false
	}
	for {
		if s.ri < len(s.rows) {
			s.row = s.rows[s.ri]
			s.ri++
			return true
		}
		if s.done || s.err != nil {
			return false
		}
		s.nextChunk()
	}
}

func (s *Reader) nextChunk() {
	s.rows, s.ri = s.rows[:0], 0
	off := s.off
	h, payload, err := s.readChunk()
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		var hp *ChunkHeader
		if h.Kind != (ChunkKind{}) {
			hp = &h
		}
		s.stopAt(off, hp, false)
		return
	case err != nil:
		s.err = err
		return
	}
	switch h.Kind {
	case KindTick:
		var start, end int64
		start, end, s.rows, err = parseBlock(off, payload, s.rows, s.opts.limits)
		if err != nil {
			s.err = err
			return
		}
		if s.blocks == 0 {
			s.first = start
		}
		s.blocks++
		s.last = end
		s.ticks += int64(len(s.rows))
	case KindFooter:
		f, err := parseFooter(off, payload, s.opts.limits)
		if err != nil {
			s.err = err
			return
		}
		s.footer, s.footerOff = &f, off
		s.readTrailer()
	default:
		s.err = newErr(off, ErrChunkKind, "unexpected %s chunk after META", h.Kind)
	}
}

func (s *Reader) readTrailer() {
	s.done = true
	off := s.off
	var tb [TrailerSize]byte
	b, err := s.readFull(tb[:0], TrailerSize)
	if err != nil {
		s.stopAt(off, nil, true)
		return
	}
	if string(b[:8]) != TrailerMagic {
		s.err = newErr(off, ErrTrailer, "missing trace trailer (found %q)", b[:8])
		return
	}
	if fo := binary.LittleEndian.Uint64(b[8:]); fo != uint64(s.footerOff) {
		s.err = newErr(off+8, ErrTrailer, "trailer footer_offset %d, FOTR chunk at %d", fo, s.footerOff)
		return
	}
	s.err = checkFooter(s.footerOff, s.footer)
}

// All yields the remaining rows (each valid until the next step) and, on
// failure, a last (Row{}, err) pair. The end of the input before the footer
// is not a failure: check Recovered after the loop.
func (s *Reader) All() iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		for s.Next() {
			if !yield(s.row, nil) {
				return
			}
		}
		if s.err != nil {
			yield(Row{}, s.err)
		}
	}
}

// Row returns the current row; its Raw bytes are valid until the next Next.
func (s *Reader) Row() Row { return s.row }

// Err returns the first error; it is sticky. The end of the input inside or
// before the footer is not an error (see Recovered).
func (s *Reader) Err() error { return s.err }

// Recovered reports, once Next has returned false without error, that the
// input ended before a complete footer and trailer: the trace was not closed
// and only its complete TICK chunks were read.
func (s *Reader) Recovered() bool { return s.recovered }

// Footer returns the footer when one was read, else nil.
func (s *Reader) Footer() *Footer { return s.footer }

// Meta returns the container-level META fields.
func (s *Reader) Meta() Meta { return s.meta }

// MetaPayload returns the META msgpack payload.
func (s *Reader) MetaPayload() []byte { return s.metaPayload }

// Blocks returns the number of TICK chunks read so far.
func (s *Reader) Blocks() int { return s.blocks }

// Close releases the decoder.
func (s *Reader) Close() error {
	if s.ownDec && !s.closed {
		s.dec.Close()
	}
	s.closed, s.done = true, true
	return nil
}
