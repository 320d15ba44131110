package inspect

// atf: validate, problems, the recovery summary and the stats keys of an
// ATF input: a session or thread folder, an index file (one thread) or a
// detail file (detail only).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/traceerr"
)

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

// ATFFileKind says whether an ATF file is an index or a detail file ("index"
// or "detail"): by its detected variant (magic), else (damaged files) by
// name.
func ATFFileKind(path, variant string) string {
	switch variant {
	case "index", "detail":
		return variant
	}
	if name := strings.ToLower(filepath.Base(path)); strings.Contains(name, "detail") || strings.HasPrefix(name, "det") {
		return "detail"
	}
	return "index"
}

func (in *Input) isDir() bool {
	if in.Data != nil {
		return false
	}
	fi, err := os.Stat(in.Path)
	return err == nil && fi.IsDir()
}

func atfOpenView(in *Input) (*atfView, error) {
	if in.isDir() {
		if in.Variant == "thread" {
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
	r, size, closeFn, err := in.openAt()
	if err != nil {
		return nil, err
	}
	v := &atfView{close: closeFn}
	if ATFFileKind(in.Path, in.Variant) == "detail" {
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
func atfSiblingDetail(in *Input) (dir string, ok bool) {
	if in.Data != nil || filepath.Base(in.Path) != "index.atf" {
		return "", false
	}
	dir = filepath.Dir(in.Path)
	fi, err := os.Stat(filepath.Join(dir, "detail.atf"))
	return dir, err == nil && !fi.IsDir()
}

// atfDetailErr names the detail file in an error met while opening it beside
// the index file given (which has just opened cleanly): the message would
// otherwise carry the index file's path only.
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

// validateATF opens the input, checks non-zero checksums and lists its
// problems (atf's Check: recovered files, dropped bytes, header and footer
// fields that disagree with the file, dangling, orphaned and broken links,
// thread folders left out of a session). A problem no crash explains
// (Corrupt) fails validation.
func validateATF(in *Input) (string, []string, []string, error) {
	summary, problems, v, err := validateATFView(in)
	if err != nil {
		return "", nil, nil, err
	}
	defer v.Close()
	notes, err := v.backwards()
	if err != nil {
		return "", nil, nil, err
	}
	return summary, problems, notes, nil
}

// backwards is a note per thread whose index timestamps go back: "thread N:
// timestamps go back K times (first at event i: t1 → t2)". The format does
// not promise order within a thread: the reference's drain thread writes a
// batch of the index lane, then the detail lane's events again with their
// earlier times (vector normal/thread_2), and its notes say production
// files are not sorted. So this is a warning, not a problem: --strict does
// not fail on it (a time past 2^63 does, as ProblemTimeBeyondInt64).
func (v *atfView) backwards() ([]string, error) {
	var notes []string
	for _, t := range v.threads {
		var n, at, prev, from, to uint64
		it := t.Index.Events(0)
		for it.Next() {
			ts := it.Event().Timestamp
			if it.Seq() > 0 && ts < prev {
				if n++; n == 1 {
					at, from, to = it.Seq(), prev, ts
				}
			}
			prev = ts
		}
		if err := it.Err(); err != nil {
			return nil, atfThreadErr(v, t, err)
		}
		if n > 0 {
			notes = append(notes, fmt.Sprintf("thread %d: timestamps go back %d times (first at event %d: %d → %d ns); the format does not promise order within a thread", t.ID, n, at, from, to))
		}
	}
	return notes, nil
}

// validateATFView is validateATF without the notes; the view stays open
// (the caller closes it) when there is no error.
func validateATFView(in *Input) (string, []string, *atfView, error) {
	v, err := atfOpenView(in)
	if err != nil {
		return "", nil, nil, err
	}
	ok := false
	defer func() {
		if !ok {
			v.Close()
		}
	}()
	if v.detail != nil {
		if _, err := v.detail.VerifyChecksum(); err != nil {
			return "", nil, nil, err
		}
	}
	for _, t := range v.threads {
		if _, err := t.Index.VerifyChecksum(); err != nil {
			return "", nil, nil, atfThreadErr(v, t, err)
		}
		if t.Detail != nil {
			if _, err := t.Detail.VerifyChecksum(); err != nil {
				return "", nil, nil, atfThreadErr(v, t, err)
			}
		}
	}
	ps, err := v.check()
	if err != nil {
		return "", nil, nil, err
	}
	problems := make([]string, len(ps))
	for i, p := range ps {
		if p.Corrupt { // what no crash explains fails validate, as an error
			return "", nil, nil, errors.New(p.String())
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
				return "", nil, nil, err
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
		return "", nil, nil, fmt.Errorf("%s; what the writer had not flushed is lost without a trace (this package's ThreadWriter: at most 127 events per thread); recoverable: %s", why, summary)
	}
	ok = true
	return summary, problems, v, nil
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

// ATFRecovery is the recovery summary of an ATF input, what every command
// prints as its recovery line: the problems validate reports (Check: every
// link walked for a thread or session), from a fresh view of the input; nil
// when clean or when the input cannot be opened.
func ATFRecovery(in Input) *traceerr.Recovery {
	if err := in.detect(); err != nil {
		return nil
	}
	v, err := atfOpenView(&in)
	if err != nil {
		return nil
	}
	defer v.Close()
	ps, err := v.check()
	if err != nil {
		return nil
	}
	sort.SliceStable(ps, func(i, j int) bool { return atfLossFirst(ps[i]) && !atfLossFirst(ps[j]) })
	events, details, _ := v.counts()
	if v.detail != nil {
		events = details
	}
	return cleanRecovery(new(atf.Summarize(ps, events, v.readBytes())))
}

// atfLossFirst puts the problems that lose bytes or events before the others,
// so the summary's reason is a loss when there is one.
func atfLossFirst(p atf.Problem) bool {
	return p.Kind == atf.ProblemDiscarded || p.Kind == atf.ProblemDanglingLink || p.Kind == atf.ProblemOrphanDetail
}

// readBytes is the bytes of the view's files that were read: their sizes
// less the bytes dropped.
func (v *atfView) readBytes() int64 {
	if v.detail != nil {
		return v.detail.Size() - v.detail.Discarded()
	}
	var n int64
	for _, t := range v.threads {
		n += t.ReadBytes()
	}
	return n
}

// statsATF is the ATF keys of stats. A lone detail.atf holds no index
// events: its event keys are set here, empty (lone is true), rather than
// read through the event layer. Otherwise first_ns and last_ns are the
// first and last events of the cross-thread merge (the event layer's
// stream order, set by FormatStats).
func statsATF(in *Input) (st StatList, lone bool, err error) {
	v, err := atfOpenView(in)
	if err != nil {
		return nil, false, err
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
	st = StatList{
		{"threads", threads},
		{"events", events},
		{"detail_events", details},
		{"first_ns", firstV},
		{"last_ns", lastV},
		{"recovered", v.recovered()},
		{"discarded_bytes", discarded},
		{"problems", len(v.problems())},
	}
	if in.Size > 0 && events > 0 {
		st = append(st, Stat{"bytes_per_event", ratio(float64(in.Size), float64(events))})
	}
	if v.session != nil {
		st = append(st, Stat{"manifest", v.session.Manifest != nil})
	}
	if v.detail != nil {
		return st.Merge(StatList{{"events", uint64(0)}, {"first_ns", nil}, {"last_ns", nil}, {"min_ns", nil}, {"max_ns", nil}}), true, nil
	}
	return st, false, nil
}
