// Package cdt reads and writes CDT ("crimson debug trace") files, container
// format 1: the trace format of the crimson `dbg record|diff|bisect` tooling.
//
// # Format
//
// A file is the magic "crimson_debug_trace_v1\n", a u32le format version (1),
// a META chunk at offset 27, TICK chunks, a FOTR chunk and a 16-byte trailer
// ("CDTFTR1\n" + u64le offset of the FOTR chunk). Every chunk is a 32-byte
// header "<4siiIIIQ" (kind, start/end tick, flags, compressed_len,
// uncompressed_len, checksum64) and a payload: msgpack (flags bit 1), zstd
// compressed when flags bit 0 is set, one frame with its content size. The
// checksum is BLAKE2b with an 8-byte digest over the uncompressed payload,
// read little-endian. META holds the TraceMeta, each TICK chunk a TickBlock of
// rows (one TickRecord per tick), FOTR the TraceFooter with the block index
// used for random access.
//
// This package is schema-agnostic: it handles the container, the footer
// index and the tick_index of each row, and hands rows out as raw msgpack
// (Row.Raw). Package cdt/schema7 decodes and encodes the schema-v7 payload
// types and implements the reference's diff and bisect.
//
// # Reading
//
// Open (or OpenFile, OpenBytes) takes an io.ReaderAt and a size and returns a
// *File, a random-access view safe for concurrent use, after performing the
// reference reader's checks in its order, each reported as a *FormatError
// wrapping one sentinel: size (ErrSize), magic (ErrBadMagic), version
// (ErrUnsupportedVersion), trailer (ErrTrailer), META chunk, schema version
// (ErrSchemaVersion), FOTR chunk, footer counts and bounds (ErrFooter). Each
// chunk read checks kind (ErrChunkKind), length against the file
// (ErrTruncated) and Limits (ErrLimit), the zstd frame's declared content
// size against uncompressed_len before decompressing, decompression
// (ErrCorrupt), flags (ErrFlags), length (ErrSizeMismatch) and checksum
// (ErrChecksum). File.Tick finds a row through the footer index with the
// reference's semantics (first covering block, first matching row); Range and
// Iter walk rows in footer order; decoded blocks are kept in a small LRU
// cache (WithCacheBlocks); RawBlocks hands out whole chunks with their rows
// unsplit, for typed decoders that find row ends themselves
// (schema7.Records). WithConcurrency lets iteration decompress chunks ahead
// in parallel goroutines. NewReader returns a *Reader that walks chunks
// forward from an io.Reader without the footer and recovers the complete
// chunks of a trace whose writer never wrote its footer and trailer
// (Recovered, Recovery; see Recovery below). Readers and iterators follow the module's API (API.md):
// Next, Row, Err and All; one departure: tick windows (File.Range,
// File.Iter, File.RawBlocks, schema7.Records) include both bounds, as the
// reference's tick windows do, rather than being half-open. A stream over
// memory is NewReader(bytes.NewReader(b)); there is no NewBytesReader
// because rows are always views of decompressed chunk buffers, never of the
// input.
//
// # Writing
//
// NewWriter (or Create, which writes a temporary file renamed by Close)
// writes the header and META, buffers rows into TICK chunks of
// WithChunkTicks rows (default 256, by row count as the reference does),
// compresses each chunk as one single-segment zstd frame with its content
// size and no frame checksum (by default CompressionAuto: the fastest
// level unless probes every 64 chunks find the default level 2 % smaller;
// WithCompressionLevel), or stores it raw with flags = 2 (WithRawChunks), and
// on Close writes the FOTR chunk and the trailer. Rows must not decrease in tick_index (duplicates are
// allowed); unlike the reference, a bad row is rejected before anything is
// written, and a writer closed without rows writes nothing (ErrNoTicks).
// WithWriterConcurrency compresses chunks in parallel, still written in
// order; without it, WithChunkBatch(n) lets up to n ≤ 8 complete chunks be
// checksummed together before they are written (default 1: each at once).
//
// # Allocation contract
//
// After warm-up, Writer.WriteRow and Writer.Append allocate nothing per row
// (chunk buffers are pooled, also across writers), and Iterator.Next,
// RawBlocks and Reader.Next allocate nothing per row or chunk (buffers
// are pooled per File; a row's Raw bytes are valid until the iterator
// moves to the next chunk or finishes). Readers and writers with default
// settings share one zstd decoder and one encoder per level. Rows returned by File.Tick and File.Block come from cached
// blocks whose memory is never reused, so they stay valid.
//
// # Limits and memory budget
//
// Limits (DefaultLimits) bound the chunk size (256 MiB), the footer index
// (1<<22 blocks), rows per chunk (1<<20), the zstd window (64 MiB) and the
// decompression ratio (MaxDecompressionRatio, 100:1; a chunk of at most
// MinRatioFloor = 1 MiB uncompressed is exempt, but the file's chunks
// together may exceed the ratio by MinRatioFloor bytes only, so that
// decompression time stays linear in the input). A footer must list each
// chunk once, in file order, with the lengths of its header (ErrFooter
// otherwise, which WithRecovery answers with a forward scan). Every count and length read
// from the file is checked against these and against the bytes that remain
// before anything is allocated; a zstd chunk's uncompressed_len is checked
// against the ratio before it is decompressed, and the decoder never writes
// past uncompressed_len (a second frame, or a frame without content size,
// cannot grow the output). Exceeding a limit is ErrLimit.
//
// Budget: reading allocates at most 64·E + 16 MiB, where E is the input
// size S plus the decompressed size of each chunk held at once — one while
// iterating, n+1 with WithConcurrency(n), up to WithCacheBlocks more for Tick
// and Block — each at most MaxDecompressionRatio times its stored size, or
// MinRatioFloor. A hostile file therefore costs 64·S + 16 MiB plus a few
// MiB per chunk held, whatever it declares; the same bound covers typed
// decoding with package schema7 (its worst row, every array of structs at
// its 8192-element limit, takes about 32 MiB for a 1 MiB chunk of a 1 KB
// file). Tests generate the hostile inputs (ratio bombs, trailing frames,
// hostile counts, META values, the worst typed row) and assert the bound
// (counting the batch arenas mapped outside the Go heap with the heap's
// allocations) and a CPU-time bound. Time is linear in the bytes decompressed. The
// free-form META dicts are rendered to JSON by package schema7 within their
// own budget (see schema7.AppendJSON).
//
// A long stretch of identical rows can compress better than 100:1 (about
// 150:1 for 2 KB rows that differ only in their tick counters): such chunks
// are read as long as they stay within MinRatioFloor (256 default-sized
// rows of up to 4 KB); a trace with larger ones needs WithLimits with a
// higher MaxDecompressionRatio.
//
// # Time per input byte
//
// BenchmarkLinear reads traces of minimal rows (the most rows per stored
// byte) at 1×, 4× and 16× 20,000 ticks: CPU ns per stored byte, worst of
// the three sizes, and per row. Measured with go test ./cdt -run '^$' -bench Linear -benchtime 5x (BenchmarkLinear, process CPU time, 2 shared cores, AMD EPYC, Go 1.26):
//
//   - File (OpenBytes, every row): zstd chunks 35 ns/B, 54 ns/row; raw
//     chunks 4.1 ns/B, 63 ns/row; without trailer (recovery scan) 66 ns/B,
//     96 ns/row
//   - Reader (stream): zstd 25 ns/B, 38 ns/row; raw 1.8 ns/B, 29 ns/row
//
// zstd chunks cost more per stored byte because each stored byte is several
// decompressed ones (at most the 100:1 ratio limit). No figure grows with
// the size beyond the machine's noise; TestLinearAllocs checks that
// allocation per added input byte does not grow either. The META and typed
// tick decoders are in package schema7.
//
// # Recovery
//
// A writer killed before Close leaves no footer or trailer; a damaged tail
// leaves a footer that cannot be used. NewReader always reads such a trace
// forward and Open does so with WithRecovery: every complete, intact TICK
// chunk after META is read, and a Recovery report (File.Recovery,
// Reader.Recovery) says what was read (chunks, ticks, bytes), what was lost
// (bytes, and ticks from the torn chunk's header when it is readable) and
// why (Reason: the footer's error; Stop: what ended the scan). Rows the
// writer still held in memory never reached the file and are not counted.
// A File opened this way has a rebuilt Footer (no channel_counts) and
// FooterOffset -1. Recovery.Summary gives the report as the module's uniform
// traceerr.Recovery (unit "ticks"), the line tracecat prints for every format.
//
// # Performance
//
// Each chunk costs one BLAKE2b-64 of its payload on write and one on read,
// one zstd pass and the msgpack work. The checksum is part of the format and
// is never skipped. One BLAKE2b message is a serial chain of steps:
// internal/checksum's own scalar amd64 assembly hashes about 1.0–1.1 GB per
// CPU-second on this project's 2-core AMD EPYC (Zen 5) machines, level with
// CPython's hashlib and twice golang.org/x/crypto/blake2b's AVX2 code there,
// close to the bound that chain sets (one message in AVX-512 vector rows
// measured 0.6 GB/s). Several messages hash side by side, though: where the
// CPU has AVX-512, the sequential iterator (Iter, Range, All, RawBlocks,
// schema7.Records) reads and decompresses up to 8 chunks ahead while their
// payloads total at most 12 MiB (a larger chunk alone) and verifies their
// checksums in one eight-lane pass, about 4.5 GB per CPU-second in all;
// errors still come in file order, after every row before the failing
// chunk. A batch and its compressed bytes share one arena, which the
// iterator reuses and hands back to its File; arenas of 1 MiB and more are
// mapped outside the Go heap, aligned to 2 MiB and advised for transparent
// huge pages (Linux, "madvise" or "always"), and go back to a process-wide
// pool when their File is closed (or dropped), which keeps the pages of at
// most 32 MiB of idle arenas. Outside the heap, reading a file of large
// chunks starts no garbage collection in a short-lived process. On the
// project's virtual machines each 4 KiB page fault costs ≈15 µs and a new
// huge page 0.2–3.5 ms, which is what bounds the batch (see batchBytes
// and docs/performance.md). A one-goroutine Writer can batch the same way
// when asked (WithChunkBatch(n), n ≤ 8; the default, 1, writes every chunk
// as soon as it is complete): it holds up to n complete TICK chunks (while
// they total less than 8 MiB), hashes them in one pass, then compresses and writes
// each in order — the same bytes as writing each chunk at once (the
// checksum was a third of a typed write of the side-by-side benchmark's
// h8 rows). The chunk buffer then grows at once to a batch's size, not
// by doubling. Batching or not, a one-goroutine Writer's chunk buffer
// from 1 MiB on is an arena like the iterator's (mapped outside the Go
// heap, huge pages, pooled; back at Close or when the Writer is dropped),
// so a large chunk or batch costs few new pages and starts no garbage
// collection. A killed batching writer loses the chunks it still
// held (up to n − 1 complete ones, see Recovery); Flush writes every held
// chunk. A
// one-goroutine Writer compresses with zstd
// encoders of its own, handed to the next writer at Close: the shared
// encoder takes turns between its internal encoders, each with a history
// as large as a chunk to fault in. Encoders for payloads of up to 1 MiB
// have a 1 MiB window (the same bytes as the library's default of 8 MiB,
// whose history each encoder allocated and cleared whole). A chunk's
// checksum cannot be computed while rows are appended: a TICK payload
// starts with its end tick and row count, known only when the chunk is
// cut.
// WithConcurrency(n ≥ 2) decompresses and checks the next chunks in
// goroutines beside the caller's decoding, which takes the checksum off the
// critical path (wall-clock overhead under 15 % with two free cores);
// WithWriterConcurrency(n ≥ 2) compresses and checks chunks beside the
// caller's encoding. Both are off by default, so a File or Writer starts
// no goroutine unless asked. Both are safe: iteration hands out chunks in
// footer order, a Writer writes them in order, every goroutine ends with its
// chunk (Range, All, RawBlocks and schema7.Records close their iterator;
// call Iterator.Close when stopping an Iter early), and at most n+1 chunk
// buffers are held (the sequential iterator's read-ahead applies only
// without WithConcurrency). Measured numbers are in the benchmarks of this package
// and of schema7 (BenchmarkReadTyped, BenchmarkWriteTyped,
// BenchmarkContainerOverhead and their Parallel2 variants).
//
// # Choices where the spec and the reference notes differ
//
//   - The spec says the zstd flag must be set; the reference reader only
//     requires the msgpack flag and decompresses when bit 0 is set, so raw
//     chunks (flags = 2, as the upstream Zig producer writes) are accepted.
//   - Chunk header ticks are not validated (the reference does not), and
//     neither are chunk adjacency or META at positions other than 27 beyond
//     what reading requires.
//   - The writer's compressed bytes differ from python-zstandard's (pure-Go
//     zstd); payloads, checksums and framing match the reference exactly, and
//     raw (flags = 2) output is byte-identical to the reference writer's.
//   - Zstd errors and malformed msgpack, which the reference raises as
//     zstd.ZstdError or msgspec errors, are reported as ErrCorrupt.
//
// # Example
//
//	f, err := cdt.OpenFile("run.cdt")
//	if err != nil { … }
//	defer f.Close()
//	for row, err := range f.Range(100, 200) {
//		if err != nil { … }
//		fmt.Println(row.Tick, len(row.Raw))
//	}
package cdt
