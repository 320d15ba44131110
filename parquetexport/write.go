package parquetexport

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/tracecodec/tracecodec/events"
)

// The common columns, in the order the package doc lists them.
const (
	colFormat    = "format"
	colSource    = "source"
	colTrackKind = "track_kind"
	colTrack     = "track"
	colTrackName = "track_name"
	colTs        = "ts_ns"
	colDur       = "dur_ns"
	colName      = "name"
	colKindName  = "kind"
	colJSON      = "args_json"
)

var commonCols = []string{colFormat, colSource, colTrackKind, colTrack, colTrackName, colTs, colDur, colName, colKindName, colJSON}

// Layout of the column chunks (see the package doc for why).
const (
	// pageRows is the most rows of a data page (a multiple of 64, so that
	// pages start at a word of the validity bitmaps).
	pageRows = 64 << 10
	// pageBytes ends a page of a BYTE_ARRAY column early, at the 64-row
	// boundary where its values pass this size.
	pageBytes = 1 << 20
	// maxDictEntries and maxDictBytes bound the dictionary of a typed
	// string column's chunk; beyond them the chunk is PLAIN-encoded.
	maxDictEntries = 1 << 16
	maxDictBytes   = 1 << 20
	// intEncoding encodes every INT64 column (ts_ns, dur_ns, track and the
	// integer arguments): DELTA_BINARY_PACKED halves the files against PLAIN
	// and costs less CPU, as zstd then has far less to compress.
	intEncoding = format.DeltaBinaryPacked
	// zstdLevel is the compression level of every page: level 3 saves
	// 0.2 % of the size for more CPU.
	zstdLevel = zstd.SpeedFastest
)

// colSpec is one leaf column of a file: a common column (common ≥ 0, an
// index into commonCols) or a typed argument column.
type colSpec struct {
	name   string
	common int
	kind   colKind
}

// physical returns the column's Parquet type, repetition and annotations.
func (s *colSpec) element() format.SchemaElement {
	el := format.SchemaElement{Name: s.name}
	rep := format.Optional
	kind := s.kind
	switch s.common {
	case 0, 1, 2, 4, 7, 8: // dictionary strings
		rep, kind = format.Required, colString
	case 3: // track: the formats' ids are unsigned
		rep, kind = format.Required, colUint
	case 5, 6:
		kind = colInt
	case 9:
		kind = colString
	}
	el.RepetitionType = thrift.New(rep)
	switch kind {
	case colInt:
		el.Type = thrift.New(format.Int64)
		el.ConvertedType = thrift.New(deprecated.Int64)
		el.LogicalType = format.LogicalType{Value: &format.IntType{BitWidth: 64, IsSigned: true}}
	case colUint:
		el.Type = thrift.New(format.Int64)
		el.ConvertedType = thrift.New(deprecated.Uint64)
		el.LogicalType = format.LogicalType{Value: &format.IntType{BitWidth: 64, IsSigned: false}}
	case colFloat:
		el.Type = thrift.New(format.Double)
	case colBool:
		el.Type = thrift.New(format.Boolean)
	case colString:
		el.Type = thrift.New(format.ByteArray)
		el.ConvertedType = thrift.New(deprecated.UTF8)
		el.LogicalType = format.LogicalType{Value: &format.StringType{}}
	default:
		el.Type = thrift.New(format.ByteArray)
	}
	return el
}

// encoder holds a worker's scratch buffers for encoding pages; it is reused
// by every file the worker writes.
type encoder struct {
	zw     *zstd.Encoder
	levels []byte
	vals   []byte
	comp   []byte
	tmp    []byte
	i64    []int64
	i32    []int32
	hdr    bytes.Buffer
	th     *thrift.Encoder
	bm     []uint64
	dict   map[string]int32
	dstrs  []string
	delta  delta.BinaryPackedEncoding
	rle    rle.Encoding
}

func newEncoder() *encoder {
	zw, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstdLevel), zstd.WithEncoderConcurrency(1),
		zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false))
	e := &encoder{zw: zw, dict: map[string]int32{}}
	e.th = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.hdr))
	return e
}

// fileWriter is one Parquet file of a sink: a fixed set of columns, one
// row group per batch.
type fileWriter struct {
	path   string
	f      *os.File
	bw     *bufio.Writer
	off    int64
	enc    *encoder
	kinds  map[string]colKind // typed argument columns
	specs  []colSpec
	schema []format.SchemaElement
	groups []format.RowGroup
	rows   int64
	err    error
}

// covers reports whether the file has every typed column of b (with the
// same type).
func (w *fileWriter) covers(b *batch) bool {
	for _, c := range b.cols {
		if k, ok := w.kinds[c.name]; !ok || k != c.kind {
			return false
		}
	}
	return true
}

var magic = []byte("PAR1")

// createFile creates a Parquet file with the common columns (without format
// under Hive partitioning, where the folder name holds it: Spark refuses a
// column that is also a partition column) and the typed columns kinds, in
// name order.
func createFile(path string, kinds map[string]colKind, hive bool, enc *encoder) (*fileWriter, error) {
	w := &fileWriter{path: path, enc: enc, kinds: kinds}
	for i, n := range commonCols {
		if hive && i == 0 {
			continue
		}
		w.specs = append(w.specs, colSpec{name: n, common: i})
	}
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w.specs = append(w.specs, colSpec{name: n, common: -1, kind: kinds[n]})
	}
	w.schema = append(w.schema, format.SchemaElement{Name: "event", NumChildren: thrift.New(int32(len(w.specs)))})
	for i := range w.specs {
		w.schema = append(w.schema, w.specs[i].element())
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, err
	}
	w.f = f
	w.bw = bufio.NewWriterSize(f, 1<<20)
	w.write(magic)
	return w, w.err
}

// write appends p to the file (errors are sticky).
func (w *fileWriter) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.bw.Write(p)
	w.off += int64(n)
	if err != nil {
		w.err = fmt.Errorf("parquetexport: %s: %w", w.path, err)
	}
}

// chunk is the metadata of the column chunk being written.
type chunk struct {
	meta      format.ColumnMetaData
	start     int64
	encodings [10]bool // indexed by format.Encoding
}

// writeBatch writes b as one row group.
func (w *fileWriter) writeBatch(b *batch) error {
	b.dropSkipped()
	if b.rows == 0 {
		return nil
	}
	rg := format.RowGroup{NumRows: int64(b.rows), FileOffset: w.off, Ordinal: int16(min(len(w.groups), math.MaxInt16))}
	for i := range w.specs {
		s := &w.specs[i]
		var ch chunk
		ch.start = w.off
		ch.meta.Type, _ = w.schema[i+1].Type.Get()
		ch.meta.PathInSchema = []string{s.name}
		ch.meta.Codec = format.Zstd
		ch.meta.NumValues = int64(b.rows)
		w.writeColumn(&ch, s, b)
		if w.err != nil {
			return w.err
		}
		for e, used := range ch.encodings {
			if used {
				ch.meta.Encoding = append(ch.meta.Encoding, format.Encoding(e))
			}
		}
		ch.meta.TotalCompressedSize = w.off - ch.start
		rg.TotalByteSize += ch.meta.TotalUncompressedSize
		rg.Columns = append(rg.Columns, format.ColumnChunk{FileOffset: ch.start, MetaData: ch.meta})
	}
	rg.TotalCompressedSize = w.off - rg.FileOffset
	w.groups = append(w.groups, rg)
	w.rows += int64(b.rows)
	return nil
}

// kindDict maps the kinds (or track kinds) used in col to dictionary ids
// in order of appearance; it returns the dictionary and the id of each
// kind.
func kindDict(col []uint8, names *[16][]byte) (dict [][]byte, ids [16]int32) {
	var seen [16]bool
	for _, k := range col {
		k &= 15
		if !seen[k] {
			seen[k] = true
			ids[k] = int32(len(dict))
			dict = append(dict, names[k])
		}
	}
	return dict, ids
}

func (w *fileWriter) writeColumn(ch *chunk, s *colSpec, b *batch) {
	e := w.enc
	switch s.common {
	case 0: // format: one value
		w.writeDictPage(ch, [][]byte{[]byte(b.format)}, nil)
		for lo := 0; lo < b.rows; lo += pageRows {
			hi := min(lo+pageRows, b.rows)
			e.vals = appendRun(append(e.vals[:0], 1), hi-lo, 0)
			w.writeDataPage(ch, hi-lo, 0, nil, e.vals, format.RLEDictionary)
		}
	case 1:
		w.writeDictColumn(ch, b.srcDict.strs, b.source, b.rows)
	case 2, 8:
		col, names := b.trackKind, &trackKindBytes
		if s.common == 8 {
			col, names = b.kind, &kindBytes
		}
		dict, ids := kindDict(col, names)
		w.writeDictPage(ch, dict, nil)
		for lo := 0; lo < b.rows; lo += pageRows {
			hi := min(lo+pageRows, b.rows)
			src := col[lo:hi]
			e.i32 = growTo(e.i32[:0], len(src))
			out := e.i32[:len(src)]
			for i, k := range src {
				out[i] = ids[k&15]
			}
			w.writeIndexes(ch, e.i32, hi-lo, 0, nil, len(dict))
		}
	case 3:
		w.writeInt64s(ch, b.trackID, nil, b.rows, true, intEncoding)
	case 4:
		w.writeDictColumn(ch, b.tnDict.strs, b.trackName, b.rows)
	case 5:
		w.writeInt64s(ch, b.ts, b.hasTs, b.rows, false, intEncoding)
	case 6:
		w.writeInt64s(ch, b.dur, b.hasDur, b.rows, false, intEncoding)
	case 7:
		w.writeDictColumn(ch, b.nameDict.strs, b.name, b.rows)
	case 9:
		w.writeByteArrays(ch, b, b.json, nil, b.rows)
	default:
		w.writeArgColumn(ch, s, b)
	}
}

func (w *fileWriter) writeArgColumn(ch *chunk, s *colSpec, b *batch) {
	c := b.byName[s.name]
	if c != nil && c.kind != s.kind {
		c = nil
	}
	if c == nil || c.n == 0 {
		// No value in this row group: all nulls.
		w.writeNulls(ch, b.rows)
		return
	}
	switch c.kind {
	case colInt, colUint:
		w.writeInt64s(ch, u64s(c.nums), c.bits, b.rows, c.kind == colUint, intEncoding)
	case colFloat:
		w.writeFloats(ch, c, b.rows)
	case colBool:
		w.writeBools(ch, c, b.rows)
	case colString:
		if !w.writeDictStrings(ch, c, b) {
			w.writeByteArrays(ch, b, c.strs, c.bits, b.rows)
		}
	default:
		w.writeByteArrays(ch, b, c.strs, c.bits, b.rows)
	}
}

// u64s views a []uint64 as []int64 (same size and layout).
func u64s(s []uint64) []int64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&s[0])), len(s))
}

// writeNulls writes a chunk of rows nulls.
func (w *fileWriter) writeNulls(ch *chunk, rows int) {
	e := w.enc
	for lo := 0; lo < rows; lo += pageRows {
		hi := min(lo+pageRows, rows)
		e.levels = appendRun(e.levels[:0], hi-lo, 0)
		w.writeDataPage(ch, hi-lo, hi-lo, e.levels, nil, format.Plain)
	}
	ch.meta.Statistics.NullCount = int64(rows)
}

// writeDictColumn writes a required dictionary-encoded string column: the
// dictionary strs and the ids of each row.
func (w *fileWriter) writeDictColumn(ch *chunk, strs []string, ids []uint32, rows int) {
	e := w.enc
	dict := e.tmpDict(strs)
	w.writeDictPage(ch, dict, nil)
	for lo := 0; lo < rows; lo += pageRows {
		hi := min(lo+pageRows, rows)
		// The ids as they are: a dictionary holds fewer than 2³¹ entries.
		w.writeIndexes(ch, i32s(ids[lo:hi]), hi-lo, 0, nil, len(strs))
	}
}

// i32s views a []uint32 as []int32 (same size and layout).
func i32s(s []uint32) []int32 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&s[0])), len(s))
}

// tmpDict views strs as byte slices (read only).
func (e *encoder) tmpDict(strs []string) [][]byte {
	out := make([][]byte, len(strs))
	for i, s := range strs {
		out[i] = unsafe.Slice(unsafe.StringData(s), len(s))
	}
	return out
}

// writeDictPage writes the dictionary page of a chunk and records the
// byte-wise min and max of its entries (every entry is used).
func (w *fileWriter) writeDictPage(ch *chunk, dict [][]byte, _ []byte) {
	e := w.enc
	e.vals = e.vals[:0]
	var lo, hi []byte
	for i, v := range dict {
		e.vals = binary.LittleEndian.AppendUint32(e.vals, uint32(len(v)))
		e.vals = append(e.vals, v...)
		if i == 0 || bytes.Compare(v, lo) < 0 {
			lo = v
		}
		if i == 0 || bytes.Compare(v, hi) > 0 {
			hi = v
		}
	}
	if len(dict) > 0 {
		ch.meta.Statistics.MinValue = append([]byte(nil), lo...)
		ch.meta.Statistics.MaxValue = append([]byte(nil), hi...)
	}
	e.comp = e.zw.EncodeAll(e.vals, e.comp[:0])
	h := format.PageHeader{
		Type:                 format.DictionaryPage,
		UncompressedPageSize: int32(len(e.vals)),
		CompressedPageSize:   int32(len(e.comp)),
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(len(dict)), Encoding: format.Plain}),
	}
	ch.meta.DictionaryPageOffset = w.off
	ch.encodings[format.Plain] = true
	w.writeHeader(ch, &h, len(e.vals))
	w.write(e.comp)
}

func (w *fileWriter) writeHeader(ch *chunk, h *format.PageHeader, uncompressed int) {
	e := w.enc
	e.hdr.Reset()
	if err := e.th.Encode(h); err != nil && w.err == nil {
		w.err = fmt.Errorf("parquetexport: %s: page header: %w", w.path, err)
	}
	ch.meta.TotalUncompressedSize += int64(e.hdr.Len() + uncompressed)
	w.write(e.hdr.Bytes())
}

// writeDataPage writes a V2 data page of rows rows, nulls of them null,
// with the definition levels (nil for a required column) and the encoded
// values (compressed here).
func (w *fileWriter) writeDataPage(ch *chunk, rows, nulls int, levels, vals []byte, enc format.Encoding) {
	e := w.enc
	e.comp = e.zw.EncodeAll(vals, e.comp[:0])
	h := format.PageHeader{
		Type:                 format.DataPageV2,
		UncompressedPageSize: int32(len(levels) + len(vals)),
		CompressedPageSize:   int32(len(levels) + len(e.comp)),
		DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{
			NumValues:                  int32(rows),
			NumNulls:                   int32(nulls),
			NumRows:                    int32(rows),
			Encoding:                   enc,
			DefinitionLevelsByteLength: int32(len(levels)),
			IsCompressed:               thrift.New(true),
			Statistics:                 format.Statistics{NullCount: int64(nulls)},
		}),
	}
	if ch.meta.DataPageOffset == 0 {
		ch.meta.DataPageOffset = w.off
	}
	ch.encodings[enc] = true
	if levels != nil {
		ch.encodings[format.RLE] = true
	}
	w.writeHeader(ch, &h, len(levels)+len(vals))
	w.write(levels)
	w.write(e.comp)
}

// writeIndexes writes a data page of the dictionary ids.
func (w *fileWriter) writeIndexes(ch *chunk, ids []int32, rows, nulls int, levels []byte, dictLen int) {
	e := w.enc
	bw := max(1, bits.Len(uint(dictLen-1)))
	e.rle.BitWidth = bw
	var err error
	e.tmp, err = e.rle.EncodeInt32(e.tmp, ids)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("parquetexport: %s: %w", w.path, err)
	}
	e.vals = append(append(e.vals[:0], byte(bw)), e.tmp...)
	w.writeDataPage(ch, rows, nulls, levels, e.vals, format.RLEDictionary)
}

// appendRun appends an RLE run of n copies of the bit-width-1 value v.
func appendRun(dst []byte, n int, v byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(n)<<1)
	return append(dst, v)
}

// appendLevels appends the definition levels of rows [lo, hi) (lo a
// multiple of 64) from a validity bitmap as the RLE/bit-packed hybrid of bit
// width 1: runs for whole words of nulls or values, bit-packed groups for
// the mixed ones. It returns the levels and the number of nulls.
func (e *encoder) appendLevels(dst []byte, m bitmap, lo, hi int) ([]byte, int) {
	nulls := 0
	var run int
	var runV byte
	pack := e.tmp[:0]
	flushRun := func() {
		if run > 0 {
			dst = appendRun(dst, run, runV)
			run = 0
		}
	}
	flushPack := func() {
		if len(pack) > 0 {
			dst = binary.AppendUvarint(dst, uint64(len(pack))<<1|1)
			dst = append(dst, pack...)
			pack = pack[:0]
		}
	}
	for r := lo; r < hi; r += 64 {
		n := min(64, hi-r)
		var word uint64
		if r>>6 < len(m) {
			word = m[r>>6]
		}
		mask := ^uint64(0)
		if n < 64 {
			mask = 1<<uint(n) - 1
		}
		word &= mask
		nulls += n - bits.OnesCount64(word)
		var v byte
		switch word {
		case 0:
			v = 0
		case mask:
			v = 1
		default:
			flushRun()
			if n == 64 {
				pack = binary.LittleEndian.AppendUint64(pack, word)
				continue
			}
			for i := 0; i < (n+7)/8; i++ {
				pack = append(pack, byte(word>>(8*uint(i))))
			}
			continue
		}
		flushPack()
		if run > 0 && runV != v {
			flushRun()
		}
		run += n
		runV = v
	}
	flushRun()
	flushPack()
	e.tmp = pack
	return dst, nulls
}

// gather appends the values of the rows of [lo, hi) set in m (all rows
// when m is nil) to dst.
func gather[T any](dst []T, vals []T, m bitmap, lo, hi int) []T {
	if m == nil {
		return append(dst, vals[lo:hi]...)
	}
	for r := lo; r < hi && r < len(vals); r += 64 {
		var word uint64
		if r>>6 < len(m) {
			word = m[r>>6]
		}
		n := min(64, hi-r, len(vals)-r)
		if n < 64 {
			word &= 1<<uint(n) - 1
		}
		if word == ^uint64(0) {
			dst = append(dst, vals[r:r+64]...)
			continue
		}
		for word != 0 {
			i := bits.TrailingZeros64(word)
			dst = append(dst, vals[r+i])
			word &= word - 1
		}
	}
	return dst
}

// writeInt64s writes an INT64 column: required when m is nil, else
// optional with the validity bitmap m; unsigned sets the order of its
// min/max statistics.
func (w *fileWriter) writeInt64s(ch *chunk, vals []int64, m bitmap, rows int, unsigned bool, enc format.Encoding) {
	e := w.enc
	var mn, mx int64
	has := false
	totalNulls := 0
	for lo := 0; lo < rows; lo += pageRows {
		hi := min(lo+pageRows, rows)
		var levels []byte
		nulls := 0
		if m != nil {
			e.levels, nulls = e.appendLevels(e.levels[:0], m, lo, hi)
			levels = e.levels
		}
		totalNulls += nulls
		// The page's values: the column's slice itself when every row
		// holds one, else gathered.
		var pv []int64
		if m == nil || nulls == 0 && len(vals) >= hi {
			pv = vals[lo:hi]
		} else {
			e.i64 = gather(e.i64[:0], vals, m, lo, hi)
			pv = e.i64
		}
		if len(pv) > 0 {
			if !has {
				mn, mx, has = pv[0], pv[0], true
			}
			if unsigned {
				mn, mx = minMaxUint(pv, mn, mx)
			} else {
				mn, mx = minMaxInt(pv, mn, mx)
			}
		}
		switch enc {
		case format.DeltaBinaryPacked:
			e.vals, _ = e.delta.EncodeInt64(e.vals, pv)
		default:
			e.vals = e.vals[:0]
			for _, v := range pv {
				e.vals = binary.LittleEndian.AppendUint64(e.vals, uint64(v))
			}
		}
		w.writeDataPage(ch, hi-lo, nulls, levels, e.vals, enc)
	}
	ch.meta.Statistics.NullCount = int64(totalNulls)
	if has {
		ch.meta.Statistics.MinValue = binary.LittleEndian.AppendUint64(nil, uint64(mn))
		ch.meta.Statistics.MaxValue = binary.LittleEndian.AppendUint64(nil, uint64(mx))
	}
}

// minMaxInt returns the least and greatest of mn, mx and vals (four values
// a step, in independent pairs).
func minMaxInt(vals []int64, mn, mx int64) (int64, int64) {
	mn1, mx1 := mn, mx
	for len(vals) >= 4 {
		v := vals[:4:4]
		mn, mx = min(mn, v[0], v[2]), max(mx, v[0], v[2])
		mn1, mx1 = min(mn1, v[1], v[3]), max(mx1, v[1], v[3])
		vals = vals[4:]
	}
	for _, v := range vals {
		mn, mx = min(mn, v), max(mx, v)
	}
	return min(mn, mn1), max(mx, mx1)
}

// minMaxUint is minMaxInt in unsigned order.
func minMaxUint(vals []int64, mn, mx int64) (int64, int64) {
	umn, umx := uint64(mn), uint64(mx)
	umn1, umx1 := umn, umx
	for len(vals) >= 4 {
		v := vals[:4:4]
		a, b, c, d := uint64(v[0]), uint64(v[1]), uint64(v[2]), uint64(v[3])
		umn, umx = min(umn, a, c), max(umx, a, c)
		umn1, umx1 = min(umn1, b, d), max(umx1, b, d)
		vals = vals[4:]
	}
	for _, v := range vals {
		umn, umx = min(umn, uint64(v)), max(umx, uint64(v))
	}
	return int64(min(umn, umn1)), int64(max(umx, umx1))
}

// writeFloats writes an optional DOUBLE column: PLAIN, the float bits as
// they are stored.
func (w *fileWriter) writeFloats(ch *chunk, c *argCol, rows int) {
	w.writePlainPages(ch, c, rows, func(dst []byte, vals []int64) []byte {
		for _, v := range vals {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
		}
		return dst
	})
}

// writeBools writes an optional BOOLEAN column: PLAIN, one bit per value.
func (w *fileWriter) writeBools(ch *chunk, c *argCol, rows int) {
	w.writePlainPages(ch, c, rows, func(dst []byte, vals []int64) []byte {
		for i, v := range vals {
			if i&7 == 0 {
				dst = append(dst, 0)
			}
			if v != 0 {
				dst[len(dst)-1] |= 1 << (uint(i) & 7)
			}
		}
		return dst
	})
}

// writePlainPages writes the optional column c page by page: the
// definition levels from its bitmap, and the present values, gathered, as
// encode appends them (PLAIN).
func (w *fileWriter) writePlainPages(ch *chunk, c *argCol, rows int, encode func(dst []byte, vals []int64) []byte) {
	e := w.enc
	totalNulls := 0
	for lo := 0; lo < rows; lo += pageRows {
		hi := min(lo+pageRows, rows)
		var nulls int
		e.levels, nulls = e.appendLevels(e.levels[:0], c.bits, lo, hi)
		totalNulls += nulls
		e.i64 = gather(e.i64[:0], u64s(c.nums), c.bits, lo, hi)
		e.vals = encode(e.vals[:0], e.i64)
		w.writeDataPage(ch, hi-lo, nulls, e.levels, e.vals, format.Plain)
	}
	ch.meta.Statistics.NullCount = int64(totalNulls)
}

// writeByteArrays writes a PLAIN BYTE_ARRAY column of the arena spans
// strs: nulls where m is unset, or (m nil) where a span is empty (args_json).
func (w *fileWriter) writeByteArrays(ch *chunk, b *batch, strs []span, m bitmap, rows int) {
	e := w.enc
	totalNulls := 0
	for lo := 0; lo < rows; {
		// End the page at pageRows or where the values pass pageBytes.
		hi, size := lo, 0
		for hi < rows && hi-lo < pageRows && size < pageBytes {
			end := min(hi+64, rows)
			for r := hi; r < end && r < len(strs); r++ {
				size += int(strs[r].n)
			}
			hi = end
		}
		e.vals = e.vals[:0]
		e.levels = e.levels[:0]
		nulls := 0
		if m == nil && size == 0 {
			// args_json without a value in the page: one run of nulls
			// (what appendLevels writes for cleared words).
			e.levels = appendRun(e.levels, hi-lo, 0)
			nulls = hi - lo
		} else if m != nil {
			e.levels, nulls = e.appendLevels(e.levels, m, lo, hi)
			for r := lo; r < hi && r < len(strs); r++ {
				if m.has(r) {
					v := b.bytes(strs[r])
					e.vals = binary.LittleEndian.AppendUint32(e.vals, uint32(len(v)))
					e.vals = append(e.vals, v...)
				}
			}
		} else {
			// Levels from the spans: bit-packed groups built on the fly.
			var word uint64
			mm := e.tmpBits(lo, hi)
			for r := lo; r < hi; r++ {
				if strs[r].n > 0 {
					word |= 1 << (uint(r) & 63)
					v := b.bytes(strs[r])
					e.vals = binary.LittleEndian.AppendUint32(e.vals, uint32(len(v)))
					e.vals = append(e.vals, v...)
				}
				if r&63 == 63 || r == hi-1 {
					mm[(r-lo)>>6] = word
					word = 0
				}
			}
			e.levels, nulls = e.appendLevels(e.levels, bitmap(mm), 0, hi-lo)
		}
		totalNulls += nulls
		w.writeDataPage(ch, hi-lo, nulls, e.levels, e.vals, format.Plain)
		lo = hi
	}
	ch.meta.Statistics.NullCount = int64(totalNulls)
}

// tmpBits returns a zeroed scratch bitmap for rows [lo, hi).
func (e *encoder) tmpBits(lo, hi int) []uint64 {
	n := (hi - lo + 63) >> 6
	if cap(e.bm) < n {
		e.bm = make([]uint64, n)
	}
	e.bm = e.bm[:n]
	clear(e.bm)
	return e.bm
}

// writeDictStrings writes a typed string column dictionary-encoded; false
// (nothing written) when its distinct values pass maxDictEntries or
// maxDictBytes.
func (w *fileWriter) writeDictStrings(ch *chunk, c *argCol, b *batch) bool {
	e := w.enc
	clear(e.dict)
	e.dstrs = e.dstrs[:0]
	size := 0
	// Ids of the values in row order, first pass: build the dictionary
	// (keys view the arena, which does not change while the batch is
	// written).
	e.i32 = e.i32[:0]
	// Rows often share their value's span (pooledSpan): a small cache
	// from span to id skips the map for them.
	var cache [64]struct {
		s  span
		id int32
	}
	for i := range cache {
		cache[i].s.n = math.MaxUint32 // no span is that long
	}
	for r := 0; r < len(c.strs); r++ {
		if !c.bits.has(r) {
			continue
		}
		sp := c.strs[r]
		ce := &cache[(sp.off*0x9e3779b1)>>26]
		if ce.s == sp {
			e.i32 = append(e.i32, ce.id)
			continue
		}
		v := b.bytes(sp)
		var s string
		if len(v) > 0 {
			s = unsafe.String(&v[0], len(v))
		}
		id, ok := e.dict[s]
		if !ok {
			if len(e.dstrs) >= maxDictEntries || size+len(s) > maxDictBytes {
				return false
			}
			id = int32(len(e.dstrs))
			e.dict[s] = id
			e.dstrs = append(e.dstrs, s)
			size += len(s)
		}
		ce.s, ce.id = sp, id
		e.i32 = append(e.i32, id)
	}
	ids := e.i32
	w.writeDictPage(ch, e.tmpDict(e.dstrs), nil)
	totalNulls := 0
	k := 0
	for lo := 0; lo < b.rows; lo += pageRows {
		hi := min(lo+pageRows, b.rows)
		var nulls int
		e.levels, nulls = e.appendLevels(e.levels[:0], c.bits, lo, hi)
		totalNulls += nulls
		n := hi - lo - nulls
		w.writeIndexes(ch, ids[k:k+n], hi-lo, nulls, e.levels, len(e.dstrs))
		k += n
	}
	ch.meta.Statistics.NullCount = int64(totalNulls)
	clear(e.dict)
	return true
}

// maxFooterBytes bounds the metadata a file holds in memory until its
// footer is written (a column chunk's metadata per column and row group):
// a file whose next row group would pass it is closed, and the sink starts
// another, so that many columns times many row groups do not add up.
const maxFooterBytes = 16 << 20

// chunkMetaBytes is what the metadata of one column chunk is counted.
const chunkMetaBytes = 256

// footerFull reports whether one more row group would pass maxFooterBytes.
func (w *fileWriter) footerFull() bool {
	return len(w.groups) > 0 && int64(len(w.groups)+1)*int64(len(w.specs))*chunkMetaBytes > maxFooterBytes
}

// close writes the footer and closes the file.
func (w *fileWriter) close() error {
	md := format.FileMetaData{
		Version:   2,
		Schema:    w.schema,
		NumRows:   w.rows,
		RowGroups: w.groups,
		CreatedBy: "tracecodec parquetexport",
	}
	for range w.specs {
		md.ColumnOrders = append(md.ColumnOrders, format.ColumnOrder{Value: &format.TypeDefinedOrder{}})
	}
	buf, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("parquetexport: %s: footer: %w", w.path, err)
	}
	w.write(buf)
	w.write(binary.LittleEndian.AppendUint32(nil, uint32(len(buf))))
	w.write(magic)
	err = w.err
	if ferr := w.bw.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// abort closes the file without finishing it.
func (w *fileWriter) abort() { w.f.Close() }

var kindBytes, trackKindBytes [16][]byte

func init() {
	for k := range kindBytes {
		kindBytes[k] = []byte(events.Kind(k).String())
		trackKindBytes[k] = []byte(events.TrackKind(k).String())
	}
}

// sink writes the batches of one format from one worker: it keeps a file
// open while its columns cover each new batch, and starts a new file with
// the union of the columns when a batch brings new ones.
type sink struct {
	format string
	dir    string // folder of the files
	hive   bool
	prefix string // file name prefix
	b      *batch
	enc    *encoder
	file   *fileWriter
	seq    int
	files  []string
	rows   int64
}

// flush writes the batch as a row group and resets it.
func (s *sink) flush() error {
	b := s.b
	if b.rows == len(b.skip) {
		b.reset()
		return nil
	}
	if s.file != nil && (!s.file.covers(b) || s.file.footerFull()) {
		if err := s.closeFile(); err != nil {
			return err
		}
	}
	if s.file == nil {
		kinds := map[string]colKind{}
		for _, c := range b.cols {
			kinds[c.name] = c.kind
		}
		path := filepath.Join(s.dir, fmt.Sprintf("%s-%04d.parquet", s.prefix, s.seq))
		s.seq++
		f, err := createFile(path, kinds, s.hive, s.enc)
		if err != nil {
			return err
		}
		s.file = f
	}
	before := s.file.rows
	if err := s.file.writeBatch(b); err != nil {
		return err
	}
	s.rows += s.file.rows - before
	// The batch keeps its columns: the file covers the next batch unless
	// that one brings new columns.
	b.reset()
	return nil
}

func (s *sink) closeFile() error {
	if s.file == nil {
		return nil
	}
	err := s.file.close()
	s.files = append(s.files, s.file.path)
	s.file = nil
	return err
}
