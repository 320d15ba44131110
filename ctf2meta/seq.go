package ctf2meta

import (
	"bytes"
	"errors"
	"io"
	"iter"
)

// SeqReader splits a CTF 2 metadata stream (an RFC 7464 JSON text sequence)
// into the JSON texts of its fragments, streaming from an io.Reader.
//
// Framing rules, after babeltrace 2.1 and RFC 7464: every JSON text is
// preceded by RS (0x1E) and runs to the next RS or to the end of the input;
// surrounding JSON whitespace, including the LF RFC 7464 puts after each
// text, is trimmed, so an LF is optional; consecutive RS bytes are skipped; a
// JSON text that is empty after trimming is an error. Whitespace before the
// first RS is skipped and counted (LeadingWhitespace) unless WithStrict is
// set: babeltrace 2.1 and yactfr would read such a file as TSDL. JSON syntax
// is not checked here: DecodeFragment and FragmentReader do that.
//
// Text returns a view valid until the next call to Next; after warm-up Next
// performs no allocations.
type SeqReader struct {
	r          io.Reader
	o          options
	buf        []byte
	start, end int
	off        int64 // input offset of buf[start]
	eof        bool
	rerr       error
	started    bool
	leading    int
	text       []byte
	textOff    int64
	textStart  int64
	num        int
	err        error
}

// NewSeqReader returns a SeqReader of the metadata stream r.
func NewSeqReader(r io.Reader, opts ...ReaderOption) (*SeqReader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return &SeqReader{r: r, o: o}, nil
}

// Reset makes the SeqReader read a new stream from r, keeping its buffer
// and options.
func (s *SeqReader) Reset(r io.Reader) {
	*s = SeqReader{r: r, o: s.o, buf: s.buf}
}

// more reads more input into the buffer, growing it as data arrives. It
// returns false at the end of the input.
func (s *SeqReader) more() bool {
	if s.eof {
		return false
	}
	if s.start > 0 && s.end == len(s.buf) {
		copy(s.buf, s.buf[s.start:s.end])
		s.end -= s.start
		s.start = 0
	}
	if s.end == len(s.buf) {
		nb := make([]byte, max(2*len(s.buf), 32<<10))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for range 100 {
		m, err := s.r.Read(s.buf[s.end:])
		s.end += m
		if err != nil {
			s.eof = true
			if !errors.Is(err, io.EOF) {
				s.rerr = err
			}
			return m > 0
		}
		if m > 0 {
			return true
		}
	}
	s.eof, s.rerr = true, io.ErrNoProgress
	return false
}

func (s *SeqReader) consume(n int) {
	s.start += n
	s.off += int64(n)
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Next advances to the next fragment's JSON text. It returns false at the
// end of the stream or on error; check Err.
func (s *SeqReader) Next() bool {
	if s.err != nil {
		return false
	}
	s.text = nil
	if !s.started {
		for {
			for s.start < s.end && isJSONSpace(s.buf[s.start]) {
				s.consume(1)
				s.leading++
			}
			if s.start < s.end || !s.more() {
				break
			}
		}
		if s.rerr != nil {
			s.err = s.rerr
			return false
		}
		if s.start == s.end {
			if s.leading > 0 {
				s.err = newErr(0, ErrFraming, "metadata stream holds only whitespace")
			}
			return false
		}
		if s.leading > 0 && s.o.strict {
			s.err = newErr(0, ErrFraming, "%d byte(s) of whitespace before the first RS: babeltrace 2.1 and yactfr read such a file as TSDL, not CTF 2", s.leading)
			return false
		}
		if c := s.buf[s.start]; c != RS {
			s.err = newErr(s.off, ErrFraming, "metadata stream does not start with RS (0x1E) but with byte 0x%02x: not a CTF 2 JSON text sequence (CTF 1.8 TSDL text is read by ParseTSDL)", c)
			return false
		}
		s.started = true
	}
	if s.start == s.end && !s.more() {
		s.err = s.rerr
		return false
	}
	// Here buf[start] is RS.
	s.textOff = s.off
	for {
		for s.start < s.end && s.buf[s.start] == RS {
			s.consume(1)
		}
		if s.start < s.end || !s.more() {
			break
		}
	}
	scanned := 0
	for {
		if i := bytes.IndexByte(s.buf[s.start+scanned:s.end], RS); i >= 0 {
			scanned += i
			break
		}
		scanned = s.end - s.start
		if int64(scanned) > s.o.limits.MaxFragmentBytes {
			s.err = newErr(s.textOff, ErrLimit, "fragment #%d: JSON text longer than the limit of %d bytes", s.num+1, s.o.limits.MaxFragmentBytes)
			return false
		}
		if !s.more() {
			break
		}
	}
	if s.rerr != nil {
		s.err = s.rerr
		return false
	}
	if int64(scanned) > s.o.limits.MaxFragmentBytes {
		s.err = newErr(s.textOff, ErrLimit, "fragment #%d: JSON text longer than the limit of %d bytes", s.num+1, s.o.limits.MaxFragmentBytes)
		return false
	}
	text := s.buf[s.start : s.start+scanned]
	base := s.off
	s.consume(scanned)
	s.num++
	if int64(s.num) > s.o.limits.MaxFragments {
		s.err = newErr(s.textOff, ErrLimit, "fragment #%d: more fragments than the limit of %d", s.num, s.o.limits.MaxFragments)
		return false
	}
	lead := 0
	for lead < len(text) && isJSONSpace(text[lead]) {
		lead++
	}
	text = text[lead:]
	s.textStart = base + int64(lead)
	for len(text) > 0 && isJSONSpace(text[len(text)-1]) {
		text = text[:len(text)-1]
	}
	if len(text) == 0 {
		s.err = newErr(s.textOff, ErrFraming, "fragment #%d: empty JSON text after RS", s.num)
		return false
	}
	s.text = text
	return true
}

// Text returns the current fragment's JSON text, trimmed of whitespace.
func (s *SeqReader) Text() []byte { return s.text }

// Offset returns the input offset of the current fragment's RS byte.
func (s *SeqReader) Offset() int64 { return s.textOff }

// TextOffset returns the input offset of the first byte of Text.
func (s *SeqReader) TextOffset() int64 { return s.textStart }

// Index returns the 1-based number of the current fragment.
func (s *SeqReader) Index() int { return s.num }

// All iterates over the remaining JSON texts (each valid until the next
// iteration); the last pair carries the error, if any.
func (s *SeqReader) All() iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		for s.Next() {
			if !yield(s.text, nil) {
				return
			}
		}
		if s.err != nil {
			yield(nil, s.err)
		}
	}
}

// LeadingWhitespace returns how many whitespace bytes preceded the first RS.
func (s *SeqReader) LeadingWhitespace() int { return s.leading }

// Err returns the first error met, or nil at a clean end of stream.
func (s *SeqReader) Err() error { return s.err }
