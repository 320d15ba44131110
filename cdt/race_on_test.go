//go:build race

package cdt

const raceEnabled = true
