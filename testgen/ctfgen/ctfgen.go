// Package ctfgen writes LTTng-shaped CTF 1.8 traces for tests, benchmarks,
// the comparison with babeltrace2 and tracecat's sample: TSDL metadata in
// LTTng's style (packet header with magic, UUID and stream ids; packet
// context with begin/end timestamps, sizes, sequence number, discarded
// counter and cpu_id; the compact event header of a 5-bit id and a 27-bit
// timestamp, extended to a 32-bit id and a 64-bit timestamp when the
// timestamp delta overflows 27 bits or the id is ≥ 31), fixed-size packets
// padded with zeros, one stream per CPU and the LTTng packet index beside
// each.
//
// Event record classes cycle through three kinds by id: "gen:small_N" (a
// signed 32-bit and a hexadecimal unsigned 64-bit integer), "gen:str_N" (an
// integer, a string and an enumeration) and "gen:seq_N" (a dynamic-length
// byte sequence and a static-length UTF-8 string). Event record n of a
// stream is of class n % classes, with payload values a function of n, so a
// test can predict every field. The output is a pure function of the
// parameters: the same call writes the same bytes.
//
// Like the other testgen packages it is not part of the module's stable API.
package ctfgen

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// UUID is the trace UUID every generated trace carries (in the metadata and
// every packet header).
const UUID = "5fce9cb8-7b77-4e3b-a0f4-55d4d1e7b0a1"

var uuidBytes = [16]byte{0x5f, 0xce, 0x9c, 0xb8, 0x7b, 0x77, 0x4e, 0x3b, 0xa0, 0xf4, 0x55, 0xd4, 0xd1, 0xe7, 0xb0, 0xa1}

// Metadata returns the TSDL text (with the "/* CTF 1.8 */" signature) of a
// trace with nClasses event record classes, ids 0 to nClasses-1.
func Metadata(nClasses int) string {
	s := `/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;

trace {
	major = 1;
	minor = 8;
	uuid = "` + UUID + `";
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

type stream struct {
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
	bare    int    // without event record headers: 1 + the payload's kind (BareMetadata); 0: LTTng's headers
	seqMod  int    // sequences hold n % seqMod elements (0: 5)
	large   bool   // LTTng's large event header (LargeMetadata)
}

func (g *stream) rand() uint64 {
	g.rnd ^= g.rnd << 13
	g.rnd ^= g.rnd >> 7
	g.rnd ^= g.rnd << 17
	return g.rnd
}

func (g *stream) startPacket() {
	g.pkt = g.pkt[:0]
	g.pkt = binary.LittleEndian.AppendUint32(g.pkt, 0xc1fc1fc1)
	g.pkt = append(g.pkt, uuidBytes[:]...)
	g.pkt = binary.LittleEndian.AppendUint32(g.pkt, 0)
	g.pkt = binary.LittleEndian.AppendUint64(g.pkt, uint64(g.cpu))
	g.begin = g.ts
	g.pkt = binary.LittleEndian.AppendUint64(g.pkt, g.ts) // begin
	g.pkt = append(g.pkt, make([]byte, 8*5)...)           // end, content, size, seq, discarded
	g.pkt = binary.LittleEndian.AppendUint32(g.pkt, g.cpu)
}

func (g *stream) endPacket() {
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
func (g *stream) event(ev []byte, n int, ts, last uint64) []byte {
	id := uint32(n % g.classes)
	ev = ev[:0]
	if g.bare > 0 {
		id = uint32(g.bare - 1)
	} else if g.large {
		if id < 65535 && ts-last < 1<<32 {
			ev = binary.LittleEndian.AppendUint16(ev, uint16(id))
			ev = binary.LittleEndian.AppendUint32(ev, uint32(ts))
		} else {
			ev = binary.LittleEndian.AppendUint16(ev, 65535)
			ev = binary.LittleEndian.AppendUint32(ev, id)
			ev = binary.LittleEndian.AppendUint64(ev, ts)
		}
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

// Stream returns one data stream (for CPU cpu) of n events of Metadata(classes)
// in packets of pktSize bytes, and its LTTng index file.
func Stream(cpu, n, classes, pktSize int) ([]byte, []byte) {
	return streamOf(&stream{classes: classes}, cpu, n, pktSize)
}

// largeHeader is the event record header of lttng-ust's traces (LTTng's
// large header: a 16-bit id, 65535 for the extended option, then a 32-bit
// timestamp, or a 32-bit id and a 64-bit timestamp), as lttng-ust 2.15
// writes it.
const largeHeader = `struct {
		enum : integer { size = 16; align = 8; } {
			"extended" = 65535,
			"compact" = 0 ... 65534,
		} id;
		variant <id> {
			struct {
				integer { size = 32; align = 8; map = clock.monotonic.value; } timestamp;
			} compact;
			struct {
				integer { size = 32; align = 8; } id;
				integer { size = 64; align = 8; map = clock.monotonic.value; } timestamp;
			} extended;
		} v;
	}`

// LargeMetadata is Metadata's trace with LTTng's large event record
// header (lttng-ust's: a 16-bit id, compact 0 … 65534, extended 65535)
// instead of the compact one.
func LargeMetadata(nClasses int) string {
	return strings.Replace(Metadata(nClasses), "event.header := struct event_header_compact;", "event.header := "+largeHeader+";", 1)
}

// LargeStream is Stream for LargeMetadata(classes): its records have the
// large header, the compact option (id, 32-bit timestamp) but for a gap
// of 2^32 ns or more (one record in about 100000), whose record has the
// extended one.
func LargeStream(cpu, n, classes, pktSize int) ([]byte, []byte) {
	return streamOf(&stream{classes: classes, large: true}, cpu, n, pktSize)
}

// BareMetadata is Metadata's trace without event record headers: one
// event record class (id 0) whose payload is of kind (0: integers, 1: a
// string, 2: a sequence and a static-length string), as Metadata's
// class kind, kind+3, ….
func BareMetadata(kind int) string {
	s := strings.Replace(Metadata(0), "\tevent.header := struct event_header_compact;\n", "", 1)
	ev := Metadata(kind + 1)[len(Metadata(kind)):]
	return s + strings.Replace(ev, fmt.Sprintf("id = %d;", kind), "id = 0;", 1)
}

// BareStream returns one data stream of n events of BareMetadata(kind) in
// packets of pktSize bytes. Event record n's sequence (kind 2) holds
// n % max(seqMod, 5) elements.
func BareStream(kind, n, pktSize, seqMod int) []byte {
	data, _ := streamOf(&stream{classes: 1, bare: kind + 1, seqMod: seqMod}, 0, n, pktSize)
	return data
}

func streamOf(g *stream, cpu, n, pktSize int) ([]byte, []byte) {
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
			if g.large {
				ts += 1 << 32 // nor the large header's compact option
			}
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

// Write writes an LTTng-shaped trace of n events (n/cpus per stream) over
// cpus streams to dir: "metadata" (TSDL text, Metadata(classes)), the data
// streams "channel0_C" and their indexes "index/channel0_C.idx", packets of
// pktSize bytes. dir is created when missing.
func Write(dir string, n, cpus, classes, pktSize int) error {
	if err := os.MkdirAll(filepath.Join(dir, "index"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "metadata"), []byte(Metadata(classes)), 0o644); err != nil {
		return err
	}
	for c := 0; c < cpus; c++ {
		data, idx := Stream(c, n/cpus, classes, pktSize)
		name := "channel0_" + strconv.Itoa(c)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "index", name+".idx"), idx, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteUUID is Write with the trace UUID uuid (in the metadata and every
// packet header) instead of UUID: traces babeltrace2 reads as distinct
// traces when they sit in one folder (it reads traces sharing a UUID as
// one, their equal packets once).
func WriteUUID(dir, uuid string, n, cpus, classes, pktSize int) error {
	u, err := hex.DecodeString(strings.ReplaceAll(uuid, "-", ""))
	if err != nil || len(u) != 16 {
		return fmt.Errorf("ctfgen: bad UUID %q", uuid)
	}
	if err := Write(dir, n, cpus, classes, pktSize); err != nil {
		return err
	}
	if err := EditMetadata(dir, UUID, uuid); err != nil {
		return err
	}
	for c := 0; c < cpus; c++ {
		p := filepath.Join(dir, "channel0_"+strconv.Itoa(c))
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for off := 0; off+20 <= len(b); off += pktSize {
			copy(b[off+4:off+20], u)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// EditMetadata replaces, in the metadata file of trace folder dir, the
// first occurrence of each old text by its new text (pairs: old, new, …),
// failing when one is absent: tests make traces of other clocks, tracers
// or UUIDs from Write's.
func EditMetadata(dir string, pairs ...string) error {
	if len(pairs)%2 != 0 {
		return fmt.Errorf("ctfgen: EditMetadata: %d texts, not pairs", len(pairs))
	}
	p := filepath.Join(dir, "metadata")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	m := string(b)
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(m, pairs[i]) {
			return fmt.Errorf("ctfgen: no %q in %s", pairs[i], p)
		}
		m = strings.Replace(m, pairs[i], pairs[i+1], 1)
	}
	return os.WriteFile(p, []byte(m), 0o644)
}

// Packet context offsets of Write's packets (bytes from the packet's
// start, little-endian 64-bit values).
const (
	OffBegin     = 32 // timestamp_begin
	OffEnd       = 40 // timestamp_end
	OffSeq       = 64 // packet_seq_num
	OffDiscarded = 72 // events_discarded (a running counter)
)

// EditPackets rewrites data stream file name of the trace Write wrote to
// dir with packets of pktSize bytes, calling edit with each packet's
// position and bytes, and returns the file's new bytes. The trace's index
// folder, which would disagree, is removed. It fails when the file holds
// fewer than min packets.
func EditPackets(dir, name string, pktSize, min int, edit func(i int, pkt []byte)) ([]byte, error) {
	if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, name)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if pktSize <= 0 || len(data)%pktSize != 0 || len(data)/pktSize < min {
		return nil, fmt.Errorf("ctfgen: %s: %d bytes, not %d packets of %d bytes or more", p, len(data), min, pktSize)
	}
	for i := 0; i < len(data)/pktSize; i++ {
		edit(i, data[i*pktSize:(i+1)*pktSize])
	}
	return data, os.WriteFile(p, data, 0o644)
}

// WriteMixedClocks writes to dir a CTF 1.8 trace of two data streams,
// "with_clock" (data stream class 0, clock "c", one event "a" at cycle 5)
// and "without_clock" (class 1, no clock, one event "b"): each reads
// alone, but babeltrace2 2.1 refuses to merge them ("Expecting a clock
// class, got none").
func WriteMixedClocks(dir string) error {
	const meta = `/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; uint8_t stream_id; }; };
clock { name = "c"; freq = 1000; };
typealias integer { size = 32; align = 8; signed = false; map = clock.c.value; } := clk_t;
stream { id = 0; packet.context := struct { clk_t timestamp_begin; clk_t timestamp_end; }; event.header := struct { clk_t timestamp; }; };
stream { id = 1; };
event { stream_id = 0; name = "a"; fields := struct { uint8_t v; }; };
event { stream_id = 1; name = "b"; fields := struct { uint8_t v; }; };
`
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range map[string][]byte{
		"metadata":      []byte(meta),
		"with_clock":    {0xc1, 0x1f, 0xfc, 0xc1, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 1},
		"without_clock": {0xc1, 0x1f, 0xfc, 0xc1, 1, 2},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteUncorrelated writes to root two traces, x and y (Write's of n
// events, one CPU, two UUIDs), whose clocks babeltrace2 2.1 cannot
// correlate: tracer "gen" (not LTTng's: its "monotonic" clock is not taken
// to be of the Unix epoch), no absolute attribute, no clock uuid.
func WriteUncorrelated(root string, n int) error {
	for i, d := range []string{"x", "y"} {
		p := filepath.Join(root, d)
		if err := WriteUUID(p, []string{UUID, "5fce9cb8-7b77-4e3b-a0f4-55d4d1e7b0a2"}[i], n, 1, 2, 1024); err != nil {
			return err
		}
		if err := EditMetadata(p, `tracer_name = "lttng-ust"`, `tracer_name = "gen"`); err != nil {
			return err
		}
	}
	return nil
}
