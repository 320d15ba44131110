package inspect_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect"
	"github.com/tracecodec/tracecodec/internal/ferr"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// libFormats are the formats whose validate and stats tracecat takes from
// this package.
var libFormats = []string{"dial9", "wtf", "cdt", "atf", "ctf"}

var tracecat struct {
	once sync.Once
	path string
	err  error
}

// TestMain removes the tracecat built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if tracecat.path != "" {
		os.RemoveAll(filepath.Dir(tracecat.path))
	}
	os.Exit(code)
}

// tracecatBin builds cmd/tracecat once for the tests of this file.
func tracecatBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cmd/tracecat")
	}
	tracecat.once.Do(func() {
		root, err := vectortest.ModuleRoot()
		if err != nil {
			tracecat.err = err
			return
		}
		dir, err := os.MkdirTemp("", "inspect-tracecat")
		if err != nil {
			tracecat.err = err
			return
		}
		tracecat.path = filepath.Join(dir, "tracecat")
		cmd := exec.Command("go", "build", "-o", tracecat.path, "./cmd/tracecat")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			tracecat.err = errors.New(string(out))
		}
	})
	if tracecat.err != nil {
		t.Fatalf("building tracecat: %v", tracecat.err)
	}
	return tracecat.path
}

func runTracecat(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(tracecatBin(t), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, o.String(), e.String()
}

// inputsOf are the sample tracecat writes for format and every vector file
// of it.
func inputsOf(t *testing.T, format string) []string {
	sample := filepath.Join(t.TempDir(), "sample."+format)
	if code, _, errb := runTracecat(t, "sample", format, sample); code != 0 {
		t.Fatalf("sample %s: exit %d: %s", format, code, errb)
	}
	paths := []string{sample}
	root, err := vectortest.Root()
	if err != nil {
		return paths
	}
	filepath.WalkDir(filepath.Join(root, format), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			// A folder the detector names this format (an ATF session or
			// thread, a CTF trace) is an input too.
			if det, err := events.Detect(p); err == nil && det.Format == format {
				paths = append(paths, p)
			}
			return nil
		}
		switch filepath.Base(p) {
		case "README.md", "INDEX.tsv", "SHA256SUMS":
			return nil
		}
		if strings.HasSuffix(p, ".md") {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Size() == 0 {
			return nil // an empty reference output beside a vector, not a trace
		}
		paths = append(paths, p)
		return nil
	})
	return paths
}

// TestLibraryAnswersAsTracecat calls Validate and FormatStats on every
// sample and vector of the formats they cover and compares with what
// tracecat prints: stats --json byte for byte, validate's verdict, summary,
// error and strict-mode answer.
func TestLibraryAnswersAsTracecat(t *testing.T) {
	for _, format := range libFormats {
		t.Run(format, func(t *testing.T) {
			paths := inputsOf(t, format)
			for _, p := range paths {
				compareStats(t, p)
				compareValidate(t, p)
			}
			t.Logf("%d inputs", len(paths))
		})
	}
}

func compareStats(t *testing.T, p string) {
	t.Helper()
	code, out, errb := runTracecat(t, "stats", "--json", p)
	st, err := inspect.FormatStats(inspect.FileInput(p))
	if err != nil {
		if code == 0 || !strings.Contains(errb+out, cliError(err)) {
			t.Errorf("%s: FormatStats: %v; tracecat stats: exit %d\n%s%s", p, err, code, out, errb)
		}
		return
	}
	if code != 0 {
		t.Errorf("%s: FormatStats succeeded; tracecat stats: exit %d\n%s", p, code, errb)
		return
	}
	b, err := st.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b)+"\n", out; got != want {
		t.Errorf("%s: FormatStats:\n%s\ntracecat stats --json:\n%s", p, got, want)
	}
}

func compareValidate(t *testing.T, p string) {
	t.Helper()
	code, out, errb := runTracecat(t, "validate", p)
	rep, err := inspect.Validate(inspect.FileInput(p))
	if err != nil {
		if code == 0 || !strings.Contains(errb+out, cliError(err)) {
			t.Errorf("%s: Validate: %v; tracecat validate: exit %d\n%s%s", p, err, code, out, errb)
		}
		if rep.Recovery != nil && !strings.Contains(errb+out, "recovery: "+rep.Recovery.String()) {
			t.Errorf("%s: Validate's recovery %s not in\n%s%s", p, rep.Recovery, out, errb)
		}
		return
	}
	if code != 0 || !strings.Contains(out, "ok ("+rep.Summary+")") {
		t.Errorf("%s: Validate: ok (%s); tracecat validate: exit %d\n%s%s", p, rep.Summary, code, out, errb)
	}
	for _, pr := range rep.Problems {
		if !strings.Contains(errb+out, pr) {
			t.Errorf("%s: problem %q not printed by tracecat validate:\n%s%s", p, pr, out, errb)
		}
	}
	scode, sout, serr := runTracecat(t, "validate", "--strict", p)
	if strict := rep.StrictLosses(); (scode == 0) != (len(strict) == 0) {
		t.Errorf("%s: StrictLosses %q; tracecat validate --strict: exit %d\n%s%s", p, strict, scode, sout, serr)
	}
}

// cliError is err as tracecat prints it after the input's path: a format
// error's detail ("offset N: what is wrong", also when wrapped), else without
// the codec package's "pkg: " prefix.
func cliError(err error) string {
	var fe *ferr.Error
	if errors.As(err, &fe) {
		return fe.Detail()
	}
	msg := err.Error()
	if i := strings.Index(msg, ": "); i > 0 && !strings.ContainsAny(msg[:i], " /") {
		return msg[i+2:]
	}
	return msg
}
