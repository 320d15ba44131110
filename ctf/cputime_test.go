package ctf

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time (benchmarks report
// events per CPU-second: wall time on a shared machine swings).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
