package wtfcff

import (
	"bytes"
	"encoding/base64"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonFast reads a JSON container held in memory without building a tree:
// a scanner over the text that takes
// the documents, chunks and parts in the layout the reference's writers and
// this package's JSONWriter produce, and decodes base64 event buffers and
// string tables from the text into buffers reused from chunk to chunk. Whatever it does not
// handle — other keys, escapes, numbers that are not plain integers, unknown
// chunk types, anything malformed — it hands to encoding/json from the start
// of the chunk or document it was reading (see JSONReader.fallback), so
// every error, offset and decoded value stays what that path reports.
type jsonFast struct {
	buf   []byte // the whole input
	pos   int
	state int  // jsTop, jsChunks or jsDone, as in JSONReader
	elems bool // in a chunks array: an element has been read
	bins  [][]byte
	parts []Part
	// delivered counts the chunks returned, which a fallback skips.
	delivered int
}

func newJSONFast(data []byte) *jsonFast { return &jsonFast{buf: data} }

// fill would read more input: the scanner works on input held in memory.
func (f *jsonFast) fill() bool { return false }

// peek returns the byte at the read position after whitespace.
func (f *jsonFast) peek() (byte, bool) {
	for {
		for f.pos < len(f.buf) {
			switch c := f.buf[f.pos]; c {
			case ' ', '\t', '\n', '\r':
				f.pos++
			default:
				return c, true
			}
		}
		if !f.fill() {
			return 0, false
		}
	}
}

// eat consumes byte c after whitespace.
func (f *jsonFast) eat(c byte) bool {
	if b, ok := f.peek(); ok && b == c {
		f.pos++
		return true
	}
	return false
}

// str reads a string without escapes after whitespace and returns its
// bounds in the window.
func (f *jsonFast) str() (start, end int, ok bool) {
	if !f.eat('"') {
		return 0, 0, false
	}
	start = f.pos
	from := start
	for {
		if i := bytes.IndexByte(f.buf[from:], '"'); i >= 0 {
			end = from + i
			if bytes.IndexByte(f.buf[start:end], '\\') >= 0 {
				return 0, 0, false
			}
			f.pos = end + 1
			return start, end, true
		}
		from = len(f.buf)
		if !f.fill() {
			return 0, 0, false
		}
	}
}

// key reads an object key and its colon.
func (f *jsonFast) key() ([]byte, bool) {
	s, e, ok := f.str()
	if !ok || !f.eat(':') {
		return nil, false
	}
	return f.buf[s:e], true
}

// int reads a plain JSON integer (-?(0|[1-9][0-9]*), at most 15 digits)
// after whitespace.
func (f *jsonFast) int() (int64, bool) {
	if _, ok := f.peek(); !ok {
		return 0, false
	}
	neg := false
	if f.buf[f.pos] == '-' {
		neg = true
		f.pos++
	}
	var v int64
	digits := 0
	for {
		if f.pos == len(f.buf) && !f.fill() {
			break
		}
		c := f.buf[f.pos]
		if c < '0' || c > '9' {
			if c == '.' || c == 'e' || c == 'E' {
				return 0, false
			}
			break
		}
		if digits == 1 && v == 0 || digits == 15 {
			return 0, false // a leading zero, or too long to be exact
		}
		v = 10*v + int64(c-'0')
		digits++
		f.pos++
	}
	if digits == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// u32 reads an integer the way jsonUint32 accepts it.
func (f *jsonFast) u32() (uint32, bool) {
	v, ok := f.int()
	if !ok || v < -(1<<31) || v >= 1<<32 {
		return 0, false
	}
	return uint32(v), true
}

// skipObject skips an object (not validated: what is kept is checked by
// the caller) and returns its bounds.
func (f *jsonFast) skipObject() (start, end int, ok bool) {
	if c, ok := f.peek(); !ok || c != '{' {
		return 0, 0, false
	}
	start = f.pos
	depth := 0
	for {
		for f.pos < len(f.buf) {
			c := f.buf[f.pos]
			f.pos++
			switch c {
			case '{', '[':
				if depth++; depth > 1000 {
					return 0, 0, false
				}
			case '}', ']':
				if depth--; depth == 0 {
					return start, f.pos, true
				}
			case '"':
				if !f.skipString() {
					return 0, 0, false
				}
			}
		}
		if !f.fill() {
			return 0, 0, false
		}
	}
}

// skipString moves past the end of a string whose opening quote was read.
func (f *jsonFast) skipString() bool {
	for {
		if i := bytes.IndexByte(f.buf[f.pos:], '"'); i >= 0 {
			q := f.pos + i
			bs := 0
			for j := q - 1; j >= f.pos && f.buf[j] == '\\'; j-- {
				bs++
			}
			f.pos = q + 1
			if bs%2 == 0 {
				return true
			}
			continue
		}
		f.pos = len(f.buf)
		if !f.fill() {
			return false
		}
	}
}

// fastNext is Next on the fast path. handled is false when the JSONReader
// must go on with encoding/json (which then reads from where fast stopped).
func (jr *JSONReader) fastNext() (ok, handled bool) {
	f := jr.fast
	for {
		switch f.state {
		case jsDone:
			return false, true
		case jsTop:
			if _, more := f.peek(); !more {
				if !jr.haveHeader {
					return jr.fallback()
				}
				f.state = jsDone
				return false, true
			}
			if !jr.fastDocHead() {
				return jr.fallback()
			}
		case jsChunks:
			c, more := f.peek()
			switch {
			case !more:
				return jr.fallback()
			case c == ']':
				f.pos++
				if !f.eat('}') {
					return jr.fallback()
				}
				f.state = jsTop
				continue
			case f.elems && c != ',':
				return jr.fallback()
			}
			off := int64(f.pos) // where encoding/json's InputOffset is
			if f.elems {
				f.pos++
			}
			if !jr.fastChunk(off) {
				return jr.fallback()
			}
			f.elems = true
			f.delivered++
			jr.countChunk(int64(f.pos))
			return true, true
		}
	}
}

// fastDocHead reads the start of a document: {"wtfVersion":N,
// "formatVersion":10} (a PARTIAL header) or the same followed by
// ,"chunks":[ (COMPLETE), or {"chunks":[ after a header.
func (jr *JSONReader) fastDocHead() bool {
	f := jr.fast
	if !f.eat('{') {
		return false
	}
	k, ok := f.key()
	if !ok {
		return false
	}
	if string(k) == "chunks" {
		if !jr.haveHeader || !f.eat('[') {
			return false
		}
		f.state, f.elems = jsChunks, false
		return true
	}
	if string(k) != "wtfVersion" || jr.haveHeader {
		return false
	}
	v, ok := f.int()
	if !ok || !f.eat(',') {
		return false
	}
	if k, ok = f.key(); !ok || string(k) != "formatVersion" {
		return false
	}
	if fv, ok := f.int(); !ok || fv != FormatVersion {
		return false
	}
	switch c, _ := f.peek(); c {
	case '}':
		f.pos++
		jr.wtfVersion, jr.haveHeader = v, true
		return true
	case ',':
		f.pos++
		if k, ok = f.key(); !ok || string(k) != "chunks" || !f.eat('[') {
			return false
		}
		jr.wtfVersion, jr.haveHeader = v, true
		f.state, f.elems = jsChunks, false
		return true
	}
	return false
}

// fastChunk reads a chunk object into jr.chunk; off is its offset as
// encoding/json reports it.
func (jr *JSONReader) fastChunk(off int64) bool {
	f := jr.fast
	if !f.eat('{') {
		return false
	}
	c := Chunk{StartTime: InvalidTime, EndTime: InvalidTime, Offset: off}
	var seen uint8
	f.parts = f.parts[:0]
	nbin := 0
	if f.eat('}') {
		return false // no type: skipped by the reference
	}
	for {
		k, ok := f.key()
		if !ok {
			return false
		}
		var bit uint8
		switch string(k) {
		case "id":
			bit = 1
			c.ID, ok = f.u32()
		case "type":
			bit = 2
			var s, e int
			if s, e, ok = f.str(); ok {
				c.Type, ok = chunkTypeFromString(string(f.buf[s:e]))
			}
		case "startTime":
			bit = 4
			c.StartTime, ok = f.u32()
		case "endTime":
			bit = 8
			c.EndTime, ok = f.u32()
		case "parts":
			bit = 16
			ok = jr.fastParts(&c, &nbin)
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if f.eat('}') {
			break
		}
		if !f.eat(',') {
			return false
		}
	}
	if seen&2 == 0 {
		return false
	}
	for i := range f.parts {
		f.parts[i].Offset = off
	}
	c.Parts = f.parts
	if c.Type.Known() && c.check() != nil {
		return false
	}
	jr.chunk = c
	return true
}

// Canonical heads of base64 parts, as the writers lay them out.
const (
	jsonEventBufferHead    = `{"type":"binary_event_buffer","mode":"base64","byteLength":`
	jsonBinaryResourceHead = `{"type":"binary_resource","mode":"base64","byteLength":`
)

// fastParts reads a parts array.
func (jr *JSONReader) fastParts(c *Chunk, nbin *int) bool {
	f := jr.fast
	if !f.eat('[') {
		return false
	}
	if f.eat(']') {
		return true
	}
	for i := 0; ; i++ {
		if int64(i) >= jr.o.limits.MaxParts {
			return false
		}
		if p, ok := f.stringTable(nbin); ok {
			f.parts = append(f.parts, p)
			if f.eat(']') {
				return true
			}
			if !f.eat(',') {
				return false
			}
			continue
		}
		s, e, ok := f.skipObject()
		if !ok {
			return false
		}
		raw := f.buf[s:e]
		if p, ok := f.base64Part(raw, nbin); ok {
			f.parts = append(f.parts, p)
		} else {
			p, keep, err := convertJSONPart(raw, c.ID, i, 0)
			if err != nil {
				return false
			}
			if keep {
				f.parts = append(f.parts, p)
			}
		}
		if f.eat(']') {
			return true
		}
		if !f.eat(',') {
			return false
		}
	}
}

// base64Part decodes a base64 part in the canonical layout into a reused
// buffer; false leaves the part to convertJSONPart.
func (f *jsonFast) base64Part(raw []byte, nbin *int) (Part, bool) {
	var p Part
	var rest []byte
	switch {
	case bytes.HasPrefix(raw, []byte(jsonEventBufferHead)):
		p.Type, rest = PartBinaryEventBuffer, raw[len(jsonEventBufferHead):]
	case bytes.HasPrefix(raw, []byte(jsonBinaryResourceHead)):
		p.Type, rest = PartBinaryResource, raw[len(jsonBinaryResourceHead):]
	default:
		return p, false
	}
	n, digits := 0, 0
	for digits < len(rest) && digits < 10 && rest[digits] >= '0' && rest[digits] <= '9' {
		n = 10*n + int(rest[digits]-'0')
		digits++
	}
	if digits == 0 || digits > 1 && rest[0] == '0' {
		return p, false
	}
	rest = rest[digits:]
	const valueKey = `,"value":"`
	if !bytes.HasPrefix(rest, []byte(valueKey)) || !bytes.HasSuffix(rest, []byte(`"}`)) {
		return p, false
	}
	text := rest[len(valueKey) : len(rest)-2]
	// Exactly the padded length of n bytes: no line breaks (which the
	// base64 decoder skips and JSON strings cannot hold).
	if len(text) != 4*((n+2)/3) {
		return p, false
	}
	if *nbin == len(f.bins) {
		f.bins = append(f.bins, nil)
	}
	dst := f.bins[*nbin]
	if cap(dst) < n+3 {
		dst = make([]byte, n+3)
	}
	m, err := base64.StdEncoding.Decode(dst[:cap(dst)], text)
	if err != nil || m != n {
		return p, false
	}
	f.bins[*nbin] = dst
	*nbin++
	p.Data = dst[:n]
	return p, true
}

// jsonStringTableHead is how the writers start a string_table part.
const jsonStringTableHead = `{"type":"string_table","value":[`

// stringTable reads a string_table part laid out as the writers lay it out
// ({"type":"string_table","value":[strings]}) from the read position into a
// reused buffer: the strings unescaped as encoding/json unescapes them, each
// followed by NUL, which is what convertJSONPart makes of the part. Anything
// else — another layout, a value that is not a string, an escape or byte
// that is not valid JSON, a NUL — leaves the read position where it was and
// returns false, for the generic path to read (or reject) the part.
func (f *jsonFast) stringTable(nbin *int) (Part, bool) {
	if _, ok := f.peek(); !ok || !bytes.HasPrefix(f.buf[f.pos:], []byte(jsonStringTableHead)) {
		return Part{}, false
	}
	if *nbin == len(f.bins) {
		f.bins = append(f.bins, nil)
	}
	buf := f.buf
	dst := f.bins[*nbin][:0]
	pos := skipJSONSpace(buf, f.pos+len(jsonStringTableHead))
	ok := pos < len(buf)
	if ok && buf[pos] == ']' {
		pos++
	} else {
		for ok {
			if pos >= len(buf) || buf[pos] != '"' {
				ok = false
				break
			}
			if dst, pos, ok = appendJSONUnquoted(dst, buf, pos+1); !ok {
				break
			}
			dst = append(dst, 0)
			if pos = skipJSONSpace(buf, pos); pos >= len(buf) {
				ok = false
			} else if buf[pos] == ']' {
				pos++
				break
			} else if buf[pos] == ',' {
				pos = skipJSONSpace(buf, pos+1)
			} else {
				ok = false
			}
		}
	}
	f.bins[*nbin] = dst // kept for reuse, whatever happens
	if !ok || pos >= len(buf) || buf[pos] != '}' {
		return Part{}, false
	}
	f.pos = pos + 1
	*nbin++
	return Part{Type: PartStringTable, Data: dst}, true
}

func skipJSONSpace(b []byte, pos int) int {
	for pos < len(b) && (b[pos] == ' ' || b[pos] == '\t' || b[pos] == '\n' || b[pos] == '\r') {
		pos++
	}
	return pos
}

// appendJSONUnquoted appends the JSON string text starting at s[pos] (after
// its opening quote) unescaped as encoding/json unescapes it — a lone or
// broken surrogate escape and each byte of invalid UTF-8 become U+FFFD — and
// returns the position after the closing quote. ok is false for text that
// is not a valid JSON string (a control character, a bad escape, no closing
// quote) and for \u0000, which a string table cannot hold.
func appendJSONUnquoted(dst, s []byte, pos int) (_ []byte, end int, ok bool) {
	for {
		i := pos
		for i < len(s) {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
				break
			}
			i++
		}
		dst = append(dst, s[pos:i]...)
		if pos = i; pos >= len(s) {
			return dst, pos, false
		}
		switch c := s[pos]; {
		case c == '"':
			return dst, pos + 1, true
		case c < 0x20:
			return dst, pos, false
		case c == '\\':
			if pos+1 >= len(s) {
				return dst, pos, false
			}
			switch e := s[pos+1]; e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := jsonHex4(s, pos)
				if r <= 0 { // not an escape, or NUL
					return dst, pos, false
				}
				pos += 6
				if utf16.IsSurrogate(r) {
					if d := utf16.DecodeRune(r, jsonHex4(s, pos)); d != utf8.RuneError {
						dst = utf8.AppendRune(dst, d)
						pos += 6
						continue
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default:
				return dst, pos, false
			}
			pos += 2
		default:
			r, n := utf8.DecodeRune(s[pos:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, "\uFFFD"...)
			} else {
				dst = append(dst, s[pos:pos+n]...)
			}
			pos += n
		}
	}
}

// jsonHex4 returns the code unit of the \uXXXX escape at s[pos:], or -1.
func jsonHex4(s []byte, pos int) rune {
	if pos+6 > len(s) || s[pos] != '\\' || s[pos+1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[pos+2 : pos+6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// fallback hands the input to encoding/json from its start: the
// headers are read again and the chunks fast delivered are read and
// skipped, so that offsets and errors (encoding/json's syntax error offsets
// count the bytes its scanner has seen) are what reading the text with
// encoding/json alone gives.
func (jr *JSONReader) fallback() (ok, handled bool) {
	f := jr.fast
	jr.fast = nil
	jr.startDecoder(bytes.NewReader(f.buf))
	jr.state, jr.haveHeader, jr.wtfVersion, jr.skip = jsTop, false, 0, f.delivered
	return false, false
}
