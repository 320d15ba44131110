package main

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/tracecodec/tracecodec/events/inspect"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/atf"
)

func init() {
	register(&format{
		name: "atf",
		validate: func(in *input) (string, error) {
			s, _, err := atfValidate(in)
			return s, err
		},
		check:   atfValidate,
		stats:   atfStats,
		dump:    atfDump,
		merge:   atfMerge,
		convert: atfConvert,
		sample:  atfSample,
	})
}

// atfView is any ATF input opened as a session: a session or thread folder,
// an index file (one thread) or a detail file (detail only).
type atfView struct {
	session *atf.Session
	threads []*atf.Thread
	detail  *atf.DetailFile // a lone detail file
	// loneIndex: an index file without a detail.atf beside it, so its
	// forward links cannot be followed (and are not errors).
	loneIndex bool
	close     func() error
}

func (v *atfView) Close() error {
	if v.close != nil {
		return v.close()
	}
	return nil
}

// atfKind says whether a file input is an index or a detail file: by magic,
// else (damaged files) by name.
func atfKind(in *input) string {
	switch in.Variant() {
	case "index", "detail":
		return in.Variant()
	}
	if name := strings.ToLower(filepath.Base(in.Path)); strings.Contains(name, "detail") || strings.HasPrefix(name, "det") {
		return "detail"
	}
	return "index"
}

// atfOpen opens the input and registers its recovery summary (see
// atfRecovery).
func atfOpen(in *input) (*atfView, error) {
	v, err := atfOpenView(in)
	if err == nil {
		atfRecovery(in)
	}
	return v, err
}

func atfOpenView(in *input) (*atfView, error) {
	if in.IsDir() {
		if in.Variant() == "thread" {
			t, err := atf.OpenThread(in.Path)
			if err != nil {
				return nil, err
			}
			return &atfView{threads: []*atf.Thread{t}, close: t.Close}, nil
		}
		s, err := atf.OpenSession(in.Path)
		if err != nil {
			return nil, err
		}
		return &atfView{session: s, threads: s.Threads, close: s.Close}, nil
	}
	r, size, closeFn, err := in.ReaderAt()
	if err != nil {
		return nil, err
	}
	v := &atfView{close: closeFn}
	if atfKind(in) == "detail" {
		if v.detail, err = atf.OpenDetail(r, size); err != nil {
			closeFn()
			return nil, err
		}
		return v, nil
	}
	ir, err := atf.OpenIndex(r, size)
	if err != nil {
		closeFn()
		return nil, err
	}
	if dir, ok := atfSiblingDetail(in); ok {
		// index.atf next to a detail.atf is a thread: like the reference,
		// the detail file's existence decides that the thread has one.
		closeFn()
		t, err := atf.OpenThread(dir)
		if err != nil {
			return nil, atfDetailErr(filepath.Join(dir, "detail.atf"), err)
		}
		return &atfView{threads: []*atf.Thread{t}, close: t.Close}, nil
	}
	v.threads = []*atf.Thread{atf.NewThread(ir.Header().ThreadID, ir, nil)}
	v.loneIndex = true
	return v, nil
}

// atfSiblingDetail reports the folder of an input file named index.atf that
// has a detail.atf beside it.
func atfSiblingDetail(in *input) (dir string, ok bool) {
	if in.Path == "-" || filepath.Base(in.Path) != "index.atf" {
		return "", false
	}
	dir = filepath.Dir(in.Path)
	fi, err := os.Stat(filepath.Join(dir, "detail.atf"))
	return dir, err == nil && !fi.IsDir()
}

// atfDetailErr names the detail file in an error met while opening it beside
// the index file given on the command line (which has just opened cleanly):
// the message would otherwise carry the index file's path only.
func atfDetailErr(path string, err error) error {
	var fe *atf.FormatError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s: %s", path, fe.Detail())
	}
	return fmt.Errorf("%s: %w", path, err)
}

func (v *atfView) recovered() bool {
	if v.detail != nil {
		return v.detail.Recovered()
	}
	return v.all().Recovered()
}

// all is the session the view's threads belong to (a folder-less one for a
// thread folder or an index file), so totals come from the atf package.
func (v *atfView) all() *atf.Session {
	if v.session != nil {
		return v.session
	}
	return &atf.Session{Threads: v.threads}
}

func (v *atfView) counts() (events, details uint64, discarded int64) {
	if v.detail != nil {
		return 0, v.detail.Len(), v.detail.Discarded()
	}
	for _, t := range v.threads {
		discarded += t.Index.Discarded()
		if t.Detail != nil {
			discarded += t.Detail.Discarded()
		}
	}
	all := v.all()
	return all.EventCount(), all.DetailCount(), discarded
}

func (v *atfView) timeRange() (first, last uint64, ok bool) {
	if v.detail != nil {
		return v.detail.TimeRange()
	}
	return v.all().TimeRange()
}

// atfValidate opens the input, checks non-zero checksums and lists its
// problems (atf's Check: recovered files, dropped bytes, header and footer
// fields that disagree with the file, dangling, orphaned and broken links,
// thread folders left out of a session).
func atfValidate(in *input) (string, []string, error) {
	v, err := atfOpen(in)
	if err != nil {
		return "", nil, err
	}
	defer v.Close()
	if v.detail != nil {
		if _, err := v.detail.VerifyChecksum(); err != nil {
			return "", nil, err
		}
	}
	for _, t := range v.threads {
		if _, err := t.Index.VerifyChecksum(); err != nil {
			return "", nil, atfThreadErr(v, t, err)
		}
		if t.Detail != nil {
			if _, err := t.Detail.VerifyChecksum(); err != nil {
				return "", nil, atfThreadErr(v, t, err)
			}
		}
	}
	ps, err := v.check()
	if err != nil {
		return "", nil, err
	}
	problems := make([]string, len(ps))
	for i, p := range ps {
		if p.Corrupt { // what no crash explains fails validate, as an error
			return "", nil, errors.New(p.String())
		}
		problems[i] = p.String()
	}
	events, details, discarded := v.counts()
	summary := fmt.Sprintf("%d threads, %d events, %d detail events", len(v.threads), events, details)
	if v.detail != nil {
		summary = fmt.Sprintf("%d detail events", details)
	}
	if v.loneIndex {
		var links uint64
		for e, err := range v.threads[0].Index.All() {
			if err != nil {
				return "", nil, err
			}
			if e.HasDetail() {
				links++
			}
		}
		if links > 0 {
			summary += fmt.Sprintf("; %d detail links not followed (no detail.atf beside the file)", links)
		}
	}
	if v.recovered() {
		summary += fmt.Sprintf("; recovered without footer, %d bytes discarded", discarded)
	}
	if len(ps) > 0 {
		summary += fmt.Sprintf("; %d problems", len(ps))
	}
	if v.recovered() {
		// A writer that did not finish fails validate in every format (a
		// CDT trace without footer, a cut dial9 stream, a torn WTF file):
		// what it had not flushed is lost without a trace.
		why := "a file has no footer"
		if len(problems) > 0 {
			why = strings.Join(problems, "; ")
		}
		return "", nil, fmt.Errorf("%s; what the writer had not flushed is lost without a trace (this package's ThreadWriter: at most 127 events per thread); recoverable: %s", why, summary)
	}
	return summary, problems, nil
}

// check lists the input's problems: a session's or thread's with every link
// walked, a lone index or detail file's own (its links cannot be followed).
func (v *atfView) check() ([]atf.Problem, error) {
	switch {
	case v.detail != nil:
		return v.detail.Problems(), nil
	case v.loneIndex:
		return v.threads[0].Index.Problems(), nil
	case v.session != nil:
		return v.session.Check()
	}
	var ps []atf.Problem
	for _, t := range v.threads {
		tp, err := t.Check()
		ps = append(ps, tp...)
		if err != nil {
			return ps, atfThreadErr(v, t, err)
		}
	}
	return ps, nil
}

// problems is check without the link walk (what opening found), for stats.
func (v *atfView) problems() []atf.Problem {
	switch {
	case v.detail != nil:
		return v.detail.Problems()
	case v.session != nil:
		return v.session.Problems()
	}
	var ps []atf.Problem
	for _, t := range v.threads {
		ps = append(ps, t.Problems()...)
	}
	return ps
}

// atfThreadErr names the thread folder when the input holds several.
func atfThreadErr(v *atfView, t *atf.Thread, err error) error {
	if len(v.threads) > 1 || v.session != nil {
		return fmt.Errorf("thread_%d: %w", t.ID, err)
	}
	return err
}

func atfStats(in *input) (statList, error) {
	v, err := atfOpen(in)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	events, details, discarded := v.counts()
	first, last, ok := v.timeRange()
	var firstV, lastV any
	if ok {
		firstV, lastV = first, last
	}
	threads := len(v.threads)
	if v.detail != nil {
		threads = 1
	}
	st := statList{
		{"threads", threads},
		{"events", events},
		{"detail_events", details},
		{"first_ns", firstV},
		{"last_ns", lastV},
		{"recovered", v.recovered()},
		{"discarded_bytes", discarded},
		{"problems", len(v.problems())},
	}
	if in.Size() > 0 && events > 0 {
		st = append(st, stat{"bytes_per_event", ratio(float64(in.Size()), float64(events))})
	}
	if v.session != nil {
		st = append(st, stat{"manifest", v.session.Manifest != nil})
	}
	if v.detail != nil {
		// A lone detail.atf holds no index events: the event keys are
		// empty rather than read through the event layer.
		return st.merge(statList{{"events", uint64(0)}, {"first_ns", nil}, {"last_ns", nil}, {"min_ns", nil}, {"max_ns", nil}}), nil
	}
	// first_ns and last_ns: the first and last events of the cross-thread
	// merge (the event layer's stream order).
	return withEventStats(st, in)
}

// atfDump prints the events through the event layer, in the cross-thread
// merge order for text and JSON alike, or a lone detail file's records.
func atfDump(in *input, w *bufio.Writer, o dumpOptions) error {
	if !in.IsDir() && atfKind(in) == "detail" {
		v, err := atfOpen(in)
		if err != nil {
			return err
		}
		defer v.Close()
		return atfDumpDetail(v.detail, w, o)
	}
	return dumpEvents(in, w, o)
}

func atfDumpDetail(d *atf.DetailFile, w *bufio.Writer, o dumpOptions) error {
	from, to, err := o.bounds("an ATF detail file", inspect.NS, true)
	if err != nil {
		return err
	}
	var thread uint64
	if o.Thread != "" {
		if thread, err = strconv.ParseUint(strings.TrimPrefix(o.Thread, "thread_"), 10, 32); err != nil {
			return usageErrorf("--thread %q: want an ATF thread id (7 or thread_7)", o.Thread)
		}
	}
	it := d.Events()
	for it.Next() {
		e := it.Event()
		if ts := int64(min(e.Timestamp, 1<<63-1)); ts < from || ts > to || o.Thread != "" && uint64(e.ThreadID) != thread {
			continue
		}
		if o.Type != "" && !strings.EqualFold(o.Type, e.Type.String()) && o.Type != strconv.Itoa(int(e.Type)) {
			continue
		}
		if o.JSON {
			fmt.Fprintf(w, `{"detail_seq":%d,"index_seq":%d,"ts":%d,"type":%q,"flags":%d,"thread_id":%d,"total_length":%d,"payload_bytes":%d}`+"\n",
				it.Seq(), e.IndexSeq, e.Timestamp, e.Type.String(), e.Flags, e.ThreadID, e.TotalLength, len(e.Payload))
		} else {
			fmt.Fprintf(w, "detail=%d index_seq=%d ts=%d %s thread_id=%d length=%d\n",
				it.Seq(), e.IndexSeq, e.Timestamp, e.Type, e.ThreadID, e.TotalLength)
		}
	}
	return it.Err()
}

// atfMerge prints the cross-thread merge, (timestamp, thread position,
// sequence) order: what dump prints for ATF, kept as a command of its own.
func atfMerge(in *input, w *bufio.Writer, o dumpOptions) error {
	if !in.IsDir() && atfKind(in) == "detail" {
		return errors.New("merge needs a session, thread folder or index file, not a detail file")
	}
	return dumpEvents(in, w, o)
}

// atfConvert writes Chrome trace-event JSON through the event layer (see
// chrome.go), in merged order: CALL/RETURN as B/E slices per thread (the E
// named by its B), EXCEPTION as an instant, names from the manifest's
// symbols when present, pid from the pid_N folder.
func atfConvert(in *input, to string, out io.Writer, _ convertOptions) error {
	if to != "chrome" {
		return usageErrorf("atf converts to chrome only, not %q", to)
	}
	if !in.IsDir() && atfKind(in) == "detail" {
		return errors.New("convert needs a session, thread folder or index file, not a detail file")
	}
	return writeChrome(in, out)
}

// atfSample writes one finalized index.atf (a call tree of main → compute,
// helper) with the CRC-32 of its events in the footer.
func atfSample(out io.Writer) error {
	mod := atf.ModuleID("/usr/local/bin/demo_app")
	type step struct {
		dt    uint64
		sym   uint32
		kind  atf.EventKind
		depth uint32
	}
	steps := []step{
		{0, 1, atf.KindCall, 1}, {100, 3, atf.KindCall, 2}, {200, 3, atf.KindReturn, 2},
		{50, 4, atf.KindCall, 2}, {10, 4, atf.KindException, 2}, {90, 4, atf.KindReturn, 2}, {400, 1, atf.KindReturn, 1},
	}
	const base = 1_000_000_000_000
	events := make([]byte, 0, len(steps)*atf.IndexEventSize)
	ts := uint64(base)
	for _, s := range steps {
		ts += s.dt
		events = atf.AppendIndexEvent(events, atf.IndexEvent{
			Timestamp: ts, FunctionID: atf.FunctionID(mod, s.sym), Kind: s.kind, CallDepth: s.depth, DetailSeq: atf.NoDetail,
		})
	}
	n := uint64(len(steps))
	h := atf.IndexHeader{
		Endian: 1, Version: 1, Arch: atf.ArchX86_64, OS: atf.OSLinux, ClockType: atf.ClockBoottime,
		EventSize: atf.IndexEventSize, EventCount: uint32(n), EventsOffset: atf.HeaderSize,
		FooterOffset: atf.HeaderSize + uint64(len(events)), TimeStartNs: base, TimeEndNs: ts,
	}
	b := atf.AppendIndexHeader(nil, h)
	b = append(b, events...)
	b = atf.AppendIndexFooter(b, atf.IndexFooter{
		Checksum: crc32.ChecksumIEEE(events), EventCount: n, TimeStartNs: base, TimeEndNs: ts, BytesWritten: uint64(len(events)),
	})
	_, err := out.Write(b)
	return err
}
