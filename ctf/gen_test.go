package ctf

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// An LTTng-shaped CTF 1.8 trace generator for tests, benchmarks and the
// comparison with babeltrace2: TSDL metadata in LTTng's style (packet header
// with magic, UUID and stream ids; packet context with begin/end timestamps,
// sizes, sequence number, discarded counter and cpu_id; the compact event
// header of a 5-bit id and a 27-bit timestamp, extended to a 32-bit id and a
// 64-bit timestamp when the timestamp delta overflows 27 bits or the id is
// ≥ 31), fixed-size packets padded with zeros, one stream per CPU and the
// LTTng packet index beside each.

const genUUID = "5fce9cb8-7b77-4e3b-a0f4-55d4d1e7b0a1"

var genUUIDBytes = [16]byte{0x5f, 0xce, 0x9c, 0xb8, 0x7b, 0x77, 0x4e, 0x3b, 0xa0, 0xf4, 0x55, 0xd4, 0xd1, 0xe7, 0xb0, 0xa1}

func genMetadata(nClasses int) string {
	s := `/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;

trace {
	major = 1;
	minor = 8;
	uuid = "` + genUUID + `";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	};
};

env {
	hostname = "gen";
	domain = "ust";
	tracer_name = "lttng-ust";
};

clock {
	name = "monotonic";
	freq = 1000000000;
	offset = 1700000000000000000;
};

typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;

struct packet_context {
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t packet_seq_num;
	uint64_t events_discarded;
	uint32_t cpu_id;
};

struct event_header_compact {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> {
		struct { uint27_clock_monotonic_t timestamp; } compact;
		struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended;
	} v;
} align(8);

stream {
	id = 0;
	event.header := struct event_header_compact;
	packet.context := struct packet_context;
	event.context := struct {
		integer { size = 32; align = 8; signed = 1; } _vtid;
	};
};
`
	for i := 0; i < nClasses; i++ {
		switch i % 3 {
		case 0:
			s += fmt.Sprintf(`
event {
	name = "gen:small_%d";
	id = %d;
	stream_id = 0;
	fields := struct {
		integer { size = 32; align = 8; signed = 1; } _a;
		integer { size = 64; align = 8; signed = 0; base = 16; } _b;
	};
};
`, i, i)
		case 1:
			s += fmt.Sprintf(`
event {
	name = "gen:str_%d";
	id = %d;
	stream_id = 0;
	fields := struct {
		integer { size = 32; align = 8; signed = 1; } _a;
		string _s;
		enum : integer { size = 32; align = 8; signed = 1; } { "RED" = 0, "GREEN" = 1, "BLUE" = 2 ... 10 } _e;
	};
};
`, i, i)
		case 2:
			s += fmt.Sprintf(`
event {
	name = "gen:seq_%d";
	id = %d;
	stream_id = 0;
	fields := struct {
		integer { size = 32; align = 8; signed = 0; } __seq_length;
		integer { size = 8; align = 8; signed = 0; } _seq[ __seq_length ];
		integer { size = 8; align = 8; signed = 0; encoding = UTF8; } _txt[4];
	};
};
`, i, i)
		}
	}
	return s
}

type genStream struct {
	buf     []byte
	pkt     []byte
	pktSize int
	ts      uint64 // packet end (endPacket) or begin (startPacket) time
	begin   uint64
	seq     uint64
	cpu     uint32
	index   []byte
	rnd     uint64
	classes int
	drop    uint64 // events_discarded to report
	bare    int    // without event record headers: 1 + the payload's kind (genBareMetadata); 0: LTTng's headers
	seqMod  int    // sequences hold n % seqMod elements (0: 5)
}

func (g *genStream) rand() uint64 {
	g.rnd ^= g.rnd << 13
	g.rnd ^= g.rnd >> 7
	g.rnd ^= g.rnd << 17
	return g.rnd
}

func (g *genStream) startPacket() {
	g.pkt = g.pkt[:0]
	g.pkt = binary.LittleEndian.AppendUint32(g.pkt, 0xc1fc1fc1)
	g.pkt = append(g.pkt, genUUIDBytes[:]...)
	g.pkt = binary.LittleEndian.AppendUint32(g.pkt, 0)
	g.pkt = binary.LittleEndian.AppendUint64(g.pkt, uint64(g.cpu))
	g.begin = g.ts
	g.pkt = binary.LittleEndian.AppendUint64(g.pkt, g.ts) // begin
	g.pkt = append(g.pkt, make([]byte, 8*5)...)           // end, content, size, seq, discarded
	g.pkt = binary.LittleEndian.AppendUint32(g.pkt, g.cpu)
}

func (g *genStream) endPacket() {
	p := g.pkt
	content := uint64(len(p)) * 8
	binary.LittleEndian.PutUint64(p[40:], g.ts)
	binary.LittleEndian.PutUint64(p[48:], content)
	binary.LittleEndian.PutUint64(p[56:], uint64(g.pktSize)*8)
	binary.LittleEndian.PutUint64(p[64:], g.seq)
	binary.LittleEndian.PutUint64(p[72:], g.drop)
	off := uint64(len(g.buf))
	g.buf = append(g.buf, p...)
	g.buf = append(g.buf, make([]byte, g.pktSize-len(p))...)
	for _, v := range []uint64{off, uint64(g.pktSize) * 8, content, g.begin, g.ts, g.drop, 0, uint64(g.cpu), g.seq} {
		g.index = binary.BigEndian.AppendUint64(g.index, v)
	}
	g.seq++
}

// event encodes event record n at time ts after the clock value last.
func (g *genStream) event(ev []byte, n int, ts, last uint64) []byte {
	id := uint32(n % g.classes)
	ev = ev[:0]
	if g.bare > 0 {
		id = uint32(g.bare - 1)
	} else if id < 31 && ts-last < 1<<27 {
		ev = binary.LittleEndian.AppendUint32(ev, id|uint32(ts&(1<<27-1))<<5)
	} else {
		ev = append(ev, 31)
		ev = binary.LittleEndian.AppendUint32(ev, id)
		ev = binary.LittleEndian.AppendUint64(ev, ts)
	}
	ev = binary.LittleEndian.AppendUint32(ev, 1000+g.cpu) // vtid
	switch id % 3 {
	case 0:
		ev = binary.LittleEndian.AppendUint32(ev, uint32(int32(n)))
		ev = binary.LittleEndian.AppendUint64(ev, uint64(n)*0x9e3779b97f4a7c15)
	case 1:
		ev = binary.LittleEndian.AppendUint32(ev, uint32(-int32(n%1000)))
		ev = append(ev, "str-"...)
		ev = strconv.AppendInt(ev, int64(n%100), 10)
		ev = append(ev, 0)
		ev = binary.LittleEndian.AppendUint32(ev, uint32(n%12))
	case 2:
		k := n % max(g.seqMod, 5)
		ev = binary.LittleEndian.AppendUint32(ev, uint32(k))
		for j := 0; j < k; j++ {
			ev = append(ev, byte(j+1))
		}
		ev = append(ev, 'a', 'b', 'c', 0)
	}
	return ev
}

// genTrace writes an LTTng-shaped trace of n events over cpus streams to dir.
func genTrace(tb testing.TB, dir string, n, cpus, classes, pktSize int) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "index"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metadata"), []byte(genMetadata(classes)), 0o644); err != nil {
		tb.Fatal(err)
	}
	for c := 0; c < cpus; c++ {
		data, idx := genStreamBytes(c, n/cpus, classes, pktSize)
		name := "channel0_" + strconv.Itoa(c)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "index", name+".idx"), idx, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// genStreamBytes returns one data stream of n events and its index file.
func genStreamBytes(cpu, n, classes, pktSize int) ([]byte, []byte) {
	return genStreamOf(&genStream{classes: classes}, cpu, n, pktSize)
}

// genBareMetadata is genMetadata's trace without event record headers: one
// event record class (id 0) whose payload is of kind (0: integers, 1: a
// string, 2: a sequence and a static-length string), as genMetadata's
// class kind, kind+3, ….
func genBareMetadata(kind int) string {
	s := strings.Replace(genMetadata(0), "\tevent.header := struct event_header_compact;\n", "", 1)
	ev := genMetadata(kind + 1)[len(genMetadata(kind)):]
	return s + strings.Replace(ev, fmt.Sprintf("id = %d;", kind), "id = 0;", 1)
}

// genBareStreamBytes returns one data stream of n events of
// genBareMetadata(kind).
func genBareStreamBytes(kind, n, pktSize int) []byte {
	data, _ := genStreamOf(&genStream{classes: 1, bare: kind + 1}, 0, n, pktSize)
	return data
}

func genStreamOf(g *genStream, cpu, n, pktSize int) ([]byte, []byte) {
	g.pktSize, g.cpu, g.rnd, g.ts = pktSize, uint32(cpu), uint64(cpu)*7919+1, 1000+uint64(cpu)*333
	g.index = binary.BigEndian.AppendUint32(g.index, 0xc1f1dcc1)
	g.index = binary.BigEndian.AppendUint32(g.index, 1)
	g.index = binary.BigEndian.AppendUint32(g.index, 1)
	g.index = binary.BigEndian.AppendUint32(g.index, 72)
	var ev []byte
	g.startPacket()
	last := g.ts
	for i := 0; i < n; i++ {
		ts := last + 50 + g.rand()%2000
		if g.rand()%100000 == 0 {
			ts += 1 << 28 // a gap the compact header cannot span
		}
		ev = g.event(ev, i, ts, last)
		if len(g.pkt)+len(ev) > pktSize {
			g.ts = last
			g.endPacket()
			g.startPacket() // begins at the last event's time: the encoding stays valid
		}
		g.pkt = append(g.pkt, ev...)
		last = ts
	}
	g.ts = last
	g.endPacket()
	return g.buf, g.index
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
