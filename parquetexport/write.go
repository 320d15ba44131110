package parquetexport

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
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

func dictString() parquet.Node {
	return parquet.Encoded(parquet.String(), &parquet.RLEDictionary)
}

// argNode is the Parquet node of a typed argument column.
func argNode(k colKind) parquet.Node {
	switch k {
	case colInt:
		return parquet.Optional(parquet.Int(64))
	case colUint:
		return parquet.Optional(parquet.Uint(64))
	case colFloat:
		return parquet.Optional(parquet.Leaf(parquet.DoubleType))
	case colBool:
		return parquet.Optional(parquet.Leaf(parquet.BooleanType))
	case colString:
		return parquet.Optional(dictString())
	}
	return parquet.Optional(parquet.Leaf(parquet.ByteArrayType))
}

// fileWriter is one Parquet file of a sink: a fixed set of columns, one
// row group per batch.
type fileWriter struct {
	path  string
	f     *os.File
	bw    *bufio.Writer
	pw    *parquet.GenericWriter[any]
	kinds map[string]colKind // typed argument columns
	leaf  map[string]int     // column name → leaf index
	rows  int64
	vals  []parquet.Value
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

// createFile creates a Parquet file with the common columns (without format
// under Hive partitioning, where the folder name holds it: Spark refuses a
// column that is also a partition column) and the typed columns kinds.
func createFile(path string, kinds map[string]colKind, hive bool) (*fileWriter, error) {
	g := parquet.Group{
		colFormat:    dictString(),
		colSource:    dictString(),
		colTrackKind: dictString(),
		colTrack:     parquet.Int(64),
		colTrackName: dictString(),
		colTs:        parquet.Optional(parquet.Int(64)),
		colDur:       parquet.Optional(parquet.Int(64)),
		colName:      dictString(),
		colKindName:  dictString(),
		colJSON:      parquet.Optional(parquet.String()),
	}
	if hive {
		delete(g, colFormat)
	}
	for n, k := range kinds {
		g[n] = argNode(k)
	}
	schema := parquet.NewSchema("event", g)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	cfg, err := parquet.NewWriterConfig(schema,
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
		parquet.CreatedBy("tracecodec parquetexport", "", ""),
		parquet.PageBufferSize(1<<20))
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &fileWriter{path: path, f: f, bw: bw, pw: parquet.NewGenericWriter[any](bw, cfg), kinds: kinds, leaf: map[string]int{}}
	for i, p := range schema.Columns() {
		w.leaf[p[0]] = i
	}
	return w, nil
}

// chunkRows is how many values are handed to a column writer at a time.
const chunkRows = 4096

// writeBatch writes b as one row group.
func (w *fileWriter) writeBatch(b *batch) error {
	if b.rows == b.skipped {
		return nil
	}
	b.padAll()
	cols := w.pw.ColumnWriters()
	fmtBytes := []byte(b.format)
	for name, idx := range w.leaf {
		cw := cols[idx]
		which := commonIndex(name)
		var argc *argCol
		if which < 0 {
			argc = b.byName[name]
		}
		for lo := 0; lo < b.rows; lo += chunkRows {
			hi := min(lo+chunkRows, b.rows)
			vals := w.vals[:0]
			for r := lo; r < hi; r++ {
				if !b.skips(r) {
					vals = append(vals, cellValue(b, which, argc, r, idx, fmtBytes))
				}
			}
			w.vals = vals
			if _, err := cw.WriteRowValues(vals); err != nil {
				return fmt.Errorf("parquetexport: %s: column %s: %w", w.path, name, err)
			}
		}
	}
	if err := w.pw.Flush(); err != nil {
		return fmt.Errorf("parquetexport: %s: %w", w.path, err)
	}
	w.rows += int64(b.rows - b.skipped)
	return nil
}

// commonIndex is the position of a common column in commonCols, -1 for an
// argument column.
func commonIndex(name string) int {
	for i, c := range commonCols {
		if c == name {
			return i
		}
	}
	return -1
}

// cellValue is row r of a column as a Parquet value with its levels: the
// common column commonCols[which], or the argument column c (which < 0).
func cellValue(b *batch, which int, c *argCol, r, idx int, fmtBytes []byte) parquet.Value {
	switch which {
	case 0: // format
		return parquet.ByteArrayValue(fmtBytes).Level(0, 0, idx)
	case 1: // colSource
		return parquet.ByteArrayValue(b.dict.strs[b.source[r]]).Level(0, 0, idx)
	case 2: // colTrackKind
		return parquet.ByteArrayValue(trackKindBytes[b.trackKind[r]]).Level(0, 0, idx)
	case 3: // colTrack
		return parquet.Int64Value(int64(b.trackID[r])).Level(0, 0, idx)
	case 4: // colTrackName
		return parquet.ByteArrayValue(b.dict.strs[b.trackName[r]]).Level(0, 0, idx)
	case 5: // colTs
		if !b.hasTs[r] {
			return parquet.NullValue().Level(0, 0, idx)
		}
		return parquet.Int64Value(b.ts[r]).Level(0, 1, idx)
	case 6: // colDur
		if !b.hasDur[r] {
			return parquet.NullValue().Level(0, 0, idx)
		}
		return parquet.Int64Value(b.dur[r]).Level(0, 1, idx)
	case 7: // colName
		return parquet.ByteArrayValue(b.dict.strs[b.name[r]]).Level(0, 0, idx)
	case 8: // colKindName
		return parquet.ByteArrayValue(kindBytes[b.kind[r]]).Level(0, 0, idx)
	case 9: // colJSON
		if b.json[r].n == 0 {
			return parquet.NullValue().Level(0, 0, idx)
		}
		return parquet.ByteArrayValue(b.bytes(b.json[r])).Level(0, 1, idx)
	}
	if c == nil || !c.valid[r] {
		return parquet.NullValue().Level(0, 0, idx)
	}
	switch c.kind {
	case colInt, colUint:
		return parquet.Int64Value(int64(c.nums[r])).Level(0, 1, idx)
	case colFloat:
		return parquet.DoubleValue(float64frombits(c.nums[r])).Level(0, 1, idx)
	case colBool:
		return parquet.BooleanValue(c.nums[r] != 0).Level(0, 1, idx)
	}
	return parquet.ByteArrayValue(b.bytes(c.strs[r])).Level(0, 1, idx)
}

var kindBytes, trackKindBytes [16][]byte

func init() {
	for k := range kindBytes {
		kindBytes[k] = []byte(events.Kind(k).String())
		trackKindBytes[k] = []byte(events.TrackKind(k).String())
	}
}

// close finishes the file (footer) and closes it.
func (w *fileWriter) close() error {
	err := w.pw.Close()
	if ferr := w.bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// abort closes the file without finishing it.
func (w *fileWriter) abort() { w.f.Close() }

// sink writes the batches of one format from one worker: it keeps a file
// open while its columns cover each new batch, and starts a new file with
// the union of the columns when a batch brings new ones.
type sink struct {
	format string
	dir    string // folder of the files
	hive   bool
	prefix string // file name prefix
	b      *batch
	file   *fileWriter
	seq    int
	files  []string
	rows   int64
}

// flush writes the batch as a row group and resets it.
func (s *sink) flush() error {
	b := s.b
	if b.rows == b.skipped {
		b.reset()
		return nil
	}
	if s.file != nil && !s.file.covers(b) {
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
		f, err := createFile(path, kinds, s.hive)
		if err != nil {
			return err
		}
		s.file = f
	}
	if err := s.file.writeBatch(b); err != nil {
		return err
	}
	s.rows += int64(b.rows - b.skipped)
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
