package dial9

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tracecodec/tracecodec/traceerr"
)

// WithRecovery makes a Reader end quietly at a stream cut short or
// corrupted mid-frame, after delivering every complete event before the bad
// byte: Next and NextFrame return false, Err returns nil, and Recovery says
// what was read, what was lost and why. Without it (the default) such a
// stream ends with a sticky *FormatError. Errors that are not about the
// stream's bytes (an I/O error of the io.Reader) stay errors, and so does
// an input whose first header cannot be read (NewReader fails: nothing was
// recovered). Reader option.
//
// A dial9 stream has no index and no sync marker: frames are not
// length-prefixed, so nothing after a bad byte can be found again. Recovery
// therefore keeps the prefix before the frame where decoding failed and
// loses everything from there to the end of the input.
func WithRecovery() Option {
	return func(o *options) error { o.recovery = true; o.readerOnly = "WithRecovery"; return nil }
}

// Recovery reports how a Reader built WithRecovery read a stream that it
// could not decode to the end. Offsets and byte counts are positions in the
// stream as the Reader sees it: the decompressed stream for gzip input.
type Recovery struct {
	// Reason is the error decoding stopped at, the one Err would return
	// without WithRecovery: a *FormatError wrapping ErrTruncated (the input
	// ends inside a frame, or a gzip member is cut short), ErrCorrupt,
	// ErrUnknownFrame, ErrUnknownType, ErrLimit, … with its byte offset.
	Reason error
	// Events is the number of events delivered, Streams the number of
	// stream headers read (1 + concatenated streams).
	Events  int64
	Streams int
	// ReadBytes is where delivery stopped: the offset of the frame where
	// decoding failed; every byte before it was decoded and every event
	// wholly before it delivered.
	ReadBytes int64
	// LostBytes is the number of bytes from ReadBytes to the end of the
	// input, counted by reading the rest of the input through (for gzip:
	// the bytes the remaining input decompresses to, as far as it does:
	// the part of a cut member that cannot be decompressed is not
	// counted), or -1 when the rest could not be read through (a read
	// error, a corrupt gzip member, the decompression ratio limit).
	LostBytes int64
	// LostEvents is 1 when the input (not a gzip member) ends inside an
	// event frame, 0 when it ends inside another frame, -1 otherwise: after
	// a corrupt byte, or in a cut gzip member, the number of events in the
	// lost bytes cannot be known.
	LostEvents int64
	// Gzip says the input was gzip; CompressedBytes is then the number of
	// compressed bytes read (including those read through for LostBytes).
	Gzip            bool
	CompressedBytes int64
}

// Recovery returns the report once a Reader built WithRecovery has stopped
// at a decoding error (Next or NextFrame returned false and Err is nil); nil
// when the stream was read to its end cleanly, before it ends, and without
// WithRecovery.
func (d *Reader) Recovery() *Recovery { return d.rec }

// Summary returns the report as the module's uniform recovery summary
// (traceerr.Recovery, unit "events").
func (r *Recovery) Summary() traceerr.Recovery {
	return traceerr.Recovery{Format: formatName, Unit: "events", Read: r.Events, ReadBytes: r.ReadBytes,
		LostBytes: r.LostBytes, Lost: r.LostEvents, StopOffset: r.ReadBytes, Reason: r.Reason}
}

// String summarises the report in one line.
func (r *Recovery) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "recovered %d events in %d streams, bytes 0..%d", r.Events, r.Streams, r.ReadBytes)
	if r.Gzip {
		fmt.Fprintf(&b, " of the decompressed stream (%d compressed bytes read)", r.CompressedBytes)
	}
	b.WriteString("; lost ")
	if r.LostBytes < 0 {
		b.WriteString("every byte")
	} else {
		fmt.Fprintf(&b, "%d bytes", r.LostBytes)
	}
	fmt.Fprintf(&b, " from offset %d to the end", r.ReadBytes)
	switch {
	case r.LostEvents < 0:
		b.WriteString(", an unknown number of events")
	default:
		fmt.Fprintf(&b, ", %d events", r.LostEvents)
	}
	if r.Reason != nil {
		fmt.Fprintf(&b, " (%v)", r.Reason)
	}
	return b.String()
}

// recoverStop turns the sticky error just set into a quiet end when the
// Reader was built WithRecovery and the error is about the stream's bytes.
// Called where NextFrame returns false.
func (d *Reader) recoverStop() {
	if !d.opts.recovery || d.err == nil || d.rec != nil {
		return
	}
	var fe *FormatError
	if !errors.As(d.err, &fe) {
		return
	}
	rec := &Recovery{Reason: d.err, Events: d.nev, Streams: d.headers, ReadBytes: d.abs(d.pos), Gzip: d.gzip, LostEvents: -1}
	rest := int64(max(len(d.buf)-d.pos, 0))
	if errors.Is(d.err, ErrTruncated) && !d.gzip && d.pos < len(d.buf) {
		rec.LostEvents = 0
		if d.buf[d.pos] == tagEvent {
			rec.LostEvents = 1
		}
	}
	rec.LostBytes = rest + d.drain()
	if rec.LostBytes < rest {
		rec.LostBytes = -1
	}
	if d.zin != nil {
		rec.CompressedBytes = d.zin.N
	}
	d.rec = rec
	d.err = nil
	d.buf = d.buf[:d.pos]
	d.r, d.eof, d.kind = nil, true, 0
}

// drain reads the rest of the input through and returns how many bytes it
// held, or -1 when it could not be read to its end (a read error, a corrupt
// gzip member, the decompression ratio limit). A gzip member cut short
// counts what it decompressed to.
func (d *Reader) drain() int64 {
	if d.r == nil || d.eof {
		return 0
	}
	if errors.Is(d.err, ErrLimit) && d.gzip {
		return -1 // the decompression ratio limit: do not inflate further
	}
	var buf [32 << 10]byte
	var n int64
	for idle := 0; ; {
		k, err := d.r.Read(buf[:])
		n += int64(k)
		if d.zin != nil && d.abs(len(d.buf))+n > int64(d.lim.MaxDecompressionRatio)*d.zin.N+1<<20 {
			return -1
		}
		switch {
		case err == io.EOF:
			return n
		case err != nil && d.gzip && errors.Is(err, io.ErrUnexpectedEOF):
			return n
		case err != nil:
			return -1
		case k == 0:
			if idle++; idle >= 100 {
				return -1 // io.ErrNoProgress
			}
		default:
			idle = 0
		}
	}
}
