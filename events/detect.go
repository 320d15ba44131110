package events

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tracecodec/tracecodec/ctf"
)

// Format names, as Detection.Format and Reader.Format report them.
const (
	FormatCDT     = "cdt"
	FormatDial9   = "dial9"
	FormatATF     = "atf"
	FormatCTF     = "ctf"
	FormatWTF     = "wtf"
	FormatUnknown = "unknown"
)

// Detection is what the detector found: a format name (FormatCDT … or
// FormatUnknown) and an optional variant ("index", "gzip", "session",
// "packetized metadata, little-endian", …).
type Detection struct {
	Format  string
	Variant string
}

// String is "FORMAT" or "FORMAT (VARIANT)", what tracecat detect prints.
func (d Detection) String() string {
	if d.Variant == "" {
		return d.Format
	}
	return d.Format + " (" + d.Variant + ")"
}

// Known reports whether a format was recognised.
func (d Detection) Known() bool { return d.Format != "" && d.Format != FormatUnknown }

var unknown = Detection{Format: FormatUnknown}

// HeadSize is how many leading bytes detection looks at.
const HeadSize = 4096

// magic is one entry of the detection table: like image.RegisterFormat's
// magic strings, a format recognises its files by their first bytes. The
// codec packages stay unaware of each other; this table is the only place
// that knows all five.
type magic struct {
	format, variant string
	match           func(head []byte) bool
}

// magics is tried in order; the first match wins.
var magics []magic

// registerMagic adds a detection rule for a format variant.
func registerMagic(format, variant string, match func(head []byte) bool) {
	magics = append(magics, magic{format, variant, match})
}

func prefix(p string) func([]byte) bool {
	return func(b []byte) bool { return bytes.HasPrefix(b, []byte(p)) }
}

func init() {
	registerMagic(FormatCDT, "v1", prefix("crimson_debug_trace_v1\n"))
	registerMagic(FormatCDT, "v2", prefix("crimson_debug_trace_v2\n"))
	registerMagic(FormatDial9, "", prefix("TRC\x00"))
	registerMagic(FormatDial9, "gzip", func(b []byte) bool {
		return bytes.HasPrefix(b, []byte{0x1f, 0x8b}) && bytes.HasPrefix(gunzipHead(b), []byte("TRC\x00"))
	})
	registerMagic(FormatATF, "index", prefix("ATI2"))
	registerMagic(FormatATF, "detail", prefix("ATD2"))
	registerMagic(FormatCTF, "packetized metadata, little-endian", prefix("\x57\x1d\xd1\x75"))
	registerMagic(FormatCTF, "packetized metadata, big-endian", prefix("\x75\xd1\x1d\x57"))
	registerMagic(FormatCTF, "data stream", func(b []byte) bool {
		return bytes.HasPrefix(b, []byte{0xc1, 0x1f, 0xfc, 0xc1}) || bytes.HasPrefix(b, []byte{0xc1, 0xfc, 0x1f, 0xc1})
	})
	registerMagic(FormatCTF, "LTTng packet index", prefix("\xc1\xf1\xdc\xc1"))
	registerMagic(FormatCTF, "CTF 2 JSON metadata", prefix("\x1e"))
	// RFC 7464 readers skip whitespace before the first RS; babeltrace does not.
	registerMagic(FormatCTF, "CTF 2 JSON metadata, leading whitespace", func(b []byte) bool {
		t := bytes.TrimLeft(b, " \t\r\n")
		return len(t) > 0 && t[0] == 0x1e
	})
	registerMagic(FormatCTF, "TSDL metadata", prefix("/* CTF 1.8"))
	registerMagic(FormatWTF, "binary", prefix("\xef\xbe\xad\xde"))
	registerMagic(FormatWTF, "legacy big-endian", prefix("\xde\xad\xbe\xef"))
	registerMagic(FormatWTF, "json", func(b []byte) bool {
		t := bytes.TrimLeft(b, " \t\r\n")
		return len(t) > 0 && t[0] == '{' && topLevelKey(t, "wtfVersion")
	})
}

// DetectBytes recognises a format by the leading bytes of a file (HeadSize
// bytes are enough).
func DetectBytes(b []byte) Detection {
	for _, m := range magics {
		if m.match(b) {
			return Detection{m.format, m.variant}
		}
	}
	return unknown
}

// Detect recognises the file or folder at path: a folder with DetectDir, a
// file with DetectFile.
func Detect(path string) (Detection, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return unknown, err
	}
	if fi.IsDir() {
		return DetectDir(path), nil
	}
	return DetectFile(path)
}

// DetectFile recognises a file by its first bytes, then by what surrounds
// it: a file named metadata holding TSDL without the signature is CTF, a
// file beside CTF metadata is a CTF data stream whatever its first bytes
// (unless they are no known magic and ctf.OpenDir skips it as a text
// sidecar such as .txt: ctf.DataStreamFiles), and
// a damaged or empty file is named by its extension (.cdt, .atf, .wtf-trace)
// with the variant "magic not recognised" or "empty file", so that a
// validator can say what is wrong with it.
func DetectFile(path string) (Detection, error) {
	f, err := openRegular(path)
	if err != nil {
		return unknown, err
	}
	defer f.Close()
	head := make([]byte, HeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return unknown, err
	}
	return detectNamed(path, head[:n]), nil
}

// detectNamed is DetectFile on the head of a file already read.
func detectNamed(path string, head []byte) Detection {
	d := DetectBytes(head)
	switch {
	case d.Format == FormatUnknown && filepath.Base(path) == "metadata" && looksLikeTSDL(head):
		// babeltrace accepts plain TSDL without the signature, with a warning.
		d = Detection{FormatCTF, "TSDL metadata, no signature"}
	case d.Format == FormatUnknown && ctfDataStreamFile(path):
		// A file ctf.OpenDir reads as a data stream of its trace folder:
		// its packet magic number may be damaged (read and noted, as
		// babeltrace2 2.1 reads it) or the file no data stream at all
		// (its decoding fails, as the folder's does).
		d = Detection{FormatCTF, "data stream"}
	case d.Format == FormatUnknown:
		d = detectByName(path, len(head))
	case filepath.Base(path) != "metadata" && besideCTFMetadata(path):
		// A data stream's packet magic is whatever its metadata declares:
		// actf's test streams use 0xdeadbeef, which reads as a WTF magic.
		d = Detection{FormatCTF, "data stream"}
	}
	return d
}

// topLevelKey reports whether the JSON object at the start of b (possibly cut
// short) has key among its own keys, not a nested object's.
func topLevelKey(b []byte, key string) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth := 0
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return false
				}
			}
			expectKey = v == '{' && depth == 1
			if v == '}' || v == ']' {
				expectKey = depth == 1
			}
			continue
		case string:
			if depth == 1 && expectKey && v == key {
				return true
			}
		}
		if depth == 1 {
			expectKey = !expectKey
		}
	}
}

// detectByName names a damaged or empty file by its extension.
func detectByName(path string, size int) Detection {
	name := strings.ToLower(filepath.Base(path))
	why := "magic not recognised"
	if size == 0 {
		why = "empty file"
	}
	switch {
	case strings.HasSuffix(name, ".cdt"):
		return Detection{FormatCDT, why}
	case strings.HasSuffix(name, ".atf"):
		return Detection{FormatATF, why}
	case strings.HasSuffix(name, ".wtf-trace"):
		return Detection{FormatWTF, why}
	}
	return unknown
}

// looksLikeTSDL reports whether text starts, after blanks and comments, with a
// TSDL top-level keyword. Only used for files named "metadata".
func looksLikeTSDL(b []byte) bool {
	for {
		b = bytes.TrimLeft(b, " \t\r\n")
		if bytes.HasPrefix(b, []byte("/*")) {
			end := bytes.Index(b, []byte("*/"))
			if end < 0 {
				return false
			}
			b = b[end+2:]
			continue
		}
		if bytes.HasPrefix(b, []byte("//")) {
			end := bytes.IndexByte(b, '\n')
			if end < 0 {
				return false
			}
			b = b[end+1:]
			continue
		}
		break
	}
	for _, kw := range []string{"typealias", "trace", "env", "clock", "stream", "event", "callsite", "enum", "struct", "typedef", "integer", "floating_point", "string", "variant"} {
		if bytes.HasPrefix(b, []byte(kw)) && len(b) > len(kw) && !isIdentByte(b[len(kw)]) {
			return true
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ctfDataStreamFile reports whether the file at path is beside CTF metadata
// and one ctf.OpenDir reads as a data stream of that trace folder
// (ctf.DataStreamFiles: no text sidecar, hidden file or the metadata).
func ctfDataStreamFile(path string) bool {
	if !besideCTFMetadata(path) {
		return false
	}
	names, _, err := ctf.DataStreamFiles(filepath.Dir(path))
	if err != nil {
		return false
	}
	_, found := slices.BinarySearch(names, filepath.Base(path))
	return found
}

// besideCTFMetadata reports whether a metadata file recognised as CTF sits in
// the same folder as path.
func besideCTFMetadata(path string) bool {
	meta := filepath.Join(filepath.Dir(path), "metadata")
	f, err := openRegular(meta)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	return DetectBytes(head[:n]).Format == FormatCTF
}

func gunzipHead(b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	out := make([]byte, 16)
	n, _ := io.ReadFull(zr, out)
	return out[:n]
}

// DetectDir recognises trace folders: ATF sessions (session_*, pid_* and
// thread_* folders; variant "session" or "thread") and CTF traces (a metadata
// file beside the data streams; variant "trace").
func DetectDir(path string) Detection {
	if isATFThread(path) {
		return Detection{FormatATF, "thread"}
	}
	if hasATFThreads(path) {
		return Detection{FormatATF, "session"}
	}
	// session_YYYYMMDD_HHMMSS/pid_N/…
	if pidDir(path) != "" {
		return Detection{FormatATF, "session"}
	}
	if d, err := DetectFile(filepath.Join(path, "metadata")); err == nil && d.Format == FormatCTF {
		return Detection{FormatCTF, "trace"}
	}
	return unknown
}

// pidDir returns the first pid_* folder of a session_* folder that holds ATF
// threads, "" if none.
func pidDir(path string) string {
	ents, err := os.ReadDir(path)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "pid_") && hasATFThreads(filepath.Join(path, e.Name())) {
			return filepath.Join(path, e.Name())
		}
	}
	return ""
}

func isATFThread(dir string) bool {
	if !strings.HasPrefix(filepath.Base(dir), "thread_") {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "index.atf"))
	return err == nil
}

func hasATFThreads(dir string) bool {
	// A manifest is small; 16 MiB bounds a hostile one (or a link to a device).
	if b, err := readRegular(filepath.Join(dir, "manifest.json"), 16<<20); err == nil && bytes.Contains(b, []byte(`"threads"`)) {
		return true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() && isATFThread(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}
