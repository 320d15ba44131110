package parquetexport

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tracecodec/tracecodec/atf"
)

// atfThread writes a one-thread ATF session of the events evs (function
// index, 'c' for a call or 'r' for a return), 10 ns apart, and returns
// its pid folder; function i is named fn_i.
func atfThread(t *testing.T, evs ...string) string {
	t.Helper()
	s, err := atf.CreateSession(t.TempDir(), 1, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var syms []atf.Symbol
	for i := range 10 {
		syms = append(syms, atf.Symbol{FunctionID: uint64(100 + i), ModuleID: 1, SymbolIndex: uint32(i), Name: fmt.Sprint("fn_", i)})
	}
	s.SetSymbols([]atf.Module{{ModuleID: 1, Path: "/bin/t"}}, syms)
	tw, err := s.Thread(1)
	if err != nil {
		t.Fatal(err)
	}
	for k, e := range evs {
		kind := atf.KindCall
		if e[1] == 'r' {
			kind = atf.KindReturn
		}
		if _, err := tw.Write(uint64(1000+10*k), uint64(100+int(e[0]-'0')), kind, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Dir()
}

// exportRows exports in and renders its rows as "kind name ts dur",
// sorted, with the result.
func exportRows(t *testing.T, in string, opts ...Option) ([]string, *Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	res, err := Export(context.Background(), out, []string{in}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readAll(t, out)
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprint(r["kind"], " ", r["name"], " ", r["ts_ns"], " ", r["dur_ns"]))
	}
	sort.Strings(got)
	return got, res
}

// TestATFReturnUnwinds: a return closes the innermost open call of its own
// function; the calls above it (their returns lost) stay "begin" rows, a
// return of a function with no open call is an "end" row, and the result
// counts both.
func TestATFReturnUnwinds(t *testing.T) {
	// fn_1 calls fn_2 calls fn_3; fn_3's and fn_2's returns are lost;
	// fn_4 returns without its call; fn_1 returns.
	in := atfThread(t, "1c", "2c", "3c", "4r", "1r")
	got, res := exportRows(t, in)
	want := []string{"begin fn_2 1010 <nil>", "begin fn_3 1020 <nil>", "complete fn_1 1000 40", "end fn_4 1030 <nil>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %v, want %v", got, want)
	}
	if len(res.Unpaired) != 1 || res.Unpaired[0].Begins != 2 || res.Unpaired[0].Ends != 1 {
		t.Errorf("unpaired %+v", res.Unpaired)
	}
}

// TestPairDepthDropsOldest: a track at WithMaxPairDepth lets its oldest
// open begin go, so that a call that never returns (main, or a call whose
// return was lost) does not stop the pairing of the calls after it.
func TestPairDepthDropsOldest(t *testing.T) {
	evs := []string{"0c"}
	for range 5 {
		evs = append(evs, "1c", "1r")
	}
	got, _ := exportRows(t, atfThread(t, evs...), WithMaxPairDepth(1))
	complete := 0
	for _, g := range got {
		if strings.HasPrefix(g, "complete fn_1 ") {
			complete++
		}
	}
	if complete != 5 || got[0] != "begin fn_0 1000 <nil>" {
		t.Errorf("rows %v: want 5 complete fn_1 and fn_0 a begin", got)
	}
}
