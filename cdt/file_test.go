package cdt

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

var traceVectors = []string{
	"v7_tiny_3ticks_chunk2.cdt",
	"v7_tiny_3ticks_chunk2_uncompressed_flags2.cdt",
	"v7_small_300ticks.cdt",
	"v7_diverge_A.cdt",
	"v7_diverge_B.cdt",
}

func openBytes(t testing.TB, data []byte, opts ...ReaderOption) *File {
	t.Helper()
	r, err := Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// layout is the part of a *.layout.json file the container checks.
type layout struct {
	Size    int64 `json:"size"`
	Trailer struct {
		Offset       int64 `json:"offset"`
		FooterOffset int64 `json:"footer_offset"`
	} `json:"trailer"`
	Chunks []struct {
		Offset          int64  `json:"offset"`
		Kind            string `json:"kind"`
		StartTick       int32  `json:"start_tick"`
		EndTick         int32  `json:"end_tick"`
		Flags           uint32 `json:"flags"`
		CompressedLen   uint32 `json:"compressed_len"`
		UncompressedLen uint32 `json:"uncompressed_len"`
		Checksum        uint64 `json:"checksum64"`
		PayloadHex      string `json:"msgpack_payload_hex"`
	} `json:"chunks"`
}

func TestVectorsOpen(t *testing.T) {
	for _, name := range traceVectors {
		t.Run(name, func(t *testing.T) {
			data := vectortest.Read(t, "cdt", name)
			r := openBytes(t, data)
			var decoded struct {
				Ticks []struct {
					TickIndex int64 `json:"tick_index"`
				} `json:"ticks"`
			}
			if err := json.Unmarshal(vectortest.Read(t, "cdt", strings.TrimSuffix(name, ".cdt")+".decoded.json"), &decoded); err != nil {
				t.Fatal(err)
			}
			var got []int64
			for row, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, row.Tick)
			}
			if len(got) != len(decoded.Ticks) {
				t.Fatalf("rows %d, want %d", len(got), len(decoded.Ticks))
			}
			for i := range got {
				if got[i] != decoded.Ticks[i].TickIndex {
					t.Fatalf("row %d tick %d, want %d", i, got[i], decoded.Ticks[i].TickIndex)
				}
			}
			if r.Meta().SchemaVersion != 7 || r.Footer().TickCount != int64(len(got)) {
				t.Fatalf("meta %+v footer %+v", r.Meta(), r.Footer())
			}
			// Random access returns the same rows.
			for _, want := range []int64{got[0], got[len(got)/2], got[len(got)-1]} {
				row, ok, err := r.Tick(want)
				if err != nil || !ok || row.Tick != want {
					t.Fatalf("Tick(%d) = %v %v %v", want, row.Tick, ok, err)
				}
			}
			if _, ok, err := r.Tick(1 << 40); ok || err != nil {
				t.Fatalf("Tick(out of range) = %v %v", ok, err)
			}
		})
	}
}

func TestVectorsLayout(t *testing.T) {
	for _, name := range []string{"v7_tiny_3ticks_chunk2", "v7_tiny_3ticks_chunk2_uncompressed_flags2"} {
		t.Run(name, func(t *testing.T) {
			data := vectortest.Read(t, "cdt", name+".cdt")
			var lay layout
			if err := json.Unmarshal(vectortest.Read(t, "cdt", name+".layout.json"), &lay); err != nil {
				t.Fatal(err)
			}
			r := openBytes(t, data)
			if r.FooterOffset() != lay.Trailer.FooterOffset || r.Size() != lay.Size {
				t.Fatalf("footer offset %d size %d, want %d %d", r.FooterOffset(), r.Size(), lay.Trailer.FooterOffset, lay.Size)
			}
			chunks, err := ScanChunks(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(chunks) != len(lay.Chunks) {
				t.Fatalf("%d chunks, want %d", len(chunks), len(lay.Chunks))
			}
			for i, c := range chunks {
				want := lay.Chunks[i]
				h := c.Header
				if c.Offset != want.Offset || string(h.Kind[:]) != want.Kind || h.StartTick != want.StartTick ||
					h.EndTick != want.EndTick || h.Flags != want.Flags || h.CompressedLen != want.CompressedLen ||
					h.UncompressedLen != want.UncompressedLen || h.Checksum != want.Checksum {
					t.Errorf("chunk %d = %+v at %d, want %+v", i, h, c.Offset, want)
				}
			}
		})
	}
}

func TestErrorVectors(t *testing.T) {
	cases := map[string]error{
		"bad_magic.cdt":                  ErrBadMagic,
		"format_version_2.cdt":           ErrUnsupportedVersion,
		"header_only.cdt":                ErrSize,
		"bad_trailer_magic.cdt":          ErrTrailer,
		"meta_checksum_flipped.cdt":      ErrChecksum,
		"meta_flags_no_msgpack.cdt":      ErrFlags,
		"tick_chunk_payload_bitflip.cdt": ErrCorrupt,
		"schema_version_99.cdt":          ErrSchemaVersion,
	}
	var expected map[string]string
	if err := json.Unmarshal(vectortest.Read(t, "cdt", "errors", "expected_errors.json"), &expected); err != nil {
		t.Fatal(err)
	}
	if len(expected) != len(cases)+1 {
		t.Fatalf("expected_errors.json has %d entries, test knows %d", len(expected), len(cases)+1)
	}
	for name, sentinel := range cases {
		t.Run(name, func(t *testing.T) {
			if _, ok := expected[name]; !ok {
				t.Fatalf("%s not in expected_errors.json", name)
			}
			data := vectortest.Read(t, "cdt", "errors", name)
			r, err := Open(bytes.NewReader(data), int64(len(data)))
			if err == nil {
				err = r.Validate()
				r.Close()
			}
			if !errors.Is(err, sentinel) {
				t.Fatalf("error %v, want %v (reference: %s)", err, sentinel, expected[name])
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FormatError", err)
			}
			t.Logf("%s: %v", filepath.Base(name), err)
		})
	}
}
