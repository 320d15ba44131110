// Package ctf decodes the data streams of CTF traces — LTTng kernel and
// user-space traces, babeltrace2 sink.ctf.fs output, barectf traces — from
// the typed metadata model of package ctf2meta: CTF 2 JSON metadata, or
// CTF 1.8 TSDL translated by ctf2meta.ParseTSDL (ReadMetadata reads either
// form, packetized or plain).
//
// # Traces, streams, events
//
// OpenDir opens a trace folder: the metadata, every data stream file beside
// it (sorted by name; text sidecars are skipped and listed in Trace.Skipped,
// every other regular file is a data stream, as babeltrace2 reads it) and the
// LTTng packet indexes (index/NAME.idx, Stream.Index). Data stream files are
// read packet by packet into a buffer each stream reuses, as large as its
// largest packet (bounded by the file), not whole: memory does not grow with
// the trace; a stream's file is open while it is read (Trace.Close closes
// what is left open). NewTrace compiles a Metadata for Trace.AddStream over
// bytes held by the caller, or Trace.AddStreamReader over an io.ReaderAt.
//
// A Stream decodes one data stream file: Next, Event, Err, All. Scan reads
// the next event record as Next does and checks it as fully, without
// materialising its fields (Event.Decode does, on demand): it is what
// tracecat validate runs. A Reader (Trace.NewReader, or NewScanner with
// Scan) merges the streams of a trace by time as babeltrace2's muxer does:
// the smallest time in nanoseconds from the clock's origin first, equal
// times by data stream class id, then stream id, as babeltrace2's muxer
// orders them (a tournament of compares without branches: O(log N) per
// event for N streams).
// OpenSession opens several trace folders as one Session (an LTTng
// session folder: kernel/ beside ust/uid/1000/64-bit/, as babeltrace2
// reads it), whose Reader merges the streams of all its traces the same
// way, equal times in babeltrace2's muxer order (by trace, then data
// stream class id and stream id). As babeltrace2 2.1 does, a Reader reads the files of one data
// stream (same class and stream_instance_id; of one trace, or of a
// Session's traces sharing a UUID, which are one trace) as one stream,
// packets equal to one already read left out, and refuses streams whose
// clock classes babeltrace2's muxer cannot correlate
// (ErrClockCorrelation). An Event is a view valid until the
// next Next: its event record class, the default clock value after its
// header (Cycles; NS converts to ns from the origin, with the clock class's
// frequency and offset) and its fields as a flat pre-order slice of Field
// values holding no pointers (strings and BLOBs are views into the data
// stream: Event.Bytes; classes: Event.FieldClass), with the roots of the
// header, common context, specific context and payload scopes.
//
// What is decoded: packet headers (magic number and metadata UUID compared,
// data stream class and id) and contexts (content and total sizes, begin
// and end timestamps, discarded event record counter, sequence number),
// event record headers (the class id and timestamp wherever they are, so
// LTTng's compact and extended headers — an enumeration selecting a variant
// — work as any other), fixed-length integers, booleans, bit arrays and bit
// maps of 1 to 64 bits at any bit offset in either byte order (per field
// class), 32- and 64-bit floating-point numbers, LEB128 variable-length
// integers, null-terminated, static- and dynamic-length strings (UTF-8,
// UTF-16BE/LE, UTF-32BE/LE), static- and dynamic-length BLOBs, structures,
// static- and dynamic-length arrays, variants (integer selectors, signed or
// unsigned) and optionals.
// Alignment is relative to the packet start. A timestamp field of N < 64
// bits updates the low N bits of the stream's clock and adds 2^N when the
// value went back (wrap-around), as CTF specifies. Field locations are bound
// when the trace is compiled: each length or selector reads the value its
// target field last decoded (a path through a variant binds to the first
// option holding the named member).
//
// Strings in UTF-16 or UTF-32 are read as babeltrace2 2.1 reads them: up to
// the first null code unit (counted in code units from the string's start),
// which ends a null-terminated string and cuts a static- or dynamic-length
// one; the code units before it must be valid Unicode (an unpaired
// surrogate, a UTF-32 surrogate or value above U+10FFFF, or a partial code
// unit is ErrCorrupt, as babeltrace2's iconv conversion fails on them).
// Event.Bytes gives such a string's code units, Event.AppendText its UTF-8
// text (FieldClass.Encoding says which). Not decoded, as babeltrace2 2.1
// does not decode them either: fixed-length fields wider than 64 bits (it
// refuses the metadata) and floating-point numbers of other than 32 or 64
// bits (it aborts); NewTrace refuses them with ErrUnsupported naming the
// field.
//
// # Compiled decoding
//
// NewTrace compiles the packet header and context, the event record header
// of each data stream class and each event record class (common context,
// specific context and payload together) into flat programs: runs of
// byte-aligned little-endian integers read at fixed offsets after one
// bounds check, structures of a fixed field count closed at once, variants
// as jumps, arrays of plain integers as one loop. Scan runs skimming
// programs in which consecutive fields of a fixed size that no length,
// selector or role needs are one skip. An event record header whose fields
// lie at fixed offsets within its first 128 bits (LTTng's compact and
// large headers, an id and a timestamp, Score-P's 64-bit id and
// timestamp) is read from its first 16 bytes at once — by Scan, and by Next
// from a decoded template per variant option; a class of fixed-size fields
// is one bounds check, and classes of integers, strings, BLOBs and
// sequences run lean programs (skips folded into the next op, a sequence
// into its length's). For LTTng's headers, and for headers without a
// variant of a class id and a timestamp (DPDK's, CTF 2's), Scan has a body
// of its own, as Next has: the selector (the class id of a header without a
// variant, the extended header's class id) name the
// record's form — the header's and the class's first fixed-size bits, then
// up to 16 strings and sequences whose lengths precede them, each with the
// fixed-size bits after it — whose positions it checks against one limit
// per packet, with no call (TestScanFastMatchesNext, FuzzScanMatchesNext
// compare it with Next). After such a header, and in streams without event
// record headers, Next builds the fields of a class of integers (big-endian
// ones aligned to bytes too), 32- and 64-bit floating-point numbers,
// strings, BLOBs and arrays of plain integers from a template per class and header
// option: the whole pre-order field list with each field's class, member
// count and End. A stream keeps its own copy of each template it uses
// (within a budget of 2^16 fields), so per event Next writes only the
// values, string offsets and lengths, and array elements it reads at fixed
// offsets of segments that end at each field of variable size; of a class
// with arrays it keeps the last event whole with its element counts, so an
// event with the same counts is written in place too, and for one whose
// counts differ it moves the fields after each such array within the room
// of the kept buffer (16 elements in all, more once an event outgrew it)
// and writes the event in place, or, past that room,
// copies the fields after the first array (Event.Fields is therefore
// read-only: see Event). A template's segments are one flat
// program of ops run by one loop: a segment's start (one check that its
// bits lie within the packet content and that an 8-byte read at each of its
// integers lies within the loaded bytes), then its integers, each one
// unaligned 8-byte load at a fixed byte offset, a mask and a branch-free
// sign extension written into the field's value (bytes and fields reached
// through unsafe pointers that the segment's check covers), then its item
// of variable size (a string or BLOB of up to 8 bytes found in one word,
// an array's elements after one check). For LTTng's headers the selector
// names the template in one look-up (the extended header's class id in a
// second; a selector not at the header's first byte, or of over 8 bits,
// names it through the class id table), and the header, the clock and the class's program run in
// Next's own body with no call, one check covering the header and the
// class's first segment when that segment starts at a fixed place after
// the header; a longer string, an array whose count changed or a
// template not kept yet takes the general path. Where a
// skimming program or a template is unsure it hands the record to the
// decoding program, so Scan and Next fail on the same records with the
// same errors. The recursive field walk these replace stays as the
// reference the tests compare them with, field by field and error by
// error (TestCompiledMatchesWalk, FuzzCompiledMatchesWalk,
// TestNextFastMatchesWalk, TestNextFastShapesMatchWalk, FuzzNextFastMatchesWalk,
// FuzzNextBareMatchesWalk).
//
// # Losses and recovery
//
// Stream.Losses reports the gaps the tracer recorded: a discarded event
// record counter that grew between two packets (Loss.Events) and a gap in
// packet sequence numbers (Loss.Packets). The files of one data stream
// that a Reader reads as one count them across files (Loss.From names
// the file of the packet before such a gap); Reader.ByStream reads them
// stream after stream, with the same gaps, as tracecat validate does.
// With WithSkipDamagedPackets a damaged event record loses the rest of
// its packet, and a packet whose header or context is damaged is lost
// whole when the stream's LTTng index gives the next packet's place; the
// Recovery counts and notes both. A data stream file that ends
// before its last packet's declared size is recovered: every complete event
// record is read, and Stream.Recovery (a traceerr.Recovery) gives the cut
// packet as its Reason (an ErrTruncated error: which packet, how many bytes
// the file lacks) and counts the bytes of the incomplete record as lost;
// Trace.Recovery sums the streams' summaries. (babeltrace2 2.1 refuses such
// a trace; tracecat validate fails it, its other commands recover it.) A
// file that ends inside its first packet's header is ErrTruncated.
//
// A packet header whose UUID differs from the metadata's is read, as
// babeltrace2 2.1 reads it (two of babeltrace's own test traces have such
// packets), and Stream.Recovery notes it — how many packets, the first one
// and its UUID — so that tracecat stats and validate report it; with the
// WithStrictUUID option it is refused with ErrUUID. A packet header whose
// magic number is not 0xc1fc1fc1 is read and noted the same way (babeltrace2
// 2.1 never checks it); WithStrictMagic refuses it with ErrBadMagic.
//
// # Random access
//
// Stream.Packets lists the packets (offsets, sizes, clock values, counters)
// by reading only packet headers and contexts; SeekPacket restarts decoding
// at any of them. With an LTTng index (ParseIndex: CTF_INDEX 1.0 and 1.1),
// Stream.Index gives the same without reading the data, and CheckIndex
// compares the two (an error naming the index file, the entry and what
// differs). An index is a sidecar: OpenDir leaves out one it cannot read
// or parse and notes it in Stream.Recovery, reading the stream without it
// as babeltrace2 2.1 does.
//
// # Text
//
// Pretty renders events as babeltrace2's text.pretty sink does with its
// default options; the tests check every event of the LTTng 2.13 (CTF 1.8
// packetized), LTTng 2.15 (CTF 1.8 plain and CTF 2) and babeltrace2 2.1
// sink.ctf.fs traces of the interop vectors against babeltrace2's own output,
// byte for byte, and TestBabeltraceTracesText does the same for
// babeltrace's own CTF test traces (v2.1.2 tests/data/ctf-traces;
// references from tools/ctfbt/gen.sh): all 85 that babeltrace2 reads
// print identically.
//
// # Limits, memory and time
//
// Every length is checked against what the packet holds before use; an
// array may not make an event record hold more than
// Limits.MaxFieldsPerEvent fields (default 1<<20), compiled metadata at most
// Limits.MaxFieldClasses field classes (aliases expanded at each use;
// default 1<<20) nested at most Limits.MaxDepth (64) deep. An event record
// of 0 bits is refused (babeltrace2: "Invalid empty event record"), so
// decoding time is linear in the input. Errors are *FormatError values
// naming the byte offset in the data stream file and wrapping ErrMetadata,
// ErrUnsupported, ErrBadMagic, ErrUUID, ErrTruncated, ErrCorrupt, ErrLimit or ErrIndex; they
// are sticky.
//
// Stream.Next, Stream.Scan, Event.Decode and Reader.Next perform no
// allocations per event after warm-up (TestAllocsPerEvent,
// TestScanAllocs), nor does Pretty.Append. The constant text Pretty prints
// between values (member names, enumeration labels, each event record
// class's environment and name) is kept by NewTrace up to 1 MiB a trace
// (past that, Pretty prints it from the classes), and a stream keeps the
// text of its current packet's context when at most 4 KiB.
package ctf
