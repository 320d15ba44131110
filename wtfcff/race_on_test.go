//go:build race

package wtfcff

// raceEnabled: the race detector makes sync.Pool drop items at random
// (encoding/json's scanner pool), so allocation counts are not meaningful.
const raceEnabled = true
