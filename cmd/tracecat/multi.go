package main

// Many inputs for detect, validate and stats: paths and folders, folders
// walked recursively (trace folders such as ATF sessions and CTF traces are
// one input each, only regular files are read), processed in parallel on
// every core, one result per input in argument order, then a summary.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/internal/ferr"
)

// job is one input found among the arguments.
type job struct {
	path string
	// walked: found inside a folder argument, not named on the command line;
	// such a file is skipped (not an error) when it is no trace at all.
	walked bool
	err    error // the argument could not be read (stat, walk)
}

// expandInputs lists the inputs the arguments stand for, and whether they
// are more than a single file or trace folder (many mode).
func expandInputs(args []string) (jobs []job, many bool) {
	many = len(args) > 1
	for _, a := range args {
		if a == "-" {
			jobs = append(jobs, job{path: a})
			continue
		}
		fi, err := os.Stat(a)
		switch {
		case err != nil:
			jobs = append(jobs, job{path: a, err: err})
		case fi.IsDir() && detectDir(a).Known():
			jobs = append(jobs, job{path: a})
		case fi.IsDir():
			many = true
			jobs = append(jobs, walkInputs(a)...)
		case !fi.Mode().IsRegular():
			jobs = append(jobs, job{path: a, err: errors.New("not a regular file")})
		default:
			jobs = append(jobs, job{path: a})
		}
	}
	return jobs, many
}

// ctfSessionJobs replaces, for stats, the jobs walked in each folder of
// paths whose only traces are CTF trace folders (an LTTng session folder,
// events.CTFSession) by one job for the folder: one input, its traces read
// as one, as stats of the folder alone and dump read it.
func ctfSessionJobs(paths []string, jobs []job) []job {
	for _, p := range paths {
		if p == "-" || events.CTFSession(p) == nil {
			continue
		}
		prefix := filepath.Clean(p) + string(filepath.Separator)
		kept := jobs[:0:0]
		placed := false
		for _, j := range jobs {
			if !j.walked || !strings.HasPrefix(filepath.Clean(j.path), prefix) {
				kept = append(kept, j)
				continue
			}
			if !placed {
				kept = append(kept, job{path: p})
				placed = true
			}
		}
		jobs = kept
	}
	return jobs
}

// walkInputs walks a folder that is no trace itself: trace folders inside it
// are one input each, regular files are inputs, FIFOs, devices and sockets
// are reported as invalid without being opened, symbolic links are left alone
// (WalkDir does not follow them).
func walkInputs(root string) []job {
	var jobs []job
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			jobs = append(jobs, job{path: p, walked: true, err: err})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != root && detectDir(p).Known() {
				jobs = append(jobs, job{path: p, walked: true})
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.Type().IsRegular():
			jobs = append(jobs, job{path: p, walked: true})
		case d.Type()&fs.ModeSymlink == 0:
			// A FIFO, device or socket: never read (it could block or never
			// end), but reported, so nothing is skipped without a word.
			jobs = append(jobs, job{path: p, walked: true, err: errors.New("not a regular file (" + d.Type().String() + ")")})
		}
		return nil
	})
	if err != nil {
		jobs = append(jobs, job{path: root, err: err})
	}
	return jobs
}

// result is what one input gave; out is printed as it is.
type result struct {
	out     string
	invalid bool   // counts as a failure (exit 1)
	skipped bool   // a walked file that is no trace
	stderr  bool   // out goes to standard error (an input that cannot be read)
	format  string // detected format ("" when not opened)
}

// runJobs runs fn on every job on all cores and hands the results to emit in
// job order, each as soon as it and all before it are done.
func runJobs(jobs []job, fn func(job) result, emit func(job, result)) {
	if len(jobs) > 1 {
		progressMuted.Store(true)
		defer progressMuted.Store(false)
	}
	results := make([]result, len(jobs))
	done := make([]chan struct{}, len(jobs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = fn(jobs[i])
				close(done[i])
			}
		}()
	}
	go func() {
		for i := range jobs {
			work <- i
		}
		close(work)
	}()
	for i := range jobs {
		<-done[i]
		emit(jobs[i], results[i])
	}
	wg.Wait()
}

// errText renders an input error as "offset N: what is wrong", after what
// its wrappers say first (the file inside a folder: "channel0_3: ",
// "metadata: "), as a single input's error is printed (cli.fail).
func errText(err error) string {
	var fe *ferr.Error
	if errors.As(err, &fe) {
		return errContext(err, fe) + fe.Detail()
	}
	return err.Error()
}

// summary tallies results for the closing line.
type summary struct {
	inputs, ok, invalid, skipped int
	formats                      map[string]int
	// sessions counts the CTF session folders given that cannot be read
	// as one trace (validate: ctfSessionLine)
	sessions int
}

func (s *summary) add(r result) {
	if r.skipped {
		s.skipped++
		return
	}
	s.inputs++
	if r.invalid {
		s.invalid++
	} else {
		s.ok++
	}
	if r.format != "" {
		if s.formats == nil {
			s.formats = map[string]int{}
		}
		s.formats[r.format]++
	}
}

func (s *summary) formatList() string {
	var names []string
	for n := range s.formats {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, s.formats[n]))
	}
	return strings.Join(parts, ", ")
}

// text is the closing line: "N inputs: X ok, Y invalid (cdt 2, atf 1); Z
// files skipped (not traces)".
func (s *summary) text(okWord, badWord string) string {
	line := fmt.Sprintf("%d inputs: %d %s, %d %s", s.inputs, s.ok, okWord, s.invalid, badWord)
	if l := s.formatList(); l != "" {
		line += " (" + l + ")"
	}
	if s.skipped > 0 {
		line += fmt.Sprintf("; %d files skipped (not traces)", s.skipped)
	}
	if s.inputs == 0 {
		line += "; no inputs: no trace found (exit 1)"
	}
	if s.sessions > 0 {
		line += fmt.Sprintf("; %d session folders cannot be read as one trace (exit 1)", s.sessions)
	}
	return line
}

func (s *summary) code() int {
	if s.invalid > 0 || s.inputs == 0 || s.sessions > 0 {
		return exitInvalid
	}
	return exitOK
}

// openJob detects one input for validate and stats; a walked file that is
// no trace is skipped.
func (c *cli) openJob(j job) (*input, *format, *result) {
	if j.err != nil {
		return nil, nil, &result{out: j.err.Error(), invalid: true}
	}
	in, err := newInput(j.path, c.stdin)
	if err != nil {
		return nil, nil, &result{out: errText(err), invalid: true}
	}
	in.ctx = c.ctx
	if !in.det.Known() {
		if j.walked {
			return nil, nil, &result{skipped: true}
		}
		if err := notATrace(in); err != nil {
			return nil, nil, &result{out: usageText(err), invalid: true}
		}
	}
	f := formats[in.det.Format]
	if f == nil {
		return nil, nil, &result{out: fmt.Sprintf("format %s is detected but not supported by this build", in.det.Format), invalid: true, format: in.det.Format}
	}
	return in, f, nil
}

// validateInput runs a format's validation. In strict mode a file that could
// only be read leniently fails: recovered without footer, torn or cut
// records, trailing bytes, problems the format reports; losses says what was
// lost or tolerated.
func validateInput(in *input, f *format, strict bool) (rep inspect.Report, losses []string, err error) {
	if f.validate == nil && f.check == nil && !f.lib {
		return rep, nil, fmt.Errorf("validate is not supported for %s", f.name)
	}
	if f.lib {
		rep, err = libValidate(in)
	} else if f.check != nil {
		rep.Summary, rep.Problems, err = f.check(in)
	} else {
		rep.Summary, err = f.validate(in)
	}
	if err != nil || !strict {
		return rep, nil, err
	}
	losses = append(losses, rep.Problems...)
	// What the format's reader recovered: the uniform line every command
	// prints (trailing bytes, lenient readings, a cut stream, a torn chunk,
	// a trace without footer).
	if r := in.Recovery(); r != nil {
		losses = append(losses, "recovery: "+r.String())
	}
	return rep, losses, nil
}

// okLine is validate's answer for an input that passes: "ok", the summary
// in parentheses, and what a crash of the format's writer could have lost
// without a trace (an ok cannot vouch for it).
func okLine(rep inspect.Report) string {
	line := "ok"
	if rep.Summary != "" {
		line += " (" + rep.Summary + ")"
	}
	if rep.CrashLoss != "" {
		line += "; a crash could lose without a trace: " + rep.CrashLoss
	}
	return line
}
