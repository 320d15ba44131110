package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// interruptError is the cause of the run's context once SIGINT or SIGTERM has
// arrived.
type interruptError struct{ sig os.Signal }

func (e *interruptError) Error() string {
	switch e.sig {
	case syscall.SIGINT:
		return "interrupted (SIGINT)"
	case syscall.SIGTERM:
		return "interrupted (SIGTERM)"
	}
	return "interrupted (" + e.sig.String() + ")"
}

// exitCode is the shell's convention for a process ended by the signal:
// 128 + its number (130 for SIGINT, 143 for SIGTERM).
func (e *interruptError) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// forceExitAfter is how long a command has, after the first signal, to notice
// the cancelled context and return by itself; then (or at a second signal) the
// watcher removes the temporary outputs and exits.
const forceExitAfter = 2 * time.Second

// watchSignals returns a context cancelled, with an *interruptError as its
// cause, when SIGINT or SIGTERM arrives. Reads and writes of inputs opened by
// cli.open and of outputs from cli.createOutput fail once it is cancelled, so
// every loop that reads its input or writes its output ends promptly; a
// command that does neither for forceExitAfter is ended by the watcher, which
// removes the temporary files first. stop restores the default signal
// behaviour.
func watchSignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	stopped := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			e := &interruptError{s}
			cancel(e)
			select {
			case <-ch:
			case <-time.After(forceExitAfter):
			case <-stopped:
				return
			}
			activeProgress.erase()
			removeTemporaries()
			os.Exit(e.exitCode())
		case <-stopped:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(stopped)
			cancel(context.Canceled)
		})
	}
}

// exitCode is the process exit code: the command's own, or 130/143 when a
// signal interrupted it, in which case any temporary file still registered is
// removed.
func exitCode(ctx context.Context, code int) int {
	var ie *interruptError
	if errors.As(context.Cause(ctx), &ie) {
		removeTemporaries()
		return ie.exitCode()
	}
	return code
}

// temporaries are the files and folders to remove if the process is
// interrupted: outputs not yet renamed, and demo's folder.
var temporaries struct {
	sync.Mutex
	paths map[string]bool // path → is a folder (removed with its contents)
	// closed is set once removeTemporaries has run: nothing may be renamed
	// into place after that.
	closed bool
}

// addTemporary registers path for removal on interrupt.
func addTemporary(path string, isDir bool) {
	temporaries.Lock()
	defer temporaries.Unlock()
	if temporaries.paths == nil {
		temporaries.paths = map[string]bool{}
	}
	temporaries.paths[path] = isDir
}

// dropTemporary unregisters path; keep, when non-nil, runs under the same lock
// first (a rename into place), so an interrupt sees either the temporary file
// or the finished one, never both or neither.
func dropTemporary(path string, keep func() error) error {
	temporaries.Lock()
	defer temporaries.Unlock()
	delete(temporaries.paths, path)
	if keep == nil {
		return nil
	}
	if temporaries.closed {
		return errors.New("interrupted")
	}
	return keep()
}

// removeTemporaries removes every registered file and folder.
func removeTemporaries() {
	temporaries.Lock()
	defer temporaries.Unlock()
	temporaries.closed = true
	for p, isDir := range temporaries.paths {
		if isDir {
			os.RemoveAll(p)
		} else {
			os.Remove(p)
		}
		delete(temporaries.paths, p)
	}
}

// interrupted returns the cause of ctx's cancellation, or nil.
func interrupted(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	default:
		return nil
	}
}

// stopCheck is the interrupt check of the read and write wrappers: the Done
// channel is fetched once, so a check is one non-blocking receive (Done
// itself costs an atomic load and more on every call).
type stopCheck struct {
	ctx  context.Context
	done <-chan struct{}
}

func newStopCheck(ctx context.Context) stopCheck { return stopCheck{ctx, ctx.Done()} }

func (s stopCheck) err() error {
	select {
	case <-s.done:
		return context.Cause(s.ctx)
	default:
		return nil
	}
}

// ctxReader fails its reads once its context is cancelled.
type ctxReader struct {
	stop stopCheck
	r    io.Reader
}

func (r ctxReader) Read(p []byte) (int, error) {
	if err := r.stop.err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

// ctxReadCloser is a ctxReader with its source's Close.
type ctxReadCloser struct {
	ctxReader
	io.Closer
}

// ctxReaderAt fails its reads once its context is cancelled.
type ctxReaderAt struct {
	stop stopCheck
	r    io.ReaderAt
}

func (r ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := r.stop.err(); err != nil {
		return 0, err
	}
	return r.r.ReadAt(p, off)
}

// ctxWriter fails its writes once its context is cancelled.
type ctxWriter struct {
	stop stopCheck
	w    io.Writer
}

func (w ctxWriter) Write(p []byte) (int, error) {
	if err := w.stop.err(); err != nil {
		return 0, err
	}
	return w.w.Write(p)
}
