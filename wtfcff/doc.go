// Package wtfcff reads and writes Google Web Tracing Framework (WTF) traces:
// the chunked file format (CFF, format version 10) in its binary form
// (.wtf-trace) and its JSON form (.wtf-json), decodes their event buffers
// (definitions, zones, scopes, every argument type), and reads the legacy
// big-endian BinaryTrace v3 files that predate CFF.
//
// # Format
//
// A binary file is a 12-byte header (u32 0xDEADBEEF, u32 WTF build number mod
// 2^32, u32 10) followed by chunks until the end of the file. A chunk is six
// u32 words (id, type, length including everything, start time, end time,
// part count), a part table of (type, offset, length) triples — offsets count
// from the end of the part table, lengths exclude padding — and the parts,
// each zero-padded to 4 bytes. The file_header chunk holds one JSON part
// (flags, timebase in ms, contextInfo, metadata); event_data chunks hold a
// string table (NUL-terminated UTF-8 strings addressed by chunk-local
// ordinals), a binary event buffer, and optional resources. Everything is
// little-endian.
//
// An event record is u32 wire id, u32 time (µs since the timebase), then its
// arguments in 4-byte slots: scalars one slot each (value in the low bytes,
// padding ignored on read and written as zeros), strings and any values as
// string-table ordinals (0xFFFFFFFF null, 0xFFFFFFFE ""), arrays a u32 count
// (0xFFFFFFFF null) and the packed elements padded to 4 bytes. Event types are
// defined in the stream by wtf.event#define records (wire id 1, the only fixed
// id); the decoder keeps definitions and zones across chunks, and a second
// definition of a name keeps the first type, as the reference does.
//
// # What the package offers
//
//   - Containers: NewReader and NewBytesReader return a Reader of any
//     container, chosen by the first bytes (Sniff, Reader.Kind): binary
//     chunks are streamed one at a time with the buffer reused (views of the
//     input over memory), JSON files go through a JSONReader (COMPLETE or
//     PARTIAL mode), legacy files through a LegacyReader (BinaryTrace v3).
//     Open, OpenFile and OpenBytes index a binary file's chunks for random
//     access (File). Every reader and iterator has Next, its record (Chunk,
//     Event), Err and All (an iter.Seq2 that ends with a (nil, err) pair on
//     failure); Events takes any of them, File included. ChunkWriter,
//     AppendChunk and JSONWriter write containers; BinaryToJSON and
//     JSONToBinary convert losslessly (files written by the reference come
//     back byte for byte, in both directions).
//
//   - Events: Decoder yields zero-copy Event views (name, time, zone, typed
//     Value accessors, JSON rendering) from binary, legacy and JSON event
//     buffers; Events wraps it as an iterator; ScopeTracker pairs enters and
//     leaves per zone (begin, end, duration, depth) and merges appended scope
//     data into the scope's arguments as the reference's database does;
//     Writer defines types once (the built-ins get the JS library's
//     wire ids 2–17), appends typed arguments through an EventBuilder,
//     de-duplicates strings per chunk with xxhash keys and starts a new chunk
//     when the event buffer reaches the chunk size. SharedWriter writes one
//     trace from many goroutines: each takes a ThreadWriter (Thread) with a
//     zone of its own and a private chunk, handed over whole under one lock
//     per chunk; ThreadWriter times are time.Durations since the trace start
//     (whole µs, wrapping every 2^32 µs, see SharedWriter and UnwrapTime).
//
//   - JSON events: part type 0x20000 (json_event_buffer), declared by the
//     reference but never implemented. Its body here is a JSON array with one
//     object per record, definitions and zone records included:
//
//     {"name":"app#frame","time":1500,"args":{"number":1,"label":"first"}}
//
//     time is the raw µs word; "args" is omitted for events without
//     arguments. Values: numbers for the integer types, flowId and time32
//     (µs, not the ms the JS API takes); the shortest float32 digits with
//     "NaN", "Infinity" and "-Infinity" as strings; strings for ascii, utf8,
//     char, wchar, char[] (Latin-1) and wchar[] (UTF-16; lone surrogates as
//     \uXXXX on write; encoding/json reads them back as U+FFFD); the stored
//     JSON text for any ({"$raw": text} when the text is
//     not valid JSON); arrays of numbers; null for null. EventsToJSON,
//     ChunkToJSONEvents, EventEncoder and ChunkFromJSONEvents convert between
//     binary event buffers and this encoding; a JSON event is written back
//     with the wire id of the latest definition of its name. The reference
//     tools ignore these parts, so the default JSON conversion keeps base64
//     binary buffers.
//
// # Allocation contract
//
// After warm-up, Reader.Next, Decoder.Next, Event and Value accessors (except
// Value.String; Event.Args into a slice with room), AppendEventJSON into a reused buffer, ScopeTracker.Add and
// every Writer, ThreadWriter and EventBuilder append (ThreadWriter chunk
// hand-overs included) do not allocate (pinned by AllocsPerRun tests). The decoder allocates for each new event type and zone (their
// names are copied). JSON containers are read by a scanner over the text that
// builds no tree and decodes base64 event buffers and string tables
// straight from the text into buffers reused from chunk to chunk; what it
// does not handle (escapes in keys, other key orders, numbers that are not
// plain integers, unknown chunk types, malformed text) is read by
// encoding/json from the start, with the same results and errors. They
// allocate per chunk at most (the file header), not per event.
//
// # Limits and errors
//
// Every length read from the input is checked before use: chunk lengths and
// part counts against Limits (defaults: 256 MiB chunks, 4096 parts) and the
// bytes present, part ranges against their chunk, array counts against the
// event buffer. A chunk is read in steps of at most 1 MiB beyond what has
// arrived, so a lying length costs only what the input delivers. Errors are
// *FormatError values with the absolute byte offset, wrapping ErrBadMagic,
// ErrUnsupportedVersion, ErrTruncated, ErrCorrupt, ErrUndefinedEvent,
// ErrUnsupportedType or ErrLimit; readers and decoders stop at the first
// error and keep returning it.
//
// # Memory and time budget
//
// Whatever the input, decoding it (Reader, File, JSONReader, LegacyReader,
// Decoder, ScopeTracker, the converters) allocates at most 64 bytes per
// input byte plus 16 MiB in all, so peak memory stays below that too, and
// takes time linear in the input. What the decoder keeps per element is
// accounted for, not only the bytes left: definitions that share a signature
// share its parsed arguments, zone strings are interned, strings of a chunk's
// table are hashed once per chunk however many records name them, JSON
// number arrays are scanned in place, and a ScopeTracker whose open scopes'
// copied names and arguments outgrow the budget stops with ErrLimit.
// TestHostileInputs builds the hostile classes (huge declared counts and
// lengths, many definitions or zones naming one long string, deep scope
// nesting, JSON containers with arrays of millions of elements, nesting
// beyond encoding/json's depth limit, many chunks) and asserts both bounds.
// Rendering events as text (AppendEventJSON, a dump) is proportional to the
// strings they name, however often, not to the input.
//
// # Time per input byte
//
// BenchmarkLinear decodes the worst shapes at 1×, 4× and 16× a base size
// (20,000 events), every event decoded: CPU ns per input byte, worst of the
// three sizes, and per event. Measured with go test ./wtfcff -run '^$' -bench Linear -benchtime 5x (BenchmarkLinear, process CPU time, 2 shared cores, AMD EPYC, Go 1.26):
//
//   - binary, argument-less 8-byte records (the most records per byte):
//     3.6 ns/B, 29 ns/event over memory; 4.7 ns/B, 38 ns/event streamed;
//     the api_public-like mix 1.1 ns/B
//   - JSON over memory (scanner): 4.1 ns/B, 44 ns/event; streamed through
//     encoding/json: 28 ns/B, 302 ns/event (the slowest WTF form)
//   - legacy: 2.9 ns/B, 42 ns/event
//
// No figure grows with the size beyond the machine's noise, and
// TestLinearAllocs checks that allocation per added input byte does not
// grow either (internal/lincost).
//
// # Recovery
//
// Writers write whole chunks, so a recording cut short (a killed writer, a
// full disk) ends inside its last chunk. A Reader reports ErrTruncated there,
// naming what a recovering read would salvage; with WithRecovery it delivers
// that chunk's complete parts and its event buffer up to the cut (Chunk.Torn),
// the Decoder drops the record the cut went through, and Reader.Recovery
// says what was read and what was lost (bytes, a range of events, why).
// TrimTorn cuts such a chunk after its last whole record so it can be written
// out. The string table precedes the event buffer: a cut inside it salvages
// nothing of the chunk (its events would read their strings as null).
//
// Every container and reader recovers the same way, with the same report
// (see Recovery for the units of each): a JSON file (JSONReader, or Reader
// over JSON text) delivers its whole chunk objects and, of the torn one, its
// complete parts and the complete base64 groups of its event buffer; a
// document that ends between chunks is read whole, its missing end
// reported. A legacy file (LegacyReader) is one event buffer: the record the
// cut goes through is dropped and reported. A File opened WithRecovery
// indexes the torn chunk as its last entry (ChunkInfo.Torn) and ReadChunk
// salvages it as the Reader does. TestRecoverEveryCut,
// TestRecoverJSONEveryCut (both JSON modes, streamed and over memory),
// TestRecoverLegacyEveryCut and TestFileRecoverEveryCut cut generated files
// at every byte offset and check the records delivered and the report.
//
// # Choices where the reference is accidental or silent
//
// The layout rules, constants and reader behaviour follow the reference
// implementation: google/tracing-framework at commit 89ca6c25 (2019-12-03),
// whose CFF and event code is unchanged since 2014-01, as built in the npm
// package tracing-framework@2015.7.15-1 run under node 20; the reference
// vectors were written and read by that build, and the tests compare with
// what its reader reported. Files written by this package — binary with
// chunk rotation, JSON, and event buffers re-encoded from the JSON event
// encoding — were loaded by that reader (wtf.db.load, node v20.20.2) with
// every zone, event, time, argument and scope equal to ours:
// TestReferenceReaderLoadsOurFiles repeats the check when WTF_NODE_MODULES
// names a node_modules folder holding the package.
//
//   - A file need not be a multiple of 4 bytes long nor at least 48 bytes
//     (the reference fails on both because it views the data as u32 arrays).
//     A header without chunks is an empty trace, not an error. Trailing bytes
//     too short for a chunk header are an error (ErrTruncated), as in the
//     reference.
//   - Unknown chunk types are delivered with their parts (when the part
//     table is consistent) for callers to skip, unknown part types are kept;
//     the converters copy both (in JSON as "chunk_0xN"/"part_0xN" base64
//     parts, which the reference skips).
//   - A part outside its chunk is an error (the reference does not check);
//     the last event-buffer or string-table part of a chunk wins; an
//     event_data chunk without an event buffer and a part type that does not
//     belong in its chunk are errors, as in the reference.
//   - An undefined wire id stops the decoding with ErrUndefinedEvent at the
//     record's offset (the reference fails the whole load). A record that
//     runs past its buffer is ErrTruncated (the reference reads garbage).
//     wtf.zone#set with an unknown zone id makes Event.Zone nil (the
//     reference crashes on the next event).
//   - Events before any wtf.zone#set are in a default zone, which the first
//     wtf.zone#create renames in place, as the reference's database does.
//   - JSONReader reads PARTIAL-mode files whole (the reference needs one
//     document per transport delivery and fails on such files).
//   - Only the low 16 bits of a record's wire id are used. Built-in events are
//     recognised by name and signature, never by wire id.
//   - Resource ids are 0-based indexes of the chunk's resource parts, as the
//     format documentation says (the JS writer's addResource returns 1-based
//     ids; nothing in WTF reads them).
//   - wtfVersion: the binary header keeps 32 bits; BinaryToJSON writes the
//     full build number for the known JS and C++ words (JSONVersion).
//   - The Writer de-duplicates strings (the JS writer does not), writes zero
//     padding (JS ring buffers leave stale bytes), numbers the file_header
//     chunk 1 and event chunks from 2, and writes chunk times as 0xFFFFFFFF.
//     The file header is written in the JS key order (type, flags, timebase,
//     contextInfo, metadata starting with nowTimeNs) with unknown keys kept.
//   - The legacy format's float32 values are in host (little-endian) order
//     as its writer stored them; string-table references there read as null.
//
// # Example
//
//	w, _ := wtfcff.NewWriter(f, wtfcff.WithFileHeader(wtfcff.FileHeader{Timebase: 1700000000000}))
//	frame, _ := w.Define(0, "app#frame(uint32 number, ascii label)", wtfcff.ClassScope, 0)
//	w.Begin(frame, 1500).Uint32(1).ASCII("first").End()
//	w.LeaveScope(2250)
//	w.Close()
//
//	r, _ := wtfcff.NewReader(f2) // binary, JSON or legacy
//	for e, err := range wtfcff.Events(r) {
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(e.Time, e.Name(), string(e.AppendArgsJSON(nil)))
//	}
package wtfcff
