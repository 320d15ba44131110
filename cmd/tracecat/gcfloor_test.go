package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestGCFloor: the floor turns the GOGC collector off under a memory
// limit, and the first collection gives back Go's settings.
func TestGCFloor(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	pct, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(pct); debug.SetMemoryLimit(limit) }()
	if !setGCFloor() {
		t.Fatal("setGCFloor did not apply with GOGC and GOMEMLIMIT unset")
	}
	if got := debug.SetMemoryLimit(-1); got != gcFloor {
		t.Fatalf("memory limit %d, want the floor %d", got, gcFloor)
	}
	if got := gcPercent(); got != -1 {
		t.Fatalf("GC percent %d under the floor, want -1 (off)", got)
	}
	runtime.GC()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if debug.SetMemoryLimit(-1) == math.MaxInt64 && gcPercent() == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first collection did not lift the floor")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// TestGCFloorEnvironment: GOGC or GOMEMLIMIT set leave Go's settings.
func TestGCFloorEnvironment(t *testing.T) {
	for _, kv := range [][2]string{{"GOGC", "100"}, {"GOMEMLIMIT", "1GiB"}} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv(kv[0], kv[1])
		pct, limit := gcPercent(), debug.SetMemoryLimit(-1)
		if setGCFloor() {
			t.Errorf("%s=%s: setGCFloor applied", kv[0], kv[1])
		}
		if gcPercent() != pct || debug.SetMemoryLimit(-1) != limit {
			t.Errorf("%s=%s: settings changed", kv[0], kv[1])
		}
	}
}

// gcPercent is the GC percent, left as it is.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
