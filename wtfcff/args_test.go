package wtfcff

import (
	"bytes"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// TestEventArgsMatchesArg: Event.Args returns what Arg returns (and
// appendArgJSON renders what Value.AppendJSON renders) for every argument of
// every record, binary (every argument type, arrays before and
// after scalars) and legacy alike, and allocates nothing into a reused slice.
func TestEventArgsMatchesArg(t *testing.T) {
	files := map[string][]byte{"load": loadTraceFile(t, 50), "bench": benchFile(t, 50)}
	for name, data := range files {
		checkEventArgs(t, name, data)
	}
	for _, name := range []string{"api_public.wtf-trace", "det_resources.wtf-trace", "mutated/legacy_v3_handmade.wtf-trace"} {
		t.Run(name, func(t *testing.T) { checkEventArgs(t, name, vectortest.Read(t, "wtf", name)) })
	}
	checkEventArgsAllocs(t, files["load"])
}

func checkEventArgs(t *testing.T, name string, data []byte) {
	{
		r, err := NewBytesReader(data)
		if err != nil {
			t.Fatal(name, err)
		}
		var vals []Value
		n := 0
		for e, err := range Events(r) {
			if err != nil {
				t.Fatal(name, err)
			}
			vals = e.Args(vals[:0])
			if len(vals) != e.NumArgs() {
				t.Fatalf("%s: %s: %d values for %d arguments", name, e.Name(), len(vals), e.NumArgs())
			}
			for i := range vals {
				got, want := fmt.Sprintf("%#v", vals[i]), fmt.Sprintf("%#v", e.Arg(i))
				if got != want {
					t.Fatalf("%s: %s argument %d: Args gives %s, Arg %s", name, e.Name(), i, got, want)
				}
				// The scope tracker's rendering reads numbers from the record.
				if got, want := appendArgJSON(nil, e, i), e.Arg(i).AppendJSON(nil); !bytes.Equal(got, want) {
					t.Fatalf("%s: %s argument %d: appendArgJSON gives %s, AppendJSON %s", name, e.Name(), i, got, want)
				}
			}
			n++
		}
		if n == 0 {
			t.Fatal(name, "no events")
		}
	}
}

func checkEventArgsAllocs(t *testing.T, data []byte) {
	if raceEnabled {
		return
	}
	r, _ := NewReader(bytes.NewReader(data))
	dec := NewDecoder()
	var br bytes.Reader
	vals := make([]Value, 0, 16)
	walk := func() {
		br.Reset(data)
		r.Reset(&br)
		for r.Next() {
			if dec.SetChunk(r.Chunk()) {
				for dec.Next() {
					vals = dec.Event().Args(vals[:0])
				}
			}
		}
	}
	walk()
	allocs := testing.AllocsPerRun(3, walk)
	if allocs != 0 {
		t.Fatalf("%v allocations to read the arguments of %d groups", allocs, 50)
	}
}

// appendJSONBytesPerByte is appendJSONBytes without the bulk copy of plain
// runs: every byte through appendASCIIEscaped or the UTF-8 decoder.
func appendJSONBytesPerByte(b []byte, s []byte) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			b = appendASCIIEscaped(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// TestAppendJSONBytesRuns: copying plain runs at once escapes exactly as
// byte by byte does, for every byte in every position of a run.
func TestAppendJSONBytesRuns(t *testing.T) {
	for c := range 256 {
		for _, s := range [][]byte{{byte(c)}, {'a', byte(c)}, {byte(c), 'b'}, {'x', 'y', byte(c), 'z'}, append([]byte("héllo 世界 "), byte(c), 0xE4, 0xB8)} {
			if got, want := appendJSONBytes(nil, s), appendJSONBytesPerByte(nil, s); !bytes.Equal(got, want) {
				t.Fatalf("%q: got %s, want %s", s, got, want)
			}
		}
	}
}
