package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
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
		k, _ := json.Marshal(kv.Key)
		v, err := json.Marshal(kv.Value)
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
		default:
			b, err := json.Marshal(v)
			if err != nil {
				fmt.Fprintf(w, "%s: %v\n", kv.Key, v)
				continue
			}
			fmt.Fprintf(w, "%s: %s\n", kv.Key, b)
		}
	}
}

// progress reports long operations on standard error when it is a terminal, and
// stays silent otherwise (pipes, files, tests).
type progress struct {
	label string
	total int64
	done  int64
	last  time.Time
	w     io.Writer
}

// progressThreshold is the input size above which progress is shown.
const progressThreshold = 64 << 20

// newProgress returns a reporter for an operation over total bytes (or items);
// it is a no-op unless stderr is a terminal and force or total is large.
func newProgress(label string, total int64, force bool) *progress {
	p := &progress{label: label, total: total}
	if (force || total >= progressThreshold) && isTerminal(os.Stderr) {
		p.w = os.Stderr
	}
	return p
}

// Add records n more units done.
func (p *progress) Add(n int64) {
	p.done += n
	if p.w == nil {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= 200*time.Millisecond {
		p.last = now
		if p.total > 0 {
			fmt.Fprintf(p.w, "\r%s: %5.1f%%", p.label, 100*float64(p.done)/float64(p.total))
		} else {
			fmt.Fprintf(p.w, "\r%s: %d", p.label, p.done)
		}
	}
}

// Done clears the progress line.
func (p *progress) Done() {
	if p.w != nil {
		fmt.Fprintf(p.w, "\r%s: done%s\n", p.label, strings.Repeat(" ", 8))
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
