package inspect_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/testgen/tracegen"
)

func TestParseTime(t *testing.T) {
	for in, want := range map[string]inspect.Time{
		"1200":                  {Value: 1200},
		"1200ns":                {Value: 1200},
		"250us":                 {Value: 250_000},
		"250µs":                 {Value: 250_000},
		"3ms":                   {Value: 3_000_000},
		"1.5s":                  {Value: 1_500_000_000},
		"0.000000001s":          {Value: 1},
		"1_700_000_000":         {Value: 1_700_000_000},
		"-2us":                  {Value: -2000},
		"9223372036854775807ns": {Value: 9223372036854775807},
		"tick:300":              {Value: 300, Unit: inspect.Tick},
		"tick:1_000":            {Value: 1000, Unit: inspect.Tick},
		"index:8":               {Value: 8, Unit: inspect.Index},
	} {
		got, err := inspect.ParseTime(in)
		if err != nil || got != want {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
		if err == nil {
			if back, err := inspect.ParseTime(got.String()); err != nil || back != got {
				t.Errorf("ParseTime(%q.String() = %q) = %v, %v", in, got.String(), back, err)
			}
		}
	}
	for _, in := range []string{"", "x", "1.5", "1.5ns", "0.1ns", "1.", ".", "1e9", "5m", "1h", "9223372036854775808", "10000000000s", "tick:", "tick:1.5", "index:x", "1 s", "--1"} {
		if got, err := inspect.ParseTime(in); !errors.Is(err, inspect.ErrTime) {
			t.Errorf("ParseTime(%q) = %v, %v; want an ErrTime", in, got, err)
		}
	}
}

func TestFilterRefusesWhatAFormatCannotHonour(t *testing.T) {
	tick := &inspect.Time{Value: 3, Unit: inspect.Tick}
	index := &inspect.Time{Value: 3, Unit: inspect.Index}
	ns := &inspect.Time{Value: 3}
	for _, tc := range []struct {
		format string
		f      inspect.Filter
		ok     bool
	}{
		{events.FormatCDT, inspect.Filter{From: tick, To: tick}, true},
		{events.FormatCDT, inspect.Filter{From: ns}, true},
		{events.FormatCDT, inspect.Filter{Thread: "1"}, false},
		{events.FormatCDT, inspect.Filter{From: ns, To: tick}, false},
		{events.FormatDial9, inspect.Filter{From: tick}, false},
		{events.FormatDial9, inspect.Filter{To: index}, false},
		{events.FormatDial9, inspect.Filter{Thread: "3", Type: "poll", From: ns}, true},
		{events.FormatATF, inspect.Filter{Type: "bogus"}, false},
		{events.FormatATF, inspect.Filter{Type: "call", Thread: "thread_7"}, true},
		{events.FormatATF, inspect.Filter{Thread: "seven"}, false},
		{events.FormatWTF, inspect.Filter{Thread: "Worker Zone", From: ns}, true},
		{events.FormatWTF, inspect.Filter{From: tick}, false},
	} {
		_, err := tc.f.Compile(tc.format)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, inspect.ErrUnsupported) {
			t.Errorf("%s %+v: %v, want ok=%v", tc.format, tc.f, err, tc.ok)
		}
	}
}

// dumpBoth dumps path as text and as JSON Lines with the same filter.
func dumpBoth(t *testing.T, path string, f inspect.Filter) (text, jsonl []string) {
	t.Helper()
	for _, asJSON := range []bool{false, true} {
		r, err := events.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := inspect.Dump(&buf, r, inspect.DumpOptions{JSON: asJSON, Filter: f})
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if buf.Len() == 0 {
			lines = nil
		}
		if int64(len(lines)) != n {
			t.Fatalf("%s: Dump says %d lines, wrote %d", path, n, len(lines))
		}
		if asJSON {
			jsonl = lines
		} else {
			text = lines
		}
	}
	return text, jsonl
}

// sameRecords checks that each text line renders the JSON line beside it:
// time, kind, name, track, every record key and every argument.
func sameRecords(t *testing.T, what string, text, jsonl []string) {
	t.Helper()
	if len(text) != len(jsonl) {
		t.Fatalf("%s: %d text lines, %d JSON lines", what, len(text), len(jsonl))
	}
	for i := range text {
		var ev struct {
			Kind      string                     `json:"kind"`
			Name      string                     `json:"name"`
			TS        *int64                     `json:"ts_ns"`
			TrackName string                     `json:"track_name"`
			Record    map[string]json.RawMessage `json:"record"`
			Args      map[string]json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal([]byte(jsonl[i]), &ev); err != nil {
			t.Fatalf("%s line %d: %v", what, i, err)
		}
		ts := "-"
		if ev.TS != nil {
			ts = strconv.FormatInt(*ev.TS, 10)
		}
		l := text[i]
		head, args, ok := strings.Cut(l, " |")
		if !ok || !strings.HasPrefix(l, ts+" "+ev.Kind+" ") || !strings.Contains(head, "["+word(ev.TrackName)+"]") || !strings.Contains(head, " "+word(ev.Name)+" [") {
			t.Fatalf("%s line %d: text %q does not render %s", what, i, l, jsonl[i])
		}
		for k, v := range ev.Record {
			if !strings.Contains(head, " "+k+"="+string(v)) {
				t.Fatalf("%s line %d: text %q lacks record %s=%s", what, i, l, k, v)
			}
		}
		for k, v := range ev.Args {
			if !strings.Contains(args, " "+word(k)+"=") {
				t.Fatalf("%s line %d: text %q lacks argument %s=%s", what, i, l, k, v)
			}
		}
		if strings.Contains(l, `\u003c`) || strings.Contains(l, `\u003e`) {
			t.Fatalf("%s line %d: HTML-escaped text %q", what, i, l)
		}
	}
}

func word(s string) string {
	b, _ := json.Marshal(s)
	if s == "" || strings.ContainsAny(s, " \"[]|=\\\t\n") {
		return strings.ReplaceAll(strings.ReplaceAll(string(b), `\u003c`, "<"), `\u003e`, ">")
	}
	return s
}

// vectorInputs are vectors of the four event formats.
var vectorInputs = []struct {
	format string
	path   []string
}{
	{"dial9", []string{"v0.2.0", "02_all_field_types.bin"}},
	{"dial9", []string{"v0.2.0", "06_multi_schema.bin"}},
	{"atf", []string{"normal", "session_20250101_120000"}},
	{"atf", []string{"crash_flushed", "session_20250101_120500"}},
	{"atf", []string{"normal", "session_20250101_120000", "pid_12345", "thread_1", "index.atf"}},
	{"cdt", []string{"v7_tiny_3ticks_chunk2.cdt"}},
	{"wtf", []string{"det_resources.wtf-trace"}},
	{"wtf", []string{"api_public.wtf-trace"}},
}

// TestTextAndJSONSameRecords pins the contract of Dump: text and JSON give
// the same records in the same order, with and without filters, for every
// event format.
func TestTextAndJSONSameRecords(t *testing.T) {
	from := &inspect.Time{Value: 1}
	for _, v := range vectorInputs {
		p := vectortest.Path(t, v.format, v.path...)
		for _, f := range []inspect.Filter{{}, {From: from}} {
			text, jsonl := dumpBoth(t, p, f)
			sameRecords(t, p, text, jsonl)
		}
	}
	// Generated: polls on workers, an ATF session of several threads.
	dir := t.TempDir()
	d9 := filepath.Join(dir, "t.dial9.bin")
	var buf bytes.Buffer
	if err := tracegen.Dial9(&buf, 1_000_000_000, 300); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(d9, buf.Bytes(), 0o644)
	session, err := tracegen.ATFSession(filepath.Join(dir, "atf"), 3, 40)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		f    inspect.Filter
		min  int
	}{
		{d9, inspect.Filter{}, 1200},
		{d9, inspect.Filter{Type: "poll"}, 600},
		{d9, inspect.Filter{Type: "PollStartEvent"}, 300},
		{d9, inspect.Filter{Thread: "2"}, 100},
		{session, inspect.Filter{}, 240},
		{session, inspect.Filter{Type: "call"}, 120},
		{session, inspect.Filter{Thread: "1"}, 80},
	} {
		text, jsonl := dumpBoth(t, tc.path, tc.f)
		if len(text) < tc.min {
			t.Errorf("%s %+v: %d lines, want at least %d", tc.path, tc.f, len(text), tc.min)
		}
		sameRecords(t, tc.path, text, jsonl)
	}
}

// TestFilterSelects checks what each filter keeps on generated traces.
func TestFilterSelects(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := tracegen.Dial9(&buf, 1_000_000_000, 100); err != nil {
		t.Fatal(err)
	}
	d9 := filepath.Join(dir, "t.dial9.bin")
	os.WriteFile(d9, buf.Bytes(), 0o644)
	session, err := tracegen.ATFSession(filepath.Join(dir, "atf"), 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	check := func(path string, f inspect.Filter, keep func(ev map[string]any) bool) {
		t.Helper()
		all, _ := dumpBoth(t, path, inspect.Filter{})
		_, jsonAll := dumpBoth(t, path, inspect.Filter{})
		_, got := dumpBoth(t, path, f)
		var want []string
		for _, l := range jsonAll {
			var ev map[string]any
			json.Unmarshal([]byte(l), &ev)
			if keep(ev) {
				want = append(want, l)
			}
		}
		if len(want) == 0 || len(want) == len(all) || strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("%s %+v: %d of %d lines, want %d (a proper subset)", path, f, len(got), len(all), len(want))
		}
	}
	num := func(ev map[string]any, k string) float64 { v, _ := ev[k].(float64); return v }
	rec := func(ev map[string]any, k string) any { return ev["record"].(map[string]any)[k] }
	check(d9, inspect.Filter{Type: "poll"}, func(ev map[string]any) bool { return ev["name"] == "poll" })
	check(d9, inspect.Filter{Type: "PollEndEvent"}, func(ev map[string]any) bool { return rec(ev, "type") == "PollEndEvent" })
	check(d9, inspect.Filter{Thread: "1"}, func(ev map[string]any) bool { return ev["track_kind"] == "worker" && num(ev, "track") == 1 })
	from, to := &inspect.Time{Value: 1_000_050_000}, &inspect.Time{Value: 1_000_090_000}
	check(d9, inspect.Filter{From: from, To: to}, func(ev map[string]any) bool {
		return ev["ts_ns"] != nil && num(ev, "ts_ns") >= 1_000_050_000 && num(ev, "ts_ns") <= 1_000_090_000
	})
	check(session, inspect.Filter{Type: "return"}, func(ev map[string]any) bool { return rec(ev, "kind") == "RETURN" })
	check(session, inspect.Filter{Thread: "thread_2"}, func(ev map[string]any) bool { return rec(ev, "thread_id") == 2.0 })
}

func TestAppendTextQuotesAndDoesNotEscapeHTML(t *testing.T) {
	p := vectortest.Path(t, "wtf", "api_public.wtf-trace")
	r, err := events.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var line []byte
	seen := false
	for r.Next() {
		line = inspect.AppendText(line[:0], r.Event())
		if strings.Contains(string(line), `begin "in worker zone" ["Worker Zone"] chunk=1 offset=4360`) {
			seen = true
		}
	}
	if !seen {
		t.Error("no scope line with a quoted name and track")
	}
	var buf bytes.Buffer
	d, err := events.Open(vectortest.Path(t, "dial9", "v0.2.0", "02_all_field_types.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	inspect.Dump(&buf, d, inspect.DumpOptions{})
	if !strings.Contains(buf.String(), `f_string="héllo ✓ 日本 🦀"`) {
		t.Errorf("unicode text escaped:\n%s", buf.String())
	}
}

func TestDumpProgressAndInterrupt(t *testing.T) {
	var buf bytes.Buffer
	if err := tracegen.Dial9(&buf, 1, 20_000); err != nil {
		t.Fatal(err)
	}
	r, err := events.OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var calls []int64
	n, err := inspect.Dump(&bytes.Buffer{}, r, inspect.DumpOptions{Progress: func(read int64) error { calls = append(calls, read); return nil }})
	if err != nil || n != 80_000 || len(calls) != 80_000/inspect.ProgressEvery+1 || calls[len(calls)-1] != 80_000 {
		t.Errorf("n %d err %v progress calls %v", n, err, calls)
	}
	r, _ = events.OpenBytes(buf.Bytes())
	stop := errors.New("stop")
	n, err = inspect.Dump(&bytes.Buffer{}, r, inspect.DumpOptions{Progress: func(int64) error { return stop }})
	if !errors.Is(err, stop) || n != inspect.ProgressEvery-1 {
		t.Errorf("interrupted dump: %d lines, %v", n, err)
	}
}

func TestAppendTextAllocatesNothing(t *testing.T) {
	var buf bytes.Buffer
	if err := tracegen.Dial9(&buf, 1, 500); err != nil {
		t.Fatal(err)
	}
	r, err := events.OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	line := make([]byte, 0, 4096)
	for range 100 { // warm-up: names and tracks seen
		r.Next()
	}
	m, _ := inspect.Filter{Type: "poll", From: &inspect.Time{Value: 1}}.Compile(r.Format())
	if n := testing.AllocsPerRun(200, func() {
		if !r.Next() {
			t.Fatal("out of events")
		}
		m.Match(r.Event())
		line = inspect.AppendText(line[:0], r.Event())
	}); n != 0 {
		t.Errorf("%.1f allocations per event", n)
	}
}

// TestScanAgreesWithDump: Stats computed from the JSON dump's lines (every
// line an event; times of the timed, non-metadata ones) equal Scan's.
func TestScanAgreesWithDump(t *testing.T) {
	for _, v := range vectorInputs {
		p := vectortest.Path(t, v.format, v.path...)
		_, jsonl := dumpBoth(t, p, inspect.Filter{})
		want := inspect.Stats{Events: int64(len(jsonl))}
		lastOn := map[string]int64{} // by track kind and id
		for _, l := range jsonl {
			var ev struct {
				Kind      string `json:"kind"`
				TS        *int64 `json:"ts_ns"`
				TrackKind string `json:"track_kind"`
				Track     uint64 `json:"track"`
			}
			json.Unmarshal([]byte(l), &ev)
			if ev.TS == nil || ev.Kind == "metadata" {
				continue
			}
			tk := fmt.Sprint(ev.TrackKind, ev.Track)
			if p, ok := lastOn[tk]; ok && *ev.TS < p {
				want.Backwards++
			}
			lastOn[tk] = *ev.TS
			if !want.Timed {
				want.First, want.Min, want.Max = *ev.TS, *ev.TS, *ev.TS
			}
			want.Timed, want.Last = true, *ev.TS
			want.Min, want.Max = min(want.Min, *ev.TS), max(want.Max, *ev.TS)
		}
		r, err := events.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := inspect.Scan(r, nil)
		want.Recovered = r.Recovered()
		r.Close()
		if err != nil || got != want {
			t.Errorf("%s: Scan = %+v, %v; want %+v", p, got, err, want)
		}
	}
}
