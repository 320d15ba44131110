package cdt

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// writeTicks writes ticks 0..n-1 with the given options and returns the file.
func writeTicks(t testing.TB, meta []byte, n int64, opts ...WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, meta, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.WriteRow(testRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func ticksOf(t testing.TB, seq func(func(Row, error) bool)) []int64 {
	t.Helper()
	var got []int64
	for row, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, row.Tick)
	}
	return got
}

func TestOpenBytesAndAll(t *testing.T) {
	data := writeTicks(t, testMeta, 10, WithChunkTicks(3))
	f, err := OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := ticksOf(t, f.All()); !reflect.DeepEqual(got, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatalf("File.All: %v", got)
	}
	// Range is inclusive at both ends.
	if got := ticksOf(t, f.Range(2, 7)); !reflect.DeepEqual(got, []int64{2, 3, 4, 5, 6, 7}) {
		t.Fatalf("File.Range(2, 7): %v", got)
	}
	// Iterator.All yields what Next does and closes the iterator; a loop
	// stopped early leaves the file usable.
	if got := ticksOf(t, f.Iter(4, 5).All()); !reflect.DeepEqual(got, []int64{4, 5}) {
		t.Fatalf("Iterator.All: %v", got)
	}
	for range f.Iter(0, 9).All() {
		break
	}
	// The stream Reader's All.
	s, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := ticksOf(t, s.All()); len(got) != 10 || s.Recovered() {
		t.Fatalf("Reader.All: %v recovered=%v", got, s.Recovered())
	}
}

func TestAllReportsErrorLast(t *testing.T) {
	data := writeTicks(t, testMeta, 10, WithChunkTicks(3), WithRawChunks())
	f, err := OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Corrupt the payload of the second TICK chunk: checksum mismatch.
	bad := bytes.Clone(data)
	bad[f.Footer().Blocks[1].FileOffset+ChunkHeaderSize+3] ^= 0xff
	g, err := OpenBytes(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var ticks []int64
	var last error
	for row, err := range g.All() {
		if err != nil {
			last = err
			continue
		}
		if last != nil {
			t.Fatal("a row after the error")
		}
		ticks = append(ticks, row.Tick)
	}
	if !errors.Is(last, ErrChecksum) || len(ticks) != 3 {
		t.Fatalf("ticks %v, last error %v", ticks, last)
	}
	s, _ := NewReader(bytes.NewReader(bad))
	last = nil
	for _, err := range s.All() {
		last = err
	}
	if !errors.Is(last, ErrChecksum) || !errors.Is(s.Err(), ErrChecksum) {
		t.Fatalf("stream: last %v, Err %v", last, s.Err())
	}
}

func TestCompressionLevels(t *testing.T) {
	sizes := map[CompressionLevel]int{}
	for _, l := range []CompressionLevel{CompressionFastest, CompressionDefault, CompressionBetter, CompressionBest, CompressionAuto} {
		data := writeTicks(t, testMeta, 600, WithCompressionLevel(l))
		f, err := OpenBytes(data)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if err := f.Validate(); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		f.Close()
		sizes[l] = len(data)
	}
	if sizes[CompressionBest] > sizes[CompressionFastest] {
		t.Errorf("best (%d bytes) is larger than fastest (%d)", sizes[CompressionBest], sizes[CompressionFastest])
	}
	if def := writeTicks(t, testMeta, 600); !bytes.Equal(def, writeTicks(t, testMeta, 600, WithCompressionLevel(CompressionAuto))) {
		t.Error("the default level is not CompressionAuto")
	}
	for _, l := range []CompressionLevel{0, CompressionAuto + 1, -3} {
		if _, err := NewWriter(&bytes.Buffer{}, testMeta, WithCompressionLevel(l)); err == nil ||
			!strings.HasPrefix(err.Error(), "cdt: WithCompressionLevel") {
			t.Errorf("level %d: %v", l, err)
		}
	}
	if CompressionBetter.String() != "better" || CompressionAuto.String() != "auto" || CompressionLevel(9).String() != "CompressionLevel(9)" {
		t.Error("String")
	}
}

// The footer's channel_counts default to the channels the META declares.
func TestFooterChannelsDefaultToMeta(t *testing.T) {
	meta := []byte("\x83\xb4trace_format_version\x01\xb4trace_schema_version\x07\xa8channels\x92\xa1b\xa1a")
	f, err := OpenBytes(writeTicks(t, meta, 4))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Footer().ChannelCounts; !reflect.DeepEqual(got, []ChannelCount{{"a", 4}, {"b", 4}}) {
		t.Fatalf("channel_counts %v", got)
	}
	g, err := OpenBytes(writeTicks(t, meta, 4, WithFooterChannels("z")))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Footer().ChannelCounts; !reflect.DeepEqual(got, []ChannelCount{{"z", 4}}) {
		t.Fatalf("channel_counts %v", got)
	}
}

func TestSentinelTextsArePrefixed(t *testing.T) {
	for _, e := range []error{ErrSize, ErrBadMagic, ErrUnsupportedVersion, ErrTrailer, ErrChunkKind, ErrFlags,
		ErrSizeMismatch, ErrChecksum, ErrSchemaVersion, ErrFooter, ErrTruncated, ErrCorrupt, ErrLimit,
		ErrTickOrder, ErrNoTicks, ErrClosed} {
		if !strings.HasPrefix(e.Error(), "cdt: ") {
			t.Errorf("%q lacks the cdt: prefix", e)
		}
	}
}

func TestReaderUseAfterClose(t *testing.T) {
	data := writeTicks(t, testMeta, 5)
	s, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Next() {
		t.Fatal(s.Err())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Next() || !errors.Is(s.Err(), ErrClosed) || s.Close() != nil {
		t.Fatalf("after Close: Err %v", s.Err())
	}
	f, err := OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := f.Block(0); !errors.Is(err, ErrClosed) {
		t.Fatalf("File after Close: %v", err)
	}
	if f.Close() != nil {
		t.Fatal("second Close")
	}
}
