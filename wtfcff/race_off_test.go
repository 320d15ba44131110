//go:build !race

package wtfcff

const raceEnabled = false
