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
// standard output. Every file is written under a temporary name beside the
// target and renamed when complete; SIGINT or SIGTERM removes it. Exit codes:
// 0 success, 1 invalid input (printed as "PATH: offset N: what is wrong") or a
// finding such as a divergence, 2 usage errors, 130 after SIGINT and 143 after
// SIGTERM.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tracecodec/tracecodec/internal/ferr"
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
	// sample writes a small valid trace of this format, for trying the tool.
	sample func(out io.Writer) error
	// check, when set, is used by validate instead of validate: problems
	// lists what the input lost, recovered or contradicts about itself (one
	// line each, printed as warnings; none means clean).
	check func(in *input) (summary string, problems []string, err error)
}

var formats = map[string]*format{}

func register(f *format) {
	if _, dup := formats[f.name]; dup {
		panic("tracecat: format registered twice: " + f.name)
	}
	formats[f.name] = f
}

// dumpOptions are the filters shared by dump and merge.
type dumpOptions struct {
	JSON    bool
	Type    string // --type / --name: record type or event name filter ("" = all)
	From    int64  // --from: first time (ns/µs as the format counts) or tick; valid when HasFrom
	To      int64  // --to: last time or tick, inclusive; valid when HasTo
	HasFrom bool
	HasTo   bool
	Thread  string // --thread: thread filter ("" = all)
}

// inRange reports whether v passes the --from/--to filter.
func (o dumpOptions) inRange(v int64) bool {
	return (!o.HasFrom || v >= o.From) && (!o.HasTo || v <= o.To)
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
	ctx, stop := watchSignals(context.Background())
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, ctx: ctx}
	code := c.run(os.Args[1:])
	activeProgress.erase()
	stop()
	os.Exit(exitCode(ctx, code))
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

// fail prints an input error as "PATH: offset N: what is wrong" and returns 1.
func (c *cli) fail(path string, err error) int {
	var ie *interruptError
	if errors.As(err, &ie) {
		fmt.Fprintf(c.stderr, "tracecat: %v\n", ie)
		return exitInvalid
	}
	var fe *ferr.Error
	if errors.As(err, &fe) {
		fmt.Fprintf(c.stderr, "%s: %s\n", path, fe.Detail())
	} else {
		fmt.Fprintf(c.stderr, "%s: %v\n", path, err)
	}
	return exitInvalid
}

// open detects the format of path and returns its input and handler.
func (c *cli) open(path string) (*input, *format, error) {
	in, err := newInput(path, c.stdin)
	if err != nil {
		return nil, nil, err
	}
	in.ctx = c.ctx
	if in.det.Format == "unknown" {
		return nil, nil, errors.New("unrecognised format")
	}
	f := formats[in.det.Format]
	if f == nil {
		return nil, nil, fmt.Errorf("format %s is detected but not supported by this build", in.det.Format)
	}
	return in, f, nil
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
			return result{out: j.path + ": " + in.det.String(), invalid: !j.walked, skipped: j.walked}
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
		summary, problems, losses, err := validateInput(in, f, *strict)
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
		line := j.path + ": ok"
		if summary != "" {
			line += " (" + summary + ")"
		}
		for _, p := range problems {
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
	summary, problems, losses, err := validateInput(in, f, strict)
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
	for _, p := range problems {
		fmt.Fprintf(c.stderr, "%s: warning: %s\n", path, p)
	}
	printRecovery(c.stderr, path, in)
	if summary != "" {
		fmt.Fprintf(c.stdout, "ok (%s)\n", summary)
	} else {
		fmt.Fprintln(c.stdout, "ok")
	}
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
	typeHelp := "only records of this `NAME`: event name (dial9, WTF), event kind call|return|exception (ATF), channel, chunks, meta or footer (CDT), packet or fragment type (CTF) (default: all)"
	fromHelp := "first `TIME` to print, inclusive: ns for ATF and dial9, µs for WTF, tick index for CDT, packet or fragment index for CTF; _ may separate digits (default: from the start)"
	threadHelp := "only this thread `ID` (ATF thread id, WTF zone name) (default: all)"
	if merge {
		typeHelp = "only events of this `KIND`: call, return, exception or a number (default: all)"
		fromHelp = "first timestamp to print, in `NS` (the session's clock), inclusive; _ may separate digits (default: from the start)"
		threadHelp = "only this thread `ID` (default: all)"
	}
	fs.StringVar(&o.Type, "type", "", typeHelp)
	fs.StringVar(&o.Type, "name", "", "alias of --type `NAME`")
	from := fs.String("from", "", fromHelp)
	to := fs.String("to", "", "last `TIME` to print, inclusive, in the unit of --from (default: to the end)")
	fs.StringVar(&o.Thread, "thread", "", threadHelp)
	pos, code, ok := c.parse(fs, args, 1, 1)
	if !ok {
		return code
	}
	if !c.parseInts(name, intFlag{"from", *from, &o.From, &o.HasFrom}, intFlag{"to", *to, &o.To, &o.HasTo}) {
		return exitUsage
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
		return c.fail(pos[0], fmt.Errorf("%s is not supported for %s", name, f.name))
	}
	w := bufio.NewWriterSize(ctxWriter{newStopCheck(c.context()), c.stdout}, 64<<10)
	err = op(in, w, o)
	if ferr := w.Flush(); err == nil && ferr != nil && !errors.Is(ferr, errBrokenPipe) {
		err = ferr
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
		return c.fail(pos[0], fmt.Errorf("diff is not supported for %s", fa.name))
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
	to := fs.String("to", "", "target `FORMAT`: chrome (ATF, dial9, WTF, CDT); json, json-partial, json-events or binary (WTF); plain or packetized[,le|be][,1.8|2.0|2.0-37][,size=N] (CTF metadata) (required)")
	fields := fs.String("fields", "", "comma-separated numeric checkpoint `FIELDS` drawn as counter tracks (CDT to chrome) (default: the built-in set)")
	force := fs.Bool("force", false, "write output the format's readers are known to reject (CTF: TSDL text in version-2.0 packet headers, which babeltrace 2.0 and 2.1 refuse; CTF 2 metadata in packets, which babeltrace 2.1 reads only as plain text)")
	pos, code, ok := c.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	if *to == "" {
		return c.usageError("convert", "--to is required")
	}
	in, f, err := c.open(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	if f.convert == nil {
		return c.fail(pos[0], fmt.Errorf("convert is not supported for %s", f.name))
	}
	if f.name == "ctf" && *to == "chrome" && !in.IsDir() {
		// Before creating OUT: CTF metadata describes a trace's streams and
		// events; it holds no events to draw.
		return c.fail(pos[0], errors.New("CTF metadata holds no events, so it has no Chrome trace form: ctf converts to plain or packetized"))
	}
	o := convertOptions{Force: *force}
	if *fields != "" {
		o.Fields = strings.Split(*fields, ",")
	}
	out, commit, err := c.createOutput(pos[1])
	if err != nil {
		fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
		return exitInvalid
	}
	err = f.convert(in, *to, out, o)
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
	if f == nil || f.sample == nil {
		var names []string
		for n, f := range formats {
			if f.sample != nil {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		fmt.Fprintf(c.stderr, "tracecat: no sample for %q (have: %s)\n", args[0], strings.Join(names, ", "))
		return exitUsage
	}
	out, commit, err := c.createOutput(args[1])
	if err != nil {
		fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
		return exitInvalid
	}
	err = f.sample(out)
	if cerr := commit(err == nil); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
		return exitInvalid
	}
	return exitOK
}

// cmdDemo writes a sample trace of every format into DIR (a new temporary folder
// by default) and runs detect, validate and stats on each: the README's
// "main job", needing no input file.
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
		if f.sample != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		fmt.Fprintln(c.stderr, "tracecat: this build has no format with a sample writer")
		return exitInvalid
	}
	code = exitOK
	for _, n := range names {
		path := filepath.Join(dir, sampleName[n])
		fmt.Fprintf(c.stdout, "== %s: tracecat sample %s %s\n", n, n, path)
		steps := [][]string{{"sample", n, path}, {"detect", path}, {"validate", path}, {"stats", path}}
		for _, st := range steps {
			if err := interrupted(c.context()); err != nil {
				fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
				return exitInvalid
			}
			if st[0] != "sample" {
				fmt.Fprintf(c.stdout, "$ tracecat %s\n", strings.Join(st, " "))
			}
			if rc := c.run(st); rc != exitOK {
				code = rc
				break
			}
		}
	}
	return code
}

// sampleName is the file name of each format's sample, with the customary
// extension.
var sampleName = map[string]string{
	"cdt": "sample.cdt", "dial9": "sample.dial9.bin", "atf": "sample-index.atf",
	"ctf": "sample-ctf-metadata", "wtf": "sample.wtf-trace",
}
