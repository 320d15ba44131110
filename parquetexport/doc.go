// Package parquetexport writes the events of many traces — dial9 segments,
// ATF sessions, WTF and CDT files — as one Parquet dataset that DuckDB,
// Spark and Trino read natively. It lives above the codecs: it reads through
// package events, and no codec package imports it or the Parquet library
// (github.com/parquet-go/parquet-go), so a program that imports only dial9
// does not link them.
//
//	res, err := parquetexport.Export(ctx, "out", []string{"fleet/*/segments", "session_20250101_120000"},
//		parquetexport.WithHivePartitioning(true))
//
// # Inputs
//
// Files, folders and globs (see ExpandInputs): an ATF session, pid or thread
// folder is one input; other folders are walked for traces; dial9 plain and
// gzip (.bin.gz) streams, WTF binary/JSON/legacy and CDT v1 files are read
// by their magic bytes. Inputs are decoded in parallel, one per goroutine
// (WithConcurrency, default every core).
//
// # The dataset
//
// Export writes the folder out (it must not exist) through a temporary
// folder beside it, renamed when every file is complete and removed on an
// error or a cancelled context. Each worker goroutine writes its own files,
// one format per file: "FORMAT-wNN-SSSS.parquet", or with
// WithHivePartitioning "format=FORMAT/part-wNN-SSSS.parquet", which engines
// read as a partition column format. A worker starts a new file (SSSS+1)
// only when a row group brings argument columns its current file lacks, so
// files of one format may differ in their argument columns: read the
// dataset with DuckDB's union_by_name = true or Spark's mergeSchema.
//
// Columns, in this order (the first ten are in every file; under Hive partitioning the
// format column is the folder's, not the file's — Spark refuses a column
// that is also a partition column — and engines add it from the path):
//
//	format      STRING  "dial9", "atf", "wtf", "cdt" (dictionary-encoded)
//	source      STRING  the input path (file, or folder for ATF)
//	track_kind  STRING  "trace", "thread", "worker" or "zone"
//	track       INT64   track id within the input (ATF thread id, dial9
//	                    worker id, WTF zone number, …)
//	track_name  STRING  "thread_7", "worker 3", the zone's name, …
//	ts_ns       INT64   nanoseconds on the trace's own clock (ATF and dial9
//	                    timestamps, WTF µs × 1000, CDT elapsed_ms × 10⁶);
//	                    null when the record has no time. For a complete
//	                    row, the begin's time.
//	dur_ns      INT64   end − begin for complete rows, else null
//	name        STRING  the event layer's name (dial9 schema name, "poll"
//	                    for PollStart/PollEnd, ATF symbol or 0x function id,
//	                    WTF event or scope name, "tick")
//	kind        STRING  "instant", "begin", "end", "complete", "counter",
//	                    "metadata"
//	args_json   STRING  JSON object of the arguments without a typed column
//	                    (dial9 stacks, maps and lists, WTF arrays, CDT
//	                    channels, values whose type differs from their
//	                    column's); null when there are none
//
// Typed argument columns follow, in name order, named FORMAT_ARG (characters other than letters,
// digits and _ replaced by _), nullable, typed from the format's schema:
// INT64 for signed integers, INT64 annotated UINT(64) for unsigned ones
// (DuckDB UBIGINT), DOUBLE, BOOLEAN, STRING, BINARY for bytes:
//
//	dial9  dial9_FIELD for every field of every schema (dial9_worker_id,
//	       dial9_task_id, …), pooled strings resolved
//	atf    atf_function_id, atf_depth, atf_seq (position in the thread's
//	       index.atf), atf_detail_type and atf_detail (the linked detail.atf
//	       record's type and payload; atf_end_detail_* for the return's)
//	wtf    wtf_ARG for the arguments of the event definitions
//	cdt    cdt_FIELD DOUBLE for each numeric field of WithCDTFields
//	       (default DefaultCDTFields, the set tracecat convert --to chrome
//	       draws), and the row's top-level scalars (cdt_tick_index,
//	       cdt_elapsed_ms, …)
//
// The first value of an argument name fixes its column's type; a later
// value of another type goes to args_json.
//
// # Complete events
//
// A begin (ATF call, dial9 PollStart/PollEnd on a worker, WTF scope enter)
// and the end that closes it on the same track become one "complete" row in
// the begin's place: ts_ns the begin's time, dur_ns the distance to the end,
// the begin's arguments plus those the end adds (an end's value that
// differs from the begin's goes to args_json as "end.NAME"; a WTF scope's
// appended data as "scope_data"). Each track keeps at most WithMaxPairDepth
// open begins; begins still open when the input ends or when their row group
// is written stay "begin" rows, and ends without a begin are "end" rows.
//
// # Row groups and memory
//
// Each worker decodes its input straight into column slices it owns and
// reuses from one row group to the next: int64 times, durations and track
// ids, dictionary ids for format, source, track_kind, track_name, name and
// kind, validity bitmaps for the nullable columns, and per typed argument
// column a value slot per row with its bitmap (strings and bytes in one
// arena; a dial9 pooled string is stored once per row group and pool id,
// its rows sharing the copy). When their Parquet plain-encoded size reaches WithRowGroupBytes
// (default 128 MiB) the columns are written as one row group, page by page,
// by the package's own page encoder (no per-value boxing): data pages v2 of
// at most 65 536 rows (BYTE_ARRAY pages end near 1 MiB), zstd at its fastest
// level, the dictionary strings RLE_DICTIONARY with one dictionary per
// column chunk (a typed string column falls back to PLAIN when its chunk has
// more than 65 536 distinct values or 1 MiB of them), every INT64 column
// DELTA_BINARY_PACKED, DOUBLE, BOOLEAN, bytes and args_json PLAIN; chunks
// carry null counts, and min/max for INT64 (unsigned order for UINT(64))
// and dictionary strings. The choices were measured on the generated 1 GiB
// dial9 and ATF inputs (TestGenerateBigInputs, BenchmarkExportBig): delta
// encoding halves the files against PLAIN and costs less CPU, as zstd then
// has far less to compress; zstd level 3 instead of 1 saves 0.2 % of the
// size for more CPU. DuckDB, Trino, Arrow and Spark 3.3 or later read
// DELTA_BINARY_PACKED; Spark before 3.3 needs its non-vectorized reader
// (spark.sql.parquet.enableVectorizedReader=false).
//
// Memory is bounded for the whole export, whatever the size and number of
// the inputs and the cores: the rows buffered by all the workers together
// stay under WithMemoryBytes (default DefaultMemoryRowGroups = 4 row groups,
// 512 MiB of plain-encoded values with the default row groups), each of the
// w workers still reading writing a row group when its batches reach
// min(WithRowGroupBytes, WithMemoryBytes/w) — with many cores the row groups
// get smaller rather than the memory larger, and a worker left alone with a
// big input gets full-size row groups again. On top of that come the column
// slices' spare capacity (they grow by doubling and are kept for the next
// row group), the page being encoded, and the decoders' own documented
// budgets; a worker that has no input left lets its buffers go. Measured:
// 1 GiB of dial9 exported on one worker with the defaults peaks at
// 172–186 MB resident (ATF: 104 MB), two workers on dial9 at 364 MB (see
// the README).
//
// # Errors
//
// An input that cannot be read stops the export (nothing is written) with an
// error wrapping ErrInput, the path and the codec's *traceerr.FormatError;
// with WithKeepGoing it is listed in Result.Failed instead and the rows read
// before the failure are kept.
package parquetexport
