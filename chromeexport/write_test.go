package chromeexport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// epoch is a Unix time in ns, as dial9 traces carry them: 1.7·10¹⁸ ns is
// 1.7·10¹⁵ µs, where a float64 keeps only a quarter of a µs.
const epoch = 1_744_964_487_463_123_457

// dial9Trace writes polls on two workers with sub-µs durations, a task id per
// poll (so that arguments differ from slice to slice), polls back to back
// (one ends when the next of the same name begins), zero-duration polls, a
// 64-bit id above 2⁵³, a negative one below −2⁵³ and events without a worker.
func dial9Trace(t testing.TB, polls int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := dial9.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := w.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "task_id", Type: dial9.TypeVarint}})
	end, _ := w.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	span, _ := w.Register("SpanEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "span_id", Type: dial9.TypeVarint}, {Name: "delta", Type: dial9.TypeI64}})
	note, _ := w.Register("NoteEvent", []dial9.FieldDef{{Name: "n", Type: dial9.TypeVarint}})
	ts := uint64(epoch)
	for i := range polls {
		worker := uint64(i % 2)
		if err := w.WriteUints(start, ts, worker, 100+uint64(i)); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			if err := w.Begin(span, ts).Varint(worker).Varint(1<<60 + uint64(i)).I64(-(1<<62 + int64(i))).End(); err != nil {
				t.Fatal(err)
			}
		}
		d := uint64(500 + (i/2*37)%600) // 500..1 099 ns, the same for both polls of a pair
		if i%7 == 3 {
			d = 0
		}
		if err := w.WriteUints(end, ts+d, worker); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 { // the next polls begin when these end, or 1 or 2 ns later
			ts += uint64(500+(i/2*37)%600) + uint64(i/2%3)
		}
	}
	if err := w.WriteUints(note, ts+5, 7); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func convertBytes(t testing.TB, b []byte, opts ...Option) ([]byte, Result) {
	t.Helper()
	r, err := events.OpenBytes(b, events.WithScopeData())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	res, err := Write(context.Background(), &out, r, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), res
}

func convertPath(t testing.TB, path string, opts ...Option) []byte {
	t.Helper()
	var out bytes.Buffer
	if _, err := Convert(context.Background(), &out, path, opts...); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out.Bytes()
}

// checkFrames: no B or X carries args (speedscope keys frames by name + args,
// so each name is one frame); every E that ends later than its B carries args
// (so that speedscope never takes it for the B of the same name at its time)
// and every E at its B's time carries none (so that speedscope opens the B
// first); B/E balance per thread, each E named as its B and not earlier.
func checkFrames(t testing.TB, what string, d traceDoc) {
	t.Helper()
	type open struct {
		name string
		ts   float64
	}
	stacks := map[[2]uint64][]open{}
	keys := map[string]map[string]bool{}
	for i, e := range d.TraceEvents {
		if e.Ph != "M" && e.Ts == nil {
			t.Fatalf("%s: event %d (%s) has no ts", what, i, e.Ph)
		}
		k := [2]uint64{e.Pid, e.Tid}
		switch e.Ph {
		case "B", "X":
			if e.Args != nil {
				t.Fatalf("%s: event %d: %s %q has args %s: speedscope would make a frame of them", what, i, e.Ph, e.Name, e.Args)
			}
			if keys[e.Name] == nil {
				keys[e.Name] = map[string]bool{}
			}
			keys[e.Name][frameKey(&d.TraceEvents[i])] = true
			if e.Ph == "B" {
				stacks[k] = append(stacks[k], open{e.Name, *e.Ts})
			}
		case "E":
			st := stacks[k]
			if len(st) == 0 {
				t.Fatalf("%s: event %d: E %q with nothing open on tid %d", what, i, e.Name, e.Tid)
			}
			top := st[len(st)-1]
			stacks[k] = st[:len(st)-1]
			if e.Name != top.name || *e.Ts < top.ts {
				t.Fatalf("%s: event %d: E %q at %v closes B %q at %v", what, i, e.Name, *e.Ts, top.name, top.ts)
			}
			if (*e.Ts > top.ts) != (e.Args != nil) {
				t.Fatalf("%s: event %d: E %q at %v (B at %v) with args %s", what, i, e.Name, *e.Ts, top.ts, e.Args)
			}
		}
	}
	for k, st := range stacks {
		if len(st) > 0 {
			t.Errorf("%s: tid %d: %d slices left open", what, k[1], len(st))
		}
	}
	for name, ks := range keys {
		if len(ks) != 1 {
			t.Errorf("%s: %q is %d frames in speedscope", what, name, len(ks))
		}
	}
}

// TestOneFramePerName: 400 polls with 400 task ids are one frame "poll", and
// speedscope draws every slice where the export puts it.
func TestOneFramePerName(t *testing.T) {
	out, _ := convertBytes(t, dial9Trace(t, 400))
	d := parseDoc(t, out)
	checkFrames(t, "dial9", d)
	checkSpeedscope(t, "dial9", d)
	var polls, withTask int
	for _, e := range d.TraceEvents {
		if e.Name == "poll" && (e.Ph == "B" || e.Ph == "i") {
			polls++
		}
		if e.Name == "poll" && (e.Ph == "E" || e.Ph == "i") && bytes.Contains(e.Args, []byte(`"task_id":`)) {
			withTask++
		}
	}
	if polls != 400 || withTask != 400 {
		t.Errorf("%d polls, %d with their task id, want 400 and 400", polls, withTask)
	}
}

// TestZeroDuration: a zero-duration poll is one instant with its fields; its
// neighbours are untouched.
func TestZeroDuration(t *testing.T) {
	out, _ := convertBytes(t, dial9Trace(t, 8))
	d := parseDoc(t, out)
	var instants []string
	for _, e := range d.TraceEvents {
		if e.Name == "poll" && e.Ph == "i" {
			instants = append(instants, string(e.Args))
		}
	}
	if len(instants) != 1 || instants[0] != `{"worker_id":1,"task_id":103}` {
		t.Errorf("zero-duration polls as instants: %q", instants)
	}
}

// TestZeroDurationWithChildren: an ATF call that returns at its own time, and
// the calls inside it, are instants; a call whose return is earlier than a
// call inside it (time goes back) is B, E at its begin without args, and an
// instant with its arguments. speedscope draws the rest where it is.
func TestZeroDurationWithChildren(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pid_9")
	sw, err := atf.CreateSessionDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	sw.SetSymbols(nil, []atf.Symbol{{FunctionID: 1, Name: "outer"}, {FunctionID: 2, Name: "inner"}, {FunctionID: 3, Name: "next"}})
	tw, _ := sw.Thread(0)
	tw.Write(1000, 1, atf.KindCall, 1, nil)
	tw.Write(1000, 2, atf.KindCall, 2, nil)
	tw.Write(1000, 2, atf.KindReturn, 2, nil)
	tw.Write(1000, 1, atf.KindReturn, 1, nil)
	tw.Write(1000, 3, atf.KindCall, 1, nil)
	tw.Write(2000, 3, atf.KindReturn, 1, nil)
	tw.Write(3000, 1, atf.KindCall, 1, nil)
	tw.Write(4000, 2, atf.KindCall, 2, nil)
	tw.Write(4500, 2, atf.KindReturn, 2, nil)
	tw.Write(2500, 1, atf.KindReturn, 1, nil)
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	d := parseDoc(t, convertPath(t, dir))
	checkFrames(t, "atf", d)
	checkSpeedscope(t, "atf", d)
	var seq []string
	for _, e := range d.TraceEvents {
		if e.Ph != "M" {
			seq = append(seq, e.Ph+" "+e.Name+" "+strconv.FormatFloat(*e.Ts, 'f', 3, 64)+" "+string(e.Args))
		}
	}
	want := []string{
		`i inner 0.000 {"function_id":2,"depth":2}`,
		`i outer 0.000 {"function_id":1,"depth":1}`,
		"B next 0.000 ",
		`E next 1.000 {"function_id":3,"depth":1}`,
		"B outer 2.000 ",
		"B inner 3.000 ",
		`E inner 3.500 {"function_id":2,"depth":2}`,
		"E outer 2.000 ",
		`i outer 2.000 {"function_id":1,"depth":1}`,
	}
	if strings.Join(seq, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(seq, "\n"), strings.Join(want, "\n"))
	}
	if d.OtherData["time_base_ns"] != "1000" {
		t.Errorf("otherData %v", d.OtherData)
	}
}

// TestTimestampsExact: ts parsed as a float64 (as a JavaScript viewer does),
// times 1000 and rounded, plus otherData.time_base_ns, gives every event's time
// in ns exactly, for epoch-scale ns times and sub-µs slices.
func TestTimestampsExact(t *testing.T) {
	trace := dial9Trace(t, 200)
	out, res := convertBytes(t, trace)
	d := parseDoc(t, out)
	base, err := strconv.ParseInt(d.OtherData["time_base_ns"].(string), 10, 64)
	if err != nil || base != epoch || !res.HasTimeBase || res.TimeBase != epoch {
		t.Fatalf("time base %v (%v), result %+v", d.OtherData["time_base_ns"], err, res)
	}
	// The times of the trace's events, in order, per worker.
	r, err := events.OpenBytes(trace)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{}
	for r.Next() {
		ev := r.Event()
		want[ev.Track().Name] = append(want[ev.Track().Name], ev.Time())
	}
	r.Close()
	names := map[uint64]string{}
	got := map[string][]int64{}
	for _, e := range d.TraceEvents {
		if e.Ph == "M" {
			var a struct{ Name string }
			json.Unmarshal(e.Args, &a)
			names[e.Tid] = a.Name
			continue
		}
		ns := base + int64(math.Round(*e.Ts*1000))
		got[names[e.Tid]] = append(got[names[e.Tid]], ns)
		if e.Ph == "i" && e.Name == "poll" { // a zero-duration poll: its begin and end
			got[names[e.Tid]] = append(got[names[e.Tid]], ns)
		}
	}
	if len(want) != 3 {
		t.Fatalf("tracks %v", want)
	}
	for track, w := range want {
		g := got[track]
		// An instant inside a slice is written before the slice's B when
		// they are at the same time.
		slices.Sort(g)
		slices.Sort(w)
		if len(g) != len(w) {
			t.Errorf("%s: %d times, want %d", track, len(g), len(w))
			continue
		}
		for i := range w {
			if g[i] != w[i] {
				t.Fatalf("%s: event %d at %d ns, want %d (%+d)", track, i, g[i], w[i], g[i]-w[i])
			}
		}
	}
	// WithTimeBase moves ts 0.
	out, _ = convertBytes(t, trace, WithTimeBase(epoch-1_000_000))
	d = parseDoc(t, out)
	if d.OtherData["time_base_ns"] != strconv.FormatInt(epoch-1_000_000, 10) {
		t.Errorf("WithTimeBase: otherData %v", d.OtherData)
	}
	for _, e := range d.TraceEvents {
		if e.Ph == "B" {
			if *e.Ts != 1000 {
				t.Errorf("WithTimeBase: first B at %v µs, want 1000", *e.Ts)
			}
			break
		}
	}
}

func TestAppendMicros(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want string
	}{{0, "0.000"}, {1, "0.001"}, {999, "0.999"}, {1000, "1.000"}, {-1, "-0.001"}, {-1500, "-1.500"},
		{math.MaxInt64, "9223372036854775.807"}, {math.MinInt64, "-9223372036854775.808"}} {
		if got := string(appendMicros(nil, c.ns)); got != c.want {
			t.Errorf("appendMicros(%d) = %s, want %s", c.ns, got, c.want)
		}
	}
	x := &writer{base: 10, hasBase: true}
	if x.rel(math.MinInt64+5) != math.MinInt64 || x.rel(15) != 5 {
		t.Errorf("rel does not saturate")
	}
	x.base = -10
	if x.rel(math.MaxInt64-5) != math.MaxInt64 || x.rel(-15) != -5 {
		t.Errorf("rel does not saturate")
	}
}

// TestBigIntegersAsStrings: integers beyond 2⁵³−1 in magnitude are strings
// holding the exact value; smaller ones stay numbers.
func TestBigIntegersAsStrings(t *testing.T) {
	out, _ := convertBytes(t, dial9Trace(t, 10))
	d := parseDoc(t, out)
	found := 0
	for _, e := range d.TraceEvents {
		if e.Name != "SpanEvent" {
			continue
		}
		var a map[string]any
		dec := json.NewDecoder(bytes.NewReader(e.Args))
		dec.UseNumber()
		if err := dec.Decode(&a); err != nil {
			t.Fatal(err)
		}
		id, ok1 := a["span_id"].(string)
		delta, ok2 := a["delta"].(string)
		if _, ok := a["worker_id"].(json.Number); !ok || !ok1 || !ok2 {
			t.Fatalf("span args %s", e.Args)
		}
		n, _ := strconv.ParseUint(id, 10, 64)
		m, _ := strconv.ParseInt(delta, 10, 64)
		if n != 1<<60+uint64(found*5) || m != -(1<<62+int64(found*5)) {
			t.Errorf("span_id %s delta %s", id, delta)
		}
		found++
	}
	if found != 2 {
		t.Errorf("%d span events", found)
	}
	// The ATF vector's function ids (5970758153581625345…) too.
	out = convertPath(t, vectortest.Path(t, "atf", "normal/session_20250101_120000/pid_12345"))
	if !bytes.Contains(out, []byte(`"function_id":"5970758153581625348"`)) || bytes.Contains(out, []byte(`"function_id":5970758153581625348`)) {
		t.Errorf("ATF function ids not written as strings")
	}
}

// TestTids: a dial9 trace's events without a worker and its workers get
// distinct threads, each named with its track's kind and id.
func TestTids(t *testing.T) {
	out, res := convertBytes(t, dial9Trace(t, 4))
	d := parseDoc(t, out)
	names := map[uint64]string{}
	for _, e := range d.TraceEvents {
		if e.Ph == "M" {
			var a struct{ Name, TrackKind, TrackID string }
			json.Unmarshal(bytes.ReplaceAll(e.Args, []byte("track_"), []byte("Track")), &a)
			if _, dup := names[e.Tid]; dup {
				t.Errorf("tid %d named twice", e.Tid)
			}
			names[e.Tid] = a.Name + "/" + a.TrackKind + "/" + a.TrackID
		}
	}
	want := map[uint64]string{0: "worker 0/worker/0", 1: "worker 1/worker/1", 1 << 20: "events without a worker/trace/1048576"}
	if len(names) != len(want) || res.Threads != 3 {
		t.Errorf("threads %v (result %d)", names, res.Threads)
	}
	for tid, n := range want {
		if names[tid] != n {
			t.Errorf("tid %d: %q, want %q", tid, names[tid], n)
		}
	}
	// A taken tid or one beyond 2³¹−1 gets a synthetic one.
	x := &writer{w: bufio.NewWriter(discard{}), threads: map[trackKey]*thread{}, tids: map[uint64]struct{}{}, nextTid: firstSyntheticTid}
	a, _ := x.thread(events.Track{Kind: events.TrackTrace, ID: 0})
	b, _ := x.thread(events.Track{Kind: events.TrackWorker, ID: 0})
	c, _ := x.thread(events.Track{Kind: events.TrackWorker, ID: math.MaxUint64})
	// Perfetto and chrome://tracing read tids as 32-bit signed integers.
	d2, _ := x.thread(events.Track{Kind: events.TrackWorker, ID: 1<<31 - 1})
	e2, _ := x.thread(events.Track{Kind: events.TrackWorker, ID: 1 << 31})
	if a.tid != 0 || b.tid != firstSyntheticTid || c.tid != firstSyntheticTid+1 || d2.tid != 1<<31-1 || e2.tid != firstSyntheticTid+2 {
		t.Errorf("tids %d %d %d %d %d", a.tid, b.tid, c.tid, d2.tid, e2.tid)
	}
}

// TestCDTRendersInSpeedscope: a CDT trace (counters only) is a row of "tick"
// slices, one per tick, which speedscope draws, and its counters C events.
func TestCDTRendersInSpeedscope(t *testing.T) {
	d := parseDoc(t, convertPath(t, vectortest.Path(t, "cdt", "v7_small_300ticks.cdt")))
	checkFrames(t, "cdt", d)
	checkSpeedscope(t, "cdt", d)
	ticks := map[float64]bool{}
	counters := map[string]int{}
	for _, e := range d.TraceEvents {
		switch {
		case e.Name == "tick" && (e.Ph == "E" || e.Ph == "i"):
			var a struct{ Tick float64 }
			json.Unmarshal(e.Args, &a)
			ticks[a.Tick] = true
		case e.Ph == "C":
			counters[e.Name]++
		}
	}
	if len(ticks) != 300 || !ticks[0] || !ticks[299] {
		t.Errorf("%d tick slices", len(ticks))
	}
	if len(counters) != 7 || counters["checkpoint.score_xp"] != 300 {
		t.Errorf("counters %v", counters)
	}
	d = parseDoc(t, convertPath(t, vectortest.Path(t, "cdt", "v7_small_300ticks.cdt"), WithCDTFields("checkpoint.kills")))
	counters = map[string]int{}
	for _, e := range d.TraceEvents {
		if e.Ph == "C" {
			counters[e.Name]++
		}
	}
	if len(counters) != 1 || counters["checkpoint.kills"] != 300 {
		t.Errorf("WithCDTFields: counters %v", counters)
	}
}

// TestEveryVector converts every vector of the four event formats that reads
// cleanly and checks frames, balance and what speedscope would draw.
func TestEveryVector(t *testing.T) {
	root := filepath.Dir(vectortest.Dir(t, "dial9"))
	converted := map[string]int{}
	filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil || p == root || strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".tsv") {
			return err
		}
		if de.IsDir() && !events.DetectDir(p).Known() {
			return nil
		}
		r, err := events.Open(p)
		if err != nil {
			return nil
		}
		format := r.Format()
		for r.Next() {
		}
		clean := r.Err() == nil
		r.Close()
		if !clean {
			return nil
		}
		if strings.Contains(p, "golden") && testing.Short() {
			return nil
		}
		d := parseDoc(t, convertPath(t, p))
		checkFrames(t, p, d)
		checkSpeedscope(t, p, d)
		converted[format]++
		if de.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	for _, f := range []string{"dial9", "atf", "wtf", "cdt"} {
		if converted[f] == 0 {
			t.Errorf("no %s vector converted", f)
		}
	}
	t.Logf("converted: %v", converted)
}

// TestOuterEndClosesInnerSlices: in the ATF vector "normal", thread_1's helper
// throws (an EXCEPTION, then no RETURN of its own) and worker_loop returns at
// 1700 ns. The export ends helper and then worker_loop there, so lib_init
// (called at 1800 ns) is at depth 0 (speedscope showed it nested before).
func TestOuterEndClosesInnerSlices(t *testing.T) {
	d := parseDoc(t, convertPath(t, vectortest.Path(t, "atf", "normal/session_20250101_120000/pid_12345")))
	var seq []string
	for _, e := range d.TraceEvents {
		if e.Tid == 1 && (e.Ph == "B" || e.Ph == "E") {
			closed := ""
			if bytes.Contains(e.Args, []byte(`"closed_by_outer_end":true`)) {
				closed = " closed_by_outer_end"
			}
			seq = append(seq, e.Ph+" "+e.Name+" "+strconv.FormatFloat(*e.Ts, 'f', 3, 64)+closed)
		}
	}
	want := []string{ // µs since the first event (1 000 000 001 000 ns)
		"B worker_loop 0.050",
		"B compute 0.200",
		"E compute 0.400",
		"B helper 0.500",
		"E helper 0.700 closed_by_outer_end",
		"E worker_loop 0.700",
		"B lib_init 0.800",
		"E lib_init 0.900",
	}
	if strings.Join(seq, "\n") != strings.Join(want, "\n") {
		t.Errorf("thread 1:\n%s\nwant\n%s", strings.Join(seq, "\n"), strings.Join(want, "\n"))
	}
	checkSpeedscope(t, "atf", d)
	for _, s := range speedscope(d)[1].Slices {
		if s.Name == "lib_init" && s.Depth != 0 {
			t.Errorf("lib_init at depth %d in speedscope", s.Depth)
		}
	}
}

// TestMaxDepth: begins beyond the depth limit, and their ends, are instants;
// the rest stays balanced.
func TestMaxDepth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pid_3")
	sw, err := atf.CreateSessionDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tw, _ := sw.Thread(0)
	for i := range uint64(5) {
		tw.Write(100+i, 10+i, atf.KindCall, uint32(i+1), nil)
	}
	for i := range uint64(5) {
		tw.Write(200+i, 14-i, atf.KindReturn, uint32(5-i), nil)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	d := parseDoc(t, convertPath(t, dir, WithMaxDepth(2)))
	checkFrames(t, "depth", d)
	ph := map[string]int{}
	for _, e := range d.TraceEvents {
		ph[e.Ph]++
	}
	if ph["B"] != 2 || ph["E"] != 2 || ph["i"] != 6 {
		t.Errorf("phases %v", ph)
	}
}

func TestOptionsAndCancel(t *testing.T) {
	r, err := events.OpenBytes(dial9Trace(t, 4))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, o := range []Option{WithMaxDepth(0), WithCDTFields(), WithCDTFields("")} {
		if _, err := Write(context.Background(), &bytes.Buffer{}, r, o); !errors.Is(err, ErrOption) {
			t.Errorf("option accepted: %v", err)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	cancel(stop)
	if _, err := Write(ctx, &bytes.Buffer{}, r); err != stop {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Convert(context.Background(), &bytes.Buffer{}, filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing input accepted")
	}
}

// TestRecoveryInOtherData: a damaged input's recovery summary is in otherData.
func TestRecoveryInOtherData(t *testing.T) {
	trace := dial9Trace(t, 20)
	out, _ := convertBytes(t, trace[:len(trace)-3])
	d := parseDoc(t, out)
	rec, _ := d.OtherData["recovery"].(map[string]any)
	if rec == nil || rec["format"] != "dial9" || rec["clean"] != false {
		t.Errorf("otherData %v", d.OtherData)
	}
	checkFrames(t, "cut", d)
}

// TestNoAllocsPerEvent: after warm-up, writing more events allocates nothing
// more (the event layer's own allocations included).
func TestNoAllocsPerEvent(t *testing.T) {
	small, big := dial9Trace(t, 1000), dial9Trace(t, 20000)
	allocs := func(b []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			r, err := events.OpenBytes(b)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Write(context.Background(), discard{}, r); err != nil {
				t.Fatal(err)
			}
			r.Close()
		})
	}
	a, b := allocs(small), allocs(big)
	if b-a > 20 {
		t.Errorf("%v allocations for 1000 polls, %v for 20000: they grow with the events", a, b)
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

func BenchmarkWrite(b *testing.B) {
	trace := dial9Trace(b, 20000)
	b.SetBytes(int64(len(trace)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := events.OpenBytes(trace)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Write(context.Background(), discard{}, r); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// TestUntimedEvents: an event without a time (a dial9 schema without
// timestamps) is at its thread's last time, or at ts 0 (the time base) on a
// thread that has none yet — also when it came before the first timed event.
func TestUntimedEvents(t *testing.T) {
	var buf bytes.Buffer
	w, err := dial9.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tag, _ := w.Register("TagEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}}, dial9.WithoutTimestamp())
	start, _ := w.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	end, _ := w.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	for _, step := range []func() error{
		func() error { return w.WriteUints(tag, 0, 5) },
		func() error { return w.WriteUints(start, epoch, 0) },
		func() error { return w.WriteUints(tag, 0, 0) },
		func() error { return w.WriteUints(end, epoch+700, 0) },
		func() error { return w.WriteUints(tag, 0, 5) },
		func() error { return w.Close() },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	d := parseDoc(t, func() []byte { b, _ := convertBytes(t, buf.Bytes()); return b }())
	var tags []float64
	for _, e := range d.TraceEvents {
		if e.Name == "TagEvent" {
			tags = append(tags, *e.Ts)
		}
	}
	if len(tags) != 3 || tags[0] != 0 || tags[1] != 0 || tags[2] != 0 {
		t.Errorf("untimed events at %v µs, want [0 0 0]", tags)
	}
}

// TestTimeBaseSkipsOtherClocks: a dial9 stream that starts with events of no
// worker on another clock (a wall-clock SegmentMetadataEvent at 1.77·10¹⁸ ns,
// a symbol entry at 0, as in the golden demo trace) takes its time base from
// the first worker event, so the polls keep their nanoseconds; those first
// events wait and are written relative to it. With more than maxHeldEvents
// such events first, the base is the first time.
func TestTimeBaseSkipsOtherClocks(t *testing.T) {
	trace := func(before int) []byte {
		var buf bytes.Buffer
		w, err := dial9.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		meta, _ := w.Register("SegmentMetadataEvent", []dial9.FieldDef{{Name: "n", Type: dial9.TypeVarint}})
		start, _ := w.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
		end, _ := w.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
		check := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		check(w.WriteUints(meta, epoch, 1))
		for i := range before {
			check(w.WriteUints(meta, 0, uint64(i)))
		}
		const polls = 1_744_964_487_463_123 // ns: another clock
		check(w.WriteUints(start, polls, 0))
		check(w.WriteUints(end, polls+613, 0))
		check(w.Close())
		return buf.Bytes()
	}
	out, res := convertBytes(t, trace(1))
	d := parseDoc(t, out)
	if res.TimeBase != 1_744_964_487_463_123 || d.OtherData["time_base_ns"] != "1744964487463123" {
		t.Fatalf("time base %d, otherData %v", res.TimeBase, d.OtherData)
	}
	var got []string
	for _, e := range d.TraceEvents {
		if e.Ph != "M" {
			got = append(got, e.Ph+" "+e.Name+" "+strconv.FormatFloat(*e.Ts, 'f', 3, 64))
		}
	}
	far, _ := strconv.ParseFloat("1743219522975660.334", 64) // (epoch − base) µs, as a viewer reads it
	want := []string{"B poll 0.000", "E poll 0.613", "i SegmentMetadataEvent " + strconv.FormatFloat(far, 'f', 3, 64), "i SegmentMetadataEvent -1744964487463.123"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	checkFrames(t, "clocks", d)
	_, res = convertBytes(t, trace(maxHeldEvents))
	if res.TimeBase != epoch || res.Events != maxHeldEvents+1+2+2 {
		t.Errorf("beyond the held events: %+v", res)
	}
}
