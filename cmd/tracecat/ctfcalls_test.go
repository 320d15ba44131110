package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// TestCTFChromeCallSlices: convert --to chrome of an LTTng kernel trace
// writes its system calls as B/E slices on their threads' tracks (what
// speedscope draws) and does not warn; dump keeps every record an instant
// on its CPU's track.
func TestCTFChromeCallSlices(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "kernel")
	s := ctfgen.Spec{Domain: "kernel", Classes: []ctfgen.Class{ctfgen.SchedSwitch, ctfgen.SyscallEntry("openat"), ctfgen.SyscallExit("openat")}}
	recs := []ctfgen.Record{
		{CPU: 0, Class: 0, TS: 100, Values: []any{"swapper/0", 0, 20, 0, "cat", 9, 20}},
		{CPU: 0, Class: 1, TS: 200},
		{CPU: 0, Class: 2, TS: 300, Values: []any{3}},
	}
	if err := ctfgen.WriteRecords(p, s, recs); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	if code, _, errb := run(t, nil, "convert", "--to", "chrome", p, out); code != exitOK || errb != "" {
		t.Fatalf("exit %d, stderr %q", code, errb)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name, Ph string
			Tid      uint64
			Args     map[string]any
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			got = append(got, e.Args["name"].(string))
		case "B", "E":
			got = append(got, e.Ph+" "+e.Name)
			if e.Tid != 9 {
				t.Errorf("%s %s on tid %d", e.Ph, e.Name, e.Tid)
			}
		}
	}
	// (the names of OS threads and processes come last: their latest)
	want := "[cpu 0 B openat E openat cat CTF streams cat]"
	if g := fmt.Sprint(got); g != want {
		t.Errorf("got %s, want %s", g, want)
	}
	code, dump, errb := run(t, nil, "dump", "--json", p)
	if code != exitOK {
		t.Fatal(errb)
	}
	var n int
	dec := json.NewDecoder(strings.NewReader(dump))
	for dec.More() {
		var e struct {
			Kind      string
			TrackName string `json:"track_name"`
		}
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		if e.Kind != "instant" || e.TrackName != "cpu 0" {
			t.Errorf("dump: %+v", e)
		}
		n++
	}
	if n != 3 {
		t.Errorf("dump: %d events", n)
	}
}
