package inspect_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/internal/vectortest"
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
