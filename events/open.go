package events

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
)

// Sentinel errors. Errors of the codecs come through unchanged (a
// *traceerr.FormatError naming the byte offset); these are the event layer's
// own, and errors.Is works on them.
var (
	// ErrUnknownFormat: the input is none of the five formats.
	ErrUnknownFormat = errors.New("events: unrecognised format")
	// ErrNoEvents: the input is a recognised trace part that holds no events
	// (CTF metadata, CTF data streams and packet indexes, a lone ATF
	// detail.atf).
	ErrNoEvents = errors.New("events: input holds no events")
	// ErrUnsupported: the format is recognised but not read by this build
	// (CDT container v2).
	ErrUnsupported = errors.New("events: unsupported variant")
	// ErrOption: an option's value is out of range.
	ErrOption = errors.New("events: invalid option")
)

// Option configures Open, OpenReaderAt, OpenBytes and NewReader.
type Option func(*options) error

type options struct {
	name        string
	pairDepth   int
	pairing     bool
	concurrency int
	maxNames    int
	scopeData   bool
	spoolLimit  int64
	hasSpool    bool
	ctfCalls    bool
}

// DefaultMaxPairDepth is the per-track stack depth WithPairing(0) uses.
const DefaultMaxPairDepth = 1024

// WithName gives the name of the input of OpenReaderAt or OpenBytes (a path
// or file name): detection then falls back on the extension for a damaged
// file, as for Open. Default "".
func WithName(name string) Option {
	return func(o *options) error { o.name = name; return nil }
}

// WithPairing pairs each begin with the end that closes it on the same track
// into one KindComplete event (Time the begin's, Duration the distance to
// the end, Name and the begin's name; arguments and record are the end's),
// yielded where the end was. Memory is bounded: each track keeps a stack of
// at most maxDepth open begins (0 means DefaultMaxPairDepth); a begin beyond
// that, and its end, are yielded unpaired as KindBegin and KindEnd. An end
// with no open begin is yielded as KindEnd; begins still open at the end of
// the input are yielded as KindBegin (without arguments) after the last event.
// Default: no pairing, begins and ends yielded as they come.
func WithPairing(maxDepth int) Option {
	return func(o *options) error {
		if maxDepth < 0 {
			return fmt.Errorf("%w: WithPairing(%d): depth must be ≥ 0", ErrOption, maxDepth)
		}
		if maxDepth == 0 {
			maxDepth = DefaultMaxPairDepth
		}
		o.pairing, o.pairDepth = true, maxDepth
		return nil
	}
}

// WithScopeData makes a WTF Reader pair scopes with wtfcff.ScopeTracker, as
// the reference's database does, so that Event.WTFScope returns each closed
// scope with its arguments and appended data (building their JSON costs about
// as much as decoding the events). With WithPairing too, the complete event
// of a scope carries the scope's arguments as typed arguments: the enter
// event's own, then the data appended while it was open (wtf.scope#appendData
// name/value pairs, arguments of APPEND_SCOPE_DATA events) — what a Chrome
// trace viewer shows on the slice. The wtf.scope#appendData records are
// still yielded as instants where they occur. Default off: scope names are
// paired by a per-zone stack of names, which is all Name needs.
func WithScopeData() Option {
	return func(o *options) error { o.scopeData = true; return nil }
}

// WithCTFCallSlices makes a CTF Reader yield LTTng's calls as slices on
// the track of their thread (by default every CTF event record is an
// instant on its CPU's or stream's track):
//
//   - user-space functions (liblttng-ust-cyg-profile, from
//     -finstrument-functions): lttng_ust_cyg_profile:func_entry and
//     lttng_ust_cyg_profile_fast:func_entry begin, their func_exit end, a
//     slice named "0x" and the payload's addr in hexadecimal (no symbol
//     resolution; a fast func_exit, which has no addr, is named by its
//     class), on the track of the thread of the vtid context (TrackThread,
//     ID 2^63 + vpid×2^31 + vtid when the session added the vpid context,
//     else 2^63 + vtid; named "vtid N, vpid P (procname)"). Without a vtid
//     context they stay instants. In a session folder that also holds a
//     kernel trace of the same host (hostname), the vtid is taken for the
//     tid: the thread's track is its kernel thread's (below).
//   - kernel system calls: syscall_entry_NAME (and compat_syscall_entry_NAME)
//     begin, syscall_exit_NAME end, a slice NAME; in a trace of LTTng
//     before 2.7 (one with an exit_syscall event record class) sys_NAME and
//     compat_sys_NAME begin and exit_syscall ends (named exit_syscall: it
//     closes the innermost slice). They are on the track of their thread
//     (TrackThread, ID the tid, named "tid N (comm)"): the tid context when
//     the session added it, else the thread the last sched_switch
//     (next_tid, next_comm) of their CPU's track switched to, so that a
//     thread that changes CPU in the middle of a system call ends it on its
//     own track. Until its CPU's first sched_switch a system call event
//     stays an instant on its CPU's track. In a session folder of several
//     hosts' traces, the tracks of a host after the first have IDs
//     host index×2^32 + tid (a user-space thread of such a host without
//     kernel trace: 2^63 + 2^62 + a count), and each host's CPUs are
//     its own tracks (see the package doc).
//
// Each thread track's Track.Thread says what is known of its thread: tid,
// pid, host, its latest name and its process's name, from the state dump,
// sched_switch, sched_process_fork, exec and free events and the tid,
// pid, vtid, vpid and procname contexts (see Thread). Track.Name stays the
// name the track got at its first event.
//
// Everything else (sched_switch included) stays an instant where it was;
// names, times and arguments are unchanged but the slices' names. Memory
// is bounded: at most 65 536 threads known, with or without a track
// (beyond, events of new threads stay instants and they are not named),
// and DefaultMaxNames interned function names; the
// reader keeps no stack (WithPairing, or the Chrome export, pairs and
// bounds the depth). An exit whose entry was not seen is an end without a
// begin (the Chrome export writes it as an instant). Other formats ignore
// it. Default off: tracecat convert --to chrome and chromeexport.Convert
// turn it on.
func WithCTFCallSlices() Option {
	return func(o *options) error { o.ctfCalls = true; return nil }
}

// WithConcurrency lets readers that can (CDT) decode ahead on n goroutines.
// Default 1: everything on the caller's goroutine.
func WithConcurrency(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%w: WithConcurrency(%d): want ≥ 1", ErrOption, n)
		}
		o.concurrency = n
		return nil
	}
}

// DefaultMaxNames is how many distinct derived names (ATF function ids without
// a symbol, WTF scope names, dial9 worker track names) a Reader keeps interned
// by default; beyond it, names are built per event (and then allocate).
const DefaultMaxNames = 1 << 16

func buildOptions(opts []Option) (options, error) {
	o := options{concurrency: 1, maxNames: DefaultMaxNames}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// source is one format's adapter: it fills e with the next event.
type source interface {
	next(e *Event) bool
	err() error
	close() error
	// underlying is the codec's reader (see Reader.Underlying).
	underlying() any
}

// Reader yields the uniform events of one trace. It is not safe for
// concurrent use. Close it when done.
type Reader struct {
	det    Detection
	src    source
	ev     Event
	pair   *pairer
	it     nexter // src, pair or, after Close, closedSource
	closed bool
}

// Open detects the format of the file or folder at path and opens it: a CDT
// file, a dial9 stream (plain or gzip, concatenated streams), an ATF index
// file (with its detail.atf beside it when there is one), thread folder or
// session folder (merged across threads in timestamp order), a WTF trace
// (binary, JSON or legacy), a CTF trace folder (its data streams decoded
// with the metadata beside them, merged by time), a folder whose only
// traces are CTF trace folders (CTFSession: an LTTng session folder; all
// their data streams merged by time, as babeltrace2 reads it; Detection
// {FormatCTF, "session"}). A CTF metadata file, data
// stream or index file alone and a lone ATF detail.atf are recognised but
// hold no events: Open returns an error
// wrapping ErrNoEvents that says so (Detect still names them). An unknown
// input is ErrUnknownFormat.
func Open(path string, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.name == "" {
		o.name = path
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		d := DetectDir(path)
		switch d.Format {
		case FormatATF:
			src, err := openATFDir(path, d, &o)
			return newReader(d, src, err, &o)
		case FormatCTF:
			src, err := openCTFDir(path, &o)
			return newReader(d, src, err, &o)
		}
		if dirs := CTFSession(path); dirs != nil {
			d = Detection{FormatCTF, "session"}
			src, err := openCTFSession(path, dirs, &o)
			return newReader(d, src, err, &o)
		}
		return nil, fmt.Errorf("%w: %s is not a trace folder", ErrUnknownFormat, path)
	}
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, HeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		f.Close()
		return nil, err
	}
	d := detectNamed(path, head[:n])
	if d.Format == FormatATF && filepath.Base(path) == "index.atf" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), "detail.atf")); err == nil {
			// index.atf beside detail.atf is a thread: like the reference,
			// the detail file's existence decides that the thread has one.
			f.Close()
			src, err := openATFDir(filepath.Dir(path), Detection{FormatATF, "thread"}, &o)
			return newReader(d, src, err, &o)
		}
	}
	src, err := openFile(f, fi.Size(), d, &o, f.Close)
	if err != nil {
		f.Close()
	}
	return newReader(d, src, err, &o)
}

// OpenReaderAt detects the format of size bytes read through ra and opens
// them (see Open; folders need Open). The caller keeps ra open until the
// Reader is closed. WithName supplies the file name detection may need.
func OpenReaderAt(ra io.ReaderAt, size int64, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	head := make([]byte, min(size, HeadSize))
	n, err := ra.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	d := detectHead(o.name, head[:n])
	src, err := openFile(ra, size, d, &o, nil)
	return newReader(d, src, err, &o)
}

// OpenBytes is OpenReaderAt over a file held in memory; events of the
// formats that can read in place (dial9, ATF, binary WTF) are views into b.
func OpenBytes(b []byte, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	d := detectHead(o.name, b[:min(len(b), HeadSize)])
	src, err := openMemory(b, d, &o)
	return newReader(d, src, err, &o)
}

// detectHead is DetectBytes plus, when a name is known, DetectFile's
// fallbacks that need no other file.
func detectHead(name string, head []byte) Detection {
	d := DetectBytes(head)
	if d.Format == FormatUnknown && name != "" {
		if filepath.Base(name) == "metadata" && looksLikeTSDL(head) {
			return Detection{FormatCTF, "TSDL metadata, no signature"}
		}
		return detectByName(name, len(head))
	}
	return d
}

func newReader(d Detection, src source, err error, o *options) (*Reader, error) {
	if err != nil {
		return nil, err
	}
	r := &Reader{det: d, src: src}
	r.ev.format = d.Format
	r.ev.args, _ = src.(argSource)
	r.ev.rec, _ = src.(recordSource)
	// Next is one interface call: to the source's next, or the pairer's
	// over it.
	r.it = src
	if s, ok := src.(*wtfSource); ok && s.scopes != nil {
		r.it = wtfScoped{s}
	}
	if o.pairing {
		r.pair = newPairer(o.pairDepth, r.it, src)
		r.it = r.pair
	}
	return r, nil
}

func noEvents(d Detection) error {
	switch d.Format {
	case FormatCTF:
		return fmt.Errorf("%w: ctf (%s): a CTF metadata file, data stream or packet index alone holds no events; open the trace folder (metadata and data streams) for its event records, or use tracecat stats or ctf2meta for the metadata", ErrNoEvents, d.Variant)
	case FormatATF:
		return fmt.Errorf("%w: atf (%s): a detail.atf holds payloads of index events; open the index.atf or the thread folder", ErrNoEvents, d.Variant)
	}
	return fmt.Errorf("%w: %s", ErrNoEvents, d)
}

// openFile opens a file behind ra (closeFn closes it, nil when the caller
// owns ra).
func openFile(ra io.ReaderAt, size int64, d Detection, o *options, closeFn func() error) (source, error) {
	switch d.Format {
	case FormatDial9:
		return openDial9Stream(io.NewSectionReader(ra, 0, size), o, closeFn)
	case FormatATF:
		return openATFFile(ra, size, d, o, closeFn)
	case FormatWTF:
		return openWTF(ra, size, d, o, closeFn)
	case FormatCDT:
		return openCDT(ra, size, d, o, closeFn)
	case FormatCTF:
		return nil, noEvents(d)
	}
	return nil, ErrUnknownFormat
}

// openMemory opens a file held in memory.
func openMemory(b []byte, d Detection, o *options) (source, error) {
	switch d.Format {
	case FormatDial9:
		return openDial9Bytes(b, o)
	case FormatATF:
		return openATFBytes(b, d, o)
	case FormatWTF:
		return openWTFBytes(b, o)
	}
	return openFile(bytes.NewReader(b), int64(len(b)), d, o, nil)
}

// Detection is what the input was detected as.
func (r *Reader) Detection() Detection { return r.det }

// Format is the input's format name (FormatCDT, FormatDial9, FormatATF,
// FormatWTF).
func (r *Reader) Format() string { return r.det.Format }

// Recovered reports whether the input is a trace whose writer did not finish
// it and whose complete part is being read: an ATF index without a valid
// footer (torn tail discarded), a CDT file without footer or trailer (the
// complete chunks, found by a forward scan), a WTF file whose last chunk is
// torn, a dial9 stream cut or corrupted mid-frame (both known once Next has
// returned false). Recovery says what was read, what was lost and why.
func (r *Reader) Recovered() bool {
	switch s := r.src.(type) {
	case *cdtSource:
		return s.recovered()
	case *atfSource:
		return s.session.Recovered()
	case *wtfSource:
		return s.recovered()
	case *dial9Source:
		return s.dec.Recovery() != nil
	}
	return false
}

// Underlying returns the codec reader behind r, for what the uniform model
// does not cover: a *dial9.Reader, an *atf.Session (a folder-less one for a
// single index file or thread), a *wtfcff.Reader, or a *cdt.File.
func (r *Reader) Underlying() any { return r.src.underlying() }

// Next advances to the next event; it returns false at the end of the input
// or on an error (see Err). After warm-up (names and tracks seen, buffers
// grown) Next does not allocate.
func (r *Reader) Next() bool { return r.it.next(&r.ev) }

// nexter yields events: a source, or a pairer over one.
type nexter interface {
	next(e *Event) bool
}

// closedSource is Next after Close.
type closedSource struct{}

func (closedSource) next(*Event) bool { return false }

// Event returns the current event, valid until the next call to Next.
func (r *Reader) Event() *Event { return &r.ev }

// Err returns the error that stopped Next (a codec's *traceerr.FormatError
// with its byte offset, or an I/O error), nil at a clean end.
func (r *Reader) Err() error { return r.src.err() }

// All iterates over the remaining events; on failure it yields a last (nil,
// err) pair and stops.
func (r *Reader) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for r.Next() {
			if !yield(&r.ev, nil) {
				return
			}
		}
		if err := r.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// Close releases the files Open opened. It is idempotent.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.it = closedSource{}
	return r.src.close()
}

// DefaultSpoolLimit is the most NewReader copies to a temporary file for a
// format that needs random access (see WithSpoolLimit).
const DefaultSpoolLimit = 4 << 30

// ErrSpoolLimit is wrapped by NewReader's error when a stream that must be
// spooled is longer than the spool limit.
var ErrSpoolLimit = errors.New("events: stream longer than the spool limit")

// WithSpoolLimit sets how many bytes NewReader may copy to a temporary file
// for a format that needs random access; 0 forbids spooling (only dial9
// streams then). Default DefaultSpoolLimit.
func WithSpoolLimit(n int64) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("%w: WithSpoolLimit(%d): want ≥ 0", ErrOption, n)
		}
		o.spoolLimit, o.hasSpool = n, true
		return nil
	}
}

// NewReader detects the format of a stream (a pipe, standard input, a
// network body) and opens it, with bounded memory:
//
//   - a dial9 stream (plain or gzip) is decoded as it is read, holding only
//     what the dial9 reader holds (the current frame, schemas and pools);
//   - the formats that need random access (CDT footers, ATF index footers,
//     WTF chunk tables) are first copied to a temporary file of at most the
//     spool limit (WithSpoolLimit, default DefaultSpoolLimit; beyond it the
//     error wraps ErrSpoolLimit), removed by Close or on any error, and
//     read from there as Open would.
//
// Only the first HeadSize bytes are held in memory for detection.
// WithName supplies the file name detection may need for a damaged file.
// The caller closes r (if it must) after the Reader is closed.
func NewReader(r io.Reader, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	limit := int64(DefaultSpoolLimit)
	if o.hasSpool {
		limit = o.spoolLimit
	}
	head := make([]byte, HeadSize)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	head = head[:n]
	d := detectHead(o.name, head)
	switch d.Format {
	case FormatDial9:
		src, err := openDial9Stream(io.MultiReader(bytes.NewReader(head), r), &o, nil)
		return newReader(d, src, err, &o)
	case FormatUnknown, "":
		return nil, ErrUnknownFormat
	case FormatCTF:
		return nil, noEvents(d)
	}
	if d.Format == FormatATF && d.Variant == "detail" {
		return nil, noEvents(d)
	}
	f, err := os.CreateTemp("", "events-spool-*")
	if err != nil {
		return nil, err
	}
	remove := func() error {
		err := f.Close()
		if rerr := os.Remove(f.Name()); err == nil {
			err = rerr
		}
		return err
	}
	size, err := io.Copy(f, io.MultiReader(bytes.NewReader(head), io.LimitReader(r, limit-int64(len(head))+1)))
	if err == nil && size > limit {
		err = fmt.Errorf("%w: a %s stream is spooled to a file to be read, and it is longer than %d bytes (WithSpoolLimit)", ErrSpoolLimit, d.Format, limit)
	}
	if err != nil {
		remove()
		return nil, err
	}
	src, err := openFile(f, size, d, &o, remove)
	if err != nil {
		remove()
	}
	return newReader(d, src, err, &o)
}
