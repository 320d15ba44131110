package ctf

import (
	"os"
	"strconv"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// The generator of LTTng-shaped CTF 1.8 traces is testgen/ctfgen; these
// wrappers keep the tests' names for it.

func genMetadata(nClasses int) string { return ctfgen.Metadata(nClasses) }

func genBareMetadata(kind int) string { return ctfgen.BareMetadata(kind) }

// genStreamBytes returns one data stream of n events and its index file.
func genStreamBytes(cpu, n, classes, pktSize int) ([]byte, []byte) {
	return ctfgen.Stream(cpu, n, classes, pktSize)
}

// genTrace writes an LTTng-shaped trace of n events over cpus streams to dir.
func genTrace(tb testing.TB, dir string, n, cpus, classes, pktSize int) {
	tb.Helper()
	if err := ctfgen.Write(dir, n, cpus, classes, pktSize); err != nil {
		tb.Fatal(err)
	}
}

// TestGenerateTrace writes a generated trace to $CTF_GEN_DIR
// ($CTF_GEN_EVENTS events, default 10 M, over 4 CPUs) for the comparison
// with babeltrace2; skipped without CTF_GEN_DIR.
func TestGenerateTrace(t *testing.T) {
	dir := os.Getenv("CTF_GEN_DIR")
	if dir == "" {
		t.Skip("CTF_GEN_DIR not set")
	}
	n := 10_000_000
	if v := os.Getenv("CTF_GEN_EVENTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	genTrace(t, dir, n, 4, 40, 1<<20)
}

// The generated trace decodes: every event, in time order, and the index
// agrees with the packets.
func TestGeneratedTrace(t *testing.T) {
	dir := t.TempDir()
	genTrace(t, dir, 60000, 3, 40, 16384)
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tr.Streams {
		if err := s.CheckIndex(); err != nil {
			t.Fatal(err)
		}
		if len(s.Index) < 10 {
			t.Fatalf("%s: %d packets", s.Name, len(s.Index))
		}
	}
	r := tr.NewReader()
	n, last := 0, int64(0)
	perStream := map[*Stream]int{}
	for r.Next() {
		e := r.Event()
		if e.NS() < last {
			t.Fatalf("event %d goes back in time", n)
		}
		last = e.NS()
		i := perStream[e.Stream]
		perStream[e.Stream]++
		fs := e.Fields
		pl := fs[e.Payload]
		first := fs[e.Payload+1]
		want := e.Class.ID
		if uint64(i%40) != want {
			t.Fatalf("event %d of %s: class %d, want %d", i, e.Stream.Name, want, i%40)
		}
		switch want % 3 {
		case 0:
			if first.Int() != int64(i) || fs[e.Payload+2].V != uint64(i)*0x9e3779b97f4a7c15 {
				t.Fatalf("event %d: payload %d %x", i, first.Int(), fs[e.Payload+2].V)
			}
		case 1:
			if s := string(e.Bytes(int(e.Payload) + 2)); s != "str-"+strconv.Itoa(i%100) {
				t.Fatalf("event %d: string %q", i, s)
			}
		case 2:
			if first.V != uint64(i%5) || pl.End-e.Payload != int32(4+i%5) {
				t.Fatalf("event %d: seq length %d, %d fields", i, first.V, pl.End-e.Payload)
			}
		}
		n++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 60000 {
		t.Fatalf("%d events", n)
	}
}
