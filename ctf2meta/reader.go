package ctf2meta

import (
	"errors"
	"io"
	"iter"
)

// Packet is one metadata packet. Content is a view of the packet's content
// bytes (header and padding excluded) that stays valid until the next call to
// Next; copy it to keep it.
type Packet struct {
	Index   int   // 0-based packet index
	Offset  int64 // byte offset of the packet's first header byte
	Header  PacketHeader
	Content []byte
}

// StreamInfo summarises what a Reader or Depacketize has seen so far.
type StreamInfo struct {
	Packets      int
	Layout       Layout    // of packet 0 (0 when there are no packets)
	ByteOrder    ByteOrder // of packet 0
	UUID         UUID      // of packet 0
	ContentBytes int64     // depacketized bytes
	// TrailingBytes counts bytes after the last packet that are fewer than a
	// header (tolerated with a warning unless strict, as babeltrace 2.1.2).
	TrailingBytes int
	// MissingPadding counts padding bytes the last packet declares but the
	// input does not hold (tolerated unless strict, as babeltrace).
	MissingPadding int64
	// Bytes is the number of input bytes the packets read occupy (headers,
	// content and the padding present): where trailing bytes start.
	Bytes int64
	// IgnoredChecksums counts packets whose non-zero checksum field was
	// ignored (CTF2-PMETA-1.0: "must ignore"; strict rejects it).
	IgnoredChecksums int
}

// Warnings returns human-readable notes on tolerated irregularities: the
// lenient readings of Recovery.Lenient.
func (s StreamInfo) Warnings() []string { return s.Recovery().Lenient() }

const minReadBuf = 64 << 10

// Reader reads a packetized metadata stream from an io.Reader, packet by
// packet, validating every header. It buffers at most one packet (plus read
// ahead), growing its buffer only as data really arrives, so a lying size
// field costs no more memory than the input delivers.
//
// After warm-up (the buffer has reached the largest packet size), Next
// performs no allocations. Errors are sticky *FormatError values.
type Reader struct {
	r          io.Reader
	o          options
	chk        headerCheck
	buf        []byte
	start, end int   // buffered bytes: buf[start:end]
	off        int64 // input offset of buf[start]
	eof        bool
	rerr       error
	skip       int64 // padding of the current packet still to skip
	pkt        Packet
	idx        int
	info       StreamInfo
	err        error
	content    contentReader
	pending    []byte // unread content for contentReader
	borrowed   bool   // buf is the caller's slice (NewBytesReader)
}

// NewReader returns a Reader of the packetized metadata stream r.
func NewReader(r io.Reader, opts ...ReaderOption) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	rd := &Reader{r: r, o: o}
	rd.chk = newHeaderCheck(&rd.o)
	rd.content.r = rd
	return rd, nil
}

// NewBytesReader returns a Reader of the packetized metadata stream b held
// in memory. It reads without copying: each Packet's Content is a view into
// b, valid as long as b is.
func NewBytesReader(b []byte, opts ...ReaderOption) (*Reader, error) {
	rd, err := NewReader(nil, opts...)
	if err != nil {
		return nil, err
	}
	rd.buf, rd.end, rd.eof, rd.borrowed = b, len(b), true, true
	return rd, nil
}

// Reset makes the Reader read a new stream from r, keeping its options and,
// unless it was built by NewBytesReader, its buffer.
func (r *Reader) Reset(src io.Reader) {
	buf := r.buf[:cap(r.buf)]
	if r.borrowed {
		buf = nil
	}
	*r = Reader{r: src, o: r.o, buf: buf}
	r.chk = newHeaderCheck(&r.o)
	r.content.r = r
}

// fill makes at least n bytes available in buf[start:end]; it returns false
// if the input ends (or fails) first.
func (r *Reader) fill(n int) bool {
	empty := 0
	for r.end-r.start < n {
		if r.eof {
			return false
		}
		if len(r.buf)-r.start < n && r.start > 0 {
			copy(r.buf, r.buf[r.start:r.end])
			r.end -= r.start
			r.start = 0
		}
		if r.end == len(r.buf) {
			nl := max(2*len(r.buf), minReadBuf)
			if nl > n && n > len(r.buf) {
				nl = max(n, len(r.buf))
			}
			nb := make([]byte, nl)
			copy(nb, r.buf[r.start:r.end])
			r.end -= r.start
			r.start = 0
			r.buf = nb
		}
		m, err := r.r.Read(r.buf[r.end:])
		r.end += m
		if err != nil {
			r.eof = true
			if !errors.Is(err, io.EOF) {
				r.rerr = err
			}
		} else if m == 0 {
			if empty++; empty >= 100 {
				r.eof, r.rerr = true, io.ErrNoProgress
			}
		}
	}
	return true
}

func (r *Reader) consume(n int) {
	r.start += n
	r.off += int64(n)
}

// Next advances to the next packet. It returns false at the end of the
// stream or on error; check Err.
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	r.pkt.Content = nil
	for r.skip > 0 {
		if r.end == r.start && !r.fill(1) {
			if r.rerr != nil {
				r.err = r.rerr
				return false
			}
			if r.o.strict {
				r.err = newErr(r.pkt.Offset, ErrTruncated, "packet %d: input ends %d byte(s) before the end of its padding", r.pkt.Index, r.skip)
				return false
			}
			r.info.MissingPadding = r.skip
			r.info.Bytes -= r.skip
			r.skip = 0
			break
		}
		n := min(int64(r.end-r.start), r.skip)
		r.consume(int(n))
		r.skip -= n
	}
	if !r.fill(1) {
		r.err = r.rerr
		return false
	}
	b := r.buf[r.start:r.end]
	h, need, err := r.chk.decode(b, r.idx, r.off)
	for err == nil && need > 0 {
		if !r.fill(need) {
			if r.rerr != nil {
				r.err = r.rerr
				return false
			}
			rem := r.end - r.start
			if rem < HeaderSizeCTF18 && (rem < 4 || !IsPacketized(r.buf[r.start:r.end])) && r.idx > 0 {
				if r.o.strict {
					r.err = newErr(r.off, ErrCorrupt, "%d trailing byte(s) after packet %d, fewer than a packet header", rem, r.idx-1)
					return false
				}
				r.info.TrailingBytes = rem
				r.consume(rem)
				return false
			}
			if rem >= 4 && !IsPacketized(r.buf[r.start:r.end]) {
				_, _, err = r.chk.decode(append(r.buf[r.start:r.end:r.end], make([]byte, HeaderSizeCTF18)...), r.idx, r.off)
				r.err = err
				return false
			}
			r.err = newErr(r.off, ErrTruncated, "packet %d: input ends after %d byte(s) of a %d-byte packet header", r.idx, rem, need)
			return false
		}
		h, need, err = r.chk.decode(r.buf[r.start:r.end], r.idx, r.off)
	}
	if err != nil {
		r.err = err
		return false
	}
	cb := int(h.ContentBits / 8)
	if !r.fill(cb) {
		if r.rerr != nil {
			r.err = r.rerr
			return false
		}
		r.err = newErr(r.off, ErrTruncated, "packet %d: content ends at byte %d but the input ends after %d of its %d bytes", r.idx, r.off+int64(cb), r.end-r.start, cb)
		return false
	}
	hs := h.HeaderSize()
	r.pkt = Packet{Index: r.idx, Offset: r.off, Header: h, Content: r.buf[r.start+hs : r.start+cb : r.start+cb]}
	r.consume(cb)
	r.skip = int64(h.PaddingSize())
	if r.idx == 0 {
		r.info.Layout, r.info.ByteOrder, r.info.UUID = h.Layout, h.ByteOrder, h.UUID
	}
	r.idx++
	r.info.Packets = r.idx
	r.info.ContentBytes += int64(cb - hs)
	r.info.Bytes = r.pkt.Offset + int64(h.TotalSize())
	if h.Checksum != 0 {
		r.info.IgnoredChecksums++ // strict refused it in decode
	}
	return true
}

// Packet returns the current packet; its Content is valid until the next
// call to Next or Read.
func (r *Reader) Packet() *Packet { return &r.pkt }

// Err returns the first error met, or nil at a clean end of stream.
func (r *Reader) Err() error { return r.err }

// Info returns what has been read so far.
func (r *Reader) Info() StreamInfo { return r.info }

// All iterates over the remaining packets. The last pair carries the error,
// if any.
func (r *Reader) All() iter.Seq2[*Packet, error] {
	return func(yield func(*Packet, error) bool) {
		for r.Next() {
			if !yield(&r.pkt, nil) {
				return
			}
		}
		if r.err != nil {
			yield(nil, r.err)
		}
	}
}

// Content returns an io.Reader of the concatenated content of the remaining
// packets: the depacketized metadata stream. Do not mix it with Next.
func (r *Reader) Content() io.Reader { return &r.content }

type contentReader struct{ r *Reader }

func (c *contentReader) Read(p []byte) (int, error) {
	r := c.r
	for len(r.pending) == 0 {
		if !r.Next() {
			if r.err != nil {
				return 0, r.err
			}
			return 0, io.EOF
		}
		r.pending = r.pkt.Content
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// WriteTo writes the remaining depacketized content to w.
func (c *contentReader) WriteTo(w io.Writer) (int64, error) {
	r := c.r
	var total int64
	for {
		if len(r.pending) > 0 {
			n, err := w.Write(r.pending)
			total += int64(n)
			r.pending = r.pending[n:]
			if err != nil {
				return total, err
			}
			continue
		}
		if !r.Next() {
			return total, r.err
		}
		r.pending = r.pkt.Content
	}
}

// Depacketize appends the concatenated content of the packetized metadata
// stream src to dst, validating every packet header, and returns the
// extended slice and a summary. It copies each packet's content once and
// allocates only when dst must grow.
func Depacketize(dst, src []byte, opts ...ReaderOption) ([]byte, StreamInfo, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return dst, StreamInfo{}, err
	}
	var info StreamInfo
	chk := newHeaderCheck(&o)
	off := 0
	for idx := 0; off < len(src); idx++ {
		b := src[off:]
		h, need, err := chk.decode(b, idx, int64(off))
		if err != nil {
			return dst, info, err
		}
		if need > 0 {
			if len(b) < HeaderSizeCTF18 && idx > 0 && (len(b) < 4 || !IsPacketized(b)) {
				if o.strict {
					return dst, info, newErr(int64(off), ErrCorrupt, "%d trailing byte(s) after packet %d, fewer than a packet header", len(b), idx-1)
				}
				info.TrailingBytes = len(b)
				return dst, info, nil
			}
			if len(b) >= 4 && !IsPacketized(b) {
				_, _, err = chk.decode(append(b[:len(b):len(b)], make([]byte, HeaderSizeCTF18)...), idx, int64(off))
				return dst, info, err
			}
			return dst, info, newErr(int64(off), ErrTruncated, "packet %d: input ends after %d byte(s) of a %d-byte packet header", idx, len(b), need)
		}
		cb := int(h.ContentBits / 8)
		if cb > len(b) {
			return dst, info, newErr(int64(off), ErrTruncated, "packet %d: content ends at byte %d but the input ends after %d of its %d bytes", idx, off+cb, len(b), cb)
		}
		if idx == 0 {
			info.Layout, info.ByteOrder, info.UUID = h.Layout, h.ByteOrder, h.UUID
			if dst == nil {
				// One allocation for the common case of equal-sized packets.
				dst = make([]byte, 0, len(src)/max(h.TotalSize(), 1)*max(cb-h.HeaderSize(), 0)+cb)
			}
		}
		dst = append(dst, b[h.HeaderSize():cb]...)
		info.Packets = idx + 1
		info.ContentBytes += int64(cb - h.HeaderSize())
		if h.Checksum != 0 {
			info.IgnoredChecksums++ // strict refused it in decode
		}
		tot := h.TotalSize()
		if tot > len(b) {
			if o.strict {
				return dst, info, newErr(int64(off), ErrTruncated, "packet %d: input ends %d byte(s) before the end of its padding", idx, tot-len(b))
			}
			info.MissingPadding = int64(tot - len(b))
			info.Bytes = int64(len(src))
			return dst, info, nil
		}
		off += tot
		info.Bytes = int64(off)
	}
	return dst, info, nil
}
