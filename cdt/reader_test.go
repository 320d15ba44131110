package cdt

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

func streamTicks(t *testing.T, data []byte) ([]int64, *Reader) {
	t.Helper()
	s, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ticks []int64
	for s.Next() {
		ticks = append(ticks, s.Row().Tick)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return ticks, s
}

func TestStreamReader(t *testing.T) {
	for _, name := range traceVectors {
		t.Run(name, func(t *testing.T) {
			data := vectortest.Read(t, "cdt", name)
			r := openBytes(t, data)
			ticks, s := streamTicks(t, data)
			if s.Recovered() || s.Footer() == nil || int64(len(ticks)) != r.Footer().TickCount {
				t.Fatalf("recovered=%v footer=%v ticks=%d", s.Recovered(), s.Footer(), len(ticks))
			}
			// Without the trailer and footer: the rows of every complete TICK chunk.
			fo := r.FooterOffset()
			ticks, s = streamTicks(t, data[:fo])
			if !s.Recovered() || int64(len(ticks)) != r.Footer().TickCount {
				t.Fatalf("cut at footer: recovered=%v ticks=%d", s.Recovered(), len(ticks))
			}
			// Cut inside the last TICK chunk: only the earlier chunks.
			last := r.Footer().Blocks[len(r.Footer().Blocks)-1]
			ticks, s = streamTicks(t, data[:last.FileOffset+40])
			want := int64(0)
			for i := range len(r.Footer().Blocks) - 1 {
				rows, err := r.Block(i)
				if err != nil {
					t.Fatal(err)
				}
				want += int64(len(rows))
			}
			if !s.Recovered() || int64(len(ticks)) != want {
				t.Fatalf("cut in last chunk: recovered=%v ticks=%d want %d", s.Recovered(), len(ticks), want)
			}
		})
	}
}

func TestStreamReaderErrors(t *testing.T) {
	data := vectortest.Read(t, "cdt", "errors", "bad_magic.cdt")
	if _, err := NewReader(bytes.NewReader(data)); !errors.Is(err, ErrBadMagic) {
		t.Fatalf("bad magic: %v", err)
	}
	data = vectortest.Read(t, "cdt", "errors", "tick_chunk_payload_bitflip.cdt")
	s, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for s.Next() {
	}
	if !errors.Is(s.Err(), ErrCorrupt) {
		t.Fatalf("bit flip: %v", s.Err())
	}
}
