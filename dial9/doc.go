// Package dial9 reads and writes dial9 traces (dial9-trace-format, header
// version 1), the self-describing binary format of dial9-tokio-telemetry.
//
// # The format
//
// A stream is the 5-byte header "TRC\x00\x01" followed by frames, each
// starting with a tag byte: schema (0x01: type id, name, has_timestamp,
// typed fields), event (0x02: type id, a 24-bit timestamp delta, the field
// values in schema order with no length prefix), string pool (0x03), stack
// pool (0x04), timestamp reset (0x05: absolute u64 ns) and schema
// annotations (0x06). Field types 1–5 and 7–13 are those of the version-1
// text; 6 (PooledStackFrames), 14 (DynamicList), 15 (DynamicMap) and the
// 0x80 optional modifier were added by upstream 0.3/0.4 without a version
// bump, and this package reads and writes all of them. Telemetry files are
// raw concatenations of complete streams (often gzip-compressed): a header
// at a frame boundary resets schemas, pools and the timestamp base.
//
// # Writing
//
// A Writer (NewWriter) produces the bytes of the upstream Rust encoder
// (0.2.0/0.4.0) for the same sequence of calls (verified on every reference
// vector): type ids 0, 1, 2… in first-registration order (WithTypeID for
// fixed ids), an identical re-registration writes nothing, one pool entry
// per pool frame written when a content is first interned (xxhash-keyed,
// separate string and stack counters), annotations right after their
// schema, and the reference timestamp rule: base 0 per stream, a reset
// frame when ts < base or ts − base > 0xFFFFFF, the base moving to every
// event's timestamp. Events are written with the typed EventWriter (Begin …
// End), WriteUints, or the generic WriteEvent([]Value); frames written while
// an event is open (InternString inside a Begin chain) are placed before
// it, and an event never ended is dropped. Unlike upstream's dynamic API,
// values are checked against the field types (a Varint is never written
// into a U16 field) and lengths over the format's maxima are errors, not
// silently truncated. Reset starts a new complete stream (the thread-local
// batch pattern); NewAppendWriter continues a stream a Reader has read,
// like upstream's Decoder::into_encoder. Close flushes and is idempotent;
// errors are sticky and a call after Close returns ErrClosed.
//
// # Writing from many goroutines
//
// A Writer belongs to one goroutine. To write one stream from many, use a
// SharedWriter (NewSharedWriter): it is safe for concurrent use and each
// goroutine takes its own ThreadWriter (sw.Thread()), which has the typed
// event API of a Writer (Register, Begin … End, WriteUints, WriteEvent,
// InternString, InternStack). A ThreadWriter buffers complete events and
// hands them to the stream in whole batches (WithBufferSize, default
// 64 KiB), taking the SharedWriter's lock once per batch, never per event;
// after warm-up an event costs what it costs on a Writer and allocates
// nothing. Schemas and pools are the stream's: a schema registered on any
// thread has one type id and its handle works on every thread, a pooled
// content has one id, and the schema and pool frames are written to the
// stream (under the lock, the first time a thread uses them) before any
// batch that refers to them. Each batch's first timestamped event is
// encoded against the stream's timestamp base when the batch joins the
// stream (a delta, or a reset frame when the reference rule needs one), so
// every event decodes to the timestamp it was written with.
//
// Ordering guarantees: the events of one ThreadWriter keep their order;
// batches of different ThreadWriters interleave whole, in hand-over order;
// timestamps across threads are therefore not sorted (readers that need
// time order merge by timestamp). Close every ThreadWriter (it hands over
// its last batch), then the SharedWriter.
//
// The other pattern, tokio telemetry's, is one Writer per goroutine, each
// writing complete streams into its own buffer (Reset between batches),
// the buffers appended to the file under the caller's lock: the file is a
// concatenation of streams and every batch repeats its schemas and pool
// entries. Readers handle both.
//
// # Reading
//
// NewBytesReader reads a byte slice (events, strings and stacks are views
// into it); NewReader reads an io.Reader through a bounded buffer; both
// return the same *Reader. Gzip input is recognised by its magic and
// decompressed on the fly (multi-member gzip too); offsets are then
// positions in the decompressed stream. Next/Event iterate over events,
// NextFrame/Kind over every returned frame, All is the range-over-func form
// (a decoding error is its last pair); Headers and StreamOffset tell which
// concatenated stream a frame belongs to. Pooled strings and stacks are
// resolved on demand (LookupString, LookupStack) against the pools as they
// stand at that event; an undefined id is not an error, it is just not
// found. Timestamps are nanoseconds, as tokio telemetry writes them.
//
// Where the reference decoders silently stop (they return "no more
// frames"), a Reader reports a *FormatError with the byte offset of the
// offending frame, wrapping a sentinel: ErrUnknownFrame, ErrUnknownType,
// ErrTruncated, ErrTimestampOverflow, ErrUnknownFieldType, ErrCorrupt. A
// conflicting re-registration of a type id is ErrSchemaConflict at the
// frame's start; an identical one is accepted. Errors are sticky.
//
// # Recovery
//
// A stream cut short (a writer killed mid-frame, a full disk, a copy cut
// short, a cut gzip member of a .bin.gz segment) or corrupted mid-frame
// ends with a sticky error by default. With WithRecovery the Reader instead
// delivers every complete event before the bad byte and then ends without
// error; Reader.Recovery says why (the error, wrapping its sentinel), the
// events delivered, the bytes read (up to the frame where decoding failed)
// and the bytes lost (the rest of the input, read through and counted), and
// whether the lost bytes held an event (1 when the input ends inside an
// event frame, 0 inside another frame, -1 unknown). A dial9 stream has no
// index and no sync marker (frames carry no length), so nothing after a bad
// byte can be found again: recovery keeps the prefix and loses the rest.
// Recovery.Summary gives the module's uniform traceerr.Recovery (unit
// "events"). I/O errors of the io.Reader stay errors.
//
// # Choices where the spec and the reference differ
//
//   - Version byte: the spec says to reject versions other than 1; the
//     reference readers never check it. Default: ErrUnsupportedVersion;
//     WithAnyVersion accepts any (tracecat uses it).
//   - has_timestamp = 0 schemas: events carry no delta and do not move the
//     base; Event.HasTimestamp is false and Timestamp returns the current
//     base (the newest upstream's reading).
//   - UTF-8: schema names, field names and annotation keys/values must be
//     valid UTF-8 (ErrCorrupt), as upstream. String and StringMap values
//     are exposed as raw bytes and never fail (upstream's owned decoder
//     replaces invalid sequences; its zero-copy one fails). String-pool
//     entries that are not valid UTF-8 are returned in their frame
//     (StringPoolEntry.ValidUTF8 false) but, as upstream, not inserted in
//     the pool, so their id stays unresolved.
//   - Varints: overlong encodings are accepted and bits beyond 64 in a
//     10th byte are dropped (upstream), an encoding needing an 11th byte is
//     ErrCorrupt. A Writer always writes minimal LEB128.
//   - DynamicList/DynamicMap element tags with the 0x80 bit are read as
//     their inner type without a presence byte (the Rust reader; the JS one
//     differs); a Writer never writes such tags, nor absent elements.
//   - Annotation frames for an unknown type id are returned but attach to
//     nothing; a type id over 65535 is truncated to 16 bits (upstream).
//   - A schema frame after annotations is compared without them, so an
//     identical re-registration of an annotated schema is accepted (the
//     reference 0.4 reports a spurious conflict).
//
// # Allocation and limits
//
// After warm-up (schemas registered or read, pool contents seen) encoding
// an event and decoding an event as a view allocate nothing; both are
// pinned by tests. Every count and length read from the input is checked
// against Limits (string/bytes length, stack frames, map and container
// entries, pool entries, container nesting, streaming frame size, retained
// pool bytes) and against the bytes the input still holds before anything
// is allocated; DefaultLimits documents the defaults.
//
// Memory budget: whatever the input, a Reader allocates at most 64 bytes
// per input byte read plus 16 MiB, garbage included (so its peak heap is
// within that too), where the input of a gzip stream is its compressed
// bytes. Everything it keeps is charged before it is allocated, per
// element: pool entries (24 bytes per dense id, 192 per sparse id, plus
// the copied contents for a streaming Reader), schemas and annotations,
// the streaming buffer and the per-event tables. A gzip stream that
// inflates to more than Limits.MaxDecompressionRatio (default 100) bytes
// per compressed byte, plus 1 MiB, stops with ErrLimit, as does a decode
// that would exceed the budget; Limits.MaxMemory replaces the budget by a
// fixed cap. Decoding time is linear in the input: a pool entry costs a
// slice store (a map insert for sparse ids), an event is decoded in place.
//
// # Time per input byte
//
// BenchmarkLinear decodes every frame (NextFrame) of the worst shapes of
// hostile_test.go within the limits, and of the densest event stream, at
// 1×, 4× and 16× a base size: CPU ns per input byte (compressed byte for
// .bin.gz), worst of the three sizes, and per frame. Measured with go test ./dial9 -run '^$' -bench Linear -benchtime 5x (BenchmarkLinear, process CPU time, 2 shared cores, AMD EPYC, Go 1.26):
//
//   - events, one varint field each: 1.6 ns/B, 18 ns/event streamed; 2.5
//     ns/B over memory; .bin.gz 9.6 ns per compressed byte
//   - string-pool entries under scattered ids: 34 ns/B, 513 ns/entry
//     streamed (28 over memory); .bin.gz 103 ns per compressed byte
//   - sequential pool ids, .bin.gz: 90 ns per compressed byte
//   - schemas: 14 ns/B, 451 ns/schema; .bin.gz 368 ns per compressed byte
//   - stack-pool entries: 2.7 ns/B; .bin.gz 116 ns per compressed byte
//
// A compressed byte costs at most the 100:1 ratio limit times a plain one.
// The pool and schema figures rise with the size (23 → 34 ns/B for pools
// from 1× to 16×) because their tables outgrow the CPU caches, not because
// the work does: the instructions per frame are the same at every size
// (instr.sh ./dial9 Linear/bytes-pool-sparse/Nx "" '*Reader*NextFrame*':
// 99.4 M, 397.5 M and 1,592.6 M instructions for 1×, 4× and 16×; schemas
// 6.20 M, 24.80 M, 99.06 M). TestLinearAllocs checks that allocation per
// added input byte does not grow with the input.
//
// # Example
//
//	var buf bytes.Buffer
//	w, _ := dial9.NewWriter(&buf)
//	poll, _ := w.Register("PollStartEvent", []dial9.FieldDef{
//		{Name: "worker_id", Type: dial9.TypeVarint},
//		{Name: "spawn_loc", Type: dial9.TypePooledString},
//	})
//	loc := w.InternString("src/main.rs:10:5")
//	w.Begin(poll, 1_000_000_000).Varint(3).PooledString(loc).End()
//	w.Close()
//
//	r, _ := dial9.NewBytesReader(buf.Bytes()) // NewReader(f) for files and .bin.gz
//	for r.Next() {
//		ev := r.Event()
//		loc, _ := r.LookupString(ev.Field(1).PoolID())
//		fmt.Println(ev.Name(), ev.Timestamp(), ev.Field(0).Uint(), string(loc))
//	}
//	if err := r.Err(); err != nil { … }
package dial9
