package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// detection is what `detect` prints after "PATH: ".
type detection struct {
	Format  string // cdt, dial9, atf, ctf, wtf, unknown
	Variant string // optional detail, printed in parentheses
}

func (d detection) String() string {
	if d.Variant == "" {
		return d.Format
	}
	return d.Format + " (" + d.Variant + ")"
}

var unknown = detection{Format: "unknown"}

// headSize is how much of a file detection looks at.
const headSize = 4096

func detectFile(path string) (detection, error) {
	f, err := os.Open(path)
	if err != nil {
		return unknown, err
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return unknown, err
	}
	d := detectBytes(head[:n])
	switch {
	case d.Format == "unknown" && filepath.Base(path) == "metadata" && looksLikeTSDL(head[:n]):
		// babeltrace accepts plain TSDL without the signature, with a warning.
		d = detection{"ctf", "TSDL metadata, no signature"}
	case d.Format == "unknown":
		d = detectByName(path, n)
	case filepath.Base(path) != "metadata" && besideCTFMetadata(path):
		// A data stream's packet magic is whatever its metadata declares:
		// actf's test streams use 0xdeadbeef, which reads as a WTF magic.
		d = detection{"ctf", "data stream"}
	}
	return d, nil
}

// detectBytes recognises a format by its leading bytes.
func detectBytes(b []byte) detection {
	switch {
	case bytes.HasPrefix(b, []byte("crimson_debug_trace_v1\n")):
		return detection{"cdt", "v1"}
	case bytes.HasPrefix(b, []byte("crimson_debug_trace_v2\n")):
		return detection{"cdt", "v2"}
	case bytes.HasPrefix(b, []byte("TRC\x00")):
		return detection{"dial9", ""}
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		if inner := gunzipHead(b); bytes.HasPrefix(inner, []byte("TRC\x00")) {
			return detection{"dial9", "gzip"}
		}
	case bytes.HasPrefix(b, []byte("ATI2")):
		return detection{"atf", "index"}
	case bytes.HasPrefix(b, []byte("ATD2")):
		return detection{"atf", "detail"}
	case bytes.HasPrefix(b, []byte{0x57, 0x1d, 0xd1, 0x75}):
		return detection{"ctf", "packetized metadata, little-endian"}
	case bytes.HasPrefix(b, []byte{0x75, 0xd1, 0x1d, 0x57}):
		return detection{"ctf", "packetized metadata, big-endian"}
	case bytes.HasPrefix(b, []byte{0xc1, 0x1f, 0xfc, 0xc1}), bytes.HasPrefix(b, []byte{0xc1, 0xfc, 0x1f, 0xc1}):
		return detection{"ctf", "data stream"}
	case bytes.HasPrefix(b, []byte{0xc1, 0xf1, 0xdc, 0xc1}):
		return detection{"ctf", "LTTng packet index"}
	case len(b) > 0 && b[0] == 0x1e:
		return detection{"ctf", "CTF 2 JSON metadata"}
	case len(bytes.TrimLeft(b, " \t\r\n")) > 0 && bytes.TrimLeft(b, " \t\r\n")[0] == 0x1e:
		// RFC 7464 readers skip whitespace before the first RS; babeltrace does not.
		return detection{"ctf", "CTF 2 JSON metadata, leading whitespace"}
	case bytes.HasPrefix(b, []byte("/* CTF 1.8")):
		return detection{"ctf", "TSDL metadata"}
	case bytes.HasPrefix(b, []byte{0xef, 0xbe, 0xad, 0xde}):
		return detection{"wtf", "binary"}
	case bytes.HasPrefix(b, []byte{0xde, 0xad, 0xbe, 0xef}):
		return detection{"wtf", "legacy big-endian"}
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' && topLevelKey(t, "wtfVersion") {
		return detection{"wtf", "json"}
	}
	return unknown
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

// detectByName names a damaged or empty file by its extension, so that
// `validate` can say what is wrong with it instead of "unrecognised".
func detectByName(path string, size int) detection {
	name := strings.ToLower(filepath.Base(path))
	why := "magic not recognised"
	if size == 0 {
		why = "empty file"
	}
	switch {
	case strings.HasSuffix(name, ".cdt"):
		return detection{"cdt", why}
	case strings.HasSuffix(name, ".atf"):
		return detection{"atf", why}
	case strings.HasSuffix(name, ".wtf-trace"):
		return detection{"wtf", why}
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

// besideCTFMetadata reports whether a metadata file recognised as CTF sits in
// the same folder as path.
func besideCTFMetadata(path string) bool {
	meta := filepath.Join(filepath.Dir(path), "metadata")
	f, err := os.Open(meta)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	return detectBytes(head[:n]).Format == "ctf"
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

// detectDir recognises ATF sessions (session_*, pid_*, thread_* folders) and CTF
// trace folders (a metadata file beside the data streams).
func detectDir(path string) detection {
	if isATFThread(path) {
		return detection{"atf", "thread"}
	}
	if hasATFThreads(path) {
		return detection{"atf", "session"}
	}
	// session_YYYYMMDD_HHMMSS/pid_N/…
	if ents, err := os.ReadDir(path); err == nil {
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), "pid_") && hasATFThreads(filepath.Join(path, e.Name())) {
				return detection{"atf", "session"}
			}
		}
	}
	if d, err := detectFile(filepath.Join(path, "metadata")); err == nil && d.Format == "ctf" {
		return detection{"ctf", "trace"}
	}
	return unknown
}

func isATFThread(dir string) bool {
	if !strings.HasPrefix(filepath.Base(dir), "thread_") {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "index.atf"))
	return err == nil
}

func hasATFThreads(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil && bytes.Contains(b, []byte(`"threads"`)) {
			return true
		}
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
