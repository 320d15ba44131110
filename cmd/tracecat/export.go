package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/parquetexport"
)

func init() {
	registerCommand(&command{
		name: "export", args: "--to parquet [--hive] [--row-group-mib N] [--memory-mib N] [--max-columns N] [--jobs N] [--fields FIELDS] [--keep-going] IN... OUT",
		summary: "many traces into one Parquet dataset for DuckDB, Spark, Trino",
		doc: `Reads every IN — trace files, folders (walked for traces: ATF session and thread
folders, CTF trace folders, dial9 .bin and .bin.gz segments, WTF and CDT files) and
globs — and writes their events as one Parquet dataset into the folder OUT, which must
not exist. The inputs are decoded in parallel (--jobs); OUT is written as a temporary
folder beside it and renamed when complete; an interrupt (Ctrl-C) removes it.

One row per event, with the columns format, source, track_kind, track, track_name,
ts_ns, dur_ns, name, kind, typed argument columns per format (dial9_<field>,
atf_function_id, atf_depth, atf_seq, atf_detail_type, atf_detail, atf_end_detail_type,
atf_end_detail, wtf_<argument>, cdt_<field>, ctf_<field>) and args_json for the arguments without a
column. A begin and the end that closes it become one "complete" row with dur_ns: an ATF
return closes the innermost open call of its own function (calls above it lost their
returns), a dial9 PollEnd the open poll of its worker, a WTF leave its scope — never an end
earlier than its begin. Begins and ends left unpaired stay "begin" and "end" rows, and
a note per input says how many. The inputs are grouped in path order into shards,
each written into files of its own, so the same inputs and options give the same files.
The files are zstd-compressed, with row groups of --row-group-mib MiB (uncompressed);
the rows buffered by all jobs together stay under --memory-mib MiB (fewer jobs run at
once when it holds fewer row groups than --jobs). A file holds at most --max-columns
typed argument columns: an input with more distinct argument names stops the export
(exit 1, nothing written). Query them
with DuckDB: SELECT name, count(*) FROM read_parquet('OUT/**/*.parquet', union_by_name
= true) GROUP BY name.`,
		examples: []string{
			"tracecat export --to parquet --hive fleet/host*/segments traces/session_20250101_120000 out",
			"tracecat export --to parquet 'logs/*.bin.gz' dial9.parquet.d",
		},
		run: (*cli).cmdExport,
	})
}

func (c *cli) cmdExport(args []string) int {
	fs := c.flags("export")
	to := fs.String("to", "", "target `FORMAT`: parquet (required)")
	hive := fs.Bool("hive", false, "write each format's files under OUT/format=NAME/ (Hive-style partitions engines prune by) (default: all files in OUT)")
	rowGroup := fs.Int64("row-group-mib", parquetexport.DefaultRowGroupBytes>>20, "uncompressed row group size in `MiB`, 1 to 1024")
	memory := fs.Int64("memory-mib", 0, "bound in `MiB` on the rows buffered by all jobs together, 1 to 65536 (default: 0, "+strconv.Itoa(parquetexport.DefaultMemoryRowGroups)+" row groups)")
	jobs := fs.Int("jobs", 0, "inputs decoded at once, each on its own goroutine, `N` ≥ 1 (default: 0, every core)")
	fields := fs.String("fields", "", "comma-separated numeric CDT `FIELDS` exported as DOUBLE columns cdt_<field> (default: "+strings.Join(parquetexport.DefaultCDTFields, ",")+")")
	maxCols := fs.Int("max-columns", parquetexport.DefaultMaxColumns, "most typed argument columns of one file, `N` from 1 to 1048576; more stop the export")
	keepGoing := fs.Bool("keep-going", false, "report an input that cannot be read, or a path that holds no events, as a warning and export the others (default: stop at the first, write nothing)")
	pos, code, ok := c.parse(fs, args, 2, -1)
	if !ok {
		return code
	}
	if *to != "parquet" {
		if *to == "" {
			return c.usageError("export", "--to is required (parquet)")
		}
		return c.usageError("export", "--to %s: the export target is parquet", *to)
	}
	if *rowGroup < 1 || *rowGroup > 1024 {
		return c.usageError("export", "--row-group-mib %d: want 1 to 1024", *rowGroup)
	}
	if *memory < 0 || *memory > 65536 {
		return c.usageError("export", "--memory-mib %d: want 1 to 65536", *memory)
	}
	if *maxCols < 1 || *maxCols > 1<<20 {
		return c.usageError("export", "--max-columns %d: want 1 to 1048576", *maxCols)
	}
	if *jobs < 0 {
		return c.usageError("export", "--jobs %d: want ≥ 0", *jobs)
	}
	opts := []parquetexport.Option{
		parquetexport.WithHivePartitioning(*hive),
		parquetexport.WithRowGroupBytes(*rowGroup << 20),
		parquetexport.WithKeepGoing(*keepGoing),
		parquetexport.WithMaxColumns(*maxCols),
	}
	if *memory > 0 {
		opts = append(opts, parquetexport.WithMemoryBytes(*memory<<20))
	}
	if *jobs > 0 {
		opts = append(opts, parquetexport.WithConcurrency(*jobs))
	}
	if *fields != "" {
		opts = append(opts, parquetexport.WithCDTFields(strings.Split(*fields, ",")...))
	}
	ins, out := pos[:len(pos)-1], pos[len(pos)-1]
	if out == "-" {
		return c.usageError("export", "OUT is a folder; standard output cannot hold a dataset")
	}
	var total int64
	if list, err := parquetexport.ExpandInputs(ins...); err == nil {
		for _, in := range list {
			total += in.Size
		}
	}
	p := newProgress("export", total, false)
	defer p.Done()
	var last int64
	opts = append(opts, parquetexport.WithProgress(func(pr parquetexport.Progress) {
		p.Add(pr.InputBytes - last)
		last = pr.InputBytes
	}))
	res, err := parquetexport.Export(c.context(), out, ins, opts...)
	p.Done()
	if err != nil {
		if errors.Is(err, parquetexport.ErrInput) || errors.Is(err, parquetexport.ErrLimit) || errors.Is(err, parquetexport.ErrNoInputs) {
			// The whole chain: the input's path, and the codec's offset
			// and reason.
			fmt.Fprintf(c.stderr, "tracecat export: %v (nothing written)\n", err)
			return exitInvalid
		}
		// Interrupts come back as the context's cause (exit 130/143 by
		// main).
		return c.fail("tracecat export", err)
	}
	for _, f := range res.Skipped {
		fmt.Fprintf(c.stderr, "%s: note: skipped, %v\n", f.Path, f.Err)
	}
	for _, f := range res.Failed {
		fmt.Fprintf(c.stderr, "%s: warning: skipped: %v\n", f.Path, f.Err)
	}
	for _, u := range res.Unpaired {
		fmt.Fprintf(c.stderr, "%s: note: %d begins and %d ends not paired (kept as \"begin\" and \"end\" rows)\n", u.Path, u.Begins, u.Ends)
	}
	for _, r := range res.Recovered {
		// The line every command prints (see recovery.go).
		fmt.Fprintf(c.stderr, "%s: recovery: %s\n", r.Path, &r.Recovery)
	}
	fmt.Fprintf(c.stdout, "%s: %d rows from %d events of %d inputs (%d bytes) in %d files\n",
		out, res.Rows, res.Events, len(res.Inputs)-len(res.Failed), res.InputBytes, len(res.Files))
	return exitOK
}
