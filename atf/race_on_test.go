//go:build race

package atf

const raceEnabled = true
