package main

// CTF metadata support for tracecat, backed by package ctf2meta.
//
// Inputs: packetized metadata (CTF 1.8, CTF2-PMETA-1.0, 37-byte v2.0; either
// byte order), plain CTF 2 JSON text sequences (a leading-whitespace variant
// is read leniently and reported), plain TSDL text, and trace folders (their
// `metadata` file). LTTng packet index files get packet-level validate,
// stats and dump (ctf2meta_index.go); so do data stream files of traces with
// CTF 2 metadata (ctf2meta_stream.go: packet headers and contexts only).
// Other data streams are not decoded: commands say so. Offsets of
// fragments in dump are offsets in the depacketized metadata.
//
// convert --to plain writes the depacketized metadata. convert --to
// packetized[,OPTION...] packetizes (repacketizes packetized input) with:
//
//	le | be        header byte order (default le)
//	1.8            37-byte CTF 1.8 headers (default for TSDL content)
//	2.0            44-byte CTF2-PMETA-1.0 headers (default for CTF 2 content)
//	2.0-37         37-byte headers with version 2.0 (LTTng kernel ring buffer)
//	size=N         total packet size in bytes (default 4096)
//
// TSDL content in version-2.0 headers (2.0, 2.0-37) is refused unless
// --force: babeltrace 2.0 accepts only version 1.8 packets, and 2.1 reads
// version-2.0 packets as CTF 2, so both reject such a file. CTF 2 content is
// refused in every layout unless --force: babeltrace2 2.1 reads CTF 2 only
// as plain text (ctf2meta.WriteCheck). plain adds the "/* CTF 1.8 */" line
// to TSDL text that lacks it, as babeltrace2 -o ctf-metadata does
// (babeltrace2 2.0.4 rejects the file otherwise).
//
// The packet UUID is the input's packet UUID, else the CTF 2 preamble uuid,
// else the TSDL trace uuid, else zero.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/tracecodec/tracecodec/events/inspect"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/traceerr"
)

func init() {
	register(&format{
		name:     "ctf",
		validate: ctfValidate,
		stats:    ctfStats,
		dump:     ctfDump,
		convert:  ctfConvert,
		sample:   ctfSample,
	})
}

// ctfMeta is a loaded and checked metadata stream.
type ctfMeta struct {
	raw     []byte // nil when streamed (ctfLoadStreamed)
	size    int64  // bytes of input
	plain   []byte
	info    ctf2meta.StreamInfo
	packets bool
	meta    *ctf2meta.Metadata // CTF 2 only
	leading int
}

var errCTFNotMetadata = errors.New("only CTF metadata is supported: pass the trace folder or its metadata file")

// ctfRead returns the raw metadata bytes of in.
func ctfRead(in *input) ([]byte, error) {
	if in.IsDir() {
		// Only a regular file is read: a link to /dev/zero would grow
		// without bound, a FIFO would block.
		p := filepath.Join(in.Path, "metadata")
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file (%s)", p, fi.Mode().Type())
		}
		return os.ReadFile(p)
	}
	switch in.Variant() {
	case "data stream", "LTTng packet index":
		return nil, fmt.Errorf("%s: %w", in.Variant(), errCTFNotMetadata)
	}
	return in.Bytes()
}

// ctfLoad reads, depacketizes and (for CTF 2) decodes the metadata of in.
func ctfLoad(in *input) (*ctfMeta, error) {
	raw, err := ctfRead(in)
	if err != nil {
		return nil, err
	}
	m := &ctfMeta{raw: raw, size: int64(len(raw)), plain: raw}
	if ctf2meta.Detect(raw) == ctf2meta.KindPacketized {
		m.packets = true
		if m.plain, m.info, err = ctf2meta.Depacketize(nil, raw); err != nil {
			return nil, err
		}
	}
	if ctfIsJSON(m.plain) {
		d, _ := ctf2meta.NewFragmentReader(bytes.NewReader(m.plain))
		for d.Next() {
		}
		if err := d.Err(); err != nil {
			var fe *ctf2meta.FormatError
			if m.packets && errors.As(err, &fe) {
				// Offsets count in the depacketized stream: say so.
				e := *fe
				e.Msg = "depacketized metadata: " + fe.Msg
				return nil, &e
			}
			return nil, err
		}
		m.meta, m.leading = d.Metadata(), d.Source().LeadingWhitespace
	}
	in.setRecovery(m.recovery)
	return m, nil
}

// ctfPeek is how much of a metadata file ctfLoadStreamed looks at first.
const ctfPeek = 64 << 10

// ctfLoadStreamed decodes plain CTF 2 metadata (a file or a trace folder's
// metadata file) through ctf2meta's FragmentReader in one pass over the
// file, as ctfLoad does over the bytes of the whole file, but without
// holding them: validate's memory is then the decoded metadata alone.
// streamed is false, and nothing is read, for anything else (standard
// input, packetized metadata, TSDL text, whitespace longer than ctfPeek
// before the first RS): ctfLoad reads those whole.
func ctfLoadStreamed(in *input) (m *ctfMeta, streamed bool, err error) {
	path := in.Path
	if in.IsDir() {
		path = filepath.Join(in.Path, "metadata")
	} else if in.Path == "-" || in.Variant() == "data stream" || in.Variant() == "LTTng packet index" {
		return nil, false, nil
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false, nil // ctfLoad reports it
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	cr := &countReader{r: in.readCloser(f)}
	br := bufio.NewReaderSize(cr, ctfPeek)
	head, err := br.Peek(ctfPeek)
	if err != nil && err != io.EOF {
		return nil, false, nil
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	if ctf2meta.Detect(head) == ctf2meta.KindPacketized || len(t) == 0 || t[0] != ctf2meta.RS {
		return nil, false, nil
	}
	d, _ := ctf2meta.NewFragmentReader(br)
	for d.Next() {
	}
	if err := d.Err(); err != nil {
		return nil, true, err
	}
	m = &ctfMeta{size: cr.n, meta: d.Metadata(), leading: d.Source().LeadingWhitespace}
	in.setRecovery(m.recovery)
	return m, true, nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// recovery is the uniform summary of the metadata: ctf2meta's report of the
// packets (or the JSON text) read and what was accepted leniently, with
// tracecat's own note on TSDL text without its signature.
func (m *ctfMeta) recovery() *traceerr.Recovery {
	rec := ctf2meta.Recovery{Kind: ctf2meta.KindCTF2, Bytes: m.size}
	if m.packets {
		rec = m.info.Recovery()
	}
	if m.meta != nil {
		rec.Fragments = len(m.meta.Fragments)
		rec.LeadingWhitespace = m.leading
	}
	s := rec.Summary()
	if !m.packets && m.meta == nil {
		s.Unit, s.Read = "bytes of TSDL text", int64(len(m.plain))
	}
	if m.meta == nil && !ctf2meta.HasTSDLSignature(m.plain) {
		s.Notes = append(s.Notes, `TSDL text without the "/* CTF 1.8" signature`)
	}
	return &s
}

// ctfIsJSON reports whether plain metadata is CTF 2, also when whitespace
// precedes the first RS.
func ctfIsJSON(plain []byte) bool {
	t := bytes.TrimLeft(plain, " \t\r\n")
	return len(t) > 0 && t[0] == ctf2meta.RS
}

func (m *ctfMeta) version() string {
	if m.meta != nil {
		return "2.0"
	}
	return "1.8"
}

var ctfTSDLEvent = regexp.MustCompile(`(?m)(^|[\s;}])event\s*\{`)

func (m *ctfMeta) eventClasses() int {
	if m.meta != nil {
		return len(m.meta.EventRecordClasses)
	}
	return len(ctfTSDLEvent.FindAllIndex(m.plain, -1))
}

func (m *ctfMeta) warnings() []string {
	w := m.info.Warnings()
	if m.leading > 0 {
		w = append(w, fmt.Sprintf("%d byte(s) of whitespace before the first RS skipped; babeltrace 2.1 and yactfr read this file as TSDL, not CTF 2", m.leading))
	}
	if m.meta == nil && !ctf2meta.HasTSDLSignature(m.plain) {
		w = append(w, `TSDL text without the "/* CTF 1.8" signature`)
	}
	return w
}

// ctfIndexBytes returns the bytes of an LTTng packet index input, or nil.
func ctfIndexBytes(in *input) ([]byte, error) {
	if in.IsDir() || in.Variant() != "LTTng packet index" {
		return nil, nil
	}
	return in.Bytes()
}

func ctfValidate(in *input) (string, error) {
	if in.Variant() == "data stream" && !in.IsDir() {
		return ctfStreamValidate(in)
	}
	if b, err := ctfIndexBytes(in); b != nil || err != nil {
		if err != nil {
			return "", err
		}
		return ctfIndexValidate(b)
	}
	m, streamed, err := ctfLoadStreamed(in)
	if !streamed {
		m, err = ctfLoad(in)
	}
	if err != nil {
		return "", err
	}
	var parts []string
	if m.packets {
		parts = append(parts, fmt.Sprintf("%d packet(s), %s headers, %s", m.info.Packets, m.info.Layout, m.info.ByteOrder))
	} else {
		parts = append(parts, "plain text")
	}
	if m.meta != nil {
		parts = append(parts, fmt.Sprintf("CTF 2, %d fragments", len(m.meta.Fragments)))
	} else {
		tm, err := ctf2meta.ParseTSDL(m.plain)
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("CTF 1.8 TSDL, %d bytes, %d event classes", len(m.plain), len(tm.EventRecordClasses)))
	}
	for _, w := range m.warnings() {
		parts = append(parts, "warning: "+w)
	}
	if in.IsDir() {
		sum, problems, err := ctfTraceCheck(in)
		if err != nil {
			return "", err
		}
		parts = append(parts, sum)
		for _, p := range problems {
			parts = append(parts, "warning: "+p)
		}
	}
	return strings.Join(parts, "; "), nil
}

func ctfStats(in *input) (statList, error) {
	if in.Variant() == "data stream" && !in.IsDir() {
		return ctfStreamStats(in)
	}
	if b, err := ctfIndexBytes(in); b != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return ctfIndexStats(b)
	}
	m, err := ctfLoad(in)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(m.plain)
	st := statList{
		{"packets", m.info.Packets},
		{"metadata_bytes", len(m.plain)},
		{"metadata_sha256", hex.EncodeToString(sum[:])},
		{"byte_order", nil},
		{"version", m.version()},
	}
	if m.packets {
		st[3].Value = m.info.ByteOrder.Short()
		st = append(st, stat{"header_version", m.info.Layout.VersionString()}, stat{"header_bytes", m.info.Layout.HeaderSize()}, stat{"uuid", m.info.UUID.String()})
		if m.info.TrailingBytes > 0 {
			st = append(st, stat{"trailing_bytes", m.info.TrailingBytes})
		}
	}
	if m.meta != nil {
		st = append(st, stat{"fragments", len(m.meta.Fragments)}, stat{"fragments_by_type", m.meta.CountByType()})
		if m.leading > 0 {
			st = append(st, stat{"leading_whitespace", m.leading})
		}
	} else {
		st = append(st, stat{"tsdl_signature", ctf2meta.HasTSDLSignature(m.plain)})
	}
	st = append(st, stat{"event_classes", m.eventClasses()})
	return st, nil
}

func ctfDump(in *input, w *bufio.Writer, o dumpOptions) error {
	if in.IsDir() && !ctfMetadataRecord[o.Type] {
		return ctfTraceDump(in, w, o)
	}
	if _, _, err := o.bounds("CTF metadata or a data stream's packets", inspect.Index, false); err != nil {
		return err
	}
	if in.Variant() == "data stream" && !in.IsDir() {
		return ctfStreamDump(in, w, o)
	}
	if b, err := ctfIndexBytes(in); b != nil || err != nil {
		if err != nil {
			return err
		}
		return ctfIndexDump(b, w, o)
	}
	raw, err := ctfRead(in)
	if err != nil {
		return err
	}
	want := func(kind, typ string) bool {
		return o.Type == "" || o.Type == kind || o.Type == typ
	}
	plain := raw
	// m is filled in as the input is read, for the recovery line.
	m := &ctfMeta{raw: raw, size: int64(len(raw)), plain: raw}
	in.setRecovery(m.recovery)
	if ctf2meta.Detect(raw) == ctf2meta.KindPacketized {
		r, _ := ctf2meta.NewReader(bytes.NewReader(raw))
		m.packets = true
		defer func() { m.info = r.Info() }()
		plain = make([]byte, 0, len(raw))
		for r.Next() {
			p := r.Packet()
			plain = append(plain, p.Content...)
			if !want("packet", "") || !o.inIndex(int64(p.Index)) {
				continue
			}
			h := &p.Header
			if o.JSON {
				rec := map[string]any{"record": "packet", "index": p.Index, "offset": p.Offset, "layout": ctfLayoutName(h.Layout),
					"byte_order": h.ByteOrder.Short(), "version": fmt.Sprintf("%d.%d", h.Major, h.Minor), "uuid": h.UUID.String(),
					"checksum": h.Checksum, "content_bits": h.ContentBits, "total_bits": h.TotalBits, "header_bytes": h.HeaderSize(),
					"content_bytes": h.ContentSize(), "padding_bytes": h.PaddingSize()}
				if err := ctfWriteJSON(w, rec); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "packet %d offset %d: %s %s uuid=%s checksum=0x%x content=%d padding=%d\n", p.Index, p.Offset,
					ctfLayoutName(h.Layout), h.ByteOrder.Short(), h.UUID, h.Checksum, h.ContentSize(), h.PaddingSize())
			}
		}
		if err := r.Err(); err != nil {
			return err
		}
		for _, warn := range r.Info().Warnings() {
			if o.JSON {
				// JSON Lines output stays parseable: warnings are records too.
				if err := ctfWriteJSON(w, map[string]any{"record": "warning", "message": warn}); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(w, "# warning: %s\n", warn)
		}
	}
	m.plain = plain
	if !ctfIsJSON(plain) {
		if want("tsdl", "") {
			if o.JSON {
				return ctfWriteJSON(w, map[string]any{"record": "tsdl", "bytes": len(plain), "signature": ctf2meta.HasTSDLSignature(plain)})
			}
			fmt.Fprintf(w, "tsdl: %d bytes, signature %v (TSDL is not decoded)\n", len(plain), ctf2meta.HasTSDLSignature(plain))
		}
		return nil
	}
	d, _ := ctf2meta.NewFragmentReader(bytes.NewReader(plain))
	defer func() { m.meta, m.leading = d.Metadata(), d.Source().LeadingWhitespace }()
	for d.Next() {
		f := d.Fragment()
		if !want("fragment", f.FragmentType()) || !o.inIndex(int64(d.Index())) {
			continue
		}
		rec := ctfFragmentRecord(f)
		if o.JSON {
			rec["record"], rec["index"], rec["offset"], rec["type"] = "fragment", d.Index(), d.Offset(), f.FragmentType()
			if err := ctfWriteJSON(w, rec); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(w, "fragment #%d offset %d: %s", d.Index(), d.Offset(), f.FragmentType())
		for _, k := range sortedStatKeys(rec) {
			fmt.Fprintf(w, " %s=%v", k, rec[k])
		}
		w.WriteByte('\n')
	}
	return d.Err()
}

func sortedStatKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

// ctfFragmentRecord returns the identifying properties of a fragment.
func ctfFragmentRecord(f ctf2meta.Fragment) map[string]any {
	rec := map[string]any{}
	put := func(k, v string) {
		if v != "" {
			rec[k] = v
		}
	}
	switch f := f.(type) {
	case *ctf2meta.Preamble:
		if f.UUID != nil {
			rec["uuid"] = f.UUID.String()
		}
	case *ctf2meta.FieldClassAlias:
		rec["name"] = f.Name
	case *ctf2meta.TraceClass:
		put("namespace", f.Namespace)
		put("name", f.Name)
		put("uid", f.UID)
	case *ctf2meta.ClockClass:
		rec["id"], rec["frequency"] = f.ID, f.Frequency
		put("name", f.Name)
	case *ctf2meta.DataStreamClass:
		rec["id"] = f.ID
		put("name", f.Name)
		put("default_clock_class_id", f.DefaultClockClassID)
	case *ctf2meta.EventRecordClass:
		rec["id"], rec["data_stream_class_id"] = f.ID, f.DataStreamClassID
		put("name", f.Name)
	}
	return rec
}

func ctfLayoutName(l ctf2meta.Layout) string {
	switch l {
	case ctf2meta.LayoutCTF18:
		return "ctf1.8-37"
	case ctf2meta.LayoutPMETA:
		return "pmeta-44"
	case ctf2meta.LayoutV20Short:
		return "v2.0-37"
	}
	return "unknown"
}

func ctfWriteJSON(w *bufio.Writer, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return err
	}
	w.Write(b)
	return w.WriteByte('\n')
}

var ctfTSDLUUID = regexp.MustCompile(`uuid\s*=\s*"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"`)

// errCTFTSDLInV20 refuses TSDL text in version-2.0 packet headers.
var errCTFTSDLInV20 = errors.New("TSDL (CTF 1.8) text in version-2.0 packet headers: babeltrace 2.0 and 2.1 reject such packets; use packetized,1.8, or --force to write them anyway")

// errCTF2Packetized refuses packetized CTF 2 metadata (ctf2meta.WriteCheck).
var errCTF2Packetized = errors.New("CTF 2 metadata in packets: babeltrace2 reads CTF 2 only as a plain file starting with RS (0x1E) and rejects every packetized form (\"Expecting metadata stream packet version 1.8\"); convert --to plain, or --force to write it anyway")

func ctfConvert(in *input, to string, out io.Writer, co convertOptions) error {
	target, optStr, _ := strings.Cut(to, ",")
	switch target {
	case "plain":
		if optStr != "" {
			return fmt.Errorf("convert --to plain takes no options")
		}
		m, err := ctfLoad(in)
		if err != nil {
			return err
		}
		// TSDL without its signature line gets it, as babeltrace2 writes it.
		_, err = out.Write(ctf2meta.AppendPlainForReaders(nil, m.plain))
		return err
	case "packetized":
	case "chrome":
		return writeChrome(in, out) // a trace folder (main refuses metadata alone)
	default:
		return usageErrorf("ctf converts to plain or packetized[,le|be][,1.8|2.0|2.0-37][,size=N], not %q", to)
	}
	m, err := ctfLoad(in)
	if err != nil {
		return err
	}
	layout := ctf2meta.LayoutCTF18
	if m.meta != nil {
		layout = ctf2meta.LayoutPMETA
	}
	bo, size := ctf2meta.LittleEndian, 4096
	uuid := m.info.UUID
	switch {
	case m.packets:
	case m.meta != nil && m.meta.Preamble.UUID != nil:
		uuid = *m.meta.Preamble.UUID
	default:
		if sm := ctfTSDLUUID.FindSubmatch(m.plain); sm != nil {
			b, _ := hex.DecodeString(strings.ReplaceAll(string(sm[1]), "-", ""))
			copy(uuid[:], b)
		}
	}
	if optStr != "" {
		for _, opt := range strings.Split(optStr, ",") {
			switch {
			case opt == "le":
				bo = ctf2meta.LittleEndian
			case opt == "be":
				bo = ctf2meta.BigEndian
			case opt == "1.8":
				layout = ctf2meta.LayoutCTF18
			case opt == "2.0":
				layout = ctf2meta.LayoutPMETA
			case opt == "2.0-37":
				layout = ctf2meta.LayoutV20Short
			case strings.HasPrefix(opt, "size="):
				if size, err = strconv.Atoi(opt[5:]); err != nil {
					return fmt.Errorf("packetized: bad size %q", opt[5:])
				}
			default:
				return fmt.Errorf("packetized: unknown option %q (want le, be, 1.8, 2.0, 2.0-37, size=N)", opt)
			}
		}
	}
	if m.meta == nil && layout != ctf2meta.LayoutCTF18 && !co.Force {
		return errCTFTSDLInV20
	}
	if m.meta != nil && !co.Force {
		return errCTF2Packetized
	}
	plain := m.plain
	if m.leading > 0 {
		plain = plain[m.leading:]
	}
	w, err := ctf2meta.NewWriter(out, ctf2meta.WithLayout(layout), ctf2meta.WithByteOrder(bo), ctf2meta.WithUUID(uuid), ctf2meta.WithPacketSize(size))
	if err != nil {
		return err
	}
	if _, err := w.Write(plain); err != nil {
		return err
	}
	return w.Close()
}

// ctfSample writes small packetized CTF 2 metadata: CTF2-PMETA-1.0 headers,
// little-endian, 512-byte packets.
func ctfSample(out io.Writer) error {
	uuid := ctf2meta.UUID{0x6a, 0x1c, 0x8f, 0x3e, 0x52, 0x9d, 0x4b, 0x07, 0x8e, 0x21, 0x5c, 0x33, 0x90, 0x4f, 0xd2, 0x6b}
	u8 := func(n uint64, roles ...string) ctf2meta.FieldClass {
		return &ctf2meta.FixedLengthUnsignedInteger{
			BitArray:     ctf2meta.BitArray{Length: n, ByteOrder: "little-endian", BitOrder: "first-to-last", Alignment: 8},
			IntegerProps: ctf2meta.IntegerProps{PreferredDisplayBase: 10}, Roles: roles}
	}
	member := func(name string, fc ctf2meta.FieldClass) ctf2meta.StructureMember {
		return ctf2meta.StructureMember{Name: name, FieldClass: fc}
	}
	st := func(ms ...ctf2meta.StructureMember) *ctf2meta.Structure {
		return &ctf2meta.Structure{MemberClasses: ms, MinimumAlignment: 1}
	}
	str := &ctf2meta.NullTerminatedString{Encoding: "utf-8"}
	frags := []ctf2meta.Fragment{
		&ctf2meta.Preamble{Version: 2, UUID: &uuid},
		&ctf2meta.TraceClass{Namespace: "tracecodec", Name: "sample", Environment: map[string]any{"tracer_name": "tracecat"},
			PacketHeaderFieldClass: st(member("magic", u8(32, ctf2meta.RolePacketMagicNumber)),
				member("uuid", &ctf2meta.StaticLengthBlob{Length: 16, MediaType: "application/octet-stream", Roles: []string{ctf2meta.RoleMetadataStreamUUID}}),
				member("stream_id", u8(32, ctf2meta.RoleDataStreamClassID)))},
		&ctf2meta.ClockClass{ID: "monotonic", Name: "monotonic", Frequency: 1_000_000_000, Origin: &ctf2meta.ClockOrigin{UnixEpoch: true}},
		&ctf2meta.DataStreamClass{DefaultClockClassID: "monotonic",
			PacketContextFieldClass: st(member("packet_size", u8(64, ctf2meta.RolePacketTotalLength)),
				member("content_size", u8(64, ctf2meta.RolePacketContentLength)),
				member("timestamp_begin", u8(64, ctf2meta.RoleDefaultClockTimestamp))),
			EventRecordHeaderFieldClass: st(member("id", u8(16, ctf2meta.RoleEventRecordClassID)),
				member("timestamp", u8(64, ctf2meta.RoleDefaultClockTimestamp)))},
		&ctf2meta.EventRecordClass{ID: 0, Name: "sample:hello", PayloadFieldClass: st(member("msg", str))},
		&ctf2meta.EventRecordClass{ID: 1, Name: "sample:value", PayloadFieldClass: st(member("value", u8(64)), member("label", str))},
	}
	w, err := ctf2meta.NewWriter(out, ctf2meta.WithUUID(uuid), ctf2meta.WithPacketSize(512))
	if err != nil {
		return err
	}
	fw, err := ctf2meta.NewFragmentWriter(w, ctf2meta.WithLF(true))
	if err != nil {
		return err
	}
	for _, f := range frags {
		if err := fw.WriteFragment(f); err != nil {
			return err
		}
	}
	if err := fw.Close(); err != nil {
		return err
	}
	return w.Close()
}
