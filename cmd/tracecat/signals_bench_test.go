package main

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// benchInput is what the read benchmarks scan: 4 MiB in 4 KiB ReadAt calls,
// the shape of a codec walking a file.
var benchInput = bytes.NewReader(make([]byte, 4<<20))

func scanReadAt(b *testing.B, r io.ReaderAt) {
	buf := make([]byte, 4<<10)
	b.SetBytes(int64(benchInput.Len()))
	b.ReportAllocs()
	for b.Loop() {
		for off := int64(0); off < int64(benchInput.Len()); off += int64(len(buf)) {
			if _, err := r.ReadAt(buf, off); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReadAtPlain and BenchmarkReadAtInterruptible measure what the
// interrupt check costs each read (compare with ../shared/bench/instr.sh).
func BenchmarkReadAtPlain(b *testing.B) { scanReadAt(b, benchInput) }

func BenchmarkReadAtInterruptible(b *testing.B) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	scanReadAt(b, ctxReaderAt{newStopCheck(ctx), benchInput})
}
