//go:build !linux

package dial9

func processCPU() (float64, bool) { return 0, false }
