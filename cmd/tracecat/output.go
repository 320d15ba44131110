package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tracecodec/tracecodec/traceerr"
)

func newBufferedFile(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 256<<10) }

// stat is one key of `stats` output; statList keeps the keys in order.
type stat struct {
	Key   string
	Value any
}

type statList []stat

// MarshalJSON writes the keys in list order.
func (s statList) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshalJSON(kv.Key)
		v, err := marshalJSON(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("stats key %s: %w", kv.Key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
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
