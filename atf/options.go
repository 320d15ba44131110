package atf

import (
	"errors"
	"runtime"
	"time"
)

// ReaderOption configures a reader: OpenIndex, OpenDetail and their File and
// Bytes forms, NewIndexReader, OpenThread, OpenSession, ParseManifest.
type ReaderOption func(*readerOptions) error

// WriterOption configures a writer: NewIndexWriter, NewDetailWriter,
// NewThreadWriter, CreateThread, CreateSession, CreateSessionDir.
type WriterOption func(*writerOptions) error

type readerOptions struct {
	limits Limits
	mmap   bool
}

type writerOptions struct {
	arch       Arch
	os         OS
	clock      ClockType
	checksum   bool
	bufSize    int
	flushEvery uint64
	interval   uint64        // WithFlushInterval, in timestamp units (ns); 0 = off
	background time.Duration // WithBackgroundFlush; 0 = off
	inSession  bool          // the SessionWriter's flusher serves the thread
	mmapOut    bool          // WithMmapOutput
}

// DefaultFlushEvery is the number of events a ThreadWriter buffers at most
// before it hands them to its files (see WithFlushEvery).
const DefaultFlushEvery = 128

func buildReaderOptions(opts []ReaderOption) (readerOptions, error) {
	o := readerOptions{limits: DefaultLimits()}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	o.limits = o.limits.withDefaults()
	return o, nil
}

func buildWriterOptions(opts []WriterOption) (writerOptions, error) {
	o := writerOptions{
		arch:       hostArch(),
		os:         hostOS(),
		clock:      ClockMachContinuous,
		checksum:   true,
		bufSize:    64 << 10,
		flushEvery: DefaultFlushEvery,
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// WithArch sets the header's arch byte. Default: the host's, as the
// reference writer does (amd64 → 1, arm64 → 2, anything else → 1).
func WithArch(a Arch) WriterOption {
	return func(o *writerOptions) error { o.arch = a; return nil }
}

// WithOS sets the header's os byte. Default: the host's (linux → 4, darwin →
// 3, windows → 5, android → 2, ios → 1, anything else → 4).
func WithOS(v OS) WriterOption { return func(o *writerOptions) error { o.os = v; return nil } }

// WithClock sets the index header's clock_type and the session manifest's
// clock_type. Default ClockMachContinuous (1), the value the reference tracer
// always writes; pass the clock your timestamps come from.
func WithClock(c ClockType) WriterOption {
	return func(o *writerOptions) error { o.clock = c; return nil }
}

// WithChecksum chooses whether writers store the CRC-32 (IEEE) of the events
// section in the footers (default true). With false they store 0, as the
// reference writer does, and the output is byte-identical to the reference's.
func WithChecksum(on bool) WriterOption {
	return func(o *writerOptions) error { o.checksum = on; return nil }
}

// WithBufferSize sets each file's write buffer in bytes (default 64 KiB, at
// least 64). Events reach the underlying writer when a buffer fills, every
// WithFlushEvery events (ThreadWriter), on Flush, on Sync and on Close.
func WithBufferSize(n int) WriterOption {
	return func(o *writerOptions) error {
		if n < 64 {
			return errors.New("atf: buffer size must be at least 64 bytes")
		}
		o.bufSize = n
		return nil
	}
}

// WithFlushEvery bounds what a crash of the writing process can lose: a
// ThreadWriter hands its buffered events to the files (index first, then
// detail) after every n events, so a process killed at any moment loses
// fewer than n events of each thread, and every detail record that reached
// its file has its index event on file too. Default DefaultFlushEvery (128,
// what the reference's 4 KiB stdio buffer holds of index events); 0 flushes
// only when a buffer fills (a crash then loses up to a buffer of each file).
// Each flush is one write system call per file: writing index-only events to
// a file costs about 50 CPU-ns per event with the default and 20 with 0
// (BenchmarkThreadWriteFile). What reached the files survives the process
// but not a power loss: call Sync for that.
func WithFlushEvery(n uint64) WriterOption {
	return func(o *writerOptions) error { o.flushEvery = n; return nil }
}

// WithFlushInterval bounds in time, as WithFlushEvery does in events, what
// a crash can lose of a thread that keeps writing: a ThreadWriter's Write
// flushes both files (index first) when its event's timestamp is d or more
// after the timestamp of the oldest event not yet flushed. So at any moment
// the events in memory span less than d of the thread's own timestamps, and
// every event at least d older than the thread's latest one is on file. The
// check uses the timestamps the caller passes (ns on the session's clock;
// no clock is read), one comparison per event (92.9 instead of 92.1
// instructions per index-only event, BenchmarkThreadWrite100kInterval under
// ../shared/bench/instr.sh); it costs a flush (a write system call per file)
// at most once per d per thread.
//
// What it does not bound: a thread that stops writing keeps its last events
// (fewer than WithFlushEvery, spanning less than d) in memory until it
// writes again, flushes or closes, because nothing runs on its behalf in
// between; WithBackgroundFlush covers that case. Timestamps that go
// backwards delay the flush (the deadline comes from the oldest unflushed
// event). Default 0 (off: only WithFlushEvery and full buffers flush).
func WithFlushInterval(d time.Duration) WriterOption {
	return func(o *writerOptions) error {
		if d < 0 {
			return errors.New("atf: negative flush interval")
		}
		o.interval = uint64(d)
		return nil
	}
}

// WithBackgroundFlush bounds in wall time what a crash can lose of every
// thread, idle ones included: a goroutine flushes, every d, each
// ThreadWriter holding buffered events (one goroutine per SessionWriter
// for all its threads; one per ThreadWriter created outside a session).
// An event is then on file at most about d after its Write returned,
// whether the thread writes again or not. The price: each ThreadWriter
// takes a mutex in every Write (uncontended, shared with the flusher):
// 155.8 instead of 92.1 instructions per index-only event
// (BenchmarkThreadWrite100kBackground under ../shared/bench/instr.sh). A
// ThreadWriter made outside a session must be closed, or its goroutine
// runs on. Close stops the goroutine before it finalizes the files.
// Background flush errors (a full disk) are sticky: the next Write, Flush
// or Close returns them. d must be at least a millisecond. Default 0 (off).
func WithBackgroundFlush(d time.Duration) WriterOption {
	return func(o *writerOptions) error {
		if d != 0 && d < time.Millisecond {
			return errors.New("atf: background flush interval under a millisecond")
		}
		o.background = d
		return nil
	}
}

// WithLimits sets the readers' limits; zero fields keep their defaults (see
// DefaultLimits).
func WithLimits(l Limits) ReaderOption {
	return func(o *readerOptions) error { o.limits = l; return nil }
}

func hostArch() Arch {
	if runtime.GOARCH == "arm64" {
		return ArchARM64
	}
	return ArchX86_64
}

func hostOS() OS {
	switch runtime.GOOS {
	case "darwin":
		return OSmacOS
	case "windows":
		return OSWindows
	case "android":
		return OSAndroid
	case "ios":
		return OSiOS
	}
	return OSLinux
}
