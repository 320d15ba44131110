//go:build unix

package lincost

import "syscall"

// ProcessCPU is the user plus system CPU time of the process so far, in ns
// (0 where it cannot be read).
func ProcessCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
