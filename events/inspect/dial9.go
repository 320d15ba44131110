package inspect

// dial9: validate and the stats keys of a dial9 stream, read frame by frame
// (plain or gzip) through a bounded buffer.

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/traceerr"
)

// dial9Counts is what one pass over a dial9 stream counts.
type dial9Counts struct {
	events, frames int
	byType         map[string]int
	first, last    uint64
	hasTS          bool
	streams        int
	resets         int
	bytes          int64
	rec            *dial9.Recovery // the stream was cut or corrupted (read WithRecovery)
}

// dial9Scan reads the stream of in. Version bytes other than 1 are
// accepted, as the upstream readers do; a stream cut or corrupted mid-frame
// is read up to the bad frame (dial9.WithRecovery), and rec says what was
// lost.
func dial9Scan(in *Input) (*dial9Counts, error) {
	rc, err := in.open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d, err := dial9.NewReader(rc, dial9.WithAnyVersion(), dial9.WithRecovery())
	if err != nil {
		return nil, err
	}
	c := &dial9Counts{byType: map[string]int{}}
	var last int64
	for d.NextFrame() {
		c.frames++
		if off := d.Offset(); off-last >= 1<<20 && in.Progress != nil {
			in.Progress(off)
			last = off
		}
		switch d.Kind() {
		case dial9.FrameSchema:
			if _, ok := c.byType[d.Schema().Name]; !ok {
				c.byType[d.Schema().Name] = 0
			}
		case dial9.FrameEvent:
			ev := d.Event()
			c.events++
			c.byType[ev.Name()]++
			if ev.HasTimestamp() {
				ts := ev.Timestamp()
				if !c.hasTS || ts < c.first {
					c.first = ts
				}
				if !c.hasTS || ts > c.last {
					c.last = ts
				}
				c.hasTS = true
			}
		}
	}
	c.streams, c.resets, c.bytes = d.Headers(), d.Resets(), d.Offset()
	c.rec = d.Recovery()
	return c, d.Err()
}

// dial9Lost adds to a decoding error what was read before it and what is
// lost: a dial9 stream has no index to resynchronise on, so everything from
// the failing frame to the end of the stream is lost. The result is still a
// *dial9.FormatError wrapping the same sentinel at the same offset.
func dial9Lost(c *dial9Counts, err error) error {
	var fe *dial9.FormatError
	if c == nil || !errors.As(err, &fe) {
		return err
	}
	e := *fe
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "dial9: ")
	}
	e.Msg = fmt.Sprintf("%s (read before it: %d events in %d frames, %d bytes of stream; lost: everything from offset %d to the end)", msg, c.events, c.frames, fe.Offset, fe.Offset)
	return &e
}

// validateDial9 fails on a stream cut or corrupted mid-frame, as validate
// does on a torn WTF file or a CDT trace without footer; stats, dump and
// convert read the events before the damage (the recovery line says what
// was lost).
func validateDial9(in *Input) (string, *traceerr.Recovery, error) {
	c, err := dial9Scan(in)
	var rec *traceerr.Recovery
	if c != nil && c.rec != nil {
		rec = cleanRecovery(new(c.rec.Summary()))
	}
	if err != nil {
		return "", rec, dial9Lost(c, err)
	}
	if c.rec != nil {
		return "", rec, dial9Lost(c, c.rec.Reason)
	}
	return fmt.Sprintf("%d events, %d schemas, %d streams", c.events, len(c.byType), c.streams), nil, nil
}

// statsDial9 is the dial9 keys of stats. first_ns and last_ns are the first
// and last timestamps in stream order (the event layer's, set by
// FormatStats), min_ns and max_ns the extremes.
func statsDial9(in *Input) (StatList, error) {
	c, err := dial9Scan(in)
	if err != nil {
		return nil, dial9Lost(c, err)
	}
	var first, last any
	if c.hasTS {
		first, last = c.first, c.last
	}
	var perEvent any
	if c.events > 0 {
		perEvent = math.Round(float64(c.bytes)/float64(c.events)*100) / 100
	}
	return StatList{
		{"events", c.events},
		{"schemas", len(c.byType)},
		{"events_by_type", c.byType},
		{"first_ns", first},
		{"last_ns", last},
		{"frames", c.frames},
		{"streams", c.streams},
		{"timestamp_resets", c.resets},
		{"stream_bytes", c.bytes},
		{"bytes_per_event", perEvent},
	}, nil
}
