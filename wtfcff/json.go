package wtfcff

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"strconv"
)

// JSONMode is how a JSONWriter lays out the document.
type JSONMode int

const (
	// JSONComplete writes one well-formed document:
	//	{\n  "wtfVersion": V,\n  "formatVersion": 10,\n  "chunks": [\n    {chunk},\n    {chunk}\n  ]\n}
	// (no final newline), byte for byte as the JS JsonStreamTarget does.
	JSONComplete JSONMode = iota
	// JSONPartial writes standalone documents: a header
	// {\n  "wtfVersion": V,\n  "formatVersion": 10\n}\n, then {"chunks": [chunk]}\n
	// per chunk. The reference expects one document per transport delivery,
	// so it cannot load such a file whole; JSONReader can.
	JSONPartial
)

// JSONReader streams the chunks of a JSON CFF file (.wtf-json) from an
// io.Reader, one chunk object at a time, in either mode (it reads any sequence
// of documents: the COMPLETE document, or PARTIAL header and chunk documents).
// Part data is decoded: string tables become NUL-terminated strings, base64
// buffers bytes, the file header its JSON text. Unknown chunk and part type
// strings are skipped, as the reference does; "chunk_0xN"/"part_0xN" (what
// JSONWriter writes for binary types the reference does not know) are read
// back. It implements ChunkSource. Offsets in errors are offsets in the text.
//
// Over a file held in memory (NewBytesReader) the chunks are read by a
// scanner that builds no tree and decodes base64 event buffers and string
// tables from the text into buffers reused from chunk to chunk (so part data
// is valid until the next Next); encoding/json reads what
// it does not handle, from the start, so results and errors are the same.
// Over an io.Reader (NewJSONReader, NewReader) encoding/json streams the
// text, one chunk object in memory at a time.
type JSONReader struct {
	// fast reads the text while it has the layout the writers produce;
	// dec takes over (from the start, skipping the chunks fast delivered)
	// at the first construct fast does not handle, and reports every error.
	fast       *jsonFast
	skip       int // chunks to read and skip (delivered before a fallback)
	dec        *json.Decoder
	o          readerOptions
	state      int
	haveHeader bool
	wtfVersion int64
	chunk      Chunk
	err        error
	rec        Recovery
}

const (
	jsTop = iota
	jsDoc
	jsChunks
	jsDone
)

// NewJSONReader returns a reader over r. The header is read with the first
// chunk; WTFVersion is valid once Next has returned true (or after the end).
func NewJSONReader(r io.Reader, opts ...ReaderOption) (*JSONReader, error) {
	o, err := applyReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	return newJSONReader(r, o), nil
}

func newJSONReader(r io.Reader, o readerOptions) *JSONReader {
	jr := &JSONReader{o: o, rec: Recovery{Kind: KindJSON, Size: -1}}
	jr.startDecoder(r)
	return jr
}

// newJSONBytesReader reads a JSON container held in memory (not copied),
// with the scanner of jsonfast.go.
func newJSONBytesReader(data []byte, o readerOptions) *JSONReader {
	return &JSONReader{fast: newJSONFast(data), o: o, rec: Recovery{Kind: KindJSON, Size: int64(len(data))}}
}

// startDecoder makes encoding/json read r, the input from its start.
func (jr *JSONReader) startDecoder(r io.Reader) {
	jr.dec = json.NewDecoder(r)
	jr.dec.UseNumber()
}

// All iterates over the remaining chunks (see ChunkSource).
func (jr *JSONReader) All() iter.Seq2[*Chunk, error] { return allChunks(jr) }

// WTFVersion is the header's wtfVersion (the full build number in JS files).
func (jr *JSONReader) WTFVersion() int64 { return jr.wtfVersion }

// Err returns the first error met.
func (jr *JSONReader) Err() error { return jr.err }

// Chunk returns the chunk read by the last successful Next.
func (jr *JSONReader) Chunk() *Chunk { return &jr.chunk }

func (jr *JSONReader) fail(sentinel error, msg string, args ...any) bool {
	jr.err = newErr(jr.dec.InputOffset(), sentinel, msg, args...)
	return false
}

func (jr *JSONReader) syntax(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		if jr.o.recover && jr.haveHeader {
			return jr.tornOutside()
		}
		return jr.fail(ErrTruncated, "JSON document ends early")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		jr.err = newErr(se.Offset, ErrCorrupt, "JSON syntax: %v", err)
		return false
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		jr.err = newErr(te.Offset, ErrCorrupt, "JSON: %v", err)
		return false
	}
	if errors.Is(err, errBadChunk) {
		return false
	}
	jr.err = err
	return false
}

var errBadChunk = errors.New("bad chunk")

// Next reads the next chunk.
func (jr *JSONReader) Next() bool {
	if jr.fast != nil && jr.err == nil {
		if ok, handled := jr.fastNext(); handled {
			return ok
		}
	}
	for jr.err == nil {
		switch jr.state {
		case jsDone:
			return false
		case jsTop:
			tok, err := jr.dec.Token()
			if errors.Is(err, io.EOF) {
				jr.state = jsDone
				if !jr.haveHeader {
					return jr.fail(ErrBadMagic, "no WTF JSON header (wtfVersion) found")
				}
				return false
			}
			if err != nil {
				return jr.syntax(err)
			}
			if d, ok := tok.(json.Delim); !ok || d != '{' {
				return jr.fail(ErrBadMagic, "not a WTF JSON document: expected an object")
			}
			jr.state = jsDoc
		case jsDoc:
			if !jr.dec.More() {
				if _, err := jr.dec.Token(); err != nil {
					return jr.syntax(err)
				}
				jr.state = jsTop
				continue
			}
			tok, err := jr.dec.Token()
			if err != nil {
				return jr.syntax(err)
			}
			key, _ := tok.(string)
			switch key {
			case "wtfVersion":
				var n json.Number
				if err := jr.dec.Decode(&n); err != nil {
					return jr.syntax(err)
				}
				if jr.haveHeader {
					return jr.fail(ErrCorrupt, "a second header document")
				}
				v, err := strconv.ParseFloat(string(n), 64)
				if err != nil {
					return jr.fail(ErrCorrupt, "wtfVersion %s is not a number", n)
				}
				jr.wtfVersion, jr.haveHeader = int64(v), true
			case "formatVersion":
				var n json.Number
				if err := jr.dec.Decode(&n); err != nil {
					return jr.syntax(err)
				}
				if string(n) != "10" {
					return jr.fail(ErrUnsupportedVersion, "data version %s not supported (want %d)", n, FormatVersion)
				}
			case "chunks":
				if !jr.haveHeader {
					return jr.fail(ErrBadMagic, "chunks before the WTF JSON header (wtfVersion)")
				}
				tok, err := jr.dec.Token()
				if err != nil {
					return jr.syntax(err)
				}
				if d, ok := tok.(json.Delim); !ok || d != '[' {
					return jr.fail(ErrCorrupt, "chunks is not an array")
				}
				jr.state = jsChunks
			case "id", "type", "parts":
				// The CFF text's PARTIAL form: bare {chunk} documents after
				// the header. The reference's JsonStreamSource (and its
				// writer) use {"chunks": [chunk]} documents; skipping a
				// chunk's keys as unknown would read its data as nothing.
				return jr.fail(ErrCorrupt, "a document holds chunk key %q at its top level: a bare {chunk} document (the PARTIAL form the CFF text sketches) is not read; the reference reads and writes {\"chunks\": [chunk]} documents", key)
			default:
				var skip json.RawMessage
				if err := jr.dec.Decode(&skip); err != nil {
					return jr.syntax(err)
				}
			}
		case jsChunks:
			if !jr.dec.More() {
				if _, err := jr.dec.Token(); err != nil {
					return jr.syntax(err)
				}
				jr.state = jsDoc
				continue
			}
			off := jr.dec.InputOffset()
			var jc jsonChunk
			if err := jr.dec.Decode(&jc); err != nil {
				if jr.o.recover && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) {
					return jr.tornChunk(off)
				}
				return jr.syntax(err)
			}
			ok, err := jr.convert(&jc, off)
			if err != nil {
				jr.err = err
				return false
			}
			if ok && jr.skip > 0 {
				jr.skip-- // delivered by the fast path before it fell back
				continue
			}
			jr.countChunk(jr.dec.InputOffset())
			if ok {
				return true
			}
		}
	}
	return false
}

type jsonChunk struct {
	ID        json.Number       `json:"id"`
	Type      string            `json:"type"`
	StartTime *json.Number      `json:"startTime"`
	EndTime   *json.Number      `json:"endTime"`
	Parts     []json.RawMessage `json:"parts"`
}

type jsonPart struct {
	Type, Mode    string
	ByteLength    *int64
	Value, Events json.RawMessage
}

// parseJSONPart reads a part object. Keys match exactly, as in the
// reference's JSON.parse (encoding/json's struct decoding folds case, so a
// file header holding "Type" next to "type" would change the part's type).
func parseJSONPart(raw []byte) (jsonPart, error) {
	var fields map[string]json.RawMessage
	var jp jsonPart
	if err := json.Unmarshal(raw, &fields); err != nil {
		return jp, err
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"type", &jp.Type}, {"mode", &jp.Mode}} {
		if v, ok := fields[f.key]; ok && !isNull(v) {
			if err := json.Unmarshal(v, f.dst); err != nil {
				return jp, errors.New("part " + f.key + " is not a string")
			}
		}
	}
	if v, ok := fields["byteLength"]; ok && !isNull(v) {
		var n int64
		if err := json.Unmarshal(v, &n); err != nil {
			return jp, errors.New("byteLength is not an integer")
		}
		jp.ByteLength = &n
	}
	jp.Value, jp.Events = fields["value"], fields["events"]
	return jp, nil
}

func jsonUint32(n json.Number) (uint32, bool) {
	v, err := strconv.ParseFloat(string(n), 64)
	if err != nil || v != float64(int64(v)) || v < -(1<<31) || v >= 1<<32 {
		return 0, false
	}
	return uint32(int64(v)), true
}

// convert turns a decoded chunk object into jr.chunk; false means skipped.
func (jr *JSONReader) convert(jc *jsonChunk, off int64) (bool, error) {
	ct, ok := chunkTypeFromString(jc.Type)
	if !ok {
		return false, nil // unknown chunk type: skipped with a warning by the reference
	}
	id, ok := jsonUint32(jc.ID)
	if jc.ID == "" {
		id, ok = 0, true // readers ignore chunk ids; a missing one reads as 0
	}
	if !ok {
		return false, newErr(off, ErrCorrupt, "chunk id %q is not a 32-bit integer", jc.ID)
	}
	c := Chunk{ID: id, Type: ct, StartTime: InvalidTime, EndTime: InvalidTime, Offset: off}
	for _, tm := range []struct {
		n   *json.Number
		dst *uint32
	}{{jc.StartTime, &c.StartTime}, {jc.EndTime, &c.EndTime}} {
		if tm.n != nil {
			v, ok := jsonUint32(*tm.n)
			if !ok {
				return false, newErr(off, ErrCorrupt, "chunk %d time %q is not a 32-bit integer", id, *tm.n)
			}
			*tm.dst = v
		}
	}
	if int64(len(jc.Parts)) > jr.o.limits.MaxParts {
		return false, newErr(off, ErrLimit, "part count %d exceeds the limit of %d", len(jc.Parts), jr.o.limits.MaxParts)
	}
	for i, raw := range jc.Parts {
		p, ok, err := convertJSONPart(raw, id, i, off)
		if err != nil {
			return false, err
		}
		if ok {
			c.Parts = append(c.Parts, p)
		}
	}
	if ct.Known() {
		if err := c.check(); err != nil {
			return false, err
		}
	}
	jr.chunk = c
	return true, nil
}

// convertJSONPart converts part i of chunk id (at text offset off); false
// means a part type the reference skips.
func convertJSONPart(raw []byte, id uint32, i int, off int64) (Part, bool, error) {
	jp, err := parseJSONPart(raw)
	if err != nil {
		return Part{}, false, newErr(off, ErrCorrupt, "chunk %d part %d: %v", id, i, err)
	}
	pt, ok := partTypeFromString(jp.Type)
	if !ok {
		return Part{}, false, nil // unknown part type: skipped
	}
	p := Part{Type: pt, Offset: off}
	switch pt {
	case PartFileHeader:
		p.Data = raw
	case PartStringTable:
		var strs []string
		if err = json.Unmarshal(jp.Value, &strs); err == nil {
			var ok bool
			if p.Data, ok = AppendStringTable(nil, strs); !ok {
				err = errors.New("a string contains NUL")
			}
		}
	case PartStringResource:
		var s string
		err = json.Unmarshal(jp.Value, &s)
		p.Data = []byte(s)
	case PartJSONEventBuffer:
		// The records are the "events" array (JSONWriter writes it even
		// when empty): a part without it, its records under another key,
		// would read as a chunk of no events.
		p.Data = jp.Events
		if len(p.Data) == 0 || isNull(p.Data) {
			err = errors.New(`no "events" array: the part's records are not read`)
		} else if _, ok := jsonArray(p.Data); !ok {
			err = errors.New("events is not an array")
		}
	default:
		if jp.Mode != "base64" {
			err = errors.New("mode " + strconv.Quote(jp.Mode) + " is not supported (want base64)")
			break
		}
		var s string
		if err = json.Unmarshal(jp.Value, &s); err != nil {
			break
		}
		p.Data, err = base64.StdEncoding.DecodeString(s)
		if err == nil && jp.ByteLength != nil && *jp.ByteLength != int64(len(p.Data)) {
			err = errors.New("byteLength " + strconv.FormatInt(*jp.ByteLength, 10) + " does not match the " + strconv.Itoa(len(p.Data)) + " decoded bytes")
		}
	}
	if err != nil {
		return Part{}, false, newErr(off, ErrCorrupt, "chunk %d part %d (%s): %v", id, i, pt, err)
	}
	return p, true, nil
}

// JSONWriter writes a JSON CFF file chunk by chunk. It is not safe for
// concurrent use.
type JSONWriter struct {
	w    io.Writer
	mode JSONMode
	n    int
	buf  []byte
	err  error
	done bool
}

// NewJSONWriter writes the header and returns the writer. Options:
// WithWTFVersion (default JSWTFVersion, what the JS library writes) and
// WithJSONMode (default JSONComplete); the others are ignored.
func NewJSONWriter(w io.Writer, opts ...WriterOption) (*JSONWriter, error) {
	o, err := applyWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	mode := o.jsonMode
	jw := &JSONWriter{w: w, mode: mode}
	b := append(jw.buf[:0], "{\n  \"wtfVersion\": "...)
	b = strconv.AppendInt(b, o.version, 10)
	if mode == JSONPartial {
		b = append(b, ",\n  \"formatVersion\": 10\n}\n"...)
	} else {
		b = append(b, ",\n  \"formatVersion\": 10,\n  \"chunks\": ["...)
	}
	jw.buf = b
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	return jw, nil
}

// WriteChunk writes one chunk. Part data is taken as the binary container
// holds it (see JSONReader for the mapping).
func (jw *JSONWriter) WriteChunk(c *Chunk) error {
	if jw.err != nil {
		return jw.err
	}
	if jw.done {
		return ErrClosed
	}
	b := jw.buf[:0]
	if jw.mode == JSONPartial {
		b = append(b, `{"chunks": [`...)
	} else if jw.n == 0 {
		b = append(b, "\n    "...)
	} else {
		b = append(b, ",\n    "...)
	}
	b, err := AppendChunkJSON(b, c)
	if err != nil {
		return err
	}
	if jw.mode == JSONPartial {
		b = append(b, "]}\n"...)
	}
	jw.buf = b
	jw.n++
	if _, err := jw.w.Write(b); err != nil {
		jw.err = err
	}
	return jw.err
}

// Flush does nothing: every chunk is written to the io.Writer whole. It
// returns the sticky error, ErrClosed after Close.
func (jw *JSONWriter) Flush() error {
	if jw.err == nil && jw.done {
		return ErrClosed
	}
	return jw.err
}

// Close ends the document (COMPLETE mode); it does not close the io.Writer.
// A second Close returns nil.
func (jw *JSONWriter) Close() error {
	if jw.done {
		return nil
	}
	if jw.err != nil {
		jw.done = true
		return jw.err
	}
	jw.done = true
	if jw.mode == JSONComplete {
		_, jw.err = io.WriteString(jw.w, "\n  ]\n}")
	}
	return jw.err
}

// AppendChunkJSON appends c as the JS JsonStreamTarget serializes a chunk
// (compact JSON; startTime/endTime omitted when InvalidTime, else written as
// int32).
func AppendChunkJSON(b []byte, c *Chunk) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, uint64(c.ID), 10)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, c.Type.String())
	if c.StartTime != InvalidTime || c.EndTime != InvalidTime {
		b = append(b, `,"startTime":`...)
		b = strconv.AppendInt(b, int64(int32(c.StartTime)), 10)
		b = append(b, `,"endTime":`...)
		b = strconv.AppendInt(b, int64(int32(c.EndTime)), 10)
	}
	b = append(b, `,"parts":[`...)
	for i, p := range c.Parts {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendPartJSON(b, c, p); err != nil {
			return b, err
		}
	}
	return append(b, "]}"...), nil
}

func appendPartJSON(b []byte, c *Chunk, p Part) ([]byte, error) {
	switch p.Type {
	case PartFileHeader:
		obj, err := parseObject(p.Data)
		if err != nil {
			return b, newErr(p.Offset, ErrCorrupt, "file header part is not a JSON object: %v", err)
		}
		// The JSON reader recognises the part by its "type" key.
		if v, ok := obj.Get("type"); !ok {
			obj = append(Object{{"type", json.RawMessage(`"file_header"`)}}, obj...)
		} else if string(v) != `"file_header"` {
			obj.Set("type", json.RawMessage(`"file_header"`))
		}
		return obj.appendJSON(b), nil
	case PartStringTable:
		b = append(b, `{"type":"string_table","value":[`...)
		data := p.Data
		first := true
		for len(data) > 0 {
			i := bytes.IndexByte(data, 0)
			s := data
			if i >= 0 {
				s, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONBytes(b, s)
		}
		return append(b, "]}"...), nil
	case PartStringResource:
		b = append(b, `{"type":"string_resource","value":`...)
		b = appendJSONBytes(b, p.Data)
		return append(b, '}'), nil
	case PartJSONEventBuffer:
		b = append(b, `{"type":"json_event_buffer","events":`...)
		if !json.Valid(p.Data) {
			return b, newErr(p.Offset, ErrCorrupt, "json_event_buffer part is not valid JSON")
		}
		// Valid JSON but not an array (an object, a number) is refused as
		// the decoder (EventEncoder.Encode) and the JSON reader refuse it:
		// written as "events", it would make JSON no reader converts back.
		data, ok := jsonArray(p.Data)
		if !ok {
			return b, newErr(p.Offset, ErrCorrupt, "json_event_buffer part is not a JSON array")
		}
		b = append(b, data...)
		return append(b, '}'), nil
	}
	b = append(b, `{"type":`...)
	b = appendJSONString(b, p.Type.String())
	b = append(b, `,"mode":"base64","byteLength":`...)
	b = strconv.AppendInt(b, int64(len(p.Data)), 10)
	b = append(b, `,"value":"`...)
	b = base64.StdEncoding.AppendEncode(b, p.Data)
	return append(b, `"}`...), nil
}

// JSONVersion maps a binary header's version word to the number a JSON
// header holds: the known truncated words of the JS and C++ builds get their
// full build numbers back, any other word is kept.
func JSONVersion(word uint32) int64 {
	switch word {
	case JSWTFVersionWord:
		return JSWTFVersion
	case CppWTFVersionWord:
		return CppWTFVersion
	}
	return int64(word)
}

// ChunkWriter writes a binary CFF file from whole chunks, each with one
// Write call (a crash never leaves a chunk half-written by this package,
// though the io.Writer may). It is not safe for concurrent use.
type ChunkWriter struct {
	w      io.Writer
	buf    []byte
	err    error
	closed bool
}

// NewChunkWriter writes the 12-byte binary header. Option: WithWTFVersion
// (default JSWTFVersion, stored mod 2^32 as JSWTFVersionWord); the others
// are ignored.
func NewChunkWriter(w io.Writer, opts ...WriterOption) (*ChunkWriter, error) {
	o, err := applyWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	cw := &ChunkWriter{w: w}
	cw.buf = AppendFileHeader(cw.buf[:0], uint32(o.version))
	if _, err := w.Write(cw.buf); err != nil {
		return nil, err
	}
	return cw, nil
}

// WriteChunk writes one chunk (see AppendChunk).
func (cw *ChunkWriter) WriteChunk(c *Chunk) error {
	if cw.err != nil {
		return cw.err
	}
	if cw.closed {
		return ErrClosed
	}
	cw.buf = AppendChunk(cw.buf[:0], c)
	_, cw.err = cw.w.Write(cw.buf)
	return cw.err
}

// writeRaw writes a chunk already laid out (a ThreadWriter's).
func (cw *ChunkWriter) writeRaw(b []byte) error {
	if cw.err != nil {
		return cw.err
	}
	_, cw.err = cw.w.Write(b)
	return cw.err
}

// Flush does nothing (chunks are written whole) and returns the sticky
// error, ErrClosed after Close.
func (cw *ChunkWriter) Flush() error {
	if cw.err == nil && cw.closed {
		return ErrClosed
	}
	return cw.err
}

// Close marks the writer closed (a binary file has no trailer); it does not
// close the io.Writer. It returns the sticky error, nil on a second call.
func (cw *ChunkWriter) Close() error {
	if cw.closed {
		return nil
	}
	cw.closed = true
	return cw.err
}

// BinaryToJSON converts a binary CFF file to a JSON CFF file, chunk by
// chunk. Every chunk and part is kept (unknown types as "chunk_0xN" /
// "part_0xN" base64 parts, which the reference skips), so JSONToBinary gives
// the same bytes back for files written by the reference or this package.
func BinaryToJSON(dst io.Writer, src io.Reader, mode JSONMode) error {
	r, err := NewReader(src)
	if err != nil {
		return err
	}
	if r.Kind() != KindBinary {
		return newErr(0, ErrBadMagic, "BinaryToJSON reads binary CFF files, not %s ones", r.Kind())
	}
	jw, err := NewJSONWriter(dst, WithWTFVersion(JSONVersion(uint32(r.WTFVersion()))), WithJSONMode(mode))
	if err != nil {
		return err
	}
	for r.Next() {
		if err := jw.WriteChunk(r.Chunk()); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	return jw.Close()
}

// JSONToBinary converts a JSON CFF file (either mode) to a binary CFF file.
func JSONToBinary(dst io.Writer, src io.Reader) error {
	jr, err := NewJSONReader(src)
	if err != nil {
		return err
	}
	var cw *ChunkWriter
	for jr.Next() {
		if cw == nil {
			if cw, err = NewChunkWriter(dst, WithWTFVersion(jr.WTFVersion())); err != nil {
				return err
			}
		}
		if err := cw.WriteChunk(jr.Chunk()); err != nil {
			return err
		}
	}
	if err := jr.Err(); err != nil {
		return err
	}
	if cw == nil {
		_, err = NewChunkWriter(dst, WithWTFVersion(jr.WTFVersion()))
	}
	return err
}

// jsonArray returns the JSON text b without its surrounding white space and
// whether it is an array (its first byte '['): the one test of a
// json_event_buffer's body that the JSON reader and BinaryToJSON share.
func jsonArray(b []byte) ([]byte, bool) {
	t := bytes.TrimSpace(b)
	return t, len(t) > 0 && t[0] == '['
}
