package events_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/dial9"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// Every format: a damaged input is read as far as it goes, Err is nil, and
// Recovery says what was read, what was lost and why, in one summary type.
func TestRecoverySummaryEveryFormat(t *testing.T) {
	cdtData := genCDT(600)
	d9 := genDial9(300)
	wtf := genWTF(300)
	for _, tc := range []struct {
		name     string
		data     []byte
		format   string
		unit     string
		sentinel error
		lossy    bool
	}{
		{"cdt without footer", cdtData[:len(cdtData)-200], "cdt", "ticks", cdt.ErrTrailer, true},
		{"dial9 cut", d9[:len(d9)-3], "dial9", "events", dial9.ErrTruncated, true},
		{"atf torn", genATF(100)[:64+50*32+7], "atf", "events", atf.ErrTruncated, true},
		{"wtf torn", wtf[:len(wtf)-5], "wtf", "events", wtfcff.ErrTruncated, true},
	} {
		r, err := events.OpenBytes(tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		n := count(t, r)
		rec := r.Recovery()
		if rec == nil || !r.Recovered() {
			t.Fatalf("%s: no recovery report (recovered %v)", tc.name, r.Recovered())
		}
		if rec.Format != tc.format || rec.Unit != tc.unit || !errors.Is(rec.Reason, tc.sentinel) || rec.Lossy() != tc.lossy || rec.Clean() {
			t.Errorf("%s: %+v (%s)", tc.name, rec, rec)
		}
		if tc.unit == "events" && rec.Read != int64(n) {
			t.Errorf("%s: read %d, %d events delivered", tc.name, rec.Read, n)
		}
		r.Close()
	}
	// Clean inputs have no report.
	for name, b := range map[string][]byte{"cdt": cdtData, "dial9": d9, "atf": genATF(10), "wtf": wtf} {
		r, err := events.OpenBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		count(t, r)
		if r.Recovery() != nil || r.Recovered() {
			t.Errorf("%s: clean input reported %v", name, r.Recovery())
		}
		r.Close()
	}
}

// An ATF session whose detail file lost its tail (a full disk): the links to
// the lost records are counted in the summary, as tracecat validate reports
// them (Session.Check), not only the files' own problems.
func TestRecoveryATFDanglingLinks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pid_1")
	sw, err := atf.CreateSessionDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := sw.Thread(0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		var p []byte
		if i%2 == 0 {
			p = []byte("args")
		}
		if _, err := tw.Write(uint64(100+i), 1, atf.KindCall, 1, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	count(t, r)
	if rec := r.Recovery(); rec != nil {
		t.Fatalf("clean session reported %v", rec)
	}
	r.Close()

	dp := filepath.Join(dir, "thread_0", "detail.atf")
	d, err := os.ReadFile(dp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dp, d[:atf.HeaderSize+3*(atf.DetailEventHeaderSize+4)], 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	count(t, r)
	rec := r.Recovery()
	if rec == nil {
		t.Fatal("no recovery report for a session with dangling links")
	}
	if !strings.Contains(rec.String(), "dangling") || rec.Lost < 2 {
		t.Errorf("summary lacks the 2 dangling links: %s (lost %d)", rec, rec.Lost)
	}
}

func TestFormatName(t *testing.T) {
	for pkg, want := range map[string]string{"wtfcff": "wtf", "ctf2meta": "ctf", "cdt": "cdt", "dial9": "dial9", "atf": "atf", "x": "x"} {
		if got := events.FormatName(pkg); got != want {
			t.Errorf("FormatName(%q) = %q, want %q", pkg, got, want)
		}
	}
}
