package duckdbtest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/parquetexport"
)

// pair is a begin and its end as the generator wrote them: the row a
// correct export makes of them.
type pair struct {
	track    uint64
	fid      uint64 // ATF function id, 0 for dial9
	ts, dur  int64
	kindName string // "atf" or "dial9"
}

func (p pair) String() string {
	return fmt.Sprintf("%s track %d fid %#x ts %d dur %d", p.kindName, p.track, p.fid, p.ts, p.dur)
}

// messyATF writes an ATF session of threads threads whose streams lost
// events as a ring buffer or a crash loses them: about one call in ten of
// half the functions and one return in ten of the other half is not
// written (so returns meet stacks whose top is another function), each
// thread starts inside two calls it never wrote and ends inside the calls
// still open. Functions do not recurse, and no function loses both calls
// and returns, so each written call and its written return are one
// invocation: exactly the complete rows an export must make. It returns the pid folder and those
// pairs.
func messyATF(root string, threads, steps int) (string, []pair, error) {
	s, err := atf.CreateSession(root, 777, time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC))
	if err != nil {
		return "", nil, err
	}
	const nFuncs = 12
	var syms []atf.Symbol
	for i := range nFuncs {
		syms = append(syms, atf.Symbol{FunctionID: 7<<32 | uint64(i), ModuleID: 1, SymbolIndex: uint32(i), Name: fmt.Sprintf("fn_%02d", i)})
	}
	s.SetSymbols([]atf.Module{{ModuleID: 1, Path: "/bin/messy"}}, syms)
	type frame struct {
		fid     uint64
		ts      uint64
		written bool
	}
	var pairs []pair
	for t := 1; t <= threads; t++ {
		tw, err := s.Thread(uint32(t))
		if err != nil {
			s.Close()
			return "", nil, err
		}
		rng := rand.New(rand.NewPCG(uint64(t), 23))
		ts := uint64(5_000_000_000) + uint64(t)*3
		// Two calls made before the trace started.
		stack := []frame{{syms[0].FunctionID, 0, false}, {syms[1].FunctionID, 0, false}}
		onStack := func(fid uint64) bool {
			for _, f := range stack {
				if f.fid == fid {
					return true
				}
			}
			return false
		}
		for range steps {
			ts += 1 + uint64(rng.IntN(40))
			if len(stack) == 0 || len(stack) < 10 && rng.IntN(100) < 52 {
				fid := syms[rng.IntN(nFuncs)].FunctionID
				if onStack(fid) {
					continue
				}
				// Functions 0-5 lose calls, 6-11 returns: a lost call of
				// a function with a call whose return was lost would make
				// the two one invocation to any reader.
				f := frame{fid, ts, fid&0xff >= nFuncs/2 || rng.IntN(10) != 0}
				if f.written {
					if _, err := tw.Write(ts, fid, atf.KindCall, uint32(len(stack)+1), nil); err != nil {
						s.Close()
						return "", nil, err
					}
				}
				stack = append(stack, f)
				continue
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.fid&0xff >= nFuncs/2 && rng.IntN(10) == 0 {
				continue // the return is lost
			}
			if _, err := tw.Write(ts, f.fid, atf.KindReturn, uint32(len(stack)+1), nil); err != nil {
				s.Close()
				return "", nil, err
			}
			if f.written {
				pairs = append(pairs, pair{uint64(t), f.fid, int64(f.ts), int64(ts - f.ts), "atf"})
			}
		}
	}
	if err := s.Close(); err != nil {
		return "", nil, err
	}
	return s.Dir(), pairs, nil
}

// messyDial9 writes a dial9 stream of polls on 3 workers (and one on
// worker 2⁶⁴−1), interleaved, where one PollEndEvent in eight is lost and
// one in eight is stamped before its PollStartEvent (a clock stepping
// back): the pairs are the polls whose end was written not before their
// start.
func messyDial9(path string, polls int) ([]pair, error) {
	var buf bytes.Buffer
	e, err := dial9.NewWriter(&buf)
	if err != nil {
		return nil, err
	}
	start, _ := e.Register("PollStartEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}, {Name: "task_id", Type: dial9.TypeVarint}})
	end, _ := e.Register("PollEndEvent", []dial9.FieldDef{{Name: "worker_id", Type: dial9.TypeVarint}})
	rng := rand.New(rand.NewPCG(9, 9))
	workers := []uint64{0, 1, 2, 1<<64 - 1}
	type open struct {
		ts   uint64
		live bool
	}
	cur := make([]open, len(workers))
	var pairs []pair
	ts := uint64(1_000_000)
	for i := range polls {
		w := rng.IntN(len(workers))
		ts += 10 + uint64(rng.IntN(200))
		if !cur[w].live {
			if err := e.WriteUints(start, ts, workers[w], uint64(i)); err != nil {
				return nil, err
			}
			cur[w] = open{ts, true}
			continue
		}
		o := cur[w]
		cur[w].live = false
		switch rng.IntN(8) {
		case 0: // lost
		case 1: // before its start
			if err := e.WriteUints(end, o.ts-5, workers[w]); err != nil {
				return nil, err
			}
		default:
			if err := e.WriteUints(end, ts, workers[w]); err != nil {
				return nil, err
			}
			pairs = append(pairs, pair{workers[w], 0, int64(o.ts), int64(ts - o.ts), "dial9"})
		}
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return pairs, os.WriteFile(path, buf.Bytes(), 0o666)
}

// TestCompleteRowsBelongTogether exports a messy ATF session and a messy
// dial9 stream (lost calls, returns and ends, ends stamped before their
// begins, a worker id of 2⁶⁴−1) and checks with DuckDB that the complete
// rows are exactly the generator's pairs: no negative dur_ns, every ATF
// complete row one function's call and return, dial9 polls of one worker;
// that the unpaired begins and ends are reported; that two runs write the
// same bytes (also with another --jobs); and that another row group size
// gives the same rows.
func TestCompleteRowsBelongTogether(t *testing.T) {
	dir := t.TempDir()
	pid, atfPairs, err := messyATF(filepath.Join(dir, "in", "atf"), 8, 6000)
	if err != nil {
		t.Fatal(err)
	}
	d9 := filepath.Join(dir, "in", "polls.bin")
	d9Pairs, err := messyDial9(d9, 20000)
	if err != nil {
		t.Fatal(err)
	}
	export := func(name string, opts ...parquetexport.Option) (string, *parquetexport.Result) {
		out := filepath.Join(dir, name)
		res, err := parquetexport.Export(context.Background(), out, []string{pid, d9}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return out, res
	}
	small := []parquetexport.Option{parquetexport.WithRowGroupBytes(16 << 10), parquetexport.WithConcurrency(2)}
	out1, res := export("small1", small...)
	out2, _ := export("small2", small...)
	out3, _ := export("small3", parquetexport.WithRowGroupBytes(16<<10), parquetexport.WithConcurrency(1))
	outBig, resBig := export("big", parquetexport.WithRowGroupBytes(64<<20))

	// Two runs, and another number of jobs: the same files, byte for byte.
	f1, f2, f3 := readFiles(t, out1), readFiles(t, out2), readFiles(t, out3)
	if len(f1) == 0 || !equalFiles(f1, f2) || !equalFiles(f1, f3) {
		t.Errorf("the same export wrote different files: %v / %v / %v", keys(f1), keys(f2), keys(f3))
	}

	db := openDB(t)
	ds := dataset(out1)
	var groups int64
	if err := db.QueryRow(fmt.Sprintf(`SELECT count(DISTINCT (file_name, row_group_id)) FROM parquet_metadata('%s')`,
		filepath.ToSlash(filepath.Join(out1, "**", "*.parquet")))).Scan(&groups); err != nil {
		t.Fatal(err)
	}
	if groups < 20 {
		t.Errorf("%d row groups: the small export should span many", groups)
	}
	var neg, nullDur int64
	if err := db.QueryRow(`SELECT count(*) FILTER (dur_ns < 0), count(*) FILTER (kind = 'complete' AND dur_ns IS NULL) FROM `+ds).Scan(&neg, &nullDur); err != nil {
		t.Fatal(err)
	}
	if neg != 0 || nullDur != 0 {
		t.Errorf("%d rows with a negative dur_ns, %d complete rows without one", neg, nullDur)
	}
	// An end whose function differs from its call's would leave
	// end.function_id in args_json.
	var mixed int64
	if err := db.QueryRow(`SELECT count(*) FROM ` + ds + ` WHERE kind = 'complete' AND format = 'atf' AND args_json LIKE '%end.function_id%'`).Scan(&mixed); err != nil {
		t.Fatal(err)
	}
	if mixed != 0 {
		t.Errorf("%d complete ATF rows pair a call with another function's return", mixed)
	}
	got := completeRows(t, db, ds)
	want := append(append([]pair(nil), atfPairs...), d9Pairs...)
	sortPairs(want)
	if len(got) != len(want) {
		t.Errorf("%d complete rows, the generator wrote %d pairs", len(got), len(want))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if got[i] != want[i] {
			t.Errorf("complete row %d: %v, want %v", i, got[i], want[i])
			break
		}
	}
	// The track of worker 2⁶⁴−1 is unsigned.
	var maxTrack string
	if err := db.QueryRow(`SELECT max(track)::VARCHAR FROM ` + ds + ` WHERE format = 'dial9'`).Scan(&maxTrack); err != nil {
		t.Fatal(err)
	}
	if maxTrack != "18446744073709551615" {
		t.Errorf("max(track) %s, want 2⁶⁴−1", maxTrack)
	}
	// The unpaired begins and ends are the begin and end rows, and the
	// result says how many per input.
	var begins, ends int64
	if err := db.QueryRow(`SELECT count(*) FILTER (kind = 'begin'), count(*) FILTER (kind = 'end') FROM `+ds).Scan(&begins, &ends); err != nil {
		t.Fatal(err)
	}
	var rb, re int64
	for _, u := range res.Unpaired {
		rb += u.Begins
		re += u.Ends
	}
	if len(res.Unpaired) != 2 || rb != begins || re != ends || begins == 0 || ends == 0 {
		t.Errorf("Result.Unpaired %+v; the dataset has %d begin and %d end rows", res.Unpaired, begins, ends)
	}
	// Another row group size: the same rows.
	if resBig.Rows != res.Rows {
		t.Errorf("%d rows with 64 MiB row groups, %d with 16 KiB", resBig.Rows, res.Rows)
	}
	cols := `format, source, track_kind, track, track_name, ts_ns, dur_ns, name, kind, args_json, atf_function_id, atf_depth, atf_seq, dial9_worker_id, dial9_task_id`
	var diff int64
	q := fmt.Sprintf(`SELECT count(*) FROM ((SELECT %[1]s FROM %[2]s EXCEPT ALL SELECT %[1]s FROM %[3]s) UNION ALL (SELECT %[1]s FROM %[3]s EXCEPT ALL SELECT %[1]s FROM %[2]s))`, cols, ds, dataset(outBig))
	if err := db.QueryRow(q).Scan(&diff); err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Errorf("%d rows differ between 16 KiB and 64 MiB row groups", diff)
	}
	t.Logf("%d rows in %d row groups; %d ATF and %d dial9 pairs; unpaired %+v", res.Rows, groups, len(atfPairs), len(d9Pairs), res.Unpaired)
}

// completeRows reads the complete rows back as pairs, sorted.
func completeRows(t *testing.T, db *sql.DB, ds string) []pair {
	rows, err := db.Query(`SELECT format, track, coalesce(atf_function_id, 0), ts_ns, dur_ns FROM ` + ds + ` WHERE kind = 'complete'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []pair
	for rows.Next() {
		var p pair
		if err := rows.Scan(&p.kindName, &p.track, &p.fid, &p.ts, &p.dur); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	sortPairs(out)
	return out
}

func sortPairs(ps []pair) {
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.kindName != b.kindName {
			return a.kindName < b.kindName
		}
		if a.track != b.track {
			return a.track < b.track
		}
		return a.ts < b.ts
	})
}

// readFiles reads every file under dir, by relative path.
func readFiles(t *testing.T, dir string) map[string][]byte {
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func equalFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func keys(m map[string][]byte) string {
	var ks []string
	for k, v := range m {
		ks = append(ks, fmt.Sprintf("%s(%d)", k, len(v)))
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}
