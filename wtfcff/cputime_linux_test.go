package wtfcff

import "syscall"

// processCPU is the CPU time the process has used (user + system), so
// benchmarks can report throughput per CPU-second, which a machine shared
// with other jobs distorts far less than wall-clock time.
func processCPU() (float64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, true
}
