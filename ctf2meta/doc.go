// Package ctf2meta reads and writes CTF metadata streams: packetized metadata
// in its three header layouts, plain CTF 1.8 TSDL text, and CTF 2 metadata
// streams (RFC 7464 JSON text sequences of fragments) decoded into typed Go
// values.
//
// # Packetized metadata
//
// A packetized metadata stream is a sequence of packets, each a header, a
// piece of the metadata text and padding. The header starts with the magic
// 0x75d11d57, whose byte order gives the byte order of the other header
// fields. Three layouts exist (Layout):
//
//   - LayoutCTF18: CTF 1.8 §7.1, 37 bytes, version 1.8. LTTng ≤ 2.13 wrote
//     this to disk; lttng-ust's ring buffer still uses it, even around CTF 2
//     content.
//   - LayoutPMETA: CTF2-PMETA-1.0, 44 bytes, version 2.0, 3 reserved bytes and
//     a header-size field of 352 bits. No reference tool writes it; actf reads
//     it.
//   - LayoutV20Short: the 37-byte header with version 2.0 that the LTTng ≥ 2.15
//     kernel ring buffer uses for CTF 2 sessions. A version-2.0 header is
//     PMETA when its u32 at byte 40 is 352; bytes 37..39 being zero with any
//     other value is an error (in the 37-byte layout they are JSON text).
//
// Reader streams packets from an io.Reader (NewReader) or a byte slice
// (NewBytesReader, whose packet contents are views into the slice):
// Next/Packet/Err/All, or the concatenated content (Content); Depacketize
// appends the content of a byte slice to a caller's buffer. Every header is checked: magic, the byte order and UUID
// and layout of packet 0 kept by every packet, sizes multiples of 8, header ≤
// content ≤ total, compression/encryption/checksum schemes 0, version 1.8 or
// 2.0, PMETA header size 352, packet content inside the input, and the size
// limit. Errors are *FormatError values naming the packet index and the byte
// offset of the packet; they wrap the sentinels ErrBadMagic,
// ErrUnsupportedVersion, ErrUnsupported, ErrTruncated, ErrCorrupt, ErrLimit.
//
// Where CTF2-PMETA-1.0 and babeltrace disagree this package follows the
// document by default, and babeltrace with WithStrict(true):
//
//   - a non-zero checksum field is ignored (PMETA: "must ignore"); strict
//     rejects it as babeltrace 2.x does;
//   - bytes after the last packet that are fewer than a header are ignored and
//     reported (StreamInfo.TrailingBytes), as babeltrace 2.1.2 warns; strict
//     rejects them as babeltrace 2.1.0/2.1.1 did;
//   - missing padding of the last packet at the end of the input is tolerated
//     (babeltrace, actf); strict rejects it (yactfr).
//
// Nothing accepted leniently is silent: Reader.Recovery, FragmentReader.Recovery
// and StreamInfo.Recovery report the packets (or fragments) and bytes read,
// the trailing bytes ignored, the missing padding, the checksum fields
// ignored, the 37-byte v2.0 layout and the whitespace before a CTF 2
// stream's first RS (Recovery.Lenient, one phrase each), and
// Recovery.Summary gives the module's uniform traceerr.Recovery: trailing
// bytes are lost bytes (with the error strict mode gives as the reason),
// the rest are notes.
//
// Packets after the first must use packet 0's byte order (babeltrace does in
// effect) and layout (this package's choice: mixing versions in one stream is
// not something any producer does). The 37-byte v2.0 layout is accepted unless
// WithShortV20(false).
//
// Writer packetizes (NewWriter): WithLayout, WithByteOrder, WithUUID, WithPacketSize
// (fixed total size, last packet padded, as LTTng) or WithContentSize
// (content per packet plus fixed padding). It allocates one packet buffer in
// NewWriter and nothing per packet. AppendHeader and AppendPacket encode
// single packets into a caller's slice.
//
// # Plain metadata
//
// Detect classifies a raw stream as babeltrace 2.1 and yactfr do: packet magic
// → KindPacketized; first byte RS (0x1E) → KindCTF2; anything else →
// KindTSDL (the "/* CTF 1.8" signature is not required: LTTng 2.14 kernel
// traces lack it). ContentVersion decides the CTF version from depacketized
// content, never from the header version. ToPlain (to plain text) and
// ToPacketized (into a packet Writer) convert either form.
//
// WriteCheck says whether babeltrace2 reads a packetized output: it rejects
// CTF 2 content in any packet layout (it reads CTF 2 only as a plain file
// starting with RS) and TSDL in version-2.0 headers. AppendPlainForReaders
// writes plain metadata babeltrace2 reads: TSDL without the "/* CTF 1.8"
// signature gets TSDLSignature first, as babeltrace2 -o ctf-metadata does.
//
// # CTF 1.8 TSDL
//
// ParseTSDL parses TSDL text (typealias, typedef, integer, floating_point
// of 32 and 64 bits, string, enum, struct with align(N), variant, arrays,
// sequences, trace, env, clock, stream, event and callsite blocks; callsite
// blocks and unknown attributes are ignored as babeltrace2 does) into the
// same typed model as CTF 2, the way babeltrace2 2.1 translates CTF 1.8:
// enumerations become integers with mappings, arrays and sequences of 8-bit
// integers with an encoding become strings, the packet header's uuid a
// BLOB with the metadata-stream-uuid role when the trace block declares a
// uuid (else an array of 16 integers: CTF 2 allows the role only with a
// preamble uuid, and babeltrace2 reads such traces), sequence lengths and variant tags absolute field locations, variant
// options the ranges of their tag's labels, and the special field names
// (magic, uuid, stream_id, stream_instance_id, timestamp_begin,
// timestamp_end, content_size, packet_size, events_discarded,
// packet_seq_num, the event header's id and timestamp, any integer mapped to
// a clock there) CTF 2 roles; an unmapped timestamp (event header) or
// timestamp_begin/timestamp_end (packet context) maps to the only clock
// class, or to an implicit 1 GHz clock class "default" when there is none.
// One leading underscore of a field name is removed. The Metadata it returns passes the same CTF 2 rules as decoded
// JSON, and its fragments encode as CTF 2 (MarshalFragment): the LTTng 2.15
// trace recorded both ways translates to the data stream and event record
// classes LTTng's own CTF 2 writer wrote. Not supported: pointer types,
// floating-point numbers other than binary32/binary64, integers wider than
// 64 bits, a variant without a tag. An event block's loglevel (0 … 14) and
// model.emf.uri become its event record class's log-level and emf-uri
// attributes in the babeltrace.org,2020 namespace, as babeltrace2 2.1
// translates them (EventLogLevel and EventEMFURI read them there or, as
// babeltrace2 does, in LTTng's lttng.org,2009 namespace). Errors wrap ErrTSDL and name the line and column; nesting is
// bounded by Limits.MaxDepth and the field classes instantiated (aliases
// expand at each use) by 64 per input byte plus 4096 (ErrLimit). Package
// ctf decodes the data streams.
//
// AppendTSDL is the way back: it writes a model (from TSDL or CTF 2 JSON)
// as TSDL text, every field class inline. ParseTSDL of the text gives the
// same model for metadata ParseTSDL built (checked on every TSDL metadata
// of the vectors and of babeltrace's test traces), and babeltrace2 2.1.2
// prints the same events through it. What TSDL cannot express — booleans,
// bit arrays and maps, variable-length integers, BLOBs but the packet
// header's uuid, optionals, non-UTF-8 strings, roles TSDL would not derive
// from the member's name and scope, variants whose selector lacks one
// mapping per option, names that are not C identifiers — is refused with
// ErrUnsupported; an event record class's log level and EMF URI become
// loglevel and model.emf.uri; what does not change decoding (other
// attributes, namespaces, UIDs that are not UUIDs) is left out and listed.
//
// # CTF 2 metadata streams
//
// SeqReader splits an RFC 7464 JSON text sequence: RS starts each text, an
// LF after it is optional, consecutive RS bytes are skipped, an empty text is
// an error (ErrFraming). Whitespace before the first RS is skipped and
// reported (LeadingWhitespace) unless strict, because babeltrace reads such a
// file as TSDL.
//
// DecodeFragment turns one JSON text into a typed Fragment (*Preamble,
// *FieldClassAlias, *TraceClass, *ClockClass, *DataStreamClass,
// *EventRecordClass) whose field classes are typed too (*Structure,
// *FixedLengthUnsignedInteger, *Variant, … or an AliasRef). Required
// properties, value ranges (lengths, byte/bit orders, power-of-two
// alignments, display bases, encodings, float lengths, range sets, clock
// frequency and offset cycles, UUID bytes, unique member and option names,
// non-intersecting variant ranges, field locations) are checked and defaults
// applied. Unknown properties are rejected as babeltrace 2.1 does (the spec
// puts producer data in `attributes` and `extensions`); WithUnknownProperties
// drops them instead. Integers are exact (Integer covers [-2^63, 2^64-1]);
// attributes and extensions stay free-form JSON with json.Number numbers.
// A key given twice in one JSON object — in a fragment, a field class, a
// "mappings" or "flags" object, attributes, extensions or an environment —
// is invalid JSON text (ErrFraming, at the second key's offset), as babeltrace2
// 2.1.2 refuses it ("Duplicate JSON object key"); no value is kept.
// Data stream classes, event record classes and field class aliases (all
// but a handful of a stream's fragments) are decoded straight from the JSON
// text into the typed values; the other fragments, and any text that
// fragment decoder refuses, go through a generic JSON tree, which also
// gives every error its message and offset, so both ways give the same
// values and the same errors (FuzzDirectDecoder compares them).
//
// FragmentReader (NewFragmentReader; DecodeMetadata and Decode read a whole
// stream in one call) reads packetized and plain metadata alike, says which
// it found (Source), and adds the rules spanning fragments:
// preamble first and once; at most one trace class, before any data stream
// class; aliases defined before use, unique names; unique clock class ids,
// data stream class ids, and event record class ids per data stream class;
// clock classes and parent data stream classes before their users; scope
// field classes are structures; roles only where their scope allows them
// (packet-magic-number on the first 32-bit member, metadata-stream-uuid on a
// 16-byte BLOB with a preamble uuid, clock roles with a default clock class);
// field locations (lengths and selectors) resolve, through structures, to a
// member of the right kind in the same or an earlier scope (paths through
// arrays, optionals, variants or inside alias definitions are not followed);
// extensions used must be declared; at least one data stream class. A
// preamble declaring extensions is refused with ErrUnsupported, as CTF 2
// requires of a consumer that supports none, unless WithExtensions(true).
// Schema errors wrap ErrSchema, name the fragment number, its type and the
// property path, at the offset of the fragment's RS byte.
//
// FragmentWriter (NewFragmentWriter; Metadata.Encode), AppendFragment and
// MarshalFragment write fragments back as JSON with sorted keys (but the
// names of integer mappings, which keep their metadata order,
// IntegerProps.MappingOrder: babeltrace2 lists the labels of a value in an
// order derived from it, BabeltraceMappingOrder), compact (the
// babeltrace 2.1 form) or indented (WithIndent("  "), the LTTng 2.15 form),
// followed by LF with WithLF(true). A FragmentWriter over a packet Writer
// writes packetized CTF 2 metadata.
// Properties holding their default value are omitted, unless the decoded
// object had them explicitly (Common remembers which): decoded metadata of
// babeltrace 2.1.2 and of LTTng 2.15.1 re-encodes byte for byte, and
// decode → encode → decode gives identical values.
//
// # Limits, memory and time
//
// Limits bounds packet size (64 MiB), fragment size (16 MiB), fragment count
// (1<<20), field class nesting (MaxDepth, 64; JSON values may nest 3 ×
// MaxDepth + 8 = 200 deep) and the memory of decoded values. Every JSON value
// is charged what it costs in Go memory (48 bytes, plus 32 for an array, 320
// for an object, 80 per member, plus its string bytes); a stream whose values
// would be charged more than 32 bytes per byte of JSON text read plus 1 MiB
// (MemoryPerInputByte, MemoryBase), or more than Limits.MaxMemory (1 GiB),
// fails with ErrLimit. The packet Reader and the SeqReader grow their buffers
// only as input really arrives, so a lying size field costs no more than the
// input delivers.
//
// Budget: decoding any input, hostile or not, allocates in total at most
// 64 × its size + 16 MiB, in time linear in its size. Tests generate
// hostile inputs (huge arrays, deep nesting, long strings, many fragments,
// lying packet sizes) and check both: the worst measured is 30 × input (an
// event record class of 700 000 ranges whose last one is invalid: read to
// its end by the direct decoder, then again by the generic path for the
// error) and 150 ns of CPU per byte.
//
// Reader.Next, SeqReader.Next, Depacketize into a large enough dst, and
// Writer perform no allocations per packet or fragment after warm-up;
// fragment decoding allocates the typed values it returns.
//
// # Time per input byte
//
// BenchmarkLinear decodes the worst shapes of hostile_test.go at 1×, 4× and
// 16× a base size: CPU ns per input byte, worst of the three sizes, and per
// element. Measured with go test ./ctf2meta -run '^$' -bench Linear -benchtime 5x (BenchmarkLinear, process CPU time, 2 shared cores, AMD EPYC, Go 1.26):
//
//   - CTF 2 JSON (Decode): one array of numbers 41 ns/B (82 ns per
//     number); many event-record-class fragments 62 ns/B (1.2 µs per
//     fragment); variant options 44 ns/B; field locations 39 ns/B; the
//     fragments packetized (DecodeMetadata) 66 ns/B
//   - packetized TSDL: Depacketize 2.8 ns/B (0.3 at 1×: its one output
//     buffer of the content's size costs page faults as it grows; the
//     instructions do not grow: 182 k at 1×, 2.53 M at 16×, instr.sh
//     ./ctf2meta Linear/tsdl-depacketize/Nx "" '*linearDepacketize*'), the streaming
//     Reader 0.07 ns/B; plain TSDL text (ToPlain, a copy) 0.08 ns/B
//
// TestLinearAllocs checks that allocation per added input byte does not
// grow with the input.
//
// # API shape
//
// The package follows the module's API contract (API.md): readers have
// Next, a record accessor (Packet, Text, Fragment), Err and All; writers have
// Flush and Close (idempotent; ErrClosed after it); options are ReaderOption
// and WriterOption values validated when the reader or writer is built;
// errors are sticky.
//
// # Example
//
//	f, err := os.Open("trace/metadata") // packetized or plain
//	if err != nil { … }
//	defer f.Close()
//	md, err := ctf2meta.DecodeMetadata(f)
//	if errors.Is(err, ctf2meta.ErrFraming) { … } // e.g. CTF 1.8 TSDL text
//	if err != nil { … }
//	for _, erc := range md.EventRecordClasses {
//		fmt.Println(erc.ID, erc.Name)
//	}
package ctf2meta
