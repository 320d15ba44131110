//go:build !race

package schema7

const raceEnabled = false
