package chromeexport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// convertCTF converts trace folder dir and returns the document, the
// Result and the thread names by tid.
func convertCTF(t *testing.T, dir string) (traceDoc, Result, map[uint64]string) {
	t.Helper()
	var buf bytes.Buffer
	res, err := Convert(context.Background(), &buf, dir)
	if err != nil {
		t.Fatal(err)
	}
	d := parseDoc(t, buf.Bytes())
	names := map[uint64]string{}
	for _, e := range d.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			var a struct{ Name string }
			if err := json.Unmarshal(e.Args, &a); err != nil {
				t.Fatal(err)
			}
			names[e.Tid] = a.Name
		}
	}
	return d, res, names
}

// describe lists the B, E and i events of d as "ph name @ts on thread".
func describe(d traceDoc, names map[uint64]string) []string {
	var out []string
	for _, e := range d.TraceEvents {
		if e.Ph == "B" || e.Ph == "E" || e.Ph == "i" {
			out = append(out, fmt.Sprintf("%s %s @%.3f on %s", e.Ph, e.Name, *e.Ts, names[e.Tid]))
		}
	}
	return out
}

// TestConvertCTFSyscallSlices: an LTTng kernel trace's system calls are
// B/E slices on their thread's track (named by its comm) — across a CPU migration in the
// middle of a read, nested in another thread's — which speedscope draws;
// an exit without entry and the system calls before a CPU's first
// sched_switch are instants; the rest stays on the CPU tracks.
func TestConvertCTFSyscallSlices(t *testing.T) {
	dir := t.TempDir()
	s := ctfgen.Spec{Domain: "kernel", Classes: []ctfgen.Class{
		ctfgen.SchedSwitch,
		ctfgen.SyscallEntry("read", ctfgen.Field{Name: "fd", Kind: ctfgen.S32}), ctfgen.SyscallExit("read"),
		ctfgen.SyscallEntry("futex"), ctfgen.SyscallExit("futex"),
	}}
	sw := func(cpu int, ts uint64, prev, next int, comm string) ctfgen.Record {
		return ctfgen.Record{CPU: cpu, Class: 0, TS: ts, Values: []any{"p", prev, 20, 0, comm, next, 20}}
	}
	rec := func(cpu, class int, ts uint64, v ...any) ctfgen.Record {
		return ctfgen.Record{CPU: cpu, Class: class, TS: ts, Values: v}
	}
	recs := []ctfgen.Record{
		rec(0, 1, 1000, 3), // CPU 0's thread unknown yet
		sw(0, 2000, 0, 42, "bash"),
		rec(0, 1, 3000, 4),
		sw(0, 4000, 42, 7, "kworker/0:1"),
		rec(0, 3, 5000),
		sw(1, 6000, 0, 42, "bash"), // 42 resumes on CPU 1, in its read
		rec(0, 4, 7000, 0),
		rec(1, 2, 8000, 10),
		rec(1, 4, 9000, -11), // an exit without entry
	}
	if err := ctfgen.WriteRecords(dir, s, recs); err != nil {
		t.Fatal(err)
	}
	d, res, names := convertCTF(t, dir)
	got := describe(d, names)
	want := []string{
		"i syscall_entry_read @0.000 on cpu 0",
		"i sched_switch @1.000 on cpu 0",
		"i sched_switch @3.000 on cpu 0",
		"B read @2.000 on bash",
		"i sched_switch @5.000 on cpu 1",
		"B futex @4.000 on kworker/0:1",
		"E futex @6.000 on kworker/0:1",
		"E read @7.000 on bash",
		"i futex @8.000 on bash",
	}
	// (a B is written once its slice is known to last: compared as sets)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Slices != 2 || res.Instants != 5 {
		t.Errorf("Result: %d slices, %d instants", res.Slices, res.Instants)
	}
	checkSpeedscope(t, "kernel", d)
	drawn := 0
	for _, th := range speedscope(d) {
		drawn += len(th.Slices)
	}
	if drawn != 2 {
		t.Errorf("speedscope draws %d slices, want 2", drawn)
	}
}

// TestConvertCTFFunctionSlices: liblttng-ust-cyg-profile's entries and
// exits are nested B/E slices named by the address on the track of their
// vtid, which speedscope draws as frames of those names.
func TestConvertCTFFunctionSlices(t *testing.T) {
	dir := t.TempDir()
	s := ctfgen.Spec{Domain: "ust", Context: []ctfgen.Field{{Name: "vtid", Kind: ctfgen.S32}, {Name: "procname", Kind: ctfgen.Comm}},
		Classes: []ctfgen.Class{ctfgen.FuncEntry, ctfgen.FuncExit}}
	var recs []ctfgen.Record
	ts := uint64(1000)
	call := func(cpu, tid, class int, addr int64) {
		recs = append(recs, ctfgen.Record{CPU: cpu, Class: class, TS: ts, Context: []any{tid, "app"}, Values: []any{addr, int64(0x400000)}})
		ts += 1000
	}
	call(0, 11, 0, 0x401000) // main
	call(0, 11, 0, 0x402000) // f
	call(1, 12, 0, 0x403000) // another thread's g
	call(1, 11, 1, 0x402000) // f returns, on CPU 1
	call(0, 12, 1, 0x403000)
	call(1, 11, 0, 0x404000) // h
	call(1, 11, 1, 0x404000)
	call(1, 11, 1, 0x401000)
	if err := ctfgen.WriteRecords(dir, s, recs); err != nil {
		t.Fatal(err)
	}
	d, res, names := convertCTF(t, dir)
	if res.Slices != 4 || res.Instants != 0 {
		t.Errorf("Result: %d slices, %d instants", res.Slices, res.Instants)
	}
	checkSpeedscope(t, "ust", d)
	var frames []string
	for tid, th := range speedscope(d) {
		for _, sl := range th.Slices {
			frames = append(frames, fmt.Sprintf("%s/%d: %s@%d %.0f..%.0f", names[tid], tid, sl.Name, sl.Depth, sl.Start, sl.End))
		}
	}
	slices.Sort(frames)
	want := []string{
		"app/11: 0x401000@0 0..7",
		"app/11: 0x402000@1 1..3",
		"app/11: 0x404000@1 5..6",
		"app/12: 0x403000@0 0..2",
	}
	if !slices.Equal(frames, want) {
		t.Errorf("speedscope draws\n%s\nwant\n%s", strings.Join(frames, "\n"), strings.Join(want, "\n"))
	}
}

// TestConvertCTFRealCalls converts Trace Compass's LTTng test traces that
// hold function or system calls, when present (TRACECOMPASS_CTF, default
// /tmp/ctfaudit5/tc/ctf/src/main/resources), and checks that speedscope
// draws the slices the export writes.
func TestConvertCTFRealCalls(t *testing.T) {
	root := os.Getenv("TRACECOMPASS_CTF")
	if root == "" {
		root = "/tmp/ctfaudit5/tc/ctf/src/main/resources"
	}
	for _, name := range []string{"cyg-profile/glxgears-cyg-profile", "cyg-profile/glxgears-cyg-profile-fast", "bug446190", "many-threads", "context-switches/context-switches-ust"} {
		dir := filepath.Join(root, name)
		if _, err := os.Stat(filepath.Join(dir, "metadata")); err != nil {
			t.Logf("%s: absent", name)
			continue
		}
		d, res, _ := convertCTF(t, dir)
		if res.Slices == 0 {
			t.Errorf("%s: no slice", name)
		}
		checkSpeedscope(t, name, d)
		t.Logf("%s: %d slices, %d instants, %d threads", name, res.Slices, res.Instants, res.Threads)
	}
}
