// Command tracecat inspects, validates, dumps, diffs, merges and converts the
// trace formats of this module: CDT, dial9, ATF, CTF metadata and WTF.
//
//	tracecat help [COMMAND]
//	tracecat detect PATH...
//	tracecat validate [--strict] PATH...
//	tracecat stats [--json] PATH...
//	tracecat dump [--json] [--type NAME] [--from TIME] [--to TIME] [--thread ID] PATH
//	tracecat diff [--json] [--tick-start TICK] [--tick-end TICK] A.cdt B.cdt
//	tracecat bisect [--window-before N] [--window-after N] A.cdt B.cdt
//	tracecat tick [--json] TRACE.cdt TICK
//	tracecat entity [--json] [--ticks A..B] TRACE.cdt UID
//	tracecat query [--json] [--limit N] TRACE.cdt "ticks|entities where LHS OP RHS"
//	tracecat focus [--json] --tick TICK GOLDEN.cdt CANDIDATE.cdt
//	tracecat merge [--json] SESSION_DIR
//	tracecat convert --to FORMAT [--fields LIST] [--force] IN OUT
//	tracecat export --to parquet [--hive] IN... OUT
//	tracecat sample FORMAT OUT
//	tracecat demo [DIR]
//	tracecat version
//
// "tracecat help COMMAND" or "tracecat COMMAND -h" describes a command, its
// flags with their units and defaults, and gives an example.
//
// PATH may be "-" for standard input (read into memory); OUT may be "-" for
// standard output (not for a folder: export's dataset, the CTF sample). Every file is written under a temporary name beside the
// target and renamed when complete; SIGINT or SIGTERM removes it. Exit codes:
// 0 success, 1 invalid input (printed as "PATH: offset N: what is wrong") or a
// finding such as a divergence, 2 usage errors, 130 after SIGINT and 143 after
// SIGTERM.
//
// tracecat collects no garbage before its heap reaches 32 MiB, unless GOGC or
// GOMEMLIMIT is set (gcfloor.go).
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/events/inspect/ctfload"
	"github.com/tracecodec/tracecodec/internal/ferr"
	"golang.org/x/term"
)

// Exit codes.
const (
	exitOK      = 0
	exitInvalid = 1
	exitUsage   = 2
)

// format is what each format's fmt_<name>.go registers. Any func may be nil when
// the format has no such operation.
type format struct {
	name     string
	validate func(in *input) (summary string, err error)
	stats    func(in *input) (statList, error)
	dump     func(in *input, w *bufio.Writer, o dumpOptions) error
	// convert writes in as the target named by to ("chrome", "json", "binary",
	// "plain", "packetized", …) to out.
	convert func(in *input, to string, out io.Writer, o convertOptions) error
	// diff compares two inputs; it returns the exit code (0 same, 1 diverged).
	diff func(a, b *input, w *bufio.Writer, o diffOptions) (int, error)
	// merge writes a merged view of a multi-part input (ATF sessions).
	merge func(in *input, w *bufio.Writer, o dumpOptions) error
	// sample writes a small valid trace of this format, for trying the tool;
	// sampleDir, set instead for a format whose traces are folders (CTF),
	// writes it into the new folder dir.
	sample    func(out io.Writer) error
	sampleDir func(dir string) error
	// check, when set, is used by validate instead of validate: problems
	// lists what the input lost, recovered or contradicts about itself (one
	// line each, printed as warnings; none means clean).
	check func(in *input) (summary string, problems []string, err error)
	// lib: validate and stats come from package inspect (libValidate,
	// libStats); validate, check and stats are then unset.
	lib bool
}

// hasSample reports whether f writes a sample (a file or a folder).
func (f *format) hasSample() bool { return f.sample != nil || f.sampleDir != nil }

var formats = map[string]*format{}

func register(f *format) {
	if _, dup := formats[f.name]; dup {
		panic("tracecat: format registered twice: " + f.name)
	}
	formats[f.name] = f
}

// dumpOptions are the flags shared by dump and merge.
type dumpOptions struct {
	JSON   bool
	Type   string        // --type / --name: record type or event name filter ("" = all)
	Thread string        // --thread: thread, worker or zone filter ("" = all)
	From   *inspect.Time // --from: first time (ns, or tick:N / index:N where the format counts so), inclusive
	To     *inspect.Time // --to: last time, inclusive
}

// filter is the event layer's filter of these options.
func (o dumpOptions) filter() inspect.Filter {
	return inspect.Filter{Type: o.Type, Thread: o.Thread, From: o.From, To: o.To}
}

// errUsage is wrapped by the errors of a command's operation that are usage
// errors (a flag the input's format cannot honour): the command exits 2.
var errUsage = errors.New("usage")

// usageErrorf returns an error wrapping errUsage.
func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// isUsage reports whether err is a usage error: errUsage or a filter the
// event layer refuses.
func isUsage(err error) bool {
	return errors.Is(err, errUsage) || errors.Is(err, inspect.ErrUnsupported)
}

// usageText is err's message without the "usage: " of usageErrorf.
func usageText(err error) string {
	return strings.TrimPrefix(err.Error(), errUsage.Error()+": ")
}

// bounds returns --from and --to for a format that counts records in unit
// (what, e.g. "CTF metadata", names them in the refusal): math.MinInt64 and
// math.MaxInt64 when a bound is absent. A bound in another unit, or
// --thread when threads is false, is a usage error.
func (o dumpOptions) bounds(what string, unit inspect.Unit, threads bool) (from, to int64, err error) {
	if o.Thread != "" && !threads {
		return 0, 0, usageErrorf("--thread: %s has no threads", what)
	}
	from, to = math.MinInt64, math.MaxInt64
	for i, b := range []*inspect.Time{o.From, o.To} {
		if b == nil {
			continue
		}
		if b.Unit != unit {
			return 0, 0, usageErrorf("--%s %s: %s is selected by %s", [2]string{"from", "to"}[i], b, what, unitWords[unit])
		}
		if i == 0 {
			from = b.Value
		} else {
			to = b.Value
		}
	}
	return from, to, nil
}

// inIndex reports whether record index v is within --from and --to, whose
// unit bounds has checked.
func (o dumpOptions) inIndex(v int64) bool {
	return (o.From == nil || v >= o.From.Value) && (o.To == nil || v <= o.To.Value)
}

var unitWords = map[inspect.Unit]string{
	inspect.NS:    "time in ns (1200, 1200ns, 250us, 3ms, 1.5s)",
	inspect.Tick:  "tick index (tick:N)",
	inspect.Index: "record index (index:N)",
}

type diffOptions struct {
	JSON      bool
	TickStart int64
	TickEnd   int64
	HasStart  bool
	HasEnd    bool
}

type convertOptions struct {
	Fields []string // --fields: numeric fields for counter tracks (CDT → chrome)
	Force  bool     // --force: write output the format's readers are known to reject (CTF)
	// Warn prints a warning about the conversion (what it left out).
	Warn func(string)
}

// cli carries the streams and the run's context so tests can run commands
// in-process.
type cli struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// ctx is cancelled when SIGINT or SIGTERM arrives (nil: never).
	ctx context.Context
}

func main() {
	setGCFloor()
	ctx, stop := watchSignals(context.Background())
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, ctx: ctx}
	code := c.run(os.Args[1:])
	activeProgress.erase()
	stop()
	os.Exit(exitCode(ctx, code))
}

// stdinIsTerminal reports whether r is a terminal (tests replace it).
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// context is the run's context, never nil.
func (c *cli) context() context.Context {
	if c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}

func (c *cli) run(args []string) int {
	if len(args) == 0 {
		c.listCommands(c.stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "--help", "-help":
		name = "help"
	case "--version", "-version":
		name = "version"
	}
	inputs := rest
	if (name == "convert" || name == "sample" || name == "export") && len(rest) > 0 {
		inputs = rest[:len(rest)-1] // the last "-" is standard output
	}
	if c.stdin != nil && slices.Contains(inputs, "-") && stdinIsTerminal(c.stdin) {
		fmt.Fprintln(c.stderr, "tracecat: reading a trace from standard input, which is a terminal: pipe or redirect a file in (tracecat "+name+" - < trace.bin), or press Ctrl-D to end")
	}
	cmd := lookupCommand(name)
	if cmd == nil {
		fmt.Fprintf(c.stderr, "tracecat: unknown command %q\n", name)
		if s := suggestCommand(name); s != "" {
			fmt.Fprintf(c.stderr, "Did you mean %q? ", s)
		}
		fmt.Fprintln(c.stderr, "Run 'tracecat help' for the list of commands.")
		return exitUsage
	}
	return cmd.run(c, rest)
}

// flags returns the flag set of command name. Its errors go to standard error;
// -h and --help are handled by parse.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {}
	return fs
}

// parse parses the arguments of a command, flags before or after the
// positional ones, and checks that between min and max positional arguments
// are given (max < 0: no limit). When ok is false the command returns code: 0
// after -h (the help is printed on standard output), 2 after a usage error (a
// short usage and a hint on standard error).
func (c *cli) parse(fs *flag.FlagSet, args []string, min, max int) (pos []string, code int, ok bool) {
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		if err := c.printHelp(c.stdout, fs.Name(), fs); err != nil {
			return nil, exitInvalid, false
		}
		return nil, exitOK, false
	}
	if err == nil && (len(pos) < min || max >= 0 && len(pos) > max) {
		switch {
		case len(pos) < min:
			fmt.Fprintf(c.stderr, "tracecat %s: missing argument\n", fs.Name())
		default:
			fmt.Fprintf(c.stderr, "tracecat %s: too many arguments\n", fs.Name())
		}
		err = errors.New("argument count")
	}
	if err != nil {
		c.usageHint(fs.Name())
		return nil, exitUsage, false
	}
	return pos, exitOK, true
}

// usageError prints a usage problem of command name and returns 2.
func (c *cli) usageError(name, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "tracecat %s: %s\n", name, fmt.Sprintf(format, args...))
	c.usageHint(name)
	return exitUsage
}

// parseArgs lets flags come before or after the positional arguments.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// fail prints an input error as "PATH: offset N: what is wrong" and returns 1;
// a usage error (see isUsage) is printed as "PATH: what to do instead" and
// returns 2.
func (c *cli) fail(path string, err error) int {
	if isUsage(err) {
		fmt.Fprintf(c.stderr, "%s: %s\n", path, usageText(err))
		return exitUsage
	}
	var ie *interruptError
	if errors.As(err, &ie) {
		fmt.Fprintf(c.stderr, "tracecat: %v\n", ie)
		return exitInvalid
	}
	var fe *ferr.Error
	if errors.As(err, &fe) {
		// What wraps the codec's error names the file inside a folder
		// (a CTF data stream, an ATF thread): keep it before the offset.
		fmt.Fprintf(c.stderr, "%s: %s%s\n", path, errContext(err, fe), fe.Detail())
	} else {
		fmt.Fprintf(c.stderr, "%s: %v\n", path, err)
	}
	return exitInvalid
}

// errContext returns what err's wrappers put before the codec's error fe
// ("channel0_3: ", "thread_7: "), or "" when they add nothing before it.
func errContext(err error, fe *ferr.Error) string {
	msg, inner := err.Error(), fe.Error()
	if len(msg) > len(inner) && strings.HasSuffix(msg, inner) {
		return msg[:len(msg)-len(inner)]
	}
	return ""
}

// open detects the format of path and returns its input and handler.
func (c *cli) open(path string) (*input, *format, error) {
	in, err := newInput(path, c.stdin)
	if err != nil {
		return nil, nil, err
	}
	in.ctx = c.ctx
	if err := notATrace(in); err != nil {
		return nil, nil, err
	}
	f := formats[in.det.Format]
	if f == nil {
		return nil, nil, fmt.Errorf("format %s is detected but not supported by this build", in.det.Format)
	}
	return in, f, nil
}

// errEmpty is the answer for an input of 0 bytes.
var errEmpty = errors.New("empty file (0 bytes): no trace to read")

// notATrace says why in cannot be read as a trace: an empty file (an
// invalid input), a folder that holds traces but is none (a usage error:
// the command takes one trace), or an unrecognised format.
func notATrace(in *input) error {
	switch {
	case in.det.Known():
		return nil
	case !in.isDir && in.size == 0:
		return errEmpty
	case in.isDir:
		if name := ctfStreamIn(in.Path); name != "" {
			// a CTF trace folder but for its metadata: say what is wrong
			// with it (what validate says of each data stream file)
			return fmt.Errorf("a CTF trace folder whose metadata cannot be used (%v): its data stream files (%s, …) cannot be read", ctfload.MetadataProblem(in.Path), name)
		}
		give := "give a file inside it"
		if found, n := traceFoldersIn(in.Path, 3); n > 0 {
			// An LTTng session folder (kernel/, ust/uid/1000/64-bit/)
			// is what babeltrace2 is given: name the traces in it.
			give = fmt.Sprintf("give one of the %d trace folders inside it (%s", n, strings.Join(found, ", "))
			if n > len(found) {
				give += ", …"
			}
			give += ")"
		}
		return usageErrorf("a folder, not a trace folder (ATF session or thread folder, CTF trace): this command reads one trace — %s; validate, stats, detect and export walk folders", give)
	}
	return errors.New("unrecognised format")
}

// ctfStreamIn returns the name of the first CTF data stream file directly
// in folder dir (of its first 1 000 entries), "" when there is none.
func ctfStreamIn(dir string) string {
	f, err := os.Open(dir)
	if err != nil {
		return ""
	}
	defer f.Close()
	ents, _ := f.ReadDir(1000)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if d, err := events.DetectFile(filepath.Join(dir, e.Name())); err == nil && d.Format == events.FormatCTF && d.Variant == "data stream" {
			return e.Name()
		}
	}
	return ""
}

// traceFoldersIn returns the first max trace folders below root (paths
// relative to it, in walk order) and how many there are, looking at no
// more than 10 000 entries: enough for an LTTng session folder, bounded on
// a home folder.
func traceFoldersIn(root string, max int) (found []string, n int) {
	seen := 0
	errStop := errors.New("stop")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if seen++; seen > 10000 {
			return errStop
		}
		if err != nil || !d.IsDir() || p == root {
			return nil
		}
		if !detectDir(p).Known() {
			return nil
		}
		if n++; len(found) < max {
			rel, _ := filepath.Rel(root, p)
			found = append(found, rel)
		}
		return fs.SkipDir
	})
	return found, n
}

func (c *cli) cmdDetect(args []string) int {
	pos, code, ok := c.parse(c.flags("detect"), args, 1, -1)
	if !ok {
		return code
	}
	jobs, many := expandInputs(pos)
	var sum summary
	runJobs(jobs, func(j job) result {
		if j.err != nil {
			return result{out: j.path + ": " + j.err.Error(), invalid: true, stderr: true}
		}
		in, err := newInput(j.path, c.stdin)
		if err != nil {
			return result{out: j.path + ": " + errText(err), invalid: true, stderr: true}
		}
		if !in.det.Known() {
			out := j.path + ": " + in.det.String()
			if !in.isDir && in.size == 0 {
				out += " (empty file)"
			}
			return result{out: out, invalid: !j.walked, skipped: j.walked}
		}
		return result{out: j.path + ": " + in.det.String(), format: in.det.Format}
	}, func(_ job, r result) {
		sum.add(r)
		switch {
		case r.skipped:
		case r.stderr:
			fmt.Fprintln(c.stderr, r.out)
		default:
			fmt.Fprintln(c.stdout, r.out)
		}
	})
	if many {
		fmt.Fprintln(c.stdout, sum.text("recognised", "unknown"))
	}
	return sum.code()
}

func (c *cli) cmdValidate(args []string) int {
	fs := c.flags("validate")
	strict := fs.Bool("strict", false, "fail (exit 1) on files that are only readable leniently: recovered without footer, torn or truncated, with trailing bytes or other reported problems, saying what was lost (default: recover, exit 0 and say what was recovered)")
	pos, code, ok := c.parse(fs, args, 1, -1)
	if !ok {
		return code
	}
	jobs, many := expandInputs(pos)
	if !many {
		return c.validateOne(pos[0], *strict)
	}
	var sum summary
	runJobs(jobs, func(j job) result {
		in, f, res := c.openJob(j)
		if res != nil {
			res.out = j.path + ": " + res.out
			return *res
		}
		rep, losses, err := validateInput(in, f, *strict)
		if err != nil {
			out := j.path + ": " + errText(err)
			if l := recoveryLine(j.path, in); l != "" {
				out += "\n" + l
			}
			return result{out: out, invalid: true, format: f.name}
		}
		if len(losses) > 0 {
			return result{out: j.path + ": strict: " + strings.Join(losses, "; "), invalid: true, format: f.name}
		}
		line := j.path + ": " + okLine(rep)
		for _, p := range append(rep.Problems, rep.Notes...) {
			line += "\n" + j.path + ": warning: " + p
		}
		if l := recoveryLine(j.path, in); l != "" {
			line += "\n" + l
		}
		return result{out: line, format: f.name}
	}, func(_ job, r result) {
		sum.add(r)
		if !r.skipped {
			fmt.Fprintln(c.stdout, r.out)
		}
	})
	// a folder of CTF trace folders (an LTTng session folder) is read as
	// one trace by dump, stats and export: say so, or why it cannot be
	for _, p := range pos {
		if p == "-" || events.CTFSession(p) == nil {
			continue
		}
		line, bad := ctfSessionLine(p)
		fmt.Fprintln(c.stdout, line)
		if bad {
			sum.sessions++
		}
	}
	fmt.Fprintln(c.stdout, sum.text("ok", "invalid"))
	return sum.code()
}

// validateOne validates a single file or trace folder: "ok (summary)" on
// standard output, or "PATH: offset N: what is wrong" on standard error.
func (c *cli) validateOne(path string, strict bool) int {
	in, f, err := c.open(path)
	if err != nil {
		return c.fail(path, err)
	}
	rep, losses, err := validateInput(in, f, strict)
	if err != nil {
		code := c.fail(path, err)
		printRecovery(c.stderr, path, in)
		return code
	}
	if len(losses) > 0 {
		for _, l := range losses {
			fmt.Fprintf(c.stderr, "%s: strict: %s\n", path, l)
		}
		return exitInvalid
	}
	for _, p := range append(rep.Problems, rep.Notes...) {
		fmt.Fprintf(c.stderr, "%s: warning: %s\n", path, p)
	}
	printRecovery(c.stderr, path, in)
	fmt.Fprintln(c.stdout, okLine(rep))
	return exitOK
}

func (c *cli) cmdStats(args []string) int {
	fs := c.flags("stats")
	asJSON := fs.Bool("json", false, "print one JSON object with the keys of the format (default: \"key: value\" lines); with many inputs one object per line with \"path\" first, then {\"summary\": …}")
	pos, code, ok := c.parse(fs, args, 1, -1)
	if !ok {
		return code
	}
	jobs, many := expandInputs(pos)
	if len(pos) == 1 && pos[0] != "-" && events.CTFSession(pos[0]) != nil {
		many = false // a folder of CTF traces is one trace (events.Open)
	}
	jobs = ctfSessionJobs(pos, jobs)
	if !many {
		in, f, err := c.open(pos[0])
		if err != nil {
			return c.fail(pos[0], err)
		}
		st, err := statsOf(in, f)
		if err != nil {
			code := c.fail(pos[0], err)
			printRecovery(c.stderr, pos[0], in)
			return code
		}
		printRecovery(c.stderr, pos[0], in)
		if *asJSON {
			b, err := st.MarshalJSON()
			if err != nil {
				return c.fail(pos[0], err)
			}
			fmt.Fprintf(c.stdout, "%s\n", b)
		} else {
			st.writeText(c.stdout)
		}
		return exitOK
	}
	var sum summary
	runJobs(jobs, func(j job) result {
		in, f, res := c.openJob(j)
		if res == nil {
			st, err := statsOf(in, f)
			if err == nil {
				if *asJSON {
					b, err := append(statList{{"path", j.path}}, st...).MarshalJSON()
					if err == nil {
						return result{out: string(b), format: f.name}
					}
				} else {
					var sb strings.Builder
					fmt.Fprintf(&sb, "== %s\n", j.path)
					st.writeText(&sb)
					return result{out: strings.TrimSuffix(sb.String(), "\n"), format: f.name}
				}
			}
			res = &result{out: errText(err), invalid: true, format: f.name}
		}
		if *asJSON && !res.skipped {
			b, _ := statList{{"path", j.path}, {"error", res.out}}.MarshalJSON()
			res.out = string(b)
		} else {
			res.out = "== " + j.path + "\nerror: " + res.out
		}
		return *res
	}, func(_ job, r result) {
		sum.add(r)
		if !r.skipped {
			fmt.Fprintln(c.stdout, r.out)
		}
	})
	if *asJSON {
		b, _ := statList{{"summary", statList{{"inputs", sum.inputs}, {"ok", sum.ok}, {"invalid", sum.invalid}, {"skipped", sum.skipped}, {"formats", sum.formats}}}}.MarshalJSON()
		fmt.Fprintf(c.stdout, "%s\n", b)
	} else {
		fmt.Fprintln(c.stdout, sum.text("ok", "invalid"))
	}
	return sum.code()
}

// statsOf is one input's stats, "format" first.
func statsOf(in *input, f *format) (statList, error) {
	if f.lib {
		return libStats(in)
	}
	if f.stats == nil {
		return nil, fmt.Errorf("stats is not supported for %s", f.name)
	}
	st, err := f.stats(in)
	if err != nil {
		return nil, err
	}
	st = st.merge(statList{recoveryStat(in)})
	return append(statList{{"format", f.name}}, st...), nil
}

func (c *cli) cmdDump(args []string, merge bool) int {
	name := "dump"
	if merge {
		name = "merge"
	}
	fs := c.flags(name)
	var o dumpOptions
	fs.BoolVar(&o.JSON, "json", false, "one JSON Lines object per record (default: one text line per record)")
	typeHelp := "only records of this `NAME`: event name or record type — dial9 event or schema name, ATF kind call|return|exception, WTF event or scope name, CDT tick or a channel view (checkpoint, sim_state, entity_samples, rng_stream, timing_samples, chunks, meta, footer), CTF packet, fragment or fragment type (default: all)"
	fromHelp := "first `TIME` to print, inclusive, in ns on the trace's clock (the ts_ns dump prints): 1200 or 1200ns, 250us, 3ms, 1.5s; tick:N for a CDT tick index; index:N for a CTF metadata packet or fragment; _ may separate digits (default: from the start)"
	threadHelp := "only this thread `ID`: ATF thread id (7 or thread_7), dial9 worker id or track name, WTF zone name, CTF CPU (3 or cpu 3; a stream file's name when its packets have no cpu_id); refused for CDT (default: all)"
	if merge {
		typeHelp = "only events of this `KIND`: call, return, exception or a number (default: all)"
		fromHelp = "first `TIME` to print, inclusive, in ns (the session's clock): 1200, 250us, 1.5s; _ may separate digits (default: from the start)"
		threadHelp = "only this thread `ID` (default: all)"
	}
	fs.StringVar(&o.Type, "type", "", typeHelp)
	fs.StringVar(&o.Type, "name", "", "alias of --type `NAME`")
	from := fs.String("from", "", fromHelp)
	to := fs.String("to", "", "last `TIME` to print, inclusive, written as for --from (default: to the end)")
	fs.StringVar(&o.Thread, "thread", "", threadHelp)
	pos, code, ok := c.parse(fs, args, 1, 1)
	if !ok {
		return code
	}
	for _, tf := range []struct {
		name, raw string
		dst       **inspect.Time
	}{{"from", *from, &o.From}, {"to", *to, &o.To}} {
		if tf.raw == "" {
			continue
		}
		t, err := inspect.ParseTime(tf.raw)
		if err != nil {
			return c.usageError(name, "--%s: %v", tf.name, err)
		}
		*tf.dst = &t
	}
	in, f, err := c.open(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	op := f.dump
	if merge {
		op = f.merge
	}
	if op == nil {
		return c.usageError(name, "%s: %s is not supported for %s", pos[0], name, f.name)
	}
	w := bufio.NewWriterSize(ctxWriter{newStopCheck(c.context()), c.stdout}, 64<<10)
	err = op(in, w, o)
	if ferr := w.Flush(); err == nil && ferr != nil && !errors.Is(ferr, errBrokenPipe) {
		err = ferr
	}
	if isUsage(err) {
		return c.usageError(name, "%s", usageText(err))
	}
	printRecovery(c.stderr, pos[0], in)
	if err != nil {
		return c.fail(pos[0], err)
	}
	return exitOK
}

// intFlag is an optional integer flag: its raw text and where to store it.
type intFlag struct {
	name string
	raw  string
	v    *int64
	has  *bool
}

// parseInts parses optional integer flags of command cmd, printing the first
// bad one.
func (c *cli) parseInts(cmd string, flags ...intFlag) bool {
	for _, f := range flags {
		v, has, err := parseInt(f.raw)
		if err != nil {
			c.usageError(cmd, "--%s: %v", f.name, err)
			return false
		}
		*f.v, *f.has = v, has
	}
	return true
}

func (c *cli) cmdDiff(args []string) int {
	fs := c.flags("diff")
	var o diffOptions
	fs.BoolVar(&o.JSON, "json", false, "print the reference's dbg diff report object, indented (default: a text summary)")
	start := fs.String("tick-start", "", "first `TICK` index to compare, inclusive (default: the first tick)")
	end := fs.String("tick-end", "", "last `TICK` index to compare, inclusive (default: the last tick)")
	pos, code, ok := c.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	if !c.parseInts("diff", intFlag{"tick-start", *start, &o.TickStart, &o.HasStart}, intFlag{"tick-end", *end, &o.TickEnd, &o.HasEnd}) {
		return exitUsage
	}
	a, fa, err := c.open(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	b, fb, err := c.open(pos[1])
	if err != nil {
		return c.fail(pos[1], err)
	}
	if fa != fb {
		fmt.Fprintf(c.stderr, "tracecat: cannot diff %s against %s\n", fa.name, fb.name)
		return exitUsage
	}
	if fa.diff == nil {
		return c.usageError("diff", "%s: diff compares CDT traces, and this is %s", pos[0], fa.name)
	}
	w := bufio.NewWriter(c.stdout)
	code, err = fa.diff(a, b, w, o)
	w.Flush()
	if err != nil {
		return c.fail(pos[0], err)
	}
	return code
}

func (c *cli) cmdConvert(args []string) int {
	fs := c.flags("convert")
	to := fs.String("to", "", "target `FORMAT`: chrome (ATF, dial9, WTF, CDT, a CTF trace folder); json, json-partial, json-events or binary (WTF); plain, tsdl or packetized[,le|be][,1.8|2.0|2.0-37][,size=N] (CTF metadata) (required)")
	fields := fs.String("fields", "", "comma-separated numeric checkpoint `FIELDS` drawn as counter tracks (CDT to chrome) (default: the built-in set)")
	force := fs.Bool("force", false, "write output the format's readers are known to reject (CTF: TSDL text in version-2.0 packet headers, which babeltrace 2.0 and 2.1 refuse; CTF 2 metadata in packets, which babeltrace 2.1 reads only as plain text)")
	pos, code, ok := c.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	if *to == "" {
		return c.usageError("convert", "--to is required")
	}
	if target, _, _ := strings.Cut(*to, ","); !containsStr(convertTargets, target) {
		return c.usageError("convert", "--to %q: want one of %s", *to, strings.Join(convertTargets, ", "))
	}
	in, f, err := c.open(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	if f.convert == nil {
		return c.usageError("convert", "%s: convert is not supported for %s", pos[0], f.name)
	}
	if f.name == "ctf" && *to == "chrome" && !in.IsDir() {
		// Before creating OUT: CTF metadata describes a trace's streams and
		// events; it holds no events to draw. A trace folder without data
		// streams converts to a trace without events, as an empty trace of
		// the other formats does (babeltrace2 reads it, printing nothing).
		return c.fail(pos[0], usageErrorf("a CTF metadata file, data stream or packet index alone holds no events, so it has no Chrome trace form: ctf converts to plain or packetized (a trace folder converts to chrome)"))
	}
	if f.name == "ctf" && *to != "chrome" && in.Variant() == "session" {
		return c.fail(pos[0], usageErrorf("a folder of CTF traces (an LTTng session) converts to chrome; plain, packetized and tsdl convert the metadata of one trace: give one of the trace folders inside it"))
	}
	o := convertOptions{Force: *force, Warn: func(w string) { fmt.Fprintf(c.stderr, "%s: warning: %s\n", pos[0], w) }}
	if *fields != "" {
		o.Fields = strings.Split(*fields, ",")
	}
	out, commit, err := c.createOutput(pos[1])
	if isUsage(err) {
		return c.usageError("convert", "%s", usageText(err))
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
		return exitInvalid
	}
	// Progress counts the bytes written: a converter reads its input in
	// its own way, and every one writes as it goes.
	p := newProgress("convert: written", 0, in.Size() >= progressThreshold || in.IsDir())
	err = f.convert(in, *to, progressWriter{out, p}, o)
	p.Done()
	if cerr := commit(err == nil); err == nil {
		err = cerr
	}
	printRecovery(c.stderr, pos[0], in)
	if err != nil {
		return c.fail(pos[0], err)
	}
	return exitOK
}

func (c *cli) cmdSample(args []string) int {
	args, code, ok := c.parse(c.flags("sample"), args, 2, 2)
	if !ok {
		return code
	}
	f := formats[args[0]]
	if f == nil || !f.hasSample() {
		var names []string
		for n, f := range formats {
			if f.hasSample() {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		fmt.Fprintf(c.stderr, "tracecat: no sample for %q (have: %s)\n", args[0], strings.Join(names, ", "))
		return exitUsage
	}
	// A folder sample (CTF) goes into a temporary folder beside OUT,
	// renamed when complete; OUT must not exist.
	write := func() error {
		out, commit, err := c.createOutput(args[1])
		if err == nil {
			err = f.sample(out)
			if cerr := commit(err == nil); err == nil {
				err = cerr
			}
		}
		return err
	}
	if f.sampleDir != nil {
		if args[1] == "-" {
			fmt.Fprintf(c.stderr, "tracecat: the %s sample is a trace folder: name the folder to write, not standard output\n", f.name)
			return exitUsage
		}
		write = func() error {
			tmp, commit, err := createOutputDir(args[1])
			if err == nil {
				err = f.sampleDir(tmp)
				if cerr := commit(err == nil); err == nil {
					err = cerr
				}
			}
			return err
		}
	}
	if err := write(); isUsage(err) {
		fmt.Fprintf(c.stderr, "tracecat: %s\n", usageText(err))
		return exitUsage
	} else if err != nil {
		fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
		return exitInvalid
	}
	return exitOK
}

// cmdDemo writes a sample trace of every format into DIR (a new temporary folder
// by default) and runs detect, validate, stats, dump and convert --to chrome
// on each, then one Parquet export of them all: the README's "main job",
// needing no input file.
func (c *cli) cmdDemo(args []string) int {
	args, code, ok := c.parse(c.flags("demo"), args, 0, 1)
	if !ok {
		return code
	}
	// The folder is removed at the end when it is a temporary one, and on an
	// interrupt whenever demo created it.
	dir, temporary, created := "", false, false
	if len(args) == 1 {
		dir = args[0]
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			created = true
		}
		if err := os.MkdirAll(dir, 0o777); err != nil {
			fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
			return exitInvalid
		}
	} else {
		d, err := os.MkdirTemp("", "tracecat-demo-")
		if err != nil {
			fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
			return exitInvalid
		}
		dir, temporary, created = d, true, true
	}
	if created {
		addTemporary(dir, true)
		defer func() {
			if temporary || interrupted(c.context()) != nil {
				os.RemoveAll(dir)
			}
			dropTemporary(dir, nil)
		}()
	}
	var names []string
	for n, f := range formats {
		if f.hasSample() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		fmt.Fprintln(c.stderr, "tracecat: this build has no format with a sample writer")
		return exitInvalid
	}
	code = exitOK
	var eventInputs []string
	for _, n := range names {
		path := filepath.Join(dir, sampleName[n])
		fmt.Fprintf(c.stdout, "== %s: tracecat sample %s %s\n", n, n, path)
		steps := [][]string{{"sample", n, path}, {"detect", path}, {"validate", path}, {"stats", path},
			{"dump", path}, {"convert", "--to", "chrome", path, filepath.Join(dir, sampleName[n]+".chrome.json")}}
		eventInputs = append(eventInputs, path)
		if !c.demoSteps(steps) {
			code = exitInvalid
		}
	}
	if len(eventInputs) > 0 && lookupCommand("export") != nil {
		fmt.Fprintln(c.stdout, "== every event format into one Parquet dataset")
		if !c.demoSteps([][]string{append(append([]string{"export", "--to", "parquet"}, eventInputs...), filepath.Join(dir, "parquet"))}) {
			code = exitInvalid
		}
	}
	if temporary {
		fmt.Fprintf(c.stdout, "(%s is removed now; run \"tracecat demo DIR\" to keep the traces, the Chrome JSON and the Parquet dataset)\n", dir)
	} else {
		fmt.Fprintf(c.stdout, "Outputs in %s: *.chrome.json open in https://ui.perfetto.dev; parquet/ is for DuckDB (SELECT * FROM '%s/parquet/**/*.parquet').\n", dir, dir)
	}
	return code
}

// demoDumpLines is how many lines of a dump demo shows.
const demoDumpLines = 4

// demoSteps runs the commands of demo, echoing each; a dump shows its first
// demoDumpLines lines, and a convert or export where its output went. It
// reports whether every step succeeded.
func (c *cli) demoSteps(steps [][]string) bool {
	for _, st := range steps {
		if err := interrupted(c.context()); err != nil {
			fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
			return false
		}
		if st[0] != "sample" {
			fmt.Fprintf(c.stdout, "$ tracecat %s\n", strings.Join(st, " "))
		}
		rc := exitOK
		if st[0] == "dump" {
			saved := c.stdout
			h := &headWriter{w: saved, lines: demoDumpLines}
			c.stdout = h
			rc = c.run(st)
			c.stdout = saved
			if h.more > 0 {
				fmt.Fprintf(c.stdout, "… %d more lines\n", h.more)
			}
		} else {
			rc = c.run(st)
		}
		if rc != exitOK {
			return false
		}
		if st[0] == "convert" || st[0] == "export" {
			fmt.Fprintf(c.stdout, "wrote %s\n", st[len(st)-1])
		}
	}
	return true
}

// headWriter passes on the first lines lines written through it and counts
// the lines after them.
type headWriter struct {
	w     io.Writer
	lines int
	more  int
}

func (h *headWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line := b
		if i >= 0 {
			line = b[:i+1]
		}
		b = b[len(line):]
		if h.lines > 0 {
			if _, err := h.w.Write(line); err != nil {
				return 0, err
			}
			if i >= 0 {
				h.lines--
			}
		} else if i >= 0 {
			h.more++
		}
	}
	return n, nil
}

// convertTargets are the values of convert --to (before any ",option").
var convertTargets = []string{"chrome", "json", "json-partial", "json-events", "binary", "plain", "tsdl", "packetized"}

// sampleName is the file name of each format's sample, with the customary
// extension (the CTF sample is a trace folder).
var sampleName = map[string]string{
	"cdt": "sample.cdt", "dial9": "sample.dial9.bin", "atf": "sample-index.atf",
	"ctf": "sample-ctf", "wtf": "sample.wtf-trace",
}
