// Package tracegen writes synthetic dial9 segments and ATF sessions with the
// module's own writers, shaped like real traces and with numbers a test can
// predict: the fleet test of parquetexport and its benchmarks use them.
package tracegen

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/dial9"
)

// Dial9Workers is the number of workers a Dial9 segment polls on.
const Dial9Workers = 4

// PollDur is the duration in ns of poll i of a segment.
func PollDur(i int) uint64 { return 1000 + uint64(i%7)*500 }

// Dial9EventsPerPoll is the number of events Dial9 writes per poll: a
// PollStartEvent, a WakeEventEvent, a PollEndEvent and a QueueSampleEvent.
const Dial9EventsPerPoll = 4

// Dial9 writes one dial9 stream of polls polls, starting at base ns: poll i
// runs on worker i%Dial9Workers for PollDur(i) ns (PollStartEvent with
// task_id 100+i and a pooled spawn location, PollEndEvent), with a
// WakeEventEvent inside it and a QueueSampleEvent (global_queue = i%17, no
// worker) after it.
func Dial9(w io.Writer, base uint64, polls int) error {
	e, err := dial9.NewWriter(w)
	if err != nil {
		return err
	}
	start, _ := e.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "local_queue", Type: dial9.TypeU8},
		{Name: "task_id", Type: dial9.TypeVarint}, {Name: "spawn_loc", Type: dial9.TypePooledString}})
	end, _ := e.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	wake, _ := e.Register("WakeEventEvent", []dial9.FieldDef{{Name: "waker_task_id", Type: dial9.TypeVarint},
		{Name: "woken_task_id", Type: dial9.TypeVarint}, {Name: "target_worker", Type: dial9.TypeU8}})
	queue, _ := e.Register("QueueSampleEvent", []dial9.FieldDef{{Name: "global_queue", Type: dial9.TypeVarint}})
	locs := []uint32{e.InternString("src/main.rs:10:5"), e.InternString("src/server.rs:88:9"), e.InternString("src/db.rs:301:13")}
	ts := base
	for i := range polls {
		wk := uint64(i % Dial9Workers)
		ts += 700
		if err := e.Begin(start, ts).Varint(wk).U8(uint8(i % 3)).Varint(uint64(100 + i)).PooledString(locs[i%3]).End(); err != nil {
			return err
		}
		if err := e.WriteUints(wake, ts+PollDur(i)/2, uint64(100+i), uint64(101+i), wk^1); err != nil {
			return err
		}
		ts += PollDur(i)
		if err := e.WriteUints(end, ts, wk); err != nil {
			return err
		}
		ts += 100
		if err := e.WriteUints(queue, ts, uint64(i%17)); err != nil {
			return err
		}
	}
	return e.Close()
}

// Dial9GzipFile writes Dial9(base, polls) gzip-compressed to path.
func Dial9GzipFile(path string, base uint64, polls int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	err = Dial9(zw, base, polls)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ATFCallDur is the duration in ns of call j (the outer one) of a thread
// of ATFSession; its inner call lasts ATFCallDur(j)/2.
func ATFCallDur(j int) uint64 { return 2000 + uint64(j%5)*1000 }

// ATFFunctions are the symbol names of ATFSession: calls alternate between
// the first two outer functions, each calling the third.
var ATFFunctions = []string{"handle_request", "flush_cache", "hash_key"}

// ATFSession writes a session folder under root with threads threads
// (ids 1..threads), each with calls outer calls: call j of thread t enters
// ATFFunctions[j%2] at depth 1 and, inside it, ATFFunctions[2] at depth 2
// for half the outer duration; 4 index events per outer call. Returns the
// pid folder.
func ATFSession(root string, threads, calls int) (string, error) {
	s, err := atf.CreateSession(root, 4242, time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC))
	if err != nil {
		return "", err
	}
	mod := atf.Module{ModuleID: 1, Path: "/usr/local/bin/demo_app"}
	var syms []atf.Symbol
	for i, n := range ATFFunctions {
		syms = append(syms, atf.Symbol{FunctionID: 1<<32 | uint64(i), ModuleID: 1, SymbolIndex: uint32(i), Name: n})
	}
	s.SetSymbols([]atf.Module{mod}, syms)
	for t := 1; t <= threads; t++ {
		tw, err := s.Thread(uint32(t))
		if err != nil {
			s.Close()
			return "", err
		}
		ts := uint64(1_000_000_000_000) + uint64(t)
		for j := range calls {
			outer, inner := syms[j%2].FunctionID, syms[2].FunctionID
			d := ATFCallDur(j)
			for _, ev := range []struct {
				ts    uint64
				fid   uint64
				kind  atf.EventKind
				depth uint32
			}{
				{ts, outer, atf.KindCall, 1},
				{ts + d/4, inner, atf.KindCall, 2},
				{ts + d/4 + d/2, inner, atf.KindReturn, 2},
				{ts + d, outer, atf.KindReturn, 1},
			} {
				if _, err := tw.Write(ev.ts, ev.fid, ev.kind, ev.depth, nil); err != nil {
					s.Close()
					return "", err
				}
			}
			ts += d + 500
		}
	}
	if err := s.Close(); err != nil {
		return "", err
	}
	return s.Dir(), nil
}

// Fleet writes segments dial9 segments of polls polls each, as
// root/host-HH/segment-SSSS.bin.gz over hosts hosts (segment k on host
// k%hosts, time base k × 10⁹), and an ATF session of threads threads with
// calls calls each under root/atf. It returns the ATF pid folder.
func Fleet(root string, hosts, segments, polls, threads, calls int) (string, error) {
	for k := range segments {
		dir := filepath.Join(root, fmt.Sprintf("host-%02d", k%hosts))
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return "", err
		}
		if err := Dial9GzipFile(filepath.Join(dir, fmt.Sprintf("segment-%04d.bin.gz", k)), uint64(k)*1_000_000_000, polls); err != nil {
			return "", err
		}
	}
	return ATFSession(filepath.Join(root, "atf"), threads, calls)
}
