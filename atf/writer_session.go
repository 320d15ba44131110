package atf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// SessionWriter records a session folder laid out as the reference tracer
// lays it out:
//
//	ROOT/session_YYYYMMDD_HHMMSS/pid_N/
//	    thread_K/index.atf
//	    thread_K/detail.atf   (only for threads that wrote a payload)
//	    manifest.json         (written by Close)
//
// Thread is safe for concurrent use; each ThreadWriter it returns belongs to
// one goroutine. With WithBackgroundFlush one goroutine of the session
// flushes every thread's buffered events every period, until Close. Close finalizes every thread and then writes manifest.json,
// so a manifest on disk means a complete session; a crashed session has none
// and OpenSession discovers its thread folders instead.
type SessionWriter struct {
	mu      sync.Mutex
	dir     string
	opts    []WriterOption
	clock   ClockType
	threads map[uint32]*ThreadWriter
	modules []Module
	symbols []Symbol
	closed  bool
	err     error
	flusher *flusher // WithBackgroundFlush
}

// SessionDirName is the reference's folder name for a session started at t
// (t's own location; the reference uses local time).
func SessionDirName(t time.Time) string { return t.Format("session_20060102_150405") }

// CreateSession creates ROOT/session_YYYYMMDD_HHMMSS/pid_N for a session
// started at start.
func CreateSession(root string, pid int, start time.Time, opts ...WriterOption) (*SessionWriter, error) {
	dir := filepath.Join(root, SessionDirName(start), fmt.Sprintf("pid_%d", pid))
	return CreateSessionDir(dir, opts...)
}

// CreateSessionDir records a session into dir (the pid_N folder) directly.
func CreateSessionDir(dir string, opts ...WriterOption) (*SessionWriter, error) {
	o, err := buildWriterOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &SessionWriter{dir: dir, opts: opts, clock: o.clock, threads: map[uint32]*ThreadWriter{}}
	if o.background > 0 {
		// One goroutine flushes every thread (see WithBackgroundFlush).
		s.opts = append(slices.Clip(opts), func(o *writerOptions) error { o.inSession = true; return nil })
		s.flusher = startFlusher(o.background)
	}
	return s, nil
}

// Dir is the pid_N folder the session is written to.
func (s *SessionWriter) Dir() string { return s.dir }

// Thread returns the writer of thread id, creating thread_<id>/index.atf on
// the first call for that id.
func (s *SessionWriter) Thread(id uint32) (*ThreadWriter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if t := s.threads[id]; t != nil {
		return t, nil
	}
	t, err := CreateThread(filepath.Join(s.dir, fmt.Sprintf("thread_%d", id)), id, s.opts...)
	if err != nil {
		return nil, err
	}
	s.threads[id] = t
	if s.flusher != nil {
		s.flusher.add(t)
	}
	return t, nil
}

// Flush hands every thread's buffered events to its files (see
// ThreadWriter.Flush); the ThreadWriters must not be in use during Flush.
// After Close it returns ErrClosed.
func (s *SessionWriter) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return closedErr(s.err)
	}
	ids := make([]uint32, 0, len(s.threads))
	for id := range s.threads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		if err := s.threads[id].Flush(); err != nil {
			errs = append(errs, fmt.Errorf("thread %d: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// SetSymbols sets the module and symbol tables written into the manifest
// (format_version "2.1"); symbol names are what tools show for function ids.
func (s *SessionWriter) SetSymbols(modules []Module, symbols []Symbol) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modules = slices.Clone(modules)
	s.symbols = slices.Clone(symbols)
}

// Close finalizes every thread writer (ascending id) and writes manifest.json
// listing them with their real detail presence and the session's time range
// (min first / max last timestamp over threads with events; 0/0 when none).
// The reference writes has_detail true and zero times unconditionally; the
// readers ignore both, so nothing is lost by writing true values. The
// ThreadWriters must not be in use during Close. Closing twice is harmless:
// the second call writes nothing and returns the first call's error.
func (s *SessionWriter) Close() error {
	if s.flusher != nil {
		s.flusher.close() // before the threads close; it never takes s.mu
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.err
	}
	s.closed = true
	ids := make([]uint32, 0, len(s.threads))
	for id := range s.threads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	m := Manifest{ClockType: s.clock, Modules: s.modules, Symbols: s.symbols}
	var errs []error
	seen := false
	for _, id := range ids {
		t := s.threads[id]
		if err := t.Close(); err != nil {
			errs = append(errs, fmt.Errorf("thread %d: %w", id, err))
		}
		m.Threads = append(m.Threads, ManifestThread{ID: id, HasDetail: t.HasDetail()})
		if t.Count() == 0 {
			continue
		}
		first, last := t.TimeRange()
		if !seen || first < m.TimeStartNs {
			m.TimeStartNs = first
		}
		if !seen || last > m.TimeEndNs {
			m.TimeEndNs = last
		}
		seen = true
	}
	if err := writeFileAtomic(filepath.Join(s.dir, "manifest.json"), m.AppendJSON(nil)); err != nil {
		errs = append(errs, err)
	}
	s.err = errors.Join(errs...)
	return s.err
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
