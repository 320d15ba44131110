package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/traceerr"
)

func newBufferedFile(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 256<<10) }

// stat is one key of `stats` output; statList keeps the keys in order.
type stat struct {
	Key   string
	Value any
}

type statList []stat

// MarshalJSON writes the keys in list order (inspect.StatList's).
func (s statList) MarshalJSON() ([]byte, error) { return s.lib().MarshalJSON() }

// lib is s as package inspect's StatList.
func (s statList) lib() inspect.StatList {
	out := make(inspect.StatList, len(s))
	for i, kv := range s {
		out[i] = inspect.Stat{Key: kv.Key, Value: kv.Value}
	}
	return out
}

// fromLib is an inspect.StatList as a statList.
func fromLib(st inspect.StatList) statList {
	out := make(statList, len(st))
	for i, kv := range st {
		out[i] = stat{kv.Key, kv.Value}
	}
	return out
}

// writeText prints "key: value" lines; composite values are shown as JSON.
func (s statList) writeText(w io.Writer) {
	for _, kv := range s {
		switch v := kv.Value.(type) {
		case string:
			fmt.Fprintf(w, "%s: %s\n", kv.Key, v)
		case nil:
			fmt.Fprintf(w, "%s: -\n", kv.Key)
		case *traceerr.Recovery:
			fmt.Fprintf(w, "%s: %s\n", kv.Key, v)
		default:
			b, err := marshalJSON(v)
			if err != nil {
				fmt.Fprintf(w, "%s: %v\n", kv.Key, v)
				continue
			}
			fmt.Fprintf(w, "%s: %s\n", kv.Key, b)
		}
	}
}

// marshalJSON is json.Marshal without HTML escaping: "<", ">" and "&" stay as
// they are in every JSON tracecat prints, as in the event layer's lines.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
