package ctf2meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/fuzz"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// vectorMetadataFiles returns every metadata file of the CTF vectors.
func vectorMetadataFiles(tb testing.TB) []string {
	root := vectortest.Dir(tb, "ctf")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (d.Name() == "metadata" || d.Name() == "base_metadata.json") {
			files = append(files, p)
		}
		return err
	})
	if len(files) < 30 {
		tb.Fatalf("only %d metadata files found", len(files))
	}
	return files
}

// decodeAny runs the whole pipeline a consumer would: depacketize (with
// both readers, which must agree), then decode CTF 2 content.
func decodeAny(data []byte) error {
	plain := data
	if Detect(data) == KindPacketized {
		var err error
		var info StreamInfo
		plain, info, err = Depacketize(nil, data)
		r, _ := NewReader(bytes.NewReader(data))
		var got []byte
		for r.Next() {
			got = append(got, r.Packet().Content...)
		}
		if (err == nil) != (r.Err() == nil) {
			return errors.New("Depacketize and Reader disagree on validity")
		}
		if err != nil {
			return err
		}
		if !bytes.Equal(got, plain) || r.Info() != info {
			return errors.New("Depacketize and Reader disagree on content")
		}
	}
	if len(bytes.TrimLeft(plain, " \t\r\n")) > 0 && bytes.TrimLeft(plain, " \t\r\n")[0] == RS {
		_, err := Decode(plain)
		return err
	}
	return nil
}

func TestSweepVectors(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps are slow")
	}
	for _, p := range vectorMetadataFiles(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var checked error
		fuzz.Check(t, data, func(b []byte) error { checked = decodeAny(b); return nil })
		if checked != nil && !errors.Is(checked, ErrBadMagic) && !errors.Is(checked, ErrSchema) && !errors.Is(checked, ErrUnsupported) &&
			!errors.Is(checked, ErrUnsupportedVersion) && !errors.Is(checked, ErrCorrupt) && !errors.Is(checked, ErrTruncated) && !errors.Is(checked, ErrFraming) {
			t.Errorf("%s: undocumented error %v", p, checked)
		}
		// Big files are sampled more sparsely to keep the package fast.
		o := fuzz.Options{MaxCases: 1024, RandomEdits: 32}
		if len(data) > 8<<10 {
			o = fuzz.Options{MaxCases: 160, RandomEdits: 16}
		}
		if raceEnabled {
			o = fuzz.Options{MaxCases: 48, RandomEdits: 8}
		}
		fuzz.Sweep(t, data, func(b []byte) error {
			err := decodeAny(b)
			var fe *FormatError
			if err != nil && !errors.As(err, &fe) {
				t.Errorf("%s: error is not a *FormatError: %v", p, err)
			}
			return err
		}, o)
	}
}

func seedVectors(f *testing.F, maxSize int) {
	root, err := vectortest.Root()
	if err != nil {
		return
	}
	if _, err := os.Stat(filepath.Join(root, "ctf")); err != nil {
		return
	}
	for _, p := range vectorMetadataFiles(f) {
		if b, err := os.ReadFile(p); err == nil && len(b) <= maxSize {
			f.Add(b)
		}
	}
}

// FuzzPacketReader: the slice and streaming depacketizers agree, never fail
// badly, and what they accept repacketizes to the same content.
func FuzzPacketReader(f *testing.F) {
	seedVectors(f, 5000)
	f.Add([]byte("\x57\x1d\xd1\x75"))
	f.Fuzz(func(t *testing.T, data []byte) {
		plain, info, err := Depacketize(nil, data)
		r, _ := NewReader(&chunkReader{data, 7})
		var got []byte
		for r.Next() {
			got = append(got, r.Packet().Content...)
		}
		if (err == nil) != (r.Err() == nil) {
			t.Fatalf("Depacketize %v, Reader %v", err, r.Err())
		}
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("not a FormatError: %v", err)
			}
			return
		}
		if !bytes.Equal(got, plain) || r.Info() != info {
			t.Fatal("readers disagree")
		}
		if info.Packets == 0 {
			return
		}
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, WithLayout(info.Layout), WithByteOrder(info.ByteOrder), WithUUID(info.UUID), WithPacketSize(512))
		if _, err := w.Write(plain); err != nil {
			return // content the 37-byte v2.0 layout cannot carry
		}
		if err := w.Close(); err != nil {
			return
		}
		back, _, err := Depacketize(nil, buf.Bytes(), WithStrict(true))
		if err != nil || !bytes.Equal(back, plain) {
			t.Fatalf("repacketized stream: %v", err)
		}
	})
}

// FuzzSeqReader: the JSON-sequence framing never fails badly and the texts
// it yields are trimmed, non-empty and free of RS.
func FuzzSeqReader(f *testing.F) {
	seedVectors(f, 40<<10)
	f.Add([]byte("\x1e{}\n\x1e\x1e[1]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _ := NewSeqReader(&oneByteReader{data})
		n := 0
		for s.Next() {
			txt := s.Text()
			if len(txt) == 0 || bytes.IndexByte(txt, RS) >= 0 || isJSONSpace(txt[0]) || isJSONSpace(txt[len(txt)-1]) {
				t.Fatalf("bad text %q", txt)
			}
			if s.Offset() < 0 || s.Offset() >= int64(len(data)) || data[s.Offset()] != RS {
				t.Fatalf("offset %d is not an RS", s.Offset())
			}
			if !bytes.Equal(data[s.TextOffset():s.TextOffset()+int64(len(txt))], txt) {
				t.Fatal("TextOffset is wrong")
			}
			n++
		}
		if err := s.Err(); err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("not a FormatError: %v", err)
			}
		}
	})
}

// FuzzFragment: whatever decodes re-encodes and decodes to the same value.
func FuzzFragment(f *testing.F) {
	root, err := vectortest.Root()
	if err == nil {
		if b, err := os.ReadFile(filepath.Join(root, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace", "metadata")); err == nil {
			for _, frag := range bytes.Split(b, []byte{RS}) {
				if len(frag) > 0 {
					f.Add(frag)
				}
			}
		}
	}
	f.Add([]byte(`{"type":"preamble","version":2}`))
	f.Add([]byte(`{"type":"preamble","version":2,"x":"\ud800"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The JSON parser agrees with encoding/json.
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		werr := dec.Decode(&want)
		if werr == nil {
			if _, err := dec.Token(); err != io.EOF {
				werr = errors.New("trailing data")
			}
		}
		got, gerr := parseJSON(data, 10000, nil, nil)
		// Except for lone surrogate escapes, which encoding/json reads as
		// U+FFFD and the parser refuses (not text: RFC 8259 §8.2).
		var se *jsonSyntaxError
		lone := werr == nil && errors.As(gerr, &se) && strings.HasPrefix(se.Msg, "lone UTF-16 surrogate")
		// And for a key given twice in one object, which encoding/json
		// reads (the last value wins) and the parser refuses, as
		// babeltrace2 2.1.2 does (TestDuplicateKeysRefused).
		dup := werr == nil && errors.As(gerr, &se) && strings.HasPrefix(se.Msg, "duplicate object key")
		if (werr == nil) != (gerr == nil) && !lone && !dup {
			t.Fatalf("encoding/json %v, parseJSON %v", werr, gerr)
		}
		if werr == nil && gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("parseJSON %#v, encoding/json %#v", got, want)
		}
		// A second parse with the state of the first (its interned values
		// shared) gives the same value.
		js := new(jsonScratch)
		parseJSON(data, 10000, nil, js)
		got2, gerr2 := parseJSON(data, 10000, nil, js)
		if (gerr == nil) != (gerr2 == nil) || !reflect.DeepEqual(got, got2) {
			t.Fatalf("parse with kept state: %#v (%v), first parse %#v (%v)", got2, gerr2, got, gerr)
		}
		fr, err := DecodeFragment(data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("not a FormatError: %v", err)
			}
			return
		}
		enc, err := MarshalFragment(fr)
		if err != nil {
			t.Fatalf("encoding a decoded fragment: %v", err)
		}
		fr2, err := DecodeFragment(enc)
		if err != nil {
			t.Fatalf("decoding our encoding %s: %v", enc, err)
		}
		if !reflect.DeepEqual(fr, fr2) {
			t.Fatalf("round trip changed the fragment: %s", enc)
		}
	})
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, errEOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// FuzzDecode: whole metadata streams (stream rules included) never fail
// badly, and what decodes re-encodes to the same fragments.
func FuzzDecode(f *testing.F) {
	// Small seeds keep the fuzzer fast: big inputs slow each execution down.
	root, err := vectortest.Root()
	if err == nil {
		for _, p := range []string{"third-party/babeltrace-2.1.2-tests-data/2/succeed/fl-bm/metadata", "third-party/babeltrace-2.1.2-tests-data/2/succeed/smalltrace/metadata",
			"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-le/refs/base_metadata.json"} {
			if b, err := os.ReadFile(filepath.Join(root, "ctf", p)); err == nil {
				f.Add(b)
			}
		}
		// The first five LTTng 2.15 fragments: preamble to the first event record class.
		if b, err := os.ReadFile(filepath.Join(root, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace", "metadata")); err == nil {
			n := 0
			for i, c := range b {
				if c == RS {
					if n++; n == 6 {
						f.Add(b[:i])
						break
					}
				}
			}
		}
	}
	f.Add(seq(pre, dsc, fc(`{"type":"dynamic-length-string","length-field-location":{"path":["f"]}}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("not a FormatError: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := m.Encode(&buf, WithLF(true)); err != nil {
			t.Fatal(err)
		}
		m2, err := Decode(buf.Bytes())
		if err != nil {
			t.Fatalf("decoding our encoding: %v", err)
		}
		if !reflect.DeepEqual(m.Fragments, m2.Fragments) {
			t.Fatal("round trip changed the fragments")
		}
	})
}
