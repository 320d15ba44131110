// Package evschema checks lines against the JSON Lines schema of the event
// layer (events.Event.AppendJSON, tracecat dump --json), for tests.
package evschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Keys are the schema's keys in the order every line has them.
var Keys = []string{"format", "record", "kind", "name", "ts_ns", "dur_ns", "track_kind", "track", "track_name", "args"}

// Line is one decoded line.
type Line struct {
	Format    string                     `json:"format"`
	Record    map[string]json.RawMessage `json:"record"`
	Kind      string                     `json:"kind"`
	Name      string                     `json:"name"`
	TsNs      json.RawMessage            `json:"ts_ns"` // null, an int64, or a dial9/ATF time past 2^63 as a uint64
	DurNs     *int64                     `json:"dur_ns"`
	TrackKind string                     `json:"track_kind"`
	Track     uint64                     `json:"track"`
	TrackName string                     `json:"track_name"`
	Args      map[string]json.RawMessage `json:"args"`
}

var (
	formats    = map[string]bool{"cdt": true, "dial9": true, "atf": true, "wtf": true, "ctf": true}
	kinds      = map[string]bool{"instant": true, "begin": true, "end": true, "complete": true, "counter": true, "metadata": true}
	trackKinds = map[string]bool{"trace": true, "thread": true, "worker": true, "zone": true, "stream": true}
	recordKeys = map[string][]string{
		"dial9": {"offset", "type_id", "type"},
		"atf":   {"thread", "seq", "kind", "thread_id", "detail_seq"},
		"wtf":   {"chunk", "offset", "wire_id", "type"},
		"cdt":   {"tick_index"},
		"ctf":   {"stream", "packet", "offset", "event_class_id"},
	}
)

// Check decodes line and verifies every rule of the schema: valid JSON, the
// keys in order with their types, known enum values, the record keys of the
// format, dur_ns present exactly for complete events.
func Check(line []byte) (Line, error) {
	var l Line
	keys, ok := topLevelKeys(line)
	if !ok {
		return l, fmt.Errorf("not a JSON object: %.200s", line)
	}
	if len(keys) != len(Keys) {
		return l, fmt.Errorf("keys %q, want %q", keys, Keys)
	}
	for i, k := range keys {
		if k != Keys[i] {
			return l, fmt.Errorf("keys %q, want %q", keys, Keys)
		}
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&l); err != nil {
		return l, fmt.Errorf("%v: %.200s", err, line)
	}
	if ts := string(l.TsNs); ts != "null" {
		if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
			if u, err := strconv.ParseUint(ts, 10, 64); err != nil || u <= math.MaxInt64 || (l.Format != "dial9" && l.Format != "atf") {
				return l, fmt.Errorf("ts_ns %s is not an integer in the schema's range: %.200s", ts, line)
			}
		}
	}
	switch {
	case !formats[l.Format]:
		return l, fmt.Errorf("format %q", l.Format)
	case !kinds[l.Kind]:
		return l, fmt.Errorf("kind %q", l.Kind)
	case !trackKinds[l.TrackKind]:
		return l, fmt.Errorf("track_kind %q", l.TrackKind)
	case l.Args == nil:
		return l, fmt.Errorf("args is not an object: %.200s", line)
	case (l.Kind == "complete") != (l.DurNs != nil):
		return l, fmt.Errorf("dur_ns %v for kind %s", l.DurNs, l.Kind)
	case l.Record == nil:
		return l, fmt.Errorf("record is not an object: %.200s", line)
	}
	want := recordKeys[l.Format]
	if len(l.Record) == 0 && l.Kind == "begin" {
		return l, nil // a begin left open at the end by pairing has no record
	}
	if l.Format == "atf" {
		if err := checkATFArgs(l.Args); err != nil {
			return l, fmt.Errorf("%v: %.200s", err, line)
		}
	}
	if len(l.Record) != len(want) {
		return l, fmt.Errorf("record keys %v, want %v", l.Record, want)
	}
	for _, k := range want {
		if _, ok := l.Record[k]; !ok {
			return l, fmt.Errorf("record lacks %s: %.200s", k, line)
		}
	}
	return l, nil
}

// topLevelKeys lists the keys of the object line is, in order (keys are
// compared unescaped, which the schema's plain keys allow).
func topLevelKeys(line []byte) ([]string, bool) {
	line = bytes.TrimSpace(line)
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return nil, false
	}
	var keys []string
	depth := 0
	expectKey := true
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' {
					j++
				}
			}
			if j >= len(line) {
				return nil, false
			}
			if depth == 1 && expectKey {
				keys = append(keys, string(line[i+1:j]))
				expectKey = false
			}
			i = j
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 1 {
				expectKey = true
			}
		}
	}
	return keys, depth == 0
}

// checkATFArgs verifies an ATF event's arguments: function_id and depth
// (numbers), and for an event linked to a detail record detail_type (a
// string) and detail (the payload as a string of hex digits, or null with
// detail_type when the record could not be read).
func checkATFArgs(args map[string]json.RawMessage) error {
	for _, k := range []string{"function_id", "depth"} {
		var n uint64
		if err := json.Unmarshal(args[k], &n); err != nil {
			return fmt.Errorf("atf args.%s: %v", k, err)
		}
	}
	switch len(args) {
	case 2:
		return nil
	case 4:
		typ, payload := args["detail_type"], args["detail"]
		if typ == nil || payload == nil {
			return fmt.Errorf("atf args %v: want detail_type and detail", keysOf(args))
		}
		if string(typ) == "null" && string(payload) == "null" {
			return nil
		}
		var t, p string
		if json.Unmarshal(typ, &t) != nil || json.Unmarshal(payload, &p) != nil || t == "" {
			return fmt.Errorf("atf detail_type %s, detail %.40s: want strings", typ, payload)
		}
		for _, c := range p {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return fmt.Errorf("atf detail %.40s: not lower-case hex", payload)
			}
		}
		return nil
	}
	return fmt.Errorf("atf args %v: want function_id, depth [, detail_type, detail]", keysOf(args))
}

func keysOf(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
