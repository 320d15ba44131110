//go:build linux

package checksum

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the whole process (all
// threads), or false where it is unavailable.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
