package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/cdt"
)

// A recorder killed while writing its third chunk: every command reads the
// two complete chunks and says what was lost (validate fails, the others
// succeed with a note).
func TestCDTRecoveredEverywhere(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.cdt")
	if code, _, errOut := run(t, nil, "sample", "cdt", full); code != 0 {
		t.Fatal(errOut)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cdt.OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	third := f.Footer().Blocks[2].FileOffset
	f.Close()
	path := filepath.Join(dir, "cut.cdt")
	if err := os.WriteFile(path, data[:third+100], 0o644); err != nil {
		t.Fatal(err)
	}
	loss := "100 bytes lost from offset " + strconv.FormatInt(third, 10) + ", with ticks 32..39"

	code, _, errOut := run(t, nil, "validate", path)
	if code != 1 || !strings.Contains(errOut, "missing trace trailer") ||
		!strings.Contains(errOut, "recovers 32 ticks in 2 complete chunks; "+loss) {
		t.Fatalf("validate: exit %d: %s", code, errOut)
	}

	code, out, errOut := run(t, nil, "stats", "--json", path)
	var st map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st["ticks"] != 32.0 || st["recovered"] != true ||
		st["lost_ticks"] != 8.0 || st["lost_bytes"] != 100.0 || st["read_bytes"] != float64(third) {
		t.Fatalf("stats: exit %d %s %s", code, out, errOut)
	}

	code, out, errOut = run(t, nil, "dump", path)
	// The text dump gives the JSON dump's records: one line per tick read,
	// the recovery line on standard error.
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 32 || !strings.Contains(lines[31], " counter tick [ticks] tick_index=31 |") ||
		!strings.Contains(errOut, path+": recovery: read 32 ticks") {
		t.Fatalf("dump: exit %d %q %s", code, lines[len(lines)-1], errOut)
	}
	// A channel view is CDT's own form: the recovery note ends it.
	_, out, _ = run(t, nil, "dump", "--type", "checkpoint", path)
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 33 || !strings.HasPrefix(lines[32], "# warning: trace not closed: recovered 32 ticks (0..31) in 2 complete chunks") ||
		!strings.Contains(lines[32], "lost 100 bytes and 8 ticks (32..39)") {
		t.Fatalf("dump --type checkpoint: %q", lines[len(lines)-1])
	}
	// dump --json writes the event layer's JSON Lines, one event per tick
	// read; the recovery line goes to standard error.
	code, out, warnings := run(t, nil, "dump", "--json", path)
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var lastTick struct {
		Kind   string
		Record struct {
			TickIndex int `json:"tick_index"`
		}
	}
	if code != 0 || len(lines) != 32 || json.Unmarshal([]byte(lines[31]), &lastTick) != nil || lastTick.Kind != "counter" || lastTick.Record.TickIndex != 31 ||
		!strings.Contains(warnings, path+": recovery: read 32 ticks") {
		t.Fatalf("dump --json: exit %d %q, warnings %q", code, lines[len(lines)-1], warnings)
	}

	dst := filepath.Join(dir, "cut.json")
	if code, _, errOut := run(t, nil, "convert", "--to", "chrome", path, dst); code != 0 {
		t.Fatalf("convert: %s", errOut)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	var chrome struct {
		TraceEvents []map[string]any `json:"traceEvents"`
		OtherData   struct {
			Recovery struct {
				Unit string
				Read int
			}
		} `json:"otherData"`
	}
	if err := json.Unmarshal(b, &chrome); err != nil {
		t.Fatal(err)
	}
	last := chrome.TraceEvents[len(chrome.TraceEvents)-1]
	if r := chrome.OtherData.Recovery; r.Unit != "ticks" || r.Read != 32 || last["ts"] != float64(31*50/3*1000) {
		t.Fatalf("convert: otherData %v, last event %v", chrome.OtherData, last)
	}

	// The intact trace: no note anywhere.
	if code, out, _ := run(t, nil, "dump", full); code != 0 || strings.Contains(out, "warning") {
		t.Fatalf("intact dump: %d", code)
	}
}
