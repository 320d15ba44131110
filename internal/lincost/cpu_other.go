//go:build !unix

package lincost

import "time"

var start = time.Now()

// ProcessCPU falls back to wall-clock time where process CPU time cannot be
// read.
func ProcessCPU() int64 { return int64(time.Since(start)) }
