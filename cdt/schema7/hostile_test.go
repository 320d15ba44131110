package schema7

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt"
)

// underBudget runs f and fails when its allocations pass 64 × n + 16 MiB
// (n the input size) or when it takes more than 5 s of process CPU time
// (where measurable; 50 s under the race detector).
func underBudget(t *testing.T, name string, n int, f func()) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c0, ok0 := processCPU()
	f()
	c1, ok1 := processCPU()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	limit := uint64(64*n + 16<<20)
	t.Logf("%s: input %d bytes, allocated %d bytes (budget %d), CPU %v", name, n, alloc, limit, c1-c0)
	if alloc > limit {
		t.Errorf("%s: allocated %d bytes for %d input bytes, budget %d", name, alloc, n, limit)
	}
	bound := 5 * time.Second
	if raceEnabled {
		bound *= 10
	}
	if ok0 && ok1 && c1-c0 > bound {
		t.Errorf("%s: %v of CPU time", name, c1-c0)
	}
}

// metaTrace writes a one-tick trace whose META producer dict holds value
// (raw msgpack) under "x".
func metaTrace(t *testing.T, value []byte, opts ...cdt.WriterOption) []byte {
	t.Helper()
	meta := NewTraceMeta("2026-01-01T00:00:00+00:00", AnyMap{{Key: "x", Value: value}}, nil, nil, 0, 0, 1)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &meta, opts...)
	if err != nil {
		t.Fatal(err)
	}
	rec := DemoTick(0, 1)
	if err := w.Append(&rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("TRACECODEC_WRITE_HOSTILE"); dir != "" {
		os.WriteFile(filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+"_"+strconv.Itoa(len(value))+".cdt"), buf.Bytes(), 0o644)
	}
	return buf.Bytes()
}

// nils is an array32 of n nils.
func nils(n int) []byte {
	b := msgp.AppendArrayHeader(nil, uint32(n))
	return append(b, bytes.Repeat([]byte{0xc0}, n)...)
}

// nested is depth arrays, each holding the next one and then k nils.
func nested(depth, k int) []byte {
	var b []byte
	for i := range depth {
		n := k + 1
		if i == depth-1 {
			n = k
		}
		b = msgp.AppendArrayHeader(b, uint32(n))
	}
	return append(b, bytes.Repeat([]byte{0xc0}, depth*k)...)
}

// Free-form META dicts are rendered (dump --type meta) within a memory
// budget: a few KB of nils used to cost ≈150 bytes of Go memory each.
func TestHostileMetaValues(t *testing.T) {
	cases := []struct {
		name  string
		value []byte
		opts  []cdt.WriterOption
		ok    bool // fits the budget and renders
	}{
		{"4 KB of nils, raw META", nils(4500), []cdt.WriterOption{cdt.WithRawChunks()}, true},
		{"nested arrays, raw META", nested(90, 50), []cdt.WriterOption{cdt.WithRawChunks()}, true},
		{"60 KB of nils, raw META", nils(60 << 10), []cdt.WriterOption{cdt.WithRawChunks()}, false},
		{"1 MiB of nils in a zstd META", nils(1<<20 - 16<<10), nil, false},
		{"nested arrays in a zstd META", nested(90, 11000), nil, false},
	}
	for _, c := range cases {
		data := metaTrace(t, c.value, c.opts...)
		var out []byte
		underBudget(t, c.name, len(data), func() {
			f, err := cdt.OpenBytes(data)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := ReadMeta(f)
			if err != nil {
				t.Fatal(err)
			}
			out = AppendJSON(nil, m)
		})
		undecodable := bytes.Contains(out, []byte("<undecodable: pyjson: msgpack value needs more memory than its budget>"))
		if undecodable == c.ok {
			t.Errorf("%s: rendered %d bytes, undecodable %v", c.name, len(out), undecodable)
		}
	}
}
