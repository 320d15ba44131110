// Command atf-session records an ATF v2 session from several goroutines, one
// thread writer each, then opens the session and prints its cross-thread
// merged timeline.
//
//	go run ./examples/atf-session [DIR]
//
// Without DIR the session is written to a temporary folder that is removed at
// the end.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tracecodec/tracecodec/atf"
)

func main() {
	if err := runArgs(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "atf-session:", err)
		os.Exit(1)
	}
}

// runArgs records under the folder given, or under a temporary folder it
// removes at the end.
func runArgs(args []string, out io.Writer) error {
	if len(args) > 1 {
		return fmt.Errorf("usage: atf-session [DIR]")
	}
	if len(args) == 1 {
		return run(args[0], out)
	}
	dir, err := os.MkdirTemp("", "atf-session-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return run(dir, out)
}

const workers = 4

// run records a session under root and prints its merged timeline to out.
func run(root string, out io.Writer) error {
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	sw, err := atf.CreateSession(root, 4242, start, atf.WithClock(atf.ClockBoottime))
	if err != nil {
		return err
	}
	mod := atf.ModuleID("/usr/local/bin/worker")
	names := []string{"main", "worker", "compute"}
	var symbols []atf.Symbol
	for i, n := range names {
		symbols = append(symbols, atf.Symbol{FunctionID: atf.FunctionID(mod, uint32(i+1)), ModuleID: mod, SymbolIndex: uint32(i + 1), Name: n})
	}
	sw.SetSymbols([]atf.Module{{ModuleID: mod, Path: "/usr/local/bin/worker"}}, symbols)

	// Each goroutine owns one ThreadWriter; timestamps come from a shared
	// synthetic clock so the output is reproducible.
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		tw, err := sw.Thread(uint32(w))
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = record(tw, w, mod)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := sw.Close(); err != nil {
		return err
	}

	s, err := atf.OpenSession(sw.Dir())
	if err != nil {
		return err
	}
	defer s.Close()
	first, last, _ := s.TimeRange()
	fmt.Fprintf(out, "session %s: %d threads, %d events, %d detail events, %d..%d ns\n",
		sessionName(sw.Dir()), len(s.Threads), s.EventCount(), s.DetailCount(), first, last)
	for e, err := range s.All() {
		if err != nil {
			return err
		}
		name, _ := s.Manifest.SymbolName(e.FunctionID)
		t := s.Threads[e.Thread]
		line := fmt.Sprintf("%6d  thread %d  %-6s %*s%s", e.Timestamp-first, t.ID, e.Kind, int(e.CallDepth)*2, "", name)
		if d, ok, err := t.DetailFor(e.IndexEvent, nil); err != nil {
			return err
		} else if ok {
			p, _, _ := atf.DecodeDetailFunctionPayload(d.Payload)
			line += fmt.Sprintf("  [x0=%d]", p.XRegs[0])
		}
		fmt.Fprintln(out, line)
	}
	return nil
}

// record writes worker w's calls: worker → compute ×2, with a detail payload
// (arguments in x0) on every compute call.
func record(tw *atf.ThreadWriter, w int, mod uint32) error {
	ts := uint64(1_000_000 + w*7)
	worker, compute := atf.FunctionID(mod, 2), atf.FunctionID(mod, 3)
	if _, err := tw.Write(ts, worker, atf.KindCall, 1, nil); err != nil {
		return err
	}
	for i := range 2 {
		ts += 10
		p := &atf.DetailFunctionPayload{FunctionID: compute, XRegs: [8]uint64{uint64(w*10 + i)}}
		if _, err := tw.WriteFunction(ts, atf.KindCall, 2, p, nil); err != nil {
			return err
		}
		ts += 5
		if _, err := tw.Write(ts, compute, atf.KindReturn, 2, nil); err != nil {
			return err
		}
	}
	ts += 3
	_, err := tw.Write(ts, worker, atf.KindReturn, 1, nil)
	return err
}

// sessionName is "session_…/pid_N" of a session's pid folder.
func sessionName(dir string) string {
	return filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir)))
}
