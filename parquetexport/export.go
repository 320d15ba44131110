package parquetexport

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/traceerr"
)

// InputError is an input that failed under WithKeepGoing, or a named path
// that holds no events and was skipped under it.
type InputError struct {
	Path string
	Err  error
}

// InputRecovery is an input that was damaged or unfinished and exported as
// far as its codec recovers it (events.Reader.Recovery): a CDT trace without
// footer, a cut dial9 stream, an ATF file without footer, a torn WTF file.
type InputRecovery struct {
	Path     string
	Recovery traceerr.Recovery // what was read, what was lost and why
}

// InputUnpaired is an input some of whose begins and ends could not be
// paired into complete rows (see Export): they are "begin" and "end" rows.
type InputUnpaired struct {
	Path string
	// Begins is the begins left without their end: still open when the
	// input ended, unwound by an ATF return of a function called before
	// them (their returns were lost), or beyond WithMaxPairDepth.
	Begins int64
	// Ends is the ends without their begin: no begin open on the track,
	// no open call of the return's function (ATF), or an end earlier than
	// the begin it would close.
	Ends int64
}

// Result is what Export did.
type Result struct {
	// Inputs are the traces read, in path order.
	Inputs []Input
	// Failed lists the inputs that failed (only with WithKeepGoing; without
	// it the first failure is Export's error), in path order.
	Failed []InputError
	// Skipped lists the named paths that hold no events (a folder of CTF
	// metadata, a detail.atf file), and the folders found inside walked
	// ones whose CTF data stream files lie beside no CTF metadata (only
	// with WithKeepGoing; without it they are Export's error).
	Skipped []InputError
	// Recovered lists the inputs that were read only in part or leniently,
	// in path order, with what their codec says was lost.
	Recovered []InputRecovery
	// Unpaired lists the inputs with begins or ends that could not be
	// paired, in path order.
	Unpaired []InputUnpaired
	// Events is the number of records read (a complete row holds two).
	Events int64
	// Rows is the number of rows written.
	Rows int64
	// InputBytes is the size of the inputs on disk.
	InputBytes int64
	// Files are the Parquet files written, relative to the output folder,
	// in name order.
	Files []string
}

// Export reads every input (files, folders and globs, see ExpandInputs) and
// writes their events as one Parquet dataset into the folder out, which
// must not exist: the files are written into a temporary folder beside it,
// renamed to out when every input was read and every file closed, and
// removed on an error or when ctx is cancelled. See the package doc for the
// schema, the files and the memory used.
func Export(ctx context.Context, out string, paths []string, opts ...Option) (*Result, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	inputs, skipped, err := expandInputs(paths, o.keepGoing)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(out); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrExists, out)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(out))
	tmp, err := mkdirTemp(parent, "."+filepath.Base(filepath.Clean(out))+".tmp-")
	if err != nil {
		return nil, err
	}
	res, err := export(ctx, tmp, inputs, &o)
	if res != nil {
		res.Skipped = skipped
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return res, nil
}

// mkdirTemp creates a new folder dir/prefixNNNN with mode 0777 less the
// umask (os.MkdirTemp's 0700 would survive the rename).
func mkdirTemp(dir, prefix string) (string, error) {
	var err error
	for range 100 {
		p := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64()%1e9, 10))
		if err = os.Mkdir(p, 0o777); !errors.Is(err, os.ErrExist) {
			return p, err
		}
	}
	return "", err
}

// shardBytes is the input size of a shard: consecutive inputs (in path
// order) are grouped into shards of about this many bytes on disk, and each
// shard is written by one worker into files of its own, so that which rows
// land in which file depends on the inputs only, not on the workers.
const shardBytes = 64 << 20

// shards groups the inputs (indexes into inputs) into shards.
func shards(inputs []Input) [][]int {
	var out [][]int
	var cur []int
	var size int64
	for i, in := range inputs {
		cur = append(cur, i)
		size += in.Size
		if size >= shardBytes {
			out = append(out, cur)
			cur, size = nil, 0
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// rowGroupLimit is the size at which a worker writes a row group:
// WithRowGroupBytes, or WithMemoryBytes when that is smaller.
func (o *options) rowGroupLimit() int64 {
	return max(4<<10, min(o.rowGroupBytes, o.memoryBytes))
}

// workers is how many shards are converted at once: WithConcurrency, at most
// as many as WithMemoryBytes holds row groups (and shards there are).
func (o *options) workers(shards int) int {
	return max(1, min(o.concurrency, shards, int(o.memoryBytes/o.rowGroupLimit())))
}

// inputResult is what reading one input gave.
type inputResult struct {
	events   int64
	rec      *traceerr.Recovery
	err      error // the input failed
	unpaired InputUnpaired
	done     bool
}

// export runs the workers, writing into dir.
func export(ctx context.Context, dir string, inputs []Input, o *options) (*Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	res := &Result{Inputs: inputs}
	for _, in := range inputs {
		res.InputBytes += in.Size
	}
	groups := shards(inputs)
	results := make([]inputResult, len(inputs))
	var (
		mu     sync.Mutex
		next   int
		prog   Progress
		fatal  = -1 // the input whose error stops the export (least index)
		fatalE error
	)
	prog.Inputs = len(inputs)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(groups) || ctx.Err() != nil {
			return 0, false
		}
		next++
		return next - 1, true
	}
	report := func(i int, r inputResult) {
		mu.Lock()
		defer mu.Unlock()
		results[i] = r
		prog.InputsDone++
		prog.Events += r.events
		prog.InputBytes += inputs[i].Size
		if o.progress != nil {
			o.progress(prog)
		}
	}
	stop := func(i int, err error) {
		mu.Lock()
		if fatal < 0 || i < fatal {
			fatal, fatalE = i, err
		}
		mu.Unlock()
		cancel(err)
	}
	workers := o.workers(len(groups))
	sinks := make([][]*sink, len(groups))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := &worker{dir: dir, o: o, conv: newConverter(o), enc: newEncoder(), batches: map[string]*batch{}}
			for {
				g, ok := take()
				if !ok {
					break
				}
				wk.startShard(g)
				failed := false
				for _, i := range groups[g] {
					in := &inputs[i]
					r := wk.read(ctx, in)
					if r.err != nil && !errors.Is(r.err, context.Canceled) && (!o.keepGoing || errors.Is(r.err, errWrite) || errors.Is(r.err, ErrLimit)) {
						stop(i, r.err) // the least such input's error is the export's
						failed = true
						break
					}
					if ctx.Err() != nil {
						failed = true // cancelled, or another input stopped the export
						break
					}
					r.done = true
					report(i, r)
				}
				if failed || ctx.Err() != nil {
					wk.abortShard()
					break
				}
				if err := wk.finishShard(); err != nil {
					stop(len(inputs), err)
					break
				}
				sinks[g] = wk.list
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		for _, list := range sinks {
			for _, s := range list {
				if s.file != nil {
					s.file.abort()
				}
			}
		}
		if fatalE != nil {
			return nil, fatalE
		}
		return nil, context.Cause(ctx)
	}
	for i, r := range results {
		res.Events += r.events
		if r.rec != nil {
			res.Recovered = append(res.Recovered, InputRecovery{inputs[i].Path, *r.rec})
		}
		if r.err != nil {
			res.Failed = append(res.Failed, InputError{inputs[i].Path, r.err})
		}
		if r.unpaired.Begins > 0 || r.unpaired.Ends > 0 {
			res.Unpaired = append(res.Unpaired, r.unpaired)
		}
	}
	for _, list := range sinks {
		for _, s := range list {
			res.Rows += s.rows
			for _, f := range s.files {
				rel, err := filepath.Rel(dir, f)
				if err != nil {
					return nil, err
				}
				res.Files = append(res.Files, rel)
			}
		}
	}
	slices.Sort(res.Files)
	return res, nil
}

// errWrite marks errors of the output, which stop the export even with
// WithKeepGoing.
var errWrite = errors.New("parquetexport: writing the dataset failed")

// worker converts shards, one at a time, each into its own sinks (one per
// format).
type worker struct {
	dir     string
	o       *options
	conv    *converter
	enc     *encoder
	shard   int
	sinks   map[string]*sink
	list    []*sink
	batches map[string]*batch // kept from shard to shard for their buffers
}

// startShard prepares the worker for shard g: new sinks, whose files are
// named after g.
func (w *worker) startShard(g int) {
	w.shard = g
	w.sinks = map[string]*sink{}
	w.list = nil
}

// buffered is the size of the rows in all the worker's batches.
func (w *worker) buffered() int64 {
	var n int64
	for _, s := range w.list {
		n += s.b.size
	}
	return n
}

func (w *worker) sink(format string) *sink {
	if s, ok := w.sinks[format]; ok {
		return s
	}
	b := w.batches[format]
	if b == nil {
		b = newBatch(format)
		w.batches[format] = b
	}
	b.startFile(w.o)
	s := &sink{format: format, dir: w.dir, prefix: fmt.Sprintf("%s-%04d", format, w.shard), b: b, enc: w.enc}
	if w.o.hive {
		s.dir = filepath.Join(w.dir, "format="+format)
		s.prefix = fmt.Sprintf("part-%04d", w.shard)
		s.hive = true
	}
	w.sinks[format] = s
	w.list = append(w.list, s)
	return s
}

// read converts one input.
func (w *worker) read(ctx context.Context, in *Input) (r inputResult) {
	r.events, r.err = w.readEvents(ctx, in, &r.rec)
	c := w.conv
	r.unpaired = InputUnpaired{Path: in.Path, Begins: c.begins - c.pairs, Ends: c.ends - c.pairs}
	return r
}

func (w *worker) readEvents(ctx context.Context, in *Input, rec **traceerr.Recovery) (n int64, err error) {
	c := w.conv
	c.begins, c.ends, c.pairs = 0, 0, 0
	// WithScopeData: WTF scopes with their appended data (scope_data).
	r, err := events.Open(in.Path, events.WithScopeData())
	if err != nil {
		return 0, inputError(in.Path, err)
	}
	defer r.Close()
	s := w.sink(r.Format())
	c.start(s.b, r.Format(), in.Path)
	if d, ok := r.Underlying().(*dial9.Reader); ok {
		c.d9dec = d
	}
	// The batches of the worker's other formats count against its row
	// group size: write them first when together they pass it.
	limit := w.o.rowGroupLimit()
	if w.buffered() >= limit {
		for _, o := range w.list {
			if o != s {
				if err := o.flush(); err != nil {
					return 0, fmt.Errorf("%w: %w", errWrite, err)
				}
			}
		}
	}
	limit = max(4<<10, limit-(w.buffered()-s.b.size))
	// A dial9 input's events go to addDial9 straight (what add does).
	var d9 *dial9.Reader
	if c.isDial9 && dial9Direct {
		d9 = c.d9dec
	}
	// The variable-length bytes the rows take (strings, bytes, args_json)
	// are charged as each event adds them, against the input's share of
	// the budget (rowBytesBudget): a file whose records name the same long
	// string over and over stops here, in time linear in its size.
	budget, charged := rowBytesBudget(in.Size), int64(0)
	for r.Next() {
		a0 := len(s.b.arena)
		if d9 != nil {
			c.addDial9(r.Event(), d9.Event())
		} else {
			c.add(r.Event())
		}
		n++
		if s.b.err != nil {
			return n, fmt.Errorf("%w: %s: event %d: %w", ErrLimit, in.Path, n, s.b.err)
		}
		if charged += int64(len(s.b.arena) - a0); charged > budget {
			return n, fmt.Errorf("%w: %s: event %d: the rows so far hold %d bytes of strings, bytes and args_json for %d bytes of input: over the export's budget for them (%d × input + %d MiB)",
				ErrLimit, in.Path, n, charged, in.Size, rowBytesRatio, rowBytesBase>>20)
		}
		if s.b.size-s.b.carried >= limit {
			if err := c.flush(s); err != nil {
				return n, fmt.Errorf("%w: %w", errWrite, err)
			}
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
		if n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			s.b.presize(limit)
		}
	}
	if err := r.Err(); err != nil {
		return n, inputError(in.Path, err)
	}
	*rec = r.Recovery()
	return n, nil
}

// The budget of the rows' variable-length bytes per input: rowBytesRatio
// bytes per input byte plus rowBytesBase, counted as the rows take them
// (not released when a row group is written, so that the time is bounded
// too). It is a quarter of the README's budget (64 × input + 16 MiB): the
// arena holding them grows by doubling (up to twice its bytes allocated),
// and the layer below may hold a copy of what it hands over (WTF scope
// data). An input that asks for more stops the export with ErrLimit.
const (
	rowBytesRatio = 16
	rowBytesBase  = 4 << 20
)

// rowBytesBudget is the bytes of strings, bytes and args_json an input of
// size bytes may put into rows.
func rowBytesBudget(size int64) int64 { return rowBytesRatio*max(size, 0) + rowBytesBase }

// inputError is the error of an input that cannot be read: ErrInput, the
// path, and the codec's error (which says at which byte offset, and what).
func inputError(path string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrInput, path, err)
}

// finishShard writes the last batches of the shard and closes its files.
func (w *worker) finishShard() error {
	for _, s := range w.list {
		if err := s.flush(); err != nil {
			return fmt.Errorf("%w: %w", errWrite, err)
		}
		if err := s.closeFile(); err != nil {
			return fmt.Errorf("%w: %w", errWrite, err)
		}
	}
	return nil
}

// abortShard closes the shard's open files unfinished (the export's
// temporary folder is removed).
func (w *worker) abortShard() {
	for _, s := range w.list {
		if s.file != nil {
			s.file.abort()
			s.file = nil
		}
	}
}
