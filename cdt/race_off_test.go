//go:build !race

package cdt

const raceEnabled = false
