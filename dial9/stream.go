package dial9

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/tracecodec/tracecodec/internal/wire"
)

func newStreaming(r io.Reader, o options) (*Reader, error) {
	d := &Reader{opts: o, r: r, owned: true}
	d.init()
	d.buf = make([]byte, 0, o.bufSize)
	for len(d.buf) < 2 && d.fill() {
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.buf) >= 2 && d.buf[0] == 0x1f && d.buf[1] == 0x8b {
		d.zin = &wire.CountingReader{R: io.MultiReader(bytes.NewReader(bytes.Clone(d.buf)), r)}
		zr, err := gzip.NewReader(d.zin)
		if err != nil {
			return nil, newErr(0, ErrCorrupt, "gzip: %v", err)
		}
		d.r = zr
		d.gzip = true
		d.buf = d.buf[:0]
		d.eof = false
	}
	if err := d.readFirstHeader(); err != nil {
		return nil, err
	}
	return d, nil
}

// fill reads more input into the buffer, compacting consumed bytes first.
// It returns false at the end of input or on an error (then d.err is set).
func (d *Reader) fill() bool {
	if d.pend != nil {
		// The read that returned the error also returned bytes, which were
		// decoded first: now the error stands.
		d.err, d.pend = d.pend, nil
		return false
	}
	if d.r == nil || d.eof {
		return false
	}
	if d.pos > 0 {
		n := copy(d.buf, d.buf[d.pos:])
		d.buf = d.buf[:n]
		d.base += int64(d.pos)
		d.pos = 0
	}
	if len(d.buf) == cap(d.buf) {
		if int64(cap(d.buf)) >= d.lim.MaxFrameSize+16 {
			d.err = newErr(d.abs(0), ErrLimit, "frame larger than the limit of %d bytes", d.lim.MaxFrameSize)
			return false
		}
		nc := min(int64(2*cap(d.buf)), d.lim.MaxFrameSize+16)
		if d.err = d.charge(nc, len(d.buf)); d.err != nil {
			return false
		}
		nb := make([]byte, len(d.buf), nc)
		copy(nb, d.buf)
		d.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		if d.zin != nil {
			if out, in := d.abs(len(d.buf)), d.zin.N; out > int64(d.lim.MaxDecompressionRatio)*in+1<<20 {
				d.err = newErr(d.abs(len(d.buf)), ErrLimit, "gzip: %d bytes decompressed from %d: over the %d:1 limit (Limits.MaxDecompressionRatio)", out, in, d.lim.MaxDecompressionRatio)
				return false
			}
		}
		if err == io.EOF {
			d.eof = true
			return n > 0
		}
		if err != nil {
			var e error
			switch {
			case errors.Is(err, io.ErrUnexpectedEOF):
				e = newErr(d.abs(len(d.buf)), ErrTruncated, "input cut short: %v", err)
			case d.gzip:
				e = newErr(d.abs(len(d.buf)), ErrCorrupt, "%v", err) // "gzip: …"
			default: // an I/O error, not a format error
				e = fmt.Errorf("dial9: read at offset %d: %w", d.abs(len(d.buf)), err)
			}
			if n > 0 {
				// Decode the bytes that came with the error first.
				d.pend = e
				return true
			}
			d.err = e
			return false
		}
		if n > 0 {
			return true
		}
	}
	d.err = newErr(d.abs(len(d.buf)), ErrTruncated, "read: %v", io.ErrNoProgress)
	return false
}
