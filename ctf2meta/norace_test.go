//go:build !race

package ctf2meta

const raceEnabled = false
