package ctf

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// writeSessionTrace writes a ctfgen trace (200 events, 2 CPUs, packets of
// 512 bytes: several per stream) to root/dir with its metadata changed:
// trace UUID uuid ("" removes it), tracer_name tracer, clock attributes
// clock added.
func writeSessionTrace(tb testing.TB, root, dir, uuid, tracer, clock string) string {
	tb.Helper()
	p := filepath.Join(root, dir)
	if err := ctfgen.Write(p, 200, 2, 4, 512); err != nil {
		tb.Fatal(err)
	}
	uuidOld, uuidNew := `uuid = "`+ctfgen.UUID+`";`, `uuid = "`+uuid+`";`
	if uuid == "" {
		uuidNew = ""
	}
	if err := ctfgen.EditMetadata(p, uuidOld, uuidNew, `tracer_name = "lttng-ust"`, `tracer_name = "`+tracer+`"`,
		"offset = 1700000000000000000;", "offset = 1700000000000000000;\n\t"+clock); err != nil {
		tb.Fatal(err)
	}
	return p
}

// babeltrace2Text runs $BABELTRACE2 (2.1.2) on folder dir with TZ=UTC:
// its lines, or ok false when it refuses the folder; skipped (ran false)
// without BABELTRACE2.
func babeltrace2Text(tb testing.TB, dir string) (lines []string, ok, ran bool) {
	tb.Helper()
	bt := os.Getenv("BABELTRACE2")
	if bt == "" {
		return nil, false, false
	}
	cmd := exec.Command(bt, dir)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		return nil, false, true
	}
	s := strings.TrimSuffix(string(out), "\n")
	if s == "" {
		return nil, true, true
	}
	return strings.Split(s, "\n"), true, true
}

const (
	uuidA  = "5fce9cb8-7b77-4e3b-a0f4-55d4d1e7b0a1" // ctfgen's
	uuidB  = "5fce9cb8-7b77-4e3b-a0f4-55d4d1e7b0a2"
	clock1 = `uuid = "11111111-2222-3333-4444-555555555555";`
	clock2 = `uuid = "11111111-2222-3333-4444-666666666666";`
)

// TestClockCorrelation: a Session of two traces whose clock classes
// babeltrace2 2.1's muxer cannot correlate is refused with an error
// wrapping ErrClockCorrelation naming both traces' files and clock
// classes; the others are read. Each case was checked with babeltrace2
// 2.1.2 (with BABELTRACE2 set the test runs it: it refuses where we
// refuse, and prints what we print where it reads).
func TestClockCorrelation(t *testing.T) {
	type side struct{ uuid, tracer, clock string }
	cases := []struct {
		name   string
		x, y   side
		refuse string // the reason the error gives, "" when read
		events int
	}{
		// unknown origin, no identity: two clock classes, refused
		{"no-identity", side{uuidA, "gen", ""}, side{uuidB, "gen", ""}, "expecting the same clock class", 0},
		// the same trace UUID: one trace, one clock class (equal
		// packets read once)
		{"one-trace", side{uuidA, "gen", ""}, side{uuidA, "gen", ""}, "", 200},
		{"same-clock-uuid", side{uuidA, "gen", clock1}, side{uuidB, "gen", clock1}, "", 400},
		{"other-clock-uuid", side{uuidA, "gen", clock1}, side{uuidB, "gen", clock2}, "a different identity", 0},
		{"unix-epoch-and-unknown", side{uuidA, "gen", "absolute = true;"}, side{uuidB, "gen", clock1}, "got one with an unknown origin", 0},
		{"unknown-and-unix-epoch", side{uuidA, "gen", clock1}, side{uuidB, "gen", "absolute = true;"}, "got one with a known origin", 0},
		{"unix-epoch-both", side{uuidA, "gen", "absolute = true;"}, side{uuidB, "gen", "absolute = true;"}, "", 400},
		// LTTng's "monotonic" is taken to be of the Unix epoch
		{"lttng-and-absolute", side{uuidA, "lttng-ust", ""}, side{uuidB, "gen", "absolute = true;"}, "", 400},
		{"lttng-and-unknown", side{uuidA, "lttng-ust", ""}, side{uuidB, "gen", ""}, "got one with an unknown origin", 0},
		{"lttng-both", side{uuidA, "lttng-ust", ""}, side{uuidB, "lttng-kernel", ""}, "", 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeSessionTrace(t, root, "x", c.x.uuid, c.x.tracer, c.x.clock)
			writeSessionTrace(t, root, "y", c.y.uuid, c.y.tracer, c.y.clock)
			s, err := OpenSession(root, []string{"x", "y"})
			if c.refuse != "" {
				if !errors.Is(err, ErrClockCorrelation) || !strings.Contains(err.Error(), c.refuse) ||
					!strings.Contains(err.Error(), "x/channel0_0") || !strings.Contains(err.Error(), "y/channel0_0") ||
					!strings.Contains(err.Error(), `clock class "monotonic"`) {
					t.Errorf("OpenSession: %v, want ErrClockCorrelation: …%s…", err, c.refuse)
				}
				if s != nil {
					t.Errorf("a Session with the error")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				got, err := prettyReader(s.NewReader())
				if err != nil || len(got) != c.events {
					t.Errorf("%d events, %v; want %d", len(got), err, c.events)
				}
			}
			// the Reader of a Session made by hand checks the same
			if c.refuse != "" {
				var tr [2]*Trace
				for i, d := range []string{"x", "y"} {
					if tr[i], err = OpenDir(filepath.Join(root, d)); err != nil {
						t.Fatal(err)
					}
				}
				r := (&Session{Traces: tr[:], Dirs: []string{"x", "y"}}).NewReader()
				if r.Next() || !errors.Is(r.Err(), ErrClockCorrelation) {
					t.Errorf("Reader: %v, want ErrClockCorrelation", r.Err())
				}
			}
			want, ok, ran := babeltrace2Text(t, root)
			if !ran {
				return
			}
			if ok != (c.refuse == "") {
				t.Errorf("babeltrace2 reads it: %v; we refuse it: %v", ok, c.refuse != "")
			}
			if ok && c.refuse == "" {
				got, _ := prettySession(root)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%d lines, babeltrace2 printed %d, or they differ", len(got), len(want))
				}
			}
		})
	}
}

// TestTraceClockCorrelation: the streams of one trace are checked too, as
// babeltrace2's muxer checks them: a stream class without a clock beside
// one with, in one trace, stops its Reader with ErrClockCorrelation.
func TestTraceClockCorrelation(t *testing.T) {
	dir := t.TempDir()
	if err := ctfgen.WriteMixedClocks(dir); err != nil {
		t.Fatal(err)
	}
	tr := openDirT(t, dir)
	r := tr.NewReader()
	if r.Next() || !errors.Is(r.Err(), ErrClockCorrelation) || !strings.Contains(r.Err().Error(), "without_clock (data stream class 1) has no clock class") {
		t.Fatalf("Reader: %v, want ErrClockCorrelation naming without_clock", r.Err())
	}
	// each stream alone reads
	for _, s := range tr.Streams {
		s.Reset()
		if !s.Next() {
			t.Fatalf("%s: %v", s.Name, s.Err())
		}
	}
}

// TestSessionCopies: traces sharing a UUID are one trace, the files of
// one data stream in them one stream, whose equal packets are read once,
// as babeltrace2 reads them: two and three copies of a trace, overlapping
// parts of one (the first packets, the last ones), the parts alone
// (chunks), and a copy of a data stream file in the trace folder itself
// all print the original trace's text. With BABELTRACE2 set, babeltrace2
// prints the same for each.
func TestSessionCopies(t *testing.T) {
	src := t.TempDir()
	orig := writeSessionTrace(t, src, "t", uuidA, "lttng-ust", "")
	want, err := prettyTrace(orig)
	if err != nil || len(want) != 200 {
		t.Fatalf("%d events, %v", len(want), err)
	}
	files := map[string][]byte{}
	for _, n := range []string{"metadata", "channel0_0", "channel0_1"} {
		b, err := os.ReadFile(filepath.Join(orig, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	// put writes a trace folder holding the metadata and, per stream,
	// the packets [from, to) of its file (to -1: all), with no index
	put := func(dir string, from, to int, extra ...string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write := func(n string, b []byte) {
			if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("metadata", files["metadata"])
		for _, n := range []string{"channel0_0", "channel0_1"} {
			b := files[n]
			end := len(b)
			if to >= 0 {
				end = min(to*512, len(b))
			}
			write(n, b[min(from*512, end):end])
		}
		for _, n := range extra {
			write(n, files[strings.TrimSuffix(n, "_copy")])
		}
	}
	npk := len(files["channel0_0"]) / 512
	if npk < 3 {
		t.Fatalf("%d packets per stream: too few", npk)
	}
	cases := map[string]func(root string){
		"two-copies": func(root string) { put(filepath.Join(root, "a"), 0, -1); put(filepath.Join(root, "b"), 0, -1) },
		"three-copies": func(root string) {
			put(filepath.Join(root, "a"), 0, -1)
			put(filepath.Join(root, "b"), 0, -1)
			put(filepath.Join(root, "c/d"), 0, -1)
		},
		"overlapping": func(root string) {
			put(filepath.Join(root, "a"), 0, npk-1)
			put(filepath.Join(root, "b"), 1, -1)
		},
		"overlapping-reversed": func(root string) {
			put(filepath.Join(root, "a"), 1, -1)
			put(filepath.Join(root, "b"), 0, npk-1)
		},
		"chunks": func(root string) {
			put(filepath.Join(root, "1"), 0, 1)
			put(filepath.Join(root, "2"), 1, 2)
			put(filepath.Join(root, "3"), 2, -1)
		},
		"file-copy": func(root string) { put(filepath.Join(root, "a"), 0, -1, "channel0_0_copy") },
		// a stream that the trace babeltrace2 merges into (a, of the most
		// classes, the first of equal ones) lacks: b's makes a new group,
		// which c's (a copy) joins
		"stream-in-later-traces": func(root string) {
			for _, d := range []string{"a", "b", "c"} {
				put(filepath.Join(root, d), 0, -1)
			}
			for _, f := range []string{"a/channel0_1", "b/channel0_0", "c/channel0_0"} {
				if err := os.Remove(filepath.Join(root, f)); err != nil {
					t.Fatal(err)
				}
			}
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			mk(root)
			var got []string
			var err error
			if name == "file-copy" {
				got, err = prettyTrace(filepath.Join(root, "a"))
			} else {
				got, err = prettySession(root)
			}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("%d events, %v; want the original's %d", len(got), err, len(want))
			}
			if bt, ok, ran := babeltrace2Text(t, root); ran && (!ok || !slices.Equal(bt, want)) {
				t.Errorf("babeltrace2: %d lines (read: %v), want %d", len(bt), ok, len(want))
			}
		})
	}
}

// TestInsertPackets: insertPackets gives what babeltrace2's insertion of
// packet index entries one by one gives (insertOneByOne, the reference),
// on random packet lists with equal beginning times and equal packets,
// the first list sorted (the merge insertPackets computes) or not (a
// small unsorted one is inserted into one by one), a third of the packets
// damaged (an intact equal packet replaces a damaged one: samePacket).
func TestInsertPackets(t *testing.T) {
	naive := func(l, b []gpkt) []gpkt { return insertOneByOne(slices.Clone(l), b) }
	rnd := rand.New(rand.NewPCG(1, 2))
	list := func(n, st int, sorted bool) []gpkt {
		out := make([]gpkt, n)
		for i := range out {
			out[i] = gpkt{pktKey{bytes: 512, begin: uint64(rnd.IntN(8)), end: uint64(rnd.IntN(2)), seq: 7}, seg{st, i, int64(i) * 512}, rnd.IntN(3) == 0}
		}
		if sorted {
			slices.SortStableFunc(out, func(x, y gpkt) int { return int(x.k.begin) - int(y.k.begin) })
		}
		return out
	}
	for i := range 3000 {
		l := list(rnd.IntN(12), 0, i%4 != 0)
		var want, got []gpkt
		got, want = slices.Clone(l), slices.Clone(l)
		for k := 1; k <= 1+rnd.IntN(3); k++ {
			b := list(rnd.IntN(12), k, rnd.IntN(2) == 0)
			want = naive(want, b)
			got = insertPackets(got, b)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("case %d:\n got  %v\n want %v", i, got, want)
		}
	}
}

// A group of files whose packets hold no event record (hostile, or a
// quiet CPU) is read in linear time: each packet is started a bounded
// number of times (listing, then reading), not once per later packet; a
// group's files but the current one give back their buffers.
func TestGroupEmptyPacketsLinear(t *testing.T) {
	const pkt, n = 128, 4000
	data, _ := genStreamBytes(0, n, 4, pkt)
	for off := 0; off+pkt <= len(data); off += pkt {
		binary.LittleEndian.PutUint64(data[off+48:], 84*8) // content: header and context only
	}
	packets := len(data) / pkt
	if packets < 1000 {
		t.Fatalf("%d packets", packets)
	}
	tr := traceFromTSDL(t, genMetadata(4))
	a := tr.AddStreamReader("a", &countingReader{b: data}, int64(len(data)))
	b := tr.AddStreamReader("b", &countingReader{b: slices.Clone(data)}, int64(len(data)))
	// a third file of the group with events, after the empty ones
	full, _ := genStreamBytes(0, 50, 4, 4096)
	last := binary.LittleEndian.Uint64(data[len(data)-pkt+40:])
	for off := 0; off+4096 <= len(full); off += 4096 {
		binary.LittleEndian.PutUint64(full[off+32:], last+1+binary.LittleEndian.Uint64(full[off+32:]))
	}
	c := tr.AddStreamReader("c", &countingReader{b: full}, int64(len(full)))
	r := tr.NewReader()
	events := 0
	for r.Next() {
		events++
		if r.Event().Stream != c {
			t.Fatalf("event of %s", r.Event().Stream.Name)
		}
	}
	if r.Err() != nil || events != 50 {
		t.Fatalf("%d events, %v", events, r.Err())
	}
	if starts := a.starts + b.starts; starts > 4*packets {
		t.Errorf("%d packet starts for two files of %d packets", starts, packets)
	}
	if a.buf != nil || b.buf != nil {
		t.Errorf("the files left keep their buffers")
	}
}

// FuzzReaderGroup reads two arbitrary data streams of the generated
// LTTng-shaped metadata with a Reader (and a Scanner): whether they form a
// group (same stream_instance_id) or not, a clean error or events (no
// more than their bytes allow), never a panic or a hang. (Not at most
// those the streams yield read alone: a group skips a packet equal to one
// of another file, and reads on past it where the stream read alone stops
// at its corrupt event record.)
func FuzzReaderGroup(f *testing.F) {
	data, _ := genStreamBytes(0, 60, 4, 256)
	f.Add(data, data)
	f.Add(data, data[256:])
	f.Add(data[:700], data[256:])
	tr0 := traceFromTSDL(f, genMetadata(4))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		tr := &Trace{}
		*tr = *tr0
		tr.Streams = nil
		tr.AddStream("a", a)
		tr.AddStream("b", b)
		for _, r := range []*Reader{tr.NewReader(), tr.NewScanner()} {
			n := 0
			for r.Next() {
				if n++; n > 8*(len(a)+len(b))+1 {
					t.Fatalf("%d events from %d bytes", n, len(a)+len(b))
				}
			}
			if err := r.Err(); err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) && !errors.Is(err, ErrClockCorrelation) {
					t.Fatalf("error %T %v", err, err)
				}
			}
		}
	})
}
