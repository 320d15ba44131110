package wtfcff

import "iter"

// Events iterates over every event record of src, chunk after chunk, with a
// new Decoder (definitions and zones carried across chunks). The *Event is a
// view valid until the next iteration. Iteration stops after the first error,
// which is yielded with a nil event.
//
//	for e, err := range wtfcff.Events(src) {
//		if err != nil { … }
//		fmt.Println(e.Time, e.Name())
//	}
func Events(src ChunkSource) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		dec := NewDecoder()
		for src.Next() {
			if !dec.SetChunk(src.Chunk()) {
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
		if err := src.Err(); err != nil {
			yield(nil, err)
		}
	}
}
