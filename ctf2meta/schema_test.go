package ctf2meta

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// seq joins fragments into a metadata stream.
func seq(frags ...string) []byte {
	var b []byte
	for _, f := range frags {
		b = append(b, RS)
		b = append(b, f...)
		b = append(b, '\n')
	}
	return b
}

const (
	pre  = `{"type":"preamble","version":2}`
	preU = `{"type":"preamble","version":2,"uuid":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}`
	dsc  = `{"type":"data-stream-class"}`
)

// fc wraps a field class in an event record class payload.
func fc(class string) string {
	return `{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[{"name":"f","field-class":` + class + `}]}}`
}

func TestSchemaRules(t *testing.T) {
	u32 := `{"type":"fixed-length-unsigned-integer","length":32,"byte-order":"little-endian"}`
	for _, c := range []struct {
		name  string
		in    []byte
		want  string // "" = valid
		sent  error
		extra []ReaderOption
	}{
		{"minimal", seq(pre, dsc), "", nil, nil},
		{"every field class", seq(pre, dsc, fc(`{"type":"structure","minimum-alignment":8,"member-classes":[
			{"name":"a","field-class":{"type":"fixed-length-bit-array","length":3,"byte-order":"big-endian","bit-order":"first-to-last"}},
			{"name":"b","field-class":{"type":"fixed-length-boolean","length":8,"byte-order":"little-endian","alignment":8}},
			{"name":"c","field-class":{"type":"fixed-length-bit-map","length":8,"byte-order":"little-endian","flags":{"x":[[0,0]],"y":[[1,7]]}}},
			{"name":"d","field-class":{"type":"fixed-length-signed-integer","length":16,"byte-order":"big-endian","preferred-display-base":16,"mappings":{"neg":[[-5,-1]]}}},
			{"name":"e","field-class":{"type":"fixed-length-floating-point-number","length":64,"byte-order":"little-endian"}},
			{"name":"f","field-class":{"type":"variable-length-unsigned-integer","mappings":{"big":[[0,18446744073709551615]]}}},
			{"name":"g","field-class":{"type":"variable-length-signed-integer","preferred-display-base":2}},
			{"name":"h","field-class":{"type":"null-terminated-string","encoding":"utf-16le"}},
			{"name":"i","field-class":{"type":"static-length-string","length":4}},
			{"name":"j","field-class":{"type":"dynamic-length-string","length-field-location":{"path":["f"]}}},
			{"name":"k","field-class":{"type":"static-length-blob","length":3,"media-type":"image/png"}},
			{"name":"l","field-class":{"type":"dynamic-length-blob","length-field-location":{"origin":"event-record-payload","path":["f","f"]}}},
			{"name":"m","field-class":{"type":"static-length-array","length":2,"element-field-class":{"type":"null-terminated-string"}}},
			{"name":"n","field-class":{"type":"dynamic-length-array","length-field-location":{"path":[null,"f","f"]},"element-field-class":{"type":"null-terminated-string"}}},
			{"name":"o","field-class":{"type":"optional","selector-field-location":{"path":["b"]},"field-class":{"type":"null-terminated-string"}}},
			{"name":"p","field-class":{"type":"variant","selector-field-location":{"path":["d"]},"options":[
				{"name":"x","selector-field-ranges":[[-5,-1]],"field-class":{"type":"null-terminated-string"}},
				{"selector-field-ranges":[[0,0],[2,9]],"field-class":{"type":"structure"}}]}}]}`)), "", nil, nil},
		{"alias", seq(pre, `{"type":"field-class-alias","name":"u32","field-class":`+u32+`}`, dsc, fc(`"u32"`)), "", nil, nil},
		{"alias of alias", seq(pre, `{"type":"field-class-alias","name":"a","field-class":`+u32+`}`, `{"type":"field-class-alias","name":"b","field-class":"a"}`, dsc, fc(`"b"`)), "", nil, nil},
		{"undefined alias", seq(pre, dsc, fc(`"nope"`)), `field class alias "nope" is not defined`, ErrSchema, nil},
		{"alias defined later", seq(pre, dsc, fc(`"u32"`), `{"type":"field-class-alias","name":"u32","field-class":`+u32+`}`), `"u32" is not defined`, ErrSchema, nil},
		{"duplicate alias", seq(pre, `{"type":"field-class-alias","name":"a","field-class":`+u32+`}`, `{"type":"field-class-alias","name":"a","field-class":`+u32+`}`, dsc), "duplicate field class alias name", ErrSchema, nil},
		{"two preambles", seq(pre, pre, dsc), "first and only preamble", ErrSchema, nil},
		{"two trace classes", seq(pre, `{"type":"trace-class"}`, `{"type":"trace-class"}`, dsc), "more than one trace-class", ErrSchema, nil},
		{"trace class after dsc", seq(pre, dsc, `{"type":"trace-class"}`), "must come before any data-stream-class", ErrSchema, nil},
		{"duplicate dsc", seq(pre, dsc, dsc), "duplicate data stream class id 0", ErrSchema, nil},
		{"erc before dsc", seq(pre, fc(u32), dsc), "data stream class 0 is not defined", ErrSchema, nil},
		{"erc of unknown dsc", seq(pre, dsc, `{"type":"event-record-class","data-stream-class-id":3}`), "data stream class 3 is not defined", ErrSchema, nil},
		{"duplicate erc", seq(pre, dsc, `{"type":"event-record-class","id":1}`, `{"type":"event-record-class","id":1}`), "duplicate event record class id 1", ErrSchema, nil},
		{"same erc id in other dsc", seq(pre, dsc, `{"type":"data-stream-class","id":1}`, `{"type":"event-record-class","id":1}`, `{"type":"event-record-class","id":1,"data-stream-class-id":1}`), "", nil, nil},
		{"unknown clock", seq(pre, `{"type":"data-stream-class","default-clock-class-id":"c"}`), `default clock class "c" is not defined`, ErrSchema, nil},
		{"duplicate clock", seq(pre, `{"type":"clock-class","id":"c","frequency":1}`, `{"type":"clock-class","id":"c","frequency":1}`, dsc), `duplicate clock class id "c"`, ErrSchema, nil},
		{"clock frequency 0", seq(pre, `{"type":"clock-class","id":"c","frequency":0}`, dsc), "`frequency` must be > 0", ErrSchema, nil},
		{"clock cycles ≥ frequency", seq(pre, `{"type":"clock-class","id":"c","frequency":10,"offset-from-origin":{"cycles":10}}`, dsc), "`cycles` 10 must be less than the frequency 10", ErrSchema, nil},
		{"clock negative seconds", seq(pre, `{"type":"clock-class","id":"c","frequency":10,"offset-from-origin":{"seconds":-3},"origin":{"name":"x","uid":"y"},"precision":0,"accuracy":5}`, dsc), "", nil, nil},
		{"clock origin", seq(pre, `{"type":"clock-class","id":"c","frequency":10,"origin":"moon"}`, dsc), `must be "unix-epoch" or an object`, ErrSchema, nil},
		{"missing id", seq(pre, `{"type":"clock-class","frequency":10}`, dsc), "missing required property `id`", ErrSchema, nil},
		{"bad uuid", seq(`{"type":"preamble","version":2,"uuid":[1,2,3]}`, dsc), "array of 16 integers", ErrSchema, nil},
		{"uuid byte 256", seq(`{"type":"preamble","version":2,"uuid":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,256]}`, dsc), "element 15 is 256", ErrSchema, nil},
		{"missing version", seq(`{"type":"preamble"}`, dsc), "missing required property `version`", ErrSchema, nil},
		{"unknown fragment", seq(pre, `{"type":"nope"}`, dsc), `unknown fragment type "nope"`, ErrSchema, nil},
		{"unknown field class", seq(pre, dsc, fc(`{"type":"nope"}`)), `unknown field class type "nope"`, ErrSchema, nil},
		{"empty unknown property", seq(pre, dsc, `{"":{},"type":"event-record-class"}`), "unknown property ``", ErrSchema, nil}, // found by FuzzFragment
		{"unknown property", seq(pre, dsc, fc(`{"type":"null-terminated-string","x-unknown":1}`)), "unknown property `x-unknown`", ErrSchema, nil},
		{"length 0", seq(pre, dsc, fc(`{"type":"fixed-length-boolean","length":0,"byte-order":"little-endian"}`)), "`length` must be > 0", ErrSchema, nil},
		{"bad byte order", seq(pre, dsc, fc(`{"type":"fixed-length-boolean","length":1,"byte-order":"middle"}`)), "`byte-order` must be", ErrSchema, nil},
		{"bad bit order", seq(pre, dsc, fc(`{"type":"fixed-length-boolean","length":1,"byte-order":"big-endian","bit-order":"x"}`)), "`bit-order` must be", ErrSchema, nil},
		{"alignment 3", seq(pre, dsc, fc(`{"type":"fixed-length-boolean","length":1,"byte-order":"big-endian","alignment":3}`)), "not a power of two", ErrSchema, nil},
		{"float 24", seq(pre, dsc, fc(`{"type":"fixed-length-floating-point-number","length":24,"byte-order":"big-endian"}`)), "floating point number length 24", ErrSchema, nil},
		{"float 160", seq(pre, dsc, fc(`{"type":"fixed-length-floating-point-number","length":160,"byte-order":"big-endian"}`)), "", nil, nil},
		{"display base 3", seq(pre, dsc, fc(`{"type":"variable-length-signed-integer","preferred-display-base":3}`)), "must be 2, 8, 10 or 16", ErrSchema, nil},
		{"bad range", seq(pre, dsc, fc(`{"type":"variable-length-signed-integer","mappings":{"a":[[3,2]]}}`)), "lower bound greater than upper bound", ErrSchema, nil},
		{"empty range set", seq(pre, dsc, fc(`{"type":"variable-length-signed-integer","mappings":{"a":[]}}`)), "non-empty array", ErrSchema, nil},
		{"negative unsigned mapping", seq(pre, dsc, fc(`{"type":"variable-length-unsigned-integer","mappings":{"a":[[-1,2]]}}`)), "negative bound", ErrSchema, nil},
		{"float in range", seq(pre, dsc, fc(`{"type":"variable-length-signed-integer","mappings":{"a":[[1.5,2]]}}`)), "must be an integer", ErrSchema, nil},
		{"bit map without flags", seq(pre, dsc, fc(`{"type":"fixed-length-bit-map","length":8,"byte-order":"little-endian","flags":{}}`)), "at least one flag", ErrSchema, nil},
		{"bit map index", seq(pre, dsc, fc(`{"type":"fixed-length-bit-map","length":8,"byte-order":"little-endian","flags":{"a":[[0,8]]}}`)), "outside [0, 7]", ErrSchema, nil},
		{"bad encoding", seq(pre, dsc, fc(`{"type":"null-terminated-string","encoding":"latin1"}`)), "`encoding` \"latin1\"", ErrSchema, nil},
		{"duplicate member", seq(pre, dsc, fc(`{"type":"structure","member-classes":[{"name":"a","field-class":"x"},{"name":"a","field-class":"x"}]}`)), `duplicate member name "a"`, ErrSchema, nil},
		{"empty variant", seq(pre, dsc, fc(`{"type":"variant","selector-field-location":{"path":["a"]},"options":[]}`)), "`options` must be a non-empty array", ErrSchema, nil},
		{"variant overlap", seq(pre, dsc, fc(`{"type":"variant","selector-field-location":{"path":["a"]},"options":[
			{"selector-field-ranges":[[0,5]],"field-class":{"type":"structure"}},{"selector-field-ranges":[[5,6]],"field-class":{"type":"structure"}}]}`)), "intersect those of option 0", ErrSchema, nil},
		{"variant option without ranges", seq(pre, dsc, fc(`{"type":"variant","selector-field-location":{"path":["a"]},"options":[{"field-class":{"type":"structure"}}]}`)), "`selector-field-ranges`", ErrSchema, nil},
		{"location ends with null", seq(pre, dsc, fc(`{"type":"dynamic-length-blob","length-field-location":{"path":["a",null]}}`)), "last path element must not be null", ErrSchema, nil},
		{"location empty", seq(pre, dsc, fc(`{"type":"dynamic-length-blob","length-field-location":{"path":[]}}`)), "non-empty array", ErrSchema, nil},
		{"location origin", seq(pre, dsc, fc(`{"type":"dynamic-length-blob","length-field-location":{"origin":"x","path":["a"]}}`)), `unknown origin "x"`, ErrSchema, nil},
		{"scope not a structure", seq(pre, `{"type":"data-stream-class","packet-context-field-class":`+u32+`}`), "must be a structure field class", ErrSchema, nil},
		{"scope alias to integer", seq(pre, `{"type":"field-class-alias","name":"u","field-class":`+u32+`}`, `{"type":"data-stream-class","packet-context-field-class":"u"}`), "must be a structure field class", ErrSchema, nil},
		{"role in payload", seq(pre, dsc, fc(`{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian","roles":["packet-total-length"]}`)), `role "packet-total-length" is not allowed in ` + "`payload-field-class`", ErrSchema, nil},
		{"role via alias", seq(pre, `{"type":"field-class-alias","name":"len","field-class":{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian","roles":["packet-total-length"]}}`, dsc, fc(`"len"`)), `role "packet-total-length" is not allowed`, ErrSchema, nil},
		{"unknown role", seq(pre, dsc, fc(`{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian","roles":["boss"]}`)), "invalid role boss", ErrSchema, nil},
		{"clock role without clock", seq(pre, `{"type":"data-stream-class","packet-context-field-class":{"type":"structure","member-classes":[{"name":"ts","field-class":{"type":"fixed-length-unsigned-integer","length":64,"byte-order":"little-endian","roles":["default-clock-timestamp"]}}]}}`), "needs a `default-clock-class-id`", ErrSchema, nil},
		{"uuid role without preamble uuid", seq(pre, `{"type":"trace-class","packet-header-field-class":{"type":"structure","member-classes":[{"name":"u","field-class":{"type":"static-length-blob","length":16,"roles":["metadata-stream-uuid"]}}]}}`, dsc), "needs a preamble `uuid`", ErrSchema, nil},
		{"uuid role", seq(preU, `{"type":"trace-class","packet-header-field-class":{"type":"structure","member-classes":[{"name":"m","field-class":{"type":"fixed-length-unsigned-integer","length":32,"byte-order":"little-endian","roles":["packet-magic-number"]}},{"name":"u","field-class":{"type":"static-length-blob","length":16,"roles":["metadata-stream-uuid"]}}]}}`, dsc), "", nil, nil},
		{"uuid role on 8-byte blob", seq(preU, `{"type":"trace-class","packet-header-field-class":{"type":"structure","member-classes":[{"name":"u","field-class":{"type":"static-length-blob","length":8,"roles":["metadata-stream-uuid"]}}]}}`, dsc), "must be 16 bytes long", ErrSchema, nil},
		{"magic not first", seq(preU, `{"type":"trace-class","packet-header-field-class":{"type":"structure","member-classes":[{"name":"u","field-class":{"type":"static-length-blob","length":16,"roles":["metadata-stream-uuid"]}},{"name":"m","field-class":{"type":"fixed-length-unsigned-integer","length":32,"byte-order":"little-endian","roles":["packet-magic-number"]}}]}}`, dsc), "must be on the first member", ErrSchema, nil},
		{"undeclared extension", seq(pre, `{"type":"data-stream-class","extensions":{"ns":{"x":1}}}`), `uses extension "ns/x" that the preamble does not declare`, ErrSchema, nil},
		{"declared extension refused", seq(`{"type":"preamble","version":2,"extensions":{"ns":{"x":1}}}`, dsc), "supports no CTF 2 extension", ErrUnsupported, nil},
		{"declared extension used", seq(`{"type":"preamble","version":2,"extensions":{"ns":{"x":1}}}`, `{"type":"data-stream-class","extensions":{"ns":{"x":1}}}`), "", nil, []ReaderOption{WithExtensions(true)}},
		{"declared extension on field class", seq(`{"type":"preamble","version":2,"extensions":{"ns":{"x":1}}}`, dsc, fc(`{"type":"null-terminated-string","extensions":{"ns":{"y":1}}}`)), `uses extension "ns/y"`, ErrSchema, []ReaderOption{WithExtensions(true)}},
		{"attributes anywhere", seq(`{"type":"preamble","version":2,"attributes":{"a":{"b":[1,2.5,null,true]}}}`, dsc, fc(`{"type":"null-terminated-string","attributes":{"z":"y"}}`)), "", nil, nil},
		{"attributes not an object", seq(pre, `{"type":"data-stream-class","attributes":[1]}`), "`attributes` must be an object", ErrSchema, nil},
		{"environment", seq(pre, `{"type":"trace-class","environment":{"a":1,"b":"x","c":-9223372036854775808}}`, dsc), "", nil, nil},
		{"environment value", seq(pre, `{"type":"trace-class","environment":{"a":true}}`, dsc), "must be an integer or a string", ErrSchema, nil},
		{"id too big", seq(pre, `{"type":"data-stream-class","id":18446744073709551616}`), "must be an integer in", ErrSchema, nil},
		{"negative id", seq(pre, `{"type":"data-stream-class","id":-1}`), "must be ≥ 0", ErrSchema, nil},
		{"fragment not object", seq(pre, `[]`, dsc), "a fragment must be a JSON object", ErrSchema, nil},
		{"syntax", seq(pre, `{"type":}`, dsc), "fragment #2: invalid JSON text", ErrFraming, nil},
		{"location: no member", seq(pre, dsc, fc(`{"type":"dynamic-length-string","length-field-location":{"path":["nope"]}}`)), `length location nope: no member "nope"`, ErrSchema, nil},
		{"location: wrong type", seq(pre, dsc, `{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[{"name":"n","field-class":{"type":"null-terminated-string"}},{"name":"s","field-class":{"type":"dynamic-length-blob","length-field-location":{"path":["n"]}}}]}}`), "names a null-terminated-string, not an unsigned integer", ErrSchema, nil},
		{"location: signed length", seq(pre, dsc, `{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[{"name":"n","field-class":{"type":"variable-length-signed-integer"}},{"name":"s","field-class":{"type":"dynamic-length-blob","length-field-location":{"path":["n"]}}}]}}`), "not an unsigned integer", ErrSchema, nil},
		{"location: boolean variant selector", seq(pre, dsc, `{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[{"name":"n","field-class":{"type":"fixed-length-boolean","length":8,"byte-order":"big-endian"}},{"name":"s","field-class":{"type":"variant","selector-field-location":{"path":["n"]},"options":[{"selector-field-ranges":[[0,0]],"field-class":{"type":"structure"}}]}}]}}`), "names a fixed-length-boolean, not an integer", ErrSchema, nil},
		{"location: later scope", seq(pre, `{"type":"data-stream-class","packet-context-field-class":{"type":"structure","member-classes":[{"name":"s","field-class":{"type":"dynamic-length-string","length-field-location":{"origin":"event-record-payload","path":["n"]}}}]}}`), "refers to the event-record-payload scope, which is decoded after `packet-context-field-class`", ErrSchema, nil},
		{"location: missing scope", seq(pre, dsc, fc(`{"type":"dynamic-length-string","length-field-location":{"origin":"packet-context","path":["n"]}}`)), "refers to the packet-context scope, which has no field class", ErrSchema, nil},
		{"location: above root", seq(pre, dsc, fc(`{"type":"dynamic-length-string","length-field-location":{"path":[null,"n"]}}`)), "goes above the root of `payload-field-class`", ErrSchema, nil},
		{"location: earlier scope", seq(pre, `{"type":"data-stream-class","event-record-common-context-field-class":{"type":"structure","member-classes":[{"name":"len","field-class":{"type":"variable-length-unsigned-integer"}}]}}`, fc(`{"type":"dynamic-length-string","length-field-location":{"origin":"event-record-common-context","path":["len"]}}`)), "", nil, nil},
		{"location: through alias", seq(pre, `{"type":"field-class-alias","name":"hdr","field-class":{"type":"structure","member-classes":[{"name":"len","field-class":{"type":"variable-length-unsigned-integer"}}]}}`, dsc, `{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[{"name":"h","field-class":"hdr"},{"name":"s","field-class":{"type":"dynamic-length-string","length-field-location":{"path":["h","len"]}}}]}}`), "", nil, nil},
		{"depth", seq(pre, dsc, fc(strings.Repeat(`{"type":"static-length-array","length":1,"element-field-class":`, 70)+`"x"`+strings.Repeat("}", 70))), "nested deeper than 64", ErrLimit, nil},
	} {
		_, err := Decode(c.in, c.extra...)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, c.sent) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %v containing %q", c.name, err, c.sent, c.want)
		}
	}
}

// TestRoundTripEveryFieldClass re-encodes the field classes of the rule
// table's valid cases.
func TestRoundTripEveryFieldClass(t *testing.T) {
	in := seq(pre, `{"type":"field-class-alias","name":"a","field-class":{"type":"fixed-length-bit-map","length":8,"byte-order":"big-endian","bit-order":"first-to-last","flags":{"x":[[0,0]]}}}`, dsc,
		`{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[
			{"name":"d","field-class":{"type":"variable-length-signed-integer"}},
			{"name":"u","field-class":{"type":"variable-length-unsigned-integer"}},
			{"name":"b","field-class":{"type":"fixed-length-boolean","length":8,"byte-order":"little-endian"}},
			{"name":"v","field-class":{"type":"variant","selector-field-location":{"origin":"event-record-payload","path":["d"]},"options":[
			{"name":"x","selector-field-ranges":[[-5,-1]],"field-class":{"type":"optional","selector-field-location":{"path":["b"]},"field-class":"a"}},
			{"selector-field-ranges":[[0,0]],"field-class":{"type":"dynamic-length-array","minimum-alignment":16,"length-field-location":{"path":["u"]},"element-field-class":{"type":"static-length-blob","length":16,"media-type":"a/b"}}}]}}]}}`)
	m, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := m.Encode(&b); err != nil {
		t.Fatal(err)
	}
	m2, err := Decode([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var b2 strings.Builder
	m2.Encode(&b2)
	if b.String() != b2.String() || !strings.Contains(b.String(), `"bit-order":"first-to-last"`) || !strings.Contains(b.String(), `[[-5,-1]]`) {
		t.Errorf("round trip:\n%s\n%s", b.String(), b2.String())
	}
}

func TestIntegerBounds(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 1 << 62, -1 << 63} {
		if got, ok := Int(v).Int64(); !ok || got != v {
			t.Errorf("Int(%d) = %d %v", v, got, ok)
		}
		if i, ok := parseInteger(Int(v).String()); !ok || i != Int(v) {
			t.Errorf("parse %d", v)
		}
	}
	if _, ok := Uint(1 << 63).Int64(); ok {
		t.Error("2^63 fits int64?")
	}
	if _, ok := parseInteger("-9223372036854775809"); ok {
		t.Error("below -2^63 accepted")
	}
	if Int(-1).Cmp(Uint(0)) != -1 || Int(-2).Cmp(Int(-1)) != -1 || Uint(5).Cmp(Uint(5)) != 0 || Uint(1<<63).Cmp(Int(1)) != 1 {
		t.Error("Cmp")
	}
}

// TestParseJSONMatchesEncodingJSON compares the parser with encoding/json.
func TestParseJSONMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a":[1,-2.5e+3,0,-0,1E2,true,false,null,"x"]}`, ` {"a" : { "b" : [ [ ] , { } ] } } `,
		`"\u00e9\ud83d\ude00\n\t\\\"\/\b\f\r"`, "\"\xff\xfe ok \xc3\"",
		`01`, `1.`, `1e`, `-`, `.5`, `tru`, `nul`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{1:2}`, `"\x"`, `"\u12"`, `"\u12G4"`, "\"a\x01\"", `{"a":1} x`,
		`{"a":[1,2`, `"abc`, `[`, `{"a"`, `{"a":`, ``, `  `,
	} {
		var want any
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		werr := dec.Decode(&want)
		if werr == nil {
			if _, err := dec.Token(); err != io.EOF {
				werr = errors.New("trailing data")
			}
		}
		got, gerr := parseJSON([]byte(in), 100, nil, nil)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%q: encoding/json %v, parseJSON %v", in, werr, gerr)
			continue
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %#v, want %#v", in, got, want)
		}
	}
	if _, err := parseJSON([]byte(strings.Repeat("[", 101)+strings.Repeat("]", 101)), 100, nil, nil); err == nil {
		t.Error("depth limit not enforced")
	}
	// Where they differ on purpose: encoding/json reads a lone surrogate
	// escape as U+FFFD; it is not text (RFC 8259 §8.2, I-JSON), and the
	// parser refuses it at its offset.
	for in, off := range map[string]int{`"\ud800"`: 1, `"\ud800\u0041"`: 1, `"\udc00\ud800"`: 1, `["x","ab\udfff"]`: 8} {
		var se *jsonSyntaxError
		if _, err := parseJSON([]byte(in), 100, nil, nil); !errors.As(err, &se) || se.Offset != off || !strings.Contains(se.Msg, "lone UTF-16 surrogate") {
			t.Errorf("%s: %v, want a lone surrogate error at offset %d", in, err, off)
		}
	}
	// encoding/json keeps the last of duplicate keys; the parser refuses
	// the second key, as babeltrace2 does.
	for in, off := range map[string]int{`{"a":1,"a":2}`: 7, `{"a":{"b":1,"c":2,"b":3}}`: 18, `[{"a":1},{"a":1,"\u0061":1}]`: 16} {
		var se *jsonSyntaxError
		if _, err := parseJSON([]byte(in), 100, nil, nil); !errors.As(err, &se) || se.Offset != off || !strings.Contains(se.Msg, "duplicate object key") {
			t.Errorf("%s: %v, want a duplicate key error at offset %d", in, err, off)
		}
	}
}
