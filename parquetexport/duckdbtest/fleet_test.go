package duckdbtest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/parquetexport"
	"github.com/tracecodec/tracecodec/testgen/tracegen"
)

// TestFleet exports 200 generated dial9 .bin.gz segments (20 hosts) and an
// 8-thread ATF session in one call, Hive-partitioned, and checks DuckDB's
// answers to group-bys over them against the generators' numbers.
func TestFleet(t *testing.T) {
	const (
		hosts, segments, polls = 20, 200, 300
		threads, calls         = 8, 500
	)
	root := filepath.Join(t.TempDir(), "fleet")
	pid, err := tracegen.Fleet(root, hosts, segments, polls, threads, calls)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dataset")
	res, err := parquetexport.Export(context.Background(), out, []string{filepath.Join(root, "host-*"), pid},
		parquetexport.WithHivePartitioning(true), parquetexport.WithRowGroupBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != segments+1 {
		t.Fatalf("%d inputs, want %d", len(res.Inputs), segments+1)
	}
	wantEvents := int64(segments*polls*tracegen.Dial9EventsPerPoll + threads*calls*4)
	if res.Events != wantEvents {
		t.Errorf("%d events read, want %d", res.Events, wantEvents)
	}
	db := openDB(t)
	ds := fmt.Sprintf("read_parquet('%s', union_by_name = true, hive_partitioning = true)", filepath.ToSlash(filepath.Join(out, "*", "*.parquet")))

	// p99-style question: polls and their total and maximum duration per
	// worker, over the whole fleet.
	type agg struct{ n, sum, max int64 }
	want := map[string]agg{}
	for i := range polls {
		k := fmt.Sprintf("worker %d", i%tracegen.Dial9Workers)
		a := want[k]
		a.n += segments
		a.sum += segments * int64(tracegen.PollDur(i))
		a.max = max(a.max, int64(tracegen.PollDur(i)))
		want[k] = a
	}
	rows, err := db.Query(`SELECT track_name, count(*), sum(dur_ns)::BIGINT, max(dur_ns), count(DISTINCT source), count(DISTINCT dial9_task_id)
		FROM ` + ds + ` WHERE format = 'dial9' AND name = 'poll' AND kind = 'complete' GROUP BY track_name ORDER BY track_name`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]agg{}
	for rows.Next() {
		var name string
		var a agg
		var sources, tasks int64
		if err := rows.Scan(&name, &a.n, &a.sum, &a.max, &sources, &tasks); err != nil {
			t.Fatal(err)
		}
		got[name] = a
		if sources != segments || tasks != polls/tracegen.Dial9Workers {
			t.Errorf("%s: %d sources, %d distinct task ids; want %d, %d", name, sources, tasks, segments, polls/tracegen.Dial9Workers)
		}
	}
	rows.Close()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("polls per worker: duckdb %v, want %v", got, want)
	}

	// Rows per host: 3 rows per poll (complete poll, wake, queue sample).
	var nHosts, minRows, maxRows int64
	if err := db.QueryRow(`SELECT count(*), min(n), max(n) FROM (SELECT regexp_extract(source, 'host-([0-9]+)', 1) AS host, count(*) AS n
		FROM `+ds+` WHERE format = 'dial9' GROUP BY host)`).Scan(&nHosts, &minRows, &maxRows); err != nil {
		t.Fatal(err)
	}
	perHost := int64(segments / hosts * polls * 3)
	if nHosts != hosts || minRows != perHost || maxRows != perHost {
		t.Errorf("per host: %d hosts, %d..%d rows; want %d hosts, %d rows", nHosts, minRows, maxRows, hosts, perHost)
	}

	// ATF: calls per function and thread, with their total duration.
	wantATF := map[string]agg{}
	for j := range calls {
		for _, f := range []struct {
			name string
			d    int64
		}{{tracegen.ATFFunctions[j%2], int64(tracegen.ATFCallDur(j))}, {tracegen.ATFFunctions[2], int64(tracegen.ATFCallDur(j) / 4 * 2)}} {
			a := wantATF[f.name]
			a.n += threads
			a.sum += threads * f.d
			a.max = max(a.max, f.d)
			wantATF[f.name] = a
		}
	}
	rows, err = db.Query(`SELECT name, count(*), sum(dur_ns)::BIGINT, max(dur_ns), count(DISTINCT track), min(atf_depth), max(atf_depth)
		FROM ` + ds + ` WHERE format = 'atf' AND kind = 'complete' GROUP BY name`)
	if err != nil {
		t.Fatal(err)
	}
	gotATF := map[string]agg{}
	for rows.Next() {
		var name string
		var a agg
		var nThreads, dmin, dmax int64
		if err := rows.Scan(&name, &a.n, &a.sum, &a.max, &nThreads, &dmin, &dmax); err != nil {
			t.Fatal(err)
		}
		gotATF[name] = a
		wantDepth := int64(1)
		if name == tracegen.ATFFunctions[2] {
			wantDepth = 2
		}
		if nThreads != threads || dmin != wantDepth || dmax != wantDepth {
			t.Errorf("%s: %d threads, depth %d..%d", name, nThreads, dmin, dmax)
		}
	}
	rows.Close()
	if fmt.Sprint(gotATF) != fmt.Sprint(wantATF) {
		t.Errorf("ATF calls per function: duckdb %v, want %v", gotATF, wantATF)
	}
	// Nothing left unpaired, and the partition column matches the files.
	var unpaired, total int64
	if err := db.QueryRow(`SELECT count(*) FILTER (kind IN ('begin', 'end')), count(*) FROM `+ds).Scan(&unpaired, &total); err != nil {
		t.Fatal(err)
	}
	if unpaired != 0 || total != res.Rows {
		t.Errorf("%d unpaired rows, %d rows (export wrote %d)", unpaired, total, res.Rows)
	}
}
