package schema7

import (
	"fmt"
	"iter"
	"math"

	"github.com/tracecodec/tracecodec/cdt"
)

// rowError places a decoding error at the file offset of the TICK chunk of
// footer entry block: a *cdt.FormatError (format "schema7") whose Err is the
// DecodeError, so errors.Is finds cdt.ErrCorrupt and the cause, and
// errors.As finds both the FormatError and the DecodeError.
func rowError(f *cdt.File, block int, where string, de *DecodeError) error {
	return &cdt.FormatError{Format: "schema7", Offset: f.Footer().Blocks[block].FileOffset, Err: de,
		Msg: fmt.Sprintf("TICK chunk, %s: decoding %s: %v", where, de.What, de.Err)}
}

// AllRecords iterates over every typed row of f in footer order, as Records
// does (the same reuse and error rules).
func AllRecords(f *cdt.File) iter.Seq2[*TickRecord, error] {
	return Records(f, math.MinInt64, math.MaxInt64)
}

// Records iterates over the typed rows of f with from ≤ tick_index ≤ to (both
// inclusive, as cdt.File.Range), in footer order, decoding each TICK chunk's
// rows in one pass (no separate row split). The yielded record is reused: it
// is valid until the next step, and decoding allocates nothing per row after
// warm-up. On failure a last (nil, err) pair is yielded. Use
// cdt.WithConcurrency on the file to decompress chunks ahead in parallel. A
// row that does not decode is a *cdt.FormatError at the offset of its chunk,
// wrapping a *DecodeError.
func Records(f *cdt.File, from, to int64) iter.Seq2[*TickRecord, error] {
	return func(yield func(*TickRecord, error) bool) {
		var rec TickRecord
		for blk, err := range f.RawBlocks(from, to) {
			if err != nil {
				yield(nil, err)
				return
			}
			b := blk.Ticks
			for i := range blk.Rows {
				rec.reset()
				rest, err := rec.UnmarshalMsg(b)
				if err != nil {
					yield(nil, rowError(f, blk.Index, fmt.Sprintf("row %d", i), &DecodeError{What: "TickRecord", Err: err}))
					return
				}
				b = rest
				if t := int64(rec.TickIndex); t < from || t > to {
					continue
				}
				if !yield(&rec, nil) {
					return
				}
			}
			if len(b) != 0 {
				yield(nil, rowError(f, blk.Index, "after the last row", &DecodeError{What: "TickBlock", Err: errTrailing}))
				return
			}
		}
	}
}
