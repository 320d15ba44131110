package schema7

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/internal/checksum"
)

// TestCompressionAutoChoices rewrites every TICK chunk of a CompressionAuto
// file at both of its levels with encoders set as the writer's and checks
// what was stored: at each probe (chunks 0, 64, 128…) the smaller output
// (the level in use on a tie), after it the level the probe chose (the
// default level when at most 98 % of the fastest's bytes). The benchmark
// trace in 256-row chunks stays at the fastest level; in 2-row chunks the
// default level wins and is re-checked every 64 chunks (1 500 chunks). The
// bytes do not depend on goroutines or on batching (WithChunkBatch).
func TestCompressionAutoChoices(t *testing.T) {
	meta, recs, _ := benchRecords(t)
	enc := func(l zstd.EncoderLevel, raw bool) *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithNoEntropyCompression(raw),
			zstd.WithEncoderCRC(false), zstd.WithSingleSegment(true), zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	fast, fastRaw := enc(zstd.SpeedFastest, false), enc(zstd.SpeedFastest, true)
	def, defRaw := enc(zstd.SpeedDefault, false), enc(zstd.SpeedDefault, true)
	const rawFrom = 64 << 10 // the writer's rawLiteralsMin
	for _, c := range []struct {
		name      string
		chunk     int
		wantAlt   bool // some chunks at the default level
		wantProbe int
	}{
		{"256-row chunks", 256, false, 1},
		{"2-row chunks", 2, true, 24},
	} {
		var seq []byte
		// one goroutine, chunks batched (as without AVX-512 too) or not;
		// three goroutines
		for i, o := range []cdt.WriterOption{cdt.WithChunkBatch(8), cdt.WithChunkBatch(1), cdt.WithWriterConcurrency(3)} {
			lanes := checksum.Lanes
			checksum.Lanes = checksum.MaxLanes
			var buf bytes.Buffer
			writeTyped(t, &buf, meta, recs, cdt.WithChunkTicks(c.chunk), o)
			checksum.Lanes = lanes
			if seq == nil {
				seq = bytes.Clone(buf.Bytes())
			} else if !bytes.Equal(seq, buf.Bytes()) {
				t.Fatalf("%s: writer %d wrote other bytes than the batching one", c.name, i)
			}
		}
		f, err := cdt.OpenBytes(seq)
		if err != nil {
			t.Fatal(err)
		}
		infos, err := cdt.ScanChunks(seq)
		if err != nil {
			t.Fatal(err)
		}
		useAlt, n, alts, probes := false, 0, 0, 0
		for _, ci := range infos {
			if ci.Header.Kind != cdt.KindTick {
				continue
			}
			_, payload, err := f.ReadChunk(ci.Offset)
			if err != nil {
				t.Fatal(err)
			}
			stored := seq[ci.Offset+cdt.ChunkHeaderSize : ci.Offset+cdt.ChunkHeaderSize+int64(ci.Header.CompressedLen)]
			fe, de := fast, def
			if len(payload) >= rawFrom {
				fe, de = fastRaw, defRaw
			}
			fb, db := fe.EncodeAll(payload, nil), de.EncodeAll(payload, nil)
			want := fb
			if useAlt {
				want = db
			}
			if n%64 == 0 {
				probes++
				if useAlt && len(fb) < len(db) {
					want = fb
				} else if !useAlt && len(db) < len(fb) {
					want = db
				}
				useAlt = len(db)*1000 <= len(fb)*980
			}
			if !bytes.Equal(stored, want) {
				t.Fatalf("%s: chunk %d (%d bytes stored; fastest %d, default %d, probe %v, default chosen %v) is not the expected output",
					c.name, n, len(stored), len(fb), len(db), n%64 == 0, useAlt)
			}
			if bytes.Equal(stored, db) && !bytes.Equal(db, fb) {
				alts++
			}
			n++
		}
		f.Close()
		if (alts > 0) != c.wantAlt || probes != c.wantProbe {
			t.Errorf("%s: %d of %d chunks at the default level, %d probes; want default level used %v, %d probes", c.name, alts, n, probes, c.wantAlt, c.wantProbe)
		}
	}
}
