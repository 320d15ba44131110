package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// gcFloor is the heap size below which tracecat does not collect garbage.
//
// A tracecat run is one process per command, and what most commands build
// (a decoded metadata model, an index, a schema) stays live to the end: a
// collection in the first megabytes marks that growing model again each
// time the heap doubles (4, 8, 16 MiB) and frees almost nothing. Parsing
// the 10.5 MB CTF 2 metadata of ../shared/bench/refs/ctf (case E)
// allocates 16.6 MB, 12 MB of it live at the end: with Go's default
// (GOGC=100, a 4 MiB first goal) its three collections are 22 % of the
// process's instructions and leave the peak resident memory as it was
// (25.1 MiB with them, 24.6 MiB without).
//
// The floor is a memory limit with the GOGC collector off, lifted after
// the first collection: a run whose heap never reaches gcFloor never
// collects, and one that does collects from then on as with GOGC=100, so
// the floor adds at most gcFloor of garbage to a run whose live heap is
// small. GOGC or GOMEMLIMIT in the environment leave Go's own settings.
const gcFloor = 32 << 20

// setGCFloor applies gcFloor unless the environment sets the collector.
// It reports whether it did.
func setGCFloor() bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(gcFloor)
	// The cleanup runs after the first collection that finds the sentinel
	// unreachable: the first one, whatever started it.
	runtime.AddCleanup(new([2]*byte), func(struct{}) {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}, struct{}{})
	return true
}
