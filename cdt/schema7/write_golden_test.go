package schema7

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/tracecodec/tracecodec/cdt"
)

// TestWriterBytesUnchanged pins every byte the writer produces for the
// benchmark trace (the 300 rows of v7_small_300ticks.cdt written 10 times,
// 3000 ticks in 12 chunks) and for its first 40 rows in 2-row chunks, under
// the option sets that change the output, against the SHA-256 of the
// output of the writer as it was before the checksum and write path were
// reworked for speed (commit 46513c2). A change to the hashing, the chunking,
// the msgpack encoding or the zstd settings fails here. The default level
// became CompressionAuto later: its outputs are pinned as written then
// (for the benchmark trace it chooses CompressionFastest, the same bytes;
// the 2-row chunks' first probe keeps CompressionDefault's smaller output
// and goes on at CompressionDefault), with and without goroutines.
func TestWriterBytesUnchanged(t *testing.T) {
	meta, recs, _ := benchRecords(t)
	cases := []struct {
		name string
		recs []TickRecord
		opts []cdt.WriterOption
		want string
	}{
		{"default", recs, nil, "acb4196ff6a8f510c8db06e5313d5a3650e935a64f18788255b35c4aabbf66a7"},
		{"level-fastest", recs, []cdt.WriterOption{cdt.WithCompressionLevel(cdt.CompressionFastest)}, "acb4196ff6a8f510c8db06e5313d5a3650e935a64f18788255b35c4aabbf66a7"},
		{"raw", recs, []cdt.WriterOption{cdt.WithRawChunks()}, "557a32358d9d50995db125de87c261e5757a3e86b6bbaf6d3a5fcb27f85fe7da"},
		{"level-default", recs, []cdt.WriterOption{cdt.WithCompressionLevel(cdt.CompressionDefault)}, "a71573a8abbb2223d05b3551193dd38b3f149f02310789412417061579902d4e"},
		{"parallel2", recs, []cdt.WriterOption{cdt.WithWriterConcurrency(2)}, "acb4196ff6a8f510c8db06e5313d5a3650e935a64f18788255b35c4aabbf66a7"},
		// One 7.5 MB chunk and 1.25 MB chunks: past the 1 MiB window of the
		// encoders for smaller payloads (pinned as written before the
		// windows were split).
		{"chunk3000", recs, []cdt.WriterOption{cdt.WithChunkTicks(3000)}, "ca23d5a8f3672e11e4cbec3b96c0bcfc0eb54dd5ece5bf694ea429a48c6f4228"},
		{"chunk3000-default", recs, []cdt.WriterOption{cdt.WithChunkTicks(3000), cdt.WithCompressionLevel(cdt.CompressionDefault)}, "8db175e41e6f5172c0efa4cd9d729e720c7ae3bc69a92fb651b2947e61733371"},
		{"chunk500", recs, []cdt.WriterOption{cdt.WithChunkTicks(500)}, "15044cb2fd59921cbbea04b3f3a91ce588e095ed57f2fb1fd014b6aaea972a6b"},
		{"chunk2-fastest", recs[:40], []cdt.WriterOption{cdt.WithChunkTicks(2), cdt.WithCompressionLevel(cdt.CompressionFastest)}, "d8a1a89ba59eba15b0be54fa10bae29ce9cecef6d77a0d00ced89982e521c0bf"},
		{"chunk2", recs[:40], []cdt.WriterOption{cdt.WithChunkTicks(2)}, "82fbc1833e9824af48d032538ce462b8c9c1f792da8b30ab3e8293fac6780510"},
		{"chunk2-parallel3", recs[:40], []cdt.WriterOption{cdt.WithChunkTicks(2), cdt.WithWriterConcurrency(3)}, "82fbc1833e9824af48d032538ce462b8c9c1f792da8b30ab3e8293fac6780510"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		writeTyped(t, &buf, meta, c.recs, c.opts...)
		sum := sha256.Sum256(buf.Bytes())
		if got := hex.EncodeToString(sum[:]); got != c.want {
			t.Errorf("%s: %d bytes with SHA-256 %s, want %s", c.name, buf.Len(), got, c.want)
		}
	}
}
