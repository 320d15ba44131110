// Package atf reads and writes ATF v2, the ADA Trace Format: per-thread
// function call/return traces recorded as two files per thread plus a session
// manifest.
//
//	session_YYYYMMDD_HHMMSS/pid_N/
//	    manifest.json        threads, time range, clock, optional modules/symbols
//	    thread_K/index.atf   64-byte header, fixed 32-byte events, 64-byte footer
//	    thread_K/detail.atf  64-byte header, length-prefixed records, 64-byte footer
//
// Every index event links forward to its detail record (detail_seq) and every
// detail record links back to its index event (index_seq, the event's
// position); both lookups are O(1).
//
// # Writing
//
// IndexWriter and DetailWriter write single files over an io.WriteSeeker
// (Close patches the header and appends the footer; closing twice is
// harmless). ThreadWriter writes a thread's pair, creating detail.atf on the
// first event with a payload and reserving both sequence numbers together so
// the links always agree; WriteFunction encodes the ARM64
// DetailFunctionPayload, Write takes any payload as raw bytes. CreateThread
// lays out one thread folder; SessionWriter (CreateSession) lays out a
// session folder, hands out one ThreadWriter per thread (Thread(id)) and
// writes manifest.json at Close. Low-level AppendIndexHeader,
// AppendIndexEvent, AppendIndexFooter, AppendDetailHeader,
// AppendDetailEventHeader, AppendDetailFooter encode single structures.
//
// ATF has no single-stream NewWriter: the format is two files per thread,
// each finalized by a header patch, so its writers are the ones above. Every
// writer has Flush and Close; errors are sticky and use after Close returns
// ErrClosed. Writers take WriterOption values, readers ReaderOption values.
//
// A ThreadWriter bounds what a crash can lose: both headers reach their files
// at creation, the buffered events are handed to the files every
// WithFlushEvery events (default 128, what the reference's 4 KiB stdio buffer
// holds), and the index always goes before the detail records that link back
// to it, so a killed process loses fewer than 128 events of each thread
// and leaves no detail record without its index event.
//
// The same bound in time: WithFlushInterval(d) makes a Write flush when its
// timestamp is d or more after the oldest unflushed event's (one comparison
// per event against the timestamps the caller passes; no clock is read), so
// the events a crash can take from a thread that keeps writing span less
// than d of its timestamps. A thread that stops writing keeps its last
// events in memory until it writes, flushes or closes: nothing runs on its
// behalf. WithBackgroundFlush(d) covers that: one goroutine per session (or
// per ThreadWriter made outside one) flushes every thread holding buffered
// events every d, under a per-thread mutex that every Write then takes, so
// an event is on file about d after its Write returned, idle thread or not;
// Close stops the goroutine first. Per-event cost, index-only events into a
// discarding sink (instr.sh ./atf ThreadWrite100k…, instructions in Write
// and what it calls, flushes included): 92.1 with the default bound (91.9
// before the time bound existed), 92.9 with WithFlushInterval, 155.8 with
// WithBackgroundFlush (the mutex). TestCrashLossBound kills writers with
// each bound and checks exactly which events are on file, TestFlushInterval
// checks the flush points event by event, and TestBackgroundFlushSession
// runs the flusher against writing goroutines (under -race) and checks it
// stops at Close.
//
// WithMmapOutput(true) (Linux) removes the bound: the writers write through
// a shared mapping of the file, so every event is in the file's pages when
// its Write returns and a killed process loses none, with no system call
// per flush; the file grows by ftruncate and MADV_POPULATE_WRITE (a full
// disk is an error, not a SIGBUS) and is truncated to its real size by Close (byte-identical to the
// write(2) output). An index file keeps a live footer after its last
// event, so that a killed writer's file, which ends in the zero bytes of
// its last growth step, reads as its events in the reference Rust reader
// too (but for a three-store window per event: see WithMmapOutput).
// TestMmapOutputCrash kills such writers at random moments and after
// their last Write, and reads the files with the Rust reader when
// ATF_RUST_REF names its bench driver.
//
// # Reading
//
// OpenIndex and OpenDetail read over an io.ReaderAt and a size, OpenIndexFile
// and OpenDetailFile a path (regular files only; the caller closes them),
// OpenIndexBytes and OpenDetailBytes memory. IndexFile and DetailFile are
// safe for concurrent use; the iterators taken from them are not.
// IndexFile.Event(seq) is O(1); OpenDetail scans the records once and keeps
// their offsets so DetailFile.Event(detailSeq) is O(1). IndexFile.Range(from,
// to) yields the events with from ≤ timestamp < to, by binary search when
// the file's timestamps are non-decreasing (checked once per file) and by
// filtering when they are not. OpenThread and OpenSession open folders;
// Session.All and Session.Range merge its threads by (timestamp, thread
// position, sequence number) — a merge, as in the reference, not a sort: a
// thread whose file is not timestamp-sorted comes out in file order.
// NewIndexReader reads an index file front to back from an io.Reader with
// the same validation and recovery as OpenIndex.
//
// Files opened by path are read through an io.ReaderAt by default; with the
// reader option WithMmap(true) they are mapped into memory (on unix systems)
// and detail payloads are zero-copy views of the mapping, valid until Close
// (over OpenDetailBytes they are views of the caller's bytes). Map only files
// nobody truncates while open: see WithMmap.
//
// Timestamps are nanoseconds on the clock the index header's clock_type
// names.
//
// To read index events in bulk, IndexFile.Blocks hands them out a block (up
// to BlockEvents) at a time as an []IndexEvent — a view of the file's bytes
// when it is mapped or in memory, the block read into the iterator's buffer
// otherwise — and the caller's loop over the slice does nothing per event but
// its own loads:
//
//	for b := f.Blocks(0); b.Next(); {
//		evs := b.Events()
//		for i := range evs {
//			e := &evs[i]
//			…
//		}
//	}
//
// Every reader and iterator (IndexIter from IndexFile.Events and Iter,
// DetailIter, IndexReader, Merger) has Next, Event, Err and All; All is the
// range-over-func form, which yields (value, nil) pairs and, when a read
// fails midway, one final (zero value, err) pair:
//
//	for e, err := range f.All() {
//		if err != nil {
//			return err
//		}
//		…
//	}
//
// A failing io.ReaderAt surfaces as a FormatError at the offset of the failed
// read wrapping the reader's error; a read that comes back short (the file
// shrank after it was opened) as ErrTruncated.
//
// # Crash recovery and problem reports
//
// A killed writer leaves the placeholder header and no footer. Readers then
// recover every complete event: index events from the file size (a torn last
// event is dropped), detail records by walking the length prefixes until a
// torn or invalid one. Recovered reports this and Discarded the bytes dropped.
// The reference readers hold the last 64 bytes of a detail file back for a
// footer that is not there and so lose up to two complete records; this
// package does not. A zero-byte index.atf, or one cut inside its header, opens
// through OpenThread as an empty recovered thread, and a session without
// manifest.json (the reference writes it only at stop) is opened by
// discovering its thread_* folders.
//
// Nothing is recovered silently. IndexFile.Problems, DetailFile.Problems,
// Thread.Problems and Session.Problems list what opening found, and
// Thread.Check and Session.Check add a walk over every link: each Problem
// has a kind (no footer, bytes dropped, a header field that disagrees with
// the file, dangling, orphaned or broken links, a missing manifest, thread
// folders left out), the path and byte offset, the events and bytes
// concerned, and why. No problems means the input is clean; Problem.Corrupt
// marks what no interrupted writer explains. Header lies do not mislead the
// readers: a footer_offset past the end of the file or before the events, or
// a damaged footer whose magic is right, never turns the footer into events.
// Summarize turns a problem list into the module's uniform recovery summary
// (traceerr.Recovery, unit "events": bytes dropped, events or records lost,
// where and why), the line tracecat prints for every format.
//
// Only regular files are read: a device, FIFO or socket (a manifest.json
// linked to /dev/zero) is refused with ErrNotRegular naming the path, without
// opening it for reading. In a session, a symbolic link that loops or leads
// out of the session folder is not followed; the thread folder or file it
// names is left out and reported.
//
// # Compatibility choices
//
// The reference notes correct the spec text in two places and this package
// follows the notes: the index footer has 24 reserved bytes (not 28) and the
// detail header ends with 4 reserved bytes after index_seq_end (64 bytes, not
// 60). The checksum fields are CRC-32 (IEEE) of the events section: writers
// store it by default (WithChecksum(false) stores 0 as the reference does,
// giving byte-identical files), readers treat 0 as "not computed" and verify a
// non-zero one only on request (VerifyChecksum). Header arch and os default to
// the host's, as in the reference. Open validates in the reference's order
// (size, magic, version, endian, event size) with the same outcome on every
// malformed reference vector; beyond the reference it rejects an
// events_offset inside the header, a footer_offset that is not events_offset
// plus whole events, a footer count that disagrees with the file, and a
// detail record overrunning its finalized section. A damaged footer behind a
// finalized header is recovered up to footer_offset (the reference counts the
// footer bytes as two bogus events), and a valid footer behind a placeholder
// header (a writer killed between the two final writes) is accepted and
// reported. Readers report time
// ranges of unfinalized files from their first and last events and skip empty
// threads in a session's range, where the reference reports 0.
//
// # Allocation and limits
//
// After warm-up, writers and iterators (IndexIter, DetailIter, IndexReader,
// Merger) do not allocate per event, and IndexFile.Event does not allocate.
// IndexIter works on blocks of raw events of up to 256 KiB (64 KiB per thread
// in a Merger) — slices of the file when it is in memory, reads through an
// io.ReaderAt — and decodes an event only when Event is called. The Merger is
// a loser tree, log₂(threads) branch-free comparisons per event, run ahead in
// batches that Next and Event only step through. DetailIter over a file in
// memory or mapped only counts the record on in Next (Event and the getters
// read its bounds from the offset table the open scan built), and every 256
// records touches the headers (the 16 bytes the getters read) of the 256
// records 512 on, so that they are on their way from memory together; Event
// copies out the record, decoded with its batch of 32 in one loop. The field
// getters of both iterators (IndexIter.Timestamp, DetailIter.IndexSeq, …)
// read one field in place; IndexBlocks hands out whole blocks of events in
// place, the cheapest way to read index events. On amd64 and arm64,
// IndexEvent's memory layout is the little-endian file layout (checked at
// compile time), so an event is decoded with one 32-byte copy; other
// architectures decode field by field. Opening a detail file allocates its
// offset table (8 bytes per record, bounded by the file size and
// Limits.MaxDetailEvents). Every count and length read from a file is
// checked against the file size and Limits before use.
//
// Memory budget: opening and reading any input allocates at most 64 × its
// size + 16 MiB (in practice far less: an index file needs no table at all,
// a detail file 8 bytes per record, a manifest is read only up to its
// limit), in time linear in its size. The hostile-input tests (header and
// footer lies, full disks, non-regular files, session links, manifest size)
// run under that bound.
//
// # Time per input byte
//
// BenchmarkLinear reads the worst shapes at 1×, 4× and 16× a base size
// (20,000 events; sessions of 8, 32 and 128 threads): CPU ns per input byte,
// worst of the three sizes, and per element. Measured with go test ./atf -run '^$' -bench Linear -benchtime 5x (BenchmarkLinear, process CPU time, 2 shared cores, AMD EPYC, Go 1.26):
//
//   - index (OpenIndexBytes, every event): 0.52 ns/B, 17 ns/event; streamed
//     (NewIndexReader) 0.48 ns/B; without footer (recovery scan) 0.49 ns/B
//   - detail, 1-byte payloads (the most records per byte): 1.7 ns/B, 42
//     ns/record
//   - manifest (ParseManifest): 23 ns/B, 2.6 µs per thread or symbol entry
//   - session (OpenSession, every event merged, files included): 4.4 ns/B,
//     200 ns/event
//
// No figure grows with the size beyond the machine's noise;
// TestLinearAllocs checks that allocation per added input byte does not
// grow either.
//
// # Example
//
//	sw, err := atf.CreateSession("traces", os.Getpid(), time.Now())
//	if err != nil { … }
//	mod := atf.ModuleID("/usr/local/bin/app")
//	tw, _ := sw.Thread(0) // one ThreadWriter per goroutine
//	tw.Write(100, atf.FunctionID(mod, 1), atf.KindCall, 1, nil)
//	tw.Write(150, atf.FunctionID(mod, 2), atf.KindCall, 2, argBytes) // + detail event
//	tw.Write(200, atf.FunctionID(mod, 1), atf.KindReturn, 1, nil)
//	err = sw.Close() // finalizes every file, then writes manifest.json
//
//	s, err := atf.OpenSession(sw.Dir()) // also opens crashed sessions
//	defer s.Close()
//	for e, err := range s.All() {
//		if err != nil { … }
//		fmt.Println(e.Timestamp, s.Threads[e.Thread].ID, e.Kind)
//	}
//
// The tracecat command (cmd/tracecat) validates, dumps, merges and converts
// ATF files and sessions to Chrome trace JSON; an index.atf given alone is
// read with the detail.atf beside it, when there is one.
package atf
