package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// TestDumpTextAndJSONSameRecords runs dump and dump --json on every event
// format's sample and a few vectors, with and without filters: the same
// number of lines, and line i of the text starts with the time and kind of
// JSON line i.
func TestDumpTextAndJSONSameRecords(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, f := range []string{"cdt", "dial9", "atf", "wtf"} {
		p := filepath.Join(dir, sampleName[f])
		if code, _, errOut := run(t, nil, "sample", f, p); code != exitOK {
			t.Fatalf("sample %s: %s", f, errOut)
		}
		paths = append(paths, p)
	}
	paths = append(paths, vectortest.Path(t, "atf", atfNormal), vectortest.Path(t, "wtf", "api_public.wtf-trace"))
	for _, p := range paths {
		for _, flags := range [][]string{nil, {"--from", "1ns"}, {"--to", "1s"}} {
			args := append(append([]string{"dump"}, flags...), p)
			code, text, errOut := run(t, nil, args...)
			codeJ, jsonl, errJ := run(t, nil, append([]string{"dump", "--json"}, args[1:]...)...)
			if code != exitOK || codeJ != exitOK {
				t.Fatalf("%v: exit %d/%d: %s %s", args, code, codeJ, errOut, errJ)
			}
			tl, jl := strings.Split(text, "\n"), strings.Split(jsonl, "\n")
			if len(tl) != len(jl) {
				t.Fatalf("%v: %d text lines, %d JSON lines", args, len(tl), len(jl))
			}
			for i := range len(tl) - 1 {
				var ev struct {
					Kind string `json:"kind"`
					TS   *int64 `json:"ts_ns"`
				}
				if err := json.Unmarshal([]byte(jl[i]), &ev); err != nil {
					t.Fatalf("%v line %d: %v", args, i, err)
				}
				ts := "-"
				if ev.TS != nil {
					ts = strconv.FormatInt(*ev.TS, 10)
				}
				if !strings.HasPrefix(tl[i], ts+" "+ev.Kind+" ") {
					t.Fatalf("%v line %d: text %q, JSON %s", args, i, tl[i], jl[i])
				}
			}
		}
	}
}

// TestDumpFlagsWorkOrAreRefused: each flag either selects on every format
// or exits 2 with a reason, never silently ignored.
func TestDumpFlagsWorkOrAreRefused(t *testing.T) {
	dir := t.TempDir()
	d9 := filepath.Join(dir, "s.dial9.bin")
	cdtPath := filepath.Join(dir, "s.cdt")
	run(t, nil, "sample", "dial9", d9)
	run(t, nil, "sample", "cdt", cdtPath)
	_, all, _ := run(t, nil, "dump", d9)
	code, one, errOut := run(t, nil, "dump", "--thread", "1", d9)
	if code != exitOK || one == "" || strings.Count(one, "\n") >= strings.Count(all, "\n") || strings.Count(one, `["worker 1"]`) != strings.Count(one, "\n") {
		t.Errorf("dial9 --thread 1: exit %d %s\n%s", code, errOut, one)
	}
	_, polls, _ := run(t, nil, "dump", "--type", "poll", d9)
	_, pollsJ, _ := run(t, nil, "dump", "--json", "--type", "poll", d9)
	if n := strings.Count(polls, "\n"); n == 0 || n != strings.Count(pollsJ, "\n") {
		t.Errorf("--type poll: %d text lines, %d JSON lines", n, strings.Count(pollsJ, "\n"))
	}
	for _, args := range [][]string{
		{"dump", "--from", "tick:3", d9},
		{"dump", "--from", "index:3", d9},
		{"dump", "--thread", "1", cdtPath},
		{"dump", "--from", "1.5", d9},
		{"dump", "--from", "5parsecs", d9},
		{"merge", "--from", "tick:1", vectortest.Path(t, "atf", atfNormal)},
	} {
		if code, _, errOut := run(t, nil, args...); code != exitUsage || !strings.Contains(errOut, "usage:") {
			t.Errorf("%v: exit %d %q, want 2 and the usage", args, code, errOut)
		}
	}
	// Ticks and ns both select CDT rows.
	_, byTick, _ := run(t, nil, "dump", "--from", "tick:1", "--to", "tick:2", cdtPath)
	if n := strings.Count(byTick, "\n"); n != 2 {
		t.Errorf("cdt tick:1..tick:2: %d lines", n)
	}
}
