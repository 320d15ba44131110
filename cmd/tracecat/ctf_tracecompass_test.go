package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/events"
)

// TestTraceCompassTraces: Trace Compass's CTF test traces
// (tracecompass-test-traces, ctf/src/main/resources: 283 trace folders in
// the snapshot of release 1.10 — LTTng 2.1–2.15 kernel and user-space
// traces, perf's CTF output, babeltrace's CTF writer tests, OTF2-converted
// MPI traces, CTF 2 traces) beside babeltrace2 2.1: CTF_TC_TRACES names
// the resources folder, BABELTRACE2 the babeltrace2 program. Where
// babeltrace2 prints a trace, dump prints the same text byte for byte and
// validate calls it valid; where babeltrace2 refuses it (the CTF writer
// tests' clock offset of 1.35·10¹⁸ s), dump and validate refuse it too;
// where babeltrace2 2.1.2 aborts on a failed library precondition (a
// packet beginning message given a clock snapshot its stream class has
// none for: dpdk_service_cores, whose packet context has no timestamps),
// dump and validate read it.
func TestTraceCompassTraces(t *testing.T) {
	root, bt := os.Getenv("CTF_TC_TRACES"), os.Getenv("BABELTRACE2")
	if root == "" || bt == "" {
		t.Skip("CTF_TC_TRACES or BABELTRACE2 not set")
	}
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "metadata" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	if err != nil || len(dirs) == 0 {
		t.Fatalf("%s: %v, %d trace folders", root, err, len(dirs))
	}
	refused, crashed := 0, 0
	for _, dir := range dirs {
		cmd := exec.Command(bt, dir)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		ref, btErr := cmd.Output()
		code, dump, errb := run(t, nil, "dump", dir)
		vcode, vout, verr := run(t, nil, "validate", dir)
		var ee *exec.ExitError
		if errors.As(btErr, &ee) && !ee.Exited() && strings.Contains(string(ee.Stderr), "library precondition not satisfied") {
			crashed++
			if code != exitOK || vcode != exitOK {
				t.Errorf("%s: babeltrace2 aborts (%v); dump exit %d %.300s, validate exit %d %q", dir, btErr, code, errb, vcode, verr)
			}
			continue
		}
		if btErr != nil {
			refused++
			if code == exitOK || vcode == exitOK {
				t.Errorf("%s: babeltrace2 refuses it (%v); dump exit %d, validate exit %d %q", dir, btErr, code, vcode, vout)
			}
			continue
		}
		if code != exitOK || dump != string(ref) {
			t.Errorf("%s: dump exit %d %.300s; its %d lines differ from babeltrace2's %d", dir, code, errb, strings.Count(dump, "\n"), strings.Count(string(ref), "\n"))
		}
		if vcode != exitOK {
			t.Errorf("%s: validate exit %d %q %q", dir, vcode, vout, verr)
		}
	}
	t.Logf("%d trace folders, %d refused by babeltrace2 and by tracecat, %d on which babeltrace2 aborts read by tracecat", len(dirs), refused, crashed)
	// folders of several traces (exp: 236 LTTng 2.3 traces, 3.78 M event
	// records whose equal times across traces and overlapping packets
	// show babeltrace2's muxer order), read as one
	sessions := 0
	for _, dir := range dirs {
		parent := filepath.Dir(dir)
		if parent == root || slices.Contains(dirs, parent) || events.CTFSession(parent) == nil {
			continue
		}
		if i := slices.Index(dirs, dir); i > 0 && filepath.Dir(dirs[i-1]) == parent {
			continue // one check per folder
		}
		sessions++
		cmd := exec.Command(bt, parent)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		ref, btErr := cmd.Output()
		code, dump, errb := run(t, nil, "dump", parent)
		if btErr != nil {
			if code == exitOK {
				t.Errorf("%s: babeltrace2 refuses it (%v); dump exit 0", parent, btErr)
			}
			continue
		}
		if code != exitOK || dump != string(ref) {
			t.Errorf("%s: dump exit %d %.300s; its %d lines differ from babeltrace2's %d", parent, code, errb, strings.Count(dump, "\n"), strings.Count(string(ref), "\n"))
		}
	}
	t.Logf("%d folders of several traces", sessions)
}
