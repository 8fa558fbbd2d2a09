//go:build race

package runtime

// raceEnabled: the race detector changes allocation counts (sync.Pool drops
// puts at random under it).
const raceEnabled = true
