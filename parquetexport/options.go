package parquetexport

import (
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/tracecodec/tracecodec/chromeexport"
)

// Sentinel errors of the exporter; errors.Is works on them.
var (
	// ErrOption: an option's value is out of range.
	ErrOption = errors.New("parquetexport: invalid option")
	// ErrNoInputs: the paths named no trace (an empty glob, a folder without
	// traces).
	ErrNoInputs = errors.New("parquetexport: no inputs")
	// ErrExists: the output folder already exists (the exporter never
	// overwrites a dataset).
	ErrExists = errors.New("parquetexport: output exists")
	// ErrInput: an input could not be read (it wraps the path and the
	// codec's *traceerr.FormatError or the I/O error).
	ErrInput = errors.New("parquetexport: input failed")
	// ErrLimit: the inputs ask for more than the export's budget allows
	// (more argument columns than WithMaxColumns). It stops the export,
	// WithKeepGoing or not, and nothing is written.
	ErrLimit = errors.New("parquetexport: over the export's limit")
)

// DefaultMaxColumns is the default of WithMaxColumns.
const DefaultMaxColumns = 4096

// DefaultRowGroupBytes is the uncompressed size of a row group: 128 MiB, the
// size Spark, Trino and DuckDB plan their scans around.
const DefaultRowGroupBytes = 128 << 20

// DefaultCDTFields are the numeric CDT fields exported as typed DOUBLE
// columns: a copy of chromeexport.DefaultCDTFields, the set tracecat convert
// --to chrome draws as counter tracks by default (dotted paths as
// schema7.LookupNumber resolves them), so the two exports name one set.
var DefaultCDTFields = slices.Clone(chromeexport.DefaultCDTFields)

// DefaultMaxPairDepth is how many begins per track wait for their end; a
// begin beyond it lets the track's oldest open begin go (a "begin" row).
const DefaultMaxPairDepth = 1024

// Option configures Export.
type Option func(*options) error

type options struct {
	rowGroupBytes int64
	memoryBytes   int64 // 0: DefaultMemoryRowGroups × rowGroupBytes
	concurrency   int
	hive          bool
	cdtFields     []string
	keepGoing     bool
	pairDepth     int
	maxColumns    int
	progress      func(Progress)
}

// WithRowGroupBytes sets the uncompressed size at which a row group is
// written (the Parquet plain-encoded size of its values). Default
// DefaultRowGroupBytes (128 MiB); from 4 KiB to 1 GiB.
func WithRowGroupBytes(n int64) Option {
	return func(o *options) error {
		if n < 4<<10 || n > 1<<30 {
			return fmt.Errorf("%w: WithRowGroupBytes(%d): want 4 KiB to 1 GiB", ErrOption, n)
		}
		o.rowGroupBytes = n
		return nil
	}
}

// DefaultMemoryRowGroups is the default of WithMemoryBytes in row groups:
// the rows buffered by all workers together stay under 4 × WithRowGroupBytes.
const DefaultMemoryRowGroups = 4

// WithMemoryBytes bounds the rows buffered by all the workers together (the
// Parquet plain-encoded size of the row groups being filled, every worker and
// format counted, null slots of argument columns included): each worker
// writes its row group when it reaches min(WithRowGroupBytes, n), and at
// most n / that many workers run at once (fewer than WithConcurrency when n
// holds fewer row groups). Default DefaultMemoryRowGroups ×
// WithRowGroupBytes; from 4 KiB to 64 GiB.
func WithMemoryBytes(n int64) Option {
	return func(o *options) error {
		if n < 4<<10 || n > 64<<30 {
			return fmt.Errorf("%w: WithMemoryBytes(%d): want 4 KiB to 64 GiB", ErrOption, n)
		}
		o.memoryBytes = n
		return nil
	}
}

// WithConcurrency sets how many shards of inputs are decoded and encoded at
// once, each on its own goroutine (at most as many as WithMemoryBytes holds
// row groups). The files written do not depend on it. Default
// runtime.GOMAXPROCS(0): every core.
func WithConcurrency(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%w: WithConcurrency(%d): want ≥ 1", ErrOption, n)
		}
		o.concurrency = n
		return nil
	}
}

// WithHivePartitioning writes the files of each format under a folder
// format=NAME/ (format=dial9/, format=atf/, …), which engines read as a
// partition column "format" and prune by. Default false: every file directly
// in the output folder.
func WithHivePartitioning(on bool) Option {
	return func(o *options) error { o.hive = on; return nil }
}

// WithCDTFields sets the numeric CDT fields exported as typed columns
// (cdt_ followed by the path with every character other than a letter,
// digit or underscore replaced by _). Default DefaultCDTFields.
func WithCDTFields(fields ...string) Option {
	return func(o *options) error {
		for _, f := range fields {
			if f == "" {
				return fmt.Errorf("%w: WithCDTFields: empty field", ErrOption)
			}
		}
		o.cdtFields = append([]string(nil), fields...)
		return nil
	}
}

// WithKeepGoing makes an input that fails to read a warning in
// Result.Failed instead of the export's error (the rows read from it before
// the failure are kept), and a named path that holds no events (a CTF
// metadata file, a file of another kind) a note in Result.Skipped. Default
// false: the first failing input or such path stops the export and nothing
// is written. ErrLimit stops the export either way.
func WithKeepGoing(on bool) Option {
	return func(o *options) error { o.keepGoing = on; return nil }
}

// WithMaxPairDepth sets how many open begins per track wait for their end
// (see Export): a begin beyond it lets the track's oldest open begin go,
// which stays a "begin" row. Default DefaultMaxPairDepth; 0 turns pairing
// off: begins and ends are rows of their own.
func WithMaxPairDepth(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("%w: WithMaxPairDepth(%d): want ≥ 0", ErrOption, n)
		}
		o.pairDepth = n
		return nil
	}
}

// WithMaxColumns bounds the typed argument columns of one file (each
// distinct argument name and type of a format, see Export): an input that
// brings more stops the export with an error wrapping ErrLimit, and
// nothing is written. A column costs memory whether or not a row holds a
// value (its buffers, its null pages and its metadata in every row group),
// so this bounds what a file of many distinct field names (a dial9 stream
// of thousands of schemas, a WTF event type of thousands of arguments) can
// ask for: each column holds at most a few hundred bytes before its first
// values, and its buffers count against WithMemoryBytes as they grow (null
// slots included). Default DefaultMaxColumns; from 1 to 1 << 20.
func WithMaxColumns(n int) Option {
	return func(o *options) error {
		if n < 1 || n > 1<<20 {
			return fmt.Errorf("%w: WithMaxColumns(%d): want 1 to %d", ErrOption, n, 1<<20)
		}
		o.maxColumns = n
		return nil
	}
}

// Progress is what a progress callback is told, after each input and each
// written row group.
type Progress struct {
	InputsDone, Inputs int
	Events             int64 // records read so far
	InputBytes         int64 // bytes of the inputs finished so far
}

// WithProgress calls f (from any goroutine, one call at a time) as the
// export advances. Default: no callback.
func WithProgress(f func(Progress)) Option {
	return func(o *options) error { o.progress = f; return nil }
}

func buildOptions(opts []Option) (options, error) {
	o := options{
		rowGroupBytes: DefaultRowGroupBytes,
		concurrency:   runtime.GOMAXPROCS(0),
		cdtFields:     DefaultCDTFields,
		pairDepth:     DefaultMaxPairDepth,
		maxColumns:    DefaultMaxColumns,
	}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	if o.memoryBytes == 0 {
		o.memoryBytes = DefaultMemoryRowGroups * o.rowGroupBytes
	}
	return o, nil
}
