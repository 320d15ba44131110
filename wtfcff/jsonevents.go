package wtfcff

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf16"
)

// AppendEventJSON appends e in the package's JSON event encoding, one object
// per event: {"name":"…","time":µs,"args":{…}} ("args" omitted for events
// without arguments; values as Value.AppendJSON describes). Definitions and
// zone records are events like any other, so a JSON event buffer is
// self-describing.
func AppendEventJSON(b []byte, e *Event) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, e.Type.Name)
	b = append(b, `,"time":`...)
	b = strconv.AppendUint(b, uint64(e.Time), 10)
	if len(e.Type.Args) > 0 {
		b = append(b, `,"args":`...)
		b = e.AppendArgsJSON(b)
	}
	return append(b, '}')
}

// EventsToJSON decodes one binary (or legacy) event buffer with dec (whose
// definitions persist across calls, as across chunks) and appends it as a
// json_event_buffer body: a JSON array with one event object per line.
func EventsToJSON(dst []byte, dec *Decoder, c *Chunk) ([]byte, error) {
	dst = append(dst, '[')
	if dec.SetChunk(c) {
		n := 0
		for dec.Next() {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '\n')
			dst = AppendEventJSON(dst, dec.Event())
			n++
		}
		if err := dec.Err(); err != nil {
			return dst, err
		}
		if n > 0 {
			dst = append(dst, '\n')
		}
	}
	return append(dst, ']'), nil
}

// ChunkToJSONEvents returns a copy of an event_data chunk whose binary event
// buffer and string table are replaced by one json_event_buffer part
// (resources and other parts are kept in place). Other chunks are returned
// unchanged.
func ChunkToJSONEvents(c *Chunk, dec *Decoder) (Chunk, error) {
	if c.Type != ChunkEventData {
		return *c, nil
	}
	body, err := EventsToJSON(nil, dec, c)
	if err != nil {
		return Chunk{}, err
	}
	out := *c
	out.Parts = nil
	placed := false
	for _, p := range c.Parts {
		switch p.Type {
		case PartStringTable:
			continue
		case PartBinaryEventBuffer, PartLegacyEventBuffer:
			if placed {
				continue
			}
			p = Part{Type: PartJSONEventBuffer, Offset: p.Offset, Data: body}
			placed = true
		}
		out.Parts = append(out.Parts, p)
	}
	return out, nil
}

// EventEncoder turns JSON events back into binary event buffers. Like the
// decoder it keeps the stream's definitions across chunks: a
// wtf.event#define event defines (or re-binds) a wire id, and later events
// are written with the wire id of the latest definition of their name.
type EventEncoder struct {
	byWire map[uint16]*EventType
	wireOf map[string]uint16
	types  map[string]*EventType
	strs   StringTableBuilder
	buf    []byte
}

// NewEventEncoder returns an encoder that knows only wtf.event#define.
func NewEventEncoder() *EventEncoder {
	def := defineType()
	return &EventEncoder{byWire: map[uint16]*EventType{1: def}, wireOf: map[string]uint16{def.Name: 1},
		types: map[string]*EventType{def.Name: def}}
}

type jsonEvent struct {
	Name string          `json:"name"`
	Time json.Number     `json:"time"`
	Args json.RawMessage `json:"args"`
}

// Encode converts a json_event_buffer body (a JSON array of event objects)
// into a binary event buffer and its string table (both valid until the next
// call). off is used in errors.
func (enc *EventEncoder) Encode(events []byte, off int64) (buf, strtab []byte, err error) {
	enc.buf = enc.buf[:0]
	enc.strs.Reset()
	dec := json.NewDecoder(bytes.NewReader(events))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, nil, newErr(off, ErrCorrupt, "json_event_buffer is not an array")
	}
	for i := 0; dec.More(); i++ {
		var je jsonEvent
		if err := dec.Decode(&je); err != nil {
			return nil, nil, newErr(off+dec.InputOffset(), ErrCorrupt, "JSON event %d: %v", i, err)
		}
		if err := enc.encodeOne(&je); err != nil {
			return nil, nil, newErr(off+dec.InputOffset(), ErrCorrupt, "JSON event %d (%s): %v", i, je.Name, err)
		}
	}
	return enc.buf, enc.strs.Bytes(), nil
}

func (enc *EventEncoder) encodeOne(je *jsonEvent) error {
	t := enc.types[je.Name]
	wire, ok := enc.wireOf[je.Name]
	if t == nil || !ok {
		return errors.New("event type is not defined")
	}
	tm, err := strconv.ParseUint(string(je.Time), 10, 32)
	if err != nil {
		return errors.New("time is not a 32-bit unsigned integer")
	}
	var args map[string]json.RawMessage
	if len(je.Args) > 0 && string(je.Args) != "null" {
		if err := json.Unmarshal(je.Args, &args); err != nil {
			return err
		}
	}
	enc.buf = binary.LittleEndian.AppendUint32(enc.buf, uint32(wire))
	enc.buf = binary.LittleEndian.AppendUint32(enc.buf, uint32(tm))
	for _, a := range t.Args {
		if err := enc.encodeArg(a, args[a.Name]); err != nil {
			return errors.New("argument " + a.Name + ": " + err.Error())
		}
	}
	if t.builtin == builtinDefine {
		return enc.define(args)
	}
	return nil
}

func (enc *EventEncoder) define(args map[string]json.RawMessage) error {
	var d struct {
		WireID     uint16  `json:"wireId"`
		EventClass uint16  `json:"eventClass"`
		Flags      uint32  `json:"flags"`
		Name       string  `json:"name"`
		Args       *string `json:"args"`
	}
	raw, _ := json.Marshal(args)
	if err := json.Unmarshal(raw, &d); err != nil {
		return err
	}
	if d.WireID <= 1 {
		return nil
	}
	t := enc.types[d.Name]
	if t == nil {
		sig := ""
		if d.Args != nil {
			sig = *d.Args
		}
		var err error
		if t, err = newEventType(d.WireID, d.EventClass, d.Flags, d.Name, sig); err != nil {
			return err
		}
		enc.types[d.Name] = t
	}
	enc.byWire[d.WireID] = t
	enc.wireOf[d.Name] = d.WireID
	return nil
}

func (enc *EventEncoder) slot(v uint32) { enc.buf = binary.LittleEndian.AppendUint32(enc.buf, v) }

func (enc *EventEncoder) str(s []byte) error {
	ord, ok := enc.strs.Add(s)
	if !ok {
		return errors.New("string contains NUL")
	}
	enc.slot(ord)
	return nil
}

func isNull(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

func (enc *EventEncoder) encodeArg(a ArgDef, v json.RawMessage) error {
	if a.Type == ArgUnsupported {
		return errors.New("type " + a.TypeName + " has no wire encoding")
	}
	switch a.Type {
	case ArgASCII, ArgUTF8:
		if isNull(v) {
			enc.slot(NullString)
			return nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return err
		}
		return enc.str([]byte(s))
	case ArgAny:
		if isNull(v) {
			enc.slot(NullString)
			return nil
		}
		var raw struct {
			Raw *string `json:"$raw"`
		}
		if bytes.HasPrefix(bytes.TrimSpace(v), []byte(`{"$raw"`)) && json.Unmarshal(v, &raw) == nil && raw.Raw != nil {
			return enc.str([]byte(*raw.Raw))
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return err
		}
		return enc.str(c.Bytes())
	case ArgBool:
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return err
		}
		if b {
			enc.slot(1)
		} else {
			enc.slot(0)
		}
		return nil
	case ArgFloat32:
		f, err := jsonFloat(v)
		enc.slot(math.Float32bits(float32(f)))
		return err
	case ArgChar, ArgWChar:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return err
		}
		u := utf16.Encode([]rune(s))
		if len(u) == 0 {
			enc.slot(0)
		} else if a.Type == ArgChar {
			enc.slot(uint32(u[0] & 0xFF))
		} else {
			enc.slot(uint32(u[0]))
		}
		return nil
	case ArgCharArray, ArgWCharArray:
		if isNull(v) {
			enc.slot(NullString)
			return nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return err
		}
		u := utf16.Encode([]rune(s))
		enc.slot(uint32(len(u)))
		start := len(enc.buf)
		for _, x := range u {
			if a.Type == ArgCharArray {
				enc.buf = append(enc.buf, byte(x))
			} else {
				enc.buf = binary.LittleEndian.AppendUint16(enc.buf, x)
			}
		}
		enc.buf = appendZeros(enc.buf, pad4(len(enc.buf)-start)-(len(enc.buf)-start))
		return nil
	}
	if a.Type.IsArray() {
		if isNull(v) {
			enc.slot(NullString)
			return nil
		}
		// The elements are scanned in place: decoding them into a slice of
		// values would cost tens of bytes of memory per input byte.
		countAt := len(enc.buf)
		enc.slot(0)
		start := len(enc.buf)
		count, err := scanScalarArray(v, func(e []byte) error {
			if a.Type == ArgFloat32Array {
				f, err := jsonFloat(e)
				if err != nil {
					return err
				}
				enc.buf = binary.LittleEndian.AppendUint32(enc.buf, math.Float32bits(float32(f)))
				return nil
			}
			n, err := strconv.ParseInt(string(e), 10, 64) // no allocation: the conversion does not escape
			if err != nil {
				return err
			}
			switch a.Type.elemSize() {
			case 1:
				enc.buf = append(enc.buf, byte(n))
			case 2:
				enc.buf = binary.LittleEndian.AppendUint16(enc.buf, uint16(n))
			default:
				enc.buf = binary.LittleEndian.AppendUint32(enc.buf, uint32(n))
			}
			return nil
		})
		if err != nil {
			return err
		}
		binary.LittleEndian.PutUint32(enc.buf[countAt:], uint32(count))
		enc.buf = appendZeros(enc.buf, pad4(len(enc.buf)-start)-(len(enc.buf)-start))
		return nil
	}
	// Integer scalars, flowId, time32.
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return errors.New("not an integer: " + string(v))
	}
	switch a.Type {
	case ArgInt8, ArgUint8:
		enc.slot(uint32(uint8(n)))
	case ArgInt16, ArgUint16:
		enc.slot(uint32(uint16(n)))
	default:
		enc.slot(uint32(n))
	}
	return nil
}

// scanScalarArray calls fn with the text of each element of v, a valid JSON
// array whose elements are numbers or strings, and returns their count.
func scanScalarArray(v []byte, fn func(elem []byte) error) (int, error) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return 0, errors.New("not an array")
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == ']' {
		return 0, nil
	}
	n := 0
	for i < len(v) {
		start := i
		switch v[i] {
		case '[', '{':
			return n, errors.New("array element is not a number")
		case '"':
			for i++; i < len(v) && v[i] != '"'; i++ {
				if v[i] == '\\' {
					i++
				}
			}
			i++
		default:
			for i < len(v) && v[i] != ',' && v[i] != ']' && v[i] != ' ' && v[i] != '\t' && v[i] != '\n' && v[i] != '\r' {
				i++
			}
		}
		if i > len(v) {
			return n, errors.New("unterminated string")
		}
		if err := fn(v[start:i]); err != nil {
			return n, err
		}
		n++
		i = skipSpace(v, i)
		if i >= len(v) {
			break
		}
		if v[i] == ']' {
			return n, nil
		}
		if v[i] != ',' {
			return n, errors.New("malformed array")
		}
		i = skipSpace(v, i+1)
	}
	return n, errors.New("unterminated array")
}

func skipSpace(v []byte, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	return i
}

func jsonFloat(v json.RawMessage) (float64, error) {
	switch string(v) {
	case `"NaN"`:
		return math.NaN(), nil
	case `"Infinity"`:
		return math.Inf(1), nil
	case `"-Infinity"`:
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(string(v), 64)
}

// ChunkFromJSONEvents returns a copy of an event_data chunk whose
// json_event_buffer part is replaced by a string_table part and a
// binary_event_buffer part (in the JS order), other parts kept.
func ChunkFromJSONEvents(c *Chunk, enc *EventEncoder) (Chunk, error) {
	p, ok := c.Part(PartJSONEventBuffer)
	if c.Type != ChunkEventData || !ok {
		return *c, nil
	}
	buf, strs, err := enc.Encode(p.Data, p.Offset)
	if err != nil {
		return Chunk{}, err
	}
	out := *c
	out.Parts = []Part{{Type: PartStringTable, Data: bytes.Clone(strs)}, {Type: PartBinaryEventBuffer, Data: bytes.Clone(buf)}}
	for _, q := range c.Parts {
		if q.Type != PartJSONEventBuffer && q.Type != PartStringTable && q.Type != PartBinaryEventBuffer {
			out.Parts = append(out.Parts, q)
		}
	}
	return out, nil
}
