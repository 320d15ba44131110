// Command tracecat inspects, validates, dumps, diffs, merges and converts the
// trace formats of this module: CDT, dial9, ATF, CTF metadata and WTF.
//
//	tracecat detect PATH...
//	tracecat validate PATH
//	tracecat stats [--json] PATH
//	tracecat dump [--json] [--type NAME] [--from N] [--to N] [--thread ID] PATH
//	tracecat diff [--json] [--tick-start N] [--tick-end M] A.cdt B.cdt
//	tracecat merge [--json] SESSION_DIR
//	tracecat convert --to FORMAT IN OUT
//	tracecat sample FORMAT OUT
//	tracecat demo [DIR]
//
// PATH may be "-" for standard input (read into memory). Exit codes: 0 success,
// 1 invalid input (printed as "PATH: offset N: what is wrong") or a finding such
// as a divergence, 2 usage errors.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
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

// cli carries the streams so tests can run commands in-process.
type cli struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func main() {
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	os.Exit(c.run(os.Args[1:]))
}

func (c *cli) usage() int {
	fmt.Fprint(c.stderr, `usage:
  tracecat detect PATH...
  tracecat validate PATH
  tracecat stats [--json] PATH
  tracecat dump [--json] [--type NAME] [--from N] [--to N] [--thread ID] PATH
  tracecat diff [--json] [--tick-start N] [--tick-end M] A.cdt B.cdt
  tracecat merge [--json] SESSION_DIR
  tracecat convert --to FORMAT IN OUT
  tracecat sample FORMAT OUT
  tracecat demo [DIR]      write a sample of every format, then detect, validate and stat it
PATH may be - for standard input.
`)
	return exitUsage
}

func (c *cli) run(args []string) int {
	if len(args) == 0 {
		return c.usage()
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "detect":
		return c.cmdDetect(rest)
	case "validate":
		return c.cmdValidate(rest)
	case "stats":
		return c.cmdStats(rest)
	case "dump":
		return c.cmdDump(rest, false)
	case "merge":
		return c.cmdDump(rest, true)
	case "diff":
		return c.cmdDiff(rest)
	case "convert":
		return c.cmdConvert(rest)
	case "sample":
		return c.cmdSample(rest)
	case "demo":
		return c.cmdDemo(rest)
	case "help", "-h", "--help":
		c.usage()
		return exitOK
	}
	fmt.Fprintf(c.stderr, "tracecat: unknown command %q\n", cmd)
	return c.usage()
}

func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	return fs
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
	if len(args) == 0 {
		return c.usage()
	}
	code := exitOK
	for _, p := range args {
		in, err := newInput(p, c.stdin)
		if err != nil {
			code = c.fail(p, err)
			continue
		}
		fmt.Fprintf(c.stdout, "%s: %s\n", p, in.det)
		if in.det.Format == "unknown" {
			code = exitInvalid
		}
	}
	return code
}

func (c *cli) cmdValidate(args []string) int {
	fs := c.flags("validate")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 1 {
		return c.usage()
	}
	in, f, err := c.open(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	if f.validate == nil {
		return c.fail(pos[0], fmt.Errorf("validate is not supported for %s", f.name))
	}
	summary, err := f.validate(in)
	if err != nil {
		return c.fail(pos[0], err)
	}
	if summary != "" {
		fmt.Fprintf(c.stdout, "ok (%s)\n", summary)
	} else {
		fmt.Fprintln(c.stdout, "ok")
	}
	return exitOK
}

func (c *cli) cmdStats(args []string) int {
	fs := c.flags("stats")
	asJSON := fs.Bool("json", false, "print one JSON object")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 1 {
		return c.usage()
	}
	in, f, err := c.open(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	if f.stats == nil {
		return c.fail(pos[0], fmt.Errorf("stats is not supported for %s", f.name))
	}
	st, err := f.stats(in)
	if err != nil {
		return c.fail(pos[0], err)
	}
	st = append(statList{{"format", f.name}}, st...)
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

func (c *cli) cmdDump(args []string, merge bool) int {
	name := "dump"
	if merge {
		name = "merge"
	}
	fs := c.flags(name)
	var o dumpOptions
	fs.BoolVar(&o.JSON, "json", false, "JSON Lines output")
	fs.StringVar(&o.Type, "type", "", "only records of this type or event name")
	fs.StringVar(&o.Type, "name", "", "alias of --type")
	from := fs.String("from", "", "first time or tick to print")
	to := fs.String("to", "", "last time or tick to print (inclusive)")
	fs.StringVar(&o.Thread, "thread", "", "only this thread")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 1 {
		return c.usage()
	}
	if !c.parseInts(intFlag{"from", *from, &o.From, &o.HasFrom}, intFlag{"to", *to, &o.To, &o.HasTo}) {
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
	w := bufio.NewWriterSize(c.stdout, 64<<10)
	err = op(in, w, o)
	if ferr := w.Flush(); err == nil && ferr != nil && !errors.Is(ferr, errBrokenPipe) {
		err = ferr
	}
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

// parseInts parses optional integer flags, printing the first bad one.
func (c *cli) parseInts(flags ...intFlag) bool {
	for _, f := range flags {
		v, has, err := parseInt(f.raw)
		if err != nil {
			fmt.Fprintf(c.stderr, "tracecat: --%s: %v\n", f.name, err)
			return false
		}
		*f.v, *f.has = v, has
	}
	return true
}

func (c *cli) cmdDiff(args []string) int {
	fs := c.flags("diff")
	var o diffOptions
	fs.BoolVar(&o.JSON, "json", false, "print the report as JSON")
	start := fs.String("tick-start", "", "first tick to compare")
	end := fs.String("tick-end", "", "last tick to compare")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 2 {
		return c.usage()
	}
	if !c.parseInts(intFlag{"tick-start", *start, &o.TickStart, &o.HasStart}, intFlag{"tick-end", *end, &o.TickEnd, &o.HasEnd}) {
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
	code, err := fa.diff(a, b, w, o)
	w.Flush()
	if err != nil {
		return c.fail(pos[0], err)
	}
	return code
}

func (c *cli) cmdConvert(args []string) int {
	fs := c.flags("convert")
	to := fs.String("to", "", "target: chrome, json, binary, plain, packetized")
	fields := fs.String("fields", "", "comma-separated numeric fields for counter tracks (CDT)")
	force := fs.Bool("force", false, "write output known readers reject (CTF: TSDL text in version-2.0 packets)")
	pos, err := parseArgs(fs, args)
	if err != nil || len(pos) != 2 || *to == "" {
		return c.usage()
	}
	in, f, err := c.open(pos[0])
	if err != nil {
		return c.fail(pos[0], err)
	}
	if f.convert == nil {
		return c.fail(pos[0], fmt.Errorf("convert is not supported for %s", f.name))
	}
	o := convertOptions{Force: *force}
	if *fields != "" {
		o.Fields = strings.Split(*fields, ",")
	}
	out, commit, err := createOutput(pos[1], c.stdout)
	if err != nil {
		fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
		return exitInvalid
	}
	err = f.convert(in, *to, out, o)
	if cerr := commit(err == nil); err == nil {
		err = cerr
	}
	if err != nil {
		return c.fail(pos[0], err)
	}
	return exitOK
}

func (c *cli) cmdSample(args []string) int {
	if len(args) != 2 {
		return c.usage()
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
	out, commit, err := createOutput(args[1], c.stdout)
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
	if len(args) > 1 {
		return c.usage()
	}
	dir := ""
	if len(args) == 1 {
		dir = args[0]
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
			return exitInvalid
		}
	} else {
		d, err := os.MkdirTemp("", "tracecat-demo-")
		if err != nil {
			fmt.Fprintf(c.stderr, "tracecat: %v\n", err)
			return exitInvalid
		}
		defer os.RemoveAll(d)
		dir = d
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
	code := exitOK
	for _, n := range names {
		path := filepath.Join(dir, sampleName[n])
		fmt.Fprintf(c.stdout, "== %s: tracecat sample %s %s\n", n, n, path)
		steps := [][]string{{"sample", n, path}, {"detect", path}, {"validate", path}, {"stats", path}}
		for _, st := range steps {
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
