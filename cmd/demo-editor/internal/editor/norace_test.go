//go:build !race

package editor

const raceEnabled = false
