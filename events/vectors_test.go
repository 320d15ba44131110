package events_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/evschema"
	"github.com/tracecodec/tracecodec/internal/vectortest"
	"github.com/tracecodec/tracecodec/traceerr"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// sidecar reports files that describe vectors rather than being traces.
func sidecar(name string) bool {
	for _, ext := range []string{".md", ".json", ".txt", ".ref", ".sha256", ".tsv", ".stderr"} {
		if strings.HasSuffix(name, ext) && !strings.HasSuffix(name, ".wtf-json") {
			return true
		}
	}
	return name == "SHA256SUMS" || strings.HasPrefix(name, "LICENSE") || strings.HasPrefix(name, "COPYING")
}

// vectorInputs returns every trace file and trace folder of the vectors.
func vectorInputs(t *testing.T) []string {
	root := filepath.Dir(vectortest.Dir(t, "dial9"))
	var inputs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		if d.IsDir() {
			if events.DetectDir(p).Known() {
				inputs = append(inputs, p)
			}
			return nil
		}
		if !sidecar(d.Name()) && d.Type().IsRegular() {
			inputs = append(inputs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return inputs
}

// TestEveryVectorYieldsSchemaLines opens every vector file and folder: each
// either fails to open or read with a documented error, or yields events
// whose JSON Lines all hold the schema.
func TestEveryVectorYieldsSchemaLines(t *testing.T) {
	lines := map[string]int{}
	for _, p := range vectorInputs(t) {
		for _, pairing := range []bool{false, true} {
			var opts []events.Option
			if pairing {
				opts = append(opts, events.WithPairing(0))
			}
			r, err := events.Open(p, opts...)
			if err != nil {
				var fe *traceerr.FormatError
				if !errors.As(err, &fe) && !errors.Is(err, events.ErrNoEvents) && !errors.Is(err, events.ErrUnknownFormat) && !errors.Is(err, events.ErrUnsupported) {
					t.Errorf("%s: open: undocumented error %T %v", p, err, err)
				}
				continue
			}
			var b []byte
			n := 0
			for r.Next() {
				ev := r.Event()
				if pairing && ev.Kind() != events.KindComplete && ev.Kind() != events.KindBegin && ev.Kind() != events.KindEnd && n%64 != 0 {
					n++ // the unpaired pass has checked these lines
					continue
				}
				b = ev.AppendJSON(b[:0])
				l, err := evschema.Check(b)
				if err != nil {
					t.Fatalf("%s: event %d: %v", p, n, err)
				}
				if l.Format != r.Format() || l.Name != ev.Name() || l.Kind != ev.Kind().String() {
					t.Fatalf("%s: event %d: line disagrees with the event: %s", p, n, b)
				}
				n++
			}
			if err := r.Err(); err != nil {
				var fe *traceerr.FormatError
				if !errors.As(err, &fe) {
					t.Errorf("%s: read: error is not a FormatError: %T %v", p, err, err)
				}
			}
			if err := r.Close(); err != nil {
				t.Errorf("%s: close: %v", p, err)
			}
			if r.Next() {
				t.Errorf("%s: Next after Close", p)
			}
			if !pairing {
				lines[r.Format()] += n
			}
		}
	}
	for _, f := range []string{"cdt", "dial9", "atf", "wtf"} {
		if lines[f] == 0 {
			t.Errorf("no %s events read from the vectors", f)
		}
	}
	t.Logf("lines per format: %v", lines)
}

// TestCTFSaysNoEvents: a CTF metadata file alone is detected but Open
// explains that it holds no events (the trace folder does: TestCTFTrace).
func TestCTFSaysNoEvents(t *testing.T) {
	dir := vectortest.Dir(t, "ctf")
	for _, p := range []string{filepath.Join(dir, "lttng-2.15.1-ust-ctf2-json/trace/metadata")} {
		_, err := events.Open(p)
		if !errors.Is(err, events.ErrNoEvents) || !strings.Contains(err.Error(), "CTF metadata") {
			t.Errorf("%s: %v", p, err)
		}
		d, err := events.Detect(p)
		if err != nil || d.Format != events.FormatCTF {
			t.Errorf("%s: detected %v, %v", p, d, err)
		}
	}
}

// times reads the event layer's (time, has time) sequence of path.
func times(t *testing.T, path string) (ts []int64, has []bool) {
	t.Helper()
	r, err := events.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		ts = append(ts, r.Event().Time())
		has = append(has, r.Event().HasTime())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return ts, has
}

func compareTimes(t *testing.T, path string, want []int64, wantHas []bool) {
	t.Helper()
	got, has := times(t, path)
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, codec reads %d", path, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] || has[i] != wantHas[i] {
			t.Fatalf("%s: event %d: ts_ns %d (has %v), codec %d (has %v)", path, i, got[i], has[i], want[i], wantHas[i])
		}
	}
	if len(want) == 0 {
		t.Errorf("%s: no events", path)
	}
}

func TestTimeAgreesWithDial9(t *testing.T) {
	for _, p := range []string{"golden/demo-trace@6050208.bin.gz", "golden/demo-trace@6342350.bin.gz", "handmade/hm08_has_timestamp_0.bin", "v0.4.0/20_optional_fields.bin"} {
		path := filepath.Join(vectortest.Dir(t, "dial9"), p)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := dial9.NewBytesReader(b, dial9.WithAnyVersion())
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		var has []bool
		for d.Next() {
			ev := d.Event()
			want = append(want, int64(ev.Timestamp()))
			has = append(has, ev.HasTimestamp())
			if !ev.HasTimestamp() {
				want[len(want)-1] = 0
			}
		}
		if err := d.Err(); err != nil {
			t.Fatal(err)
		}
		compareTimes(t, path, want, has)
	}
}

func TestTimeAgreesWithATF(t *testing.T) {
	dir := vectortest.Dir(t, "atf")
	for _, p := range []string{"normal/session_20250101_120000", "crash_flushed/session_20250101_120500"} {
		path := filepath.Join(dir, p)
		s, err := atf.OpenSession(path)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		var has []bool
		for m := s.Merge(); m.Next(); {
			want = append(want, int64(m.Event().Timestamp))
			has = append(has, true)
		}
		s.Close()
		compareTimes(t, path, want, has)
	}
}

func TestTimeAgreesWithWTF(t *testing.T) {
	dir := vectortest.Dir(t, "wtf")
	for _, p := range []string{"api_public.wtf-trace", "api_public_json.wtf-json", "det_resources.wtf-trace", "mutated/legacy_v3_handmade.wtf-trace"} {
		path := filepath.Join(dir, p)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src, err := wtfcff.NewBytesReader(b)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		var has []bool
		for e, err := range wtfcff.Events(src) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, int64(e.Time)*1000)
			// A definition or zone record stamped 0 has no time.
			has = append(has, !(e.IsInternal() && e.Time == 0))
		}
		compareTimes(t, path, want, has)
	}
}

func TestTimeAgreesWithCDT(t *testing.T) {
	dir := vectortest.Dir(t, "cdt")
	for _, p := range []string{"v7_tiny_3ticks_chunk2.cdt", "v7_tiny_3ticks_chunk2_uncompressed_flags2.cdt", "v7_small_300ticks.cdt", "v7_diverge_B.cdt"} {
		path := filepath.Join(dir, p)
		rd, err := cdt.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var want, ticks []int64
		var has []bool
		for rec, err := range schema7.Records(rd, -1<<63, 1<<63-1) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, int64(rec.ElapsedMs)*1_000_000)
			ticks = append(ticks, int64(rec.TickIndex))
			has = append(has, true)
		}
		rd.Close()
		compareTimes(t, path, want, has)
		r, err := events.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for r.Next() {
			if tick, ok := r.Event().Tick(); !ok || tick != ticks[i] {
				t.Fatalf("%s: event %d: tick %d, %v; want %d", path, i, tick, ok, ticks[i])
			}
			i++
		}
		r.Close()
	}
}

// TestWTFScopeNamesAgreeWithTheTracker: the per-zone stack that names
// wtf.scope#leave events pairs exactly as wtfcff.ScopeTracker (WithScopeData),
// on every WTF vector and a generated trace.
func TestWTFScopeNamesAgreeWithTheTracker(t *testing.T) {
	dir := vectortest.Dir(t, "wtf")
	inputs := map[string][]byte{"generated": genWTF(5000)}
	for _, p := range []string{"api_public.wtf-trace", "api_public_json.wtf-json", "det_resources.wtf-trace", "mutated/legacy_v3_handmade.wtf-trace"} {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		inputs[p] = b
	}
	for name, data := range inputs {
		light, err := events.OpenBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		tracked, err := events.OpenBytes(data, events.WithScopeData())
		if err != nil {
			t.Fatal(err)
		}
		ends, scopes := 0, 0
		for light.Next() {
			if !tracked.Next() {
				t.Fatalf("%s: fewer events with scope data", name)
			}
			a, b := light.Event(), tracked.Event()
			if a.Name() != b.Name() || a.Kind() != b.Kind() {
				t.Fatalf("%s: %s %q vs %s %q", name, a.Kind(), a.Name(), b.Kind(), b.Name())
			}
			if a.Kind() == events.KindEnd {
				ends++
				if a.WTFScope() != nil {
					t.Fatalf("%s: WTFScope without WithScopeData", name)
				}
				if s := b.WTFScope(); s != nil {
					scopes++
					if string(s.Name) != b.Name() {
						t.Fatalf("%s: scope %q named %q", name, s.Name, b.Name())
					}
				}
			}
		}
		if tracked.Next() || light.Err() != nil || tracked.Err() != nil {
			t.Fatalf("%s: %v %v", name, light.Err(), tracked.Err())
		}
		if name == "generated" && (ends == 0 || scopes != ends) {
			t.Errorf("%s: %d ends, %d scopes", name, ends, scopes)
		}
	}
}

// TestATFDetailArgs checks the detail_type and detail arguments against the
// codec: every event linked to a detail record carries that record's type
// and payload, read through atf.Thread.DetailFor; every other event has only
// function_id and depth.
func TestATFDetailArgs(t *testing.T) {
	dir := vectortest.Dir(t, "atf")
	for _, p := range []string{"normal/session_20250101_120000", "crash_flushed/session_20250101_120500",
		"normal/session_20250101_120000/pid_12345/thread_1"} {
		path := filepath.Join(dir, p)
		r, err := events.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		withDetail := 0
		for r.Next() {
			ev := r.Event()
			ie, th, seq, ok := ev.ATF()
			if !ok {
				t.Fatalf("%s: no ATF record", p)
			}
			d, linked, err := th.DetailFor(ie, nil)
			if err != nil {
				t.Fatalf("%s seq %d: %v", p, seq, err)
			}
			if !linked {
				if ev.NumArgs() != 2 {
					t.Errorf("%s seq %d: %d arguments without a detail record", p, seq, ev.NumArgs())
				}
				continue
			}
			withDetail++
			typ, ok1 := ev.ArgByName("detail_type")
			payload, ok2 := ev.ArgByName("detail")
			if ev.NumArgs() != 4 || !ok1 || !ok2 {
				t.Fatalf("%s seq %d: arguments %d, detail_type %v, detail %v", p, seq, ev.NumArgs(), ok1, ok2)
			}
			if typ.Kind() != events.ValueString || string(typ.Bytes()) != d.Type.String() {
				t.Errorf("%s seq %d: detail_type %s, want %s", p, seq, typ, d.Type)
			}
			if payload.Kind() != events.ValueBytes || string(payload.Bytes()) != string(d.Payload) {
				t.Errorf("%s seq %d: detail payload differs (%d bytes, want %d)", p, seq, len(payload.Bytes()), len(d.Payload))
			}
			line := string(ev.AppendJSON(nil))
			if !strings.Contains(line, `"detail_type":"`+d.Type.String()+`","detail":"`) {
				t.Errorf("%s seq %d: JSON lacks the detail arguments: %.300s", p, seq, line)
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if withDetail == 0 {
			t.Errorf("%s: no event with a detail record", p)
		}
	}
}

// TestOpenBytesAgreesWithOpen: for every vector file of an event format,
// OpenBytes (which reads dial9, ATF and WTF in place) yields the same JSON
// lines, an error where Open has one and the same recovery state. (An ATF
// index.atf beside its detail.atf opens as its thread folder with Open:
// those are left out.)
func TestOpenBytesAgreesWithOpen(t *testing.T) {
	n := 0
	for _, p := range vectorInputs(t) {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "detail.atf")); err == nil && filepath.Base(p) == "index.atf" {
			continue
		}
		r1, err1 := events.Open(p)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r2, err2 := events.OpenBytes(b, events.WithName(p))
		if (err1 == nil) != (err2 == nil) {
			t.Errorf("%s: Open: %v; OpenBytes: %v", p, err1, err2)
			continue
		}
		if err1 != nil {
			continue
		}
		read := func(r *events.Reader) (lines []string, err error, recovered bool) {
			for r.Next() {
				lines = append(lines, string(r.Event().AppendJSON(nil)))
			}
			err, recovered = r.Err(), r.Recovered()
			r.Close()
			return
		}
		l1, e1, rec1 := read(r1)
		l2, e2, rec2 := read(r2)
		// The error texts may differ (dial9 names a bad count differently
		// when it reads from memory), not whether there is one.
		if len(l1) != len(l2) || (e1 == nil) != (e2 == nil) || rec1 != rec2 {
			t.Errorf("%s: Open %d lines, err %v, recovered %v; OpenBytes %d lines, err %v, recovered %v", p, len(l1), e1, rec1, len(l2), e2, rec2)
			continue
		}
		for i := range l1 {
			if l1[i] != l2[i] {
				t.Errorf("%s line %d:\nOpen:      %.300s\nOpenBytes: %.300s", p, i, l1[i], l2[i])
				break
			}
		}
		n++
	}
	if n == 0 {
		t.Fatal("no vector compared")
	}
}
