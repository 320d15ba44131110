package ctf2meta

import (
	"errors"
	"fmt"
	"io"
)

// WriterOption configures a Writer (packet options: WithLayout,
// WithByteOrder, WithUUID, WithChecksum, WithPacketSize, WithContentSize) or a
// FragmentWriter (fragment options: WithIndent, WithLF). Options are validated
// when the writer is built; giving a fragment option to NewWriter, or a packet
// option to NewFragmentWriter, is an error.
type WriterOption func(*writerOptions) error

type writerOptions struct {
	layout     Layout
	bo         ByteOrder
	uuid       UUID
	packetSize int // total bytes per packet, when > 0
	content    int // content bytes per packet, when packetSize == 0
	padding    int
	checksum   uint32

	indent string // FragmentWriter: indent per level, "" = compact
	lf     bool   // FragmentWriter: LF after each fragment

	packetOpt, fragmentOpt string // name of the last option of each kind given
}

// buildWriterOptions applies opts over the defaults.
func buildWriterOptions(opts []WriterOption) (writerOptions, error) {
	o := writerOptions{layout: LayoutPMETA, packetSize: 4096}
	for _, f := range opts {
		if f == nil {
			continue
		}
		if err := f(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// WithLayout selects the header layout (default LayoutPMETA).
func WithLayout(l Layout) WriterOption {
	return func(o *writerOptions) error {
		o.packetOpt = "WithLayout"
		if l.HeaderSize() == 0 {
			return fmt.Errorf("ctf2meta: invalid layout %d", uint8(l))
		}
		o.layout = l
		return nil
	}
}

// WithByteOrder selects the header byte order (default LittleEndian).
func WithByteOrder(bo ByteOrder) WriterOption {
	return func(o *writerOptions) error {
		o.packetOpt = "WithByteOrder"
		if bo != LittleEndian && bo != BigEndian {
			return fmt.Errorf("ctf2meta: invalid byte order %d", uint8(bo))
		}
		o.bo = bo
		return nil
	}
}

// WithUUID sets the metadata stream UUID written in every packet (default
// all zeros; CTF 2 producers should use the preamble's uuid).
func WithUUID(u UUID) WriterOption {
	return func(o *writerOptions) error {
		o.packetOpt = "WithUUID"
		o.uuid = u
		return nil
	}
}

// WithChecksum writes v in every header's checksum field (default 0).
// CTF2-PMETA-1.0 consumers ignore the field; babeltrace rejects non-zero
// values, so only test files should set it.
func WithChecksum(v uint32) WriterOption {
	return func(o *writerOptions) error {
		o.packetOpt = "WithChecksum"
		o.checksum = v
		return nil
	}
}

// WithPacketSize makes every packet, the last one included, exactly size
// bytes: header, up to size−header content bytes, then zero padding (the
// shape LTTng ≤ 2.13 wrote, with 4096-byte packets). This is the default,
// with size 4096.
func WithPacketSize(size int) WriterOption {
	return func(o *writerOptions) error {
		o.packetOpt = "WithPacketSize"
		if size < HeaderSizePMETA+1 || int64(size)*8 > 0xffffffff {
			return fmt.Errorf("ctf2meta: packet size %d out of range [%d, %d]", size, HeaderSizePMETA+1, 0xffffffff/8)
		}
		o.packetSize, o.content, o.padding = size, 0, 0
		return nil
	}
}

// WithContentSize makes every packet carry up to content bytes of content
// (the last one carries the rest) followed by exactly padding zero bytes.
func WithContentSize(content, padding int) WriterOption {
	return func(o *writerOptions) error {
		o.packetOpt = "WithContentSize"
		if content < 1 || padding < 0 || (int64(content)+int64(padding)+HeaderSizePMETA)*8 > 0xffffffff {
			return fmt.Errorf("ctf2meta: content size %d / padding %d out of range", content, padding)
		}
		o.packetSize, o.content, o.padding = 0, content, padding
		return nil
	}
}

// Writer packetizes a metadata stream: bytes written to it are cut into
// packets with validated headers. It holds one packet's buffer, allocated by
// NewWriter; writing packets allocates nothing.
type Writer struct {
	w       io.Writer
	o       writerOptions
	hs      int    // header size
	cap     int    // content capacity per packet
	buf     []byte // header + content capacity + padding
	n       int    // content bytes buffered
	packets int
	bytes   int64
	err     error
	closed  bool
}

// NewWriter returns a Writer that writes packets to w. Without options it
// writes little-endian CTF2-PMETA-1.0 packets of 4096 bytes with a zero UUID.
func NewWriter(w io.Writer, opts ...WriterOption) (*Writer, error) {
	o, err := buildWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.fragmentOpt != "" {
		return nil, errors.New("ctf2meta: " + o.fragmentOpt + " applies to a FragmentWriter, not to a packet Writer")
	}
	wr := &Writer{w: w, o: o, hs: o.layout.HeaderSize()}
	if o.packetSize > 0 {
		wr.cap = o.packetSize - wr.hs
		wr.buf = make([]byte, o.packetSize)
	} else {
		wr.cap = o.content
		wr.buf = make([]byte, wr.hs+o.content+o.padding)
	}
	return wr, nil
}

// Reset makes the Writer write a new stream to w with the same options.
func (w *Writer) Reset(dst io.Writer) {
	w.w, w.n, w.packets, w.bytes, w.err, w.closed = dst, 0, 0, 0, nil, false
}

// Write buffers p and writes every packet it fills.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, ErrClosed
	}
	done := 0
	for len(p) > 0 {
		k := copy(w.buf[w.hs+w.n:w.hs+w.cap], p)
		w.n += k
		done += k
		p = p[k:]
		if w.n == w.cap {
			if err := w.emit(); err != nil {
				return done, err
			}
		}
	}
	return done, nil
}

// emit writes the buffered content as one packet.
func (w *Writer) emit() error {
	padding := w.o.padding
	if w.o.packetSize > 0 {
		padding = w.cap - w.n
		clear(w.buf[w.hs+w.n : w.hs+w.cap])
	}
	if w.o.layout == LayoutV20Short && w.n >= 7 {
		c := w.buf[w.hs:]
		if (c[0] == 0 && c[1] == 0 && c[2] == 0) || w.o.bo.order().Uint32(c[3:]) == PMETAHeaderBits {
			w.err = fmt.Errorf("ctf2meta: packet %d: content starting % x cannot be carried by the 37-byte version-2.0 layout: readers would take it for a CTF2-PMETA-1.0 header", w.packets, c[:7])
			return w.err
		}
	}
	maj, mnr := w.o.layout.Version()
	h := PacketHeader{
		Layout: w.o.layout, ByteOrder: w.o.bo, UUID: w.o.uuid, Checksum: w.o.checksum,
		ContentBits: uint32(w.hs+w.n) * 8, TotalBits: uint32(w.hs+w.n+padding) * 8,
		Major: maj, Minor: mnr, HeaderBits: uint32(w.hs) * 8,
	}
	putHeader(w.buf[:w.hs], &h)
	total := w.hs + w.n + padding
	if w.o.packetSize == 0 && w.n < w.cap {
		// The padding of a short last packet sits where content would go.
		clear(w.buf[w.hs+w.n : total])
	}
	_, err := w.w.Write(w.buf[:total])
	if err != nil {
		w.err = err
		return err
	}
	w.packets++
	w.bytes += int64(total)
	w.n = 0
	return nil
}

// Flush writes the buffered content, if any, as a (shorter) packet. Errors
// are sticky: after a failed write every later call returns that error.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return ErrClosed
	}
	if w.n == 0 {
		return nil
	}
	return w.emit()
}

// Close flushes the last packet. It does not close the underlying writer.
// A second Close returns nil and writes nothing; Write and Flush after Close
// return ErrClosed.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	err := w.Flush()
	w.closed = true
	return err
}

// Packets returns the number of packets written.
func (w *Writer) Packets() int { return w.packets }

// BytesWritten returns the number of packetized bytes written.
func (w *Writer) BytesWritten() int64 { return w.bytes }

// AppendPacket appends one packet (header h with its sizes set from content
// and padding, the content, then padding zero bytes) to dst.
func AppendPacket(dst []byte, h PacketHeader, content []byte, padding int) ([]byte, error) {
	hs := h.HeaderSize()
	if hs == 0 {
		return dst, fmt.Errorf("ctf2meta: invalid layout %d", uint8(h.Layout))
	}
	if padding < 0 || int64(hs+len(content)+padding)*8 > 0xffffffff {
		return dst, fmt.Errorf("ctf2meta: packet of %d+%d+%d bytes does not fit the 32-bit size fields", hs, len(content), padding)
	}
	h.ContentBits = uint32(hs+len(content)) * 8
	h.TotalBits = h.ContentBits + uint32(padding)*8
	if h.Major == 0 && h.Minor == 0 {
		h.Major, h.Minor = h.Layout.Version()
	}
	if h.Layout == LayoutPMETA && h.HeaderBits == 0 {
		h.HeaderBits = PMETAHeaderBits
	}
	dst = AppendHeader(dst, &h)
	dst = append(dst, content...)
	for range padding {
		dst = append(dst, 0)
	}
	return dst, nil
}
