// Package parquetexport writes the events of many traces — dial9 segments,
// ATF sessions, WTF and CDT files, CTF trace folders — as one Parquet
// dataset that DuckDB, Spark and Trino read natively. It lives above the
// codecs: it reads through package events, and no codec package imports it
// or the Parquet library (github.com/parquet-go/parquet-go), so a program
// that imports only dial9 does not link them.
//
//	res, err := parquetexport.Export(ctx, "out", []string{"fleet/*/segments", "session_20250101_120000"},
//		parquetexport.WithHivePartitioning(true))
//
// # Inputs
//
// Files, folders and globs (see ExpandInputs): an ATF session, pid or thread
// folder and a CTF trace folder (an LTTng session's ust/uid/1000/64-bit or
// kernel folder; one without data streams has no events) are one input each,
// and so is a folder given whose only traces are CTF trace folders (an LTTng
// session folder: its traces read as one, as tracecat dump reads them);
// other folders are walked for traces; dial9 plain and gzip (.bin.gz) streams, WTF
// binary/JSON/legacy and CDT v1 files are read by their magic bytes.
// Inputs are decoded in parallel (WithConcurrency, default every core),
// shard by shard (see below).
//
// # The dataset
//
// Export writes the folder out (it must not exist) through a temporary
// folder beside it, renamed when every file is complete and removed on an
// error or a cancelled context. The inputs, in path order, are grouped into
// shards of about 64 MiB on disk (consecutive inputs); each shard is read
// by one worker goroutine into files of its own, one format per file:
// "FORMAT-SSSS-NN.parquet" (SSSS the shard), or with WithHivePartitioning
// "format=FORMAT/part-SSSS-NN.parquet", which engines read as a partition
// column format. So the same inputs and options give the same files, byte
// for byte, whatever the goroutines' scheduling and WithConcurrency. A shard
// starts a new file (NN+1) when a row group brings argument columns its
// current file lacks (or the file's metadata would pass 16 MiB), so files
// of one format may differ in their argument columns: read the dataset
// with DuckDB's union_by_name = true or Spark's mergeSchema.
//
// Columns, in this order (the first ten are in every file; under Hive partitioning the
// format column is the folder's, not the file's — Spark refuses a column
// that is also a partition column — and engines add it from the path):
//
//	format      STRING  "dial9", "atf", "wtf", "cdt", "ctf" (dictionary-encoded)
//	source      STRING  the input path (file, or folder for ATF and CTF)
//	track_kind  STRING  "trace", "thread", "worker", "zone" or "stream"
//	track       UINT64  track id within the input (ATF thread id, dial9
//	                    worker id, WTF zone number, for a CTF data stream
//	                    the position, in name order, of its first file
//	                    read): INT64 annotated
//	                    UINT(64), DuckDB UBIGINT
//	track_name  STRING  "thread_7", "worker 3", the zone's name, "cpu 3"
//	                    (a CTF stream with a cpu_id, else its file name), …
//	ts_ns       INT64   nanoseconds on the trace's own clock (ATF and dial9
//	                    timestamps, WTF µs × 1000, CDT elapsed_ms × 10⁶);
//	                    null when the record has no time. For a complete
//	                    row, the begin's time. A dial9 or ATF time at or
//	                    past 2^63 is stored as 2^63−1 (the documented
//	                    choice: the column stays INT64, which every engine
//	                    orders and subtracts as signed); the input's
//	                    recovery note (events.Reader.Recovery) says how
//	                    many, and dump --json carries them exactly.
//	dur_ns      INT64   end − begin for complete rows, else null
//	name        STRING  the event layer's name (dial9 schema name, "poll"
//	                    for PollStart/PollEnd, ATF symbol or 0x function id,
//	                    WTF event or scope name, "tick", the CTF event
//	                    record class name)
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
//	atf    atf_function_id, atf_depth (UINT64), atf_seq (UINT64, position
//	       in the thread's index.atf), atf_detail_type (STRING:
//	       FUNCTION_CALL, FUNCTION_RETURN or TYPE(n)) and atf_detail
//	       (BINARY), the linked detail.atf record's type and payload; in a
//	       complete row, atf_end_detail_type (STRING) and atf_end_detail
//	       (BINARY) are the return's
//	wtf    wtf_ARG for the arguments of the event definitions
//	ctf    ctf_FIELD for the top-level fields of the event records' common
//	       context, specific context and payload (structures, arrays and
//	       variants go to args_json); an enumeration or bit map also
//	       ctf_FIELD_label (STRING: its label, several joined by "|", null
//	       when none matches) beside its integer column (an array or
//	       variant of them: its labels, in args_json; a name a field of the
//	       event already has gets "_label" again: events' package doc)
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
// A begin (ATF call, dial9 PollStart on a worker, WTF scope enter) and the
// end that closes it on the same track become one "complete" row in the
// begin's place: ts_ns the begin's time, dur_ns the distance to the end
// (never negative), the begin's arguments plus those the end adds (an end's
// value that differs from the begin's goes to args_json as "end.NAME"; a
// WTF scope's appended data as "scope_data"). Which end closes which begin:
//
//	atf    a return closes the innermost open call of its own function
//	       (function_id), as a profiler unwinds a stack whose events were
//	       lost: the calls above it lost their returns and stay "begin"
//	       rows; a return with no open call of its function is an "end" row
//	dial9  a PollEnd closes the open poll of its worker; polls do not
//	       nest, so a poll still open when the next one starts lost its end
//	wtf    a leave closes the innermost open scope of its zone
//
// and in every format only a begin not later than the end (else the end is
// an "end" row). Pairing runs across row groups (open begins are carried
// into the next one), so the rows do not depend on WithRowGroupBytes. Each
// track keeps at most WithMaxPairDepth open begins, and an input at most
// 65 536 on all its tracks: a begin beyond them lets its track's oldest open
// begin go (a "begin" row; with lost returns the bottom of a deep stack is
// where the stale calls are), or when its track has none, stays a "begin"
// row itself and the next end of its track an "end" row. Begins still open
// when the input ends stay "begin" rows. Result.Unpaired counts, per input, the begins and ends
// left unpaired.
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
// 512 MiB of plain-encoded values with the default row groups). A worker
// writes a row group when its batches reach min(WithRowGroupBytes,
// WithMemoryBytes), and at most WithMemoryBytes / that many workers run at
// once — with the defaults at most 4, whatever the cores: raise
// WithMemoryBytes to run more (the row groups do not depend on the workers,
// so neither do the files). The size counted is the values' plain-encoded
// size plus 8 bytes per null slot of an argument column below its last
// value (a column holds a slot per row up to its last value), so that
// thousands of sparse columns make smaller row groups, not more memory; and
// an input may ask for at most WithMaxColumns (DefaultMaxColumns = 4096)
// argument columns per file, beyond which the export stops with ErrLimit.
// The strings, bytes and args_json an input's rows take are charged as
// each event adds them, written row groups included: more than 16 × the
// input's size + 4 MiB (a quarter of the README's 64 × input + 16 MiB, as
// the buffer holding them grows by doubling and the layer below may hold a
// copy) stops the export with ErrLimit, so a file whose records name one
// long string over and over fails in time linear in its size (20 000 WTF
// records naming one 1 MiB string: 1.37 MB that peaked at 354 MB before).
// On top of that come the open begins carried from one row group to the
// next (at most 65 536 rows per input), the column slices' spare capacity
// (they grow by doubling and are kept for the next row group while it
// uses half of them), the page being encoded, a file's metadata (at most
// 16 MiB), and the decoders' own documented budgets; a worker that has no
// input left lets its buffers go. Measured:
// 1 GiB of dial9 exported on one worker with the defaults peaks at
// 172–186 MB resident (ATF: 104 MB), two workers on dial9 at 364 MB (see
// the README).
//
// # Errors
//
// An input that cannot be read stops the export (nothing is written) with an
// error wrapping ErrInput, the path and the codec's *traceerr.FormatError
// (its byte offset and reason); when several fail at once, the first in
// path order is the error. With WithKeepGoing it is listed in Result.Failed instead
// and the rows read before the failure are kept, and a named path that
// holds no events (a CTF metadata file, a detail.atf file) is listed
// in Result.Skipped instead of being the error. ErrLimit (too many argument
// columns) and errors writing the dataset stop the export even with
// WithKeepGoing.
package parquetexport
