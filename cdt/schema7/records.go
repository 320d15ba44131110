package schema7

import (
	"iter"

	"github.com/tracecodec/tracecodec/cdt"
)

// Records iterates over the typed rows of r with from ≤ tick_index ≤ to, in
// footer order, decoding each TICK chunk's rows in one pass (no separate row
// split). The yielded record is reused: it is valid until the next step, and
// decoding allocates nothing per row after warm-up. Use cdt.WithConcurrency
// on the reader to decompress chunks ahead in parallel.
func Records(r *cdt.Reader, from, to int64) iter.Seq2[*TickRecord, error] {
	return func(yield func(*TickRecord, error) bool) {
		var rec TickRecord
		for blk, err := range r.RawBlocks(from, to) {
			if err != nil {
				yield(nil, err)
				return
			}
			b := blk.Ticks
			for range blk.Rows {
				rec.reset()
				rest, err := rec.UnmarshalMsg(b)
				if err != nil {
					yield(nil, &DecodeError{What: "TickRecord", Err: err})
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
				yield(nil, &DecodeError{What: "TickBlock", Err: errTrailing})
				return
			}
		}
	}
}
