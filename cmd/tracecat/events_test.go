package main

import (
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/evschema"
	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// eventVectors lists every vector file and trace folder the event layer
// reads without error, with its format.
func eventVectors(t *testing.T) map[string]string {
	root := filepath.Dir(vectortest.Dir(t, "dial9"))
	found := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root || sidecar(d.Name()) {
			return err
		}
		if d.IsDir() && !events.DetectDir(p).Known() {
			return nil
		}
		r, err := events.Open(p)
		if err != nil {
			return nil
		}
		for r.Next() {
		}
		if r.Err() == nil {
			found[p] = r.Format()
		}
		r.Close()
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	return found
}

// TestDumpJSONSchemaOnEveryVector: every line dump --json prints for an
// event format holds the documented schema.
func TestDumpJSONSchemaOnEveryVector(t *testing.T) {
	per := map[string]int{}
	for p, format := range eventVectors(t) {
		code, out, errOut := run(t, nil, "dump", "--json", p)
		if code != exitOK {
			t.Errorf("%s: exit %d: %s", p, code, errOut)
			continue
		}
		for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if line == "" && i == 0 {
				break // no events
			}
			l, err := evschema.Check([]byte(line))
			if err != nil {
				t.Fatalf("%s: line %d: %v", p, i+1, err)
			}
			if l.Format != format {
				t.Fatalf("%s: line %d: format %q", p, i+1, l.Format)
			}
			per[format]++
		}
	}
	for _, f := range []string{"cdt", "dial9", "atf", "wtf"} {
		if per[f] == 0 {
			t.Errorf("no %s lines checked", f)
		}
	}
	t.Logf("lines checked: %v", per)
}

// codecStats is what each codec says on its own about a vector: the event
// count and the extremes of the times, in ns.
func codecStats(t *testing.T, p, format string) (n int64, lo, hi int64, timed bool) {
	t.Helper()
	lo, hi = math.MaxInt64, math.MinInt64
	see := func(ts int64) { lo, hi, timed = min(lo, ts), max(hi, ts), true }
	switch format {
	case "dial9":
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := dial9.NewBytesReader(b, dial9.WithAnyVersion())
		if err != nil {
			t.Fatal(err)
		}
		for d.Next() {
			n++
			if ev := d.Event(); ev.HasTimestamp() {
				see(int64(min(ev.Timestamp(), math.MaxInt64))) // the event layer saturates
			}
		}
	case "atf":
		var s *atf.Session
		if fi, _ := os.Stat(p); fi.IsDir() {
			var err error
			if s, err = atf.OpenSession(p); err != nil {
				t.Fatal(err)
			}
		} else {
			ix, err := atf.OpenIndexFile(p)
			if err != nil {
				t.Fatal(err)
			}
			s = &atf.Session{Threads: []*atf.Thread{atf.NewThread(0, ix, nil)}}
		}
		defer s.Close()
		for e, err := range s.Merge().All() {
			if err != nil {
				t.Fatal(err)
			}
			n++
			see(int64(e.Timestamp))
		}
	case "ctf": // a trace folder's data streams, each read on its own
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() {
			break
		}
		if names, _, _ := ctf.DataStreamFiles(p); len(names) == 0 {
			break
		}
		tr, err := ctf.OpenDir(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range tr.Streams {
			for s.Next() {
				n++
				if s.Packet().Class.Clock != nil {
					see(s.Event().NS())
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
		}
	case "wtf":
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src, err := wtfcff.NewBytesReader(b, wtfcff.WithRecovery())
		if err != nil {
			t.Fatal(err)
		}
		for e, err := range wtfcff.Events(src) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if !e.IsInternal() {
				see(int64(e.Time) * 1000)
			}
		}
	case "cdt":
		f, err := cdt.OpenFile(p, cdt.WithRecovery())
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for rec, err := range schema7.AllRecords(f) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			see(int64(rec.ElapsedMs) * 1_000_000)
		}
	}
	return n, lo, hi, timed
}

// TestStatsEventKeysEqualTheCodecs: on every vector of the event formats,
// stats' events, min_ns and max_ns (read through the event layer) equal what
// the codec reads on its own, and the format's own count and time keys
// agree with them.
func TestStatsEventKeysEqualTheCodecs(t *testing.T) {
	checked := map[string]int{}
	for p, format := range eventVectors(t) {
		code, out, errOut := run(t, nil, "stats", "--json", p)
		if code != exitOK {
			if format == "atf" && strings.Contains(p, "detail") {
				continue
			}
			t.Errorf("%s: exit %d: %s", p, code, errOut)
			continue
		}
		var st map[string]any
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		n, lo, hi, timed := codecStats(t, p, format)
		num := func(k string) float64 { v, _ := st[k].(float64); return v }
		if num("events") != float64(n) {
			t.Errorf("%s: events %v, codec %d", p, st["events"], n)
		}
		if !timed {
			if st["min_ns"] != nil || st["max_ns"] != nil || st["first_ns"] != nil {
				t.Errorf("%s: times without timed events: %s", p, out)
			}
			checked[format]++
			continue
		}
		if num("min_ns") != float64(lo) || num("max_ns") != float64(hi) {
			t.Errorf("%s: min_ns %v max_ns %v, codec %d %d", p, st["min_ns"], st["max_ns"], lo, hi)
		}
		if num("first_ns") < num("min_ns") || num("last_ns") > num("max_ns") {
			t.Errorf("%s: first/last outside min/max: %s", p, out)
		}
		switch format {
		case "cdt":
			if num("ticks") != float64(n) {
				t.Errorf("%s: ticks %v, events %d", p, st["ticks"], n)
			}
		case "wtf": // first_us/last_us are the reference database's extremes
			if num("first_us")*1000 != float64(lo) || num("last_us")*1000 != float64(hi) {
				t.Errorf("%s: first_us/last_us %v %v vs min_ns/max_ns %d %d", p, st["first_us"], st["last_us"], lo, hi)
			}
		}
		checked[format]++
	}
	for _, f := range []string{"cdt", "dial9", "atf", "wtf", "ctf"} {
		if checked[f] == 0 {
			t.Errorf("no %s vector checked", f)
		}
	}
	t.Logf("checked: %v", checked)
}
