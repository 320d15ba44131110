package main

// CTF metadata support for tracecat, backed by package ctf2meta.
//
// Inputs: packetized metadata (CTF 1.8, CTF2-PMETA-1.0, 37-byte v2.0; either
// byte order), plain CTF 2 JSON text sequences (a leading-whitespace variant
// is read leniently and reported), plain TSDL text, and trace folders (their
// `metadata` file). LTTng packet index files get packet-level dump
// (ctf2meta_index.go); so do data stream files of traces with CTF 2 metadata
// (ctf2meta_stream.go: packet headers and contexts only). Other data streams
// are not decoded: commands say so. Offsets of fragments in dump are offsets
// in the depacketized metadata. All of them are read by inspect/ctfload;
// validate and stats are package inspect's (ctf.go).
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
// convert --to tsdl writes the metadata as plain CTF 1.8 TSDL text
// (ctf2meta.AppendTSDL): CTF 2 JSON converts where TSDL can express it —
// what it cannot is refused, what does not change decoding (attributes,
// namespaces) is left out with a warning; TSDL input is written again in
// the writer's form (same model).
//
// The packet UUID is the input's packet UUID, else the CTF 2 preamble uuid,
// else the TSDL trace uuid, else zero.

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/events/inspect/ctfload"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

func init() {
	register(&format{
		name:      "ctf",
		lib:       true, // validate and stats: package inspect (ctf.go)
		dump:      ctfDump,
		convert:   ctfConvert,
		sampleDir: ctfSample,
	})
}

// ctfSource is in as inspect/ctfload reads it.
func ctfSource(in *input) ctfload.Source {
	return ctfload.Source{Path: in.Path, IsDir: in.IsDir(), Variant: in.Variant(), Bytes: in.Bytes, Wrap: in.readCloser}
}

// ctfLoad reads, depacketizes and (for CTF 2) decodes the metadata of in,
// and registers its recovery summary.
func ctfLoad(in *input) (*ctfload.Meta, error) {
	m, err := ctfload.Load(ctfSource(in))
	if err != nil {
		return nil, err
	}
	in.setRecovery(m.Recovery)
	return m, nil
}

// ctfIndexBytes returns the bytes of an LTTng packet index input, or nil.
func ctfIndexBytes(in *input) ([]byte, error) {
	if in.IsDir() || in.Variant() != "LTTng packet index" {
		return nil, nil
	}
	return in.Bytes()
}

func ctfDump(in *input, w *bufio.Writer, o dumpOptions) error {
	if in.Variant() == "session" && ctfMetadataRecord[o.Type] {
		return usageErrorf("--type %s lists the metadata of one trace, and this folder holds several CTF traces: give one of the trace folders inside it", o.Type)
	}
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
	raw, err := ctfload.Read(ctfSource(in))
	if err != nil {
		return err
	}
	want := func(kind, typ string) bool {
		return o.Type == "" || o.Type == kind || o.Type == typ
	}
	plain := raw
	// m is filled in as the input is read, for the recovery line.
	m := &ctfload.Meta{Raw: raw, Size: int64(len(raw)), Plain: raw}
	in.setRecovery(m.Recovery)
	if ctf2meta.Detect(raw) == ctf2meta.KindPacketized {
		r, _ := ctf2meta.NewReader(bytes.NewReader(raw))
		m.Packets = true
		defer func() { m.Info = r.Info() }()
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
	m.Plain = plain
	if !ctfload.IsJSON(plain) {
		// TSDL is parsed as stats and validate parse it (an error fails
		// dump as it fails them), and listed as the CTF 2 fragments it
		// translates to (babeltrace2 2.1's mapping): the same records as
		// CTF 2 metadata, without byte offsets (TSDL has no fragments).
		md, err := m.Model()
		if err != nil {
			return err
		}
		if want("tsdl", "") {
			sig := ctf2meta.HasTSDLSignature(plain)
			if o.JSON {
				if err := ctfWriteJSON(w, map[string]any{"record": "tsdl", "bytes": len(plain), "signature": sig,
					"data_stream_classes": len(md.DataStreamClasses), "event_record_classes": len(md.EventRecordClasses)}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "tsdl: %d bytes, signature %v, %d data stream classes, %d event record classes\n", len(plain), sig, len(md.DataStreamClasses), len(md.EventRecordClasses))
			}
		}
		for i, f := range md.Fragments {
			if err := ctfDumpFragment(w, o, want, i+1, -1, f); err != nil {
				return err
			}
		}
		return nil
	}
	d, _ := ctf2meta.NewFragmentReader(bytes.NewReader(plain))
	defer func() { m.Meta, m.Leading = d.Metadata(), d.Source().LeadingWhitespace }()
	for d.Next() {
		if err := ctfDumpFragment(w, o, want, d.Index(), d.Offset(), d.Fragment()); err != nil {
			return err
		}
	}
	return d.Err()
}

// ctfDumpFragment writes fragment f, numbered index (from 1), at byte
// offset off of the metadata (-1: none, a fragment translated from TSDL),
// unless dump's --type or --index leaves it out.
func ctfDumpFragment(w *bufio.Writer, o dumpOptions, want func(kind, typ string) bool, index int, off int64, f ctf2meta.Fragment) error {
	if !want("fragment", f.FragmentType()) || !o.inIndex(int64(index)) {
		return nil
	}
	rec := ctfFragmentRecord(f)
	if o.JSON {
		rec["record"], rec["index"], rec["type"] = "fragment", index, f.FragmentType()
		if off >= 0 {
			rec["offset"] = off
		}
		return ctfWriteJSON(w, rec)
	}
	if off >= 0 {
		fmt.Fprintf(w, "fragment #%d offset %d: %s", index, off, f.FragmentType())
	} else {
		fmt.Fprintf(w, "fragment #%d: %s", index, f.FragmentType())
	}
	for _, k := range sortedStatKeys(rec) {
		fmt.Fprintf(w, " %s=%v", k, rec[k])
	}
	return w.WriteByte('\n')
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
		if m.Meta != nil || ctf2meta.HasTSDLSignature(m.Plain) {
			// CTF 2 and signed TSDL: written as they are, without a copy.
			_, err = out.Write(m.Plain)
			return err
		}
		// TSDL without its signature line gets it, as babeltrace2 writes it.
		_, err = out.Write(ctf2meta.AppendPlainForReaders(nil, m.Plain))
		return err
	case "tsdl":
		if optStr != "" {
			return fmt.Errorf("convert --to tsdl takes no options")
		}
		return ctfToTSDL(in, out, co)
	case "packetized":
	case "chrome":
		// a trace folder (main refuses a metadata file): CTF event
		// records have no duration, so all are instants but LTTng's
		// function and system calls (events.WithCTFCallSlices)
		res, err := writeChromeResult(in, out)
		if err == nil && res.Slices == 0 && res.Instants > 0 && co.Warn != nil {
			co.Warn(fmt.Sprintf("the %d event records are instants (a CTF event record has no duration; only LTTng's function and system call entries and exits on a known thread make slices): Perfetto UI and chrome://tracing show them; speedscope, which reads only slices, shows nothing", res.Instants))
		}
		return err
	default:
		return usageErrorf("ctf converts to plain, tsdl or packetized[,le|be][,1.8|2.0|2.0-37][,size=N], not %q", to)
	}
	m, err := ctfLoad(in)
	if err != nil {
		return err
	}
	layout := ctf2meta.LayoutCTF18
	if m.Meta != nil {
		layout = ctf2meta.LayoutPMETA
	}
	bo, size := ctf2meta.LittleEndian, 4096
	uuid := m.Info.UUID
	switch {
	case m.Packets:
	case m.Meta != nil && m.Meta.Preamble.UUID != nil:
		uuid = *m.Meta.Preamble.UUID
	default:
		if sm := ctfTSDLUUID.FindSubmatch(m.Plain); sm != nil {
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
	if m.Meta == nil && layout != ctf2meta.LayoutCTF18 && !co.Force {
		return errCTFTSDLInV20
	}
	if m.Meta != nil && !co.Force {
		return errCTF2Packetized
	}
	plain := m.Plain
	if m.Leading > 0 {
		plain = plain[m.Leading:]
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

// ctfSample writes a small LTTng-shaped CTF 1.8 trace folder into dir with
// testgen/ctfgen: TSDL metadata text with the "/* CTF 1.8 */" signature, one
// data stream per CPU (channel0_0, channel0_1) in 4 KiB packets with their
// LTTng indexes in index/, and 400 events of 6 classes (gen:small_N: two
// integers; gen:str_N: an integer, a string, an enumeration; gen:seq_N: a
// sequence and a static-length string). babeltrace2 reads it, and dump
// prints the same text as babeltrace2 does.
func ctfSample(dir string) error {
	return ctfgen.Write(dir, 400, 2, 6, 4096)
}

// ctfToTSDL writes the metadata of in as CTF 1.8 TSDL text.
func ctfToTSDL(in *input, out io.Writer, co convertOptions) error {
	m, err := ctfLoad(in)
	if err != nil {
		return err
	}
	md, err := m.Model()
	if err != nil {
		return err
	}
	text, notes, err := ctf2meta.AppendTSDL(nil, md)
	if err != nil {
		return err
	}
	for _, n := range notes {
		if co.Warn != nil {
			co.Warn("TSDL: " + n)
		}
	}
	_, err = out.Write(text)
	return err
}
