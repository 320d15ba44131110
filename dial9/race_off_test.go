//go:build !race

package dial9

const raceEnabled = false
