package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one tracecat subcommand: what help says about it and what runs
// it. Its flags are defined by run itself (so help and parsing cannot
// disagree): help obtains them by running the command with -h.
type command struct {
	name     string
	args     string   // what follows the name, e.g. "[--json] PATH"
	summary  string   // one line for the command list
	doc      string   // what the command does, paragraphs separated by blank lines
	examples []string // invocations, each "tracecat NAME ..."; a "  # comment" may follow
	run      func(c *cli, args []string) int
}

// commands in the order `tracecat help` lists them.
var commands []*command

// registerCommand adds a command to the table. Files that add commands call
// it from init.
func registerCommand(cmd *command) {
	if lookupCommand(cmd.name) != nil {
		panic("tracecat: command registered twice: " + cmd.name)
	}
	commands = append(commands, cmd)
}

func lookupCommand(name string) *command {
	for _, cmd := range commands {
		if cmd.name == name {
			return cmd
		}
	}
	return nil
}

func init() {
	for _, cmd := range []*command{
		{
			name: "detect", args: "PATH...", summary: "name the format of files and folders",
			doc: `Prints "PATH: FORMAT" for each path: cdt, dial9, atf, ctf, wtf or unknown, with
the variant in parentheses where one is recognised (for example "atf (session)" or
"ctf (packetized, CTF 1.8, little-endian)"). Detection looks at magic bytes and layout,
never at file names; a folder is recognised as an ATF session or a CTF trace.

A folder that is no trace is walked recursively: every trace folder in it is one
input, every regular file another (symbolic links and devices are not read); its
files that are no trace are skipped and counted. With several inputs a summary line
ends the output. Exit 1 if any named path is unknown or cannot be read.`,
			examples: []string{"tracecat detect run.cdt trace.bin.gz session_20250101_120000/"},
			run:      (*cli).cmdDetect,
		},
		{
			name: "validate", args: "[--strict] PATH...", summary: "check traces from end to end",
			doc: `Reads the whole input and checks every length, checksum and record the format
defines. Prints "ok" (with a short summary, and warnings for what was read
leniently) and exits 0, or prints
"PATH: offset N: what is wrong" on standard error and exits 1.

A damaged or unfinished input adds one line on standard error, the same in
validate, stats, dump and convert for every format: "PATH: recovery: read N UNITS in
B bytes; lost L bytes and M UNITS from offset O: why" (the UNITS are events, CDT
ticks, CTF packets or fragments; "an unknown number" when the format cannot count
them; notes on lenient readings follow). What a writer that did not finish left
exits 1 in every format — a CDT trace without footer, a cut or corrupted dial9
stream, a torn WTF file, an ATF file without footer, a CTF data stream cut inside a
packet (babeltrace2 refuses it too) — with what is recoverable
(stats, dump and convert read it); what a killed writer never wrote leaves no trace
(README: what a crash can lose). Lenient readings (CTF metadata, ATF warnings such
as a session without manifest) exit 0. The ok line ends with what a killed writer of
the format could lose without a trace, which no reader can see: "ok (SUMMARY); a
crash could lose without a trace: …" (CDT the open chunk, dial9 each thread's unflushed
batch, ATF up to 127 events per thread, WTF each thread's open chunk).

Time order is reported, not failed, where the format does not promise it: an ATF
thread whose index timestamps go back gets "warning: thread N: timestamps go back K
times (first at event I: T1 → T2 ns)" — the reference's own writer produces such
threads (a detail lane's events follow the index lane's), so --strict passes them too.
dial9 (a timestamp reset frame may go back) and WTF (chunks of threads interleave)
promise no order either: stats' time_backwards counts, in every event format, the
events earlier than the one before them on their track. CDT ticks must not decrease
(the writer refuses them); a file where they do shows in time_backwards.

--strict fails (exit 1) on what the default reads leniently: files recovered
without their footer, torn or truncated records, trailing bytes, and the other
problems a format reports (a CTF trace: packet headers whose UUID differs from the
metadata's or whose magic number is wrong, an LTTng index that cannot be parsed); each "PATH: strict: …" line says what was lost.
Losses a CTF tracer recorded (discarded events, packet_seq_num gaps) are
warnings that --strict passes, one per gap ("FILE: packet N: the tracer discarded K
event records", "FILE: packet N: K packets lost (sequence number gap)"), counted as
babeltrace2 warns of them: the files of one data stream (LTTng's tracefile rotation:
channel0_0, channel0_0_1, …) are read as one stream, so a gap from one file's last
packet to the next file's first is listed at the second.

Many paths and folders (walked as for detect) are validated in parallel on every
core: one "PATH: ok (…)" or "PATH: what is wrong" line per input, in argument
order, then "N inputs: X ok, Y invalid (formats)". Exit 1 if any input is invalid.
A folder given whose only traces are CTF trace folders (an LTTng session folder)
gets one line per trace, then "FOLDER: session: ok (…)" — the traces dump, stats
and export read as one, those sharing a UUID (one trace, equal packets read once) —
or "FOLDER: session: …" saying why they cannot be read as one (clock classes
babeltrace2 cannot correlate: exit 1). Where traces share a UUID (rotation chunks), a
gap across two of them is a line of the session's: "FOLDER: session: warning:
TRACE/FILE: packet N: …" (the traces' own lines list the gaps inside each).`,
			examples: []string{"tracecat validate trace.wtf-trace", "tracecat validate --strict traces/  # every trace below traces/"},
			run:      (*cli).cmdValidate,
		},
		{
			name: "stats", args: "[--json] PATH...", summary: "counts, time range, sizes",
			doc: `Prints counts, time range and sizes as "key: value" lines, or one JSON object.
The keys depend on the format: cdt ticks, first_tick, last_tick, tick_chunks,
schema_version; dial9 events, schemas, events_by_type, first_ns, last_ns; atf threads,
events, detail_events, first_ns, last_ns, recovered; ctf packets, metadata_bytes,
metadata_sha256, byte_order, version (packets and byte_order describe the metadata
stream's packets: 0 and null for plain-text metadata; a CTF trace folder adds data_streams,
data_packets, events_by_stream, events_by_name, events_discarded, packets_lost; a folder
of CTF trace folders — an LTTng session, one input among many too — has traces, the
metadata keys for all its traces (packets and metadata_bytes summed; metadata_sha256,
byte_order and version their common value, else null), those keys (its streams named
by trace folder and file, all its traces read as one: a trace sharing another's UUID
adds no event) and by_trace, each trace's metadata keys, events, data_streams and
same_trace_as); wtf
chunks, events, events_by_name, zones. Times are in the trace's own clock: ns for ATF,
dial9 and CTF, µs for WTF, tick index for CDT. Every event format (cdt, dial9, atf,
wtf, a ctf trace folder) also has events, first_ns and last_ns (the first and last
timed event in stream order), min_ns and max_ns, time_backwards, read through the
event layer (ns on the trace's clock); ratios are rounded to two decimals.
Every format has "recovery": what a damaged input lost (see validate), null (or
"-") for a clean one. Stats reads on past damage where the format allows: a CTF packet
holding an event record that cannot be decoded is counted up to it and its rest lost,
the next packet read; a packet whose header or context cannot be decoded is lost whole
when the stream's LTTng index (index/FILE.idx) gives the next packet's place, else
the stream stops there (dump and validate stop at either, as babeltrace2 does).
data_packets counts each packet read once, where copies of a data stream hold equal
packets (read once).

Many paths and folders (walked as for detect) are read in parallel: one block (or,
with --json, one object with "path" first) per input, then a summary
({"summary": {"inputs", "ok", "invalid", "skipped", "formats"}} with --json).`,
			examples: []string{"tracecat stats --json trace.bin.gz", "tracecat stats --json traces/ > stats.jsonl"},
			run:      (*cli).cmdStats,
		},
		{
			name: "dump", args: "[--json] [--type NAME] [--from TIME] [--to TIME] [--thread ID] PATH",
			summary: "one line per record, streamed",
			doc: `Prints one line (or, with --json, one JSON Lines object) per record: events for
ATF, dial9, WTF, CDT (one per tick) and a CTF trace folder (its event records merged by
time, as babeltrace2's text output prints them), packets and fragments for CTF
metadata. The output is streamed: memory stays constant on multi-gigabyte traces.

A folder whose only traces are CTF trace folders (an LTTng session folder: kernel/
beside ust/uid/1000/64-bit/) is one trace, as babeltrace2 reads it: the events of all
its traces merged by time, equal times in babeltrace2's order; errors name the trace
folder and the file. --thread selects a CTF track by id — a CPU (3 or "cpu 3": every
stream of that CPU, in every trace), or 2^32 + N for the stream without cpu_id whose
first file is the N-th (the track --json prints) — or by a stream file's name.

The event formats go through the event layer (the Go package events/inspect
prints the same): text and --json give the same records in the same order — an ATF
session in the cross-thread merged order (time, thread position, sequence) — and
the filters mean the same in both. --json writes one schema (see the README):
format, record, kind, name, ts_ns, dur_ns, track_kind, track, track_name, args. A text
line carries the same fields: TS KIND NAME [TRACK] record keys | args, values as JSON
writes them. CDT's --type views (a channel, chunks, meta, footer) keep their own form,
and so does a CTF trace's text (babeltrace2's), with the same records and filters;
its wall-clock times are UTC, where babeltrace2 prints local time (TZ=UTC babeltrace2
TRACE prints the same lines). Where the tracer of a CTF trace discarded event records
or lost packets, dump says so on standard error in one line with the totals
(babeltrace2 warns once per gap; validate lists each gap, stats counts them).

Times are ns on the trace's clock, as ts_ns prints them, for every format: a bare
number is ns, or give a unit — 1200ns, 250us (or µs), 3ms, 1.5s. tick:N selects CDT
ticks by tick index and index:N CTF metadata packets and fragments by position. A flag
a format cannot honour (--thread on CDT, tick:N on dial9, an ATF --type that is no
event kind) is refused with exit 2 rather than ignored.`,
			examples: []string{"tracecat dump --json --type poll --from 1.5s --to 2s trace.bin.gz", "tracecat dump --from tick:300 --to tick:310 run.cdt"},
			run:      func(c *cli, args []string) int { return c.cmdDump(args, false) },
		},
		{
			name: "merge", args: "[--json] [--type KIND] [--from TIME] [--to TIME] [--thread ID] SESSION_DIR",
			summary: "ATF events of all threads in time order",
			doc: `Merges the events of every thread of an ATF session (a folder with
manifest.json and one index/detail file pair per thread) into one time-ordered stream,
one line (or JSON Lines object) per event, function names from the manifest's symbols:
what dump prints for an ATF session, with the same flags.`,
			examples: []string{"tracecat merge --thread 3 --from 1ms traces/session_20250101_120000/pid_4242"},
			run:      func(c *cli, args []string) int { return c.cmdDump(args, true) },
		},
		{
			name: "diff", args: "[--json] [--tick-start TICK] [--tick-end TICK] A.cdt B.cdt",
			summary: "CDT divergence report (exit 1 when diverged)",
			doc: `Compares two CDT traces tick by tick, as the reference's "dbg diff" does, and
reports the first tick where they diverge with every channel that differs there
(checkpoint, rng_stream, sim_state, entity_samples, timing_samples). A is the expected
run, B the actual one.

Exit 0 when the traces agree, 1 when they diverge or cannot be read.`,
			examples: []string{"tracecat diff --json --tick-start 0 --tick-end 200 golden.cdt candidate.cdt"},
			run:      (*cli).cmdDiff,
		},
		{
			name: "bisect", args: "[--window-before N] [--window-after N] A.cdt B.cdt",
			summary: "first divergent CDT tick and a window around it, as JSON",
			doc: `Finds the first tick where two CDT traces diverge and prints the reference's
"dbg bisect" report: {"schema_version", "status", "checked_count", "first_bad_tick",
"mismatch", "window_start", "window_end"}, indented as the reference writes it. The
window is first_bad_tick - window-before .. first_bad_tick + window-after, not clamped
to the trace; it and first_bad_tick are null when the traces agree. Like the
reference, it walks the ticks in order (it is not a binary search).

Exit 0 when the traces agree, 1 when they diverge or cannot be read.`,
			examples: []string{"tracecat bisect golden.cdt candidate.cdt"},
			run:      (*cli).cmdBisect,
		},
		tickCommand, entityCommand, queryCommand, focusCommand, // cdt_inspect.go
		{
			name: "convert", args: "--to FORMAT [--fields LIST] [--force] IN OUT", summary: "to Chrome trace JSON, WTF JSON/binary, CTF plain/tsdl/packetized",
			doc: `Converts IN into OUT ("-" for standard output). OUT is written under a temporary
name beside it and renamed when complete; an interrupt (Ctrl-C) removes it.

--to chrome writes Chrome trace-event JSON, which Perfetto UI (ui.perfetto.dev),
chrome://tracing and speedscope open: ATF calls/returns become slices per thread, WTF
scopes slices per zone, dial9 events instants (tokio poll start/end pairs slices), CDT
ticks counter tracks (--fields) and "tick" slices. A slice's fields are on its E event
(one speedscope frame per name); ts is µs since the first event on a thread, worker
or zone, with ns kept (otherData.time_base_ns is the start). CDT counters show in
Perfetto UI and chrome://tracing; speedscope draws no counters, only the tick slices.
A CTF trace folder (metadata and data streams) becomes instants, one row per CPU (a
data stream, its rotated files together), which Perfetto UI and chrome://tracing show
and speedscope (slices only) does not, except LTTng's calls, slices on the row of their
thread: user-space functions (lttng_ust_cyg_profile[_fast]:func_entry/func_exit, named
"0x" and the address; thread: the vtid context, with vpid) and system calls
(syscall_entry_NAME/syscall_exit_NAME, sys_NAME/exit_syscall before LTTng 2.7, named
NAME; thread: the tid context, else the CPU's last sched_switch, so a system call whose
thread changes CPU stays on its row; before a CPU's first sched_switch, instants). A
trace without such calls has no slice: convert warns. One without data streams is an
empty trace. A
CTF metadata file alone holds no events and has no Chrome form: convert it to plain or
packetized metadata instead. --to tsdl writes
CTF 1.8 TSDL text: CTF 2 metadata converts where TSDL can express it (refused otherwise, saying what and where; what
does not change decoding, like attributes and namespaces, is left out with a warning).`,
			examples: []string{
				"tracecat convert --to chrome traces/session_20250101_120000/pid_4242 atf.json",
				"tracecat convert --to packetized,be,1.8 metadata.tsdl metadata",
				"tracecat convert --to tsdl ctf2-trace/metadata metadata.tsdl",
			},
			run: (*cli).cmdConvert,
		},
		{
			name: "sample", args: "FORMAT OUT", summary: "write a small valid trace of a format",
			doc: `Writes a small valid trace of FORMAT (cdt, dial9, atf, ctf or wtf) to OUT, to try
the other commands on. OUT is written under a temporary name and renamed.

The ctf sample is a CTF 1.8 trace folder shaped like LTTng's: plain TSDL metadata
with the "/* CTF 1.8 */" signature, one data stream per CPU (channel0_0, channel0_1)
with its LTTng index in index/, and 400 events of 6 classes with integer, string,
enumeration and sequence fields. babeltrace2 reads it and prints what "tracecat
dump" prints. OUT must not exist, and cannot be standard output.`,
			examples: []string{"tracecat sample dial9 sample.dial9.bin", "tracecat sample ctf sample-ctf"},
			run:      (*cli).cmdSample,
		},
		{
			name: "demo", args: "[DIR]", summary: "sample + detect + validate + stats for every format",
			doc: `Writes a sample trace of every format into DIR, then runs detect, validate,
stats, dump (its first lines) and convert --to chrome on each, and one export --to
parquet of them all, printing the commands as it goes. Without DIR it uses a new temporary
folder and removes it at the end (or on an interrupt); a DIR that demo had to create
is removed on an interrupt too.`,
			examples: []string{"tracecat demo tracecat-demo"},
			run:      (*cli).cmdDemo,
		},
		{
			name: "version", args: "", summary: "module version and VCS revision of this build",
			doc: `Prints the module version and, when the binary was built from a checkout, the
VCS revision, its time and whether the tree had local changes. "go run" and "go build"
in a checkout give the version "(devel)"; "go install ...@vX.Y.Z" gives vX.Y.Z.`,
			examples: []string{"tracecat version"},
			run:      (*cli).cmdVersion,
		},
		{
			name: "help", args: "[COMMAND]", summary: "list the commands, or describe one",
			doc: `Without COMMAND, lists the commands. With it, describes the command: what it
does, its flags with their units and defaults, and an example. "tracecat COMMAND -h"
prints the same.`,
			examples: []string{"tracecat help convert"},
			run:      (*cli).cmdHelp,
		},
	} {
		registerCommand(cmd)
	}
}

func (c *cli) cmdHelp(args []string) int {
	pos, code, ok := c.parse(c.flags("help"), args, 0, 1)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		c.listCommands(c.stdout)
		return exitOK
	}
	cmd := lookupCommand(pos[0])
	if cmd == nil {
		return c.run(pos[:1]) // the unknown-command message and exit 2
	}
	// Every command answers -h with its help on standard output, exit 0.
	return cmd.run(c, []string{"-h"})
}

// listCommands prints the command list.
func (c *cli) listCommands(w io.Writer) {
	fmt.Fprint(w, `tracecat reads, checks and converts CDT, dial9, ATF, CTF and WTF traces.

usage: tracecat COMMAND [flags] [arguments]

commands:
`)
	width := 0
	for _, cmd := range commands {
		width = max(width, len(cmd.name))
	}
	for _, cmd := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, cmd.name, cmd.summary)
	}
	fmt.Fprint(w, `
PATH may be - for standard input, OUT - for standard output. Exit codes: 0 ok,
1 invalid input or a finding (a divergence), 2 usage, 130/143 interrupted.
Run 'tracecat help COMMAND' or 'tracecat COMMAND -h' for a command's flags, their
units and defaults, and an example.
`)
}

// usageHint prints a command's usage line and where to read more, after a
// usage error.
func (c *cli) usageHint(name string) {
	cmd := lookupCommand(name)
	if cmd == nil {
		return
	}
	fmt.Fprintf(c.stderr, "usage: %s\nRun 'tracecat help %s' for details.\n", cmd.usageLine(), name)
}

func (cmd *command) usageLine() string {
	if cmd.args == "" {
		return "tracecat " + cmd.name
	}
	return "tracecat " + cmd.name + " " + cmd.args
}

// printHelp writes the help of command name; fs holds its flags.
func (c *cli) printHelp(w io.Writer, name string, fs *flag.FlagSet) error {
	cmd := lookupCommand(name)
	if cmd == nil {
		return fmt.Errorf("no help for %q", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tracecat %s: %s\n\nusage: %s\n\n%s\n", cmd.name, cmd.summary, cmd.usageLine(), cmd.doc)
	if fs != nil {
		writeFlagHelp(&b, fs)
	}
	if len(cmd.examples) == 1 {
		b.WriteString("\nexample:\n")
	} else {
		b.WriteString("\nexamples:\n")
	}
	for _, ex := range cmd.examples {
		fmt.Fprintf(&b, "  %s\n", ex)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// helpWidth is where flag descriptions wrap.
const helpWidth = 88

// writeFlagHelp lists the flags of fs with their value name and default.
// A usage text that states its default itself ("(default: …)") is left as it
// is; otherwise the default is appended.
func writeFlagHelp(b *strings.Builder, fs *flag.FlagSet) {
	type row struct{ left, text string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		valueName, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if len(f.Name) == 1 {
			left = "-" + f.Name
		}
		if valueName != "" {
			left += " " + valueName
		}
		if !strings.Contains(usage, "(default") && !strings.Contains(usage, "(required") && !strings.HasPrefix(usage, "alias of") {
			switch f.DefValue {
			case "false":
				usage += " (default: off)"
			case "":
				usage += " (default: none)"
			default:
				usage += " (default: " + f.DefValue + ")"
			}
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nflags:\n")
	indent := 2 + width + 2
	for _, r := range rows {
		fmt.Fprintf(b, "  %-*s  ", width, r.left)
		col := indent
		for i, word := range strings.Fields(r.text) {
			n := len([]rune(word))
			if i > 0 && col+1+n > helpWidth {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				col = indent
			} else if i > 0 {
				b.WriteByte(' ')
				col++
			}
			b.WriteString(word)
			col += n
		}
		b.WriteByte('\n')
	}
}

// suggestCommand returns the known command closest to name (edit distance at
// most 2), or "".
func suggestCommand(name string) string {
	best, bestDist := "", 3
	for _, cmd := range commands {
		if d := editDistance(name, cmd.name); d < bestDist {
			best, bestDist = cmd.name, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
