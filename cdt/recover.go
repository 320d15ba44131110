package cdt

import (
	"errors"
	"fmt"
	"strings"
)

// Recovery reports how a trace without a usable footer was read: by Open with
// WithRecovery (File.Recovery) or by the stream Reader (Reader.Recovery).
// Bytes and ticks are counted from the file itself; rows a killed writer still
// held in memory never reached the file and cannot be counted.
type Recovery struct {
	// Reason is why the footer index could not be used: the error Open
	// returns without WithRecovery (for the stream Reader: the end of the
	// input before a complete FOTR chunk and trailer).
	Reason error
	// Chunks and Ticks count the complete, intact TICK chunks recovered and
	// their rows; FirstTick and LastTick are the first chunk's start_tick and
	// the last chunk's end_tick (both 0 when nothing was recovered).
	Chunks    int
	Ticks     int64
	FirstTick int64
	LastTick  int64
	// ReadBytes is the length of the prefix that was read and checked: the
	// header, META and the recovered chunks. LostBytes = Size - ReadBytes are
	// the bytes not recovered: a torn or corrupt chunk and what follows it
	// (for a file whose trailer alone was damaged, the FOTR chunk and trailer).
	Size      int64
	ReadBytes int64
	LostBytes int64
	// LostTicks is the tick count of the chunk where the scan stopped, from
	// its header's start/end tick (LostFrom..LostTo): 0 when the scan ended
	// at the end of the input or at the FOTR chunk, -1 when unknown (the
	// chunk header itself is incomplete or its tick range is not valid).
	LostTicks int64
	LostFrom  int64
	LostTo    int64
	// Stop is what ended the scan: nil at the end of the input or at a FOTR
	// chunk; an error wrapping ErrTruncated for a chunk cut short; any other
	// sentinel for a complete chunk that fails its checks.
	Stop error
}

// String summarises the report in one line.
func (r *Recovery) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "recovered %d ticks", r.Ticks)
	if r.Ticks > 0 {
		fmt.Fprintf(&b, " (%d..%d)", r.FirstTick, r.LastTick)
	}
	fmt.Fprintf(&b, " in %d complete chunks, bytes 0..%d of %d", r.Chunks, r.ReadBytes, r.Size)
	if r.LostBytes > 0 {
		fmt.Fprintf(&b, "; lost %d bytes", r.LostBytes)
		switch {
		case r.LostTicks > 0:
			fmt.Fprintf(&b, " and %d ticks (%d..%d)", r.LostTicks, r.LostFrom, r.LostTo)
		case r.LostTicks < 0:
			b.WriteString(" and an unknown number of ticks")
		}
		if r.Stop != nil {
			fmt.Fprintf(&b, " (%v)", r.Stop)
		}
	}
	if r.Reason != nil {
		fmt.Fprintf(&b, "; footer unusable: %v", r.Reason)
	}
	return b.String()
}

// Recovery returns the recovery report when Open rebuilt the block index
// (WithRecovery), or nil for a trace read through its own footer.
func (rd *File) Recovery() *Recovery { return rd.recovery }

// recoverIndex rebuilds the footer from a forward scan of the chunks after
// META; reason is why the real footer could not be used. Nothing recovered is
// an error: reason itself.
func (rd *File) recoverIndex(reason error) error {
	rep := &Recovery{Reason: reason, Size: rd.size, LostFrom: -1, LostTo: -1}
	off := int64(HeaderSize) + ChunkHeaderSize + int64(rd.metaHeader.CompressedLen)
	var blocks []BlockIndexEntry
	var budget ratioBudget
	buf := rd.getBuffer()
	defer rd.putBuffer(buf)
	for {
		if off >= rd.size {
			break
		}
		if off > rd.size-ChunkHeaderSize {
			rep.Stop = newErr(off, ErrTruncated, "truncated chunk header: %d of %d bytes", rd.size-off, ChunkHeaderSize)
			rep.LostTicks = -1
			break
		}
		var hb [ChunkHeaderSize]byte
		if err := rd.readAt(hb[:], off); err != nil {
			rep.Stop, rep.LostTicks = err, -1
			break
		}
		h := ParseChunkHeader(&hb)
		if h.Kind == KindFooter {
			break
		}
		if int64(len(blocks)) >= rd.opts.limits.MaxBlocks {
			rep.Stop = newErr(off, ErrLimit, "more than %d TICK chunks", rd.opts.limits.MaxBlocks)
			break
		}
		if err := budget.charge(off, &h, rd.opts.limits); err != nil {
			return err // a limit, not damage: nothing to report as recovered
		}
		b, err := rd.decodeBlock(off, buf, true)
		if err != nil {
			rep.Stop = err
			if h.Kind == KindTick && h.StartTick >= 0 && h.StartTick <= h.EndTick {
				rep.LostTicks = int64(h.EndTick) - int64(h.StartTick) + 1
				rep.LostFrom, rep.LostTo = int64(h.StartTick), int64(h.EndTick)
			} else {
				rep.LostTicks = -1
			}
			break
		}
		blocks = append(blocks, BlockIndexEntry{
			StartTick: b.start, EndTick: b.end, FileOffset: off,
			CompressedLen: int64(h.CompressedLen), UncompressedLen: int64(h.UncompressedLen), Checksum: h.Checksum,
		})
		rep.Ticks += int64(b.nrows)
		off += ChunkHeaderSize + int64(h.CompressedLen)
	}
	rep.ReadBytes = min(off, rd.size)
	rep.LostBytes = rd.size - rep.ReadBytes
	rep.Chunks = len(blocks)
	if len(blocks) == 0 {
		if rep.Stop != nil && !errors.Is(rep.Stop, ErrTruncated) {
			return rep.Stop
		}
		// Say that recovery was tried and found nothing.
		var fe *FormatError
		if errors.As(reason, &fe) {
			e := *fe
			if e.Msg == "" {
				e.Msg = strings.TrimPrefix(e.Err.Error(), formatName+": ")
			}
			e.Msg += "; no complete TICK chunk after META to recover"
			return &e
		}
		return reason
	}
	rep.FirstTick, rep.LastTick = blocks[0].StartTick, blocks[len(blocks)-1].EndTick
	rd.footer = Footer{FormatVersion: FormatVersion, Blocks: blocks, TickCount: rep.Ticks,
		FirstTick: rep.FirstTick, LastTick: rep.LastTick}
	rd.footerOffset, rd.footerHeader = -1, ChunkHeader{}
	rd.recovery = rep
	return nil
}

// Recovery returns, once Next has returned false without error on an input
// that ended before a complete footer and trailer (Recovered), the report of
// what was read and lost; nil otherwise.
func (s *Reader) Recovery() *Recovery {
	if !s.recovered {
		return nil
	}
	return s.recovery
}

// stopAt records the end of the input at offset off, where a chunk (or the
// trailer) starting there was cut short; h is its header when complete.
func (s *Reader) stopAt(off int64, h *ChunkHeader, trailer bool) {
	s.recovered, s.done = true, true
	rep := &Recovery{Chunks: s.blocks, Ticks: s.ticks, FirstTick: s.first, LastTick: s.last,
		Size: s.off, ReadBytes: off, LostBytes: s.off - off, LostFrom: -1, LostTo: -1}
	rep.Reason = newErr(off, ErrTruncated, "the input ends at byte %d, before a complete FOTR chunk and trailer", s.off)
	switch {
	case rep.LostBytes == 0 || trailer:
	case h != nil && h.Kind == KindTick && h.StartTick >= 0 && h.StartTick <= h.EndTick:
		rep.LostTicks = int64(h.EndTick) - int64(h.StartTick) + 1
		rep.LostFrom, rep.LostTo = int64(h.StartTick), int64(h.EndTick)
	case h != nil && h.Kind == KindFooter:
	default:
		rep.LostTicks = -1
	}
	if rep.LostBytes > 0 {
		what := "chunk"
		if trailer {
			what = "trailer"
		}
		rep.Stop = newErr(off, ErrTruncated, "truncated %s: %d bytes present", what, rep.LostBytes)
	}
	s.recovery = rep
}
