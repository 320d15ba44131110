package atf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

const (
	normalDir = "normal/session_20250101_120000/pid_12345"
	crashDir  = "crash_flushed/session_20250101_120500/pid_23456"
)

type refEvent struct {
	Seq         uint64 `json:"seq"`
	TimestampNs uint64 `json:"timestamp_ns"`
	FunctionID  string `json:"function_id"`
	ThreadID    uint32 `json:"thread_id"`
	EventKind   uint32 `json:"event_kind"`
	CallDepth   uint32 `json:"call_depth"`
	DetailSeq   uint32 `json:"detail_seq"`
	ThreadIdx   int    `json:"thread_idx"`
	Detail      *struct {
		TotalLength uint32 `json:"total_length"`
		EventType   uint16 `json:"event_type"`
		Flags       uint16 `json:"flags"`
		IndexSeq    uint32 `json:"index_seq"`
		ThreadID    uint32 `json:"thread_id"`
		Timestamp   uint64 `json:"timestamp"`
		PayloadLen  int    `json:"payload_len"`
		BacklinkOK  bool   `json:"backlink_ok"`
	} `json:"detail"`
}

type refThread struct {
	ThreadID         uint32     `json:"thread_id"`
	Len              uint64     `json:"len"`
	TimeRange        [2]uint64  `json:"time_range"`
	HasDetailFlag    bool       `json:"has_detail_flag"`
	FooterFound      *bool      `json:"footer_found"`
	DetailFileOpened bool       `json:"detail_file_opened"`
	DetailReaderLen  *uint64    `json:"detail_reader_len"`
	Events           []refEvent `json:"events"`
	DetailIter       []struct {
		IndexSeq    uint32 `json:"index_seq"`
		EventType   uint16 `json:"event_type"`
		Timestamp   uint64 `json:"timestamp"`
		TotalLength uint32 `json:"total_length"`
	} `json:"detail_iter"`
}

type refReader struct {
	Threads map[string]refThread `json:"threads"`
	Session struct {
		Error       string     `json:"error"`
		EventCount  uint64     `json:"event_count"`
		TimeRange   [2]uint64  `json:"time_range"`
		ThreadOrder []uint32   `json:"thread_order"`
		MergedIter  []refEvent `json:"merged_iter"`
	} `json:"session"`
}

func loadJSON(t *testing.T, v any, elems ...string) {
	t.Helper()
	if err := json.Unmarshal(vectortest.Read(t, "atf", elems...), v); err != nil {
		t.Fatal(err)
	}
}

func fid(t *testing.T, s string) uint64 {
	t.Helper()
	v, ok := parseUint(s)
	if !ok {
		t.Fatalf("bad function id %q", s)
	}
	return v
}

func checkEvent(t *testing.T, what string, got IndexEvent, want refEvent) {
	t.Helper()
	w := IndexEvent{Timestamp: want.TimestampNs, FunctionID: fid(t, want.FunctionID), ThreadID: want.ThreadID,
		Kind: EventKind(want.EventKind), CallDepth: want.CallDepth, DetailSeq: want.DetailSeq}
	if got != w {
		t.Errorf("%s: got %+v, want %+v", what, got, w)
	}
}

// TestReferenceReaderThreads reads every thread of the normal and crash
// vectors and compares with what the upstream Python and Rust readers report.
func TestReferenceReaderThreads(t *testing.T) {
	for _, c := range []struct{ name, dir string }{{"normal", normalDir}, {"crash_flushed", crashDir}} {
		for _, refFile := range []string{"reference_reader.json", "rust_reader.json"} {
			t.Run(c.name+"/"+refFile, func(t *testing.T) {
				var ref refReader
				loadJSON(t, &ref, c.name, refFile)
				if len(ref.Threads) == 0 {
					t.Fatal("no threads in reference output")
				}
				for name, rt := range ref.Threads {
					th, err := OpenThread(vectortest.Path(t, "atf", c.dir, name))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					defer th.Close()
					checkThread(t, name, th, rt)
				}
			})
		}
	}
}

func checkThread(t *testing.T, name string, th *Thread, rt refThread) {
	t.Helper()
	if th.ID != rt.ThreadID || th.Index.Len() != rt.Len {
		t.Errorf("%s: id %d len %d, want %d %d", name, th.ID, th.Index.Len(), rt.ThreadID, rt.Len)
	}
	// Python reports footer_found; Rust does not (it agrees on everything else).
	finalized := th.Index.Header().FooterOffset != th.Index.Header().EventsOffset || th.Index.Size() == 128
	if rt.FooterFound != nil {
		finalized = *rt.FooterFound
		if _, footer := th.Index.Footer(); footer != finalized || th.Index.Recovered() == finalized {
			t.Errorf("%s: footer %v recovered %v, reference footer_found %v", name, footer, th.Index.Recovered(), finalized)
		}
	}
	if th.Index.Header().HasDetailFile() != rt.HasDetailFlag {
		t.Errorf("%s: has_detail flag %v", name, th.Index.Header().HasDetailFile())
	}
	if (th.Detail != nil) != rt.DetailFileOpened {
		t.Errorf("%s: detail opened %v, want %v", name, th.Detail != nil, rt.DetailFileOpened)
	}
	if rt.DetailReaderLen != nil && th.DetailLen() != *rt.DetailReaderLen {
		t.Errorf("%s: detail len %d, want %d", name, th.DetailLen(), *rt.DetailReaderLen)
	}
	first, last, ok := th.Index.TimeRange()
	if finalized {
		if !(first == rt.TimeRange[0] && last == rt.TimeRange[1]) && !(rt.Len == 0 && !ok) {
			t.Errorf("%s: time range %d..%d (%v), want %v", name, first, last, ok, rt.TimeRange)
		}
	} else if rt.TimeRange != [2]uint64{0, 0} {
		t.Errorf("%s: reference reports a time range for an unfinalized file", name)
	} else if rt.Len > 0 && (first != rt.Events[0].TimestampNs || last != rt.Events[len(rt.Events)-1].TimestampNs) {
		t.Errorf("%s: recovered time range %d..%d", name, first, last)
	}
	if len(rt.Events) != int(rt.Len) {
		t.Fatalf("%s: reference lists %d events for len %d", name, len(rt.Events), rt.Len)
	}
	i := 0
	for seq, e := range numbered(th.Index.All(), t.Error) {
		if seq != uint64(i) {
			t.Fatalf("%s: seq %d at position %d", name, seq, i)
		}
		checkEvent(t, fmt.Sprintf("%s event %d", name, i), e, rt.Events[i])
		got, err := th.Index.Event(seq)
		if err != nil || got != e {
			t.Errorf("%s: Event(%d) = %+v, %v", name, seq, got, err)
		}
		d, ok, err := th.DetailFor(e, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := rt.Events[i].Detail
		if ok != (want != nil) {
			t.Errorf("%s event %d: detail %v, want %v", name, i, ok, want != nil)
		} else if ok {
			if d.TotalLength != want.TotalLength || uint16(d.Type) != want.EventType || d.Flags != want.Flags ||
				d.IndexSeq != want.IndexSeq || d.ThreadID != want.ThreadID || d.Timestamp != want.Timestamp || len(d.Payload) != want.PayloadLen {
				t.Errorf("%s event %d: detail %+v, want %+v", name, i, d, *want)
			}
			back, err := th.IndexFor(d)
			if (err == nil && back == e) != want.BacklinkOK {
				t.Errorf("%s event %d: back link %+v %v", name, i, back, err)
			}
		}
		i++
	}
	if i != int(rt.Len) {
		t.Errorf("%s: iterated %d events", name, i)
	}
	if th.Detail != nil && rt.DetailIter != nil {
		j := 0
		for seq, d := range numbered(th.Detail.All(), t.Error) {
			if j >= len(rt.DetailIter) {
				t.Fatalf("%s: more detail events than the reference", name)
			}
			w := rt.DetailIter[j]
			if seq != uint64(j) || d.IndexSeq != w.IndexSeq || uint16(d.Type) != w.EventType || d.Timestamp != w.Timestamp || d.TotalLength != w.TotalLength {
				t.Errorf("%s detail %d: %+v, want %+v", name, j, d, w)
			}
			j++
		}
		if j != len(rt.DetailIter) {
			t.Errorf("%s: %d detail events, reference %d", name, j, len(rt.DetailIter))
		}
	}
	ps, err := th.Check()
	if err != nil {
		t.Errorf("%s: Check: %v", name, err)
	}
	for _, p := range ps {
		t.Logf("%s: %v", name, p)
		switch p.Kind {
		case ProblemNoFooter, ProblemDiscarded:
			if !th.Recovered() {
				t.Errorf("%s: %v in a thread that was not recovered", name, p)
			}
		case ProblemDanglingLink:
			if th.Detail != nil && !th.Detail.Recovered() {
				t.Errorf("%s: %v", name, p)
			}
		case ProblemOrphanDetail:
			if !th.Index.Recovered() {
				t.Errorf("%s: %v", name, p)
			}
		default:
			t.Errorf("%s: %v", name, p)
		}
	}
}

func TestReferenceMergedOrder(t *testing.T) {
	for _, refFile := range []string{"reference_reader.json", "rust_reader.json"} {
		var ref refReader
		loadJSON(t, &ref, "normal", refFile)
		s, err := OpenSession(vectortest.Path(t, "atf", normalDir))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.EventCount() != ref.Session.EventCount || s.EventCount() != 22 {
			t.Errorf("event count %d, want %d", s.EventCount(), ref.Session.EventCount)
		}
		for i, th := range s.Threads {
			if th.ID != ref.Session.ThreadOrder[i] {
				t.Errorf("thread %d is %d, want %d", i, th.ID, ref.Session.ThreadOrder[i])
			}
		}
		if len(ref.Session.MergedIter) != 22 {
			t.Fatalf("%s: merged_iter has %d entries", refFile, len(ref.Session.MergedIter))
		}
		m := s.Merge()
		i := 0
		for m.Next() {
			if i >= len(ref.Session.MergedIter) {
				t.Fatal("merge yields more events than the reference")
			}
			w := ref.Session.MergedIter[i]
			if m.Thread() != w.ThreadIdx {
				t.Errorf("merged %d: thread %d, want %d", i, m.Thread(), w.ThreadIdx)
			}
			checkEvent(t, fmt.Sprintf("merged %d", i), m.Event().IndexEvent, w)
			i++
		}
		if m.Err() != nil || i != len(ref.Session.MergedIter) {
			t.Errorf("merged %d events, err %v", i, m.Err())
		}
		var ranged []string
		for m := s.MergeRange(1_000_000_001_200, 1_000_000_001_261); m.Next(); {
			ranged = append(ranged, fmt.Sprintf("%d:%d", m.Thread(), m.Event().Timestamp-1_000_000_000_000))
		}
		if fmt.Sprint(ranged) != "[1:1200 2:1210 2:1260 2:1210 2:1260]" {
			t.Errorf("range merge %v", ranged)
		}
		// Our session range skips the empty thread_3; the reference's starts at 0.
		first, last, ok := s.TimeRange()
		if !ok || first != 1_000_000_001_000 || last != ref.Session.TimeRange[1] || ref.Session.TimeRange[0] != 0 {
			t.Errorf("session range %d..%d, reference %v", first, last, ref.Session.TimeRange)
		}
		if s.Recovered() {
			t.Error("finalized session reported as recovered")
		}
		if s.Manifest == nil || s.Manifest.FormatVersion != "2.1" || len(s.Manifest.Symbols) != 5 {
			t.Errorf("manifest %+v", s.Manifest)
		}
		if name, ok := s.Manifest.SymbolName(0x52dc64e800000002); !ok || name != "worker_loop" {
			t.Errorf("symbol name %q", name)
		}
	}
}

// The reference cannot open the crashed session (no manifest.json); we
// discover its threads and recover every event the reference recovers per
// thread.
func TestCrashFlushedSession(t *testing.T) {
	var ref refReader
	loadJSON(t, &ref, "crash_flushed", "reference_reader.json")
	if ref.Session.Error == "" {
		t.Fatal("reference session opened?")
	}
	for _, dir := range []string{crashDir, "crash_flushed/session_20250101_120500"} {
		s, err := OpenSession(vectortest.Path(t, "atf", dir))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Manifest != nil || !s.Recovered() || len(s.Threads) != 2 {
			t.Fatalf("manifest %v recovered %v threads %d", s.Manifest, s.Recovered(), len(s.Threads))
		}
		if s.EventCount() != ref.Threads["thread_0"].Len+ref.Threads["thread_1"].Len || s.EventCount() != 8 || s.DetailCount() != 2 {
			t.Errorf("events %d detail %d", s.EventCount(), s.DetailCount())
		}
		for _, th := range s.Threads {
			if !th.Index.Recovered() || th.Index.Discarded() != 0 {
				t.Errorf("thread %d: recovered %v discarded %d", th.ID, th.Index.Recovered(), th.Index.Discarded())
			}
		}
		var ts []uint64
		for m := s.Merge(); m.Next(); {
			ts = append(ts, m.Event().Timestamp-1_000_000_000_000)
		}
		if fmt.Sprint(ts) != "[1000 1050 1100 1150 1200 1250 1300 1400]" {
			t.Errorf("merged %v", ts)
		}
	}
}

type malformedCase struct {
	File string `json:"file"`
	Kind string `json:"kind"`
	Size int64  `json:"size"`
	// Its event lists have keys with commas ("events[ts,kind,detail_seq]"),
	// which struct tags cannot name: see events.
	PythonResult map[string]json.RawMessage `json:"python_reader_result"`
	RustResult   struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	} `json:"rust_reader_result"`
}

// malformedWant is the sentinel each rejected vector must produce, by the
// reference's error variant.
var malformedWant = map[string]error{
	"InvalidMagic":       ErrBadMagic,
	"UnsupportedVersion": ErrUnsupportedVersion,
	"UnsupportedEndian":  ErrUnsupportedEndian,
	"InvalidEventSize":   ErrCorrupt,
	"FileTooSmall":       ErrTruncated,
}

func TestMalformedVectors(t *testing.T) {
	var cases []malformedCase
	loadJSON(t, &cases, "malformed", "expected.json")
	if len(cases) != 10 {
		t.Fatalf("%d malformed cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			b := vectortest.Read(t, "atf", "malformed", c.File)
			if int64(len(b)) != c.Size {
				t.Fatalf("size %d, want %d", len(b), c.Size)
			}
			var err error
			var idx *IndexFile
			var det *DetailFile
			f, ferr := os.Open(vectortest.Path(t, "atf", "malformed", c.File))
			if ferr != nil {
				t.Fatal(ferr)
			}
			defer f.Close()
			if c.Kind == "index" {
				idx, err = OpenIndex(f, c.Size)
				if _, e2 := OpenIndexBytes(b); (e2 == nil) != (err == nil) {
					t.Errorf("bytes and ReaderAt disagree: %v / %v", err, e2)
				}
			} else {
				det, err = OpenDetail(f, c.Size)
			}
			var pyOK bool
			var pyLen uint64
			var pyEvents [][]uint64
			json.Unmarshal(c.PythonResult["ok"], &pyOK)
			json.Unmarshal(c.PythonResult["len"], &pyLen)
			if raw, ok := c.PythonResult["events[ts,kind,detail_seq]"]; ok {
				json.Unmarshal(raw, &pyEvents)
			}
			if raw, ok := c.PythonResult["get(i)[index_seq,event_type,total_length]"]; ok {
				json.Unmarshal(raw, &pyEvents)
			}
			if pyOK && (len(pyEvents) == 0 || uint64(len(pyEvents)) != pyLen) {
				t.Fatalf("reference lists %d events for len %d", len(pyEvents), pyLen)
			}
			if c.RustResult.OK != pyOK {
				t.Fatal("reference readers disagree")
			}
			if !c.RustResult.OK {
				variant := c.RustResult.Error
				if i := bytes.IndexAny([]byte(variant), " ({"); i > 0 {
					variant = variant[:i]
				}
				want := malformedWant[variant]
				var fe *FormatError
				if !errors.Is(err, want) || !errors.As(err, &fe) {
					t.Fatalf("error %v, want %v (reference %s)", err, want, c.RustResult.Error)
				}
				t.Logf("%s: %v", c.File, err)
				return
			}
			if err != nil {
				t.Fatalf("reference opens it, we fail: %v", err)
			}
			if idx != nil {
				if idx.Len() != pyLen || !idx.Recovered() || idx.Discarded() != 22 {
					t.Errorf("len %d recovered %v discarded %d", idx.Len(), idx.Recovered(), idx.Discarded())
				}
				for i, w := range pyEvents {
					e, err := idx.Event(uint64(i))
					if err != nil || e.Timestamp != w[0] || uint64(e.Kind) != w[1] || uint64(e.DetailSeq) != w[2] {
						t.Errorf("event %d: %+v %v, want %v", i, e, err, w)
					}
				}
			}
			if det != nil {
				if det.Len() != pyLen || !det.Recovered() || det.Discarded() != 0 {
					t.Errorf("len %d recovered %v discarded %d", det.Len(), det.Recovered(), det.Discarded())
				}
				for i, w := range pyEvents {
					e, err := det.Event(uint64(i))
					if err != nil || uint64(e.IndexSeq) != w[0] || uint64(e.Type) != w[1] || uint64(e.TotalLength) != w[2] {
						t.Errorf("detail %d: %+v %v, want %v", i, e, err, w)
					}
				}
			}
		})
	}
}

// A zero-byte index.atf sinks the reference's whole session; here it is an
// empty recovered thread.
func TestEmptyIndexFileIsEmptyThread(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 3, 63} {
		tdir := filepath.Join(dir, "thread_"+strconv.Itoa(size))
		if err := os.MkdirAll(tdir, 0o755); err != nil {
			t.Fatal(err)
		}
		hdr := AppendIndexHeader(nil, IndexHeader{Endian: 1, Version: 1, EventSize: 32, EventsOffset: 64, FooterOffset: 64})
		if err := os.WriteFile(filepath.Join(tdir, "index.atf"), hdr[:size], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Threads) != 3 || s.EventCount() != 0 || !s.Recovered() {
		t.Fatalf("threads %d events %d", len(s.Threads), s.EventCount())
	}
	if s.Threads[2].Index.Discarded() != 63 {
		t.Errorf("discarded %d", s.Threads[2].Index.Discarded())
	}
	if m := s.Merge(); m.Next() {
		t.Error("merge of empty threads yields an event")
	}
	// The same bytes opened as a lone file keep the reference's outcome.
	if _, err := OpenIndexBytes(nil); !errors.Is(err, ErrTruncated) {
		t.Errorf("zero-byte OpenIndexBytes: %v", err)
	}
}
