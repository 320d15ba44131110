//go:build !linux

package wtfcff

func processCPU() (float64, bool) { return 0, false }
