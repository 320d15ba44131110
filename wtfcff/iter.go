package wtfcff

import "iter"

// Events iterates over every event record of src (a Reader, JSONReader,
// LegacyReader or File), chunk after chunk, with a new Decoder built with
// opts (definitions and zones carried across chunks). The *Event is a view
// valid until the next iteration. Iteration stops after the first error,
// which is yielded with a nil event.
//
//	for e, err := range wtfcff.Events(src) {
//		if err != nil { … }
//		fmt.Println(e.Time, e.Name())
//	}
func Events(src ChunkSeq, opts ...ReaderOption) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		dec := NewDecoder(opts...)
		for c, err := range src.All() {
			if err != nil {
				yield(nil, err)
				return
			}
			if !dec.SetChunk(c) {
				continue
			}
			for dec.Next() {
				if !yield(dec.Event(), nil) {
					return
				}
			}
			if err := dec.Err(); err != nil {
				yield(nil, err)
				return
			}
		}
	}
}
