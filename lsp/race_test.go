//go:build race

package lsp

// raceEnabled: the race detector's shadow memory multiplies a process's
// RSS, so memory figures are not measured under it.
const raceEnabled = true
