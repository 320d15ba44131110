// Package ctfload reads CTF metadata, LTTng packet index files and the
// packet headers of CTF data streams for package events/inspect (validate
// and stats) and tracecat (dump and convert), so that both read them one
// way. It imports the codecs, so it lives above them, beside inspect, not in
// internal/ (which holds only what the codecs stand on); its API serves
// those two callers and is not promised stable.
package ctfload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/internal/wire"
	"github.com/tracecodec/tracecodec/traceerr"
)

// Source is the input to read: a file or a trace folder (its metadata
// file), or a name ("-") whose bytes Bytes returns.
type Source struct {
	Path    string
	IsDir   bool
	Variant string // the detected variant ("data stream", "LTTng packet index", …)
	// Bytes returns the whole input (a file, not a folder).
	Bytes func() ([]byte, error)
	// Wrap, when set, wraps a file opened for streaming (to stop on an
	// interrupt).
	Wrap func(io.ReadCloser) io.ReadCloser
}

func (s Source) wrap(f io.ReadCloser) io.ReadCloser {
	if s.Wrap == nil {
		return f
	}
	return s.Wrap(f)
}

// Meta is a loaded and checked metadata stream.
type Meta struct {
	Raw     []byte // nil when streamed (LoadStreamed)
	Size    int64  // bytes of input
	Plain   []byte // the depacketized metadata (nil when streamed)
	Info    ctf2meta.StreamInfo
	Packets bool
	Meta    *ctf2meta.Metadata // CTF 2 only
	Leading int                // whitespace before the first RS
	dir     bool               // read from a trace folder (Model's errors name the file)
}

// ErrNotMetadata is returned for a CTF input that is neither metadata nor
// a trace folder holding it (a data stream file given where metadata is read).
var ErrNotMetadata = errors.New("only CTF metadata is supported: pass the trace folder or its metadata file")

// Read returns the raw metadata bytes of s.
func Read(s Source) ([]byte, error) {
	if s.IsDir {
		// Only a regular file is read: a link to /dev/zero would grow
		// without bound, a FIFO would block.
		p := filepath.Join(s.Path, "metadata")
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file (%s)", p, fi.Mode().Type())
		}
		return os.ReadFile(p)
	}
	switch s.Variant {
	case "data stream", "LTTng packet index":
		return nil, fmt.Errorf("%s: %w", s.Variant, ErrNotMetadata)
	}
	return s.Bytes()
}

// Load reads, depacketizes and (for CTF 2) decodes the metadata of s. The
// errors of a trace folder's metadata start with "metadata: ", naming the
// file in the folder as a data stream's errors name theirs.
func Load(s Source) (*Meta, error) {
	raw, err := Read(s) // its errors name the file
	if err != nil {
		return nil, err
	}
	m, err := decode(raw)
	if m != nil {
		m.dir = s.IsDir
	}
	return m, s.named(err)
}

// named is err after the name of the metadata file when s is a trace
// folder (nil stays nil).
func (s Source) named(err error) error {
	if err == nil || !s.IsDir {
		return err
	}
	return fmt.Errorf("metadata: %w", err)
}

// decode depacketizes and (for CTF 2) decodes the metadata bytes raw.
func decode(raw []byte) (*Meta, error) {
	m := &Meta{Raw: raw, Size: int64(len(raw)), Plain: raw}
	if ctf2meta.Detect(raw) == ctf2meta.KindPacketized {
		var err error
		m.Packets = true
		// The content is at most the packets' size: one allocation, no
		// regrowing copies.
		if m.Plain, m.Info, err = ctf2meta.Depacketize(make([]byte, 0, len(raw)), raw); err != nil {
			return nil, err
		}
	}
	if IsJSON(m.Plain) {
		d, _ := ctf2meta.NewFragmentReader(bytes.NewReader(m.Plain))
		for d.Next() {
		}
		if err := d.Err(); err != nil {
			var fe *ctf2meta.FormatError
			if m.Packets && errors.As(err, &fe) {
				// Offsets count in the depacketized stream: say so.
				e := *fe
				e.Msg = "depacketized metadata: " + fe.Msg
				return nil, &e
			}
			return nil, err
		}
		m.Meta, m.Leading = d.Metadata(), d.Source().LeadingWhitespace
	}
	return m, nil
}

// peek is how much of a metadata file LoadStreamed looks at first.
const peek = 64 << 10

// LoadStreamed decodes plain CTF 2 metadata (a file or a trace folder's
// metadata file) through ctf2meta's FragmentReader in one pass over the
// file, as Load does over the bytes of the whole file, but without
// holding them: validate's memory is then the decoded metadata alone.
// streamed is false, and nothing is read, for anything else (standard
// input, packetized metadata, TSDL text, whitespace longer than peek
// before the first RS): Load reads those whole.
func LoadStreamed(s Source) (m *Meta, streamed bool, err error) {
	path := s.Path
	if s.IsDir {
		path = filepath.Join(s.Path, "metadata")
	} else if s.Path == "-" || s.Variant == "data stream" || s.Variant == "LTTng packet index" {
		return nil, false, nil
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false, nil // Load reports it
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	cr := &wire.CountingReader{R: s.wrap(f)}
	br := bufio.NewReaderSize(cr, peek)
	head, err := br.Peek(peek)
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
		return nil, true, s.named(err)
	}
	m = &Meta{Size: cr.N, Meta: d.Metadata(), Leading: d.Source().LeadingWhitespace, dir: s.IsDir}
	return m, true, nil
}

// recovery is the uniform summary of the metadata: ctf2meta's report of the
// packets (or the JSON text) read and what was accepted leniently, with
// tracecat's own note on TSDL text without its signature.
func (m *Meta) Recovery() *traceerr.Recovery {
	rec := ctf2meta.Recovery{Kind: ctf2meta.KindCTF2, Bytes: m.Size}
	if m.Packets {
		rec = m.Info.Recovery()
	}
	if m.Meta != nil {
		rec.Fragments = len(m.Meta.Fragments)
		rec.LeadingWhitespace = m.Leading
	}
	s := rec.Summary()
	if !m.Packets && m.Meta == nil {
		s.Unit, s.Read = "bytes of TSDL text", int64(len(m.Plain))
	}
	if m.unsignedPlain() {
		s.Notes = append(s.Notes, `TSDL text without the "/* CTF 1.8" signature`)
	}
	return &s
}

// IsJSON reports whether plain metadata is CTF 2, also when whitespace
// precedes the first RS.
func IsJSON(plain []byte) bool {
	t := bytes.TrimLeft(plain, " \t\r\n")
	return len(t) > 0 && t[0] == ctf2meta.RS
}

// Version is the CTF version of the metadata: "2.0" for CTF 2 JSON, "1.8"
// for TSDL.
func (m *Meta) Version() string {
	if m.Meta != nil {
		return "2.0"
	}
	return "1.8"
}

// Model returns the typed model of the metadata: the decoded CTF 2
// metadata, or the TSDL text parsed as ctf.OpenDir parses it (an error,
// naming line and column, where the text does not parse), so that validate,
// stats, dump and convert accept and refuse the same metadata and count
// from the same model.
func (m *Meta) Model() (*ctf2meta.Metadata, error) {
	if m.Meta != nil {
		return m.Meta, nil
	}
	md, err := ctf2meta.ParseTSDL(m.Plain)
	return md, Source{IsDir: m.dir}.named(err)
}

// Warnings lists what the metadata reader accepted without loss (the
// reader's own warnings, and whitespace skipped before the first RS) and
// what the reference reader refuses: CTF 2 in packets.
func (m *Meta) Warnings() []string {
	w := m.Info.Warnings()
	if m.Leading > 0 {
		w = append(w, fmt.Sprintf("%d byte(s) of whitespace before the first RS skipped; babeltrace 2.1 and yactfr read this file as TSDL, not CTF 2", m.Leading))
	}
	if m.unsignedPlain() {
		w = append(w, `TSDL text without the "/* CTF 1.8" signature`)
	}
	if m.Packets && m.Meta != nil {
		w = append(w, "CTF 2 metadata in packets, which babeltrace2 2.1 refuses (it reads CTF 2 only as a plain file: tracecat convert --to plain writes one)")
	}
	return w
}

// unsignedPlain reports whether the metadata is a plain-text TSDL file
// without the "/* CTF 1.8" signature, which babeltrace2 2.0 reads with a
// warning (and tracecat convert --to plain adds). TSDL in packets needs no
// signature: lttng-modules never writes one there, and no reader warns.
func (m *Meta) unsignedPlain() bool {
	return !m.Packets && m.Meta == nil && !ctf2meta.HasTSDLSignature(m.Plain)
}
