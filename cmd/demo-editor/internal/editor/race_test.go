//go:build race

package editor

// raceEnabled: the race detector makes big texts many times slower to
// read, hash and replay, so tests of them shrink under it.
const raceEnabled = true
