package wtfcff

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
)

// Field is one key of a JSON object whose key order and unknown keys must
// survive a read/write cycle.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Object is an ordered JSON object.
type Object []Field

// Get returns the value of key and whether it is present.
func (o Object) Get(key string) (json.RawMessage, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// Set replaces key's value, or appends the key.
func (o *Object) Set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, Field{key, v})
}

// MarshalJSON writes the keys in order.
func (o Object) MarshalJSON() ([]byte, error) { return o.appendJSON(nil), nil }

func (o Object) appendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.Key)
		b = append(b, ':')
		if len(f.Value) == 0 {
			b = append(b, "null"...)
		} else {
			b = append(b, f.Value...)
		}
	}
	return append(b, '}')
}

// UnmarshalJSON reads an object keeping its key order.
func (o *Object) UnmarshalJSON(data []byte) error {
	obj, err := parseObject(data)
	if err != nil {
		return err
	}
	*o = obj
	return nil
}

// parseObject decodes a JSON object into its ordered fields; it returns
// (nil, errNotObject) when data is valid JSON but not an object.
func parseObject(data []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	obj := Object{}
	index := map[string]int{} // a repeated key keeps its first place, the last value
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if i, ok := index[key]; ok {
			obj[i].Value = v
			continue
		}
		index[key] = len(obj)
		obj = append(obj, Field{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return obj, nil
}

type jsonErr string

func (e jsonErr) Error() string { return string(e) }

const (
	errNotObject = jsonErr("not a JSON object")
	errTrailing  = jsonErr("data after the JSON value")
)

// FileHeader is the file header part (0x10000): JSON describing the trace.
type FileHeader struct {
	// Flags are wtf.data.formats.FileFlags strings, e.g.
	// "has_high_resolution_times"; unknown strings are kept.
	Flags []string
	// Timebase is the time, in milliseconds, that event times (µs) count
	// from. Required by the reference reader.
	Timebase float64
	// ContextInfo describes the traced program; nil when absent.
	ContextInfo *ContextInfo
	// Metadata holds the "metadata" object in key order (the JS writer puts
	// nowTimeNs first); nil when absent.
	Metadata Object
	// Extra holds top-level keys other than type, flags, timebase,
	// contextInfo and metadata, in order.
	Extra Object
}

// ContextInfo is wtf.data.ScriptContextInfo as serialized by the JS writer.
type ContextInfo struct {
	ContextType string // always "script" (the reference rejects others)
	URI         string
	Title       string
	Icon        json.RawMessage // {"uri":…} or null
	TaskID      json.RawMessage // a string in JS files, may be null
	Args        []string
	UserAgent   *UserAgent
	Extra       Object // other keys, in order
}

// UserAgent is the contextInfo.userAgent object.
type UserAgent struct {
	Value           string `json:"value"`
	Type            string `json:"type"`
	Platform        string `json:"platform"`
	PlatformVersion string `json:"platformVersion"`
	Device          string `json:"device"`
}

// FlagBits returns the header flags as wtf.data.formats.FileFlags bits.
func (h *FileHeader) FlagBits() uint32 {
	var v uint32
	for _, f := range h.Flags {
		switch f {
		case "has_high_resolution_times":
			v |= FileFlagHighResolutionTimes
		case "times_as_count":
			v |= FileFlagTimesAsCount
		}
	}
	return v
}

// ParseFileHeader parses a file header part with the reference's rules: the
// text must be a JSON object (empty text counts as {}), flags if present an
// array of strings, timebase a number and required, contextInfo if present an
// object whose contextType is "script", metadata if present an object. off is
// the part's absolute offset, used in errors.
func ParseFileHeader(data []byte, off int64) (*FileHeader, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	obj, err := parseObject(data)
	if err != nil {
		return nil, newErr(off, ErrCorrupt, "file header is not a JSON object: %v", err)
	}
	h := &FileHeader{}
	hasTimebase := false
	for _, f := range obj {
		switch f.Key {
		case "type":
		case "flags":
			if isFalsy(f.Value) {
				continue
			}
			if err := json.Unmarshal(f.Value, &h.Flags); err != nil {
				return nil, newErr(off, ErrCorrupt, "file header flags must be an array of strings")
			}
		case "timebase":
			v, err := strconv.ParseFloat(string(f.Value), 64)
			if err != nil {
				return nil, newErr(off, ErrCorrupt, "file header timebase %s is not a number", f.Value)
			}
			h.Timebase, hasTimebase = v, true
		case "contextInfo":
			ci, err := parseContextInfo(f.Value)
			if err != nil {
				return nil, newErr(off, ErrCorrupt, "file header contextInfo: %v", err)
			}
			h.ContextInfo = ci
		case "metadata":
			m, err := parseObject(f.Value)
			if err != nil {
				return nil, newErr(off, ErrCorrupt, "file header metadata must be an object")
			}
			h.Metadata = m
		default:
			h.Extra = append(h.Extra, f)
		}
	}
	if !hasTimebase {
		return nil, newErr(off, ErrCorrupt, `file header missing required field "timebase"`)
	}
	return h, nil
}

func isFalsy(v json.RawMessage) bool {
	s := string(bytes.TrimSpace(v))
	return s == "null" || s == "false" || s == "0" || s == `""`
}

func parseContextInfo(v json.RawMessage) (*ContextInfo, error) {
	obj, err := parseObject(v)
	if err != nil {
		return nil, err
	}
	ci := &ContextInfo{}
	for _, f := range obj {
		var err error
		switch f.Key {
		case "contextType":
			err = json.Unmarshal(f.Value, &ci.ContextType)
		case "uri":
			err = unmarshalNullable(f.Value, &ci.URI)
		case "title":
			err = unmarshalNullable(f.Value, &ci.Title)
		case "icon":
			ci.Icon = f.Value
		case "taskId":
			ci.TaskID = f.Value
		case "args":
			err = unmarshalNullable(f.Value, &ci.Args)
		case "userAgent":
			if !isFalsy(f.Value) {
				ci.UserAgent = &UserAgent{}
				err = json.Unmarshal(f.Value, ci.UserAgent)
			}
		default:
			ci.Extra = append(ci.Extra, f)
		}
		if err != nil {
			return nil, jsonErr("key " + f.Key + ": " + err.Error())
		}
	}
	if ci.ContextType != "script" {
		return nil, jsonErr("contextType " + strconv.Quote(ci.ContextType) + " is not supported (only \"script\")")
	}
	return ci, nil
}

func unmarshalNullable(v json.RawMessage, dst any) error {
	if string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	return json.Unmarshal(v, dst)
}

// AppendJSON appends the header as the JS writer serializes it: no
// whitespace, keys in the order type, flags, timebase, contextInfo,
// metadata, then any Extra keys.
func (h *FileHeader) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":"file_header","flags":[`...)
	for i, f := range h.Flags {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f)
	}
	b = append(b, `],"timebase":`...)
	b = appendJSNumber(b, h.Timebase)
	if h.ContextInfo != nil {
		b = append(b, `,"contextInfo":`...)
		b = h.ContextInfo.appendJSON(b)
	}
	if h.Metadata != nil {
		b = append(b, `,"metadata":`...)
		b = h.Metadata.appendJSON(b)
	}
	for _, f := range h.Extra {
		b = append(b, ',')
		b = appendJSONString(b, f.Key)
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	return append(b, '}')
}

func (ci *ContextInfo) appendJSON(b []byte) []byte {
	b = append(b, `{"contextType":`...)
	b = appendJSONString(b, ci.ContextType)
	b = append(b, `,"uri":`...)
	b = appendJSONString(b, ci.URI)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, ci.Title)
	b = append(b, `,"icon":`...)
	b = appendRawOrNull(b, ci.Icon)
	b = append(b, `,"taskId":`...)
	b = appendRawOrNull(b, ci.TaskID)
	if ci.Args != nil {
		b = append(b, `,"args":[`...)
		for i, a := range ci.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, a)
		}
		b = append(b, ']')
	}
	if ci.UserAgent != nil {
		u := ci.UserAgent
		b = append(b, `,"userAgent":{"value":`...)
		b = appendJSONString(b, u.Value)
		b = append(b, `,"type":`...)
		b = appendJSONString(b, u.Type)
		b = append(b, `,"platform":`...)
		b = appendJSONString(b, u.Platform)
		b = append(b, `,"platformVersion":`...)
		b = appendJSONString(b, u.PlatformVersion)
		b = append(b, `,"device":`...)
		b = appendJSONString(b, u.Device)
		b = append(b, '}')
	}
	for _, f := range ci.Extra {
		b = append(b, ',')
		b = appendJSONString(b, f.Key)
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	return append(b, '}')
}

func appendRawOrNull(b []byte, v json.RawMessage) []byte {
	if len(v) == 0 {
		return append(b, "null"...)
	}
	return append(b, v...)
}

// appendJSNumber formats v as JavaScript's Number#toString does for the
// values WTF writes (shortest round-trip digits, exponent form only below
// 1e-6 or from 1e21); non-finite values become null, as JSON.stringify does.
func appendJSNumber(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		s := strconv.AppendFloat(nil, v, 'e', -1, 64)
		// Go writes e+21 / e-07; JavaScript writes e+21 / e-7.
		if i := bytes.IndexByte(s, 'e'); i >= 0 && len(s) > i+3 && s[i+2] == '0' {
			s = append(s[:i+2], s[i+3:]...)
		}
		return append(b, s...)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}
