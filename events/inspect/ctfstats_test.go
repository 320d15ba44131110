package inspect_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/events/inspect"
)

const ctfStatsTSDL = `/* CTF 1.8 */
typealias integer { size = 64; align = 8; signed = false; } := u64;
typealias integer { size = 32; align = 8; signed = false; } := u32;
trace { major = 1; minor = 8; byte_order = le; packet.header := struct { u32 magic; u32 stream_id; }; };
clock { name = c; freq = 1000000000; };
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := ts;
stream {
	id = 0;
	packet.context := struct { ts timestamp_begin; ts timestamp_end; u64 content_size; u64 packet_size; u64 packet_seq_num; u64 events_discarded; u32 cpu_id; };
	event.header := struct { u32 id; ts timestamp; };
};
event { name = "a"; id = 0; stream_id = 0; fields := struct { u32 x; }; };
event { name = "b"; id = 1; stream_id = 0; fields := struct { u32 x; }; };
`

// ctfStatsPacket appends a packet: header, context, then events (id,
// time), each 16 bytes; declared (bytes) is its declared size, 0 for its
// real size.
func ctfStatsPacket(b []byte, seq, discarded uint64, declared int, evs ...[2]uint64) []byte {
	size := 60 + 16*len(evs)
	if declared == 0 {
		declared = size
	}
	le := binary.LittleEndian
	b = le.AppendUint32(b, 0xC1FC1FC1)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, evs[0][1])
	b = le.AppendUint64(b, evs[len(evs)-1][1])
	b = le.AppendUint64(b, uint64(declared)*8)
	b = le.AppendUint64(b, uint64(declared)*8)
	b = le.AppendUint64(b, seq)
	b = le.AppendUint64(b, discarded)
	b = le.AppendUint32(b, 0)
	for _, e := range evs {
		b = le.AppendUint32(b, uint32(e[0]))
		b = le.AppendUint64(b, e[1])
		b = le.AppendUint32(b, 7)
	}
	return b
}

// ctfStatsDir writes a trace folder of metadata ctfStatsTSDL and one
// data stream, s0: three packets of 4 events in all, whose discarded
// counter grows by 3 and whose sequence numbers skip one packet.
func ctfStatsDir(t *testing.T) string {
	dir := t.TempDir()
	var s0 []byte
	s0 = ctfStatsPacket(s0, 0, 0, 0, [2]uint64{0, 100}, [2]uint64{1, 200})
	s0 = ctfStatsPacket(s0, 1, 3, 0, [2]uint64{0, 300})
	s0 = ctfStatsPacket(s0, 3, 3, 0, [2]uint64{1, 400})
	for name, b := range map[string][]byte{"metadata": []byte(ctfStatsTSDL), "s0": s0} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// stats of a CTF trace folder: the event keys of every format (events and
// times, merged by time), events by stream and by name, the packets, the
// losses the tracer reported (discarded counter growth: 3; a
// packet_seq_num gap: 1 packet) and the recovery of a cut last packet.
func TestFormatStatsCTFTraceFolder(t *testing.T) {
	dir := ctfStatsDir(t)
	var s1 []byte
	s1 = ctfStatsPacket(s1, 0, 0, 0, [2]uint64{0, 150}, [2]uint64{0, 250})
	s1 = ctfStatsPacket(s1, 1, 0, 4096, [2]uint64{0, 350}, [2]uint64{0, 360})
	s1 = s1[:len(s1)-6] // the second event of the last packet is cut
	for name, b := range map[string][]byte{"s1": s1, "notes.txt": []byte("x")} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := inspect.FormatStats(inspect.FileInput(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"format": "ctf", "events": int64(7), "first_ns": int64(100), "last_ns": int64(400), "min_ns": int64(100), "max_ns": int64(400),
		"data_streams": 2, "data_packets": uint64(5),
		"events_by_stream": map[string]int64{"s0": 4, "s1": 3},
		"events_by_name":   map[string]int64{"a": 5, "b": 2},
		"events_discarded": uint64(3), "packets_lost": uint64(1),
		"event_classes": 2,
	}
	for k, v := range want {
		if got, ok := st.Get(k); !ok || !reflect.DeepEqual(got, v) {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	rec, _ := st.Get("recovery")
	j, _ := st.MarshalJSON()
	if rec == nil || !strings.Contains(string(j), `"reason":"s1: ctf: offset 92: packet 1 is cut: the file ends 4010 bytes before its declared size of 4096 bytes"`) {
		t.Errorf("recovery %v; stats %s", rec, j)
	}
	for _, w := range []string{`"read":7,"read_bytes":412,"lost_bytes":10`, "s1: the last packet is cut", "s1: read up to offset 168"} {
		if !strings.Contains(string(j), w) {
			t.Errorf("recovery lacks %s: %s", w, j)
		}
	}
	if !strings.Contains(string(j), `"skipped_files":["notes.txt"]`) {
		t.Errorf("skipped_files missing: %s", j)
	}
}

// validate of a CTF trace folder: the losses the tracer reported
// (discarded events, a packet_seq_num gap) are notes, which --strict
// passes; a cut last packet fails (ErrTruncated, as babeltrace2 2.1.2
// refuses it), with the recovery summary of what the others read.
func TestValidateCTFProblemsNotes(t *testing.T) {
	dir := ctfStatsDir(t)
	rep, err := inspect.Validate(inspect.FileInput(dir))
	wantNotes := []string{"s0: packet 1: the tracer discarded 3 event records", "s0: packet 2: 1 packets lost (sequence number gap)"}
	if err != nil || len(rep.Problems) != 0 || !reflect.DeepEqual(rep.Notes, wantNotes) || !strings.HasSuffix(rep.Summary, "; 4 event records in 1 data streams") {
		t.Fatalf("%v: %q problems %q notes %q", err, rep.Summary, rep.Problems, rep.Notes)
	}
	s1 := ctfStatsPacket(nil, 0, 0, 0, [2]uint64{0, 150}, [2]uint64{0, 250})
	s1 = ctfStatsPacket(s1, 1, 0, 4096, [2]uint64{0, 350}, [2]uint64{0, 360})
	if err := os.WriteFile(filepath.Join(dir, "s1"), s1[:len(s1)-6], 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = inspect.Validate(inspect.FileInput(dir))
	if !errors.Is(err, ctf.ErrTruncated) || !strings.HasPrefix(err.Error(), "s1: ctf: offset 92: packet 1 is cut: the file ends 4010 bytes before its declared size of 4096 bytes (babeltrace2 refuses") ||
		rep.Recovery == nil || rep.Recovery.Read != 7 || rep.Recovery.LostBytes != 10 || !slices.Contains(rep.Recovery.Notes, "s1: the last packet is cut: its remaining bytes hold no complete event record") {
		t.Fatalf("%v: recovery %+v", err, rep.Recovery)
	}
}
