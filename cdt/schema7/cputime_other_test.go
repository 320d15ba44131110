//go:build !unix

package schema7

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
