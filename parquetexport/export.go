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
	"sync/atomic"

	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/traceerr"
)

// InputError is an input that failed under WithKeepGoing.
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

// Result is what Export did.
type Result struct {
	// Inputs are the traces read, in path order.
	Inputs []Input
	// Failed lists the inputs that failed (only with WithKeepGoing; without
	// it the first failure is Export's error).
	Failed []InputError
	// Recovered lists the inputs that were read only in part or leniently,
	// in path order, with what their codec says was lost.
	Recovered []InputRecovery
	// Events is the number of records read (a complete row holds two).
	Events int64
	// Rows is the number of rows written.
	Rows int64
	// InputBytes is the size of the inputs on disk.
	InputBytes int64
	// Files are the Parquet files written, relative to the output folder.
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
	inputs, err := ExpandInputs(paths...)
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

// export runs the workers, writing into dir.
func export(ctx context.Context, dir string, inputs []Input, o *options) (*Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	res := &Result{Inputs: inputs}
	for _, in := range inputs {
		res.InputBytes += in.Size
	}
	var (
		mu   sync.Mutex
		next int
		done int
		prog Progress
	)
	prog.Inputs = len(inputs)
	take := func() (Input, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(inputs) || ctx.Err() != nil {
			return Input{}, false
		}
		next++
		return inputs[next-1], true
	}
	report := func(in *Input, n int64, rec *traceerr.Recovery, failed error) {
		mu.Lock()
		defer mu.Unlock()
		res.Events += n
		if rec != nil {
			res.Recovered = append(res.Recovered, InputRecovery{in.Path, *rec})
		}
		if failed != nil {
			res.Failed = append(res.Failed, InputError{in.Path, failed})
		}
		done++
		prog.InputsDone, prog.Events = done, res.Events
		prog.InputBytes += in.Size
		if o.progress != nil {
			o.progress(prog)
		}
	}
	workers := min(o.concurrency, len(inputs))
	sinks := make([][]*sink, workers)
	var active atomic.Int64 // workers still reading inputs
	active.Store(int64(workers))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := &worker{id: w, dir: dir, o: o, conv: newConverter(o), enc: newEncoder(), sinks: map[string]*sink{}, active: &active}
			defer func() { sinks[w] = wk.list }()
			for {
				in, ok := take()
				if !ok {
					break
				}
				n, rec, err := wk.read(ctx, &in)
				if err != nil && !o.keepGoing || err != nil && errors.Is(err, errWrite) {
					cancel(err)
					report(&in, n, nil, nil)
					break
				}
				report(&in, n, rec, err)
			}
			active.Add(-1)
			if ctx.Err() == nil {
				if err := wk.finish(); err != nil {
					cancel(err)
				}
			}
		}()
	}
	wg.Wait()
	order := make(map[string]int, len(inputs))
	for i, in := range inputs {
		order[in.Path] = i
	}
	slices.SortFunc(res.Recovered, func(a, b InputRecovery) int { return order[a.Path] - order[b.Path] })
	var firstErr error
	if ctx.Err() != nil {
		firstErr = context.Cause(ctx)
	}
	for _, list := range sinks {
		for _, s := range list {
			if firstErr != nil {
				if s.file != nil {
					s.file.abort()
				}
				continue
			}
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
	if firstErr != nil {
		return nil, firstErr
	}
	return res, nil
}

// errWrite marks errors of the output, which stop the export even with
// WithKeepGoing.
var errWrite = errors.New("parquetexport: writing the dataset failed")

// worker decodes inputs and fills its own sinks, one per format.
type worker struct {
	id    int
	dir   string
	o     *options
	conv  *converter
	enc   *encoder
	sinks map[string]*sink
	list  []*sink
	// active counts the workers still reading: the memory bound is
	// shared among them.
	active *atomic.Int64
}

// limit is the size at which the worker writes a row group: its share of
// WithMemoryBytes among the workers still reading, at most
// WithRowGroupBytes.
func (w *worker) limit() int64 {
	return max(4<<10, min(w.o.rowGroupBytes, w.o.memoryBytes/max(1, w.active.Load())))
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
	s := &sink{format: format, dir: w.dir, prefix: fmt.Sprintf("%s-w%02d", format, w.id), b: newBatch(format), enc: w.enc}
	if w.o.hive {
		s.dir = filepath.Join(w.dir, "format="+format)
		s.prefix = fmt.Sprintf("part-w%02d", w.id)
		s.hive = true
	}
	w.sinks[format] = s
	w.list = append(w.list, s)
	return s
}

// read converts one input; n is the number of records read, rec what the
// codec recovered (nil when the input was clean).
func (w *worker) read(ctx context.Context, in *Input) (n int64, rec *traceerr.Recovery, err error) {
	n, err = w.readEvents(ctx, in, &rec)
	return n, rec, err
}

func (w *worker) readEvents(ctx context.Context, in *Input, rec **traceerr.Recovery) (n int64, err error) {
	// WithScopeData: WTF scopes with their appended data (scope_data).
	r, err := events.Open(in.Path, events.WithScopeData())
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrInput, in.Path, err)
	}
	defer r.Close()
	s := w.sink(r.Format())
	c := w.conv
	c.start(s.b, r.Format(), in.Path)
	if d, ok := r.Underlying().(*dial9.Reader); ok {
		c.d9dec = d
	}
	// The batches of the worker's other formats count against its share:
	// write them first when together they pass it.
	limit := w.limit()
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
	for r.Next() {
		if d9 != nil {
			c.addDial9(r.Event(), d9.Event())
		} else {
			c.add(r.Event())
		}
		n++
		if s.b.size >= limit {
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
			limit = max(4<<10, w.limit()-(w.buffered()-s.b.size))
			s.b.presize(limit)
		}
	}
	if err := r.Err(); err != nil {
		return n, fmt.Errorf("%w: %s: %w", ErrInput, in.Path, err)
	}
	*rec = r.Recovery()
	return n, nil
}

// finish writes the last batches, closes the files and lets the batches'
// memory go.
func (w *worker) finish() error {
	for _, s := range w.list {
		if err := s.flush(); err != nil {
			return fmt.Errorf("%w: %w", errWrite, err)
		}
		if err := s.closeFile(); err != nil {
			return fmt.Errorf("%w: %w", errWrite, err)
		}
		s.b = newBatch(s.format)
	}
	w.conv = nil
	return nil
}
