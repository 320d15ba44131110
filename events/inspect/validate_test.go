package inspect_test

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// TestFormatStatsOfBytesAsOfFile: an Input holding the bytes of a file gives
// the stats and verdict of the file itself.
func TestFormatStatsOfBytesAsOfFile(t *testing.T) {
	for _, v := range []struct{ format, path string }{
		{"dial9", "v0.2.0/02_all_field_types.bin"},
		{"wtf", "api_public.wtf-trace"},
		{"ctf", "third-party/babeltrace-2.1.2-tests-data/1/succeed/multi-domains/kernel/metadata"},
	} {
		p := vectortest.Path(t, v.format, strings.Split(v.path, "/")...)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fromFile, err := inspect.FormatStats(inspect.FileInput(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		fromBytes, err := inspect.FormatStats(inspect.Input{Path: p, Data: b})
		if err != nil {
			t.Fatalf("%s (bytes): %v", p, err)
		}
		j1, _ := fromFile.MarshalJSON()
		j2, _ := fromBytes.MarshalJSON()
		if string(j1) != string(j2) {
			t.Errorf("%s: stats of the file\n%s\nof its bytes\n%s", p, j1, j2)
		}
		if f, _ := fromFile.Get("format"); f != v.format {
			t.Errorf("%s: format %v, want %s", p, f, v.format)
		}
		r1, err1 := inspect.Validate(inspect.FileInput(p))
		r2, err2 := inspect.Validate(inspect.Input{Path: p, Data: b})
		if err1 != nil || err2 != nil || r1.Summary != r2.Summary || r1.Summary == "" || r1.Format != v.format {
			t.Errorf("%s: Validate %+v, %v; of its bytes %+v, %v", p, r1, err1, r2, err2)
		}
	}
}

// TestUnknownFormatName: a Format no reader knows is refused with
// events.ErrUnknownFormat, by Validate and by FormatStats.
func TestUnknownFormatName(t *testing.T) {
	in := inspect.Input{Path: "x", Data: []byte("x"), Format: "pdf"}
	if _, err := inspect.Validate(in); !errors.Is(err, events.ErrUnknownFormat) {
		t.Errorf("Validate: %v", err)
	}
	if _, err := inspect.FormatStats(in); !errors.Is(err, events.ErrUnknownFormat) {
		t.Errorf("FormatStats: %v", err)
	}
}

// TestValidateCutDial9 pins the verdict on a cut stream: an error naming
// the offset and what was read, and the recovery summary beside it (what
// --strict and the recovery line report).
func TestValidateCutDial9(t *testing.T) {
	p := vectortest.Path(t, "dial9", "v0.2.0", "02_all_field_types.bin")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := inspect.Validate(inspect.Input{Path: "cut", Data: b[:len(b)-3]})
	if err == nil || !strings.Contains(err.Error(), "read before it: ") || !strings.Contains(err.Error(), "lost: everything from offset") {
		t.Fatalf("Validate of a cut stream: %v", err)
	}
	if rep.Recovery == nil || rep.Format != "dial9" {
		t.Fatalf("Validate of a cut stream: report %+v", rep)
	}
	if losses := (inspect.Report{Recovery: rep.Recovery, Problems: []string{"p"}}).StrictLosses(); len(losses) != 2 || losses[0] != "p" || !strings.HasPrefix(losses[1], "recovery: ") {
		t.Errorf("StrictLosses: %q", losses)
	}
	whole, err := inspect.Validate(inspect.Input{Path: "whole", Data: b})
	if err != nil || whole.Recovery != nil || len(whole.StrictLosses()) != 0 {
		t.Errorf("Validate of the whole stream: %+v, %v", whole, err)
	}
}

// TestValidateUnrecognisedAndInterrupted: an input of no known format is an
// error naming it; an error of the Open hook (tracecat's reads fail so on
// an interrupt) ends stats with that error.
func TestValidateUnrecognisedAndInterrupted(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.bin")
	if err := os.WriteFile(p, []byte("not a trace at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := inspect.Validate(inspect.FileInput(p)); err == nil || !strings.Contains(err.Error(), "unrecognised format") {
		t.Errorf("Validate: %v", err)
	}
	stop := errors.New("interrupted")
	in := inspect.FileInput(vectortest.Path(t, "wtf", "api_public.wtf-trace"))
	in.Open = func() (io.ReadCloser, error) { return nil, stop }
	if _, err := inspect.FormatStats(in); !errors.Is(err, stop) {
		t.Errorf("FormatStats with a failing Open: %v, want %v", err, stop)
	}
}

// TestTimeGoingBack: an ATF thread whose timestamps go back (0, 5, 3, 10,
// 2) is reported — a warning line saying how often and where first, and
// stats' time_backwards — but does not fail validate or --strict: the
// format does not promise order within a thread, and the reference's
// vector normal/thread_2 goes back (so does every production-shaped file
// with a detail lane). A thread in order has no note.
func TestTimeGoingBack(t *testing.T) {
	write := func(stamps ...uint64) string {
		dir := filepath.Join(t.TempDir(), "thread_0")
		tw, err := atf.CreateThread(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, ts := range stamps {
			tw.Write(ts, 2, atf.KindCall, 1, nil)
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := write(0, 5, 3, 10, 2)
	rep, err := inspect.Validate(inspect.FileInput(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := "thread 0: timestamps go back 2 times (first at event 2: 5 → 3 ns)"
	if len(rep.Notes) != 1 || !strings.HasPrefix(rep.Notes[0], want) {
		t.Errorf("notes %q, want %q", rep.Notes, want)
	}
	if l := rep.StrictLosses(); len(l) != 0 {
		t.Errorf("strict losses %q, want none", l)
	}
	st, err := inspect.FormatStats(inspect.FileInput(dir))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := st.Get("time_backwards"); v != int64(2) {
		t.Errorf("time_backwards %v, want 2", v)
	}

	rep, err = inspect.Validate(inspect.FileInput(write(0, 5, 5, 10)))
	if err != nil || len(rep.Notes) != 0 {
		t.Errorf("in order: notes %q, %v", rep.Notes, err)
	}

	p := vectortest.Path(t, "atf", "normal", "session_20250101_120000")
	rep, err = inspect.Validate(inspect.FileInput(p))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notes) != 1 || !strings.HasPrefix(rep.Notes[0], "thread 2: timestamps go back 1 times (first at event 4: 1000000001260 → 1000000001010 ns)") || len(rep.StrictLosses()) != 0 {
		t.Errorf("vector: notes %q, strict losses %q", rep.Notes, rep.StrictLosses())
	}
}

// TestCrashLossOnOkLine: validate's report says what a crash of each
// event format's writer could lose without a trace (the README's table).
func TestCrashLossOnOkLine(t *testing.T) {
	for f, want := range map[string]string{
		events.FormatATF:   "127 events per thread",
		events.FormatDial9: "64 KiB",
		events.FormatWTF:   "1 MiB",
		events.FormatCDT:   "open chunk",
		events.FormatCTF:   "",
	} {
		if got := inspect.CrashLoss(f); !strings.Contains(got, want) || (want == "") != (got == "") {
			t.Errorf("%s: %q, want it to say %q", f, got, want)
		}
	}
	p := vectortest.Path(t, "wtf", "api_public.wtf-trace")
	rep, err := inspect.Validate(inspect.FileInput(p))
	if err != nil || rep.CrashLoss != inspect.CrashLoss(events.FormatWTF) {
		t.Errorf("report's CrashLoss %q, %v", rep.CrashLoss, err)
	}
}

// wtfRecords is a binary WTF file: a file_header chunk, then one
// event_data chunk with the string table strs and the records, each given
// as its u32 words (wire id, time, slots).
func wtfRecords(t *testing.T, strs []string, records ...[]uint32) []byte {
	t.Helper()
	table, ok := wtfcff.AppendStringTable(nil, strs)
	if !ok {
		t.Fatal("NUL in a string")
	}
	var ev []byte
	for _, r := range records {
		for _, w := range r {
			ev = binary.LittleEndian.AppendUint32(ev, w)
		}
	}
	b := wtfcff.AppendFileHeader(nil, 1)
	b = wtfcff.AppendChunk(b, &wtfcff.Chunk{ID: 1, Type: wtfcff.ChunkFileHeader, StartTime: wtfcff.InvalidTime, EndTime: wtfcff.InvalidTime,
		Parts: []wtfcff.Part{{Type: wtfcff.PartFileHeader, Data: []byte(`{"timebase":0}`)}}})
	return wtfcff.AppendChunk(b, &wtfcff.Chunk{ID: 2, Type: wtfcff.ChunkEventData, StartTime: wtfcff.InvalidTime, EndTime: wtfcff.InvalidTime,
		Parts: []wtfcff.Part{{Type: wtfcff.PartStringTable, Data: table}, {Type: wtfcff.PartBinaryEventBuffer, Data: ev}}})
}

// TestWTFOdditiesReported: a string ordinal past its table and a wire id
// bound again to another event type are read as the reference reads them
// but are problems: validate warns, --strict fails (issue 21: they passed
// --strict silently).
func TestWTFOdditiesReported(t *testing.T) {
	define := func(wire, name, sig uint32) []uint32 { return []uint32{1, 0, wire, 0, 0, name, sig} }
	for _, c := range []struct {
		name string
		data []byte
		says string
	}{
		{"ordinal past the table", wtfRecords(t, []string{"app#e", "ascii s"}, define(2, 0, 1), []uint32{2, 5, 9}),
			"1 string arguments name ordinals past their chunk's string table"},
		{"wire id rebound", wtfRecords(t, []string{"app#a", "app#b", "uint32 x"}, define(2, 0, 2), define(2, 1, 2), []uint32{2, 5, 1}),
			"1 wtf.event#define records bind a wire id already bound to another event type"},
	} {
		rep, err := inspect.Validate(inspect.Input{Path: c.name, Data: c.data})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if l := rep.StrictLosses(); len(l) != 1 || !strings.Contains(l[0], c.says) {
			t.Errorf("%s: strict losses %q, want one saying %q", c.name, l, c.says)
		}
	}
	// The vectors have none.
	rep, err := inspect.Validate(inspect.FileInput(vectortest.Path(t, "wtf", "api_public.wtf-trace")))
	if err != nil || len(rep.Problems) != 0 {
		t.Errorf("vector: %q, %v", rep.Problems, err)
	}
}
