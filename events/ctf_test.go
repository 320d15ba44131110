package events_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// TestCTFTrace: events.Open on a CTF trace folder yields its event records
// in time order with names, ns times, stream tracks and typed arguments,
// the same for the LTTng 2.15 trace in CTF 1.8 TSDL and in CTF 2 form.
func TestCTFTrace(t *testing.T) {
	var firsts []string
	for _, d := range []string{"lttng-2.15.1-ust-ctf1.8-plaintext", "lttng-2.15.1-ust-ctf2-json"} {
		r, err := events.Open(vectortest.Path(t, "ctf", d, "trace"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Detection().Format != events.FormatCTF {
			t.Errorf("%s: detected %v", d, r.Detection())
		}
		n, last := 0, int64(0)
		var first string
		for r.Next() {
			e := r.Event()
			if !e.HasTime() || e.Time() < last {
				t.Fatalf("%s: event %d: time %d after %d", d, n, e.Time(), last)
			}
			last = e.Time()
			if tk := e.Track(); tk.Kind != events.TrackStream || !strings.HasPrefix(tk.Name, "cpu ") {
				t.Fatalf("%s: track %+v", d, tk)
			}
			if n == 0 {
				var b strings.Builder
				b.WriteString(e.Name())
				for name, v := range e.Args {
					b.WriteString(" " + name + "=" + string(v.AppendJSON(nil)))
				}
				first = b.String()
				if e.Kind() != events.KindInstant || e.NumArgs() != 5 {
					t.Errorf("%s: first event %s, kind %v", d, first, e.Kind())
				}
				if v, ok := e.ArgByName("field_s_0"); !ok || v.Kind() != events.ValueString || v.String() != "str-0" {
					t.Errorf("%s: field_s_0 = %v", d, v)
				}
				if rec := string(e.AppendRecord(nil)); !strings.Contains(rec, `"stream":"channel0_`) {
					t.Errorf("%s: record %s", d, rec)
				}
			}
			n++
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		if n != 80 {
			t.Errorf("%s: %d events, want 80", d, n)
		}
		firsts = append(firsts, first)
		r.Close()
	}
	if want := `anchors_many:event_000 field_a_0=0 field_b_0=0 field_s_0="str-0" field_e_0=0 field_e_0_label="RED"`; firsts[0] != want || firsts[1] != want {
		t.Errorf("first events differ: %q vs %q", firsts[0], firsts[1])
	}
}

// A metadata file alone still says it holds no events.
func TestCTFMetadataFileNoEvents(t *testing.T) {
	p := filepath.Join(vectortest.Path(t, "ctf", "lttng-2.13.9-ust-ctf1.8-packetized-1pkt", "trace"), "metadata")
	if _, err := events.Open(p); !errors.Is(err, events.ErrNoEvents) {
		t.Errorf("%v", err)
	}
}

// Strings in UTF-16 and UTF-32 reach the event layer as UTF-8 text, each
// argument its own (a hand-made CTF 2 trace: two events, three strings
// each).
func TestCTFUnicodeStrings(t *testing.T) {
	dir := t.TempDir()
	meta := "\x1e" + `{"type":"preamble","version":2}` + "\n\x1e" + `{"type":"data-stream-class"}` + "\n\x1e" +
		`{"type":"event-record-class","name":"ev","payload-field-class":{"type":"structure","member-classes":[` +
		`{"name":"a","field-class":{"type":"null-terminated-string","encoding":"utf-16le"}},` +
		`{"name":"b","field-class":{"type":"static-length-string","length":8,"encoding":"utf-32be"}},` +
		`{"name":"c","field-class":{"type":"null-terminated-string","encoding":"utf-16be"}}]}}` + "\n"
	stream := []byte("h\x00i\x00\xe9\x00\x3d\xd8\x00\xde\x00\x00" + "\x00\x01\xf6\x00\x00\x00\x00A" + "\x00x\x00\x00" +
		"\x00\x00" + "\x00\x00\x00B\x00\x00\x00C" + "\x00\x00")
	if err := os.WriteFile(filepath.Join(dir, "metadata"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stream"), stream, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for r.Next() {
		var b strings.Builder
		for name, v := range r.Event().Args {
			b.WriteString(name + "=" + v.String() + " ")
		}
		got = append(got, b.String())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"a=hié😀 b=😀A c=x ", "a= b=BC c= "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The files of one data stream (LTTng tracefile rotation: CHANNEL_CPU_0,
// CHANNEL_CPU_1, … with the same stream_instance_id) are one track, as
// babeltrace2 reads them as one stream; another data stream keeps its own.
func TestCTFRotatedFilesOneTrack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trace")
	const pkt = 1024
	if err := ctfgen.Write(dir, 320, 2, 4, pkt); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "index"))
	// channel0_1 rotated: its packets split between two files of the
	// same stream, and a third file that is another stream (instance 7,
	// cpu 5).
	b, err := os.ReadFile(filepath.Join(dir, "channel0_1"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ctf.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pkts []ctf.Packet
	for _, st := range tr.Streams {
		if st.Name == "channel0_1" {
			pkts, err = st.Packets()
		}
	}
	tr.Close()
	if err != nil || len(pkts) < 2 {
		t.Fatalf("channel0_1: %d packets, %v", len(pkts), err)
	}
	cut := pkts[len(pkts)/2].Offset
	if err := os.Remove(filepath.Join(dir, "channel0_1")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "channel0_1_0"), b[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "channel0_1_1"), b[cut:], 0o644); err != nil {
		t.Fatal(err)
	}
	other := append([]byte(nil), b...)
	// LTTng's packet header: magic, uuid[16], stream_id (u32), then
	// stream_instance_id (u64) at byte 24; the context's cpu_id (u32) at
	// byte 80, after two timestamps, two sizes, the sequence number and the
	// discarded count (u64 each).
	for off := 0; off+84 <= len(other); off += pkt {
		other[off+24] = 7
		other[off+80] = 5
	}
	if err := os.WriteFile(filepath.Join(dir, "channel0_5"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tracks := map[events.Track]map[string]int{}
	for r.Next() {
		e := r.Event()
		rec := string(e.AppendRecord(nil))
		file := rec[strings.Index(rec, `"stream":"`)+10:]
		file = file[:strings.IndexByte(file, '"')]
		tk := e.Track()
		if tracks[tk] == nil {
			tracks[tk] = map[string]int{}
		}
		tracks[tk][file]++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	cpu0 := events.Track{Kind: events.TrackStream, ID: 0, Name: "cpu 0"}
	cpu1 := events.Track{Kind: events.TrackStream, ID: 1, Name: "cpu 1"}
	cpu5 := events.Track{Kind: events.TrackStream, ID: 5, Name: "cpu 5"}
	if len(tracks) != 3 || tracks[cpu1]["channel0_1_0"] == 0 || tracks[cpu1]["channel0_1_1"] == 0 ||
		tracks[cpu1]["channel0_1_0"]+tracks[cpu1]["channel0_1_1"] != 160 || len(tracks[cpu1]) != 2 ||
		len(tracks[cpu5]) != 1 || tracks[cpu5]["channel0_5"] != 160 || len(tracks[cpu0]) != 1 || tracks[cpu0]["channel0_0"] != 160 {
		t.Fatalf("tracks %v, want cpu 1 holding channel0_1_0 and channel0_1_1 (160 events), cpu 5 channel0_5 (160), cpu 0 channel0_0 (160)", tracks)
	}
}

// A file beside CTF metadata whose first bytes are no known magic is
// detected as a CTF data stream when ctf.OpenDir would read it as one (a
// damaged packet magic number: babeltrace2 2.1 reads it), not when OpenDir
// skips it as a text sidecar; a lone data stream holds no events.
func TestDetectCTFDataStreamBadMagic(t *testing.T) {
	meta, err := os.ReadFile(vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace", "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string][]byte{"metadata": meta, "channel0_0": {0x00, 0x1f, 0xfc, 0xc1, 0, 0, 0, 0}, "notes.txt": []byte("a sidecar\n")}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for n, want := range map[string]events.Detection{"channel0_0": {Format: events.FormatCTF, Variant: "data stream"}, "notes.txt": {Format: events.FormatUnknown}} {
		if d, err := events.DetectFile(filepath.Join(dir, n)); err != nil || d.Format != want.Format || (want.Variant != "" && d.Variant != want.Variant) {
			t.Errorf("%s: %+v %v, want %+v", n, d, err, want)
		}
	}
	if _, err := events.Open(filepath.Join(dir, "channel0_0")); !errors.Is(err, events.ErrNoEvents) {
		t.Errorf("Open of a lone data stream: %v, want ErrNoEvents", err)
	}
	other := t.TempDir() // the same bytes without metadata beside them
	if err := os.WriteFile(filepath.Join(other, "channel0_0"), files["channel0_0"], 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := events.DetectFile(filepath.Join(other, "channel0_0")); err != nil || d.Format != events.FormatUnknown {
		t.Errorf("without metadata: %+v %v", d, err)
	}
}
